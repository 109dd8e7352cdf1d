// The API documentation and the API-key screens in a real browser, wide and at 390 px: no page-wide
// sideways scrolling (code blocks scroll on their own, with the keyboard too), no serious
// accessibility violations, and screenshots to look at.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { a11yViolations, launch, newAdmin, newUser, openPage, overflow, screenshot, screenshotPath, signUpByApi, uniqueEmail } from './helpers.mjs';

const PHONE = { width: 390, height: 844 };
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function fitsTheWidth(page, width) {
  const { scrollWidth, culprits } = await overflow(page);
  assert.ok(scrollWidth <= width, `${page.url()} is ${scrollWidth} px wide at ${width} px: ${culprits.join(', ')}`);
}

for (const [route, title, shot] of [
  ['/docs/api', 'API Reference', 'docs-api'],
  ['/docs/api-documentation', 'API Documentation', 'docs-api-documentation'],
]) {
  test(`${route} reads at 1280 and 390 px, accessibly`, async () => {
    for (const [size, viewport] of [['1280', undefined], ['390', PHONE]]) {
      const { page, errors, context } = await openPage(browser, viewport);
      await page.goto(route);
      await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
      assert.deepEqual(await a11yViolations(page), [], `${route} at ${size} px`);
      await fitsTheWidth(page, viewport?.width ?? 1280);

      // The contents lead to the webhooks, and a code block there scrolls sideways from the keyboard.
      await page.getByRole('navigation', { name: 'Contents' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.waitForURL(`**${route}#webhooks`);
      const block = page.getByRole('region', { name: 'Webhooks' }).locator('pre.code-block').last();
      await block.focus();
      const scrollable = await block.evaluate((el) => el.scrollWidth > el.clientWidth);
      if (scrollable) {
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('ArrowRight');
        // The arrow keys scroll smoothly: wait for the scroll to start rather than read it at once.
        const scrolled = await page.waitForFunction((el) => el.scrollLeft > 0, await block.elementHandle(), { timeout: 3000 })
          .then(() => true, () => false);
        assert.ok(scrolled, 'the focused code block scrolls with the arrow keys');
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, `${shot}-${size}`);
      await page.getByRole('region', { name: 'Webhooks' }).screenshot({ path: screenshotPath(`${shot}-webhooks-${size}`) });
      assert.deepEqual(errors, []);
      await context.close();
    }
  });
}

test('the API keys section at 390 px with a key just created', async () => {
  const { page, errors, context } = await openPage(browser, PHONE);
  await newUser(page, 'keys390');
  await page.goto('/settings');
  const section = page.getByRole('region', { name: 'API keys' });
  await section.getByLabel('Key name').fill('Rating tool for the commercial book');
  await section.getByLabel('batch (batches of addresses)').check();
  await section.getByRole('button', { name: 'Create key' }).click();
  await section.getByLabel('New API key').waitFor();
  await fitsTheWidth(page, PHONE.width);
  assert.deepEqual(await a11yViolations(page), []);
  await section.screenshot({ path: screenshotPath('settings-api-key-created-390') });
  await section.getByRole('button', { name: 'I have saved my key' }).click();
  await section.getByRole('row', { name: /Rating tool/ }).waitFor();
  await fitsTheWidth(page, PHONE.width);
  await section.screenshot({ path: screenshotPath('settings-api-keys-390') });
  await screenshot(page, 'settings-390');
  // Where the row's Revoke button lies (reported, not asserted: the table belongs to features/profile).
  const revoke = section.getByRole('button', { name: /^Revoke / }).first();
  const box = await revoke.boundingBox();
  console.log(`settings at 390 px: the Revoke button spans x ${Math.round(box.x)} to ${Math.round(box.x + box.width)}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the plan form of /admin/users at 390 px', async () => {
  const { page, errors, context } = await openPage(browser, PHONE);
  const email = uniqueEmail('plan390');
  await signUpByApi(page, email);
  await newAdmin(page, 'admin390');
  await page.goto('/admin/users');
  await page.getByPlaceholder('Search users...').fill(email);
  await page.getByRole('row', { name: new RegExp(email) }).click();
  const details = page.getByRole('region', { name: 'User details' });
  await details.getByText(email).waitFor();
  const form = details.getByRole('form', { name: 'API plan' });
  await form.getByLabel('Plan').selectOption('enterprise');
  await fitsTheWidth(page, PHONE.width);
  assert.deepEqual(await a11yViolations(page), []);
  await screenshot(page, 'admin-users-plan-390');
  await details.screenshot({ path: screenshotPath('admin-user-details-plan-390') });
  assert.deepEqual(errors, []);
  await context.close();
});
