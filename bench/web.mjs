// Web figures: the initial JavaScript (gzip) of the built app, and Lighthouse 12 mobile
// performance scores for / and /login, on Debian's chromium against a local server.
//
//   (cd bench/web && npm install) && node bench/web.mjs        # after `make web-build`
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, startServer } from './server.mjs';

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
