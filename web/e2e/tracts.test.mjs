// Census-tract scores in a real browser: a building record that carries its census tract, in an
// area whose NRI tract table `data load` loaded (Baltimore city, NRI v1.19), shows a "Census tract"
// panel beside the county's v1.20 scores, with each release and the note that they differ.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BASE_URL, PASSWORD, a11yViolations, launch, lookUp, newUser, openPage, overflow, perilscope, screenshot, uniqueEmail } from './helpers.mjs';

const BALTIMORE = '100 N Charles St, Baltimore, MD 21201';
const IMPORT = 'import:building:baltimore_buildings.csv';

/**
 * Waits until the server answers from the imported data. It re-reads its reference data when
 * `dataset_load` changes, checked every PERILSCOPE_REFERENCE_RECHECK_SECONDS (0.2 s under run.sh):
 * an administrator (no monthly limit) looks up Baltimore addresses until an answer lists the
 * import among its datasets. Each poll is a street never asked before: an answer is kept 24 hours
 * for its building (search caching), so polling BALTIMORE itself before the re-read would keep
 * its tract-less answer for the tests below.
 */
async function waitForImport(timeout = 15_000) {
  const email = uniqueEmail('tractpoll');
  perilscope('users', 'create-admin', email, '--password', PASSWORD);
  const login = await fetch(new URL('/api/auth/login', BASE_URL), {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }),
  });
  assert.equal(login.status, 200, await login.clone().text());
  const { access_token: token } = await login.json();
  const deadline = Date.now() + timeout;
  for (let attempt = 1; ; attempt += 1) {
    const url = new URL('/api/nearby-search', BASE_URL);
    url.searchParams.set('address', `${9000 + attempt} N Charles St, Baltimore, MD 21201`);
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200, await response.clone().text());
    const { result } = await response.json();
    if (result.receipt.datasets.some((d) => d.dataset === IMPORT)) return;
    if (Date.now() > deadline) throw new Error(`the server did not read ${IMPORT} within ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the poll's interval
  }
}

let browser;
before(async () => {
  browser = await launch();
  const folder = mkdtempSync(path.join(tmpdir(), 'tracts-'));
  const buildings = path.join(folder, 'baltimore_buildings.csv');
  writeFileSync(buildings, 'address,city,state,zip,year_built,lat,lng,tract_geoid\n100 N Charles St,Baltimore,MD,21201,1929,39.2913,-76.6155,24510040100\n');
  assert.match(perilscope('data', 'import-buildings', buildings), /imported 1 rows into building/);
  await waitForImport();
});
after(async () => { await browser?.close(); });

for (const [width, name] of [[390, 'search-result-tract-390'], [1280, 'search-result-tract']]) {
  test(`a Baltimore building's tract scores show beside the county's at ${width} px`, async () => {
    const { page, errors, context } = await openPage(browser, { width });
    await newUser(page, `tract${width}`);
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
