// Benchmark (times printed, not asserted): time from navigation to each lesson step's first
// view, in headless Chromium against the release build, and the bytes a first visit to that step
// asks for before its first view (brotli from the app server; service workers blocked, so their
// offline cache does not count). A step's deep link draws its pre-rendered first view
// (dist/first/, e2e/prerender.mjs) before the app's wasm arrives; "ready" is the harness's
// `firstViewDrawn`. Asserted, for every step of every lesson: it gets there within 30 s, from the
// pre-rendered copy, and its deep link weighs at most DEEP_LINK_CEILING bytes before the first
// view (the target: 250 KB).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, playableLessons, firstViewOf } from './harness.mjs';

const DEEP_LINK_CEILING = 250_000;
// A desktop window (the copy's charts at 1× pixels) and a phone in dark mode (2× pixels: the
// heavier images).
const SCREENS = [
  ['desktop', {}],
  ['phone, dark', { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, colorScheme: 'dark' }],
];

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

test('time to each lesson step\'s first view, and its bytes, desktop and phone (benchmark)', async () => {
  const slugs = await playableLessons(browser, srv.base);
  assert.ok(slugs.length >= 3, `playable lessons: ${slugs}`);
  const lines = [];
  const measured = [];
  for (const [screen, options] of SCREENS) for (const slug of slugs) {
    for (let step = 1; step <= 60; step++) {
      const page = await openPage(browser, srv.base, { serviceWorkers: 'block', first: true, ...options });
      srv.stats.bytes.clear();
      await page.goto(`${srv.base}/#/lesson/${slug}/${step}`);
      const { ms, copy: prerendered, paths } = await firstViewOf(page);
      // The step list of the page's first nav (the copy's while it is there; the app mounts a second).
      const steps = await page.evaluate(() => document.querySelector('nav.steps')?.querySelectorAll('li').length ?? 0);
      await page.waitForTimeout(100);
      const bytes = paths.reduce((a, p) => a + (srv.stats.bytes.get(decodeURI(p)) ?? srv.stats.bytes.get(p) ?? 0), 0);
      lines.push(`${slug}/${step} ${ms} ms, ${bytes} bytes`);
      measured.push({ url: `${slug}/${step} (${screen})`, bytes, prerendered });
      await page.close();
      if (step >= steps) break;
    }
  }
  console.info(`[first-view] desktop, then phone: ${lines.join('; ')}`);
  const heaviest = measured.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  console.info(`[first-view] ${measured.length} steps; heaviest ${heaviest.url}: ${heaviest.bytes} bytes`);
  assert.ok(measured.length >= 6 * slugs.length, `steps measured: ${measured.length}`);
  for (const { url, bytes, prerendered } of measured) {
    assert.ok(prerendered, `${url}: the first view was not the pre-rendered one`);
    assert.ok(bytes <= DEEP_LINK_CEILING, `${url}: ${bytes} bytes before the first view (ceiling ${DEEP_LINK_CEILING})`);
  }
});
