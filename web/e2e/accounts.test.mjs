// Accounts in a real browser: sign up, sign in, edit profile, sign out; forgot and reset password.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BASE_URL, PASSWORD, launch, newestMail, openPage, screenshot, signIn, signUp, uniqueEmail } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('sign up, sign in, edit the profile, reload, sign out', async () => {
  const { page, errors, context } = await openPage(browser);
  const email = uniqueEmail('ann');
  await signUp(page, email);
  await screenshot(page, 'login');
  await signIn(page, email);
  await page.waitForURL('**/data-processing');
  await page.getByText('Regular User Account').waitFor();
  await screenshot(page, 'dashboard');

  await page.goto('/profile');
  await page.waitForLoadState('networkidle');
  await page.getByRole('button', { name: 'Edit Profile' }).click();
  const nameInput = page.getByRole('textbox', { name: 'Display name' });
  await nameInput.waitFor();
  await screenshot(page, 'profile-editing');
  await nameInput.fill('Ann Example');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await page.getByText('Profile updated successfully').waitFor();
  await page.reload();
  await page.getByRole('main').getByText('Ann Example').first().waitFor();  // kept, and still signed in after a reload
  await screenshot(page, 'profile');

  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).or(page.getByRole('button', { name: 'Sign out' })).first().click();
  await page.waitForURL('**/login');
  await page.goto('/profile');
  await page.waitForURL('**/login');
  assert.deepEqual(errors, []);
  await context.close();
});

test('forgot password: the reset link from the outbox sets a new password', async () => {
  const { page, errors, context } = await openPage(browser);
  const email = uniqueEmail('reset');
  await signUp(page, email);

  await page.goto('/forgot-password');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByText('Check your email').waitFor();

  // The mail is sent after the response; give the background task a moment.
  let token;
  for (let attempt = 0; attempt < 20 && !token; attempt += 1) {
    const mail = newestMail();
    if (mail.includes(email)) token = /token=([A-Za-z0-9_-]+)/.exec(mail)?.[1];
    if (!token) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.ok(token, 'a reset link arrived in the outbox');

  const newPassword = 'N3w!password';
  await page.goto(`/reset-password?token=${token}`);
  await page.getByLabel('New password').fill(newPassword);
  await page.getByLabel('Confirm password').fill(newPassword);
  await page.getByRole('button', { name: 'Reset password' }).click();
  await page.getByRole('link', { name: /sign in|log in|login/i }).first().waitFor();

  await page.goto('/login');
  await signIn(page, email, PASSWORD);
  await page.getByText('Invalid email or password').waitFor();
  await signIn(page, email, newPassword);
  await page.waitForURL('**/data-processing');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a deep link to a private page returns there after sign-in', async () => {
  const { page, context } = await openPage(browser);
  const email = uniqueEmail('deep');
  await signUp(page, email);
  await page.goto('/profile');
  await page.waitForURL('**/login');
  await signIn(page, email);
  await page.waitForURL('**/profile');
  await context.close();
});

test('unknown pages, unknown API paths and the offline API docs', async () => {
  const { page, errors, context } = await openPage(browser);
  await page.goto('/no-such-page');
  await page.getByRole('heading', { name: 'Page Not Found' }).waitFor();
  await page.getByRole('link', { name: 'Back to Home' }).waitFor();
  await screenshot(page, 'not-found');

  const api = await page.request.get('/api/nope');
  assert.equal(api.status(), 404);
  assert.equal((await api.json()).status, 'error');

  const outside = [];
  page.on('request', (request) => { if (!request.url().startsWith(BASE_URL)) outside.push(request.url()); });
  await page.goto('/schema');
  await page.locator('.swagger-ui').first().waitFor();
  assert.deepEqual(outside, []);
  assert.deepEqual(errors, []);
  await context.close();
});
