// Time to first meaningful paint of the portfolio page (/portfolio/{export}) for a batch of N rows:
// from the navigation's start to the headline figures and the county map with its counties
// coloured, in Debian's chromium through playwright-core. The summary is computed on the server
// (GET /api/exports/{name}/portfolio): "first visit" includes computing it, "again" reads the kept one.
//
// A throwaway server (temporary SQLite database, data loaded) runs a real batch of N addresses
// (bench/batch.py's builder) through the HTTP API first; that part is timed apart.
//
//   make web-build && node bench/portfolio_first_paint.mjs --rows 100000     # target: under 1.5 s
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, startServer } from './server.mjs';
import { createRequire } from 'node:module';

// playwright-core is the web app's (its browser tests use it): no browser is downloaded.
const require = createRequire(path.join(ROOT, 'web', 'package.json'));
const { chromium } = require('playwright-core');
const PYTHON = path.join(ROOT, '.venv/bin/python');
const PASSWORD = 'Bench!pass1';
const { values: options } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' } } });
const ROWS = Number(options.rows);
const RUNS = Number(options.runs);

async function api(url, pathname, { token, ...init } = {}) {
  const response = await fetch(`${url}${pathname}`, {
    ...init,
    headers: { ...(init.headers ?? {}), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
  if (!response.ok) throw new Error(`${pathname}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A user, and a finished batch of ROWS real addresses: the export's name and the seconds it took. */
async function finishedBatch(url, email, tmp) {
  const json = { 'Content-Type': 'application/json' };
  await api(url, '/api/auth/signup', { method: 'POST', headers: json, body: JSON.stringify({ email, password: PASSWORD }) });
  const { access_token: token } = await api(url, '/api/auth/login', { method: 'POST', headers: json, body: JSON.stringify({ email, password: PASSWORD }) });
  const file = path.join(tmp, 'bench_portfolio.csv');
  execFileSync(PYTHON, ['-c', [
    'import sys; from pathlib import Path; from bench.batch import build_input; from entrypoints.settings import Settings',
    `Path(sys.argv[1]).write_bytes(build_input(${ROWS}, Settings.from_env().data_dir))`,
  ].join('\n'), file], { cwd: ROOT });
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)], { type: 'text/csv' }), 'bench_portfolio.csv');
  const started = Date.now();
  const { file_id: fileId } = await api(url, '/api/upload-csv', { method: 'POST', body: form, token });
  let { job } = await api(url, '/api/batch-jobs', { method: 'POST', headers: json, body: JSON.stringify({ file_id: fileId }), token });
  while (!['done', 'failed'].includes(job.status)) {
    await new Promise((r) => setTimeout(r, 500));
    ({ job } = await api(url, `/api/batch-jobs/${job.id}`, { token }));
  }
  if (job.status !== 'done') throw new Error(`the batch failed: ${JSON.stringify(job)}`);
  return { name: job.export_filename, seconds: (Date.now() - started) / 1000 };
}

/**
 * ms from the navigation's start until the headline figures and a coloured county are on screen,
 * and where that time went: each request's start and end (the page's code, the session refresh,
 * the summary), the main thread's long tasks, and the page's own performance marks.
 */
async function firstPaint(page, url) {
  await page.goto(url, { waitUntil: 'commit' });
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries()))
      .observe({ type: 'longtask', buffered: true });
  }).catch(() => {});
  const handle = await page.waitForFunction(() => {
    const book = [...document.querySelectorAll('section')].find((s) => s.querySelector('h2')?.textContent === 'The book');
    const county = document.querySelector('[data-testid="county-map"] path.county-present');
    const visible = (el) => el && el.getBoundingClientRect().height > 0;
    return visible(book) && visible(county) ? performance.now() : null;
  }, null, { timeout: 120_000, polling: 'raf' });
  const ms = await handle.jsonValue();
  const breakdown = await page.evaluate((paint) => {
    const round = (n) => Math.round(n);
    const requests = performance.getEntriesByType('resource')
      .filter((r) => r.startTime < paint)
      .map((r) => `${new URL(r.name).pathname.replace(/^\/assets\//, '').slice(0, 48)} ${round(r.startTime)}-${round(r.responseEnd)}` +
        (r.encodedBodySize ? ` (${round(r.encodedBodySize / 1024)} kB)` : ''));
    const nav = performance.getEntriesByType('navigation')[0];
    const tasks = (window.__longTasks ?? []).filter((t) => t.startTime < paint);
    const marks = performance.getEntriesByType('mark').map((m) => `${m.name} ${round(m.startTime)}`);
    return [
      `html ${round(nav.startTime)}-${round(nav.responseEnd)}`, ...requests,
      `long tasks: ${tasks.length}, ${round(tasks.reduce((sum, t) => sum + t.duration, 0))} ms` +
        (tasks.length ? ` (${tasks.map((t) => `${round(t.startTime)}+${round(t.duration)}`).join(', ')})` : ''),
      ...marks,
    ];
  }, ms);
  return { ms, breakdown };
}

const server = await startServer({
  loadData: true,
  env: { PERILSCOPE_MONTHLY_BATCH_ROW_LIMIT: String(Math.max(ROWS, 10_000)) },
});
const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  const email = `paint-${Date.now()}@example.com`;
  const batch = await finishedBatch(server.url, email, server.tmp);
  console.log(`${ROWS.toLocaleString('en-US')}-row batch through the HTTP API: ${batch.seconds.toFixed(1)} s (${batch.name})`);

  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  // Signed in once through the login page, like a user; each measured visit is a fresh page load
  // (the session is restored from the refresh cookie, as after a reload).
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL('**/data-processing');
  const target = `/portfolio/${encodeURIComponent(batch.name)}`;
  const { ms: first, breakdown: firstBreakdown } = await firstPaint(page, target);
  const visits = [];
  for (let run = 0; run < RUNS; run += 1) visits.push(await firstPaint(page, target));
  const again = visits.map((visit) => visit.ms).sort((a, b) => a - b);
  const median = again[Math.floor(again.length / 2)];
  const medianVisit = visits.find((visit) => visit.ms === median);
  console.log('first visit, in ms from the navigation\'s start:');
  for (const line of firstBreakdown) console.log(`    ${line}`);
  console.log('median visit again, in ms from the navigation\'s start:');
  for (const line of medianVisit.breakdown) console.log(`    ${line}`);
  console.log(`portfolio first meaningful paint, ${ROWS.toLocaleString('en-US')} rows (headline + coloured map):`);
  console.log(`  first visit (summary computed on the server): ${(first / 1000).toFixed(2)} s`);
  console.log(`  again, median of ${RUNS}: ${(median / 1000).toFixed(2)} s (${again.map((ms) => (ms / 1000).toFixed(2)).join(', ')})`);
  console.log(`  target under 1.5 s: ${first < 1500 ? 'met' : 'NOT met'} on the first visit, ${median < 1500 ? 'met' : 'NOT met'} again`);
  await context.close();
} finally {
  await browser.close();
  server.stop();
}
