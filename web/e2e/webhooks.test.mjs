// Webhooks on /settings in a real browser, at 1280 and 390 px: the signing secret hidden until
// revealed, then rotated after confirming; recent deliveries with their attempts (two deliveries
// are written into the server's database, as the delivery pump records them).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { a11yViolations, launch, newUser, openPage, overflow, screenshotPath } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const SEED = `
import sqlite3, sys, uuid
db = sqlite3.connect(sys.argv[1])
user = db.execute("SELECT id FROM user_account WHERE email = ?", (sys.argv[2],)).fetchone()[0]
def delivery(event, status, created, nxt, attempts):
    did = str(uuid.uuid4())
    db.execute("INSERT INTO webhook_delivery VALUES (?,?,?,?,?,?,?,?,?,?,NULL,NULL)",
               (did, user, str(uuid.uuid4()), event, "https://hooks.example-insurer.com/perilscope/batches/finished",
                "{}", status, created, nxt, len(attempts)))
    for at, ms, code, error in attempts:
        db.execute("INSERT INTO webhook_attempt VALUES (?,?,?,?,?,?)", (str(uuid.uuid4()), did, at, ms, code, error))
delivery("batch.completed", "succeeded", "2026-11-24 10:00:00.000000", None,
         [("2026-11-24 10:00:01.000000", 120, 200, None)])
delivery("batch.failed", "pending", "2026-11-25 09:00:00.000000", "2026-11-25 09:36:00.000000",
         [("2026-11-25 09:06:00.000000", 10000, None, "No answer within 10 seconds."),
          ("2026-11-25 09:01:00.000000", 84, 500, "The receiver answered HTTP 500; a 2xx answer is success.")])
db.commit()
`;

function seedDeliveries(email) {
  const file = new URL(process.env.DATABASE_URL.replace('sqlite+aiosqlite:///', 'file:///')).pathname;
  execFileSync(path.resolve('.venv/bin/python'), ['-c', SEED, file, email]);
}

for (const width of [1280, 390]) {
  test(`the signing secret and recent deliveries at ${width} px`, async () => {
    const { page, errors, context } = await openPage(browser, { width });
    const email = await newUser(page, `webhooks${width}`);

    await page.goto('/settings');
    const section = page.getByRole('region', { name: 'Webhooks' });
    await section.getByText(/No webhook deliveries yet/).waitFor();
    assert.match(await section.getByLabel('Signing secret value').textContent(), /^whsec_•+$/);

    await section.getByRole('button', { name: 'Reveal' }).click();
    await section.getByText(/^whsec_[A-Za-z0-9_-]{32}$/).waitFor();
    const first = (await section.getByLabel('Signing secret value').textContent()).trim();
    await section.getByRole('button', { name: 'Rotate secret' }).click();
    const confirm = section.getByRole('group', { name: 'Rotate the signing secret?' });
    await section.screenshot({ path: screenshotPath(`webhooks-rotate-confirm-${width}`) });
    await confirm.getByRole('button', { name: 'Rotate' }).click();
    await section.getByText(/New signing secret made/).waitFor();
    await page.waitForFunction(
      (old) => {
        const shown = document.querySelector('[aria-label="Signing secret value"]')?.textContent ?? '';
        return /^whsec_[A-Za-z0-9_-]{32}$/.test(shown) && shown !== old;
      },
      first,
    );

    seedDeliveries(email);
    await page.reload();
    const list = section.getByRole('list', { name: 'Recent webhook deliveries' });
    await list.waitFor();
    const items = list.getByRole('listitem', { name: /^batch\./ });
    assert.equal(await items.count(), 2);
    assert.match(await items.nth(0).textContent(), /batch\.failed.*Retrying/);
    assert.match(await items.nth(0).textContent(), /No answer in 10,000 ms\. No answer within 10 seconds\./);
    assert.match(await items.nth(1).textContent(), /batch\.completed.*Delivered/);

    const { scrollWidth, culprits } = await overflow(page);
    assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide at ${width} px: ${culprits.join(', ')}`);
    assert.deepEqual(await a11yViolations(page), [], 'no serious accessibility violations');
    await section.screenshot({ path: screenshotPath(`webhooks-${width}`) });
    assert.deepEqual(errors, []);
    await context.close();
  });
}
