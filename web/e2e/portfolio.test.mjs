// A 5,000-row batch of real addresses in a real browser: its portfolio page (map, histograms,
// the riskiest 50) at 1280 and 390 px, and its export viewer scrolled to the end and filtered
// (viewer_large.test.mjs does the same with 100,000 rows).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { a11yViolations, batchComplete, launch, newUser, openPage, overflow, screenshot, screenshotPath, scrollToCard, startBatch, tempPath } from './helpers.mjs';

const ROWS = 5000;
const TERRITORIES = /^(60|66|69|72|78)/; // not on an Albers USA map

/**
 * 4,759 hospitals of CMS's 2017 list (every state) and the rest Seattle's benchmarked buildings:
 * real addresses, none repeated. `test_value` is a made-up number column (row x 1000) to sum.
 */
function portfolioCsv() {
  const file = tempPath('hospitals_portfolio.csv');
  execFileSync('.venv/bin/python', ['-c', `
import csv, re, sys
from entrypoints.settings import Settings
data = Settings.from_env().data_dir
rows = {}
for r in csv.DictReader(open(data / "eval" / "addresses_cms_hospitals_2017.csv")):
    street, city, rest = r["address"].rsplit(",", 2)
    state, zip5 = re.match(r"\\s*([A-Z]{2})\\s+(\\d{5})", rest).groups()
    rows.setdefault((street.strip(), city.strip(), state, zip5), None)
for r in csv.DictReader(open(data / "buildings_seattle_2016.csv")):
    if len(rows) >= ${ROWS}:
        break
    if r["ZipCode"]:
        rows.setdefault((r["Address"], r["City"], r["State"], r["ZipCode"][:5]), None)
with open(sys.argv[1], "w", newline="") as out:
    writer = csv.writer(out)
    writer.writerow(["Street Address", "City", "State", "Zip", "Country", "test_value"])
    for number, row in enumerate(list(rows)[:${ROWS}], start=1):
        writer.writerow([*row, "US", number * 1000])
`, file]);
  return file;
}

/** The whole page from the top, and each part on its own (a full page of 5,000 rows is too tall to read). */
async function screenshots(page, width) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, `portfolio-${width}`);
  // The sticky top bar would cover the top of each part's picture.
  const stick = (position) => page.evaluate((value) => { document.querySelector('.topbar').style.position = value; }, position);
  await stick('static');
  const parts = { book: 'The book', scores: /^Scores across the book/, map: 'Where the locations are', riskiest: /riskiest locations/, occupancy: /^Occupancy mix/ };
  for (const [name, title] of Object.entries(parts)) {
    await page.getByRole('region', { name: title, exact: typeof title === 'string' }).screenshot({ path: screenshotPath(`portfolio-${width}-${name}`) });
  }
  await stick('');
}

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('the portfolio of a 5,000-row batch: map, histograms, the riskiest 50; the viewer scrolls and filters', async () => {
  const { page, errors, context } = await openPage(browser);
  await newUser(page, 'portfolio');

  await startBatch(page, portfolioCsv());
  await batchComplete(page, ROWS, 240_000);

  const summaryResponse = page.waitForResponse((r) => r.url().includes('/portfolio?') && r.status() === 200, { timeout: 60_000 });
  await page.getByRole('list', { name: 'Exported files' }).getByRole('link', { name: /^Portfolio of hospitals_portfolio_export_/ }).click();
  await page.waitForURL('**/portfolio/**');
  const summary = await (await summaryResponse).json();
  assert.equal(summary.headline.rows, ROWS);
  assert.ok(summary.headline.located > ROWS * 0.9, `most rows located: ${JSON.stringify(summary.headline)}`);

  // One path per county, and a coloured fill for each county present (Connecticut shaded as one).
  const map = page.getByTestId('county-map');
  await map.waitFor({ timeout: 30_000 });
  const paths = await map.locator('path[data-fips]').evaluateAll((nodes) =>
    nodes.map((n) => ({ fips: n.getAttribute('data-fips'), fill: n.getAttribute('fill'), present: n.classList.contains('county-present') })));
  assert.ok(paths.length > 3100, `a path per county (${paths.length})`);
  assert.equal(new Set(paths.map((p) => p.fips)).size, paths.length, 'no county drawn twice');
  const present = paths.filter((p) => p.present);
  assert.ok(present.every((p) => p.fill !== '#eef1f5'), 'every county present is coloured');
  assert.ok(paths.filter((p) => !p.present).every((p) => p.fill === '#eef1f5'), 'the others are not');
  const inSummary = new Set(summary.counties.map((c) => c.county_fips));
  const drawnNotCt = present.filter((p) => !p.fips.startsWith('09'));
  assert.ok(drawnNotCt.every((p) => inSummary.has(p.fips)), 'only counties of the book are coloured');
  const mappable = summary.counties.filter((c) => !c.county_fips.startsWith('09') && !TERRITORIES.test(c.county_fips));
  // us-atlas' shapes predate a few county changes (e.g. Alaska's 2019 Chugach/Copper River split).
  assert.ok(drawnNotCt.length >= mappable.length * 0.98, `${drawnNotCt.length} of ${mappable.length} counties coloured`);
  assert.ok(mappable.length > 1000, `the hospitals cover the country (${mappable.length} counties)`);

  // Histograms, the high-rated counts, the riskiest 50 linking to their results.
  await page.getByTestId('histogram').locator('.recharts-bar-rectangle').first().waitFor();
  const riskiest = page.getByRole('table', { name: /^The 50 riskiest locations by Composite/ });
  assert.equal(await riskiest.locator('tbody tr').count(), 50);
  assert.match(await riskiest.getByRole('link').first().getAttribute('href'), /^\/search-result\/export%3A/);

  // A county's tooltip from the keyboard.
  await map.locator('path.county-present[data-fips="53033"]').focus();
  await page.getByRole('tooltip').getByText(/King, Washington/).waitFor();

  await screenshots(page, 1280);
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the portfolio page');

  // The value column recolours the map by value.
  await page.getByRole('combobox', { name: 'Value column' }).selectOption('test_value');
  await page.getByRole('region', { name: /^test_value by Composite/ }).waitFor();
  await page.getByText('test_value per county').waitFor();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('heading', { level: 1 }).scrollIntoViewIfNeeded();
  const { scrollWidth, culprits } = await overflow(page);
  assert.ok(scrollWidth <= 390, `nothing wider than the phone screen (${scrollWidth} px: ${culprits.join(', ')})`);
  await screenshots(page, 390);
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations at 390 px');
  await page.setViewportSize({ width: 1280, height: 900 });

  // The export viewer: a few cards in the page at a time, paged from the server, scrolled to the last, and filtered there.
  await page.getByRole('link', { name: 'Export viewer' }).click();
  await page.waitForURL('**/batch-export-detail/**');
  await page.getByText(/Displaying 5,000 row\(s\)/).waitFor({ timeout: 60_000 });
  const cards = page.getByRole('region', { name: 'Export rows' }).getByRole('article');
  await cards.first().waitFor();
  assert.ok((await cards.count()) < 30, `only the cards near the viewport are in the page (${await cards.count()})`);
  for (let step = 0; step < 40; step += 1) {
    await page.mouse.wheel(0, 20_000);
  }
  await scrollToCard(page, 4999);
  // The viewport only: the whole page is 5,000 cards tall.
  await page.screenshot({ path: screenshotPath('export-viewer-end') });

  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByRole('combobox', { name: /^County(?! confidence)/ }).selectOption('53033');
  await page.getByText(/^Showing [\d,]+ of 5,000 row\(s\)\.$/).waitFor({ timeout: 60_000 });
  const shown = Number((await page.getByText(/^Showing [\d,]+ of 5,000/).textContent()).match(/Showing ([\d,]+)/)[1].replace(/,/g, ''));
  assert.ok(shown >= 241 && shown < 5000, `King County's rows only (${shown})`);
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the filtered viewer');
  assert.deepEqual(errors, []);
  await context.close();
});
