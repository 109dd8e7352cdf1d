// Issue #11 in a real browser, on the real data loaded by run.sh: an answer whose county is in
// doubt is marked on the dashboard and the result page, its other possible counties one click
// away; both pages fit 1280 and 390 px and pass axe. Screenshots: trust-*.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { a11yViolations, batchComplete, csvFile, launch, lookUp, newUser, openPage, overflow, screenshot, screenshotPath, startBatch } from './helpers.mjs';

const MISMATCH = '701 5th Ave, Seattle, WA 10001'; // a Seattle street with a New York ZIP code
const SHARED_ZIP = '3620 Howell Ferry Rd, Duluth, GA 30097'; // a ZIP code spread over several counties
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A screenshot at 1280 and at 390 px; at 390 px nothing may reach past the screen's edge. */
async function bothWidths(page, name, sections = [], { chart = true } = {}) {
  if (chart) await page.getByTestId('peril-chart').first().locator('svg').first().waitFor();
  await page.setViewportSize(DESKTOP);
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize(PHONE);
  await page.waitForFunction((width) => document.documentElement.scrollWidth <= width, PHONE.width, { timeout: 3000 }).catch(() => {});
  const { scrollWidth, culprits } = await overflow(page);
  assert.ok(scrollWidth <= PHONE.width, `${name} is ${scrollWidth} px wide at 390 px; past the edge: ${culprits.join(', ')}`);
  assert.deepEqual(await a11yViolations(page), [], `${name}: no serious accessibility violations at 390 px`);
  await screenshot(page, `${name}-390`);
  // The sections at phone size, each on its own, to look at closely.
  for (const section of sections) {
    await page.getByRole('region', { name: section }).screenshot({ path: screenshotPath(`${name}-390-${section.replace(/\W+/g, '-').toLowerCase()}`) });
  }
  await page.setViewportSize(DESKTOP);
}

test('a doubtful county is marked, and its alternatives are one click away', async () => {
  const { page, errors, context } = await openPage(browser, DESKTOP);
  await newUser(page, 'trust');

  const mismatch = await lookUp(page, MISMATCH);
  assert.equal(mismatch.location.low_confidence, true, `${MISMATCH} should be low-confidence: ${JSON.stringify(mismatch.location)}`);
  const shared = await lookUp(page, SHARED_ZIP);
  assert.ok(shared.location.alternatives.length > 0, `${SHARED_ZIP} should have alternatives: ${JSON.stringify(shared.location)}`);

  // Both cards carry the badge when the server says the county is uncertain.
  const latest = page.locator('.result-card-latest');
  await latest.getByText(/3620 Howell Ferry Rd/).waitFor();
  if (shared.location.low_confidence) await latest.getByTestId('county-uncertain').waitFor();
  const earlier = page.getByRole('list', { name: 'Earlier searches' }).getByRole('link', { name: /701 5th Ave/ }).first();
  await earlier.getByTestId('county-uncertain').waitFor();
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the dashboard');
  await bothWidths(page, 'trust-dashboard', ['Recent Single Searches', 'Batch Export History']);

  // The Seattle street with a New York ZIP: marked on its page, the alternatives a click away.
  await earlier.click();
  await page.waitForURL('**/search-result/**');
  const risk = page.getByRole('region', { name: 'Risk Analysis' });
  const warning = risk.getByRole('note', { name: 'County uncertain' });
  await warning.getByText('County uncertain').waitFor();
  const location = page.getByRole('region', { name: 'Location' });
  await location.getByText('Located by').waitFor();
  assert.deepEqual(errors, []);
  await bothWidths(page, 'trust-mismatch', ['Location', 'Risk Analysis']);

  // The shared ZIP code: its other counties, from the warning or from the Location section.
  await page.goto('/data-processing');
  await page.locator('.result-card-latest').click();
  await page.waitForURL('**/search-result/**');
  await page.getByRole('heading', { level: 1, name: /3620 Howell Ferry Rd/ }).waitFor();
  const disclosure = page.getByRole('button', { name: /^Other possible counties \(\d+\)$/ });
  assert.equal(await disclosure.getAttribute('aria-expanded'), 'false');
  await disclosure.focus();
  await page.keyboard.press('Enter');
  assert.equal(await disclosure.getAttribute('aria-expanded'), 'true');
  const table = page.getByRole('table', { name: 'Other possible counties' });
  await table.waitFor();
  assert.equal(await table.locator('tbody tr').count(), shared.location.alternatives.length);
  const method = await page.getByRole('region', { name: 'Location' }).getByText('Located by').locator('xpath=following-sibling::dd').textContent();
  assert.ok(method && method !== 'N/A', `the method is said in words: ${method}`);
  await bothWidths(page, 'trust-shared-zip', ['Location', 'Address Overview']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the export history and viewer offer every format, by keyboard, at 390 px', async () => {
  const { page, errors, context } = await openPage(browser, DESKTOP);
  await newUser(page, 'formats');
  await startBatch(page, csvFile('formats_portfolio.csv', ['Street Address,City,State,Zip,Country', '701 5th Ave,Seattle,WA,98104,US']));
  await batchComplete(page, 1);

  const toggle = page.getByRole('button', { name: /^Download formats for formats_portfolio_export_/ });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await toggle.focus();
  await page.keyboard.press('Enter');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  const formats = page.getByRole('group', { name: /^Other formats of formats_portfolio_export_/ });
  assert.deepEqual(await formats.getByRole('button').allTextContents(), ['CSV', 'Detailed CSV', 'XLSX', 'JSON Lines', 'Parquet']);
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations with the formats open');
  await bothWidths(page, 'trust-history-formats', ['Batch Export History'], { chart: false });

  await page.getByRole('list', { name: 'Exported files' }).getByRole('link').first().click();
  await page.waitForURL('**/batch-export-detail/**');
  await page.getByText(/Displaying 1 row\(s\)/).waitFor();
  const viewerFormats = page.getByRole('group', { name: /^Other formats of / });
  assert.deepEqual(await viewerFormats.getByRole('button').allTextContents(), ['Detailed CSV', 'XLSX', 'JSON Lines', 'Parquet']);
  await page.getByRole('button', { name: 'Download CSV' }).waitFor();
  await bothWidths(page, 'trust-viewer-formats', [], { chart: false });
  assert.deepEqual(errors, []);
  await context.close();
});
