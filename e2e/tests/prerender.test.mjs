// The pre-rendered first view (e2e/prerender.mjs, index.html's loader): a lesson
// step's deep link draws the step's static copy before the app's wasm arrives, with the app's
// numbers; the app then replaces it. The app's wasm is held back here until the copy has been
// checked, so the test sees the copy alone. Screenshots: e2e/screenshots/first-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, axeViolations } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

/** A first-visit page whose app wasm waits for `release()`; `asked` lists the paths requested. */
async function gatedPage(options = {}) {
  const page = await openPage(browser, srv.base, { serviceWorkers: 'block', first: true, ...options });
  let release;
  const gate = new Promise((r) => { release = r; });
  page.asked = [];
  page.on('request', (r) => page.asked.push(new URL(r.url()).pathname));
  await page.route(/skblab-web-[0-9a-f]+_bg\.wasm$/, async (route) => { await gate; await route.fallback(); });
  page.release = release;
  return page;
}

// Each view's text (chart summaries, a flame graph's frames and shares, a diagram's table), less
// the run's progress line.
const viewsText = (page, scope) => page.$$eval(`${scope} .col-views .view-slot`, (slots) => slots.map((slot) => {
  const c = slot.cloneNode(true);
  c.querySelectorAll('.run-progress').forEach((e) => e.remove());
  return c.textContent.replace(/\s+/g, ' ').trim();
}));

for (const url of ['high-order-alloc/1', 'percpu-counter/7', 'page-frag-free/1', 'skb-cache/1']) {
  test(`${url}: the copy comes first, with the app's numbers, and the app takes over`, async () => {
    const page = await gatedPage();
    await page.goto(`${srv.base}/#/lesson/${url}`);
    await page.waitForSelector('#first .col-views img, #first .col-views svg');
    const copy = await viewsText(page, '#first');
    assert.ok(copy.length >= 1 && copy.every((t) => /[0-9]/.test(t)), `the copy's views have numbers: ${copy}`);
    assert.ok(!page.asked.some((p) => /worker/.test(p)), 'no worker before the first view');
    // Nothing in the copy answers input until the app has loaded, and it says so.
    const live = await page.$$eval('#first input:not([disabled]), #first select:not([disabled]), #first button:not([disabled])', (es) => es.length);
    assert.equal(live, 0, 'enabled controls in the copy');
    assert.match(await page.locator('#first [role="status"].first-status').innerText(), /loading/i);
    const controls = (scope) => page.$$eval(`${scope} .col-text input, ${scope} .col-text select`,
      (es) => es.map((e) => (e.type === 'checkbox' ? String(e.checked) : e.value)));
    const copyControls = await controls('#first');
    assert.ok(copyControls.some((v) => v !== ''), 'the copy\'s parameter panel shows values');
    if (url === 'high-order-alloc/1') await shot(page, 'first-high-order-alloc-1');
    page.release();
    await page.waitForSelector('#first', { state: 'detached', timeout: 60000 });
    await page.waitForSelector('#app .col-views');
    const app = await viewsText(page, '#app');
    assert.deepEqual(app, copy, 'the app draws the numbers the copy showed');
    assert.deepEqual(await controls('#app'), copyControls, 'the copy showed the app\'s settings');
    // The app's own ids, not the copy's prefixed ones, are the page's now.
    assert.equal(await page.$$eval('[id^="first-"]', (es) => es.length), 0);
    page.assertClean();
    await page.context().close();
  });
}

test('phone, dark: the 360 px dark copy, accessible (axe), then the app', async () => {
  const page = await gatedPage({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, colorScheme: 'dark' });
  await page.goto(`${srv.base}/#/lesson/high-order-alloc/4`);
  await page.waitForSelector('#first .col-views img');
  assert.ok(page.asked.some((p) => p.endsWith('/first/high-order-alloc-4-phone-dark.html')), page.asked.join(' '));
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 360, `the copy is ${width} px wide on a 360 px screen`);
  await shot(page, 'first-phone-dark-high-order-alloc-4');
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], violations.join('\n'));
  page.release();
  await page.waitForSelector('#first', { state: 'detached', timeout: 60000 });
  page.assertClean();
  await page.context().close();
});

test('a new hash before the app has loaded (back, an edited link) drops the copy; the app opens it', async () => {
  const page = await gatedPage();
  await page.goto(`${srv.base}/#/lesson/skb-layout/1`);
  await page.waitForSelector('#first .col-views');
  await page.evaluate(() => { location.hash = '#/lesson/skb-layout/2'; });
  await page.waitForSelector('#first', { state: 'detached' });
  page.release();
  await page.waitForSelector('[data-testid="step-2"][aria-current="step"]', { timeout: 30000 });
  page.assertClean();
  await page.context().close();
});

test('a link with settings (a query) or to the playground loads the app, no copy', async () => {
  for (const hash of ['#/lesson/high-order-alloc/1?seed=2', '#/play/high-order-alloc']) {
    const page = await openPage(browser, srv.base, { serviceWorkers: 'block', first: true });
    const asked = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.goto(`${srv.base}/${hash}`);
    await page.waitForSelector('.col-views');
    assert.ok(!asked.some((p) => p.startsWith('/first/')), `${hash}: ${asked.filter((p) => p.startsWith('/first/'))}`);
    page.assertClean();
    await page.context().close();
  }
});
