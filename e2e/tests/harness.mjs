// Shared harness of the e2e tests: a static server for the Trunk build on an ephemeral
// 127.0.0.1 port, Debian's Chromium driven by playwright-core, and a page wrapper that
// fails the test on any console error, page error, or request leaving the server's origin.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import { chromium } from 'playwright-core';
import { createStaticServer } from '../../scripts/serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// resolve(): with a relative or '..' path the server's startsWith(DIST) check would fail.
export const DIST = path.resolve(process.env.SKBLAB_DIST || path.resolve(here, '../../dist'));
export const SHOTS = path.resolve(here, '../screenshots');

/** Serves DIST with the app's own static server (scripts/serve.mjs: brotli/gzip, as `make serve`). */
export function startServer() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    throw new Error(`no build at ${DIST}: run "trunk build --release" first (make test does)`);
  }
  const { server, stats } = createStaticServer(DIST);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ server, stats, base: `http://127.0.0.1:${server.address().port}` });
  }));
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The selector of the element whose `data-testid` is `id`. */
export const tid = (id) => `[data-testid="${id}"]`;

/**
 * Starts the server and a browser before the calling file's tests and stops both after them.
 * The returned object's `browser` and `srv` are set once the tests run.
 */
export function serverAndBrowser() {
  const ctx = { browser: undefined, srv: undefined };
  test.before(async () => {
    ctx.srv = await startServer();
    ctx.browser = await launch();
  });
  test.after(async () => {
    await ctx.browser?.close();
    ctx.srv?.server.close();
  });
  return ctx;
}

/**
 * A page that records problems: console errors, uncaught page errors, and requests to any
 * origin but `base` (those are aborted). Call `assertClean()` at the end of each test.
 */
export async function openPage(browser, base, options = {}) {
  // `first: true`: a lesson step's deep link draws its pre-rendered first view before the app
  // (index.html's loader), as for a learner's first visit. Off by default: the other tests
  // drive the app itself, and the static copy would answer their selectors first.
  const { first = false, ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, ...contextOptions });
  if (!first) await context.addInitScript(() => { window.skblabNoFirst = true; });
  // Content-Security-Policy violations (index.html's meta policy) are problems too; Chromium
  // also logs them as console errors, this names the directive and what was blocked.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    problems.push(`request left ${base}: ${url}`);
    return route.abort();
  });
  page.assertClean = () => {
    if (problems.length) throw new Error(problems.join('\n'));
  };
  return page;
}

/**
 * An [`openPage`] page (service workers blocked) whose localStorage holds `items` ({ key: text })
 * when the app first starts in its tab; a reload keeps what the app wrote since.
 */
export async function openWithStorage(browser, base, items, options = {}) {
  const page = await openPage(browser, base, { serviceWorkers: 'block', ...options });
  await page.context().addInitScript((items) => {
    if (!sessionStorage.getItem('seeded')) {
      for (const [k, v] of Object.entries(items)) localStorage.setItem(k, v);
      sessionStorage.setItem('seeded', '1');
    }
  }, items);
  return page;
}

/** Resets all progress with the home page's button and its confirmation (the page is on it). */
export async function resetProgress(page) {
  await page.click(tid('reset-progress'));
  await page.click(tid('reset-progress-confirm'));
  await page.waitForSelector(tid('reset-progress-done'));
}

/** The text of the notice the home page opens with (a saved record it could not read). */
export async function homeNotice(page, base) {
  await page.goto(`${base}/#/`);
  await appReady(page);
  await page.waitForSelector(tid('notice'));
  return page.locator(tid('notice')).innerText();
}

export async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * The playable lessons' slugs, in course order, as the home page links them (a new lesson
 * joins by being written). Service workers are blocked: one installed here would fill the HTTP
 * cache with every file of the build and hide the bytes a later visit transfers.
 */
export async function playableLessons(browser, base) {
  const home = await openPage(browser, base, { serviceWorkers: 'block' });
  await home.goto(`${base}/#/`);
  await home.waitForSelector('a[href^="#/lesson/"]');
  const hrefs = await home.$$eval('a[href^="#/lesson/"]', (as) => as.map((a) => a.getAttribute('href')));
  await home.close();
  return [...new Set(hrefs.map((h) => h.split('/')[2]))];
}

/**
 * In the page: true once a lesson step's first view is drawn, by either road. The pre-rendered
 * copy (`#first`, drawn by index.html's loader before the app loads) once it has its views and
 * every image of it has loaded; the app's own views once a canvas, SVG or text view is there and, for a run in the
 * workers, its chart has its first point. Returns `{ ms, copy }`: the page's clock (ms since
 * the navigation started) at that moment and whether the copy drew it; false until then.
 */

/**
 * Waits for a step's first view and returns when it was drawn (ms since the navigation started),
 * whether by the pre-rendered copy, and the paths the page asked for before (the document and every resource fetch started by
 * then, by the page's own clock: no skew with the server's).
 */
export async function firstViewOf(page) {
  const drawn = await page.waitForFunction(firstViewDrawn, null, { timeout: 30000, polling: 'raf' });
  const { ms, copy } = await drawn.jsonValue();
  const paths = await page.evaluate((t) => [
    location.pathname,
    ...performance.getEntriesByType('resource').filter((e) => e.startTime <= t).map((e) => new URL(e.name).pathname),
  ], ms);
  return { ms: Math.round(ms), copy, paths: [...new Set(paths)] };
}
export function firstViewDrawn() {
  // The page's clock when it is seen (ms since the navigation started).
  const now = () => performance.now();
  const first = document.querySelector('#first .col-views');
  if (first?.querySelector('img, svg, pre')) {
    // The loader marks the moment the copy is painted, its images decoded: the first view's
    // time, and what was asked for before it (polling here may see it a few frames late,
    // after the app's files were asked for, on a busy machine).
    const mark = performance.getEntriesByName('skblab-first-view')[0];
    return (mark || [...document.querySelectorAll('#first img')].every((i) => i.complete)) && { ms: mark ? mark.startTime : now(), copy: true };
  }
  const col = document.querySelector('.col-views');
  if (!col || !col.querySelector('canvas, svg, pre')) return false;
  const bar = col.querySelector('[data-testid="sweep-progress"]');
  const chart = col.querySelector('canvas[data-points]');
  return (!bar || !chart || Number(chart.dataset.points) >= 1) && { ms: now(), copy: false };
}

/** Waits until the app has rendered something real (not the blank page before wasm runs). */
export async function appReady(page) {
  await page.waitForSelector('main', { timeout: 20000 });
  await page.waitForFunction(() => document.querySelector('main')?.innerText.trim().length > 40, null, { timeout: 20000 });
}

/** Types `text` into the step's question, checks it, and returns the grade's text once the verdict changed. */
export async function answer(page, text) {
  await page.locator(`${tid('question')} input[type="text"]`).fill(text);
  const before = await page.locator(tid('verdict')).innerText();
  await page.click(tid('check'));
  await page.waitForFunction((b) => document.querySelector('[data-testid="verdict"]').innerText !== b, before);
  return page.locator(tid('grade')).innerText();
}

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core (evaluated through the DevTools protocol, which the page's CSP does not apply to) on
 * the whole page: its serious and critical violations and its moderate landmark and heading
 * ones, one line each (empty: none).
 */
export async function axeViolations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical'
        || (v.impact === 'moderate' && /^(landmark|heading|page-has-heading)/.test(v.id)))
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** CPU seconds used so far by this process's descendants (the browser and its workers), read
 * from /proc (user + system ticks, 100 per second). */
export function browserCpu() {
  const parent = new Map();
  const cpu = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(pid), Number(f[1]));
      cpu.set(Number(pid), (Number(f[11]) + Number(f[12])) / 100);
    } catch { /* the process ended */ }
  }
  let sum = 0;
  for (const [pid, s] of cpu) {
    let p = pid;
    for (let i = 0; i < 20 && p > 1; i++) {
      p = parent.get(p);
      if (p === process.pid) { sum += s; break; }
    }
  }
  return sum;
}

/** CPU seconds the browser uses over the next `ms`. */
export async function cpuOver(page, ms) {
  const c0 = browserCpu();
  await page.waitForTimeout(ms);
  return browserCpu() - c0;
}

/**
 * A clock the test moves: from the next load on, the page's `Date.now()` (and `new Date()`)
 * runs `ms` ahead of the real one, where `ms` is what `setClockAhead` last set for the tab
 * (kept in sessionStorage across reloads). Only Date is moved: timers, animation frames and
 * `performance.now()` run as they do, so the app works as it does for a learner.
 */
export async function aheadClock(page) {
  await page.context().addInitScript(() => {
    const ahead = () => Number(sessionStorage.getItem('e2e-clock-ahead-ms') || 0);
    const RealDate = Date;
    const realNow = RealDate.now.bind(RealDate);
    class AheadDate extends RealDate {
      constructor(...args) {
        if (args.length === 0) super(realNow() + ahead());
        else super(...args);
      }
      static now() { return realNow() + ahead(); }
    }
    globalThis.Date = AheadDate;
  });
}

/** Sets how far ahead the page's clock runs ([`aheadClock`]); takes effect on the next load. */
export async function setClockAhead(page, ms) {
  await page.evaluate((ms) => sessionStorage.setItem('e2e-clock-ahead-ms', String(ms)), ms);
}
