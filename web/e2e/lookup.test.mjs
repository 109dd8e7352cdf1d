// The property lookup in a real browser, on the real data loaded by run.sh.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { a11yViolations, launch, lookUp, newUser, openPage, screenshot } from './helpers.mjs';

const SEATTLE = '701 5th Ave, Seattle, WA 98104';
const MIAMI = '100 Biscayne Blvd, Miami, FL 33130';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('look up Seattle, read occupants and the chart, open the result, export, step through', async () => {
  const { page, errors, context } = await openPage(browser);
  await newUser(page, 'lookup');

  await lookUp(page, MIAMI);
  await lookUp(page, SEATTLE);
  const occupants = page.getByRole('table', { name: 'Occupants' }).first();
  await occupants.waitFor();
  assert.ok((await occupants.getByRole('row').count()) > 20, 'at least 20 occupants and a header row');
  await occupants.getByText('518210').first().waitFor(); // 98POINT6 INC's NAICS code
  await page.getByTestId('peril-chart').first().locator('svg').first().waitFor();
  await screenshot(page, 'dashboard-lookup');
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the dashboard');

  await page.getByRole('link', { name: /701 5th Ave/ }).first().click();
  await page.waitForURL('**/search-result/**');
  await page.getByRole('heading', { name: 'Occupant Detail' }).waitFor();
  await page.getByText('Year Built').waitFor();
  await page.getByText('1985').first().waitFor();
  await page.getByRole('region', { name: 'Score receipt' }).getByText('King County, WA (53033)').waitFor();
  await screenshot(page, 'search-result');
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the search result');

  const downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export' }).click();
  const download = await downloadPromise;
  const csv = readFileSync(await download.path(), 'utf8');
  assert.match(csv.split('\n')[0], /^address,name,vicinity,types,lat,lng,business_status,Total_Score,Top3_Scores_Combined,naics_code/);

  assert.equal(await page.getByRole('button', { name: 'Next' }).isDisabled(), true); // the newest search
  await page.getByRole('button', { name: 'Previous' }).click();
  await page.getByRole('heading', { level: 1, name: /100 Biscayne Blvd/ }).waitFor();
  await page.getByText('Hurricane').first().waitFor();
  assert.equal(await page.getByRole('button', { name: 'Previous' }).isDisabled(), true);
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByRole('heading', { level: 1, name: /701 5th Ave/ }).waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('a regular user is stopped at the monthly limit', async () => {
  const { page, errors, context } = await openPage(browser);
  await newUser(page, 'limit');
  for (let i = 0; i < 10; i += 1) await lookUp(page, MIAMI);
  const button = page.getByRole('button', { name: 'Monthly search limit reached' });
  await button.waitFor();
  assert.equal(await button.isDisabled(), true);
  await screenshot(page, 'limit-reached');
  assert.deepEqual(errors, []);
  await context.close();
});
