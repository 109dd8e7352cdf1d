// Issue #26 in a real browser, on the real data loaded by run.sh: answers say exactly what is known.
// FEMA's Insufficient Data is never called Not Applicable, and a county FEMA does not score is found,
// not 'No results'; occupants (and their NAICS) outside the occupant registries
// read 'Not covered' (never 0) and a lookup with scores is not announced as 'No results'; the
// address field's next tab stop is the visible 'Choose CSV file' button with its focus ring; a
// batch viewer row names its county as the Census does. Screenshots at 1280 and 390 px: answers-*.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { batchComplete, csvFile, launch, lookUp, newUser, openPage, overflow, screenshot, screenshotPath, startBatch } from './helpers.mjs';

const SAN_JUAN = '1 Calle Fortaleza, San Juan, PR 00901';
const MIAMI = '100 Biscayne Blvd, Miami, FL 33130';
const NO_RESULTS = 'No results found for this address';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const BATCH = [
  'Street Address,City,State,Zip,Country',
  '701 5th Ave,Seattle,WA,98104,US',
  '100 Biscayne Blvd,Miami,FL,33130,US',
  '1 Calle Fortaleza,San Juan,PR,00901,US',
  '800 Cushman St,Fairbanks,AK,99701,US',
];

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/**
 * A screenshot of the page (or of `element`) at 1280 and at 390 px; at 390 px nothing may reach
 * past the screen's edge. Problems go into `problems`, to report them all at once.
 */
async function bothWidths(page, name, problems, element = null) {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    // Charts re-measure on a resize observer: let the layout settle before measuring.
    await page.waitForFunction((width) => document.documentElement.scrollWidth <= width, size.width, { timeout: 3000 }).catch(() => {});
    const { scrollWidth, culprits } = await overflow(page);
    if (scrollWidth > size.width) problems.push(`${name} is ${scrollWidth} px wide at ${size.width} px; past the edge: ${culprits.join(', ')}`);
    if (element) await element.screenshot({ path: screenshotPath(`${name}-${size.width}`) });
    else await screenshot(page, `${name}-${size.width}`);
  }
  await page.setViewportSize(DESKTOP);
}

/** The chart's caption, as one line of text. */
async function chartCaption(page) {
  const caption = page.getByTestId('peril-chart').first().locator('figcaption');
  return (await caption.textContent()).replace(/\s+/g, ' ');
}

/** The hazards the caption lists after `word` (e.g. 'Insufficient Data'), or [] when it has no such sentence. */
function listedAs(caption, word) {
  const sentence = caption.split(/(?<=\.) /).find((s) => s.startsWith(word));
  return sentence ? sentence.slice(sentence.indexOf(':') + 1).replace(/\.$/, '').split(',').map((s) => s.trim()) : [];
}

/** The Address Overview's value for `key` on a result page. */
async function overviewValue(page, key) {
  const overview = page.getByRole('region', { name: 'Address Overview' });
  return (await overview.locator('dt', { hasText: new RegExp(`^${key}$`) }).locator('xpath=following-sibling::dd').textContent()).trim();
}

/** Opens the result page of the dashboard's card for `street` and waits for its chart. */
async function openResult(page, street) {
  await page.getByRole('region', { name: 'Recent Single Searches' }).getByRole('link', { name: new RegExp(street) }).first().click();
  await page.waitForURL('**/search-result/**');
  await page.getByRole('heading', { level: 1, name: new RegExp(street) }).waitFor();
  await page.getByTestId('peril-chart').first().locator('svg').first().waitFor();
}

test('unknowns read as unknown: Insufficient Data, Not covered, county legal names; the CSV button takes the tab', async () => {
  const { page, errors, context } = await openPage(browser, DESKTOP);
  await newUser(page, 'answers');
  const problems = [];

  // Keyboard (item 8): from the address field, Tab lands on the visible button, its focus ring shown.
  await page.getByLabel('Property address').focus();
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    return {
      tag: el.tagName.toLowerCase(), type: el.getAttribute('type'), text: el.textContent.trim(),
      visible: box.width > 0 && box.height > 0 && style.visibility !== 'hidden',
      ring: style.boxShadow !== 'none' || (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 && !/transparent|rgba\(\d+, \d+, \d+, 0\)/.test(style.outlineColor)),
      boxShadow: style.boxShadow, outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
    };
  });
  assert.deepEqual({ tag: focused.tag, text: focused.text, visible: focused.visible }, { tag: 'button', text: 'Choose CSV file', visible: true },
    `Tab from the address field: ${JSON.stringify(focused)}`);
  assert.ok(focused.ring, `the focused button shows a focus ring: ${JSON.stringify(focused)}`);
  await page.locator('.drop-zone').screenshot({ path: screenshotPath('answers-csv-button-focus-1280') });

  // San Juan (item 1): FEMA's Insufficient Data for Earthquake and Hurricane, never 'Not applicable'.
  // FEMA gives the San Juan Municipio no score at all: Insufficient Data for all but two hazards.
  const sanJuan = await lookUp(page, SAN_JUAN);
  assert.equal(sanJuan.ratings?.ERQK, 'Insufficient Data', `${SAN_JUAN}: ${JSON.stringify(sanJuan.ratings)}`);
  // Found, though unscored: not 'No results' (item 3).
  await page.locator('.lookup-status').getByText('County found; FEMA has too little data to score it (Insufficient Data). No occupant data covers this address.').waitFor();
  assert.equal(await page.getByText(NO_RESULTS).count(), 0, `no '${NO_RESULTS}' after ${SAN_JUAN}`);
  await openResult(page, '1 Calle Fortaleza');
  const sanJuanCaption = await chartCaption(page);
  for (const hazard of ['Earthquake', 'Hurricane']) {
    assert.ok(listedAs(sanJuanCaption, 'Insufficient Data').includes(hazard), `San Juan's caption lists ${hazard} as Insufficient Data: ${sanJuanCaption}`);
    assert.ok(!listedAs(sanJuanCaption, 'Not Applicable').includes(hazard), `San Juan's caption does not call ${hazard} Not Applicable: ${sanJuanCaption}`);
  }
  assert.doesNotMatch(sanJuanCaption, /Not applicable here/i);
  for (const key of ['Occupants', 'Photos', 'Operation alerts', 'NAICS']) assert.equal(await overviewValue(page, key), 'Not covered', `San Juan's ${key}`);
  await page.getByText(/^Not covered: no occupant data covers this address/).waitFor();
  await bothWidths(page, 'answers-san-juan', problems);

  // Miami (items 1, 2, 3): scores found and occupants not covered, said so; tsunami Insufficient Data.
  await page.getByRole('link', { name: 'Back to Search List' }).click();
  await page.waitForURL('**/data-processing');
  await lookUp(page, MIAMI);
  const banner = page.locator('.lookup-status');
  await banner.waitFor();
  assert.equal(await page.getByText(NO_RESULTS).count(), 0, `no '${NO_RESULTS}' after ${MIAMI}: the banner says '${await banner.textContent()}'`);
  await banner.getByText('Risk scores found; no occupant data covers this address.').waitFor();
  const latest = page.locator('.result-card-latest');
  await latest.getByText(/100 Biscayne Blvd/).first().waitFor();
  for (const key of ['Occupants', 'NAICS']) {
    assert.equal((await latest.locator('dt', { hasText: new RegExp(`^${key}$`) }).locator('xpath=following-sibling::dd').textContent()).trim(), 'Not covered', `Miami's card ${key}`);
  }
  await bothWidths(page, 'answers-dashboard-miami', problems);
  await openResult(page, '100 Biscayne Blvd');
  const miamiCaption = await chartCaption(page);
  assert.ok(listedAs(miamiCaption, 'Insufficient Data').includes('Tsunami'), `Miami's caption lists Tsunami as Insufficient Data: ${miamiCaption}`);
  assert.ok(!listedAs(miamiCaption, 'Not Applicable').includes('Tsunami'), `Miami's caption does not call Tsunami Not Applicable: ${miamiCaption}`);
  assert.equal(await overviewValue(page, 'Occupants'), 'Not covered');
  assert.doesNotMatch(await overviewValue(page, 'Last Update'), /Occupants/, 'Last Update gives no occupant data date where none covers the address');
  await bothWidths(page, 'answers-miami', problems);

  // A batch (item 2, 4): the Miami row's occupants are unknown and its county has its legal name.
  await page.goto('/data-processing');
  await startBatch(page, csvFile('answers_portfolio.csv', BATCH));
  await batchComplete(page, BATCH.length - 1);
  await page.getByRole('list', { name: 'Exported files' }).getByRole('link').first().click();
  await page.waitForURL('**/batch-export-detail/**');
  await page.getByText(new RegExp(`Displaying ${BATCH.length - 1} row\\(s\\)`)).waitFor();
  const fact = async (row, key) => (await row.locator('dt', { hasText: new RegExp(`^${key}$`) }).locator('xpath=following-sibling::dd').textContent()).trim();
  const miamiRow = page.getByRole('article', { name: /100 Biscayne Blvd/ });
  assert.equal(await fact(miamiRow, 'Occupants'), 'Not covered');
  assert.match(await fact(miamiRow, 'County'), /^Miami-Dade County, FL \(12086\)$/);
  const seattleRow = page.getByRole('article', { name: /701 5th Ave/ });
  assert.match(await fact(seattleRow, 'Occupants'), /^[1-9][\d,]*$/, 'the Seattle row, covered, counts its occupants');
  assert.match(await fact(seattleRow, 'County'), /^King County, WA \(53033\)$/);
  await bothWidths(page, 'answers-viewer', problems);
  await bothWidths(page, 'answers-viewer-miami-row', problems, miamiRow);

  assert.deepEqual(problems, []);
  assert.deepEqual(errors, []);
  await context.close();
});
