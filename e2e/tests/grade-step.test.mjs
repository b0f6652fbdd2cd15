//! Grade against the step: a question is graded at the step's own
//! parameters, the ones its prompt and explanation speak of, even after the learner moved a
//! knob — the asked one (frag_bytes back to 16, as skb-layout/2's text invites) or an
//! unrelated one — and the answer the page reveals is the same either way.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, appReady, serverAndBrowser, tid, answer } from './harness.mjs';

const ctx = serverAndBrowser();

test('skb-layout/2 is graded at its own 24-byte frags after frag_bytes is set back to 16', async () => {
  // A fresh context each time: a right answer is remembered (progress in localStorage).
  for (const moved of ['frag_bytes=16', 'mtu=9000', 'frag_bytes=16&mtu=700']) {
    const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
    await page.goto(`${ctx.srv.base}/#/lesson/skb-layout/2?${moved}`);
    await appReady(page);
    await page.waitForSelector(tid('question'));
    const g = await answer(page, '488');
    assert.match(g, /right.*model says 488 bytes/is, `${moved}: ${g}`);
    // The explanation's {answer} is filled with the grade's own value and unit.
    assert.match(g, /56 \+ 18 × 24 = 488 bytes —/, 'the explanation and the grade agree');
    assert.doesNotMatch(g, /\{answer\}/, 'no placeholder left on the page');
    page.assertClean();
    await page.context().close();
  }
  // And the answer it reveals is the step's, with the knob moved.
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await page.goto(`${ctx.srv.base}/#/lesson/skb-layout/2?frag_bytes=16`);
  await appReady(page);
  await page.click(tid('show-answer'));
  await page.waitForFunction(() => /model says/.test(document.querySelector('[data-testid="grade"]')?.innerText || ''));
  assert.match(await page.locator(tid('grade')).innerText(), /model says 488 bytes/);
  page.assertClean();
});
