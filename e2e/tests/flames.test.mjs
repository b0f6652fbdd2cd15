// End-to-end test of the generic flame view on the two worlds that draw sim::profile's call
// chains: cross-cpu-free and skb-cache draw their CPU time as flame graphs in the
// playground, with the kernel functions their perf reports name.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

// cross-cpu-free's graph has one root per receiver CPU: every root must be drawn too.
const cases = [['cross-cpu-free', [/__slab_free/, /^CPU 0 /, /^CPU 1 /]], ['skb-cache', [/tcp_v4_rcv/, /^tcp_rr$/]]];
for (const [experiment, wanted] of cases) {
  test(`${experiment}: the playground draws its flame graph from sim::profile`, async () => {
    const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${srv.base}/#/play/${experiment}`);
    await appReady(page);
    const graph = `${tid('flame-graph-flame')} svg`;
    await page.waitForSelector(graph, { timeout: 60000 });
    const names = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="flame-graph-flame"] g.fl')].map((g) => g.getAttribute('data-name')));
    assert.ok(names.length >= 5, `${experiment}: ${names.length} frames`);
    for (const expected of wanted) {
      assert.ok(names.some((n) => expected.test(n || '')), `${experiment}: no ${expected} frame in ${names.slice(0, 20)}`);
    }
    await page.locator(tid('flame-graph-flame')).scrollIntoViewIfNeeded();
    await shot(page, `${experiment}-flame`);
    page.assertClean();
  });
}
