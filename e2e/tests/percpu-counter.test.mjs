// End-to-end tests of the percpu-counter lesson: the sweep (15 simulations) runs in the Web
// Worker, the line's travels and the perf report render, a prediction is graded by the model,
// the batch knob changes the error chart, and screenshots at desktop, 360 px and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

/** Waits for the sweep to finish (progress 100 % and the timing line shown). */
async function sweepDone(page) {
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="sweep-progress"]');
    return bar?.getAttribute('aria-valuenow') === '100' && document.querySelector('[data-testid="sweep-time"]');
  }, null, { timeout: 60000 });
}

test('percpu-counter: the line travels, and a prediction is graded by the model', async () => {
  const page = await openPage(browser, srv.base);
  const t0 = Date.now();
  await page.goto(`${srv.base}/#/lesson/percpu-counter/1`);
  await appReady(page);
  assert.match(await page.locator(tid('step-title')).innerText(), /one cache line/i);
  await page.waitForSelector(tid('text-view-line'), { timeout: 30000 });
  console.info(`[percpu-counter] first view after ${Date.now() - t0} ms`);
  const line = await page.locator(tid('text-view-line')).innerText();
  assert.match(line, /other socket/);
  assert.match(line, /reduce/);
  await sweepDone(page);
  assert.equal(await page.locator(tid('veiled-cpu')).count(), 1, 'the CPU chart is veiled before answering');
  const answer = page.locator(`${tid('question')} input`).first();
  await answer.fill('5');
  await page.click(tid('check'));
  await page.waitForFunction(() => /not quite/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''),
    null, { timeout: 60000 });
  await page.click(tid('show-answer'));
  await page.waitForFunction(() => /model says [\d.]+/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''),
    null, { timeout: 60000 });
  const expected = (await page.locator(tid('grade')).innerText()).match(/model says ([\d.]+)/i)[1];
  assert.ok(Number(expected) > 0.5 && Number(expected) < 0.9, `atomic share ${expected} %`);
  await page.waitForFunction(() => !document.querySelector('[data-testid="veiled-cpu"]'));
  await shot(page, 'percpu-counter-step1');
  page.assertClean();
});

test('percpu-counter: a larger batch raises the error bound in the chart', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/percpu-counter/3`);
  await appReady(page);
  await page.waitForSelector(tid('chart-error'));
  await sweepDone(page);
  assert.equal(await page.locator(tid('chart-error')).getAttribute('data-points'), '5');
  const before = await page.locator(tid('chart-error')).evaluate((c) => c.toDataURL());
  assert.match(await page.locator(tid('text-view-bound')).innerText(), /131072/);
  await shot(page, 'percpu-counter-error');
  const batch = page.locator(tid('param-batch')).first();
  await batch.fill('1024');
  await batch.press('Enter');
  await page.waitForFunction(() => /batch=1024/.test(decodeURIComponent(location.hash)));
  await sweepDone(page);
  await page.waitForFunction((b) => document.querySelector('[data-testid="chart-error"]')?.toDataURL() !== b,
    before, { timeout: 60000 });
  await shot(page, 'percpu-counter-error-batch-1024');
  page.assertClean();
});

test('percpu-counter: the perf report and the seed table', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/percpu-counter/2`);
  await appReady(page);
  await page.waitForFunction(() => /percpu_counter \(patch\)/.test(document.querySelector('[data-testid="repro-table"]')?.innerText || ''),
    null, { timeout: 60000 });
  const table = await page.locator(tid('repro-table')).innerText();
  assert.match(table, /atomic \(2018\)/);
  assert.match(table, /percpu_counter \(patch\)/);
  await page.goto(`${srv.base}/#/play/percpu-counter?counter=percpu_counter`);
  await appReady(page);
  await sweepDone(page);
  await page.waitForSelector(tid('text-view-profile'));
  const report = await page.locator(tid('text-view-profile')).innerText();
  assert.match(report, /percpu_counter_add_batch/);
  assert.match(report, /__percpu_counter_compare/);
  page.assertClean();
});

test('percpu-counter: phone width and dark mode', async () => {
  const phone = await openPage(browser, srv.base, { viewport: { width: 360, height: 780 } });
  await phone.goto(`${srv.base}/#/lesson/percpu-counter/6`);
  await appReady(phone);
  await phone.waitForSelector(tid('chart-cpu'));
  await sweepDone(phone);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal scroll at 360 px (${overflow} px)`);
  await shot(phone, 'percpu-counter-360');
  phone.assertClean();

  const dark = await openPage(browser, srv.base, { colorScheme: 'dark' });
  await dark.goto(`${srv.base}/#/lesson/percpu-counter/5`);
  await appReady(dark);
  await dark.waitForSelector(tid('chart-error'));
  await sweepDone(dark);
  await shot(dark, 'percpu-counter-dark');
  dark.assertClean();
});
