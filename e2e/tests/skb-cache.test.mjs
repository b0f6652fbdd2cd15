// End-to-end tests of skb-cache: the lesson's first step opens with its views, a prediction is
// graded by the model, the CPU-lane diagram shows the rx frees moving home with the caches (and
// not with RPS), the seed comparison shows Eric's 8 and 9 Mpps, the memory chart draws, the
// history is the kernel's (the seed's server ran SLAB, 5.2's rx heads were page fragments, the
// loopback regression that made the caches opt-in links to the high-order-alloc lesson), and
// screenshots at desktop, phone (360 px) and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer, launch, openPage, shot, appReady, SHOTS } from './harness.mjs';

// A screenshot of the lane diagram alone.
const diagramShot = (page, name) => page.locator('[data-testid="skb-lanes"]').screenshot({ path: path.join(SHOTS, `${name}.png`) });

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;
const lanesTable = (page) => page.locator(tid('skb-lanes-table')).evaluate((t) => t.textContent);
const homeOn = (page) => page.locator(tid('skb-lanes')).getAttribute('data-rx-home-on');

test('lesson: step 1 opens with its views and a prediction is graded by the model', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  const t0 = Date.now();
  await page.goto(`${srv.base}/#/lesson/skb-cache/1`);
  await appReady(page);
  await page.waitForSelector(tid('skb-lanes'), { state: 'attached' });
  console.info(`[skb-cache] first view (step 1) after ${Date.now() - t0} ms`);
  assert.match(await page.locator(tid('step-title')).innerText(), /two CPUs/i);
  // A wrong answer first (graded, not right), then the model's ~1.5 alien frees (SLAB, three
  // slab objects per request: 5.2's rx head is a page fragment).
  await page.locator(`${tid('question')} input[type="text"]`).fill('3');
  await page.click(tid('check'));
  await page.waitForFunction(() => /not quite/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''));
  await page.locator(`${tid('question')} input[type="text"]`).fill('1.5');
  await page.click(tid('check'));
  await page.waitForFunction(() => /right/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''), null, { timeout: 30000 });
  // The diagram: caches off, no rx skb is freed on the CPU that built it; both on, all are.
  assert.match(await lanesTable(page), /recvmsg/);
  assert.equal(await page.locator(tid('skb-lanes')).getAttribute('data-rx-home-off'), '0');
  assert.ok(Number(await homeOn(page)) >= 3, 'caches on: rx skbs freed at home');
  assert.match(await page.locator(`${tid('skb-lanes')} svg`).getAttribute('aria-label'), /Caches off: 0 of \d+ rx skbs/);
  assert.ok(await page.locator(`${tid('skb-lanes')} .skbl-arrow`).count() > 0, 'arrows for the remote frees');
  assert.ok(await page.locator(tid('svg-skb-cache-lanes')).isVisible(), 'SVG export');
  await shot(page, 'skb-cache-desktop');
  await diagramShot(page, 'skb-cache-lanes-diagram');

  // Step 3: the caches on; the seed view shows 8 and 9 Mpps once answered.
  await page.goto(`${srv.base}/#/lesson/skb-cache/3`);
  await page.waitForFunction(() => /Park one skb/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('repro-table'), { timeout: 30000 });
  await page.waitForFunction(() => /caches on[\s\S]*9/.test(document.querySelector('[data-testid="repro-table"]')?.innerText || ''), null, { timeout: 30000 });
  assert.match(await lanesTable(page), /softirq \(rx cache\)/);
  assert.match(await page.locator(`${tid('skb-lanes')} svg`).innerHTML(), /both caches on \(these settings\)/);
  await shot(page, 'skb-cache-caches-on');

  // Step 6: the memory chart.
  await page.goto(`${srv.base}/#/lesson/skb-cache/6`);
  await page.waitForFunction(() => /memory bill/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('chart-memory'), { timeout: 30000 });
  await page.locator(tid('chart-memory')).screenshot({ path: (await shot(page, 'skb-cache-memory')).replace(/\.png$/, '-chart.png') });
  page.assertClean();
});

test('history: the kernel the seed ran, and the regression that ties seeds 004 and 000', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${srv.base}/#/lesson/skb-cache/1`);
  await appReady(page);
  const prose = () => page.locator('.step .prose').innerText();
  // Step 1 says where 5.2 took the rx head from (as the model does), and since when kmalloc.
  assert.match(await prose(), /page fragment/);
  assert.match(await prose(), /5\.11/);
  // How we know: the seed's SLAB with its alien caches, which the model runs too.
  await page.click(`${tid('how-we-know')} > summary`);
  assert.match(await page.locator(tid('how-we-know-kernel')).innerText(), /alien caches/);
  const differs = await page.locator(tid('how-we-know-seed-kernel')).innerText();
  assert.match(differs, /SLAB, and so does the model/);
  assert.match(differs, /__cache_free_alien/);
  // Step 2 says the same in its prose, and points to "How we know" for the allocators'
  // versions (SLUB the default since 2.6.23, SLAB removed in 6.8).
  await page.goto(`${srv.base}/#/lesson/skb-cache/2`);
  await page.waitForFunction(() => /16 M alloc/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  assert.match(await prose(), /ran SLAB/);
  assert.match(await prose(), /How we know/);
  assert.match(await page.locator(tid('how-we-know-kernel')).innerText(), /2\.6\.23[\s\S]*removed in 6\.8/);
  // Step 7: the loopback regression and the series that made the caches opt-in, linked to seed 000's lesson.
  await page.goto(`${srv.base}/#/lesson/skb-cache/7`);
  await page.waitForFunction(() => /loopback regression/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  assert.match(await prose(), /25\.7 %/);
  assert.match(await prose(), /seed 000/);
  const link = page.locator('.step .prose a[href="#/lesson/high-order-alloc/1"]');
  assert.equal(await link.count(), 1, 'one link to the high-order-alloc lesson');
  await link.click();
  await page.waitForFunction(() => location.hash.startsWith('#/lesson/high-order-alloc/1')
    && !/loopback regression/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''), null, { timeout: 30000 });
  // Step 8: 5.17's per-socket list before 5.19's per-CPU one.
  await page.goto(`${srv.base}/#/lesson/skb-cache/8`);
  await page.waitForFunction(() => /Removed in 5\.16/.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  assert.match(await prose(), /5\.17[\s\S]*sk->defer_list[\s\S]*5\.19[\s\S]*skb->alloc_cpu/);
  page.assertClean();
});

test('playground: the cache knobs mark the panel, RPS keeps the frees away', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${srv.base}/#/play/skb-cache`);
  await appReady(page);
  await page.waitForSelector(tid('skb-lanes'), { timeout: 30000 });
  const svg = () => page.locator(`${tid('skb-lanes')} svg`).innerHTML();
  assert.match(await svg(), /caches off \(these settings\)/);
  await page.check(tid('param-tcp_rx_skb_cache'));
  await page.check(tid('param-tcp_tx_skb_cache'));
  await page.waitForFunction(() => /both caches on \(these settings\)/.test(document.querySelector('[data-testid="skb-lanes"] svg')?.innerHTML || ''), null, { timeout: 30000 });
  assert.ok(Number(await homeOn(page)) >= 3);
  // RPS: the softirq that frees the parked skb runs on the thread's CPU, not the driver's.
  await page.check(tid('param-rps'));
  await page.waitForFunction(() => document.querySelector('[data-testid="skb-lanes"]')?.getAttribute('data-rx-home-on') === '0', null, { timeout: 30000 });
  assert.match(await svg(), /driver IRQ[\s\S]*softirq\+thread/);
  page.assertClean();
});

test('phone (360 px) and dark', async () => {
  const phone = await openPage(browser, srv.base, { viewport: { width: 360, height: 780 }, deviceScaleFactor: 2 });
  await phone.goto(`${srv.base}/#/lesson/skb-cache/1`);
  await appReady(phone);
  await phone.click(tid('show-answer'));
  await phone.waitForSelector(tid('skb-lanes'), { timeout: 30000 });
  await phone.locator(tid('skb-lanes')).scrollIntoViewIfNeeded();
  const box = await phone.locator(`${tid('skb-lanes')} svg`).boundingBox();
  assert.ok(box.width <= 360 && box.width > 250, `diagram fits the phone (${box.width} px)`);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no sideways scroll at 360 px (${overflow} px)`);
  await shot(phone, 'skb-cache-phone');
  await diagramShot(phone, 'skb-cache-phone-lanes-diagram');
  phone.assertClean();

  const dark = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  await dark.goto(`${srv.base}/#/lesson/skb-cache/4`);
  await appReady(dark);
  await dark.click(tid('show-answer'));
  await dark.waitForFunction(() => /rps on/.test(document.querySelector('[data-testid="text-view-profile"]')?.innerText || ''), null, { timeout: 30000 });
  assert.match(await dark.locator(tid('text-view-profile')).innerText(), /rps on/);
  // RPS steers the packet: the enqueue on the target CPU's backlog (and its IPI) is a chain of its own.
  assert.match(await dark.locator(tid('text-view-profile')).innerText(), /enqueue_to_backlog/);
  await shot(dark, 'skb-cache-dark');
  await diagramShot(dark, 'skb-cache-dark-lanes-diagram');
  dark.assertClean();
});
