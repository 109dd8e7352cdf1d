// The Content-Security-Policy in a real browser: the built app and Swagger UI run under it with no
// violation (a violation would mean inline script or style, eval, or a resource from elsewhere).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, newUser, openPage } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Records every securitypolicyviolation of each page the context loads, from before its first script. */
async function watchViolations(context) {
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__cspViolations.push(`${event.effectiveDirective} refused ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
}

async function violations(page) {
  return page.evaluate(() => window.__cspViolations);
}

async function visit(page, url, ready) {
  const response = await page.goto(url);
  const policy = response.headers()['content-security-policy'] ?? '';
  assert.match(policy, /script-src 'self';/, `${url} is served with the policy`);
  assert.match(policy, /frame-ancestors 'none'/);
  await ready();
  assert.deepEqual(await violations(page), [], `no CSP violation on ${url}`);
}

test('the app and the Swagger page run under the Content-Security-Policy', async () => {
  const { page, errors, context } = await openPage(browser);
  await watchViolations(context);
  const heading = (name) => () => page.getByRole('heading', { level: 1, name }).first().waitFor();

  await visit(page, '/', heading('Know the property before you write the policy.'));
  await visit(page, '/about', heading('About PerilScope'));
  await visit(page, '/contact', heading('Contact Us'));
  await visit(page, '/docs/features', () => page.locator('table.dictionary').waitFor());
  await visit(page, '/forgot-password', () => page.getByRole('button').first().waitFor());
  await visit(page, '/signup', () => page.getByRole('button', { name: 'Sign up', exact: true }).waitFor());
  await visit(page, '/login', () => page.getByLabel('Password', { exact: true }).waitFor());

  // Signed in through the API (accounts.test.mjs drives the forms); the dashboard is a page load of its own.
  await newUser(page, 'csp');
  assert.deepEqual(await violations(page), [], 'no CSP violation on the dashboard');
  await page.getByLabel('Property address').fill('701 5th Ave, Seattle, WA 98104');
  await page.getByRole('button', { name: 'Search Address' }).click();
  // The peril chart draws SVG with inline style properties: those come through the CSSOM, which CSP allows.
  await page.getByTestId('peril-chart').first().locator('svg').first().waitFor();
  assert.deepEqual(await violations(page), [], 'no CSP violation on the dashboard with a result');
  await page.getByRole('link', { name: /701 5th Ave/ }).first().click();
  await page.getByRole('heading', { name: 'Occupant Detail' }).waitFor();
  assert.deepEqual(await violations(page), [], 'no CSP violation on the search result');

  await visit(page, '/profile', () => page.getByRole('heading', { level: 1 }).first().waitFor());
  await visit(page, '/schema', () => page.locator('.opblock').first().waitFor());
  await page.locator('.opblock-summary').first().click();
  await page.locator('.opblock-body').first().waitFor();
  assert.deepEqual(await violations(page), [], 'no CSP violation in Swagger UI after opening an operation');

  // Chromium also logs any refusal as a console error.
  assert.deepEqual(errors, []);
  await context.close();
});
