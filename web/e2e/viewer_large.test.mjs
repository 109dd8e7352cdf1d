// The export viewer of a batch longer than one stretch of 20,000 rows (StretchNav.tsx PER_STRETCH),
// made through the real app, in a real browser: its rows paged from the server (never the whole
// file), a few cards in the page at a time, the next stretch, scrolled to the last row, filtered on
// the server, axe-core, and screenshots at 1280 and 390 px. 20,500 rows are the fewest that make
// two stretches with room; E2E_VIEWER_ROWS=100000 runs the same test at the upload limit. Then the
// filters and sorts of the columnar dataset (#27): state, status, a text in the address, a hazard's
// score highest first, and the user's own columns on each card.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { a11yViolations, largePortfolio, launch, newUser, openPage, overflow, screenshotPath, scrollToCard } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Two stretches (the second of 500 rows); E2E_VIEWER_ROWS sets another count (more than 20,000 for the stretch steps). */
const LARGE_ROWS = Number(process.env.E2E_VIEWER_ROWS ?? 20_500);

test('the export viewer of a batch of two stretches pages its rows from the server, scrolls to the last and filters', async () => {
  const { page, errors, context } = await openPage(browser);
  const total = LARGE_ROWS.toLocaleString('en-US');
  await newUser(page, 'scroll');
  await page.locator('input[type=file]').setInputFiles(largePortfolio(LARGE_ROWS));
  await page.getByText('File uploaded successfully: large_portfolio.csv').waitFor({ timeout: 60_000 });
  const batchStarted = Date.now();
  await page.getByRole('button', { name: 'Process Batch File' }).click();
  await page.getByText(new RegExp(`Batch complete: ${total.replace(',', ',?')} address\\(es\\) exported`)).waitFor({ timeout: 120_000 });
  console.log(`# the ${total}-row batch took ${((Date.now() - batchStarted) / 1000).toFixed(0)} s`);

  // Every request of the viewer: never the whole export (the SPEC CSV or the detailed one).
  const asked = [];
  page.on('request', (request) => asked.push(new URL(request.url()).pathname + new URL(request.url()).search));
  const opened = Date.now();
  await page.getByRole('list', { name: 'Exported files' }).getByRole('link', { name: /^large_portfolio_export_/ }).click();
  await page.getByText(`Displaying ${total} row(s)`, { exact: false }).waitFor({ timeout: 120_000 });
  const cards = page.getByRole('region', { name: 'Export rows' }).getByRole('article');
  await cards.first().getByRole('link').waitFor();
  console.log(`# first rows shown ${Date.now() - opened} ms after opening the viewer`);
  const top = page.getByRole('navigation', { name: 'Row stretches (top)' });
  const stretchEnd = Math.min(20_000, LARGE_ROWS);
  await top.getByText(`Rows 1–${stretchEnd.toLocaleString('en-US')} of ${total}`).waitFor();
  for (const fraction of [0.25, 0.5, 1]) {
    await page.evaluate((f) => window.scrollTo(0, document.documentElement.scrollHeight * f), fraction);
    await page.waitForFunction(() => document.querySelectorAll('.virtual-group').length > 0);
    assert.ok((await cards.count()) < 30, `only the cards near the viewport are in the page (${await cards.count()})`);
  }
  await scrollToCard(page, stretchEnd - 1);
  // The last stretch, scrolled to its end: the last row, linking to its result.
  const stretches = Math.ceil(LARGE_ROWS / 20_000);
  assert.ok(stretches > 1, `more than one stretch (${LARGE_ROWS} rows)`);
  for (let step = 1; step < stretches; step += 1) await top.getByRole('button', { name: 'Next rows' }).click();
  const lastStart = (stretches - 1) * 20_000;
  await top.getByText(`Rows ${(lastStart + 1).toLocaleString('en-US')}–${total} of ${total}`).waitFor();
  const last = await scrollToCard(page, LARGE_ROWS - lastStart - 1);
  assert.match(await last.getAttribute('href'), new RegExp(`%3A${LARGE_ROWS - 1}$`));
  await page.screenshot({ path: screenshotPath('export-viewer-large-end') });

  // Filtered on the server: King County's rows, counted, in stretches of their own.
  await page.evaluate(() => window.scrollTo(0, 0));
  const county = page.getByRole('combobox', { name: /^County(?! confidence)/ });
  const kingOption = await county.locator('option[value="53033"]').textContent();
  const kingRows = Number(kingOption.match(/\(([\d,]+)\)$/)[1].replace(/,/g, ''));
  const filtered = Date.now();
  await county.selectOption('53033');
  await page.getByText(`Showing ${kingRows.toLocaleString('en-US')} of ${total} row(s).`).waitFor({ timeout: 60_000 });
  await cards.first().getByRole('link').waitFor();
  console.log(`# King County's ${kingRows} rows shown ${Date.now() - filtered} ms after choosing it`);
  assert.ok(kingRows > 0 && kingRows < LARGE_ROWS, `King County's rows only (${kingRows})`);
  assert.match(await cards.first().textContent(), /King County, WA \(53033\)/);
  // Every card carries the upload's own columns, compactly.
  const own = cards.first().getByRole('definition').first();
  await own.waitFor();
  assert.ok(await cards.first().locator('dl[aria-label="Your columns"] dt').count() > 0, "the user's columns on the card");

  // Sorted on the server by a hazard's score, highest first, within the county; then an address search.
  const sorted = Date.now();
  await page.getByRole('combobox', { name: 'Sort by' }).selectOption({ label: 'Earthquake score' });
  await page.getByText(/Sorted by earthquake score, highest first/).waitFor({ timeout: 60_000 });
  await cards.first().getByText(/Earthquake score:/).waitFor({ timeout: 60_000 });
  console.log(`# King County sorted by earthquake score shown ${Date.now() - sorted} ms after choosing it`);
  const search = page.getByRole('searchbox', { name: 'Address contains' });
  await search.fill('st');
  await search.press('Enter');
  await page.getByText(/^Showing [\d,]+ of [\d,]+ row\(s\)\. Sorted by/).waitFor({ timeout: 60_000 });
  assert.ok(asked.some((url) => /search=st\b/.test(url) && /sort=ERQK_Score/.test(url) && /county=53033/.test(url)));
  await cards.first().getByRole('link').waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: screenshotPath('export-viewer-large-1280') });
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the viewer');

  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await cards.first().getByRole('link').waitFor();
  const { scrollWidth, culprits } = await overflow(page);
  assert.ok(scrollWidth <= 390, `nothing wider than the phone screen (${scrollWidth} px: ${culprits.join(', ')})`);
  await page.screenshot({ path: screenshotPath('export-viewer-large-390') });
  await cards.first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('export-viewer-large-390-card') });
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations at 390 px');

  const whole = asked.filter((url) => url.startsWith('/api/view-export/') || url.includes('/detailed'));
  assert.deepEqual(whole, [], 'the viewer never downloads the whole export');
  const pages = asked.filter((url) => /\/api\/exports\/[^/]+\/rows\?/.test(url));
  assert.ok(pages.length > 2 && pages.every((url) => /limit=100\b/.test(url)), `pages of 100 rows (${pages.length} asked)`);
  assert.deepEqual(errors, []);
  await context.close();
});
