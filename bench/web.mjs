// Web figures: the initial JavaScript (gzip) of the built app, and Lighthouse 12 mobile
// performance scores for / and /login, on Debian's chromium against a local server.
//
//   (cd bench/web && npm install) && node bench/web.mjs        # after `make web-build`
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const DIST = path.join(ROOT, 'web', 'dist');
const require = createRequire(path.join(ROOT, 'bench', 'web', 'package.json'));
const lighthouse = (await import(require.resolve('lighthouse'))).default;
const chromeLauncher = await import(require.resolve('chrome-launcher'));

function initialJsGzip() {
  // What the browser fetches before the first render: the entry script and its modulepreloads.
  const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  const sizes = files.map((file) => gzipSync(readFileSync(path.join(DIST, file)), { level: 9 }).length);
  return { files, bytes: sizes.reduce((a, b) => a + b, 0) };
}

async function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startServer() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'perilscope-webbench-'));
  const port = await freePort();
  const env = { ...process.env, DATABASE_URL: `sqlite+aiosqlite:///${tmp}/web.db`, PERILSCOPE_ENV: 'test', PERILSCOPE_LOG_LEVEL: 'WARNING' };
  execFileSync(path.join(ROOT, '.venv/bin/perilscope'), ['db', 'upgrade'], { env, cwd: ROOT, stdio: 'ignore' });
  const server = spawn(path.join(ROOT, '.venv/bin/perilscope'), ['serve', '--host', '127.0.0.1', '--port', String(port)], { env, cwd: ROOT, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i += 1) {
    try { if ((await fetch(`${url}/ready`)).ok) break; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, stop: () => { server.kill(); rmSync(tmp, { recursive: true, force: true }); } };
}

const js = initialJsGzip();
console.log(`initial JS (gzip -9): ${(js.bytes / 1024).toFixed(1)} kB in ${js.files.length} file(s): ${js.files.join(', ')}`);

const server = await startServer();
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
});
try {
  for (const route of ['/', '/login']) {
    // Lighthouse's default is the mobile profile (Moto G power, slow 4G, 4x CPU slowdown).
    const result = await lighthouse(`${server.url}${route}`, { port: chrome.port, onlyCategories: ['performance'], output: 'json', logLevel: 'error' });
    const audits = result.lhr.audits;
    console.log(
      `Lighthouse ${result.lhr.lighthouseVersion} mobile ${route.padEnd(7)} performance ${Math.round(result.lhr.categories.performance.score * 100)}` +
      `  FCP ${audits['first-contentful-paint'].displayValue}  LCP ${audits['largest-contentful-paint'].displayValue}` +
      `  TBT ${audits['total-blocking-time'].displayValue}  CLS ${audits['cumulative-layout-shift'].displayValue}`,
    );
  }
} finally {
  await chrome.kill();
  server.stop();
}
