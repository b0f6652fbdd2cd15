// The prediction ledger: a confidence said before checking; "You predicted …, the
// model says …" with the gap once the question is settled (never before: predict first); the
// lesson's end lists every question's first prediction, confidence, model value and outcome
// with a calibration line; a later visit offers to practise the questions missed; a corrupt
// stored entry is dropped alone with a plain notice, and "Reset my progress" clears the ledger;
// two tabs keep each other's entries.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, openWithStorage, resetProgress, homeNotice, appReady, serverAndBrowser, tid, answer, shot, aheadClock, setClockAhead } from './harness.mjs';

const KEY = 'skblab.ledger.v1';
const SLUG = 'skb-layout';
const STEPS = (fs.readFileSync(new URL(`../../lessons/content/${SLUG}.md`, import.meta.url), 'utf8')
  .match(/^\[\[steps\]\]/gm) || []).length;
const END = `#/lesson/${SLUG}/${STEPS}`;
const ctx = serverAndBrowser();
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is (as a11y.test.mjs). */
async function axeSerious(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** A page whose localStorage holds `stored` under the ledger key before the app starts. */
function withStored(stored, options = {}) {
  return openWithStorage(ctx.browser, ctx.srv.base, { [KEY]: stored }, options);
}

/** Goes to step `n` of the lesson (a hash change: the page is not reloaded). */
async function step(page, n) {
  await page.evaluate((h) => { location.hash = h; }, `#/lesson/${SLUG}/${n}`);
  await page.waitForFunction((n) => document.querySelector('[data-testid="step-title"]')
    && new RegExp(`/${n}(\\?|$)`).test(location.hash), n);
}

test('a wrong then right answer with a confidence: the gap, the ledger row, and the practice offer on a later visit', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await aheadClock(page);
  await page.goto(`${ctx.srv.base}/#/lesson/${SLUG}/2`);
  await appReady(page);
  const sure = page.locator(tid('confidence'));
  assert.match(await sure.locator('legend').innerText(), /how sure are you/i);
  await page.focus(tid('confidence-guessing'));
  await page.keyboard.press('ArrowRight'); // a radio group: the arrow keys choose
  await page.keyboard.press('ArrowRight');
  assert.ok(await page.locator(tid('confidence-certain')).isChecked(), 'chosen by keyboard');
  let g = await answer(page, '100');
  assert.match(g, /not quite/i);
  assert.equal(await page.locator(tid('prediction')).count(), 0, 'no model value before the question is settled');
  g = await answer(page, '488');
  assert.match(g, /right/i);
  const said = await page.locator(tid('prediction')).innerText();
  assert.match(said, /You predicted 488 bytes \(certain\), the model says 488 bytes: no gap\./);
  assert.match(said, /Your first prediction was 100 bytes \(certain\), the model says 488 bytes: a gap of −388 bytes \(−79\.5 %\)\./);
  assert.equal(await page.locator(tid('confidence')).count(), 0, 'a settled question asks no confidence');
  await shot(page, 'ledger-question-desktop');

  await step(page, 5);
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('prediction'));
  assert.match(await page.locator(tid('prediction')).innerText(), /You did not predict; the model says 320 bytes\.\s*\(revealed\)/);

  await step(page, STEPS);
  // The last step has a question of its own: the ledger (model values) waits for it.
  await page.waitForSelector(tid('ledger-held'));
  assert.equal(await page.locator(tid('ledger')).count(), 0, 'no model values while the step\'s question is open');
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('ledger'));
  const row = await page.locator(tid('ledger-row-2')).innerText();
  assert.match(row, /^2\s.*\s100 bytes\s+certain\s+488 bytes\s+right after a retry$/s);
  assert.match(await page.locator(tid('ledger-row-5')).innerText(), /—\s+—\s+320 bytes\s+revealed$/);
  assert.match(await page.locator(tid('calibration')).innerText(), /“certain”: 0 of 1 right on the first try/);
  assert.equal(await page.locator(tid('practice-offer')).count(), 0, 'no practice offer in the same visit');
  await shot(page, 'ledger-end-desktop');
  const stored = JSON.parse(await page.evaluate((k) => localStorage.getItem(k), KEY));
  assert.deepEqual(stored[SLUG]['1'], { first: '100 bytes', confidence: 'certain', model: '488 bytes', outcome: 'after-retry' });

  // A later visit (the missed questions are due after 10 minutes: practice-spacing.test.mjs):
  // the offer, then a practice that asks afresh.
  await setClockAhead(page, 11 * 60_000);
  await page.reload();
  await appReady(page);
  await page.waitForSelector(tid('practice-offer'));
  assert.match(await page.locator(tid('practice-start')).innerText(), /Practise the 3 due/);
  await page.click(tid('practice-start'));
  await page.waitForFunction(() => /skb-layout\/2(\?|$)/.test(location.hash));
  await page.waitForSelector(tid('practice-bar'));
  assert.match(await page.locator(tid('practice-bar')).innerText(), /question 1 of 3/);
  assert.equal(await page.locator(tid('prediction')).count(), 0, 'asked afresh: nothing shown before the answer');
  assert.equal(await page.locator(tid('check')).isDisabled(), true, 'an empty answer');
  assert.match(await answer(page, '488'), /right/i);
  await page.click(tid('practice-next'));
  await page.waitForFunction(() => /skb-layout\/5(\?|$)/.test(location.hash));
  await page.click(tid('practice-next'));
  await page.waitForFunction((n) => new RegExp(`skb-layout/${n}(\\?|$)`).test(location.hash), STEPS);
  assert.equal(await page.locator(tid('ledger')).count(), 0, 'no ledger while practising');
  await page.click(tid('practice-done'));
  await page.waitForSelector(tid('ledger'));
  assert.match(await page.locator(tid('ledger-row-2')).innerText(), /right after a retry; practised: right, first try/);
  page.assertClean();
});

test('a corrupt ledger entry is dropped alone with a plain notice; reset clears the ledger', async () => {
  const good = { first: '400 bytes', confidence: 'fairly-sure', model: '488 bytes', outcome: 'revealed' };
  const page = await withStored(JSON.stringify({ [SLUG]: { 1: good, 4: { first: 3, outcome: 'sideways' } } }));
  await page.goto(`${ctx.srv.base}/${END}`);
  await appReady(page);
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('ledger'));
  const notice = await page.locator(tid('notice')).filter({ hasText: /ledger/ }).innerText();
  assert.match(notice, /1 entry of your saved prediction ledger could not be read and was dropped; the rest is kept/);
  assert.doesNotMatch(notice, /invalid|expected|variant|usize|column|line \d/, 'no parser jargon');
  assert.match(await page.locator(tid('ledger-row-2')).innerText(), /400 bytes\s+fairly sure\s+488 bytes\s+revealed/);
  assert.equal(await page.locator(tid('ledger-row-5')).count(), 0);
  assert.match(await page.locator(tid('practice-offer')).innerText(), /Practise the one due/);

  await page.goto(`${ctx.srv.base}/#/`);
  await resetProgress(page);
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), KEY), '{}');
  await page.goto(`${ctx.srv.base}/${END}`);
  await page.waitForSelector(tid('lesson-end'));
  assert.equal(await page.locator(tid('ledger')).count(), 0);
  page.assertClean();
});

test('"[]" as a saved ledger is named, not taken silently', async () => {
  const page = await withStored('[]');
  assert.match(await homeNotice(page, ctx.srv.base), /saved prediction ledger could not be read.*starting with an empty ledger/);
  page.assertClean();
});

const PRACTICE_KEY = 'skblab.practice.v1';


test('a practice survives a reload: the steps practised, the one answered, the place', async () => {
  const missed = { first: '', model: '488 bytes', outcome: 'revealed' };
  const page = await withStored(JSON.stringify({ [SLUG]: { 1: missed, 4: { ...missed, model: '320 bytes' } } }));
  await page.goto(`${ctx.srv.base}/#/lesson/${SLUG}/1`);
  await appReady(page);
  await page.click(tid('practice-start'));
  await page.waitForFunction(() => /skb-layout\/2(\?|$)/.test(location.hash));
  assert.match(await page.locator(tid('practice-bar')).innerText(), /question 1 of 2\. Predict again/);
  assert.match(await answer(page, '488'), /right/i);
  await page.waitForFunction(() => document.querySelector('[data-testid="practice-bar"]')?.dataset.done === '1');
  const stored = () => page.evaluate((k) => JSON.parse(localStorage.getItem(k)), PRACTICE_KEY);
  assert.deepEqual(await stored(), { version: 1, slug: SLUG, steps: [1, 4], done: [1] });

  await page.reload();
  await appReady(page);
  await page.waitForSelector(tid('practice-bar'));
  assert.match(location(page), /skb-layout\/2(\?|$)/, 'the same step');
  assert.match(await page.locator(tid('practice-bar')).innerText(), /question 1 of 2\. Answered \(1 of 2 so far\)/);
  assert.match(await page.locator(tid('grade')).innerText(), /answered this one before/, 'answered in this practice');
  assert.equal(await page.locator(tid('ledger')).count(), 0, 'no ledger while practising');
  await page.click(tid('practice-next'));
  await page.waitForFunction(() => /skb-layout\/5(\?|$)/.test(location.hash));
  assert.match(await page.locator(tid('practice-bar')).innerText(), /question 2 of 2\. Predict again/);
  assert.equal(await page.locator(tid('prediction')).count(), 0, 'asked afresh');

  // Reloaded before answering: still asked, and the way out is there.
  await page.reload();
  await appReady(page);
  await page.waitForSelector(tid('practice-bar'));
  assert.match(await page.locator(tid('practice-bar')).innerText(), /question 2 of 2\. Predict again/);
  assert.equal(await page.locator(tid('show-answer')).count(), 1, 'the question is open');
  await page.click(tid('show-answer'));
  await page.waitForFunction(() => document.querySelector('[data-testid="practice-bar"]')?.dataset.done === '2');
  await page.click(tid('practice-done'));
  await page.waitForFunction((n) => new RegExp(`skb-layout/${n}(\\?|$)`).test(location.hash)
    && !document.querySelector('[data-testid="practice-bar"]'), STEPS);
  assert.equal(await stored(), null, 'a finished practice is forgotten');
  await page.reload();
  await appReady(page);
  await page.waitForSelector(tid('step-title'));
  assert.equal(await page.locator(tid('practice-bar')).count(), 0);
  page.assertClean();
});

/** The page's URL hash. */
function location(page) {
  return new URL(page.url()).hash;
}

test('a corrupt stored practice is dropped with a plain notice', async () => {
  for (const bad of ['{"version":1,"slug":"skb-layout","steps":[1],"done":[7]}', '{"version":1,"slug":"skb-layout","steps":[1,12]}', 'nope']) {
    const page = await openWithStorage(ctx.browser, ctx.srv.base, { [PRACTICE_KEY]: bad });
    await page.goto(`${ctx.srv.base}/#/lesson/${SLUG}/1`);
    await appReady(page);
    await page.waitForSelector(tid('step-title'));
    const notice = await page.locator(tid('notice')).filter({ hasText: /practice/ }).innerText();
    assert.match(notice, /your practice in progress could not be read and was dropped/, bad);
    assert.doesNotMatch(notice, /invalid|expected|variant|usize|column|line \d/, 'no parser jargon');
    assert.equal(await page.locator(tid('practice-bar')).count(), 0, bad);
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), PRACTICE_KEY), null, 'not read again');
    page.assertClean();
    await page.close();
  }
});

for (const [name, options] of [['phone', { viewport: { width: 360, height: 740 } }], ['dark', { colorScheme: 'dark' }]]) {
  test(`screenshots: ${name}`, async () => {
    const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block', ...options });
    await aheadClock(page);
    await page.goto(`${ctx.srv.base}/#/lesson/${SLUG}/2`);
    await appReady(page);
    await page.check(tid('confidence-fairly-sure'));
    await page.locator(`${tid('question')} input[type="text"]`).fill('300');
    await page.locator(tid('question')).screenshot({ path: await shot(page, `ledger-question-before-${name}`) });
    await answer(page, '300');
    await answer(page, '488');
    await page.waitForSelector(tid('prediction'));
    await page.locator(tid('question')).screenshot({ path: await shot(page, `ledger-question-${name}`) });
    assert.deepEqual(await axeSerious(page), [], 'the question after checking');
    await step(page, STEPS);
    await page.click(tid('show-answer'));
    await page.waitForSelector(tid('ledger'));
    await page.locator(tid('lesson-end')).screenshot({ path: await shot(page, `ledger-end-${name}`) });
    assert.deepEqual(await axeSerious(page), [], 'the lesson end with its ledger');
    await setClockAhead(page, 11 * 60_000);
    await page.reload();
    await page.waitForSelector(tid('practice-offer'));
    await page.locator(tid('practice-offer')).screenshot({ path: await shot(page, `ledger-offer-${name}`) });
    assert.deepEqual(await axeSerious(page), [], 'the practice offer');
    page.assertClean();
  });
}

test('two tabs keep each other\'s ledger entries (each write goes on top of what is stored)', async () => {
  const a = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await a.goto(`${ctx.srv.base}/#/lesson/${SLUG}/2`);
  await appReady(a);
  // The second tab opens before the first answers: its ledger in memory is empty.
  const b = await a.context().newPage();
  await b.goto(`${ctx.srv.base}/#/lesson/${SLUG}/5`);
  await appReady(b);
  assert.match(await answer(a, '488'), /right/i);
  await b.click(tid('show-answer'));
  await b.waitForSelector(tid('prediction'));
  await b.waitForFunction(([k, slug]) => Object.keys(JSON.parse(localStorage.getItem(k) || '{}')[slug] || {}).length >= 2,
    [KEY, SLUG], { timeout: 5000 }).catch(() => {});
  const stored = await a.evaluate((k) => JSON.parse(localStorage.getItem(k) || '{}'), KEY);
  assert.deepEqual(Object.keys(stored[SLUG] || {}).sort(), ['1', '4'], JSON.stringify(stored));
  assert.equal(stored[SLUG]['1'].outcome, 'first-try');
  assert.equal(stored[SLUG]['4'].outcome, 'revealed');
  a.assertClean();
  await b.close();
  await a.close();
});
