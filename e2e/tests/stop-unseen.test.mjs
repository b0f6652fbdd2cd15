// Work no one sees is stopped: a sweep the learner started and then left for another page,
// an uncertainty band left running, and the Reproduce page's runs once the page is left, end at once instead of running on in
// the workers (for hours, for a long sweep) and holding the pool against the next page's work.
import test from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, appReady, tid, cpuOver } from './harness.mjs';

const ctx = serverAndBrowser();

test('a long sweep the learner started and then left is stopped: back on it, it asks again', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  const url = '#/play/high-order-alloc?min_threads=1&max_threads=256&seeds=10&sockets=8&cpus=512&measure_us=20000&warmup_us=10000';
  await page.goto(`${ctx.srv.base}/${url}`);
  await appReady(page);
  await page.waitForSelector(tid('run-confirm'), { timeout: 30000 });
  await page.click(tid('run-confirm-start'));
  await page.waitForSelector(tid('run-stop'), { timeout: 15000 });
  await page.evaluate(() => { location.hash = '#/about'; });
  await page.waitForFunction(() => !document.querySelector('[data-testid="run-stop"]'));
  await page.waitForTimeout(500);
  // Had the sweep gone on in the background, its Stop would show at once; it asks again.
  await page.evaluate((u) => { location.hash = u.slice(1); }, url);
  await page.waitForSelector(tid('run-confirm'), { timeout: 30000 });
  assert.equal(await page.locator(tid('run-stop')).count(), 0, 'the sweep left was still running');
  page.assertClean();
  await page.close();
});

test('the Reproduce page left mid-way stops its runs', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await page.goto(`${ctx.srv.base}/#/reproduce?seeds=10`);
  await appReady(page);
  await page.waitForFunction(() => /seeds in \(\d+ %\)/.test(document.querySelector('main')?.innerText || ''), null, { timeout: 30000 });
  const during = await cpuOver(page, 2000);
  await page.evaluate(() => { location.hash = '#/about'; });
  await page.waitForFunction(() => !/seeds in/.test(document.querySelector('main')?.innerText || ''));
  await page.waitForTimeout(1000);
  const after = await cpuOver(page, 4000);
  console.info(`[stop-unseen] Reproduce page: ${during.toFixed(2)} CPU-s in 2 s on it, ${after.toFixed(2)} CPU-s in 4 s after leaving`);
  assert.ok(during > 0.3, `the page's runs were not running (${during.toFixed(2)} CPU-s in 2 s)`);
  assert.ok(after < 0.5, `the runs went on after the page was left: ${after.toFixed(2)} CPU-s in 4 s`);
  page.assertClean();
  await page.close();
});

test('an uncertainty band left running is stopped: back on its playground it says so, with Run again', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  const url = '#/play/high-order-alloc';
  await page.goto(`${ctx.srv.base}/${url}`);
  await appReady(page);
  await page.waitForSelector(tid('band-start'), { timeout: 60000 });
  await page.click(tid('band-start'));
  await page.waitForSelector(tid('band-progress'), { timeout: 15000 });
  await page.evaluate(() => { location.hash = '#/about'; });
  await page.waitForFunction(() => !document.querySelector('[data-testid="band-panel"]'));
  await page.waitForTimeout(2500);
  const after = await cpuOver(page, 3000);
  console.info(`[stop-unseen] band: ${after.toFixed(2)} CPU-s in 3 s after leaving`);
  await page.evaluate((u) => { location.hash = u.slice(1); }, url);
  await page.waitForSelector(tid('band-stopped'), { timeout: 60000 });
  assert.equal(await page.locator(tid('band-progress')).count(), 0, 'the band left was still running');
  assert.match(await page.locator(tid('band-stopped')).innerText(), /^Stopped after \d+ of 32 samples\./);
  assert.ok(after < 0.5, `the band went on after the page was left: ${after.toFixed(2)} CPU-s in 3 s`);
  page.assertClean();
  await page.close();
});
