// Batch processing in a real browser: upload Seattle addresses, wait for the job, open the export.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { launch, openPage, screenshot, signIn, signUp, uniqueEmail } from './helpers.mjs';

const SAMPLE = [
  'Street Address,City,State,Zip,Country',
  '701 5th Ave,Seattle,WA,98104,US',
  '601 Union St,Seattle,WA,98101,US',
  '1420 5th Ave,Seattle,WA,98101,US',
  '405 Olive Way,Seattle,WA,98101,US',
  '100 Biscayne Blvd,Miami,FL,33130,US',
].join('\n');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('upload a CSV, follow the job to the end, open and download the export', async () => {
  const { page, errors, context } = await openPage(browser);
  const email = uniqueEmail('batch');
  await signUp(page, email);
  await signIn(page, email);
  await page.waitForURL('**/data-processing');

  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'e2e-')), 'seattle_portfolio.csv');
  writeFileSync(file, SAMPLE);
  await page.locator('input[type=file]').setInputFiles(file);
  await page.getByText('File uploaded successfully: seattle_portfolio.csv').waitFor();
  await page.getByRole('button', { name: 'Process Batch File' }).click();
  await page.getByText(/Batch complete: 5 address\(es\) exported/).waitFor({ timeout: 60_000 });
  await screenshot(page, 'batch-done');

  const link = page.getByRole('list', { name: 'Exported files' }).getByRole('link').first();
  await link.click();
  await page.waitForURL('**/batch-export-detail/**');
  await page.getByText(/Displaying 5 address group\(s\) from seattle_portfolio_export_/).waitFor();
  const seattle = page.getByRole('article', { name: /701 5th Ave/ });
  await seattle.getByText('Occupants at this Address (24)').waitFor();
  await seattle.getByRole('cell', { name: '518210' }).first().waitFor();
  await screenshot(page, 'export-detail');

  const downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const csv = readFileSync(await (await downloadPromise).path(), 'utf8');
  assert.match(csv, /^address,name,vicinity,types,lat,lng,business_status,Total_Score,Top3_Scores_Combined,naics_code/);
  assert.ok(csv.includes('98POINT6 INC'));
  assert.deepEqual(errors, []);
  await context.close();
});
