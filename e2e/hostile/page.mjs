// A hostile user's pass over the page (not part of `make test`: about 15 min, one Chromium).
// Hostile URLs (unknown routes, bad and huge parameters, NaN/inf, unicode, invisible and
// control characters, broken percent escapes, script and markup payloads, pins of hours of
// work, long hashes) and corrupt localStorage states (every key the app keeps: broken JSON,
// wrong types, newer formats, huge and deep values, payloads), each in a fresh context of
// headless Chromium. Each must give: no page error, no console error, no CSP violation, no
// request off the origin, no script or markup from the URL or the store in the page, a tab
// that answers within 10 s, a visible notice of one line for a refusal, and no busy workers
// without a visible progress and Stop (huge work waits for a go-ahead).
//   cd e2e && SKBLAB_DIST=../dist node hostile/page.mjs [urls|storage]
// Prints one line per finding and the counts per category (tried / failed).
import fs from 'node:fs';
import { startServer, launch, openPage, appReady, tid, browserCpu } from '../tests/harness.mjs';

const ONLY = process.argv[2];
const X = '<b data-xss="1">x</b><img src=x onerror="window.__xss=1"><svg onload="window.__xss=1">';
const enc = encodeURIComponent;
const BIG_PIN = 'min_threads=1,max_threads=256,seeds=10,sockets=8,cpus=512,measure_us=20000,warmup_us=10000,seed=1';

/** [category, hash, expect a notice] */
export const URLS = [
  ['route', '#/nope', true], ['route', '#/play/nope', true], ['route', '#/lesson/nope/1', true],
  ['route', '#/lesson/skb-layout/0', true], ['route', '#/lesson/skb-layout/99999', true], ['route', '#/lesson/skb-layout/-1', true],
  ['route', '#/lesson/skb-layout/1e3', true], ['route', '#/lesson/skb-layout/%EF%BC%91', true], ['route', '#/lesson/skb-layout/2/extra', true],
  ['route', '#/play/skb-layout/extra', true], ['route', '#/machine?x=1', true], ['route', '#/about?q', true], ['route', '#//////', false],
  ['route', '#/PLAY/skb-layout', true], ['route', `#/${'a/'.repeat(5000)}`, true],
  ['bad value', '#/play/skb-layout?mtu=67', true], ['bad value', '#/play/skb-layout?mtu=65536', true], ['bad value', '#/play/skb-layout?frag_bytes=5', true],
  ['bad value', '#/play/skb-layout?page_size=4097', true], ['bad value', '#/play/high-order-alloc?cpus=57', true],
  ['bad value', '#/play/high-order-alloc?min_threads=40&max_threads=2', true], ['bad value', '#/play/page-frag-free?pcp_batch=400', true],
  ['bad value', '#/play/skb-cache?threads=2048', true], ['bad value', '#/play/percpu-counter?x=1', true], ['bad value', '#/play/skb-layout?preset=nope', true],
  ['bad value', '#/play/cross-cpu-free?rfs=yes', true], ['bad value', '#/play/skb-layout?mtu=1500&mtu=9000', true], ['bad value', '#/play/skb-layout?=1', true],
  ['bad value', '#/play/skb-layout?mtu', true], ['bad value', '#/play/skb-layout?&&&=&=', true], ['bad value', '#/play/skb-layout?seed=-1', true],
  ['bad value', '#/play/skb-layout?seed=99999999999999999999999', true], ['bad value', '#/reproduce?seeds=0', true], ['bad value', '#/reproduce?seeds=51', true],
  ['bad value', '#/reproduce?seeds=NaN', true], ['bad value', '#/reproduce?seeds=1e9', true],
  ['number', '#/play/skb-layout?mtu=NaN', true], ['number', '#/play/skb-layout?mtu=Infinity', true], ['number', '#/play/skb-layout?mtu=-inf', true],
  ['number', '#/play/skb-layout?mtu=1e400', true], ['number', `#/play/skb-layout?mtu=${'9'.repeat(100000)}`, true], ['number', '#/play/skb-layout?mtu=1500.5', true],
  ['number', '#/play/skb-layout?mtu=0x5dc', true], ['number', '#/play/skb-layout?mtu=%2B1500', true], ['number', '#/play/skb-layout?mtu=01500', true],
  ['number', '#/play/skb-layout?mtu=1.7e308', true],
  ['unicode', '#/play/skb-layout?mtu=%EF%BC%91%EF%BC%95%EF%BC%90%EF%BC%90', true], ['unicode', '#/play/skb-layout?mtu=1500%E2%80%8B', true],
  ['unicode', '#/play/skb-layout?mtu%E2%80%AE=1500', true], ['unicode', '#/play/skb-layout?preset=%1B%5B31m%0Anext', true],
  ['unicode', '#/play/skb-layout?mtu=%00', true], ['unicode', '#/play/skb-%E2%80%8Blayout', true], ['unicode', '#/play/skb-layout?m%CC%81tu=1', true],
  ['unicode', '#/lesson/skb-layout/2?seed=%EF%BB%BF1', true], ['unicode', `#/play/skb-layout?${'%F0%9F%98%80'.repeat(3000)}=1`, true],
  ['percent', '#/play/skb-layout?mtu=%', true], ['percent', '#/play/skb-layout?mtu=%E0%A4%A', true], ['percent', '#/play/%', true],
  ['percent', '#/lesson/%FF/1', true], ['percent', '#/play/skb-layout?%ZZ=1', true], ['percent', '#%', true],
  ['payload', `#/play/${enc(X)}`, true], ['payload', `#/play/skb-layout?${enc(X)}=1`, true], ['payload', `#/play/skb-layout?preset=${enc(X)}`, true],
  ['payload', `#/lesson/${enc(X)}/1`, true], ['payload', `#/play/skb-layout?pin=${enc(`mtu=${X}`)}`, true], ['payload', '#/play/skb-layout?mtu=javascript:alert(1)', true],
  ['payload', `#/${enc(X)}`, true], ['payload', '#/play/skb-layout?preset={{7*7}}${7*7}', true], ['payload', `#/reproduce?seeds=${enc(X)}`, true],
  ['payload', `#/play/skb-layout?mtu=${enc('"><script>window.__xss=1</script>')}`, true],
  ['pin', `#/play/high-order-alloc?min_threads=1&max_threads=1&pin=${enc(BIG_PIN)}`, false],
  ['pin', `#/play/high-order-alloc?max_threads=1&pin=${enc(BIG_PIN)}&pin=${enc(BIG_PIN)}`, true], ['pin', '#/play/skb-layout?pin=garbage', true],
  ['pin', `#/play/skb-layout?pin=${enc('pin=mtu%3D9000')}`, true], ['pin', `#/play/skb-layout?pin=${enc('mtu=67')}`, true],
  ['pin', `#/play/skb-layout?pin=${enc('x'.repeat(100000))}`, true], ['pin', `#/lesson/high-order-alloc/3?pin=${enc(BIG_PIN)}`, false],
  ['pin', `#/play/page-frag-free?pin=${enc('offered_kpps=200000,measure_us=20000,warmup_us=20000,cpus=64,sockets=4,rx_queues=128')}`, false],
  ['huge work', '#/play/high-order-alloc?min_threads=1&max_threads=256&seeds=10&sockets=8&cpus=512&measure_us=20000&warmup_us=10000', false],
  ['huge work', '#/play/skb-cache?flows=1000000&threads=448', false], ['huge work', '#/play/cross-cpu-free?measure_us=100000&reader_work_ns=100000&consumer=dispatcher&consumers=15', false],
  ['huge work', '#/lesson/high-order-alloc/2?max_threads=256&cpus=512&sockets=8&seeds=10&measure_us=20000', false],
  ['huge work', '#/play/percpu-counter?' + 'seed=1', false], ['huge work', '#/reproduce?seeds=50', false],
  ['long', `#/play/skb-layout?${Array.from({ length: 3000 }, (_, i) => `x${i}=1`).join('&')}`, true], ['long', `#/${'x'.repeat(200000)}`, true],
];

const STORE = {
  progress: 'skblab.progress.v1', ledger: 'skblab.ledger.v1', machine: 'skblab-machine-v1', practice: 'skblab.practice.v1',
  workers: 'skblab-workers', dismissed: 'skblab-progress-notice-dismissed',
};
const deep = `${'['.repeat(100000)}${']'.repeat(100000)}`;
const huge = `{"visited":{"skb-layout":[0]},"pad":"${'x'.repeat(3 << 20)}"}`;
/** [name, { key: text }, page to open] */
export const STATES = [
  ['progress not JSON', { [STORE.progress]: '{"visited":' }, '#/'], ['progress array', { [STORE.progress]: '[]' }, '#/'],
  ['progress number', { [STORE.progress]: '1e308' }, '#/'], ['progress deep', { [STORE.progress]: deep }, '#/'],
  ['progress huge', { [STORE.progress]: huge }, '#/'], ['progress payload', { [STORE.progress]: JSON.stringify({ visited: { [X]: [0], 'skb-layout': [X, -1, 1e308, 1.5, 'NaN'] } }) }, '#/'],
  ['progress newer', { [STORE.progress]: JSON.stringify({ v: 99, visited: { 'skb-layout': [0, 1] }, future: { x: [1] } }) }, '#/'],
  ['progress steps 1e9', { [STORE.progress]: JSON.stringify({ visited: { 'skb-layout': [1e9, 2 ** 53] }, correct: { 'skb-layout': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] } }) }, '#/'],
  ['progress null fields', { [STORE.progress]: '{"visited":null,"correct":"x"}' }, '#/lesson/skb-layout/2'],
  ['ledger not JSON', { [STORE.ledger]: '{{{' }, '#/lesson/skb-layout/2'], ['ledger payload', { [STORE.ledger]: JSON.stringify({ v: 1, entries: [{ lesson: X, step: X, answer: X, at: X }] }) }, '#/'],
  ['ledger newer', { [STORE.ledger]: JSON.stringify({ v: 7, entries: [], more: 1 }) }, '#/lesson/skb-layout/2'],
  ['ledger huge', { [STORE.ledger]: `{"v":1,"entries":[${Array.from({ length: 40000 }, () => '{"x":1}').join(',')}]}` }, '#/'],
  ['ledger deep', { [STORE.ledger]: deep }, '#/lesson/skb-layout/2'],
  ['machine broken', { [STORE.machine]: '{"v":1,"name":"x"' }, '#/machine'],
  ['machine payload name', { [STORE.machine]: JSON.stringify({ v: 1, name: X, text: '{}' }) }, '#/machine'],
  ['machine 1.7e308', { [STORE.machine]: JSON.stringify({ v: 1, name: 'h.json', text: fs.readFileSync(new URL('../../core/tests/data/hostile-measure/reject/huge-values.json', import.meta.url), 'utf8') }) }, '#/machine'],
  ['machine escapes', { [STORE.machine]: JSON.stringify({ v: 1, name: 'e.json', text: fs.readFileSync(new URL('../../core/tests/data/hostile-measure/accept/escapes-everywhere.json', import.meta.url), 'utf8') }) }, '#/machine'],
  ['machine measured zero', { [STORE.machine]: JSON.stringify({ v: 1, name: 'z.json', text: fs.readFileSync(new URL('../../core/tests/data/hostile-measure/accept/measured-zero.json', import.meta.url), 'utf8') }) }, '#/machine'],
  ['machine tiny', { [STORE.machine]: JSON.stringify({ v: 1, name: 't.json', text: fs.readFileSync(new URL('../../core/tests/data/hostile-measure/accept/tiny-values.json', import.meta.url), 'utf8') }) }, '#/machine'],
  ['machine 4096 cpus', { [STORE.machine]: JSON.stringify({ v: 1, name: 'c.json', text: fs.readFileSync(new URL('../../core/tests/data/hostile-measure/accept/cpus-4096.json', import.meta.url), 'utf8') }) }, '#/machine'],
  ['machine newer', { [STORE.machine]: JSON.stringify({ v: 2, name: 'n.json', text: '{}' }) }, '#/machine'],
  ['machine text 4.3 MB', { [STORE.machine]: JSON.stringify({ v: 1, name: 'big.json', text: `{"tool":"${'x'.repeat(4_300_000)}"}` }) }, '#/machine'],
  ['practice broken', { [STORE.practice]: '{"v":1,"lesson":' }, '#/lesson/skb-layout/2'],
  ['practice payload', { [STORE.practice]: JSON.stringify({ v: 1, lesson: X, step: 1e308, answers: [X] }) }, '#/lesson/skb-layout/2'],
  ['workers 0', { [STORE.workers]: '0' }, '#/play/high-order-alloc'], ['workers 1e9', { [STORE.workers]: '1000000000' }, '#/play/high-order-alloc'],
  ['workers NaN', { [STORE.workers]: 'NaN' }, '#/play/high-order-alloc'], ['workers -1', { [STORE.workers]: '-1' }, '#/play/high-order-alloc'],
  ['dismissed junk', { [STORE.dismissed]: X, [STORE.progress]: '[]' }, '#/'],
  ['every key junk', Object.fromEntries(Object.values(STORE).map((k) => [k, '\u0000\uffff\ud800'])), '#/lesson/skb-layout/2'],
  ['old keys', { 'skblab-machine': 'old', 'skblab-machine-v0': X, 'skblab.progress.v0': X }, '#/machine'],
];


const withTimeout = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(() => r('TIMEOUT'), ms))]);

async function probe(browser, base, hash, items, expectNotice) {
  const page = await openPage(browser, base, { serviceWorkers: 'block' });
  const problems = [];
  page.on('dialog', (d) => { problems.push(`XSS: a ${d.type()} dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
  if (items) {
    await page.context().addInitScript((it) => {
      if (!sessionStorage.getItem('seeded')) {
        // What does not fit is not stored (the quota is the browser's, not the app's doing).
        for (const [k, v] of Object.entries(it)) { try { localStorage.setItem(k, v); } catch { /* over the quota */ } }
        sessionStorage.setItem('seeded', '1');
      }
    }, items);
  }
  try {
    await withTimeout(page.goto(`${base}/${hash}`, { timeout: 20000 }), 25000);
    const ready = await withTimeout(appReady(page).then(() => 'ok', (e) => e.message.split('\n')[0]), 25000);
    if (ready !== 'ok') problems.push(`app not ready: ${ready}`);
    await page.waitForTimeout(1500);
    const alive = await withTimeout(page.evaluate(() => 1), 10000);
    if (alive !== 1) problems.push('hung: the tab did not answer in 10 s');
    else {
      const cpu0 = browserCpu();
      await page.waitForTimeout(3000);
      const busy = browserCpu() - cpu0;
      const seen = await withTimeout(page.evaluate(() => {
        const q = (s) => [...document.querySelectorAll(s)];
        const visible = (e) => e && e.getClientRects().length > 0;
        const notices = q('[data-testid="notice"], [data-testid="machine-notice"], [data-testid="machine-error"], [role="alert"], .notice')
          .filter(visible)
          // A notice box's lines are its list items (under its heading, beside Dismiss).
          .flatMap((e) => (e.querySelector('li') ? [...e.querySelectorAll('li')] : [e]).map((l) => l.innerText.trim()))
          .filter(Boolean);
        return {
          xss: Boolean(window.__xss) || q('[data-xss], img[src="x"], svg[onload], script:not([src]):not([type])').filter((e) => !e.closest('head') && !e.id?.startsWith('sk')).length > 0,
          notices,
          // The Reproduce page's Stop (one per experiment's progress line) has no test id.
          stop: q('[data-testid="run-stop"], [data-testid="machine-stop"], [data-testid="band-stop"]').some(visible)
            || q('.run-progress button').some((b) => visible(b) && b.innerText.trim() === 'Stop'),
          confirm: q('[data-testid="run-confirm"]').some(visible),
          progress: q('[data-testid="sweep-progress"], [data-testid="machine-progress"], progress, [role="progressbar"]').some(visible),
          text: document.body.innerText.length,
        };
      }), 10000);
      if (seen === 'TIMEOUT') problems.push('hung: the tab did not answer in 10 s (reading the DOM)');
      else {
        if (seen.xss) problems.push('XSS: markup or script from the input is in the page');
        if (expectNotice && !seen.notices.length) problems.push('no visible notice for a refusal');
        for (const n of seen.notices) if (n.includes('\n')) problems.push(`a notice of ${n.split('\n').length} lines: ${JSON.stringify(n.slice(0, 200))}`);
        if (busy > 2.0 && !(seen.stop && seen.progress)) problems.push(`busy (${busy.toFixed(1)} CPU-s in 3 s) with no visible progress and Stop`);
        page.info = { busy: busy.toFixed(1), confirm: seen.confirm, stop: seen.stop, notices: seen.notices.map((n) => n.slice(0, 140)) };
      }
    }
  } catch (e) {
    problems.push(`driver: ${e.message.split('\n')[0]}`);
  }
  try { page.assertClean(); } catch (e) { problems.push(...e.message.split('\n').map((l) => l.slice(0, 300))); }
  const info = page.info;
  await withTimeout(page.context().close(), 10000);
  return { problems, info };
}

const srv = await startServer();
const browser = await launch();
const counts = {};
const failures = [];
const tally = (cat, problems, what, info) => {
  counts[cat] ??= { tried: 0, failed: 0 };
  counts[cat].tried += 1;
  if (problems.length) { counts[cat].failed += 1; failures.push(`[${cat}] ${what}: ${problems.join(' | ')}`); }
  console.log(`${problems.length ? 'FAIL' : 'ok  '} [${cat}] ${what.slice(0, 120)} ${JSON.stringify(info ?? {})}${problems.length ? `\n     ${problems.join('\n     ')}` : ''}`);
};
const t0 = Date.now();
if (ONLY !== 'storage') {
  for (const [cat, hash, expectNotice] of URLS) {
    const { problems, info } = await probe(browser, srv.base, hash, null, expectNotice);
    tally(`url: ${cat}`, problems, hash.length > 150 ? `${hash.slice(0, 100)}…(${hash.length} chars)` : hash, info);
  }
}
if (ONLY !== 'urls') {
  for (const [name, items, hash] of STATES) {
    const { problems, info } = await probe(browser, srv.base, hash, items, false);
    tally('storage', problems, `${name} on ${hash}`, info);
  }
}
await browser.close();
srv.server.close();
console.log(`\nhostile page pass in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
for (const [cat, k] of Object.entries(counts)) console.log(`${cat.padEnd(22)} tried ${String(k.tried).padStart(3)}, failed ${k.failed}`);
for (const f of failures) console.log(`FAIL ${f}`);
process.exit(failures.length ? 1 : 0);
