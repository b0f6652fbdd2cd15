// The browser lines of `make bench`, against a release build in headless
// Chromium, served as `make serve` serves it (brotli). Prints exactly:
//   deep-link: <int> bytes brotli          the heaviest lesson step (desktop or phone), bytes requested before its first view
//   sweep: <int> ms with <k> workers, <int> ms with 1 worker   the seed-000 sweep, warm
//   band: <int> ms for <n> profiles        high-order-alloc's default view, then its band
// and, with `seeds5` (not in this file's default set: ~30 s; scripts/bench-web.sh asks for it), `seeds-5 sweep: <int> ms with <k> workers, <int> ms with 1 worker`:
// the sweep of high-order-alloc's lesson step 4 (30 flows, `seeds = 5`), warm.
// and, on stderr, each step's bytes and first-view time. Usage (scripts/bench-web.sh):
//   SKBLAB_DIST=/path/to/dist node e2e/bench-web.mjs [deep-link] [sweep] [band] [seeds5]
import { startServer, launch, openPage, playableLessons, firstViewOf } from './tests/harness.mjs';

const parts = process.argv.slice(2);
const want = (p) => (parts.length === 0 && p !== 'seeds5') || parts.includes(p);

const srv = await startServer();
const browser = await launch();


/** Every step of every playable lesson: its first-view time and the bytes asked for before. */
async function deepLink() {
  const slugs = await playableLessons(browser, srv.base);
  let heaviest = { bytes: 0, url: '' };
  // A desktop window and a phone in dark mode (its copies' images have 2× pixels).
  const screens = [['desktop', {}], ['phone', { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, colorScheme: 'dark' }]];
  for (const [screen, options] of screens) for (const slug of slugs) {
    for (let step = 1; ; step++) {
      // A learner's first visit: the pre-rendered first view, when the build has one.
      const page = await openPage(browser, srv.base, { serviceWorkers: 'block', first: true, ...options });
      srv.stats.bytes.clear();
      await page.goto(`${srv.base}/#/lesson/${slug}/${step}`);
      // A step past the last is refused by the app (a notice, no views).
      const seen = await firstViewOf(page).catch(() => null);
      if (!seen) { await page.close(); break; }
      await page.waitForTimeout(100);
      const bytes = seen.paths.reduce((a, p) => a + (srv.stats.bytes.get(decodeURI(p)) ?? srv.stats.bytes.get(p) ?? 0), 0);
      const last = await page.evaluate(() => document.querySelector('nav.steps')?.querySelectorAll('li').length ?? 0);
      const from = seen.copy ? 'pre-rendered' : 'the app';
      console.error(`  ${slug}/${step} (${screen}): first view ${seen.ms} ms (${from}), ${bytes} bytes brotli before it`);
      if (bytes > heaviest.bytes) heaviest = { bytes, url: `${slug}/${step} (${screen})` };
      await page.close();
      if (last && step >= last) break;
      if (step >= 40) break;
    }
  }
  console.error(`  heaviest: ${heaviest.url}`);
  console.log(`deep-link: ${heaviest.bytes} bytes brotli`);
}

/** A page with `workers` workers (undefined: the browser's count), logging finished runs. */
async function poolPage(workers) {
  const page = await openPage(browser, srv.base, { serviceWorkers: 'block' });
  if (workers) await page.context().addInitScript((n) => localStorage.setItem('skblab-workers', String(n)), workers);
  page.lines = [];
  page.on('console', (m) => { if (m.text().startsWith('skblab: ')) page.lines.push(m.text()); });
  return page;
}

async function nextLine(page, re, timeout = 120000) {
  const seen = page.lines.length;
  const t0 = Date.now();
  for (;;) {
    const hit = page.lines.slice(seen).map((l) => l.match(re)).find(Boolean);
    if (hit) return hit;
    if (Date.now() - t0 > timeout) throw new Error(`no line ${re} in ${timeout} ms`);
    await page.waitForTimeout(20);
  }
}

const SWEEP = / points of high-order-alloc in (\d+) ms on (\d+) workers/;

/** The seed-000 sweep (`query` adds settings), warm (workers started by a first run), best of three seeds. */
async function sweepOn(workers, query = '') {
  const page = await poolPage(workers);
  const cold = nextLine(page, SWEEP);
  await page.goto(`${srv.base}/#/play/high-order-alloc`);
  await cold;
  let best = Infinity; let k = 0;
  for (const seed of [2, 3, 4]) {
    const run = nextLine(page, SWEEP);
    await page.goto(`${srv.base}/#/play/high-order-alloc?seed=${seed}${query}`);
    const m = await run;
    console.error(`  ${m.input.replace(/^skblab: /, '')}`);
    best = Math.min(best, Number(m[1]));
    k = Number(m[2]);
  }
  await page.close();
  return { ms: best, workers: k };
}

async function sweep() {
  const one = await sweepOn(1);
  const pool = await sweepOn(undefined);
  console.log(`sweep: ${pool.ms} ms with ${pool.workers} workers, ${one.ms} ms with 1 worker`);
}

/** The sweep of high-order-alloc's lesson step 4: 30 flows on five seeds. */
async function seeds5() {
  const one = await sweepOn(1, '&seeds=5');
  const pool = await sweepOn(undefined, '&seeds=5');
  console.log(`seeds-5 sweep: ${pool.ms} ms with ${pool.workers} workers, ${one.ms} ms with 1 worker`);
}

/** high-order-alloc's playground (its default view) and then its uncertainty band, from the navigation to the last sample. */
async function band() {
  const page = await poolPage(undefined);
  const t0 = Date.now();
  const run = nextLine(page, SWEEP);
  await page.goto(`${srv.base}/#/play/high-order-alloc`);
  await run;
  const done = nextLine(page, /band of (\d+) samples of high-order-alloc in (\d+) ms/, 600000);
  await page.click('[data-testid="band-start"]');
  const m = await done;
  const ms = Date.now() - t0;
  console.error(`  band alone: ${m[2]} ms`);
  console.log(`band: ${ms} ms for ${m[1]} profiles`);
  await page.close();
}

try {
  if (want('deep-link')) await deepLink();
  if (want('sweep')) await sweep();
  if (want('band')) await band();
  if (want('seeds5')) await seeds5();
} finally {
  await browser.close();
  srv.server.close();
}
