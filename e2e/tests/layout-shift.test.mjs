// Layout shift while a page opens: every playground (`#/play/<experiment>`) and every lesson's
// first step, from a fresh load until its run is done and its views are drawn, scored as the
// browser's Cumulative Layout Shift (the largest session window of `layout-shift` entries
// without recent input: shifts less than 1 s apart, at most 5 s long). Each must stay at or
// below 0.1 (web.dev's "good"); the scores are printed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, appReady, serverAndBrowser, playableLessons } from './harness.mjs';
import { cls, watchLayoutShift } from './layout-shift.mjs';

const ctx = serverAndBrowser();
const LIMIT = 0.1;

/** The CLS of `hash` opened in a fresh page, once its views have settled. */
async function scoreOf(hash) {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await watchLayoutShift(page);
  await page.goto(`${ctx.srv.base}/${hash}`);
  await appReady(page);
  await page.waitForFunction(() => {
    const col = document.querySelector('.col-views');
    return col?.dataset.run === 'done' && !col.querySelector('.view-pending');
  }, null, { timeout: 60000 });
  await page.waitForTimeout(1200);
  const score = await cls(page);
  page.assertClean();
  await page.context().close();
  return score;
}

test('every playground and every lesson\'s first step open with a CLS of at most 0.1', async () => {
  const home = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await home.goto(`${ctx.srv.base}/#/play`);
  await home.waitForSelector('a[href^="#/play/"]');
  const plays = [...new Set(await home.$$eval('a[href^="#/play/"]', (as) => as.map((a) => a.getAttribute('href').split('?')[0])))];
  await home.context().close();
  const lessons = (await playableLessons(ctx.browser, ctx.srv.base)).map((s) => `#/lesson/${s}/1`);
  assert.ok(plays.length >= 7 && lessons.length >= 7, `${plays.length} playgrounds, ${lessons.length} lessons`);
  const over = [];
  for (const hash of [...plays, ...lessons]) {
    const score = await scoreOf(hash);
    console.log(`CLS ${score.toFixed(3)}  ${hash}`);
    if (score > LIMIT) over.push(`${hash}: ${score.toFixed(3)}`);
  }
  assert.deepEqual(over, [], `CLS above ${LIMIT}`);
});
