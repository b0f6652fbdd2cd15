// Charts a screen reader can read: every canvas chart (components/chart.rs) has,
// beside its canvas' aria-label, a one-sentence summary of its trend, its numbers as a folded
// data table, and a keyboard cursor over its points with a live region that says where it
// is. Checked through the browser's accessibility tree (the DevTools protocol's full AX
// tree: roles, names, descriptions, live regions, what is hidden) on known charts: the
// summary of skb-layout's frags chart against its own CSV, the table's rows equal to the CSV
// export, the keys moving the cursor (and not the lesson's step), the crossover named on
// high-order-alloc's chart only once the question is answered (veiled before, with the rest of
// the view), axe-core on the opened table. Screenshots (desktop, 360 px dark) land in
// e2e/screenshots/chart-a11y-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { startServer, launch, openPage, appReady, shot, tid, SHOTS } from './harness.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

/** Clicks the CSV button `id` and returns the header's cells and the rows' cells. */
async function csvOf(page, id) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(tid(id))]);
  const lines = fs.readFileSync(await download.path(), 'utf8').trimEnd().split('\n');
  return { header: lines[0].split(','), rows: lines.slice(1).map((l) => l.split(',')) };
}

/** The accessibility tree's nodes (Chromium's, through the DevTools protocol), not ignored ones. */
async function axNodes(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const prop = (n, name) => n.properties?.find((p) => p.name === name)?.value?.value;
  return nodes.filter((n) => !n.ignored).map((n) => ({
    role: n.role?.value, name: n.name?.value || '', description: n.description?.value || '', live: prop(n, 'live'),
  }));
}

/** The text the chart `id`'s live region says once it changes from `before`. */
async function spoken(page, id, before) {
  await page.waitForFunction(([sel, b]) => document.querySelector(sel)?.textContent !== b, [tid(`${id}-live`), before]);
  return page.locator(tid(`${id}-live`)).innerText();
}

/**
 * axe-core's serious and critical violations, and its moderate landmark and heading ones on
 * the charts (the page's own, e.g. two result boxes, are other tests' business).
 */
async function axeProblems(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    const inChart = (n) => n.target.some((t) => typeof t === 'string' && document.querySelector(t)?.closest('figure.chart'));
    return r.violations
      .map((v) => ({ ...v, nodes: v.impact === 'serious' || v.impact === 'critical' ? v.nodes : v.nodes.filter(inChart) }))
      .filter((v) => v.nodes.length && (v.impact === 'serious' || v.impact === 'critical' || /^(landmark|heading|region)/.test(v.id)))
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
}

test('a known chart: its summary in the accessibility tree, its table equal to its CSV', async () => {
  const page = await openPage(browser, srv.base, { acceptDownloads: true });
  await page.goto(`${srv.base}/#/play/skb-layout`);
  await appReady(page);
  await page.waitForSelector(`${tid('frags-chart')}[data-layout]`);
  const csv = await csvOf(page, 'frags-chart-csv');
  assert.equal(csv.rows.length, 64, 'MAX_SKB_FRAGS 1..64');
  // The summary, read off the CSV: each line from its first to its last value, in bytes.
  const summary = await page.locator(tid('frags-chart-summary')).innerText();
  for (const [i, name] of [[1, 'kmalloc object (bytes)'], [2, 'head requested (bytes)']]) {
    assert.equal(csv.header[i], name);
    const [first, last] = [csv.rows[0][i], csv.rows[63][i]];
    assert.ok(summary.includes(`${name} rises from ${first} bytes at MAX_SKB_FRAGS 1 to ${last} bytes at MAX_SKB_FRAGS 64`),
      `${name} ${first} → ${last} in: ${summary}`);
  }
  assert.match(summary, /\.$/, 'one sentence');
  // In the accessibility tree: the focusable chart is named and described by the summary; the
  // canvas keeps its text alternative; the live region is there (empty until a key moves).
  const nodes = await axNodes(page);
  const chart = nodes.find((n) => n.role === 'application' && n.name.startsWith('Head buffer vs MAX_SKB_FRAGS'));
  assert.ok(chart, 'the chart is an application named by its caption');
  assert.match(chart.name, /Arrow keys/);
  assert.equal(chart.description, summary);
  assert.ok(nodes.some((n) => n.role === 'image' && /^Head buffer vs MAX_SKB_FRAGS: bytes against MAX_SKB_FRAGS/.test(n.name)));
  assert.ok(nodes.some((n) => n.live === 'polite'), 'a polite live region');
  // The data table: folded, built when opened, its header and rows those of the CSV.
  assert.equal(await page.locator(tid('frags-chart-table')).count(), 0, 'folded: not built');
  await page.click(tid('frags-chart-table-toggle'));
  const table = page.locator(tid('frags-chart-table'));
  await table.waitFor();
  const head = await table.locator('thead th').allInnerTexts();
  const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(head, csv.header);
  assert.deepEqual(rows, csv.rows);
  for (const h of head) assert.doesNotMatch(h, /^[a-z0-9]+(_[a-z0-9]+)+$/, `a raw identifier as a header: ${h}`);
  const tables = (await axNodes(page)).filter((n) => n.role === 'table').map((n) => n.name);
  assert.ok(tables.includes('Head buffer vs MAX_SKB_FRAGS: the numbers drawn'), tables.join(' | '));
  // The generic chart of columns: human headers with units.
  await page.goto(`${srv.base}/#/play/high-order-alloc?max_threads=4`);
  await page.waitForSelector(tid('chart-chart-table-toggle'));
  await page.click(tid('chart-chart-table-toggle'));
  const hoa = await page.locator(`${tid('chart-chart-table')} thead th`).allInnerTexts();
  assert.equal(hoa[0], 'flows (netperf pairs)');
  assert.ok(hoa.slice(1).every((h) => /\((Gbit\/s)\)$/.test(h)), hoa.join(' | '));
  page.assertClean();
});

test('the keys move a cursor over the points, the live region says where, the step stays', async () => {
  const page = await openPage(browser, srv.base, { acceptDownloads: true });
  await page.goto(`${srv.base}/#/lesson/skb-layout/1`);
  await appReady(page);
  await page.waitForSelector(`${tid('chart')}[data-layout]`);
  const csv = await csvOf(page, 'chart-csv');
  const [first, second, last] = [csv.rows[0], csv.rows[1], csv.rows[csv.rows.length - 1]];
  const frame = page.locator(tid('chart-frame'));
  await frame.focus();
  assert.equal(await frame.evaluate((el) => el === document.activeElement && el.tabIndex === 0), true, 'focusable');
  // A visible focus ring on the frame, reached by the keyboard.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Shift+Tab');
  assert.equal(await frame.evaluate((el) => el === document.activeElement), true);
  assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'none', 'focus ring');
  const step = () => page.locator('[data-testid^="step-"][aria-current="step"]').first().getAttribute('data-testid');
  const stepBefore = await step();
  const hashBefore = await page.evaluate(() => location.hash);

  await page.keyboard.press('ArrowRight');
  let said = await spoken(page, 'chart', '');
  assert.equal(said, `MTU ${first[0]} bytes, kmalloc object (bytes), ${first[1]} bytes`);
  const layout = JSON.parse(await page.locator(tid('chart')).getAttribute('data-layout'));
  const dot = page.locator(tid('chart-cursor'));
  const canvasBox = await page.locator(tid('chart')).boundingBox();
  const at = async () => {
    const b = await dot.boundingBox();
    return [b.x + b.width / 2 - canvasBox.x, b.y + b.height / 2 - canvasBox.y];
  };
  const [x1] = await at();
  assert.ok(Math.abs(x1 - layout.plot[0]) < 3, `the first point at the plot's left edge: ${x1} vs ${layout.plot[0]}`);
  await page.keyboard.press('ArrowRight');
  said = await spoken(page, 'chart', said);
  assert.equal(said, `MTU ${second[0]} bytes, kmalloc object (bytes), ${second[1]} bytes`);
  const [x2] = await at();
  assert.ok(x2 > x1, 'the cursor moved right');
  await page.keyboard.press('End');
  said = await spoken(page, 'chart', said);
  assert.equal(said, `MTU ${last[0]} bytes, kmalloc object (bytes), ${last[1]} bytes`);
  const [xEnd, yEnd] = await at();
  assert.ok(Math.abs(xEnd - layout.plot[2]) < 3, `the last point at the plot's right edge: ${xEnd} vs ${layout.plot[2]}`);
  // At its value's height, read off the axes the canvas records.
  const [, , y0, y1] = layout.axes;
  const want = layout.plot[3] - (Number(last[1]) - y0) / (y1 - y0) * (layout.plot[3] - layout.plot[1]);
  assert.ok(Math.abs(yEnd - want) < 3, `at its value's height: ${yEnd} vs ${want}`);
  await page.keyboard.press('ArrowDown');
  said = await spoken(page, 'chart', said);
  assert.equal(said, `MTU ${last[0]} bytes, head requested (bytes), ${last[2]} bytes`);
  await page.keyboard.press('Home');
  said = await spoken(page, 'chart', said);
  assert.equal(said, `MTU ${first[0]} bytes, head requested (bytes), ${first[2]} bytes`);
  await page.keyboard.press('ArrowUp');
  said = await spoken(page, 'chart', said);
  assert.match(said, /^MTU \d+ bytes, kmalloc object/);
  await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(150);
  // ← and → stayed on the chart: the lesson is on the same step.
  assert.equal(await step(), stepBefore);
  assert.equal(await page.evaluate(() => location.hash), hashBefore);
  assert.ok(await dot.isVisible(), 'the cursor is drawn while the chart has focus');
  // The live region, in the accessibility tree, holds what was said.
  const live = (await axNodes(page)).find((n) => n.live === 'polite' && n.name === said);
  assert.ok(live || (await page.locator(tid('chart-live')).getAttribute('aria-live')) === 'polite', 'said in a live region');

  // The screenshot: the chart with its table open and the cursor on a point.
  await page.click(tid('chart-table-toggle'));
  await page.locator(tid('chart-table')).waitFor();
  await frame.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('PageDown');
  await spoken(page, 'chart', said);
  assert.deepEqual(await axeProblems(page), []);
  await page.locator(tid('chart')).evaluate((c) => c.closest('figure').scrollIntoView());
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, 'chart-a11y-desktop.png') });
  page.assertClean();
});

test('veiled before the answer: the summary, table and live region hide with the chart', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/high-order-alloc/4`);
  await appReady(page);
  await page.waitForFunction(() => document.querySelector('[data-testid="sweep-progress"]')?.getAttribute('aria-valuenow') === '100',
    null, { timeout: 90000 });
  assert.equal(await page.locator(tid('veiled-chart')).count(), 1, 'the chart is veiled before answering');
  const inVeil = await page.evaluate(() => ['chart-chart-frame', 'chart-chart-summary', 'chart-chart-live', 'chart-chart-table-toggle']
    .map((id) => Boolean(document.querySelector(`[data-testid="${id}"]`)?.closest('.veil-content[inert][aria-hidden="true"]'))));
  assert.deepEqual(inVeil, [true, true, true, true]);
  const hidden = await axNodes(page);
  assert.ok(!hidden.some((n) => /overtakes|rises from|falls from/.test(`${n.name} ${n.description}`)), 'no summary in the tree');
  assert.ok(!hidden.some((n) => n.role === 'application'), 'no chart to focus');
  await page.click(tid('show-answer'));
  await page.waitForFunction(() => !document.querySelector('[data-testid="veiled-chart"]'), null, { timeout: 60000 });
  const summary = await page.locator(tid('chart-chart-summary')).innerText();
  // The lesson's story: order-0 frags overtake order-3 frags as flows are added.
  assert.match(summary, /order-0 frags \(sim\) overtakes order-3 frags \(sim\) at \d+ flows/);
  assert.match(summary, /order-3 frags \(sim\) (rises|falls) from [\d.]+ Gbit\/s at 1 flow to [\d.]+ Gbit\/s at 30 flows/);
  const shown = await axNodes(page);
  assert.ok(shown.some((n) => n.role === 'application' && n.description === summary));
  page.assertClean();
});

test('on a 360 px phone, dark: the table scrolls in its box and the cursor sits on the chart', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 360, height: 780 }, deviceScaleFactor: 2, colorScheme: 'dark' });
  await page.goto(`${srv.base}/#/play/skb-layout`);
  await appReady(page);
  await page.waitForSelector(`${tid('frags-chart')}[data-layout]`);
  await page.click(tid('frags-chart-table-toggle'));
  await page.locator(tid('frags-chart-table')).waitFor();
  await page.locator(tid('frags-chart-frame')).focus();
  for (const k of ['ArrowRight', 'PageDown', 'PageDown', 'ArrowDown']) await page.keyboard.press(k);
  await spoken(page, 'frags-chart', '');
  const sideways = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
  assert.equal(sideways, false, 'no sideways scroll');
  const dot = await page.locator(tid('frags-chart-cursor')).boundingBox();
  const canvas = await page.locator(tid('frags-chart')).boundingBox();
  assert.ok(dot.x >= canvas.x && dot.x + dot.width <= canvas.x + canvas.width + 8, 'the cursor on the canvas');
  await page.locator(tid('frags-chart')).evaluate((c) => c.closest('figure').scrollIntoView());
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, 'chart-a11y-phone-dark.png') });
  assert.deepEqual(await axeProblems(page), []);
  await shot(page, 'chart-a11y-phone-dark-full');
  page.assertClean();
});
