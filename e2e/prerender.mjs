// Pre-renders every lesson step's first view into DIST/first/ (a shared link's first
// view without the app's wasm). Usage: node e2e/prerender.mjs DIST  (scripts/prerender.sh runs it
// after each release build; make serve, make test and make bench do).
//
// The app itself draws each step, in headless Chromium, in a fresh state (no progress, no
// answers, no service worker), at two widths (a 1360 px window; a 360 px phone at 2× pixels) and
// in both colour schemes; the step's markup is then written as it is, with four changes:
// - each canvas becomes an image of what it drew (a lossless .webp beside the fragment), the same size;
// - form controls keep the values the app gave them (properties, written as attributes) and
//   are disabled (nothing answers them until the app has loaded), and a status line says so;
// - ids get a `first-` prefix (with every reference to them), so the app mounted beside the
//   copy finds its own elements, not the copy's;
// - the run's timing line ("ran 30 points in … ms" on the build machine) is dropped.
// index.html's loader fetches first/<slug>-<n>-<width>-<scheme>.html for a `#/lesson/<slug>/<n>`
// link on a first visit, draws it, then loads the app, which replaces it once its views are drawn.
// The numbers are the app's, so they are the ones a learner gets: the simulation is
// deterministic (same parameters and seed, same bits; e2e/tests/prerender.test.mjs compares them).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { createStaticServer } from '../scripts/serve.mjs';

const dist = path.resolve(process.argv[2] || 'dist');
if (!fs.existsSync(path.join(dist, 'index.html'))) {
  console.error(`prerender: no ${dist}/index.html (build first: trunk build --release)`);
  process.exit(2);
}
const out = path.join(dist, 'first');
fs.rmSync(out, { recursive: true, force: true });

const VARIANTS = [
  { name: 'wide-light', viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1, colorScheme: 'light' },
  { name: 'wide-dark', viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1, colorScheme: 'dark' },
  { name: 'phone-light', viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, colorScheme: 'light' },
  { name: 'phone-dark', viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, colorScheme: 'dark' },
];
const STATUS = 'The lab is loading: its controls work in a moment.';

const { server } = createStaticServer(dist);
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});

/**
 * A page in a context of `variant`: no service worker, no fragment, and storage emptied before
 * each document's scripts run, so every load is a first visit (no progress, no answers) that
 * still has the context's HTTP cache (the app's files are fetched and compiled once).
 */
async function freshPage(variant) {
  const { name: _, ...options } = variant;
  const context = await browser.newContext({ ...options, serviceWorkers: 'block' });
  await context.addInitScript(() => {
    window.skblabNoFirst = true;
    try { localStorage.clear(); sessionStorage.clear(); } catch { /* none */ }
  });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 404/.test(m.text())) problems.push(m.text()); });
  page.problems = problems;
  return page;
}

/** The lessons the home page links, in course order. */
async function lessons() {
  const page = await freshPage(VARIANTS[0]);
  await page.goto(`${base}/#/`);
  await page.waitForSelector('a[href^="#/lesson/"]');
  const hrefs = await page.$$eval('a[href^="#/lesson/"]', (as) => as.map((a) => a.getAttribute('href')));
  await page.context().close();
  return [...new Set(hrefs.map((h) => h.split('/')[2]))];
}

/** Waits until the step's run is done and no view waits for its data (as index.html's loader). */
async function drawn(page) {
  await page.waitForFunction(() => {
    const col = document.querySelector('.col-views');
    return col?.dataset.run === 'done' && !col.querySelector('.view-pending');
  }, null, { timeout: 120000, polling: 100 });
  // The charts draw in an effect after the render that brought their data.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(100);
}

/** The step's markup as the fragment (see the head of this file) and its canvases as WebP data URLs. */
function snapshot(status) {
  const root = document.body;
  const copy = root.cloneNode(true);
  const images = [];
  const live = [...root.querySelectorAll('canvas')];
  [...copy.querySelectorAll('canvas')].forEach((c, i) => {
    const from = live[i];
    const box = from.getBoundingClientRect();
    const img = document.createElement('img');
    img.setAttribute('src', `@IMAGE${images.length}@`);
    // WebP at quality 1 (Chromium's lossless): about half of PNG's bytes.
    images.push(from.toDataURL('image/webp', 1));
    img.setAttribute('alt', from.getAttribute('aria-label') || '');
    if (from.className) img.setAttribute('class', from.className);
    img.setAttribute('width', String(Math.round(box.width)));
    img.setAttribute('height', String(Math.round(box.height)));
    img.setAttribute('style', 'max-width: 100%; height: auto;');
    c.replaceWith(img);
  });
  // A control's state is a DOM property the app set, not an attribute: write it down.
  const liveControls = [...root.querySelectorAll('input, select, textarea')];
  [...copy.querySelectorAll('input, select, textarea')].forEach((e, i) => {
    const from = liveControls[i];
    if (from.type === 'checkbox' || from.type === 'radio') {
      if (from.checked) e.setAttribute('checked', ''); else e.removeAttribute('checked');
    } else if (from.tagName === 'SELECT') {
      [...e.options].forEach((o, k) => { if (from.options[k].selected) o.setAttribute('selected', ''); else o.removeAttribute('selected'); });
    } else if (from.tagName === 'TEXTAREA') {
      e.textContent = from.value;
    } else {
      e.setAttribute('value', from.value);
    }
  });
  copy.querySelectorAll('script, noscript, .run-time').forEach((e) => e.remove());
  copy.querySelectorAll('input, select, textarea, button').forEach((e) => e.setAttribute('disabled', ''));
  const ids = new Set([...copy.querySelectorAll('[id]')].map((e) => e.id));
  const prefix = (id) => (ids.has(id) ? `first-${id}` : id);
  const LISTS = ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-owns', 'aria-details',
    'aria-activedescendant', 'aria-errormessage', 'list', 'headers', 'form'];
  for (const e of copy.querySelectorAll('*')) {
    if (e.id) e.id = prefix(e.id);
    for (const a of [...e.attributes]) {
      let v = a.value;
      if (LISTS.includes(a.name)) v = v.split(/\s+/).map(prefix).join(' ');
      else if ((a.name === 'href' || a.name === 'xlink:href') && v.startsWith('#') && ids.has(v.slice(1))) v = `#${prefix(v.slice(1))}`;
      v = v.replace(/url\(#([^)]+)\)/g, (m, id) => `url(#${prefix(id)})`);
      if (v !== a.value) e.setAttribute(a.name, v);
    }
  }
  const note = document.createElement('p');
  note.className = 'first-status';
  note.setAttribute('role', 'status');
  note.textContent = status;
  copy.append(note);
  return { html: copy.innerHTML, images };
}

const t0 = Date.now();
const slugs = await lessons();
fs.mkdirSync(out, { recursive: true });
let files = 0;
let bytes = 0;
const write = (name, data) => {
  fs.writeFileSync(path.join(out, name), data);
  files += 1;
  bytes += data.length;
};
for (const variant of VARIANTS) {
  const page = await freshPage(variant);
  for (const slug of slugs) {
    for (let step = 1; step <= 60; step++) {
      // A new document for each step (not a hash change): its init script empties storage.
      await page.goto('about:blank');
      await page.goto(`${base}/#/lesson/${slug}/${step}`);
      await drawn(page);
      const steps = await page.evaluate(() => document.querySelectorAll('nav.steps li').length);
      if (page.problems.length) throw new Error(`${slug}/${step} (${variant.name}): ${page.problems.join('; ')}`);
      const { html, images } = await page.evaluate(snapshot, STATUS);
      const stem = `${slug}-${step}-${variant.name}`;
      let text = html;
      images.forEach((url, k) => {
        write(`${stem}-${k}.webp`, Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));
        text = text.replace(`@IMAGE${k}@`, `first/${stem}-${k}.webp`);
      });
      // Compressed once here, as scripts/precompress.mjs does for the app's files.
      const raw = Buffer.from(text);
      write(`${stem}.html`, raw);
      fs.writeFileSync(path.join(out, `${stem}.html.br`), zlib.brotliCompressSync(raw, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
      }));
      fs.writeFileSync(path.join(out, `${stem}.html.gz`), zlib.gzipSync(raw, { level: 9 }));
      if (step >= steps) break;
    }
  }
  await page.context().close();
}
await browser.close();
server.close();
console.log(`[prerender] ${files} files, ${bytes} bytes, in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${slugs.length} lessons × ${VARIANTS.length} variants`);
