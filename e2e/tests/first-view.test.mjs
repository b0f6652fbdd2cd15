// Benchmark (times printed, not asserted): time from navigation to each written lesson's first
// view, in headless Chromium against the release build, and the bytes a first visit to that
// lesson asks for before its first view (brotli from the app server; the workers start after
// the first view is painted; service workers blocked, so their offline cache does not count).
// "Ready" means the step's views are drawn: a canvas or SVG is in the views column and, for a
// run in the workers, its first point arrived. Asserted: every lesson gets there (within 30 s),
// and its deep link weighs at most DEEP_LINK_CEILING bytes before the first view (issue #25's
// target is 250 KB; the ceiling is what the app reaches, docs/performance.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, playableLessons } from './harness.mjs';

const DEEP_LINK_CEILING = 960_000;

let srv; let browser;
// When each path was first asked for (the server's stats count bytes per path).
const firstAsked = new Map();
before(async () => {
  srv = await startServer();
  srv.server.prependListener('request', (req) => {
    const p = req.url.split('?')[0];
    if (!firstAsked.has(p)) firstAsked.set(p, Date.now());
  });
  browser = await launch();
});
after(async () => { await browser?.close(); srv?.server.close(); });

test('time to each lesson\'s first view (benchmark)', async () => {
  const slugs = await playableLessons(browser, srv.base);
  assert.ok(slugs.length >= 3, `playable lessons: ${slugs}`);
  const lines = [];
  const heavy = [];
  for (const slug of slugs) {
    const page = await openPage(browser, srv.base, { serviceWorkers: 'block' });
    srv.stats.bytes.clear();
    firstAsked.clear();
    const t0 = Date.now();
    await page.goto(`${srv.base}/#/lesson/${slug}/1`);
    await page.waitForFunction(() => {
      const col = document.querySelector('.col-views');
      if (!col || !col.querySelector('canvas, svg, pre')) return false;
      const bar = col.querySelector('[data-testid="sweep-progress"]');
      const chart = col.querySelector('canvas[data-points]');
      return !bar || !chart || Number(chart.dataset.points) >= 1;
    }, null, { timeout: 30000, polling: 'raf' });
    const shown = Date.now();
    const ms = shown - t0;
    await page.waitForTimeout(300);
    const sent = [...srv.stats.bytes.entries()].filter(([p]) => (firstAsked.get(encodeURI(p)) ?? firstAsked.get(p) ?? Infinity) <= shown);
    const bytes = sent.reduce((a, [, b]) => a + b, 0);
    const worker = sent.some(([p]) => /worker/.test(p)) ? ', worker included' : '';
    lines.push(`${slug} ${ms} ms, ${bytes} bytes${worker}`);
    heavy.push([slug, bytes]);
    await page.close();
  }
  console.info(`[first-view] ${lines.join('; ')}`);
  assert.equal(lines.length, slugs.length);
  for (const [slug, bytes] of heavy) {
    assert.ok(bytes <= DEEP_LINK_CEILING, `${slug}: ${bytes} bytes before the first view (ceiling ${DEEP_LINK_CEILING})`);
  }
});
