//! The home page and saved progress: the primary action is the first
//! lesson; "Reset my progress" asks once more, then forgets everything; saved progress with a
//! corrupt entry keeps the rest and says in plain words how many entries it dropped (no parser
//! jargon), and `[]` is not taken silently for empty progress.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, openWithStorage, resetProgress, homeNotice, appReady, serverAndBrowser, tid } from './harness.mjs';

const KEY = 'skblab.progress.v1';
const ctx = serverAndBrowser();

/** A page whose localStorage holds `stored` under the progress key before the app starts. */
function withStored(stored) {
  return openWithStorage(ctx.browser, ctx.srv.base, { [KEY]: stored });
}

test('the home page leads with the first lesson', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await page.goto(`${ctx.srv.base}/#/`);
  await appReady(page);
  const primary = page.locator('.hero .btn-primary');
  assert.equal(await primary.count(), 1);
  assert.match(await primary.getAttribute('href'), /^#\/lesson\/[a-z0-9-]+\/1$/);
  assert.match(await primary.innerText(), /lesson 1/i);
  const cards = await page.$$eval('.cards a[href^="#/lesson/"]', (as) => as.map((a) => a.getAttribute('href')));
  assert.equal(await primary.getAttribute('href'), cards[0], 'the first card of the course');
  page.assertClean();
});

test('a corrupt entry of saved progress is dropped alone, with a plain notice; reset forgets all', async () => {
  const page = await withStored(JSON.stringify({ visited: { 'skb-layout': [0, -1, 1] }, correct: { 'skb-layout': ['x'] } }));
  await page.goto(`${ctx.srv.base}/#/`);
  await appReady(page);
  await page.waitForSelector(tid('notice'));
  const notice = await page.locator(tid('notice')).innerText();
  assert.match(notice, /2 entries of your saved progress could not be read and were dropped; the rest is kept/);
  assert.doesNotMatch(notice, /invalid|expected|usize|column|line \d/, 'no parser jargon');
  assert.match(await page.locator(tid('progress-skb-layout')).innerText(), /\b2 \/ \d+ steps visited/);

  await resetProgress(page);
  assert.match(await page.locator(tid('progress-skb-layout')).innerText(), /\b0 \/ \d+ steps visited/);
  const stored = JSON.parse(await page.evaluate((k) => localStorage.getItem(k), KEY));
  assert.deepEqual(stored, { visited: {}, correct: {} });
  await page.reload();
  await appReady(page);
  assert.match(await page.locator(tid('progress-skb-layout')).innerText(), /\b0 \/ \d+ steps visited/);
  assert.ok(await page.locator(tid('reset-progress')).isDisabled(), 'nothing left to reset');
  page.assertClean();
});

test('"[]" as saved progress is named, not taken silently', async () => {
  const page = await withStored('[]');
  assert.match(await homeNotice(page, ctx.srv.base), /saved progress could not be read.*starting with no progress/);
  page.assertClean();
});

test('two tabs keep each other\'s progress, a newer format\'s field is kept, a full store says so', async () => {
  const base = ctx.srv.base;
  const a = await openPage(ctx.browser, base, { serviceWorkers: 'block' });
  await a.goto(`${base}/#/`);
  await a.evaluate((k) => localStorage.setItem(k, JSON.stringify({ visited: {}, correct: {}, v9: { kept: 1 } })), KEY);
  await a.goto(`${base}/#/lesson/skb-layout/1`);
  await a.reload();
  await appReady(a);
  // A second tab, opened before the first one moves on: each writes on top of the other.
  const b = await a.context().newPage();
  await b.goto(`${base}/#/lesson/skb-layout/2`);
  await appReady(b);
  await a.evaluate(() => { location.hash = '#/lesson/skb-layout/3'; });
  const stored = () => a.evaluate((k) => JSON.parse(localStorage.getItem(k) || '{}'), KEY);
  for (let i = 0; i < 50 && JSON.stringify((await stored()).visited?.['skb-layout']) !== '[0,1,2]'; i++) await a.waitForTimeout(100);
  const s = await stored();
  assert.deepEqual(s.visited['skb-layout'], [0, 1, 2], JSON.stringify(s));
  assert.deepEqual(s.v9, { kept: 1 }, 'a newer version\'s field is written back');
  // Tab B heard tab A (the storage event): its home page counts all three.
  await b.evaluate(() => { location.hash = '#/'; });
  await b.waitForFunction(() => /\b3 \/ \d+ steps visited/.test(document.querySelector('[data-testid="progress-skb-layout"]')?.innerText || ''));
  // A full store: the step is kept in the tab, and the page says it could not be saved.
  // Filled to the last byte: halving sizes down to one character, then the last value grown
  // one character at a time (a new key costs its name too).
  await a.evaluate(() => {
    let i = 0, last = null;
    for (let size = 1 << 20; size >= 1; size >>= 1) {
      for (;;) {
        try { localStorage.setItem(`fill${i}`, 'x'.repeat(size)); last = `fill${i++}`; } catch { break; }
      }
    }
    let v = localStorage.getItem(last);
    try { for (;;) { v += 'x'; localStorage.setItem(last, v); } } catch { /* full to the byte */ }
  });
  await a.evaluate(() => { location.hash = '#/lesson/skb-layout/4'; });
  await a.waitForSelector(tid('notice'));
  assert.match(await a.locator(tid('notice')).innerText(), /could not be saved: this browser's storage for the site is full/);
  await a.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('fill')) localStorage.removeItem(k); });
  a.assertClean();
  await b.close();
});
