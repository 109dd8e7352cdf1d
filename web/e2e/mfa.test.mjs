// Two-factor sign-in in a real browser: set it up on /settings from the key shown on the page (the
// test computes the codes as a phone would), keep the recovery codes, then sign in with a code and,
// on a phone-sized screen, with a recovery code.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  PASSWORD, a11yViolations, launch, newUser, openPage, screenshot, signIn, totp, totpNextStep,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function signOut(page) {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/login');
}

test('set up two-factor sign-in, then sign in with a code and with a recovery code', async () => {
  const { page, errors, context } = await openPage(browser);
  const email = await newUser(page, 'mfa');

  // Set-up on /settings: the QR code is an image drawn by our server; the key is shown for typing.
  await page.goto('/settings');
  const section = page.getByRole('region', { name: 'Two-factor sign-in' });
  await section.getByText('Off', { exact: true }).waitFor();
  await section.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  const qr = section.getByRole('img', { name: 'QR code for setting up two-factor sign-in' });
  await qr.waitFor();
  assert.match(await qr.getAttribute('src'), /^data:image\/svg\+xml/);
  assert.ok(await qr.evaluate((img) => img.complete && img.naturalWidth > 0), 'the QR code image renders');
  const secret = (await section.getByLabel('Set-up key').textContent()).replace(/\s+/g, '');
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations while setting up');
  await screenshot(page, 'mfa-setup');

  const codeField = section.getByLabel('Enter the 6-digit code from the app');
  assert.equal(await codeField.getAttribute('autocomplete'), 'one-time-code');
  await section.getByLabel('Current password').fill(PASSWORD);
  await codeField.fill(totp(secret));
  await codeField.press('Enter');
  await section.getByText('Two-factor sign-in is on.').waitFor();
  const recoveryCodes = (await section.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents())
    .map((code) => code.trim());
  assert.equal(recoveryCodes.length, 10);
  assert.ok(recoveryCodes.every((code) => /^[0-9A-Z]{5}-[0-9A-Z]{5}$/.test(code)), recoveryCodes.join(' '));
  await screenshot(page, 'mfa-recovery-codes');
  const download = page.waitForEvent('download');
  await section.getByRole('button', { name: 'Download codes' }).click();
  assert.equal((await download).suggestedFilename(), 'perilscope-recovery-codes.txt');
  await section.getByRole('button', { name: 'I have saved my codes' }).click();
  await section.getByText('10 recovery codes left', { exact: false }).waitFor();
  await screenshot(page, 'mfa-on');
  // Turning it on ended the old session and gave this browser a new one: a reload stays signed in.
  await page.reload();
  await section.getByText('10 recovery codes left', { exact: false }).waitFor();

  // Sign in again: the password alone is not enough; the next step's code is.
  await signOut(page);
  await signIn(page, email);
  await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
  const code = page.getByLabel('Authentication code');
  assert.equal(await code.evaluate((input) => input === document.activeElement), true, 'the code field has the focus');
  assert.equal(await code.getAttribute('inputmode'), 'numeric');
  assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations on the second step');
  await screenshot(page, 'mfa-login-step');
  await code.fill('000000');
  await code.press('Enter');
  await page.getByRole('alert').getByText('That code is not right', { exact: false }).waitFor();
  // The set-up spent the current step's code, and the server takes each step once: the next
  // step's code (a phone a step ahead; the server allows one step of drift) is the one not spent.
  await code.fill(totpNextStep(secret));
  await code.press('Enter');
  await page.waitForURL('**/data-processing');
  await context.close();

  // A phone-sized screen: the second step with a recovery code, then the settings section.
  const phone = await openPage(browser, { width: 390, height: 844 });
  await signIn(phone.page, email);
  await phone.page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
  await screenshot(phone.page, 'mfa-login-step-390');
  await phone.page.getByRole('button', { name: 'Use a recovery code' }).click();
  await phone.page.getByLabel('Recovery code').fill(recoveryCodes[0].toLowerCase());
  await phone.page.getByLabel('Recovery code').press('Enter');
  await phone.page.waitForURL('**/data-processing');
  await phone.page.goto('/settings');
  await phone.page.getByRole('region', { name: 'Two-factor sign-in' }).getByText('9 recovery codes left', { exact: false }).waitFor();
  await screenshot(phone.page, 'mfa-on-390');

  // Turning it off takes the password and a code (here a recovery code); then set-up starts afresh.
  const phoneSection = phone.page.getByRole('region', { name: 'Two-factor sign-in' });
  await phoneSection.getByRole('button', { name: 'Turn off two-factor sign-in' }).click();
  await phoneSection.getByLabel('Current password').fill(PASSWORD);
  await phoneSection.getByLabel('Authentication or recovery code').fill(recoveryCodes[1]);
  await phoneSection.getByRole('button', { name: 'Turn off', exact: true }).click();
  await phoneSection.getByText('Two-factor sign-in is off.').waitFor();
  await phoneSection.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await phoneSection.getByRole('img', { name: 'QR code for setting up two-factor sign-in' }).waitFor();
  assert.deepEqual(await a11yViolations(phone.page), [], 'no serious accessibility violations while setting up on a phone');
  await screenshot(phone.page, 'mfa-setup-390');
  assert.deepEqual([...errors, ...phone.errors], []);
  await phone.context.close();
});
