// The learner's experience: predict before you see, retries and hints, units, honest progress,
// the way on at a lesson's end, notices that go away, clean URLs, and no sideways scrolling
// on a 360 px phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startServer, launch, openPage, shot, appReady, answer } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;
const INDEX = fs.readFileSync(new URL('../../lessons/index.toml', import.meta.url), 'utf8');
/** Written lessons in course order, with their step counts (from their content files). */
const WRITTEN = INDEX.split('[[lesson]]').slice(1)
  .filter((b) => /status = "written"/.test(b))
  .map((b) => {
    const slug = b.match(/slug = "([^"]+)"/)[1];
    const text = fs.readFileSync(new URL(`../../lessons/content/${slug}.md`, import.meta.url), 'utf8');
    return { slug, steps: (text.match(/^\[\[steps\]\]/gm) || []).length };
  });

test('three misses show the answer; a hint after the first; units and separators are read', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/skb-layout/5`);
  await appReady(page);
  assert.equal(await page.locator(tid('veiled-diagram')).count(), 1);
  let g = await answer(page, '100');
  assert.match(g, /not quite.*2 tries left/is);
  assert.equal(await page.locator(tid('hint')).count(), 1);
  g = await answer(page, 'NaN');
  assert.match(g, /not graded/i, 'a non-number is no try');
  g = await answer(page, '1,000');
  assert.match(g, /1 try left/);
  g = await answer(page, '0.5 KiB');
  assert.match(g, /model says 320 bytes/, 'the third miss shows the answer');
  await page.waitForFunction(() => !document.querySelector('[data-testid="veiled-diagram"]'));
  assert.ok(await page.locator(tid('check')).isDisabled(), 'a settled question takes no more answers');

  await page.goto(`${srv.base}/#/lesson/skb-layout/2`);
  await page.waitForFunction(() => /destructor/i.test(document.querySelector('[data-testid="step-title"]')?.innerText || ''));
  g = await answer(page, '488 B');
  assert.match(g, /right/i, 'an answer with a unit of the same kind');
  page.assertClean();
});

test('progress counts visited steps and right answers apart; a lesson ends with the way on', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/skb-layout/1`);
  await appReady(page);
  await page.click(tid('next-step'));
  await page.waitForFunction(() => /skb-layout\/2/.test(location.hash));
  assert.match(await answer(page, '488'), /right/i);
  await page.click(tid('next-step'));
  await page.waitForFunction(() => /skb-layout\/3/.test(location.hash));
  await page.click(tid('show-answer'));
  await page.waitForSelector(tid('explanation'));
  const [first, second] = WRITTEN;
  await page.goto(`${srv.base}/#/lesson/${first.slug}/${first.steps}`);
  await page.waitForSelector(tid('lesson-end'));
  const tally = await page.locator(tid('lesson-tally')).innerText();
  assert.match(tally, new RegExp(`Steps visited: 4 of ${first.steps}\\. Questions answered right: 1 of`));
  const next = page.locator(tid('next-lesson'));
  assert.equal(await next.getAttribute('href'), `#/lesson/${second.slug}/1`);
  await shot(page, 'lesson-end');
  await page.goto(`${srv.base}/#/`);
  await page.waitForSelector(tid(`progress-${first.slug}`));
  assert.match(await page.locator(tid(`progress-${first.slug}`)).innerText(),
    new RegExp(`4 / ${first.steps} steps visited · 1 / \\d+ answered right`));
  page.assertClean();
});

test('notices can be dismissed and a bad URL is replaced by the page shown', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/`);
  await appReady(page);
  await page.evaluate(() => localStorage.setItem('skblab.progress.v1', '{not json'));
  await page.goto(`${srv.base}/#/nowhere`);
  await page.reload();
  await appReady(page);
  await page.waitForSelector(tid('notice'));
  await page.waitForFunction(() => location.hash === '#/');
  await page.click(`${tid('notice')} button`);
  await page.waitForFunction(() => !document.querySelector('[data-testid="notice"]'));
  await page.click('a[href="#/about"]');
  await page.waitForSelector('h1');
  assert.equal(await page.locator(tid('notice')).count(), 0, 'a dismissed notice does not follow the learner');
  page.assertClean();
});

test('a new page opens at its top', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/skb-layout/1`);
  await appReady(page);
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  assert.ok(await page.evaluate(() => window.scrollY) > 100);
  await page.click('a[href="#/about"]');
  await page.waitForFunction(() => window.scrollY === 0);
  page.assertClean();
});

// Every lesson step and playground is checked the same way (and more) by phone.test.mjs, in
// both themes; this test covers the other pages.
test('no page scrolls sideways on a 360 px phone', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 360, height: 780 }, deviceScaleFactor: 2 });
  const urls = ['#/', '#/about', '#/play', '#/reproduce', '#/validation', '#/machine'];
  const wide = [];
  for (const u of urls) {
    await page.goto(`${srv.base}/${u}`);
    await appReady(page);
    await page.waitForTimeout(150);
    const w = await page.evaluate(() => {
      const doc = document.documentElement;
      if (doc.scrollWidth <= doc.clientWidth) return null;
      // Name the widest element for the message.
      let worst = null;
      for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect();
        if (r.right > doc.clientWidth + 1 && (!worst || r.right > worst.right)) {
          worst = { right: Math.round(r.right), what: `${el.tagName.toLowerCase()}.${el.className?.baseVal ?? el.className}` };
        }
      }
      return { scrollWidth: doc.scrollWidth, worst };
    });
    if (w) wide.push(`${u}: ${w.scrollWidth}px (${w.worst?.what} ends at ${w.worst?.right})`);
  }
  await shot(page, 'phone-last-step');
  assert.deepEqual(wide, [], `pages wider than 360 px:\n${wide.join('\n')}`);
  page.assertClean();
});

test('a typed number applies when committed, not per keystroke', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/play/skb-layout`);
  await appReady(page);
  const mtu = page.locator(tid('param-mtu'));
  await mtu.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('9000', { delay: 30 });
  await page.waitForTimeout(200);
  assert.doesNotMatch(decodeURIComponent(page.url()), /mtu=9\b/, 'no keystroke applied on its own');
  assert.equal(await mtu.inputValue(), '9000', 'the draft is kept while typing');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /mtu=9000/.test(decodeURIComponent(location.hash)));
  page.assertClean();
});

test('first load: bytes transferred by the home page (benchmark; brotli from the app server)', async () => {
  const page = await openPage(browser, srv.base, { serviceWorkers: 'block' });
  srv.stats.bytes.clear();
  await page.goto(`${srv.base}/#/`);
  await appReady(page);
  await page.waitForTimeout(300);
  const sent = [...srv.stats.bytes.entries()];
  const total = sent.reduce((a, [, b]) => a + b, 0);
  console.info(`[first-load] ${total} bytes over ${sent.length} requests: ${sent.map(([p, b]) => `${p} ${b}`).join(', ')}`);
  assert.ok(!sent.some(([p]) => /worker/.test(p)), 'the sweep worker loads only when a sweep starts');
  assert.ok(!sent.some(([p]) => /skblab-web/.test(p)), 'the home page loads its small wasm, not the full app');
  // The home page's first load transfers at most 300 KB (docs/performance.md).
  assert.ok(total <= 300_000, `first load ${total} bytes`);
  page.assertClean();
});

test('leaving the home page hands over to the full app; a deep link loads only the full app', async () => {
  const page = await openPage(browser, srv.base, { serviceWorkers: 'block' });
  srv.stats.bytes.clear();
  await page.goto(`${srv.base}/#/`);
  await appReady(page);
  await page.click(`${tid('lesson-card-skb-layout')} a`);
  await page.waitForSelector(tid('step-title'));
  assert.match(page.url(), /#\/lesson\/skb-layout\/1/);
  assert.ok([...srv.stats.bytes.keys()].some((p) => /skblab-web/.test(p)), 'the full app was fetched');
  // Back on the home page, the full app draws it (no second handover, no reload).
  await page.goBack();
  await page.waitForSelector(tid('lesson-card-skb-layout'));
  await page.goForward();
  await page.waitForSelector(tid('step-title'));
  page.assertClean();

  const deep = await openPage(browser, srv.base, { serviceWorkers: 'block' });
  srv.stats.bytes.clear();
  await deep.goto(`${srv.base}/#/lesson/skb-layout/2`);
  await deep.waitForSelector(tid('step-title'));
  assert.ok(![...srv.stats.bytes.keys()].some((p) => /skblab-home/.test(p)), 'a lesson link skips the home app');
  deep.assertClean();
});

test('after the first visit the app loads and runs with the network cut', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/`);
  await appReady(page);
  // The service worker caches the whole build (the sweep worker's files too) on install.
  const cached = async () => page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    return !!navigator.serviceWorker.controller && !!(await caches.match('./worker_bg.wasm'));
  });
  for (let i = 0; i < 100 && !(await cached()); i++) await page.waitForTimeout(100);
  assert.ok(await cached(), 'the service worker controls the page and has cached the worker');
  await page.context().setOffline(true);
  await page.reload();
  await appReady(page);
  await page.goto(`${srv.base}/#/play/high-order-alloc`);
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-chart"]')?.dataset.points) === 30,
    null, { timeout: 60000 });
  await shot(page, 'offline-sweep');
  await page.context().setOffline(false);
  page.assertClean();
});

test('copy link carries the model version; an older link says numbers may differ; sources are links', async () => {
  const page = await openPage(browser, srv.base, { permissions: ['clipboard-read', 'clipboard-write'] });
  await page.goto(`${srv.base}/#/lesson/skb-layout/2?mtu=9000`);
  await appReady(page);
  await page.click(tid('copy-link'));
  await page.waitForFunction(() => /copied/i.test(document.querySelector('[data-testid="copy-link-status"]').innerText));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, page.url());
  assert.match(copied, /mtu=9000.*model=\d+\.\d+\.\d+/);

  await page.goto(`${srv.base}/#/play/skb-layout?model=0.0.1`);
  await page.waitForSelector(tid('notice'));
  assert.match(await page.locator(tid('notice')).innerText(), /model 0\.0\.1.*may differ/);

  await page.goto(`${srv.base}/#/about`);
  await page.waitForSelector(tid('seed-sources'));
  assert.ok(await page.locator('a[href^="https://lore.kernel.org/"]').count() >= 5, 'seed posts link to the archive');
  assert.ok(await page.locator('a[href^="https://git.kernel.org/"]').count() >= 5, 'commits link to git.kernel.org');
  assert.doesNotMatch(await page.locator('main').innerText(), /`/, 'no literal backticks');
  page.assertClean();
});

/** Clicks the CSV button `id` and returns the download's file name and its lines. */
async function csvOf(page, id) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(tid(id))]);
  const lines = fs.readFileSync(await download.path(), 'utf8').trimEnd().split('\n');
  return { name: download.suggestedFilename(), header: lines[0], rows: lines.slice(1) };
}

test('every chart and custom table exports its numbers as CSV', async () => {
  const page = await openPage(browser, srv.base, { acceptDownloads: true });
  await page.goto(`${srv.base}/#/play/skb-layout?mtu=9000`);
  await appReady(page);
  // A custom view's canvas chart: the CSV holds the drawn series, one row per x.
  let csv = await csvOf(page, 'chart-csv');
  assert.equal(csv.name, 'skb-layout-mtu.csv');
  assert.match(csv.header, /^MTU \(bytes\),kmalloc object \(bytes\),head requested \(bytes\)/);
  assert.ok(csv.rows.length > 100, `${csv.rows.length} rows`);
  assert.ok(csv.rows.some((r) => /^9000,16384,/.test(r)), 'a 9000-byte MTU needs a 16 KiB object');
  csv = await csvOf(page, 'frags-chart-csv');
  assert.equal(csv.rows.length, 64, 'MAX_SKB_FRAGS 1..64');
  // A custom view's own table (the diagram's legend).
  csv = await csvOf(page, 'csv-skb-layout-legend');
  assert.equal(csv.header, 'span,offset (bytes),bytes,what');
  assert.ok(csv.rows.some((r) => /^shinfo fixed,\d+,\d+,/.test(r)), csv.rows.join(' / '));

  await page.goto(`${srv.base}/#/play/ktls-recursion`);
  await page.waitForSelector(tid('ktls-chart'));
  csv = await csvOf(page, 'ktls-chart-csv');
  assert.match(csv.header, /^tcp_skbs,[^,]+ peak stack \(bytes\),[^,]+ overflow/);
  assert.equal(csv.rows.length, 65);

  await page.goto(`${srv.base}/#/play/cross-cpu-free`);
  await page.waitForSelector(tid('xcpu-counters'));
  csv = await csvOf(page, 'csv-cross-cpu-free-counters');
  assert.equal(csv.header, 'cpu,role,free fast / skb,free slow / skb,list_lock / skb');
  assert.ok(csv.rows.length >= 2);

  // A generic chart of columns exports what it draws too (rows fill in as the sweep runs).
  await page.goto(`${srv.base}/#/play/high-order-alloc`);
  await page.waitForSelector(tid('chart-chart'));
  csv = await csvOf(page, 'chart-chart-csv');
  assert.equal(csv.name, 'high-order-alloc-chart.csv');
  assert.match(csv.header, /^flows \(netperf pairs\),order-3 frags \(sim\) \(Gbit\/s\),order-0 frags \(sim\) \(Gbit\/s\),/);
  page.assertClean();
});

test('diagrams export as standalone SVG', async () => {
  const page = await openPage(browser, srv.base, { acceptDownloads: true });
  await page.goto(`${srv.base}/#/play/skb-layout`);
  await appReady(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(tid('svg-skb-layout-diagram'))]);
  assert.equal(download.suggestedFilename(), 'skb-layout-diagram.svg');
  const text = fs.readFileSync(await download.path(), 'utf8');
  assert.match(text, /^<\?xml[^>]*>\s*<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(text, /<style>[^<]*--seg-payload/);
  page.assertClean();
});
