//! A new version deployed while a tab is open: tab A opens v1 at `#/`
//! and its service worker caches v1; the server switches to v2 (a copy of the build whose
//! full-app files carry other hashes, as a real new build's do); tab B loads v2, whose service
//! worker takes over both tabs. Tab A is told "a new version is ready", and clicking a lesson
//! opens it (in v2) instead of hanging on the boot screen; no cache holds HTML under a script,
//! wasm or stylesheet name; v1's hashed files stay cached for tabs still on v1 while the server
//! answers them 404; both tabs log no error, online or offline.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStaticServer } from '../../scripts/serve.mjs';
import { DIST, launch, appReady } from './harness.mjs';

const tid = (id) => `[data-testid="${id}"]`;
let browser;
let srv;
let setRoot;
let base;
let v2;
let names;

/** Inline scripts' CSP hashes, as scripts/csp-hash.mjs computes them. */
const inlineHashes = (html) => [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
  .filter(([, attrs]) => !/\bsrc\s*=/i.test(attrs))
  .map(([, , body]) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);

/**
 * v2: a copy of DIST where the full app's content hash, the cache name and the build name
 * differ (and the CSP's inline-script hash follows the edited loader). Precompressed copies
 * are left out (the server compresses on the fly).
 */
function makeV2() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skblab-v2-'));
  const files = fs.readdirSync(DIST);
  const js = files.find((f) => /^skblab-web-[0-9a-f]{10,16}\.js$/.test(f));
  assert.ok(js, `no skblab-web-<hash>.js in ${DIST}`);
  const oldHash = js.match(/^skblab-web-([0-9a-f]{10,16})\.js$/)[1];
  const newHash = [...oldHash].map((c) => ((parseInt(c, 16) + 1) % 16).toString(16)).join('');
  const sw = fs.readFileSync(path.join(DIST, 'sw.js'), 'utf8');
  const oldCache = sw.match(/const CACHE = '(skblab-[0-9a-f]{16})';/)[1];
  const newCache = `skblab-${[...oldCache.slice(7)].map((c) => ((parseInt(c, 16) + 1) % 16).toString(16)).join('')}`;
  const edit = (text) => text.replaceAll(oldHash, newHash).replaceAll(oldCache, newCache);
  fs.cpSync(DIST, dir, {
    recursive: true,
    filter: (src) => !/\.(br|gz)$/.test(src),
  });
  for (const f of fs.readdirSync(dir)) {
    if (f.includes(oldHash)) fs.renameSync(path.join(dir, f), path.join(dir, f.replace(oldHash, newHash)));
  }
  for (const f of ['sw.js', `skblab-web-${newHash}.js`]) {
    fs.writeFileSync(path.join(dir, f), edit(fs.readFileSync(path.join(dir, f), 'utf8')));
  }
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  let next = edit(html).replace('<head>', '<head><meta name="skblab-test-version" content="v2">');
  const [before, after] = [inlineHashes(html), inlineHashes(next)];
  before.forEach((h, i) => { next = next.replaceAll(h, after[i]); });
  fs.writeFileSync(path.join(dir, 'index.html'), next);
  return { dir, v1js: `/${js}`, v2js: `/skblab-web-${newHash}.js`, oldCache, newCache };
}

test.before(async () => {
  const made = makeV2();
  v2 = made.dir;
  names = made;
  ({ server: srv, setRoot } = createStaticServer(DIST));
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${srv.address().port}`;
  browser = await launch();
});
test.after(async () => {
  await browser?.close();
  srv?.close();
  if (v2) fs.rmSync(v2, { recursive: true, force: true });
});

/** A page of `context` that records console errors and page errors. */
async function tab(context, name, problems) {
  const page = await context.newPage();
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`${name} console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`${name} page error: ${err.message}`));
  return page;
}

/** The service worker's cache name once it controls `page` and has cached the build. */
async function controlledBy(page) {
  const name = () => page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller || reg.waiting || reg.installing) return null;
    const keys = await caches.keys();
    for (const k of keys.reverse()) {
      if ((await (await caches.open(k)).keys()).some((r) => r.url.endsWith('/worker_bg.wasm'))) return k;
    }
    return null;
  });
  for (let i = 0; i < 200; i++) {
    const n = await name();
    if (n) return n;
    await page.waitForTimeout(100);
  }
  return name();
}

test('an open tab of v1 survives the deployment of v2 and opens a lesson in v2', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const problems = [];
  const a = await tab(context, 'tab A', problems);
  await a.goto(`${base}/#/`);
  await appReady(a);
  await a.waitForSelector('a[href^="#/lesson/"]');
  assert.equal(await controlledBy(a), names.oldCache, 'v1 service worker controls tab A with the v1 cache');

  // v2 is deployed: v1's hashed full-app files are gone from the server.
  setRoot(v2);
  const gone = await fetch(`${base}${names.v1js}`, { headers: { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' } });
  assert.equal(gone.status, 404, 'the server answers 404 for v1 files, not index.html');
  const b = await tab(context, 'tab B', problems);
  await b.goto(`${base}/#/`);
  await appReady(b).catch((e) => { throw new Error(`${e.message}\n${problems.join('\n')}`); });
  assert.equal(await b.evaluate(() => document.querySelector('meta[name="skblab-test-version"]')?.content), 'v2');
  for (let i = 0; i < 200 && (await controlledBy(b)) !== names.newCache; i++) await b.waitForTimeout(100);
  assert.equal(await controlledBy(b), names.newCache, 'v2 service worker controls tab B');

  // Tab A is told, and keeps v1's hashed files at hand until it moves on.
  await a.waitForSelector(tid('update-ready'), { timeout: 10000 });
  assert.match(await a.locator(tid('update-ready')).innerText(), /new version/i);
  assert.equal(await b.locator(tid('update-ready')).count(), 0, 'tab B runs the new version: no banner');
  const keys = await a.evaluate(() => caches.keys());
  assert.ok(keys.includes(names.oldCache) && keys.includes(names.newCache), `previous version's cache kept: ${keys}`);
  const v1 = await a.evaluate(async (url) => {
    const r = await fetch(url);
    return [r.status, r.headers.get('content-type')];
  }, names.v1js);
  assert.deepEqual(v1, [200, 'text/javascript'], 'v1 files still load in a v1 tab');

  // Tab A clicks a lesson: it reloads into v2 and opens the lesson.
  await a.click('a[href^="#/lesson/"]');
  await a.waitForSelector(tid('step-title'), { timeout: 30000 });
  assert.match(a.url(), /#\/lesson\//);
  assert.equal(await a.evaluate(() => document.querySelector('meta[name="skblab-test-version"]')?.content), 'v2');
  assert.equal(await a.locator(tid('update-ready')).count(), 0);

  // No cache holds HTML (or any wrong type) under a script, wasm or stylesheet name.
  const wrong = await a.evaluate(async () => {
    const bad = [];
    const want = { js: /javascript/, wasm: /^application\/wasm/, css: /^text\/css/ };
    for (const k of await caches.keys()) {
      const cache = await caches.open(k);
      for (const req of await cache.keys()) {
        const ext = new URL(req.url).pathname.split('.').pop();
        if (!want[ext]) continue;
        const type = (await cache.match(req)).headers.get('content-type') || '';
        if (!want[ext].test(type)) bad.push(`${k} ${req.url}: ${type}`);
      }
    }
    return bad;
  });
  assert.deepEqual(wrong, []);

  // Offline, both tabs reload and work, and log nothing.
  await context.setOffline(true);
  for (const page of [a, b]) {
    await page.reload();
    await appReady(page);
  }
  await context.setOffline(false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the banner\'s "the next page you open loads it" holds for a lesson\'s Next → too', async () => {
  setRoot(DIST);
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const problems = [];
  const a = await tab(context, 'tab A', problems);
  await a.goto(`${base}/#/lesson/skb-layout/1`);
  await appReady(a);
  await a.waitForSelector(tid('next-step'));
  assert.equal(await controlledBy(a), names.oldCache, 'v1 service worker controls tab A');
  setRoot(v2);
  const b = await tab(context, 'tab B', problems);
  await b.goto(`${base}/#/`);
  await appReady(b);
  for (let i = 0; i < 200 && (await controlledBy(b)) !== names.newCache; i++) await b.waitForTimeout(100);
  await a.waitForSelector(tid('update-ready'), { timeout: 10000 });
  // Next → (a new history entry, not a link): the next step opens in v2, as the banner says.
  await a.click(tid('next-step'));
  await a.waitForFunction(() => document.querySelector('meta[name="skblab-test-version"]')?.content === 'v2', null, { timeout: 30000 });
  await a.waitForFunction(() => document.querySelector('[data-testid="step-2"]')?.getAttribute('aria-current') === 'step', null, { timeout: 30000 });
  assert.match(a.url(), /#\/lesson\/skb-layout\/2/);
  assert.equal(await a.locator(tid('update-ready')).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
