// Predict before you see, checked on the page rather than declared: on every step of every
// playable lesson whose question asks for a number, nothing a learner can read before answering
// may give the number away. "Readable" is every text node of <main> outside what is veiled,
// inert or hidden (step text, views, results, notices) plus every aria-label and title there
// (a canvas chart's label, a tooltip) and the document's title — but not the parameter panel's
// static help (it describes each knob's range for every step alike) nor the verdict itself.
// "Gives away" is any number within the question's own tolerance (the page's
// data-tolerance-pct) of the value the verdict then reveals, in any unit of the same kind the
// page uses: the number as written, ×/÷ 1000 (Mbit/s ↔ Gbit/s, bytes ↔ KB) and ×/÷ 100
// (% ↔ fraction). Numbers of one significant digit ("4 KiB", "step 3") match only when equal to
// the revealed value, and so do all numbers for a tolerance of 100 % or more (its window
// reaches zero). The lessons' views checker (lessons/tests/views.rs) covers what a view
// declares; this catches what it cannot see: custom views, text views, the step's own prose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, playableLessons } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

/** What a reader can see before answering, as one string (see the header). */
const readable = () => {
  const main = document.querySelector('main');
  const hidden = (el) => !el || el.closest(
    '.veil-content, [inert], [hidden], [aria-hidden="true"], [data-testid="verdict"], [data-testid="grade"], [data-testid="param-panel"]');
  const parts = [document.title];
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!hidden(n.parentElement)) parts.push(n.textContent);
  }
  for (const el of main.querySelectorAll('[aria-label], [title]')) {
    if (!hidden(el)) parts.push(el.getAttribute('aria-label') || '', el.getAttribute('title') || '');
  }
  return parts.join(' | ').replace(/\s+/g, ' ');
};

/** The number the verdict reveals ("the model says 46.2 Gbit/s."), or null for a choice. */
const revealed = (text) => {
  const m = /model says ([-+]?[\d,]*\.?\d+)/i.exec(text);
  return m ? m[1] : null;
};

const parse = (s) => Number(s.replace(/,/g, '').replace('−', '-'));
const significant = (s) => s.replace(/[^\d]/g, '').replace(/^0+/, '').replace(/0+$/, '').length;

/**
 * Every number in `text` that gives `answer` away at `tolerancePct` (see the header), with its
 * context. A number is on its own: not part of a longer one, of a name (x86_64, order3) or of
 * a version (Linux 5.16, v2).
 */
export const givenAway = (text, answer, tolerancePct) => {
  const a = parse(answer);
  const tol = Math.abs(a) * tolerancePct / 100;
  const hits = [];
  const re = /(?<![\w.,\/-])[-−]?\d[\d,]*(?:\.\d+)?(?![\w]|[.,]\d)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const before = text.slice(Math.max(0, m.index - 8), m.index);
    if (/(Linux|kernel|v)\s?$/i.test(before)) continue;
    const x = parse(m[0]);
    const exactOnly = significant(m[0]) < 2 || tolerancePct >= 100;
    const near = exactOnly
      ? x === a
      : [1, 1000, 1 / 1000, 100, 1 / 100].some((k) => Math.abs(x * k - a) <= tol);
    if (near) hits.push(`"${m[0]}" …${text.slice(Math.max(0, m.index - 70), m.index + 30)}…`);
  }
  return hits;
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
      const tolerance = Number(await page.locator(tid('question')).getAttribute('data-tolerance-pct'));
      await page.click(tid('show-answer'));
      await page.waitForFunction(() => /model says/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''), null, { timeout: 60000 });
      const answer = revealed(await page.locator(tid('grade')).innerText());
      if (answer === null) continue;
      checked++;
      for (const hit of givenAway(before, answer, tolerance)) {
        leaks.push(`${slug} step ${step}: the answer ${answer} (±${tolerance} %) readable before answering: ${hit}`);
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
  // 590086 Mbit/s in a header gives away 589.56 Gbit/s at ±5 %; 823919 gives 837.8 at ±5 %.
  assert.equal(givenAway('order 3: 590086 Mbit/s', '589.56', 5).length, 1);
  assert.equal(givenAway('1 flows, order 0: 823919 Mbit/s', '837.8', 5).length, 1);
  // A share as a fraction gives away the percentage.
  assert.equal(givenAway('a share of 0.1098 of all cycles', '10.98', 10).length, 1);
  // Outside the tolerance, or a one-digit number not equal to it: no leak.
  assert.equal(givenAway('about 29 pages', '32', 5).length, 0);
  assert.equal(givenAway('4 KiB sends', '4.6', 15).length, 0);
  assert.equal(givenAway('about 4 per request', '4', 15).length, 1);
  // Versions and names are not numbers of the page's results.
  assert.equal(givenAway('Linux 5.16 removed it; x86_64 and order3', '5.2', 10).length, 0);
  // A tolerance reaching zero: only the exact value.
  assert.equal(givenAway('0.5 % and 0.3 %', '0.3', 100).length, 1);
});
