// Batch processing in a real browser: upload Seattle addresses, wait for the job, open the export.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { WATCHED_ROWS, a11yViolations, batchComplete, csvFile, largePortfolio, launch, newUser, openPage, screenshot, startBatch } from './helpers.mjs';

const SAMPLE = [
  'Street Address,City,State,Zip,Country',
  '701 5th Ave,Seattle,WA,98104,US',
  '601 Union St,Seattle,WA,98101,US',
  '1420 5th Ave,Seattle,WA,98101,US',
  '405 Olive Way,Seattle,WA,98101,US',
  '100 Biscayne Blvd,Miami,FL,33130,US',
];

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('upload a CSV, follow the job to the end, open and download the export', async () => {
  const { page, errors, context } = await openPage(browser);
  await newUser(page, 'batch');

  await startBatch(page, csvFile('seattle_portfolio.csv', SAMPLE));
  await batchComplete(page, 5);
  await screenshot(page, 'batch-done');

  const link = page.getByRole('list', { name: 'Exported files' }).getByRole('link').first();
  await link.click();
  await page.waitForURL('**/batch-export-detail/**');
  await page.getByText(/Displaying 5 row\(s\) from seattle_portfolio_export_/).waitFor();
  const seattle = page.getByRole('article', { name: /701 5th Ave/ });
  // A row's card gives its occupants' count and NAICS codes; the occupants themselves are on its result page.
  await seattle.getByText('518210', { exact: false }).first().waitFor();
  await screenshot(page, 'export-detail');
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the export viewer');
  const exportUrl = page.url();

  // A group card opens the search result page with the group's navigation state...
  await seattle.getByRole('link', { name: /701 5th Ave/ }).click();
  await page.waitForURL('**/search-result/export%3A**');
  await page.getByRole('heading', { level: 1, name: /701 5th Ave/ }).waitFor();
  const building = page.getByRole('region', { name: 'Building Details' });
  await building.getByText('1985').waitFor();
  await page.getByRole('cell', { name: '518210' }).first().waitFor();
  await screenshot(page, 'export-group-result');
  // ...and opened as a link in a new tab (no navigation state), the group is read from the export file.
  const tab = await context.newPage();
  await tab.goto(page.url());
  await tab.getByRole('heading', { level: 1, name: /701 5th Ave/ }).waitFor();
  await tab.getByText(/address group 1 of 5/).waitFor();
  await tab.getByRole('button', { name: 'Next' }).click();
  await tab.getByText(/address group 2 of 5/).waitFor();
  await tab.close();
  await page.goto(exportUrl);
  await page.getByText(/Displaying 5 row\(s\)/).waitFor();

  const downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const csv = readFileSync(await (await downloadPromise).path(), 'utf8');
  assert.match(csv, /^address,name,vicinity,types,lat,lng,business_status,Total_Score,Top3_Scores_Combined,naics_code/);
  assert.ok(csv.includes('98POINT6 INC'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a batch of several chunks shows its progress climbing before the job is done', async () => {
  const { page, errors, context } = await openPage(browser);
  await newUser(page, 'progress');

  // Every percentage the progress bar shows, as it shows it.
  const watchProgress = () => page.evaluate(() => {
    window.seenPercents = [];
    new MutationObserver(() => {
      const bar = document.querySelector('[role=progressbar][aria-label="Batch progress"]');
      if (bar) window.seenPercents.push(Number(bar.getAttribute('aria-valuenow')));
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow'] });
  });
  await startBatch(page, largePortfolio(), { beforeStart: watchProgress });
  await batchComplete(page, WATCHED_ROWS);
  const seen = await page.evaluate(() => window.seenPercents);
  const between = [...new Set(seen)].filter((percent) => percent > 0 && percent < 100);
  assert.ok(between.length >= 1, `an intermediate percentage was shown (saw ${[...new Set(seen)].join(', ')})`);
  assert.deepEqual([...seen].sort((a, b) => a - b), seen, 'the percentage never goes backwards');
  assert.deepEqual(errors, []);
  await context.close();
});

test('leaving the dashboard while a batch runs: on return its progress, then its completion message', async () => {
  const { page, errors, context } = await openPage(browser);
  await newUser(page, 'away');

  await startBatch(page, largePortfolio());
  const bar = page.getByRole('progressbar', { name: 'Batch progress' });
  await bar.waitFor();

  // Away to another page of the app and back: the dashboard is mounted anew, with no state of its own.
  const nav = page.getByRole('navigation').first();
  await nav.getByRole('link', { name: 'About' }).click();
  await page.waitForURL('**/about');
  await bar.waitFor({ state: 'detached' });
  await nav.getByRole('link', { name: 'Dashboard' }).click();
  await page.waitForURL('**/data-processing');
  await bar.waitFor();
  const percent = Number(await bar.getAttribute('aria-valuenow'));
  assert.ok(percent < 100, `the job is still running on return (${percent}%)`);
  await page.getByRole('button', { name: 'Processing...' }).waitFor();
  await screenshot(page, 'batch-progress-on-return');

  await batchComplete(page, WATCHED_ROWS);
  await page.getByRole('list', { name: 'Exported files' }).getByText(/large_portfolio_export_/).waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});
