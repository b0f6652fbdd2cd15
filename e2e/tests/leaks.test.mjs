// Predict before you see, checked on the page rather than declared: on every step of every
// playable lesson whose question asks for a number, nothing a learner can read before answering
// may give the number away. "Readable" is every text node of <main> outside what is veiled,
// inert or hidden (step text, views, results, notices) plus every aria-label and title there
// (a canvas chart's label, a tooltip) and the document's title — but not the parameter panel's
// static help (it describes each knob's range for every step alike), the question's own form
// (its prompt and choices) nor the verdict itself.
// "Gives away" is, with the answer's unit read off the verdict ("the model says 35.06 Gbit/s"):
//  - the answer as the verdict writes it, anywhere, as a number on its own (not part of a longer
//    one, of a name like x86_64 or order3, or of a version like Linux 5.16), when it has two or
//    more significant digits;
//  - a quantity of the same kind, written with its unit, within the question's own tolerance
//    (the page's data-tolerance-pct) once converted: 35062 Mbit/s gives away 35.06 Gbit/s,
//    12.5 % gives away 12.23 % at ±10 %, 0.1098 (a bare share) gives away 10.98 %.
//  - for an answer in a unit of its own (levels, frees, skbs): a number followed by that word
//    (singular or plural, one word between allowed: "over 2 nesting levels") within the
//    tolerance, one-digit numbers included.
// A number with another unit, or none, is not compared by value: perf reports and /proc views
// are full of unrelated numbers that a wide tolerance would match by chance. The same check
// runs on the step's pre-rendered first view (dist/first/), which a shared link shows before
// the app has loaded. The lessons' views
// checker (lessons/tests/views.rs) covers what a view declares; this catches what it cannot
// see: custom views, text views, the step's own prose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, playableLessons } from './harness.mjs';
import { givenAway, readable } from './leak-rule.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

/** The number and unit the verdict reveals ("the model says 46.2 Gbit/s."), or null for a choice. */
const revealed = (text) => {
  const m = /model says ([-+]?[\d,]*\.?\d+)\s*([^\s.]*)/i.exec(text);
  return m ? { value: m[1], unit: m[2] || '' } : null;
};

test('no question\'s answer is readable before it is settled', async () => {
  const slugs = await playableLessons(browser, srv.base);
  const leaks = []; let checked = 0;
  for (const slug of slugs) {
    const page = await openPage(browser, srv.base, { serviceWorkers: 'block' });
    await page.goto(`${srv.base}/#/lesson/${slug}/1`);
    await page.waitForSelector(tid('step-title'));
    const steps = await page.$$eval('[data-testid^="step-"]', (els) => els.filter((e) => /^step-\d+$/.test(e.dataset.testid)).length);
    for (let step = 1; step <= steps; step++) {
      await page.goto(`${srv.base}/#/lesson/${slug}/${step}`);
      await page.waitForFunction((n) => document.querySelector(`[data-testid="step-${n}"]`)?.getAttribute('aria-current') === 'step', step);
      if (await page.locator(tid('show-answer')).count() === 0) continue;
      // Let the step's runs finish (a sweep streams its points; the question waits for them).
      await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="sweep-progress"]')]
        .every((bar) => bar.getAttribute('aria-valuenow') === '100'), null, { timeout: 60000 });
      await page.waitForTimeout(400);
      const before = await page.evaluate(readable);
      const copy = await page.evaluate(async (url) => (await fetch(url)).text(), `${srv.base}/first/${slug}-${step}-wide-light.html`);
      const beforeCopy = await page.evaluate(readable, copy);
      const tolerance = Number(await page.locator(tid('question')).getAttribute('data-tolerance-pct'));
      await page.click(tid('show-answer'));
      await page.waitForFunction(() => /model says/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''), null, { timeout: 60000 });
      const answer = revealed(await page.locator(tid('grade')).innerText());
      if (answer === null) continue;
      checked++;
      for (const hit of givenAway(before, answer, tolerance)) {
        leaks.push(`${slug} step ${step}: the answer ${answer.value} ${answer.unit} (±${tolerance} %) readable before answering: ${hit}`);
      }
      for (const hit of givenAway(beforeCopy, answer, tolerance)) {
        leaks.push(`${slug} step ${step}: the answer ${answer.value} ${answer.unit} (±${tolerance} %) readable in the pre-rendered copy: ${hit}`);
      }
    }
    page.assertClean();
    await page.close();
  }
  console.info(`[leaks] ${checked} numeric questions checked over ${slugs.length} lessons`);
  assert.ok(checked >= 20, `only ${checked} numeric questions were checked`);
  assert.deepEqual(leaks, []);
});

test('the leak rule itself: units of one kind, tolerance, one-digit numbers, versions', () => {
  const gbps = (value) => ({ value, unit: 'Gbit/s' });
  // 590086 Mbit/s in a header gives away 589.56 Gbit/s at ±5 %; 823919 Mbit/s gives 837.8 at ±5 %.
  assert.equal(givenAway('order 3: 590086 Mbit/s', gbps('589.56'), 5).length, 1);
  assert.equal(givenAway('1 flows, order 0: 823919 Mbit/s', gbps('837.8'), 5).length, 1);
  // The seed's 12.5 % gives away a gain of 12.23 % at ±10 %; a bare share 0.1098 gives 10.98 %.
  assert.equal(givenAway('about 10 % against 12.5 %', { value: '12.23', unit: '%' }, 10).length, 1);
  assert.equal(givenAway('a share of 0.1098 of all cycles', { value: '10.98', unit: '%' }, 10).length, 1);
  // The answer as written, anywhere; but a number of another unit, or none, is not compared by value.
  assert.equal(givenAway('roughly 247 levels', { value: '247', unit: 'levels' }, 5).length, 1);
  // An answer in a unit word of its own: that word, within the tolerance, one digit included.
  assert.equal(givenAway('roughly 249 levels', { value: '247', unit: 'levels' }, 5).length, 1);
  assert.equal(givenAway('roughly 270 levels', { value: '247', unit: 'levels' }, 5).length, 0);
  assert.equal(givenAway('over 2 nesting levels', { value: '2', unit: 'levels' }, 0).length, 1);
  assert.equal(givenAway('2 flows, 4 levels', { value: '2', unit: 'levels' }, 0).length, 0);
  // A tab or a no-break space before the unit is still the unit.
  assert.equal(givenAway('free work on A: 92.8\t%', { value: '92.8', unit: '%' }, 10).length, 1);
  assert.equal(givenAway('free work on A: 91.1\u00a0%', { value: '92.8', unit: '%' }, 10).length, 1);
  assert.equal(givenAway('Why TCP wanted 32 KiB', gbps('35.06'), 10).length, 0);
  assert.equal(givenAway('0.92% netserver [k] skb_copy', gbps('898.70'), 15).length, 0);
  assert.equal(givenAway('10.97% ksoftirqd [k] queued_spin_lock_slowpath', { value: '1014.87', unit: 'kpps' }, 10).length, 0);
  // One-digit numbers and zero: only with the answer's unit and equal.
  assert.equal(givenAway('CPU 0, pfn 0, skb 0', { value: '0', unit: 'frees' }, 0).length, 0);
  assert.equal(givenAway('about 4 % per request', { value: '4', unit: '%' }, 15).length, 1);
  // Versions and names are not numbers of the page's results.
  assert.equal(givenAway('Linux 5.16 removed it; x86_64 and order3', { value: '5.16', unit: '' }, 10).length, 0);
});
