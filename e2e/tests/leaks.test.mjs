// Predict before you see, checked on the page rather than declared: on every step of every
// playable lesson whose question asks for a number, the text a learner can read before answering
// (step text, views, results, notices: everything in <main> but what is veiled and the parameter
// panel's static help) must not contain the number the question then reveals, as the verdict
// writes it. The lessons' views checker
// (lessons/tests/views.rs) covers what a view declares; this catches what it cannot see: custom
// views, text views, the step's own prose. Canvas charts carry no text: the checker covers them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, playableLessons } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

/** The text of <main> a reader can see: without veiled views and without the verdict. */
const readable = () => {
  const main = document.querySelector('main').cloneNode(true);
  for (const el of main.querySelectorAll('.veil-content, [data-testid="verdict"], [data-testid="grade"]')) el.remove();
  // The parameter panel: its values are inputs (no text) and its help lines describe each
  // knob's range for every step alike ("16 or 64 KiB pages"), not a step's result.
  for (const el of main.querySelectorAll('[data-testid="param-panel"]')) el.remove();
  return main.textContent.replace(/\s+/g, ' ');
};

/** The number the verdict reveals ("the model says 46.2 Gbit/s."), or null for a choice. */
const revealed = (text) => {
  const m = /model says ([-+]?[\d,]*\.?\d+)/i.exec(text);
  return m ? m[1] : null;
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
      await page.click(tid('show-answer'));
      await page.waitForFunction(() => /model says/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''), null, { timeout: 60000 });
      const answer = revealed(await page.locator(tid('grade')).innerText());
      if (answer === null) continue;
      checked++;
      // Only numbers with two or more significant digits: a lone "8" is everywhere.
      if (answer.replace(/[^\d]/g, '').replace(/^0+/, '').length < 2) continue;
      const escaped = answer.replace(/[.+]/g, (c) => `\\${c}`);
      // A number on its own: not part of a longer one, nor of a name (x86_64, order3).
      const at = new RegExp(`(?<![\\w.,])${escaped}(?!\\w|[.,]\\d)`).exec(before);
      if (at) leaks.push(`${slug} step ${step}: "${answer}" readable before answering: …${before.slice(Math.max(0, at.index - 80), at.index + 40)}…`);
    }
    page.assertClean();
    await page.close();
  }
  console.info(`[leaks] ${checked} numeric questions checked over ${slugs.length} lessons`);
  assert.ok(checked >= 20, `only ${checked} numeric questions were checked`);
  assert.deepEqual(leaks, []);
});
