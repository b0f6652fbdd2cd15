// End-to-end tests of the validation page (#/validation) and the verdict badges: the page lists
// every seed table of the committed snapshot with its verdict badge (and explanation), degrees
// of freedom and MAPE figures; the Reproduce page links it and shows a verdict strip above a
// seed table; a lesson's seed table carries the same strip; axe finds no serious or critical
// violation (light and dark); screenshots at desktop, 360 px phone and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SNAPSHOT = JSON.parse(fs.readFileSync(new URL('../../core/src/validate/snapshot.json', import.meta.url), 'utf8'));

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

async function openValidation(options = {}) {
  const page = await openPage(browser, srv.base, options);
  await page.goto(`${srv.base}/#/validation`);
  await appReady(page);
  await page.waitForSelector(tid('validation-table'));
  return page;
}

test('validation page: every snapshot table with its verdict, degrees of freedom and figures', async () => {
  const page = await openValidation();
  const rows = await page.locator(`${tid('validation-table')} tbody tr`).count();
  assert.equal(rows, SNAPSHOT.tables.length);
  for (const t of SNAPSHOT.tables) {
    const card = page.locator(tid(`validation-${t.table}`));
    const text = await card.innerText();
    assert.match(text, new RegExp(t.verdict));
    assert.match(text, new RegExp(`${t.targets} independent numbers, ${t.fitted} fitted`));
    for (const c of t.fitted_constants) assert.ok(text.includes(c), `${t.table}: ${c}`);
    for (const g of t.gaps) assert.ok(text.includes(g), `${t.table}: gap ${g}`);
    const badge = card.locator(tid('verdict-badge')).first();
    assert.ok((await badge.getAttribute('title')).length > 20, 'the badge explains itself');
    assert.equal(await card.locator('.validation-errors li').count(), t.errors.length);
    assert.equal(await card.locator(tid('held-out')).count(), t.errors.filter((e) => /held[- ]out/i.test(e)).length);
  }
  assert.match(await page.locator(tid('validation-budget')).innerText(), /^budget: /);
  assert.equal(await page.locator(tid('validation-stale')).count(), 0, 'the snapshot is in step with the model');
  await shot(page, 'validation');
  page.assertClean();
  await page.close();
});

test('reproduce page and a lesson seed table: verdict strip and a link to the validation page', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/reproduce`);
  await appReady(page);
  const strip = page.locator(`${tid('reproduce-skb-layout')} ${tid('verdict-strip')}`);
  await strip.waitFor();
  assert.match(await strip.innerText(), /arithmetic.*seed001-layout: 4 numbers, 0 fitted/s);
  // Every table's fitted count is the Validation page's and the home page's (the snapshot's:
  // fitted to it plus counted as fitted), not only the constants fitted to it.
  for (const t of SNAPSHOT.tables) {
    const tableStrip = page.locator(`${tid(`reproduce-${t.experiment}`)} ${tid('verdict-strip')}`);
    await tableStrip.waitFor();
    const numbers = t.targets === 1 ? '1 number' : `${t.targets} numbers`;
    assert.ok((await tableStrip.innerText()).includes(`${t.table}: ${numbers}, ${t.fitted} fitted`), `${t.table}: ${await tableStrip.innerText()}`);
  }
  await page.click(tid('reproduce-validation-link'));
  await page.waitForSelector(tid('validation-page'));
  assert.equal(new URL(page.url()).hash, '#/validation');
  // A lesson step whose views include the seed comparison shows the same strip.
  await page.goto(`${srv.base}/#/play/skb-layout`);
  await appReady(page);
  const compare = page.locator(tid('verdict-strip'));
  if (await compare.count()) {
    await page.locator(tid('verdict-link')).first().click();
    await page.waitForSelector(tid('validation-page'));
  }
  page.assertClean();
  await page.close();
});

for (const scheme of ['light', 'dark']) {
  test(`validation page: no serious or critical axe violation (${scheme})`, async () => {
    const page = await openValidation({ colorScheme: scheme });
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
    });
    assert.deepEqual(violations, [], violations.join('\n'));
    if (scheme === 'dark') await shot(page, 'validation-dark');
    page.assertClean();
    await page.close();
  });
}

test('validation page at 360 px: no horizontal page scroll', async () => {
  const page = await openValidation({ viewport: { width: 360, height: 800 }, isMobile: true, hasTouch: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px`);
  await shot(page, 'validation-phone');
  await page.goto(`${srv.base}/#/reproduce`);
  await page.locator(tid('verdict-strip')).first().waitFor();
  await shot(page, 'reproduce-verdicts-phone');
  page.assertClean();
  await page.close();
});
