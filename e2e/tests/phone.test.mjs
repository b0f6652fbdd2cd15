// Phones: every lesson step and every playground on a 360 × 780 screen at
// devicePixelRatio 2, in the light and the dark theme. On each: no sideways scroll, a one-line
// header (at most 64 px), and every canvas chart laid out for its width, read off the layout
// the chart component writes on the canvas (`data-layout`, CSS pixels: components/chart.rs):
// no text over another text, no text past the canvas' edge (a cut title or label), the
// legend off the plot; and every custom SVG view (the skb-layout diagram, the high-order-alloc
// and cross-cpu-free lanes, the ktls-recursion skb graph and stack bar: `svg[data-fit]`,
// web/src/views/fit.rs) with every text at least 10.5 CSS px as rendered, none over another or
// past the drawing's edge. Then the phone's own controls: the folded site menu, the folded step
// list, and the step's main view pinned in sight while a knob of the panel moves
// (components/pin.rs). Screenshots of a few steps per lesson and of the playgrounds at
// 360 px, light and dark, and of a desktop, land in e2e/screenshots/phone-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startServer, launch, openPage, shot, appReady, tid, SHOTS } from './harness.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PHONE = { viewport: { width: 360, height: 780 }, deviceScaleFactor: 2 };
const HEADER_MAX_PX = 64;
const INDEX = fs.readFileSync(new URL('../../lessons/index.toml', import.meta.url), 'utf8');
/** The written lessons in course order: slug, experiment and step count (from their content files). */
const LESSONS = INDEX.split('[[lesson]]').slice(1)
  .filter((b) => /status = "written"/.test(b))
  .map((b) => {
    const slug = b.match(/slug = "([^"]+)"/)[1];
    const text = fs.readFileSync(new URL(`../../lessons/content/${slug}.md`, import.meta.url), 'utf8');
    return { slug, experiment: b.match(/experiment = "([^"]+)"/)[1], steps: (text.match(/^\[\[steps\]\]/gm) || []).length };
  });

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

/** Opens `hash` by changing the location's hash (the app stays loaded: seconds saved per step). */
async function visit(page, hash) {
  if (!page.url().startsWith(srv.base)) {
    await page.goto(`${srv.base}/${hash}`);
    await appReady(page);
  } else {
    await page.evaluate((h) => { location.hash = h; }, hash);
  }
  await page.waitForFunction((h) => location.hash.startsWith(h.split('?')[0]), hash);
  // Drawn: every canvas has its layout, and no view still waits for its run (a plot's canvas
  // comes with the finished run). A run still going after 8 s is checked as far as it got.
  await page.waitForFunction(() => {
    const canvases = [...document.querySelectorAll('main canvas')];
    const waiting = document.querySelector('figure[data-testid^="plot-"]');
    return !waiting && canvases.every((c) => c.dataset.layout);
  }, null, { timeout: 8000 }).catch(() => {});
  await page.waitForTimeout(100);
}

/** What is wrong with the page at this width: sideways scroll, a tall header, chart layouts. */
function pageProblems() {
  const found = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) found.push(`scrolls sideways: ${doc.scrollWidth} px`);
  const header = document.querySelector('.site-header').getBoundingClientRect().height;
  if (header > 64) found.push(`header ${header} px tall`);
  // Two boxes [x0, y0, x1, y1] sharing more than `slack` px each way.
  const over = (a, b, slack) => Math.max(a[0], b[0]) + slack < Math.min(a[2], b[2])
    && Math.max(a[1], b[1]) + slack < Math.min(a[3], b[3]);
  let charts = 0;
  for (const canvas of document.querySelectorAll('main canvas[data-layout]')) {
    charts += 1;
    const l = JSON.parse(canvas.dataset.layout);
    const name = canvas.dataset.testid;
    if (l.legend && over(l.legend, l.plot, 0)) found.push(`${name}: legend ${l.legend} over the plot ${l.plot}`);
    l.texts.forEach((a, i) => {
      if (a[0] < -1 || a[1] < -1 || a[2] > l.w + 1 || a[3] > l.h + 1) found.push(`${name}: '${a[4]}' cut by the edge (${a.slice(0, 4)})`);
      for (const b of l.texts.slice(i + 1)) if (over(a, b, 1)) found.push(`${name}: '${a[4]}' over '${b[4]}'`);
    });
    // Laid out for the canvas' own width (not the desktop's 720 px).
    const shown = canvas.getBoundingClientRect().width;
    if (Math.abs(shown - l.w) > 2) found.push(`${name}: laid out ${l.w} px wide, shown ${shown} px`);
  }
  return { found, charts };
}

/** The smallest font a custom SVG view may show on a phone, in CSS pixels as rendered. */
const SVG_FONT_MIN_PX = 10.5;

/**
 * What is wrong with the custom SVG views on the page (`svg[data-fit]`, views/fit.rs): a text
 * rendered smaller than `min` CSS px (its computed font size times the drawing's scale), a
 * text over another, a text past the drawing's edge. Also the views and texts checked.
 */
function svgProblems(min) {
  const found = [];
  const views = [];
  let texts = 0;
  const over = (a, b, slack) => Math.max(a[0], b[0]) + slack < Math.min(a[2], b[2])
    && Math.max(a[1], b[1]) + slack < Math.min(a[3], b[3]);
  for (const svg of document.querySelectorAll('main svg[data-fit]')) {
    const r = svg.getBoundingClientRect();
    const vb = svg.viewBox.baseVal;
    if (r.width === 0 || !vb || vb.width === 0) continue;
    const scale = Math.min(r.width / vb.width, r.height / vb.height);
    const name = svg.closest('[data-testid]')?.dataset.testid ?? svg.getAttribute('class');
    views.push(name);
    const boxes = [];
    for (const t of svg.querySelectorAll('text')) {
      const b = t.getBoundingClientRect();
      const text = t.textContent.trim();
      if (b.width === 0 || !text) continue;
      texts += 1;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (px < min) found.push(`${name}: '${text}' at ${px.toFixed(1)} px`);
      if (b.left < r.left - 1 || b.right > r.right + 1 || b.top < r.top - 1 || b.bottom > r.bottom + 1) {
        found.push(`${name}: '${text}' past the edge`);
      }
      boxes.push([b.left, b.top, b.right, b.bottom, text]);
    }
    boxes.forEach((a, i) => {
      for (const b of boxes.slice(i + 1)) if (over(a, b, 1)) found.push(`${name}: '${a[4]}' over '${b[4]}'`);
    });
  }
  return { found, views, texts };
}

for (const scheme of ['light', 'dark']) {
  test(`every lesson step and playground at 360 px, DPR 2 (${scheme}): one-line header, no sideways scroll, charts laid out`, async () => {
    const page = await openPage(browser, srv.base, { ...PHONE, colorScheme: scheme });
    const found = [];
    let charts = 0;
    const urls = [];
    for (const l of LESSONS) for (let i = 1; i <= l.steps; i++) urls.push(`#/lesson/${l.slug}/${i}`);
    for (const l of LESSONS) urls.push(`#/play/${l.experiment}`);
    // Screenshots: the first and a middle step of each lesson, every playground.
    const shots = new Set(LESSONS.flatMap((l) => [1, Math.ceil(l.steps / 2)].map((i) => `#/lesson/${l.slug}/${i}`)));
    for (const u of urls) {
      await visit(page, u);
      const r = await page.evaluate(pageProblems);
      charts += r.charts;
      found.push(...r.found.map((f) => `${u}: ${f}`));
      const v = await page.evaluate(svgProblems, SVG_FONT_MIN_PX);
      found.push(...v.found.map((f) => `${u}: ${f}`));
      if (shots.has(u) || u.startsWith('#/play/')) {
        await page.evaluate(() => window.scrollTo(0, 0));
        await shot(page, `phone-${scheme}-${u.slice(2).replaceAll('/', '-')}`);
      }
    }
    assert.deepEqual(found, [], found.join('\n'));
    assert.ok(charts >= 30, `charts checked: ${charts} (every step with a chart draws one)`);
    page.assertClean();
  });
}

/**
 * A screenshot of `loc` alone, the sticky header hidden while it is taken (it would cover the
 * element's top; set through the element's style: the page's CSP refuses a style sheet).
 */
async function shotOf(page, loc, file) {
  const show = (v) => page.evaluate((v) => { document.querySelector('.site-header').style.visibility = v; }, v);
  await show('hidden');
  await loc.screenshot({ path: path.join(SHOTS, file) });
  await show('');
}

/** The five custom SVG views: where each is drawn, and its `<svg data-fit>`. */
const SVG_VIEWS = [
  ['skb-layout-diagram', '#/play/skb-layout', '[data-testid="diagram"] svg[data-fit]'],
  ['high-order-alloc-lanes', '#/play/high-order-alloc', 'svg[data-testid="trace-lanes"]'],
  ['cross-cpu-free-lanes', '#/play/cross-cpu-free', '[data-testid="xcpu-lanes"] svg[data-fit]'],
  ['ktls-skb-graph', '#/play/ktls-recursion', 'svg[data-testid="skb-graph"]'],
  ['ktls-stack-bar', '#/play/ktls-recursion', '[data-testid="stack-bar"] svg[data-fit]'],
];

for (const scheme of ['light', 'dark']) {
  test(`the custom SVG views at 360 px (${scheme}): laid out for the width, every text legible, none over another`, async () => {
    const page = await openPage(browser, srv.base, { ...PHONE, colorScheme: scheme });
    const found = [];
    let texts = 0;
    const check = async (name, sel, when) => {
      await page.waitForSelector(`main ${sel}`, { timeout: 30000 });
      const drawn = page.locator(`main ${sel}`).first();
      assert.equal(await drawn.getAttribute('data-fit'), 'narrow', `${name}: drawn for the phone's width`);
      const r = await page.evaluate(svgProblems, SVG_FONT_MIN_PX);
      found.push(...r.found.map((f) => `${name} ${when}: ${f}`));
      texts += r.texts;
      const fig = drawn.locator('xpath=ancestor::figure[1]');
      await fig.scrollIntoViewIfNeeded();
      await shotOf(page, fig, `phone-svg-${scheme}-${name}${when ? `-${when}` : ''}.png`);
    };
    for (const [name, hash, sel] of SVG_VIEWS) {
      await visit(page, hash);
      await check(name, sel, '');
      if (name === 'ktls-stack-bar') {
        // At the overflow: the frame that does not fit and its notes beside the bar.
        await page.locator(tid('transport-end')).first().click();
        await page.waitForSelector(tid('overflow-frame'));
        await check(name, sel, 'overflow');
        await check('ktls-skb-graph', SVG_VIEWS[3][2], 'overflow');
      }
    }
    const doc = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(doc[0] <= doc[1], `no sideways scroll: ${doc}`);
    assert.deepEqual(found, [], found.join('\n'));
    assert.ok(texts >= 60, `texts checked: ${texts}`);
    page.assertClean();
  });
}

test('the custom SVG views on a desktop keep their drawing', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  for (const [name, hash, sel] of SVG_VIEWS) {
    await visit(page, hash);
    await page.waitForSelector(`main ${sel}`, { timeout: 30000 });
    const drawn = page.locator(`main ${sel}`).first();
    assert.equal(await drawn.getAttribute('data-fit'), 'wide', name);
    await shotOf(page, drawn.locator('xpath=ancestor::figure[1]'), `phone-svg-desktop-${name}.png`);
  }
  const r = await page.evaluate(svgProblems, 0);
  assert.deepEqual(r.found, [], r.found.join('\n'));
  page.assertClean();
});

test('the header is one line on a phone: the site links fold behind "Menu"', async () => {
  const page = await openPage(browser, srv.base, PHONE);
  await visit(page, '#/lesson/skb-layout/1');
  const header = page.locator('.site-header');
  const height = (await header.boundingBox()).height;
  assert.ok(height <= HEADER_MAX_PX, `header ${height} px`);
  const nav = page.locator('#site-nav');
  assert.equal(await nav.isVisible(), false, 'folded');
  const toggle = page.locator(tid('nav-toggle'));
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  assert.equal(await nav.locator('a').count(), 4);
  for (const a of await nav.locator('a').all()) {
    const box = await a.boundingBox();
    assert.ok(box.height >= 40 && box.width >= 200, `a thumb-sized link: ${JSON.stringify(box)}`);
  }
  assert.equal((await header.boundingBox()).height, height, 'the open menu hangs under the header');
  await page.screenshot({ path: path.join(SHOTS, 'phone-menu-open.png') });
  await page.keyboard.press('Escape');
  assert.equal(await nav.isVisible(), false, 'Escape folds it');
  await toggle.click();
  await nav.locator('a[href="#/about"]').click();
  await page.waitForFunction(() => location.hash === '#/about');
  assert.equal(await nav.isVisible(), false, 'a link followed folds it');
  // A desktop shows the links and no toggle.
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.ok(await nav.isVisible() && !(await toggle.isVisible()));
  page.assertClean();
});

test('the step list folds on a phone: the step\'s text starts on the first screen', async () => {
  const page = await openPage(browser, srv.base, PHONE);
  await visit(page, '#/lesson/high-order-alloc/1');
  const list = page.locator('#step-list');
  assert.equal(await list.isVisible(), false);
  const toggle = page.locator(tid('steps-toggle'));
  assert.match(await toggle.innerText(), /Step 1 of 8/);
  const title = await page.locator(tid('step-title')).boundingBox();
  assert.ok(title.y + title.height < 780, `the step's title is on the first screen (${title.y} px)`);
  await toggle.click();
  assert.ok(await list.isVisible());
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await shot(page, 'phone-steps-open');
  await page.click(tid('step-3'));
  await page.waitForFunction(() => /high-order-alloc\/3/.test(location.hash));
  assert.equal(await list.isVisible(), false, 'choosing a step folds the list');
  assert.match(await toggle.innerText(), /Step 3 of 8/);
  page.assertClean();
});

test('the step\'s main view stays in sight while a slider of the panel moves (skb-layout/1)', async () => {
  const page = await openPage(browser, srv.base, PHONE);
  await visit(page, '#/lesson/skb-layout/1');
  await page.click(`${tid('param-panel')} > summary`);
  const slider = page.locator(tid('param-mtu-range'));
  await slider.scrollIntoViewIfNeeded();
  // The first view that draws and is not veiled by the step's question: the MTU chart.
  const main = page.locator('#views > .view-slot:has(canvas, svg):not(:has(.veil))').first();
  assert.equal(await main.locator('canvas[data-testid="chart"]').count(), 1, 'the main view is the chart');
  const inSight = async (loc) => {
    const b = await loc.boundingBox();
    return b && b.y >= 0 && b.y + b.height <= 780;
  };
  assert.equal(await inSight(main), false, 'scrolled to the panel, the chart is out of sight');
  await slider.focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /[?&]mtu=/.test(location.hash), null, { timeout: 5000 });
  const pinned = page.locator('.view-slot.pinned > *');
  assert.equal(await pinned.count(), 1, 'pinned');
  const view = await pinned.boundingBox();
  const header = await page.locator('.site-header').boundingBox();
  const knob = await slider.boundingBox();
  assert.ok(view.y >= header.y + header.height - 1 && view.y + view.height <= 780 * 0.5, `under the header, in the top half: ${JSON.stringify(view)}`);
  assert.ok(knob.y >= view.y + view.height && knob.y + knob.height <= 780, `the slider in sight below it: ${JSON.stringify(knob)}`);
  assert.ok((await page.locator('.view-slot.pinned canvas').boundingBox()).height > 150, 'the chart is drawn there, readable');
  // The screen as the learner sees it (a full-page shot would draw the fixed view once, anywhere).
  await page.screenshot({ path: path.join(SHOTS, 'phone-pinned-chart.png') });
  // Focus out of the panel: the view goes back to its place; nothing moved under it.
  const slot = await page.locator('.view-slot.pinned').boundingBox();
  await page.locator(tid('step-title')).focus();
  await page.waitForFunction(() => !document.querySelector('.view-slot.pinned'));
  const back = await main.boundingBox();
  assert.ok(Math.abs(back.height - slot.height) < 2, 'its slot kept its height');
  // On a desktop the views sit beside the panel: nothing is pinned.
  await page.setViewportSize({ width: 1280, height: 800 });
  await slider.focus();
  await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(200);
  assert.equal(await page.locator('.view-slot.pinned').count(), 0);
  page.assertClean();
});

test('axe at 360 px: the folded menu and step list, opened and closed, have no serious violation', async () => {
  const page = await openPage(browser, srv.base, { ...PHONE, colorScheme: 'dark' });
  await visit(page, '#/lesson/skb-cache/2');
  const found = [];
  const axe = async (when) => {
    await page.evaluate(AXE);
    const v = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
      .filter((x) => x.impact === 'serious' || x.impact === 'critical').map((x) => `${x.id}: ${x.nodes[0].target.join(' ')}`));
    found.push(...v.map((x) => `${when}: ${x}`));
  };
  await axe('folded');
  await page.click(tid('nav-toggle'));
  await page.click(tid('steps-toggle'));
  await axe('open');
  assert.deepEqual(found, [], found.join('\n'));
  page.assertClean();
});

test('a desktop keeps its layout: the header on one line, every step pill shown, charts laid out', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 800 } });
  await visit(page, '#/lesson/high-order-alloc/3');
  assert.ok(await page.locator('#step-list').isVisible());
  assert.equal(await page.locator(tid('steps-toggle')).isVisible(), false);
  const r = await page.evaluate(pageProblems);
  assert.deepEqual(r.found, []);
  assert.ok(r.charts >= 1);
  await shot(page, 'phone-desktop-high-order-alloc-3');
  page.assertClean();
});
