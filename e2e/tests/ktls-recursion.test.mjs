// End-to-end: the ktls-recursion lesson in headless Chromium — step the free walk to the
// stack overflow and see the guard page hit in the stack bar and the call trace.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

test('ktls-recursion: step to the overflow and see the trace', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/ktls-recursion/3`);
  await appReady(page);
  await page.waitForSelector(tid('transport'));
  // The step's question veils the views that show its answer; ask for it to use them.
  assert.equal(await page.locator(tid('veiled-trace')).count(), 1);
  await page.click(tid('show-answer'));
  await page.waitForFunction(() => !document.querySelector('[data-testid="veiled-trace"]'));
  assert.equal(await page.locator(tid('stack-bar')).getAttribute('data-overflow'), 'false');

  // Keyboard stepping inside the transport must not change the lesson step.
  await page.locator(tid('transport-step')).focus();
  await page.keyboard.press('.');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.locator(tid('transport-position')).innerText(), /\b2\b/);
  assert.match(page.url(), /ktls-recursion\/3/);

  await page.click(tid('transport-end'));
  await page.waitForSelector(`${tid('stack-bar')}[data-overflow="true"]`);
  assert.equal(await page.locator(tid('stack-bar')).getAttribute('data-used-bytes'), '16416');
  const trace = await page.locator(tid('call-trace')).innerText();
  assert.match(trace, /guard page hit/);
  assert.match(trace, /THREAD_SIZE 16384 B/);
  await shot(page, 'ktls-overflow');

  await page.click(tid('transport-back'));
  await page.waitForSelector(`${tid('stack-bar')}[data-overflow="false"]`);
  page.assertClean();
});

test('ktls-recursion: without the rx cache the chart is drawn and nothing is left at close', async () => {
  const page = await openPage(browser, srv.base);
  // Step 6: the seed's strparser with the rx cache off.
  await page.goto(`${srv.base}/#/lesson/ktls-recursion/6`);
  await appReady(page);
  await page.waitForSelector(tid('ktls-chart'));
  const png = await page.locator(tid('ktls-chart')).evaluate((c) => c.toDataURL());
  assert.ok(png.length > 3000, 'the chart canvas is drawn');
  assert.match(await page.locator(tid('ktls-chart')).getAttribute('aria-label'), /rx cache off/);
  await page.waitForSelector(tid('skb-graph'));
  assert.equal(await page.locator(`${tid('skb-graph')} g.skb`).count(), 0, 'no skb is left at close');
  assert.match(await page.locator(tid('skb-graph')).textContent(), /nothing is left for close\(\) to free/);
  await shot(page, 'ktls-no-cache');
  // The seed's setting in the playground: one chain, one skb per level.
  await page.goto(`${srv.base}/#/play/ktls-recursion`);
  await appReady(page);
  await page.waitForSelector(`${tid('skb-graph')} g.skb`);
  assert.ok(await page.locator(`${tid('skb-graph')} g.skb`).count() > 0, 'the skb graph has nodes');
  await shot(page, 'ktls-chain');
  page.assertClean();
});

test('ktls-recursion: on a phone the call trace keeps its columns and the page does not overflow', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 360, height: 900 }, colorScheme: 'dark' });
  await page.goto(`${srv.base}/#/lesson/ktls-recursion/2`);
  await appReady(page);
  // The step's question veils the trace; ask for the answer to use it.
  await page.click(tid('show-answer'));
  await page.waitForFunction(() => !document.querySelector('[data-testid="veiled-trace"]'));
  await page.waitForSelector(tid('call-trace'));
  const m = await page.locator(tid('call-trace')).evaluate((el) => {
    // Rendered line boxes of the text vs lines in the text: equal when no row wraps.
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return { rendered: tops.size, lines: el.innerText.replace(/\n+$/, '').split('\n').length, wide: el.scrollWidth > el.clientWidth };
  });
  assert.equal(m.rendered, m.lines, `rows wrap: ${m.rendered} rendered lines for ${m.lines} lines of text`);
  assert.ok(m.wide, 'at 360 px the trace scrolls sideways');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360);
  await shot(page, 'ktls-trace-360');
  page.assertClean();
});
