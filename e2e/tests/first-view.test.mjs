// Benchmark (printed, not asserted): time from navigation to each written lesson's first view,
// in headless Chromium against the release build, and the bytes a first visit to that lesson
// transfers (brotli from the app server; the sweep worker's files count when the step runs in
// it; service workers blocked, so their offline cache does not count). "Ready" means the step's
// views are drawn: a canvas or SVG is in the views column and, for a run in the worker, its
// first point arrived. The one assertion is that every lesson gets there at all (within 30 s).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, playableLessons } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

test('time to each lesson\'s first view (benchmark)', async () => {
  const slugs = await playableLessons(browser, srv.base);
  assert.ok(slugs.length >= 3, `playable lessons: ${slugs}`);
  const lines = [];
  for (const slug of slugs) {
    const page = await openPage(browser, srv.base, { serviceWorkers: 'block' });
    srv.stats.bytes.clear();
    const t0 = Date.now();
    await page.goto(`${srv.base}/#/lesson/${slug}/1`);
    await page.waitForFunction(() => {
      const col = document.querySelector('.col-views');
      if (!col || !col.querySelector('canvas, svg, pre')) return false;
      const bar = col.querySelector('[data-testid="sweep-progress"]');
      const chart = col.querySelector('canvas[data-points]');
      return !bar || !chart || Number(chart.dataset.points) >= 1;
    }, null, { timeout: 30000 });
    const ms = Date.now() - t0;
    await page.waitForTimeout(300);
    const sent = [...srv.stats.bytes.entries()];
    const bytes = sent.reduce((a, [, b]) => a + b, 0);
    const worker = sent.some(([p]) => /worker/.test(p)) ? ', worker included' : '';
    lines.push(`${slug} ${ms} ms, ${bytes} bytes${worker}`);
    await page.close();
  }
  console.info(`[first-view] ${lines.join('; ')}`);
  assert.equal(lines.length, slugs.length);
});
