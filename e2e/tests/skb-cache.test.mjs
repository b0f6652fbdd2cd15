// End-to-end tests of skb-cache: the lesson's first step opens with its views, a prediction is
// graded by the model, the tcp_rx/tx_skb_cache knobs move the frees home in the lane view, the
// seed comparison shows Eric's 8 and 9 Mpps, the memory chart draws, and screenshots at desktop,
// phone (360 px) and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;
const lanes = (page) => page.locator(`${tid('text-view-lanes')} pre, ${tid('text-view-lanes')}`).first().innerText();

test('lesson: step 1 opens with its views and a prediction is graded by the model', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  const t0 = Date.now();
  await page.goto(`${srv.base}/#/lesson/skb-cache/1`);
  await appReady(page);
  await page.waitForSelector(tid('text-view-lanes'), { state: 'attached' });
  console.info(`[skb-cache] first view (step 1) after ${Date.now() - t0} ms`);
  assert.match(await page.locator(tid('step-title')).innerText(), /two CPUs/i);
  // A wrong answer first (graded, not right), then the model's ~4.
  await page.locator(`${tid('question')} input[type="text"]`).fill('1');
  await page.click(tid('check'));
  await page.waitForFunction(() => /not quite/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''));
  await page.locator(`${tid('question')} input[type="text"]`).fill('4');
  await page.click(tid('check'));
  await page.waitForFunction(() => /right/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''), null, { timeout: 30000 });
  await page.waitForFunction(() => /recvmsg/.test(document.querySelector('[data-testid="text-view-lanes"]')?.innerText || ''), null, { timeout: 30000 });
  assert.match(await lanes(page), /other CPU/);
  await shot(page, 'skb-cache-desktop');

  // Step 3: the caches on; the seed view shows 8 and 9 Mpps once answered.
  await page.goto(`${srv.base}/#/lesson/skb-cache/3`);
  await page.waitForFunction(() => /Park one skb/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('repro-table'), { timeout: 30000 });
  await page.waitForFunction(() => /caches on[\s\S]*9/.test(document.querySelector('[data-testid="repro-table"]')?.innerText || ''), null, { timeout: 30000 });
  await page.waitForFunction(() => /softirq \(rx cache\)/.test(document.querySelector('[data-testid="text-view-lanes"]')?.innerText || ''), null, { timeout: 30000 });
  await shot(page, 'skb-cache-caches-on');

  // Step 6: the memory chart.
  await page.goto(`${srv.base}/#/lesson/skb-cache/6`);
  await page.waitForFunction(() => /memory bill/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('chart-memory'), { timeout: 30000 });
  await page.locator(tid('chart-memory')).screenshot({ path: (await shot(page, 'skb-cache-memory')).replace(/\.png$/, '-chart.png') });
  page.assertClean();
});

test('playground: the cache knobs move the frees home', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${srv.base}/#/play/skb-cache`);
  await appReady(page);
  await page.waitForFunction(() => /recvmsg/.test(document.querySelector('[data-testid="text-view-lanes"]')?.innerText || ''), null, { timeout: 30000 });
  const off = await lanes(page);
  assert.doesNotMatch(off, /rx cache/);
  await page.check(tid('param-tcp_rx_skb_cache'));
  await page.check(tid('param-tcp_tx_skb_cache'));
  await page.waitForFunction(() => /softirq \(rx cache\)/.test(document.querySelector('[data-testid="text-view-lanes"]')?.innerText || ''), null, { timeout: 30000 });
  const on = await lanes(page);
  assert.notEqual(off, on, 'the lanes change with the knob');
  assert.match(on, /same CPU/);
  page.assertClean();
});

test('phone (360 px) and dark', async () => {
  const phone = await openPage(browser, srv.base, { viewport: { width: 360, height: 780 }, deviceScaleFactor: 2 });
  await phone.goto(`${srv.base}/#/lesson/skb-cache/1`);
  await appReady(phone);
  await phone.click(tid('show-answer'));
  await phone.waitForFunction(() => /recvmsg/.test(document.querySelector('[data-testid="text-view-lanes"]')?.innerText || ''), null, { timeout: 30000 });
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no sideways scroll at 360 px (${overflow} px)`);
  await shot(phone, 'skb-cache-phone');
  phone.assertClean();

  const dark = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  await dark.goto(`${srv.base}/#/lesson/skb-cache/4`);
  await appReady(dark);
  await dark.click(tid('show-answer'));
  await dark.waitForFunction(() => /RPS/.test(document.querySelector('[data-testid="text-view-profile"]')?.innerText || ''), null, { timeout: 30000 });
  assert.match(await dark.locator(tid('text-view-profile')).innerText(), /rps on/);
  await shot(dark, 'skb-cache-dark');
  dark.assertClean();
});
