// A running batch job's figures (chunks, rows per second, workers) at phone width, for real.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { a11yViolations, batchComplete, largePortfolio, launch, newUser, openPage, overflow, screenshot, startBatch } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('at 390 px a running job shows its chunks, speed and workers without overflowing', async () => {
  const width = 390;
  const { page, errors, context } = await openPage(browser, { width, height: 844 });
  await newUser(page, 'figures');

  await startBatch(page, largePortfolio(50_000)); // 25 chunks: long enough to watch, light enough for the tests after it
  await page.getByText(/chunks done · [\d.,]+ rows\/s/).waitFor({ timeout: 60_000 });
  await page.getByText(/\d worker/).first().waitFor({ timeout: 60_000 }).catch(() => {}); // a lease may end between polls
  await screenshot(page, 'batch-figures-390');
  const { scrollWidth, culprits } = await overflow(page);
  assert.ok(scrollWidth <= width, `the dashboard is ${scrollWidth} px wide: ${culprits.join(', ')}`);
  assert.deepEqual(await a11yViolations(page), []);

  await batchComplete(page, 50_000, 120_000);
  assert.deepEqual(errors, []);
  await context.close();
});
