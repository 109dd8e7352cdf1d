// A running batch job's figures (chunks, rows per second, workers) at phone width, for real.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WATCHED_ROWS, a11yViolations, batchComplete, contrastViolations, csvFile, largePortfolio, launch, newUser, openPage, overflow, screenshot, screenshotPath, startBatch } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('at 390 px a running job shows its chunks, speed and workers without overflowing', async () => {
  const width = 390;
  const { page, errors, context } = await openPage(browser, { width, height: 844 });
  await newUser(page, 'figures');

  await startBatch(page, largePortfolio()); // 12 chunks: long enough to watch while it runs
  await page.getByText(/chunks done · [\d.,]+ rows\/s/).waitFor({ timeout: 60_000 });
  await page.getByText(/\d worker/).first().waitFor({ timeout: 60_000 }).catch(() => {}); // a lease may end between polls
  await screenshot(page, 'batch-figures-390');
  const { scrollWidth, culprits } = await overflow(page);
  assert.ok(scrollWidth <= width, `the dashboard is ${scrollWidth} px wide: ${culprits.join(', ')}`);
  assert.deepEqual(await a11yViolations(page), []);

  await batchComplete(page, WATCHED_ROWS);
  assert.deepEqual(errors, []);
  await context.close();
});

/**
 * A real job on the real server; only its last status is changed to report one failed row. A row
 * fails for real only when its chunk's lookup raises three times or its worker dies three times,
 * which this server on good data does not do (tests/api/test_batch_chunks.py makes them fail). The
 * re-run is the server's own answer: the job has no failed rows it can run again.
 */
test('a finished job with failed rows: the notice at 1280 and 390 px, and the server refusing a re-run of none', async () => {
  const { page, errors, context } = await openPage(browser);
  await newUser(page, 'failedrows');
  await page.route('**/api/batch-jobs/*', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    if (route.request().method() === 'GET' && body.job?.status === 'done') body.job.failed_rows = 1;
    await route.fulfill({ response, json: body });
  });
  await startBatch(page, csvFile('failed_rows.csv', ['Street Address,City,State,Zip,Country', '701 5th Ave,Seattle,WA,98104,US', '601 Union St,Seattle,WA,98101,US']));
  await batchComplete(page, 2);
  const notice = page.getByRole('region', { name: '1 row of this batch could not be processed.' });
  await notice.getByText(/^It is in failed_rows_export_.+ with the reason it failed\.$/).waitFor();
  assert.deepEqual(await a11yViolations(page), []);
  assert.deepEqual(await contrastViolations(page), []);
  for (const { width, height } of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    await page.setViewportSize({ width, height });
    await notice.screenshot({ path: screenshotPath(`failed-rows-notice-${width}`) });
    const { scrollWidth, culprits } = await overflow(page);
    assert.ok(scrollWidth <= width, `the dashboard is ${scrollWidth} px wide at ${width} px: ${culprits.join(', ')}`);
  }
  await screenshot(page, 'failed-rows-dashboard-390');

  await notice.getByRole('button', { name: 'Re-run failed rows' }).click();
  await notice.getByRole('alert').getByText('This job has no failed rows to run again.', { exact: false }).waitFor();
  assert.equal(await notice.getByRole('button', { name: 'Re-run failed rows' }).count(), 0, 'no button to fail the same way again');
  await notice.screenshot({ path: screenshotPath('failed-rows-notice-refused-390') });
  // The refused POST is the one failed request: chromium logs it.
  assert.deepEqual(errors.filter((error) => !/status of 400/.test(error)), []);
  await context.close();
});
