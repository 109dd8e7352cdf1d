// The public site in a real browser: every page renders its title with no console errors and no
// serious accessibility violations; the contact form puts a message in the outbox.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { a11yViolations, launch, newestMail, openPage, screenshot } from './helpers.mjs';

const PAGES = [
  ['/', 'Know the property before you write the policy.'],
  ['/about', 'About PerilScope'],
  ['/contact', 'Contact Us'],
  ['/privacy', 'Privacy Policy'],
  ['/terms', 'Terms and Conditions'],
  ['/products', 'Our Products'],
  ['/products/commercial', 'Commercial Property & Casualty'],
  ['/products/personal', 'Personal Property & Casualty'],
  ['/products/health', 'Life & Health'],
  ['/products/nope', 'Product Not Found'],
  ['/products/commercial/lro', 'Lessors Risk Only'],
  ['/docs', 'Documentation'],
  ['/docs/getting-started', 'Getting Started'],
  ['/docs/features', 'Geo peril Dictionary'],
  ['/docs/api', 'API Reference'],
  ['/docs/api-documentation', 'API Documentation'],
  ['/docs/ui-documentation', 'UI Documentation'],
];

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('every public page renders its title, accessibly, with no console errors', async () => {
  const { page, errors, context } = await openPage(browser);
  // A signed-out visitor's session check: 204, not an error status (nothing in the console).
  const sessionChecks = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname === '/api/auth/refresh') sessionChecks.push(response.status());
  });
  for (const [url, title] of PAGES) {
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
    assert.deepEqual(await a11yViolations(page), [], `no serious accessibility violations on ${url}`);
  }
  await page.goto('/docs/features');
  await page.locator('table.dictionary').waitFor();
  assert.equal(await page.locator('table.dictionary tbody tr').count(), 20);
  await screenshot(page, 'public-dictionary');
  await page.goto('/privacy');
  await page.locator('.legal-section').first().waitFor();
  assert.equal(await page.locator('.legal-section').count(), 11);
  await page.getByText('Last updated 04/04/2025').waitFor();
  await screenshot(page, 'public-privacy');
  await page.goto('/terms');
  await page.locator('.legal-section').first().waitFor();
  assert.equal(await page.locator('.legal-section').count(), 26);
  await page.goto('/about');
  await page.getByText(/is not endorsed by FEMA/).waitFor();
  await page.getByText('ZIP code data: simplemaps.com/data/us-zips (CC BY 4.0)').waitFor();
  await page.getByText('Postal code data: GeoNames (geonames.org), CC BY 4.0').waitFor();
  await page.goto('/products');
  await screenshot(page, 'public-products');
  await page.goto('/products/commercial/lro');
  await page.getByRole('heading', { level: 1, name: 'Lessors Risk Only' }).waitFor();
  const contact = page.getByRole('link', { name: 'Contact Us' }).last();
  assert.equal(await contact.getAttribute('href'), '/contact?product=commercial&subproduct=lro');
  assert.ok(sessionChecks.length >= PAGES.length, `one session check per page load (${sessionChecks.length})`);
  assert.deepEqual([...new Set(sessionChecks)], [204], 'the signed-out session check answers 204');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the contact form sends a message to the outbox', async () => {
  const { page, errors, context } = await openPage(browser);
  await page.goto('/contact?product=commercial&subproduct=lro');
  const message = page.getByLabel('Message');
  assert.match(await message.inputValue(), /Lessors Risk Only/);
  await page.getByRole('button', { name: 'Send message' }).click();
  await page.getByText('Please enter your first name').waitFor();
  const marker = `e2e-${Date.now()}`;
  await page.getByLabel('First name').fill('Ada');
  await page.getByLabel('Last name').fill('Lovelace');
  await page.getByLabel('Email').fill('ada@example.com');
  await message.fill(`Please call me about LRO. ${marker}`);
  await page.getByRole('button', { name: 'Send message' }).click();
  await page.getByText('Message sent successfully!').waitFor();
  await screenshot(page, 'public-contact-sent');
  let mail = '';
  for (let attempt = 0; attempt < 40 && !mail.includes(marker); attempt += 1) {
    mail = await newestMail();
    if (!mail.includes(marker)) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.ok(mail.includes(marker), `the message is in the outbox:\n${mail}`);
  assert.deepEqual(errors, []);
  await context.close();
});
