// A hostile user's pass over what the page promises about long work and kept state (not part
// of `make test`: a few minutes, one Chromium). Each check is tried as a user would break it:
//  - work stops when nothing needs it: a visible sweep, a pinned run, a playground's band, the
//    Reproduce page and a machine fit each left mid-way (another page, Stop, Unpin), then the
//    browser's CPU over the next seconds must fall to idle;
//  - every long job shows its estimate before it starts and a progress, ETA and Stop while
//    it runs (a pinned link of hours, a band, a heavy measurement file);
//  - two tabs writing progress and ledger at the same moment keep both tabs' entries;
//  - a full localStorage: a visible notice, the tab keeps the progress, and writes it once
//    there is room again;
//  - the seed box keeps what is typed, fast, while a sweep streams rows.
//   cd e2e && SKBLAB_DIST=../dist node hostile/deliver.mjs
import fs from 'node:fs';
import { startServer, launch, openPage, appReady, tid, cpuOver } from '../tests/harness.mjs';

/** CPU seconds the browser uses over `ms`. */
const busy = (page, ms = 4000) => cpuOver(page, ms);

/** The browser's CPU seconds over 3 s on the page, then over 4 s from 1.5 s after leaving it
 * for #/about. */
async function busyBeforeAndAfterLeaving(page) {
  const during = await busy(page, 3000);
  await page.evaluate(() => { location.hash = '#/about'; });
  await page.waitForTimeout(1500);
  return { during, after: await busy(page, 4000) };
}


const results = [];
async function check(name, fn) {
  const t0 = Date.now();
  try {
    const detail = await fn();
    results.push({ name, ok: true, detail });
    console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(0)} s) ${detail ?? ''}`);
  } catch (e) {
    results.push({ name, ok: false, detail: e.message });
    console.log(`FAIL ${name}: ${e.message.split('\n').slice(0, 4).join(' | ')}`);
  }
}
const expect = (cond, what) => { if (!cond) throw new Error(what); };

const srv = await startServer();
const base = srv.base;
const browser = await launch();
const open = () => openPage(browser, base, { serviceWorkers: 'block', viewport: { width: 1280, height: 900 } });
const BIG = 'min_threads=1,max_threads=256,seeds=10,sockets=8,cpus=512,measure_us=20000,warmup_us=10000,seed=1';

await check('a visible sweep left for another page stops', async () => {
  const page = await open();
  await page.goto(`${base}/#/play/high-order-alloc?max_threads=256&cpus=112&sockets=2&measure_us=5000&seeds=2`);
  await appReady(page);
  if (await page.locator(tid('run-confirm-start')).count()) await page.click(tid('run-confirm-start'));
  await page.waitForSelector(tid('run-stop'), { timeout: 30000 });
  const { during, after } = await busyBeforeAndAfterLeaving(page);
  page.assertClean();
  await page.context().close();
  expect(during > 1.0, `the sweep was not running (${during.toFixed(1)} CPU-s in 3 s)`);
  expect(after < 0.8, `still busy after leaving: ${after.toFixed(1)} CPU-s in 4 s`);
  return `busy ${during.toFixed(1)} CPU-s/3 s while running, ${after.toFixed(1)} CPU-s/4 s after leaving`;
});

await check('a pinned link of hours asks first, shows its estimate; started then unpinned it stops', async () => {
  const page = await open();
  await page.goto(`${base}/#/play/high-order-alloc?min_threads=1&max_threads=1&pin=${encodeURIComponent(BIG)}`);
  await appReady(page);
  const a = tid('compare-a-control');
  await page.waitForSelector(`${a} ${tid('run-confirm')}`, { timeout: 30000 });
  const ask = await page.locator(`${a} ${tid('run-confirm')}`).innerText();
  expect(/about/.test(ask), `no estimate in the go-ahead: ${ask}`);
  const idle = await busy(page, 3000);
  await page.click(`${a} ${tid('run-confirm-start')}`);
  await page.waitForSelector(`${a} ${tid('run-stop')}`, { timeout: 10000 });
  const eta = await page.locator(a).innerText();
  const during = await busy(page, 3000);
  await page.click(tid('unpin-run'));
  await page.waitForTimeout(1500);
  const after = await busy(page, 4000);
  page.assertClean();
  await page.context().close();
  expect(idle < 0.8, `busy before the go-ahead: ${idle.toFixed(1)} CPU-s`);
  expect(/left|ETA|remaining/i.test(eta), `no ETA while running: ${eta.slice(0, 200)}`);
  expect(after < 0.8, `still busy after Unpin: ${after.toFixed(1)} CPU-s in 4 s (${during.toFixed(1)} while running)`);
  return `ask: "${ask.replace(/\s+/g, ' ').slice(0, 120)}"; ${idle.toFixed(1)} / ${during.toFixed(1)} / ${after.toFixed(1)} CPU-s before / during / after`;
});

await check('a band on a playground: estimate first, progress/ETA/Stop, and leaving stops it', async () => {
  const page = await open();
  await page.goto(`${base}/#/play/high-order-alloc`);
  await appReady(page);
  const start = page.locator(tid('band-start')).first();
  await start.waitFor({ timeout: 120000 });
  const panel = await page.locator(tid('band-panel')).first().innerText();
  expect(/estimated/.test(panel), `no estimate beside the band's start: ${panel}`);
  await start.click();
  await page.locator(tid('band-stop')).first().waitFor({ timeout: 20000 });
  await page.locator(tid('band-eta')).first().waitFor({ timeout: 20000 });
  const { during, after } = await busyBeforeAndAfterLeaving(page);
  page.assertClean();
  await page.context().close();
  expect(after < 0.8, `still busy after leaving the band: ${after.toFixed(1)} CPU-s in 4 s (${during.toFixed(1)} while running)`);
  return `"${panel.replace(/\s+/g, ' ').slice(0, 140)}"; ${during.toFixed(1)} / ${after.toFixed(1)} CPU-s during / after`;
});

await check('the Reproduce page left mid-way stops its runs', async () => {
  const page = await open();
  await page.goto(`${base}/#/reproduce?seeds=20`);
  await appReady(page);
  const text = await page.locator('main').innerText();
  const { during, after } = await busyBeforeAndAfterLeaving(page);
  page.assertClean();
  await page.context().close();
  expect(after < 0.8, `still busy after leaving: ${after.toFixed(1)} CPU-s in 4 s`);
  return `${/estimat[^.]*\./i.exec(text)?.[0]?.slice(0, 140) ?? '(no estimate line)'}; ${during.toFixed(1)} / ${after.toFixed(1)} CPU-s`;
});

await check('a heavy machine fit: estimate, progress, ETA, Stop; leaving stops it', async () => {
  const ref = JSON.parse(fs.readFileSync(new URL('../../data/measurements/2026-12-02-amd-epyc-f25m1.json', import.meta.url), 'utf8'));
  const cell = ref.suites.stream.cells[0];
  ref.suites.stream.cells = Array.from({ length: 256 }, (_, k) => ({ ...cell, id: `tcp-16flow-64k-${k}`, setting: { flows: 16, msg_bytes: 65536, order: k % 2 ? 0 : 3 } }));
  const page = await open();
  await page.goto(`${base}/#/machine`);
  await appReady(page);
  await page.waitForSelector(tid('machine-page'));
  await page.setInputFiles(tid('machine-file'), { name: 'heavy.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(ref)) });
  await page.locator(tid('machine-stop')).waitFor({ timeout: 60000 });
  const shown = await page.locator(tid('machine-page')).innerText();
  await page.locator(tid('machine-eta')).waitFor({ timeout: 60000 });
  const { during, after } = await busyBeforeAndAfterLeaving(page);
  await page.evaluate(() => { location.hash = '#/machine'; });
  await page.waitForSelector(tid('machine-page'));
  await page.waitForTimeout(1500);
  const back = await page.locator(tid('machine-page')).innerText();
  page.assertClean();
  await page.context().close();
  expect(/estimat|about/i.test(shown), 'no estimate shown');
  expect(after < 0.8, `still busy after leaving: ${after.toFixed(1)} CPU-s in 4 s (${during.toFixed(1)} while running)`);
  return `${during.toFixed(1)} / ${after.toFixed(1)} CPU-s during / after; back: ${back.match(/(Stopped[^.]*\.|Fitting[^.]*\.|about \d+ \w+ left)/)?.[0] ?? '(no state line)'}`;
});

await check('two tabs writing progress and ledger at once keep both', async () => {
  const ctx = await browser.newContext({ serviceWorkers: 'block' });
  await ctx.addInitScript(() => { window.skblabNoFirst = true; });
  const a = await ctx.newPage();
  const b = await ctx.newPage();
  await Promise.all([a.goto(`${base}/#/lesson/skb-layout/1`), b.goto(`${base}/#/lesson/page-frag-free/1`)]);
  await Promise.all([appReady(a), appReady(b)]);
  for (let s = 2; s <= 5; s++) {
    await Promise.all([
      a.evaluate((n) => { location.hash = `#/lesson/skb-layout/${n}`; }, s),
      b.evaluate((n) => { location.hash = `#/lesson/page-frag-free/${n}`; }, s),
    ]);
    await a.waitForTimeout(300);
  }
  await a.waitForTimeout(1500);
  const stored = JSON.parse(await a.evaluate(() => localStorage.getItem('skblab.progress.v1')) || '{}');
  await Promise.all([a.evaluate(() => { location.hash = '#/'; }), b.evaluate(() => { location.hash = '#/'; })]);
  await a.waitForTimeout(1500);
  const cards = await Promise.all([a, b].map((p) => p.locator(tid('progress-page-frag-free')).innerText().catch(() => '?')));
  const cardsA = await Promise.all([a, b].map((p) => p.locator(tid('progress-skb-layout')).innerText().catch(() => '?')));
  await ctx.close();
  const v = stored.visited || {};
  expect(JSON.stringify(v['skb-layout']) === '[0,1,2,3,4]' && JSON.stringify(v['page-frag-free']) === '[0,1,2,3,4]', `stored: ${JSON.stringify(v)}`);
  expect(cards.every((c) => /\b5 \//.test(c)) && cardsA.every((c) => /\b5 \//.test(c)), `home cards: ${cards} / ${cardsA}`);
  return `stored ${JSON.stringify(v)}`;
});

await check('a full store: a visible notice, progress kept in the tab and written once there is room', async () => {
  const page = await open();
  await page.goto(`${base}/#/lesson/skb-layout/1`);
  await appReady(page);
  await page.evaluate(() => {
    let i = 0;
    let last = null;
    for (let size = 1 << 20; size >= 1; size >>= 1) {
      for (;;) {
        try { localStorage.setItem(`fill${i}`, 'x'.repeat(size)); last = `fill${i++}`; } catch { break; }
      }
    }
    let v = localStorage.getItem(last);
    try { for (;;) { v += 'x'; localStorage.setItem(last, v); } } catch { /* full */ }
  });
  await page.evaluate(() => { location.hash = '#/lesson/skb-layout/3'; });
  const notice = await page.locator(tid('notice')).innerText({ timeout: 10000 }).catch(() => '');
  await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith('fill')) localStorage.removeItem(k); });
  await page.evaluate(() => { location.hash = '#/lesson/skb-layout/4'; });
  await page.waitForTimeout(1500);
  const stored = JSON.parse(await page.evaluate(() => localStorage.getItem('skblab.progress.v1')) || '{}');
  page.assertClean();
  await page.context().close();
  expect(/full/.test(notice), `no notice of a full store: ${JSON.stringify(notice)}`);
  expect(JSON.stringify(stored.visited?.['skb-layout']) === '[0,2,3]', `after room again: ${JSON.stringify(stored)}`);
  return `notice: "${notice.replace(/\s+/g, ' ').slice(0, 160)}"`;
});

await check('the seed box keeps fast typing while a sweep streams (5 trials)', async () => {
  const page = await open();
  const lost = [];
  for (let t = 0; t < 5; t++) {
    await page.goto(`${base}/#/play/high-order-alloc?max_threads=40&seeds=2&seed=${t + 1}`);
    await appReady(page);
    await page.waitForSelector(tid('sweep-progress'));
    const seed = page.locator(tid('param-seed'));
    await seed.click();
    await seed.press('Control+a');
    const typed = String(4242 + t * 1111);
    await seed.pressSequentially(typed, { delay: 15 + t * 20 });
    const got = await seed.inputValue();
    if (got !== typed) lost.push(`${typed} became ${got}`);
  }
  page.assertClean();
  await page.context().close();
  expect(!lost.length, lost.join(', '));
  return '5 of 5 kept';
});

await browser.close();
srv.server.close();
const failed = results.filter((r) => !r.ok).length;
console.log(`\ndeliver checks: ${results.length} tried, ${failed} failed`);
process.exit(failed ? 1 : 0);
