// The web app's layers (STYLE §6): a feature keeps to itself, shared code lives in src/lib/,
// src/components/ or src/api/, and every request goes through the one RTK Query client.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(__dirname);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(entry.name) ? [full] : [];
  });
}

/** Every relative module a file imports: static `from '...'`, side-effect `import '...'`, and lazy `import('...')`. */
function relativeImports(source: string): string[] {
  const specifiers = [...source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.[^']*)'/g)].map((m) => m[1]!);
  return specifiers;
}

/** The feature a path under src/ belongs to, else null. */
function featureOf(file: string): string | null {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts[0] === 'features' && parts.length > 2 ? parts[1]! : null;
}

const files = sourceFiles(SRC);
const isTest = (file: string) => /\.test\.tsx?$/.test(file);
const underSrc = (file: string) => path.relative(SRC, file).split(path.sep).join('/');

describe('layers', () => {
  it('finds the features it checks', () => {
    const features = new Set(files.map(featureOf).filter(Boolean));
    expect([...features]).toEqual(expect.arrayContaining(['auth', 'exports', 'search', 'searchResult']));
  });

  it('no feature imports another feature', () => {
    const crossings: string[] = [];
    for (const file of files) {
      const own = featureOf(file);
      if (!own) continue;
      for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
        const target = featureOf(path.resolve(path.dirname(file), specifier) + '.ts');
        if (target && target !== own) crossings.push(`${underSrc(file)} imports ${specifier}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it('shared code (src/lib, src/components, src/api) imports no feature', () => {
    const crossings: string[] = [];
    for (const file of files) {
      const top = underSrc(file).split('/')[0];
      if (!['lib', 'components', 'api'].includes(top!) || isTest(file)) continue;
      for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
        if (featureOf(path.resolve(path.dirname(file), specifier) + '.ts')) crossings.push(`${underSrc(file)} imports ${specifier}`);
      }
    }
    expect(crossings).toEqual([]);
  });

  it('no code calls fetch( outside src/api/ (every request goes through RTK Query)', () => {
    const callers = files
      .filter((file) => !isTest(file) && !['api', 'test'].includes(underSrc(file).split('/')[0]!))
      .filter((file) => /\bfetch\s*\(/.test(readFileSync(file, 'utf8')))
      .map(underSrc);
    expect(callers).toEqual([]);
  });

  it('the checks see a crossing and a fetch call when there is one', () => {
    expect(relativeImports("import { x } from '../search/resultView';\nconst P = lazy(() => import('../exports/Page'));"))
      .toEqual(['../search/resultView', '../exports/Page']);
    expect(featureOf(path.join(SRC, 'features/search/x.ts'))).toBe('search');
    expect(/\bfetch\s*\(/.test('const r = await fetch(url);')).toBe(true);
    expect(/\bfetch\s*\(/.test('void refetch();')).toBe(false);
  });
});
