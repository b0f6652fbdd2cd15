// End-to-end tests of high-order-alloc: the 60-run sweep runs in the Web Worker, the progress
// bar reaches 100 %, the chart fills point by point, the page stays responsive, and the trace
// player, perf report and reproduce page render. Timings are printed (benchmarks, not asserts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;
const progress = (page) => page.locator(tid('sweep-progress')).first().getAttribute('aria-valuenow');

/** Waits for the sweep to finish (progress 100 % and the timing line shown). */
async function sweepDone(page) {
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="sweep-progress"]');
    return bar?.getAttribute('aria-valuenow') === '100' && document.querySelector('[data-testid="sweep-time"]');
  }, null, { timeout: 60000 });
}

test('playground: the sweep runs in the worker and fills the chart point by point', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/play/high-order-alloc`);
  await appReady(page);
  await page.waitForSelector(tid('chart-chart'));
  const blank = await page.locator(tid('chart-chart')).evaluate((c) => c.toDataURL());
  // While the worker sweeps, the main thread answers quickly and the chart gains points.
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-chart"]')
    ?.dataset.points) >= 1, null, { timeout: 30000 });
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
  const mainThreadLatencyMs = Date.now() - t0;
  const partial = await page.locator(tid('chart-chart')).evaluate((c) => c.toDataURL());
  await sweepDone(page);
  assert.equal(await progress(page), '100');
  const full = await page.locator(tid('chart-chart')).evaluate((c) => c.toDataURL());
  assert.notEqual(full, blank, 'the chart draws the sweep');
  assert.notEqual(full, partial, 'the chart changed as points arrived');
  const points = await page.locator(tid('chart-chart')).getAttribute('data-points');
  assert.equal(points, '30');
  const timing = await page.locator(tid('sweep-time')).innerText();
  assert.match(timing, /ran 30 points in \d+ ms/);
  console.info(`[high-order-alloc] ${timing}; main-thread timer latency during the sweep: ${mainThreadLatencyMs} ms`);
  const table = await page.locator(tid('repro-table')).innerText();
  assert.match(table, /MAPE/);
  assert.match(table, /crossover/);
  await page.waitForSelector(`${tid('text-view-profile')}`);
  assert.match(await page.locator(tid('text-view-profile')).innerText(), /queued_spin_lock_slowpath|Overhead|%/);
  await shot(page, 'high-order-alloc-playground');
  page.assertClean();
});

test('a new parameter supersedes the running sweep', async () => {
  const page = await openPage(browser, srv.base);
  // Five seeds per point: on a quiet machine one seed's 30-point sweep can end (in well under a
  // second on two workers) before the test reads its progress.
  await page.goto(`${srv.base}/#/play/high-order-alloc?seed=11&seeds=5`);
  await appReady(page);
  // Change max_threads while the 30-point sweep is still running.
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-chart"]')
    ?.dataset.points) >= 2, null, { timeout: 30000 });
  assert.notEqual(await progress(page), '100');
  const input = page.locator(tid('param-max_threads')).first();
  await input.fill('6');
  await input.press('Enter'); // a typed number applies on commit
  await page.waitForFunction(() => /max_threads=6/.test(decodeURIComponent(location.hash)));
  await sweepDone(page);
  assert.equal(await page.locator(tid('chart-chart')).getAttribute('data-points'), '6');
  const rows = await page.locator(`${tid('repro-table')} tbody tr`).allInnerTexts();
  assert.deepEqual(rows.map((r) => r.split(/\s+/)[0]), ['1', '2', '3', '4', '5', '6'], 'no stale points');
  page.assertClean();
});

test('trace player: step, keyboard, zone->lock queue and buddyinfo', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/play/high-order-alloc?max_threads=2`);
  await appReady(page);
  const player = page.locator(tid('trace-player'));
  await player.waitFor();
  assert.equal(await player.getAttribute('data-position'), '0');
  await page.click(tid('transport-step'));
  await page.waitForFunction(() => document.querySelector('[data-testid="trace-player"]').dataset.position === '1');
  await page.focus(tid('transport'));
  await page.keyboard.press('End');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="trace-player"]').dataset.position) > 100);
  assert.match(await page.locator(tid('buddyinfo')).innerText(), /Node 0, zone\s+Normal/);
  assert.match(await page.locator(tid('zone-lock-queue')).innerText(), /zone->lock/);
  await player.screenshot({ path: (await shot(page, 'high-order-alloc-trace')).replace(/\.png$/, '-player.png') });
  page.assertClean();
});

test('reproduce page: every seed table, the heavy one from the worker', async () => {
  const page = await openPage(browser, srv.base);
  // One seed keeps it short (reproduce.test.mjs checks the 5-seed page cell by cell).
  await page.goto(`${srv.base}/#/reproduce?seeds=1`);
  await appReady(page);
  await page.waitForSelector(tid('reproduce-high-order-alloc'));
  await page.waitForSelector(tid('reproduce-skb-layout'));
  await page.waitForSelector(tid('repro-high-order-alloc-time'), { timeout: 120000 });
  const section = await page.locator(tid('reproduce-high-order-alloc')).innerText();
  assert.match(section, /MAPE/);
  assert.match(section, /crossover \(order-0 ahead from here on\): seed 9 flows/);
  assert.ok(await page.locator(`${tid('reproduce-high-order-alloc')} .err-badge`).count() >= 60);
  await shot(page, 'reproduce');
  page.assertClean();
});

test('lesson: the crossover step sweeps in the worker and grades a prediction with the model', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/high-order-alloc/4`);
  await appReady(page);
  assert.match(await page.locator(tid('step-title')).innerText(), /crossover/i);
  await sweepDone(page);
  assert.equal(await page.locator(tid('chart-chart')).getAttribute('data-points'), '30');
  // Five seeds per point: the lines are means, the bands their spread (named in the text alternative).
  assert.match(await page.locator(tid('chart-chart')).getAttribute('aria-label'), /order-3 frags \(sim\) spread \d+ to \d+/);
  assert.match(await page.locator(tid('repro-table')).innerText(), /crossover/);
  assert.equal(await page.locator(tid('veiled-chart')).count(), 1, 'the chart is veiled before answering');
  const answer = page.locator(`${tid('question')} input`).first();
  assert.equal(await page.locator(tid('answer-unit')).innerText(), 'Gbit/s', 'asked in the unit the chart shows');
  await answer.fill('1');
  await page.click(tid('check'));
  await page.waitForFunction(() => /not quite/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''),
    null, { timeout: 60000 });
  await page.click(tid('show-answer'));
  await page.waitForFunction(() => /model says [\d.]+ Gbit\/s/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''),
    null, { timeout: 60000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="veiled-chart"]'));
  await shot(page, 'high-order-alloc-lesson-crossover');
  page.assertClean();
});
