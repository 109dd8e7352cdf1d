// Shared pieces of the browser tests: Debian's chromium through playwright-core (never a downloaded
// browser), a page that records console and page errors, screenshots, an accessibility scan, and the
// mail outbox read through the CLI. Run from the repository root (web/e2e/run.sh does).
import { execFile, execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8000';
export const TIMEOUT = 15_000;
export const PASSWORD = 'Str0ng!pass';
const SCREENSHOTS = process.env.E2E_SCREENSHOTS ?? path.resolve('web/e2e/screenshots');
const CLI = path.resolve('.venv/bin/perilscope');
const run = promisify(execFile);

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

/**
 * A new context and page. `errors` collects console errors and uncaught page errors; the tests
 * assert it stays empty. The one failed request the app expects is the 401 of a sign-in (or its
 * second step) with wrong credentials or a wrong code, which chromium logs as "Failed to load resource"; every other failed
 * resource counts as an error. The session check of a signed-out visitor is not exempt: the
 * server answers it 204, so a public page logs nothing.
 */
export async function openPage(browser, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ baseURL: BASE_URL, viewport: { width, height } });
  context.setDefaultTimeout(TIMEOUT);
  context.setDefaultNavigationTimeout(TIMEOUT);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location()?.url ?? '';
    if (/status of 401/.test(message.text()) && ['/api/auth/login', '/api/auth/login/mfa'].includes(new URL(where, BASE_URL).pathname)) return;
    errors.push(`${message.text()}${where ? ` (${where})` : ''}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.stack ?? error}`));
  return { context, page, errors };
}

/** Where a screenshot called `name` is saved (the folder made if need be). */
export function screenshotPath(name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return path.join(SCREENSHOTS, `${name}.png`);
}

export async function screenshot(page, name) {
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
}

const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

function describe(violations) {
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) =>
      `${violation.id}: ${node.target.join(' ')}: ${(node.any[0]?.message ?? violation.help).split('. Expected')[0]}`));
}

/**
 * The serious and critical WCAG 2.1 A/AA violations axe-core finds on the page, one line per element,
 * colour contrast excepted: that rule has known failures in the app's palette and its own check,
 * `contrastViolations`.
 */
export async function a11yViolations(page) {
  const result = await new AxeBuilder({ page }).withTags(WCAG_AA).disableRules(['color-contrast']).analyze();
  return describe(result.violations);
}

/** Colour contrast failures (WCAG 1.4.3), the logotype excepted as 1.4.3 allows. */
export async function contrastViolations(page) {
  const result = await new AxeBuilder({ page }).withRules(['color-contrast']).exclude('.brand-name').analyze();
  return describe(result.violations);
}

export function uniqueEmail(prefix) {
  return `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
}

function cliEnv() {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set: run the tests through web/e2e/run.sh');
  return { ...process.env, DATABASE_URL: process.env.DATABASE_URL };
}

/** Runs `perilscope ARGS...` against the server's database and returns what it printed. */
export function perilscope(...args) {
  return execFileSync(CLI, args, { encoding: 'utf8', env: cliEnv() });
}

/** The newest message in the outbox, as `perilscope mail outbox --limit 1` prints it. */
export async function newestMail() {
  const { stdout } = await run(CLI, ['mail', 'outbox', '--limit', '1'], { encoding: 'utf8', env: cliEnv() });
  return stdout;
}

/** The token of a reset link in a mail's text, or undefined. */
export function resetToken(mail) {
  return /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(mail)?.[1];
}

/**
 * The token of the reset link in the newest mail to `email`. The server sends mail after it has
 * answered, so the outbox is polled (each poll is one CLI run) until the mail is there or `timeout` passes.
 */
export async function resetTokenFor(email, { timeout = TIMEOUT } = {}) {
  const deadline = Date.now() + timeout;
  let mail = '';
  while (Date.now() < deadline) {
    mail = await newestMail();
    if (mail.includes(` to ${email}\n`)) {
      const token = resetToken(mail);
      if (token) return token;
    }
  }
  throw new Error(`no reset link to ${email} in the outbox within ${timeout} ms; newest mail:\n${mail}`);
}

export async function signUp(page, email, password = PASSWORD) {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();
  await page.waitForURL('**/login');
}

export async function signIn(page, email, password = PASSWORD, { remember = false } = {}) {
  if (new URL(page.url()).pathname !== '/login') await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  if (remember) await page.getByLabel('Remember me').check();
  await page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Signs `email` up through the API (POST /api/auth/signup), as the sign-up form does: for the tests
 * whose subject is not the form (accounts.test.mjs tests the form itself).
 */
export async function signUpByApi(page, email, password = PASSWORD) {
  const response = await page.request.post('/api/auth/signup', { data: { email, password } });
  if (response.status() !== 201) throw new Error(`sign-up of ${email}: ${response.status()} ${await response.text()}`);
}

/**
 * Signs in through the API and opens `landing` signed in. The login's answer sets the HttpOnly
 * refresh cookie in the page's context (page.request shares its cookies), which is all the app
 * keeps of a session across page loads: the app, loaded afresh, asks POST /api/auth/refresh for
 * its in-memory access token, as after a form sign-in and a reload. Waits for the account menu,
 * which only a signed-in page shows.
 */
export async function signInByApi(page, email, password = PASSWORD, { landing = '/data-processing', remember = false } = {}) {
  const response = await page.request.post('/api/auth/login', { data: { email, password, remember_me: remember } });
  const body = await response.json().catch(() => ({}));
  if (response.status() !== 200 || body.status !== 'success') {
    throw new Error(`sign-in of ${email}: ${response.status()} ${JSON.stringify(body)}`);
  }
  await page.goto(landing);
  await page.waitForURL(`**${landing}`);
  await page.getByRole('button', { name: 'Account menu' }).waitFor();
}

/**
 * A new user, signed up and signed in through the API, on the dashboard; `prefix` starts the
 * user's email, which is returned.
 */
export async function newUser(page, prefix) {
  const email = uniqueEmail(prefix);
  await signUpByApi(page, email);
  await signInByApi(page, email);
  return email;
}

/** A new administrator (made with the CLI), signed in through the API, on the dashboard; the email is returned. */
export async function newAdmin(page, prefix) {
  const email = uniqueEmail(prefix);
  perilscope('users', 'create-admin', email, '--password', PASSWORD);
  await signInByApi(page, email);
  return email;
}

/** A path called `name` in a new temporary folder of its own (the upload shows the file's name). */
export function tempPath(name) {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'e2e-')), name);
}

/** A CSV file called `name` holding `lines` (the header first). */
export function csvFile(name, lines) {
  const file = tempPath(name);
  writeFileSync(file, lines.join('\n'));
  return file;
}

/**
 * On the dashboard: uploads `file` (a CSV path), waits for the upload to be taken, and starts the
 * batch. `beforeStart`, if given, runs between the two (e.g. to start watching the progress bar).
 */
export async function startBatch(page, file, { beforeStart } = {}) {
  await page.locator('input[type=file]').setInputFiles(file);
  await page.getByText(`File uploaded successfully: ${path.basename(file)}`).waitFor({ timeout: 60_000 });
  if (beforeStart) await beforeStart();
  await page.getByRole('button', { name: 'Process Batch File' }).click();
}

/** Waits for the dashboard to say the batch of `rows` rows is done (the count with or without its thousands separator). */
export async function batchComplete(page, rows, timeout = 60_000) {
  const count = rows.toLocaleString('en-US').replaceAll(',', ',?');
  await page.getByText(new RegExp(`Batch complete: ${count} address\\(es\\) exported`)).waitFor({ timeout });
}

/** RFC 4648 base 32 (the TOTP key as an authenticator app reads it) to bytes; spaces are ignored. */
function base32Bytes(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text.replace(/[\s=]/g, '').toUpperCase()) {
    const value = alphabet.indexOf(char);
    if (value < 0) throw new Error(`not base 32: ${char}`);
    bits += value.toString(2).padStart(5, '0');
  }
  const bytes = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The RFC 6238 code (HMAC-SHA-1, 30-second steps, 6 digits) for `secret` at `atMs`: what the phone shows. */
export function totp(secret, atMs = Date.now()) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 1000 / 30)));
  const mac = createHmac('sha1', base32Bytes(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/**
 * The code of the step after the current one: what a phone whose clock runs up to 30 s ahead
 * shows, and the server accepts (one step of drift either side, domain/mfa.py). The server takes
 * each step's code once, so after a code of the current step was used this is the next one not
 * spent, without waiting for the step to turn; should the step turn on the way, it is the
 * server's current step, still accepted and still unspent.
 */
export function totpNextStep(secret, atMs = Date.now()) {
  return totp(secret, atMs + 30_000);
}

/** The page's width, and the first elements reaching past the viewport's right edge (to say what overflows). */
export async function overflow(page) {
  return page.evaluate(() => {
    const width = window.innerWidth;
    const name = (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
    const inScrollBox = (el) => !!el.parentElement?.closest('.table-scroll, .code-block');
    const elements = [...document.querySelectorAll('body *')].filter((el) => !inScrollBox(el));
    // A box past the edge, or text spilling out of a box that does not scroll (a long file name).
    const past = elements
      .filter((el) => el.getBoundingClientRect().right > width + 0.5)
      .map((el) => `${name(el)} (${Math.round(el.getBoundingClientRect().right)} px)`);
    const spilling = elements
      .filter((el) => getComputedStyle(el).overflowX === 'visible' && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      .map((el) => `${name(el)} (content ${el.scrollWidth} px in ${el.clientWidth} px)`);
    return { scrollWidth: document.documentElement.scrollWidth, culprits: [...past, ...spilling].slice(0, 6) };
  });
}

/** Types an address into the dashboard's lookup, searches, and waits for its banner; the answer's result. */
export async function lookUp(page, address) {
  await page.getByLabel('Property address').fill(address);
  const answered = page.waitForResponse((response) => response.url().includes('/api/nearby-search'));
  await page.getByRole('button', { name: 'Search Address' }).click();
  const response = await answered;
  if (response.status() !== 200) throw new Error(`${address}: ${response.status()} ${await response.text()}`);
  const { result } = await response.json();
  await page.getByRole('status').or(page.getByRole('alert')).first().waitFor();
  return result;
}

/**
 * Rows of a batch the browser tests watch while it runs. run.sh makes chunks of 1,000 rows
 * (PERILSCOPE_BATCH_CHUNK_ROWS), so these are 12 chunks, each a step of the progress: several
 * seconds of work on the 2-core machine the suite runs on (about 2,000 rows/s), while the
 * dashboard polls the job every second (JOB_POLL_MS). Speed at scale is bench/batch.py's subject.
 */
export const WATCHED_ROWS = 12_000;

/**
 * `rows` real addresses (bench/batch.py's builder), in a CSV file called large_portfolio.csv.
 * (run.sh raises the e2e server's monthly batch row allowance to fit the suite's batches.)
 */
export function largePortfolio(rows = WATCHED_ROWS) {
  const file = tempPath('large_portfolio.csv');
  execFileSync('.venv/bin/python', ['-c', [
    'import sys; from pathlib import Path; from bench.batch import build_input; from entrypoints.settings import Settings',
    `Path(sys.argv[1]).write_bytes(build_input(${rows}, Settings.from_env().data_dir))`,
  ].join('\n'), file]);
  return file;
}

/**
 * Scrolls to the bottom of the page until the card at `position` of the list shows its link: cards
 * are measured as they render, so the page grows and the bottom moves while it settles.
 */
export async function scrollToCard(page, position) {
  const link = page.locator(`.virtual-group[data-index="${position}"]`).getByRole('link').first();
  for (let attempt = 0; attempt < 40; attempt += 1) {
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    if (await link.isVisible()) return link;
    await page.waitForTimeout(250);
  }
  throw new Error(`the card at ${position} never showed its link`);
}
