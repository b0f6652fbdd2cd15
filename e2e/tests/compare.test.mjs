// "Compare two runs" (issue #26): pin the run as A, move a knob, and read A against B with the
// change; A travels in the URL (a reload or a shared link compares the same two runs), and is
// shown as its CLI line; Unpin stops comparing. A light experiment (skb-layout) and a heavy one
// (page-frag-free, whose A is recomputed on the worker pool) both work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

test('pin a light run, move a knob, compare; the pin survives a reload; unpin', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${srv.base}/#/play/skb-layout`);
  await appReady(page);
  await page.click(tid('pin-run'));
  await page.waitForSelector(tid('compare-summary'));
  assert.match(await page.locator(tid('compare-summary')).innerText(), /^0 of \d+ values differ/);
  assert.equal(await page.locator(tid('compare-a-line')).innerText(), 'skblab run skb-layout --seed 1');
  await page.fill(tid('param-mtu'), '9000');
  await page.press(tid('param-mtu'), 'Enter');
  await page.waitForFunction(() => /^[1-9]\d* of/.test(document.querySelector('[data-testid="compare-summary"]')?.innerText || ''));
  assert.ok(await page.locator('.compare-table tr.changed').count() > 0);
  assert.match(page.url(), /pin=seed%3D1/);
  await shot(page, 'compare-light');
  await page.reload();
  await appReady(page);
  await page.waitForFunction(() => /^[1-9]\d* of/.test(document.querySelector('[data-testid="compare-summary"]')?.innerText || ''));
  await page.click(tid('unpin-run'));
  await page.waitForSelector(tid('pin-run'));
  assert.doesNotMatch(page.url(), /pin=/);
  page.assertClean();
});

test('a heavy run pinned from a shared link is recomputed and compared', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${srv.base}/#/play/page-frag-free?fix=after&pin=seed%3D1`);
  await appReady(page);
  await page.waitForFunction(() => /^[1-9]\d* of/.test(document.querySelector('[data-testid="compare-summary"]')?.innerText || ''),
    null, { timeout: 90000 });
  assert.equal(await page.locator(tid('compare-a-line')).innerText(), 'skblab run page-frag-free --seed 1');
  const fix = page.locator('.compare-table tr[data-metric="mpps"] td.num');
  assert.equal(await fix.count(), 4);
  await shot(page, 'compare-heavy');
  page.assertClean();
});
