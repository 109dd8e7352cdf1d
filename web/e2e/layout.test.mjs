// Layout in a real browser: the signed-in pages fit a 390 px phone (nothing cut, the occupant
// table's NAICS column in view), a new page opens at the top and Back returns where it was, and
// the statistics' split bars are filled. Screenshots at 1280 and 390 px.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { batchComplete, csvFile, launch, newAdmin, openPage, overflow, screenshot, screenshotPath, startBatch } from './helpers.mjs';

const SEATTLE = '701 5th Ave, Seattle, WA 98104';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const BATCH = ['Street Address,City,State,Zip,Country', '701 5th Ave,Seattle,WA,98104,US', '601 Union St,Seattle,WA,98101,US'];

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A table at 390 px: every column inside its box, none behind a side scroll. */
async function assertTableFits(page, table, name, problems) {
  const { scroll, client } = await table.evaluate((el) => {
    const box = el.closest('.table-scroll') ?? el.parentElement;
    return { scroll: box.scrollWidth, client: box.clientWidth };
  });
  if (scroll > client + 1) problems.push(`${name}: ${scroll} px of columns in a ${client} px box at 390 px`);
}

/** Both widths: a screenshot at each; at 390 px, what does not fit goes into `problems`. */
async function checkWidths(page, name, problems) {
  await page.setViewportSize(DESKTOP);
  await screenshot(page, `${name}-1280`);
  await page.setViewportSize(PHONE);
  // Charts re-measure on a resize observer: give the layout a moment to settle before measuring.
  await page.waitForFunction((width) => document.documentElement.scrollWidth <= width, PHONE.width, { timeout: 3000 }).catch(() => {});
  const { scrollWidth, culprits } = await overflow(page);
  if (scrollWidth > PHONE.width) problems.push(`${name} is ${scrollWidth} px wide on a ${PHONE.width} px phone; past the edge: ${culprits.join(', ')}`);
  await screenshot(page, `${name}-390`);
  await page.setViewportSize(DESKTOP);
}

async function signedInAdmin() {
  const session = await openPage(browser);
  await newAdmin(session.page, 'layout');
  return session;
}

test('the dashboard, search result, export viewer and admin pages fit a 390 px phone', async () => {
  const { page, errors, context } = await signedInAdmin();
  const problems = [];

  // A lookup gives the dashboard its occupant table and the search result page.
  await page.getByLabel('Property address').fill(SEATTLE);
  await page.getByRole('button', { name: 'Search Address' }).click();
  const occupants = page.getByRole('table', { name: 'Occupants' }).first();
  await occupants.getByText('518210').first().waitFor();
  await checkWidths(page, 'layout-dashboard', problems);
  await page.setViewportSize(PHONE);
  const naics = occupants.getByRole('columnheader', { name: 'NAICS Code' });
  const box = await naics.boundingBox();
  if (!(box && box.x >= 0 && box.x + box.width <= PHONE.width)) problems.push(`the NAICS column is out of view at 390 px (${JSON.stringify(box)})`);
  await assertTableFits(page, occupants, 'the dashboard occupant table', problems);
  await occupants.screenshot({ path: screenshotPath('layout-dashboard-occupants-390') });
  await page.setViewportSize(DESKTOP);

  await page.getByRole('link', { name: /701 5th Ave/ }).first().click();
  await page.waitForURL('**/search-result/**');
  await page.getByRole('region', { name: 'Score receipt' }).getByText('King County, WA (53033)').waitFor();
  await checkWidths(page, 'layout-search-result', problems);

  // A small batch gives an export to open.
  await page.goto('/data-processing');
  await startBatch(page, csvFile('layout_portfolio.csv', BATCH));
  await batchComplete(page, 2);
  await page.getByRole('list', { name: 'Exported files' }).getByRole('link').first().click();
  await page.waitForURL('**/batch-export-detail/**');
  await page.getByText(/Displaying 2 row\(s\)/).waitFor();
  await checkWidths(page, 'layout-export-viewer', problems);
  await page.setViewportSize(PHONE);
  // A row's card has no table (its occupants are on its result page): checkWidths above measured it.
  await page.locator('.export-group:not(.row-placeholder)').first().screenshot({ path: screenshotPath('layout-export-group-390') });
  await page.setViewportSize(DESKTOP);

  await page.goto('/admin/users');
  await page.getByRole('table').getByRole('row').nth(1).click();
  await page.getByRole('region', { name: 'User details' }).getByRole('button', { name: 'Set as Admin' }).waitFor();
  await checkWidths(page, 'layout-admin-users', problems);
  await page.setViewportSize(PHONE);
  await assertTableFits(page, page.getByRole('table').first(), 'the admin users table', problems);
  await page.setViewportSize(DESKTOP);

  assert.deepEqual(problems, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the admin/regular split bars are filled with a colour', async () => {
  const { page, errors, context } = await signedInAdmin();
  await page.goto('/admin/statistics');
  const card = page.getByRole('article', { name: 'Total Users' });
  for (const name of ['Admins', 'Regular users']) {
    const bar = card.getByRole('img', { name: new RegExp(`^${name}: \\d+%$`) });
    const fill = await bar.locator('.progress-fill').evaluate((el) => ({
      colour: getComputedStyle(el).backgroundColor,
      width: el.getBoundingClientRect().width,
    }));
    assert.notEqual(fill.colour, 'rgba(0, 0, 0, 0)', `${name} fill is not transparent`);
    assert.notEqual(fill.colour, 'transparent', `${name} fill is not transparent`);
  }
  // This admin and at least one other account exist, so the admin share is above 0 and its fill has width.
  const adminFill = await card.getByRole('img', { name: /^Admins: / }).locator('.progress-fill').boundingBox();
  assert.ok(adminFill && adminFill.width > 0, 'the admin share is drawn');
  const problems = [];
  await checkWidths(page, 'layout-admin-statistics', problems);
  assert.deepEqual(problems, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a new page opens at the top; Back returns to where the page was left, Forward too', async () => {
  const { page, errors, context } = await openPage(browser);
  // What moved the page, kept to say so if a wait below times out.
  await page.addInitScript(() => {
    const log = (window.__scrolls = []);
    const at = () => `${Math.round(performance.now())}ms ${location.pathname}`;
    const scrollTo = window.scrollTo.bind(window);
    window.scrollTo = (...args) => { log.push(`${at()} scrollTo(${JSON.stringify(args)}) from ${window.scrollY}`); scrollTo(...args); };
    window.addEventListener('scroll', () => log.push(`${at()} scroll event at ${window.scrollY}`), { passive: true });
    window.addEventListener('popstate', () => log.push(`${at()} popstate at ${window.scrollY}`));
  });
  const scrollY = () => page.evaluate(() => window.scrollY);
  const settlesAt = (y) => page.waitForFunction((target) => Math.abs(window.scrollY - target) <= 2, y).catch(async (e) => { throw new Error(`${e.message} at ${await page.evaluate(() => JSON.stringify([window.scrollY, document.documentElement.scrollHeight, innerHeight, location.pathname, window.__scrolls.slice(-30)]))}`); });

  await page.goto('/privacy');
  await page.locator('.legal-section').nth(10).waitFor();
  await page.evaluate(() => window.scrollTo(0, 1500));
  await settlesAt(1500);

  // The top bar is sticky: its link is in view without scrolling.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'About PerilScope' }).waitFor();
  assert.equal(await scrollY(), 0, 'the new page opens at the top');
  await page.evaluate(() => window.scrollTo(0, 200));
  await settlesAt(200);

  await page.goBack();
  await page.getByRole('heading', { level: 1, name: 'Privacy Policy' }).waitFor();
  await settlesAt(1500);

  await page.goForward();
  await page.getByRole('heading', { level: 1, name: 'About PerilScope' }).waitFor();
  await settlesAt(200);
  assert.deepEqual(errors, []);
  await context.close();
});
