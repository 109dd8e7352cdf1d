// Shared pieces of the browser tests: Debian's chromium through playwright-core, a page that
// records console errors, screenshots, and the mail outbox read through the CLI.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8000';
const SCREENSHOTS = process.env.E2E_SCREENSHOTS ?? path.resolve('web/e2e/screenshots');
export const PASSWORD = 'Str0ng!pass';

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync', '--disable-quic',
    ],
  });
}

/** A new context and page; `errors` collects console errors and uncaught page errors. */
export async function openPage(browser, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ baseURL: BASE_URL, viewport: { width, height } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors = [];
  page.on('console', (message) => {
    // A 401 from the session check on a signed-out page is expected, not an app error.
    if (message.type() === 'error' && !/401|Failed to load resource/.test(message.text())) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  return { context, page, errors };
}

export async function screenshot(page, name) {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

export function uniqueEmail(prefix) {
  return `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
}

/** The newest message in the outbox, as `perilscope mail outbox` prints it. */
export function newestMail() {
  return execFileSync('.venv/bin/perilscope', ['mail', 'outbox', '--limit', '1'], { encoding: 'utf8' });
}

export function perilscope(...args) {
  return execFileSync('.venv/bin/perilscope', args, { encoding: 'utf8' });
}

export async function signUp(page, email, password = PASSWORD) {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();
  await page.waitForURL('**/login');
}

export async function signIn(page, email, password = PASSWORD) {
  if (!page.url().endsWith('/login')) await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).click();
}
