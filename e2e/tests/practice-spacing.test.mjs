// Practice spaced in time (web/src/review.rs, Leitner boxes): a question missed — even once
// and left without a right answer — comes back after 10 minutes, one answered right on the
// first try after 5 hours, then a day; nothing is due right after answering. The home page says
// how many questions are due, with a link to their lesson, and nothing when none is. The page's
// clock is moved forward by the test (harness.mjs `aheadClock`); old stored state loads.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, openWithStorage, appReady, serverAndBrowser, tid, answer, aheadClock, setClockAhead } from './harness.mjs';

const SLUG = 'skb-layout';
const MIN = 60_000;
const HOUR = 60 * MIN;
const ctx = serverAndBrowser();

/** Opens `hash` (a load: the clock set last applies) and waits for the app. */
async function open(page, hash) {
  await page.goto('about:blank');
  await page.goto(`${ctx.srv.base}/${hash}`);
  await appReady(page);
  await page.waitForTimeout(300);
}

const offer = (page) => page.locator(tid('practice-offer'));
const dueLine = (page) => page.locator(tid('due-line'));

test('missed and left: due after 10 min; right first: after 5 h, then a day; the home page says so', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await aheadClock(page);
  await open(page, `#/lesson/${SLUG}/2`);
  // Step 2 missed once and left; step 5 right on the first try.
  assert.match(await answer(page, '100'), /not quite/i);
  await page.evaluate((h) => { location.hash = h; }, `#/lesson/${SLUG}/5`);
  await page.waitForFunction(() => /\/5(\?|$)/.test(location.hash) && document.querySelector('[data-testid="check"]'));
  assert.match(await answer(page, '320'), /right/i);

  // Right after: nothing is due, on the lesson's first step or the home page.
  await open(page, `#/lesson/${SLUG}/1`);
  assert.equal(await offer(page).count(), 0, 'nothing due right after');
  await open(page, '#/');
  assert.equal(await dueLine(page).count(), 0, 'no due line when nothing is due');

  // 9 minutes on: still nothing; 11 minutes on: the one missed and left.
  await setClockAhead(page, 9 * MIN);
  await open(page, `#/lesson/${SLUG}/1`);
  assert.equal(await offer(page).count(), 0, 'not due before its 10 minutes');
  await setClockAhead(page, 11 * MIN);
  await open(page, `#/lesson/${SLUG}/1`);
  assert.match(await offer(page).innerText(), /One of this lesson's questions is due for practice \(step 2\)/);
  assert.match(await page.locator(tid('practice-start')).innerText(), /Practise the one due/);
  await open(page, '#/');
  assert.match(await dueLine(page).innerText(), /^1 question due for practice: .+ \(1\)\.$/);
  assert.equal(await dueLine(page).locator('a').getAttribute('href'), `#/lesson/${SLUG}/1`);

  // 5 hours on: the right one too.
  await setClockAhead(page, 5 * HOUR + MIN);
  await open(page, '#/');
  assert.match(await dueLine(page).innerText(), /^2 questions due for practice: .+ \(2\)\.$/);
  await page.click(`${tid('due-line')} a`);
  await page.waitForSelector(tid('practice-offer'));
  assert.match(await offer(page).innerText(), /2 of this lesson's questions are due for practice \(step 2, step 5\)/);

  // Practised right: step 2 moves up to 5 h, step 5 to a day; nothing due now.
  await page.click(tid('practice-start'));
  await page.waitForFunction(() => /skb-layout\/2(\?|$)/.test(location.hash));
  assert.match(await answer(page, '488'), /right/i);
  await page.click(tid('practice-next'));
  await page.waitForFunction(() => /skb-layout\/5(\?|$)/.test(location.hash));
  assert.match(await answer(page, '320'), /right/i);
  await page.click(tid('practice-done'));
  const cards = await page.evaluate(() => JSON.parse(localStorage.getItem('skblab.review.v1')));
  assert.deepEqual([cards[SLUG]['1'].box, cards[SLUG]['4'].box], [1, 2], 'one box up each');
  const now = await page.evaluate(() => Date.now());
  assert.ok(Math.abs(cards[SLUG]['1'].due - now - 5 * HOUR) < MIN, 'step 2: back in 5 h');
  assert.ok(Math.abs(cards[SLUG]['4'].due - now - 24 * HOUR) < MIN, 'step 5: back in a day');
  await open(page, '#/');
  assert.equal(await dueLine(page).count(), 0, 'nothing due right after practising');
  await setClockAhead(page, 5 * HOUR + MIN + 24 * HOUR + MIN);
  await open(page, '#/');
  assert.match(await dueLine(page).innerText(), /^2 questions due/);
  page.assertClean();
});

test('old stored state loads: a ledger without a schedule is due at once, an unreadable schedule is ignored', async () => {
  const missed = { first: '', model: '488 bytes', outcome: 'revealed' };
  const page = await openWithStorage(ctx.browser, ctx.srv.base, {
    'skblab.ledger.v1': JSON.stringify({ [SLUG]: { 1: missed } }),
    'skblab.review.v1': '{not json',
  });
  // (No about:blank in between here: the seeding script reads sessionStorage on every load.)
  await page.goto(`${ctx.srv.base}/#/`);
  await appReady(page);
  await page.waitForSelector(tid('due-line'));
  assert.match(await dueLine(page).innerText(), /^1 question due for practice/);
  await page.click(`${tid('due-line')} a`);
  await page.waitForSelector(tid('practice-offer'));
  assert.match(await offer(page).innerText(), /\(step 2\)/);
  page.assertClean();
});
