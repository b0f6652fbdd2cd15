// Phones (issue #26, item 5): every lesson step and every playground on a 360 × 780 screen at
// devicePixelRatio 2, in the light and the dark theme. On each: no sideways scroll, a one-line
// header (at most 64 px), and every canvas chart laid out for its width, read off the layout
// the chart component writes on the canvas (`data-layout`, CSS pixels: components/chart.rs):
// no text over another text, no text past the canvas' edge (a cut title or label), the
// legend off the plot. Then the phone's own controls: the folded site menu, the folded step
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
