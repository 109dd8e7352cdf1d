// Administration in a real browser: promote a user, see it in the table and the statistics; set
// the monthly limit to 3 and watch a regular user stop at the fourth lookup.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { a11yViolations, launch, newAdmin, newUser, openPage, screenshot, signUpByApi, uniqueEmail } from './helpers.mjs';

const SEATTLE = '701 5th Ave, Seattle, WA 98104';
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function signedInAdmin() {
  const session = await openPage(browser);
  await newAdmin(session.page, 'admin');
  return session;
}

async function adminCount(page) {
  await page.goto('/admin/statistics');
  const card = page.getByRole('article', { name: 'Total Users' });
  const text = await card.getByText(/^\d+ \(\d+%\)$/).first().textContent();
  return Number(text.split(' ')[0]);
}

test('an admin promotes a user and sees it in the table and the statistics', async () => {
  const { page, errors, context } = await signedInAdmin();
  const email = uniqueEmail('promote');
  await signUpByApi(page, email);
  const before = await adminCount(page);
  assert.deepEqual(await a11yViolations(page), []);
  await screenshot(page, 'admin-statistics');

  await page.goto('/admin/users');
  await page.getByPlaceholder('Search users...').fill(email);
  await page.getByRole('row', { name: new RegExp(email) }).click();
  const details = page.getByRole('region', { name: 'User details' });
  await details.getByText(email).waitFor();
  assert.equal(await details.getByRole('button', { name: 'Set as User' }).isDisabled(), true);
  await details.getByRole('button', { name: 'Set as Admin' }).click();
  await details.getByText('Role updated successfully').waitFor();
  await page.getByRole('row', { name: new RegExp(email) }).getByText('Admin').waitFor();
  assert.deepEqual(await a11yViolations(page), []);
  await screenshot(page, 'admin-users');

  assert.equal(await adminCount(page), before + 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the admin sets the limit to 3 and a regular user is stopped at the fourth lookup', async () => {
  const admin = await signedInAdmin();
  const save = async (limit) => {
    await admin.page.goto('/admin/settings');
    const input = admin.page.getByLabel('Regular User Monthly Search Limit');
    await input.fill(String(limit));
    await admin.page.getByRole('button', { name: 'Save Settings' }).click();
    await admin.page.getByText('Settings saved').waitFor();
  };
  await admin.page.goto('/admin/settings');
  await admin.page.getByLabel('Regular User Monthly Search Limit').fill('0');
  await admin.page.getByRole('button', { name: 'Save Settings' }).click();
  await admin.page.getByText('Enter a whole number from 1 to 100.').waitFor();
  await save(3);
  assert.deepEqual(await a11yViolations(admin.page), []);
  await screenshot(admin.page, 'admin-settings');

  const { page, errors, context } = await openPage(browser);
  try {
    await newUser(page, 'capped');
    for (let i = 1; i <= 3; i += 1) {
      await page.getByLabel('Property address').fill(SEATTLE);
      await page.getByRole('button', { name: 'Search Address' }).click();
      await page.getByTestId('searches-used').getByText(`${i} / 3`).waitFor();
    }
    await page.getByLabel('Property address').fill(SEATTLE);
    await page.getByRole('button', { name: 'Monthly search limit reached' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Monthly search limit reached' }).isDisabled(), true);
    await screenshot(page, 'admin-limit-user');
    assert.deepEqual(errors, []);
  } finally {
    await save(10); // other browser tests share this server
    await context.close();
    await admin.context.close();
  }
});
