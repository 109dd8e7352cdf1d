// API keys in a real browser: create one on /settings, copy it (shown once), use it with the
// public API from outside the browser, revoke it after confirming, and see the next call refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BASE_URL, a11yViolations, launch, newUser, openPage, screenshot, screenshotPath } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const MIAMI = '100 Biscayne Blvd, Miami, FL 33130';

async function assess(key) {
  const url = new URL('/api/v1/risk-assessment', BASE_URL);
  url.searchParams.set('address', MIAMI);
  return fetch(url, { headers: { 'X-API-Key': key } });
}

test('create a key, copy it once, use it with the API, revoke it and see the next call refused', async () => {
  const { page, errors, context } = await openPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
  await newUser(page, 'apikeys');

  await page.goto('/settings');
  const section = page.getByRole('region', { name: 'API keys' });
  await section.getByText('Standard plan: 0 of 100 requests used today (100 left).').waitFor();
  await section.getByLabel('Key name').fill('Rating tool');
  await section.getByLabel('batch (batches of addresses)').check();
  await section.getByRole('button', { name: 'Create key' }).click();

  const shown = section.getByLabel('New API key');
  await shown.waitFor();
  const key = (await shown.textContent()).trim();
  assert.match(key, /^ps_live_[A-Za-z0-9_-]{32}$/);
  await section.getByRole('button', { name: 'Copy', exact: true }).click();
  await section.getByText('Key copied.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations with the new key shown');
  await screenshot(page, 'api-key-created');
  await page.setViewportSize({ width: 390, height: 844 });
  await section.screenshot({ path: screenshotPath('api-key-created-390') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await section.getByRole('button', { name: 'I have saved my key' }).click();
  assert.equal(await section.getByText(key).count(), 0, 'the whole key is not shown again');
  const row = section.getByRole('row', { name: /Rating tool/ });
  assert.match(await row.textContent(), new RegExp(`${key.slice(0, 12)}…`));

  const answer = await assess(key);
  assert.equal(answer.status, 200, await answer.clone().text());
  const body = await answer.json();
  assert.equal(body.location.county_fips, '12086');
  assert.equal(answer.headers.get('x-ratelimit-remaining'), '99');

  // The page shows the use and when the key was last used.
  await page.reload();
  await section.getByText('Standard plan: 1 of 100 requests used today (99 left).').waitFor();
  assert.doesNotMatch(await section.getByRole('row', { name: /Rating tool/ }).textContent(), /Never/);

  await section.getByRole('button', { name: 'Revoke Rating tool' }).click();
  const confirm = section.getByRole('group', { name: 'Revoke Rating tool?' });
  await section.screenshot({ path: screenshotPath('api-key-revoke-confirm-1280') });
  await page.setViewportSize({ width: 390, height: 844 });
  await section.screenshot({ path: screenshotPath('api-key-revoke-confirm-390') });
  await page.setViewportSize({ width: 1280, height: 900 });
  await confirm.getByRole('button', { name: 'Revoke' }).click();
  await section.getByText('Revoked Rating tool: it no longer works.').waitFor();
  await section.getByText('You have no API keys yet.').waitFor();
  await screenshot(page, 'api-key-revoked');

  const refused = await assess(key);
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).code, 'invalid_api_key');
  assert.deepEqual(errors, []);
  await context.close();
});
