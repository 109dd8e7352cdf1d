// Accounts in a real browser (walking skeleton): sign up, sign in, dashboard, edit profile, reload,
// sign out; forgot and reset password through the mail outbox; deep links; 404s; the offline API docs.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  BASE_URL, PASSWORD, a11yViolations, contrastViolations, launch, openPage, resetTokenFor, screenshot, signIn, signUpByApi, uniqueEmail,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('sign up, sign in, edit the profile, reload, sign out', async () => {
  const { page, errors, context } = await openPage(browser);
  const email = uniqueEmail('ann');

  // Sign up: the live checklist keeps the button disabled until every rule is met.
  await page.goto('/signup');
  const signUpButton = page.getByRole('button', { name: 'Sign up', exact: true });
  const checklist = page.getByRole('list', { name: 'Password requirements' });
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill('weak');
  await checklist.getByText('At least 8 characters').waitFor();
  assert.equal(await signUpButton.isDisabled(), true, 'a weak password keeps Sign up disabled');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(`${PASSWORD}x`);
  assert.equal(await checklist.locator('li[data-met="false"]').count(), 1, 'only "Passwords match" is unmet');
  assert.equal(await signUpButton.isDisabled(), true, 'a mismatched confirmation keeps Sign up disabled');
  await page.getByLabel('Confirm password').fill(PASSWORD);
  assert.equal(await checklist.locator('li[data-met="false"]').count(), 0);
  assert.equal(await signUpButton.isEnabled(), true);
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on /signup');
  await signUpButton.click();
  await page.waitForURL('**/login');

  // Sign in with Remember me; the dashboard shows the search statistics.
  await page.getByRole('button', { name: 'Sign in', exact: true }).last().waitFor();
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on /login');
  await screenshot(page, 'login');
  await signIn(page, email, PASSWORD, { remember: true });
  await page.waitForURL('**/data-processing');
  const stats = page.getByRole('region', { name: 'Search statistics' });
  await stats.getByText('Regular User Account').waitFor();
  await stats.getByTestId('searches-used').getByText('0 / 10').waitFor();
  await stats.getByText('used this month').waitFor();
  await screenshot(page, 'dashboard');

  // Profile: edit the display name, save, reload; the name and the session survive.
  await page.goto('/profile');
  await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
  await page.getByRole('main').getByText(email).first().waitFor();
  await page.getByRole('button', { name: 'Edit Profile' }).click();
  const nameInput = page.getByRole('textbox', { name: 'Display name' });
  await nameInput.fill('Ann Example');
  await screenshot(page, 'profile-editing');
  await page.getByRole('button', { name: 'Save Changes' }).click();
  await page.getByText('Profile updated successfully').waitFor();
  await page.getByRole('button', { name: 'Edit Profile' }).waitFor();
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/profile', 'still signed in after a reload (refresh cookie)');
  await page.getByRole('main').getByText('Ann Example', { exact: true }).first().waitFor();
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on /profile');
  await screenshot(page, 'profile');

  // Sign out through the avatar menu; the private page now sends the visitor to /login.
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/login');
  await page.getByRole('link', { name: 'Sign up' }).first().waitFor();
  await page.goto('/profile');
  await page.waitForURL('**/login**');
  await page.getByLabel('Email').waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('forgot password: the reset link from the outbox sets a new password', async () => {
  const { page, errors, context } = await openPage(browser);
  const email = uniqueEmail('reset');
  await signUpByApi(page, email); // the sign-up form has its own test above

  await page.goto('/forgot-password');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await page.getByText('Check your email').waitFor();
  await page.getByRole('link', { name: 'Back to login' }).or(page.getByRole('button', { name: 'Back to login' })).first().waitFor();

  const token = await resetTokenFor(email);
  const newPassword = 'N3w!Orchid-lamp';
  await page.goto(`/reset-password?token=${encodeURIComponent(token)}`);
  await page.getByLabel('New password').fill(newPassword);
  await page.getByLabel('Confirm password').fill(newPassword);
  await page.getByRole('button', { name: 'Reset password' }).click();
  await page.getByText('Your password has been reset').waitFor();

  await page.goto('/login');
  await signIn(page, email, PASSWORD);
  await page.getByText('Invalid email or password').waitFor();
  assert.equal(new URL(page.url()).pathname, '/login', 'the old password no longer signs in');
  await signIn(page, email, newPassword);
  await page.waitForURL('**/data-processing');
  await page.getByRole('region', { name: 'Search statistics' }).waitFor();

  // The link is single-use.
  await page.goto(`/reset-password?token=${encodeURIComponent(token)}`);
  await page.getByLabel('New password').fill('An0ther!pass');
  await page.getByLabel('Confirm password').fill('An0ther!pass');
  await page.getByRole('button', { name: 'Reset password' }).click();
  await page.getByText('This reset link is invalid or has expired.').waitFor();
  // The refused reuse is a 400 from /api/auth/reset-password, which chromium logs; nothing else may fail.
  assert.deepEqual(errors.filter((e) => !(/status of 400/.test(e) && e.includes('/api/auth/reset-password'))), []);
  await context.close();
});

test('a deep link to a private page returns there after sign-in', async () => {
  const { page, errors, context } = await openPage(browser);
  const email = uniqueEmail('deep');
  await signUpByApi(page, email);
  await page.goto('/profile');
  await page.waitForURL('**/login**');
  await signIn(page, email);
  await page.waitForURL('**/profile');
  await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('the 404 page', async () => {
  const { page, errors, context } = await openPage(browser);
  await page.goto('/no-such-page');
  await page.getByRole('heading', { name: 'Page Not Found' }).waitFor();
  await page.getByRole('link', { name: 'Back to Home' }).waitFor();
  await page.getByRole('main').getByRole('link', { name: 'Sign In' }).waitFor();
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the 404 page');
  await screenshot(page, 'not-found');
  await page.getByRole('link', { name: 'Back to Home' }).click();
  await page.waitForURL(`${BASE_URL}/`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('unknown API paths answer JSON 404; /schema is Swagger UI served offline', async () => {
  const { page, errors, context } = await openPage(browser);
  const api = await page.request.get('/api/nope');
  assert.equal(api.status(), 404);
  assert.match(api.headers()['content-type'] ?? '', /json/);
  const body = await api.json();
  assert.equal(typeof body, 'object');

  const outside = [];
  page.on('request', (request) => {
    const { hostname, protocol } = new URL(request.url());
    if (!['data:', 'blob:'].includes(protocol) && !['127.0.0.1', 'localhost'].includes(hostname)) outside.push(request.url());
  });
  await page.goto('/schema');
  await page.locator('.swagger-ui').first().waitFor();
  await page.getByText('PerilScope API').first().waitFor();
  await screenshot(page, 'schema');
  assert.deepEqual(outside, [], 'no request leaves localhost');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Swagger UI at /schema renders the operations of the OpenAPI 3.1 document', async () => {
  const { page, context } = await openPage(browser);
  try {
    await page.goto('/schema');
    await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 60_000 });
    await page.getByText('/api/auth/login').first().waitFor();
  } finally {
    await context.close();
  }
});

test('colour contrast meets WCAG AA on the public pages', async (t) => {
  const { page, context } = await openPage(browser);
  const found = [];
  try {
    for (const url of ['/', '/login', '/signup', '/forgot-password', '/no-such-page']) {
      await page.goto(url);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      if (url === '/signup') {
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByLabel('Confirm password').fill(PASSWORD);
      }
      for (const line of await contrastViolations(page)) found.push(`${url} ${line}`);
    }
  } finally {
    await context.close();
  }
  for (const line of found) t.diagnostic(line);
  assert.deepEqual(found, []);
});
