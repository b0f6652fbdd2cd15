// End-to-end tests of cross-cpu-free: the lesson's steps open with the lane view ready, a
// prediction is graded by the model, the consumer knob turns fast frees into slow ones across
// lanes, the seed comparison shows Ian's numbers, step 4's per-CPU partial slabs can be turned
// off (SLUB before 3.2), step 6 says where the model differs from the kernel, and screenshots
// at desktop, phone and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;
const slowPerSkb = (page) => page.locator(tid('xcpu-lanes')).getAttribute('data-slow-per-skb');

test('lesson: steps open with their views, a prediction is graded by the model', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  const t0 = Date.now();
  await page.goto(`${srv.base}/#/lesson/cross-cpu-free/1`);
  await appReady(page);
  await page.waitForSelector(tid('xcpu-lanes'));
  const firstViewMs = Date.now() - t0;
  console.info(`[cross-cpu-free] first view (lane view of step 1) after ${firstViewMs} ms`);
  assert.match(await page.locator(tid('step-title')).innerText(), /fast path/i);
  assert.equal(await slowPerSkb(page), '0.00', 'same CPU: no slow-path free');
  // Step 1: the counters are veiled until answered; 0 is right.
  await page.locator(`${tid('question')} input[type="text"]`).fill('0');
  await page.click(tid('check'));
  await page.waitForFunction(() => /right/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''));

  // Step 2: a remote free; the lanes are veiled until the choice is checked.
  await page.click(tid('next-step'));
  await page.waitForFunction(() => /cross-cpu-free\/2/.test(location.hash));
  assert.match(await page.locator(tid('step-title')).innerText(), /remote free/i);
  await page.click(tid('choice-3'));
  await page.click(tid('check'));
  await page.waitForFunction(() => /not quite/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''));
  await page.click(tid('choice-2'));
  await page.click(tid('check'));
  await page.waitForFunction(() => /right/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''));
  await page.waitForSelector(tid('xcpu-lanes'));
  assert.equal(await slowPerSkb(page), '2.00', 'other CPU: two slow-path frees per skb');
  assert.ok(await page.locator(`${tid('xcpu-lanes')} .xcpu-arrow.slow`).count() > 0, 'remote frees drawn across lanes');
  await shot(page, 'cross-cpu-free-desktop');
  await page.locator(tid('xcpu-lanes')).screenshot({ path: (await shot(page, 'cross-cpu-free-desktop')).replace(/\.png$/, '-lanes.png') });

  // Step 3: Ian's split beside the seed's table.
  await page.goto(`${srv.base}/#/lesson/cross-cpu-free/3`);
  await page.waitForFunction(() => /split/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  await page.waitForSelector(tid('repro-table'));
  assert.match(await page.locator(tid('repro-table')).innerText(), /64 B after[\s\S]*13645857/);
  assert.equal(await slowPerSkb(page), '3.00', 'split + other CPU: three');
  await shot(page, 'cross-cpu-free-split');
  page.assertClean();
});

test('lesson: step 4 teaches 3.2\'s per-CPU partial slabs and shows SLUB before them; step 6 says where the model differs', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  const prose = () => page.locator('.step .prose').innerText();
  await page.goto(`${srv.base}/#/lesson/cross-cpu-free/4`);
  await appReady(page);
  await page.waitForFunction(() => /feeding many/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  assert.match(await prose(), /3\.2[\s\S]*49e2258586b4[\s\S]*cpu_partial=false/);
  assert.ok(await page.isChecked(tid('param-cpu_partial')), 'the step runs 3.2\'s SLUB');
  await page.waitForSelector(tid('text-view-counters'), { state: 'attached', timeout: 60000 });
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('text-view-counters'), { timeout: 60000 });
  const with32 = await page.locator(tid('text-view-counters')).innerText();
  assert.match(with32, /list_lock/);
  // SLUB before 3.2: every full-to-partial move under list_lock, so the counters change.
  await page.uncheck(tid('param-cpu_partial'));
  await page.waitForFunction((before) => {
    const t = document.querySelector('[data-testid="text-view-counters"]')?.innerText;
    return t && t !== before;
  }, with32, { timeout: 60000 });

  // Step 6: under RFS the reader's CPU runs the TCP receive; the text says so, offers the
  // rfs knob, and names 7.0's sheaves.
  await page.goto(`${srv.base}/#/lesson/cross-cpu-free/6`);
  await page.waitForFunction(() => /later/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  const last = await prose();
  assert.match(last, /RFS[\s\S]*backlog of CPU B[\s\S]*TCP receive[\s\S]*rfs/);
  assert.ok(await page.isChecked(tid('param-rfs')), 'the step runs with RFS, as Eric did');
  assert.match(last, /5\.17[\s\S]*5\.19[\s\S]*7\.0/);
  page.assertClean();
});

test('playground: the consumer knob moves frees across lanes and onto the slow path', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${srv.base}/#/play/cross-cpu-free?consumer=same`);
  await appReady(page);
  await page.waitForSelector(tid('xcpu-lanes'));
  assert.equal(await slowPerSkb(page), '0.00');
  const same = await page.locator(tid('xcpu-counters')).innerText();
  await page.selectOption(tid('param-consumer'), 'other');
  await page.waitForFunction(() => document.querySelector('[data-testid="xcpu-lanes"]')?.dataset.slowPerSkb === '2.00');
  const other = await page.locator(tid('xcpu-counters')).innerText();
  assert.notEqual(same, other, 'the counters change with the knob');
  assert.match(other, /iperf server/);
  page.assertClean();
});

test('phone (360 px) and dark: the lane view fits and draws', async () => {
  const phone = await openPage(browser, srv.base, { viewport: { width: 360, height: 780 }, deviceScaleFactor: 2 });
  await phone.goto(`${srv.base}/#/lesson/cross-cpu-free/2`);
  await appReady(phone);
  await phone.click(tid('show-answer'));
  await phone.waitForSelector(tid('xcpu-lanes'));
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no sideways scroll at 360 px (${overflow} px)`);
  await phone.locator(tid('xcpu-lanes')).screenshot({ path: (await shot(phone, 'cross-cpu-free-phone')).replace(/\.png$/, '-lanes.png') });
  phone.assertClean();

  const dark = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
  await dark.goto(`${srv.base}/#/lesson/cross-cpu-free/6`);
  await appReady(dark);
  await dark.waitForSelector(tid('text-view-profile'), { state: 'attached' });
  await dark.click(tid('show-answer'));
  await dark.waitForSelector(tid('text-view-profile'));
  assert.match(await dark.locator(tid('text-view-profile')).innerText(), /skb_attempt_defer_free/);
  await shot(dark, 'cross-cpu-free-dark');
  await dark.goto(`${srv.base}/#/lesson/cross-cpu-free/2`);
  await dark.click(tid('show-answer'));
  await dark.waitForSelector(tid('xcpu-lanes'));
  await dark.locator(tid('xcpu-lanes')).screenshot({ path: (await shot(dark, 'cross-cpu-free-dark-lanes')).replace(/\.png$/, '-only.png') });
  dark.assertClean();
});
