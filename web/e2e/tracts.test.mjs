// Census-tract scores in a real browser: a building record that carries its census tract, in an
// area whose NRI tract table `data load` loaded (Baltimore city, NRI v1.19), shows a "Census tract"
// panel beside the county's v1.20 scores, with each release and the note that they differ.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { a11yViolations, launch, lookUp, openPage, overflow, perilscope, screenshot, signIn, signUp, uniqueEmail } from './helpers.mjs';

const BALTIMORE = '100 N Charles St, Baltimore, MD 21201';
// The server's reference data is re-read when `dataset_load` changes, checked every 30 s
// (adapters/reference_data/memory_index.py RECHECK_SECONDS).
const REFERENCE_RECHECK_MS = 31_000;

let browser;
before(async () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'tracts-'));
  const buildings = path.join(folder, 'baltimore_buildings.csv');
  writeFileSync(buildings, 'address,city,state,zip,year_built,lat,lng,tract_geoid\n100 N Charles St,Baltimore,MD,21201,1929,39.2913,-76.6155,24510040100\n');
  assert.match(perilscope('data', 'import-buildings', buildings), /imported 1 rows into building/);
  await sleep(REFERENCE_RECHECK_MS);
  browser = await launch();
});
after(async () => { await browser?.close(); });

for (const [width, name] of [[390, 'search-result-tract-390'], [1280, 'search-result-tract']]) {
  test(`a Baltimore building's tract scores show beside the county's at ${width} px`, async () => {
    const { page, errors, context } = await openPage(browser, { width });
    const email = uniqueEmail(`tract${width}`);
    await signUp(page, email);
    await signIn(page, email);
    await page.waitForURL('**/data-processing');
    const result = await lookUp(page, BALTIMORE);
    assert.equal(result.tract?.tract_geoid, '24510040100');
    await page.getByRole('link', { name: /100 N Charles St/ }).first().click();
    await page.waitForURL('**/search-result/**');
    const panel = page.getByRole('region', { name: 'Census tract' });
    await panel.waitFor();
    await panel.getByText('1.19.0 (March 2023)').first().waitFor();
    await panel.getByText(/different releases/).waitFor();
    await page.getByRole('region', { name: 'Score receipt' }).getByText('Also scored: tract').waitFor();
    await page.getByTestId('peril-chart').first().locator('svg').first().waitFor();
    const { scrollWidth, culprits } = await overflow(page);
    assert.ok(scrollWidth <= width, `nothing wider than ${width} px: ${culprits.join(', ')}`);
    await screenshot(page, name);
    assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations with the tract panel');
    assert.deepEqual(errors, []);
    await context.close();
  });
}
