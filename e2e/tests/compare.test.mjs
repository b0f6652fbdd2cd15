// "Compare two runs": pin the run as A, move a knob, and read A against B with the
// change; A travels in the URL (a reload or a shared link compares the same two runs), and is
// shown as its CLI line; Unpin stops comparing. A light experiment (skb-layout) and a heavy one
// (page-frag-free, whose A is recomputed on the worker pool) both work. With A pinned the views
// show it too: the charts draw A's lines dashed ("… (A)"; a custom view's chart, ktls-recursion's
// stack vs depth, too), a flame graph is followed by the differential graph of B against A
// (frames red or blue by the change of their share), and text views (/proc files, lock_stat,
// perf) put A beside B with the differing lines marked; none of it while the step's question
// is open. A long pinned run from a shared link waits for a go-ahead, and Unpin or leaving the
// page stops it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

test('pin a light run, move a knob, compare; the pin survives a reload; unpin', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${srv.base}/#/play/skb-layout`);
  await appReady(page);
  await page.click(tid('pin-run'));
  await page.waitForSelector(tid('compare-summary'));
  assert.match(await page.locator(tid('compare-summary')).innerText(), /^0 of \d+ values differ/);
  assert.equal(await page.locator(tid('compare-a-line')).innerText(), 'skblab run skb-layout --seed 1');
  await page.fill(tid('param-mtu'), '9000');
  await page.press(tid('param-mtu'), 'Enter');
  await page.waitForFunction(() => /^[1-9]\d* of/.test(document.querySelector('[data-testid="compare-summary"]')?.innerText || ''));
  assert.ok(await page.locator('.compare-table tr.changed').count() > 0);
  assert.match(page.url(), /pin=seed%3D1/);
  // The chart draws A's lines beside B's, named in the legend (and the text alternative).
  await page.waitForFunction(() => /\(A\)/.test(document.querySelector('canvas[data-testid="chart"]')?.getAttribute('aria-label') || ''));
  const label = await page.locator('canvas[data-testid="chart"]').getAttribute('aria-label');
  assert.match(label, /kmalloc object \(bytes\) \(B\)/);
  const legend = await page.locator('canvas[data-testid="chart"]').getAttribute('data-layout');
  assert.ok(JSON.parse(legend).texts.some((t) => /\(A\)$/.test(t[4])), legend);
  await shot(page, 'compare-light');
  await page.reload();
  await appReady(page);
  await page.waitForFunction(() => /^[1-9]\d* of/.test(document.querySelector('[data-testid="compare-summary"]')?.innerText || ''));
  await page.click(tid('unpin-run'));
  await page.waitForSelector(tid('pin-run'));
  assert.doesNotMatch(page.url(), /pin=/);
  page.assertClean();
});

test('a heavy run pinned from a shared link is recomputed and compared', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${srv.base}/#/play/page-frag-free?fix=after&pin=seed%3D1`);
  await appReady(page);
  await page.waitForFunction(() => /^[1-9]\d* of/.test(document.querySelector('[data-testid="compare-summary"]')?.innerText || ''),
    null, { timeout: 90000 });
  assert.equal(await page.locator(tid('compare-a-line')).innerText(), 'skblab run page-frag-free --seed 1');
  const fix = page.locator('.compare-table tr[data-metric="mpps"] td.num');
  assert.equal(await fix.count(), 4);
  await shot(page, 'compare-heavy');
  page.assertClean();
});

// Waits for the comparison to have both runs, then returns once every view has drawn A.
async function waitCompared(page, timeout = 120000) {
  await page.waitForFunction(() => /^\d+ of/.test(document.querySelector('[data-testid="compare-summary"]')?.innerText || ''),
    null, { timeout });
}

test('with A pinned: the chart draws A, a differential flame graph, /proc views side by side', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${srv.base}/#/play/high-order-alloc?max_threads=2&profile_order=order0&pin=max_threads%3D2%2Cseed%3D1`);
  await appReady(page);
  await waitCompared(page);
  // The generic chart of columns: A's series beside B's.
  await page.waitForFunction(() => /\(A\)/.test(document.querySelector('canvas[data-testid="chart-chart"]')?.getAttribute('aria-label') || ''));
  const label = await page.locator('canvas[data-testid="chart-chart"]').getAttribute('aria-label');
  assert.match(label, /order-3 frags \(sim\) \(A\) [\d.]+ at 2/);
  // The differential flame graph: B's frames coloured by the change of their share.
  await page.waitForSelector(`${tid('flame-diff')} svg g.fl`, { timeout: 60000 });
  const frames = await page.evaluate(() => [...document.querySelectorAll('[data-testid="flame-diff"] g.fl')].map((g) => ({
    delta: Number(g.getAttribute('data-delta')), fill: g.querySelector('rect').getAttribute('fill'),
  })));
  assert.ok(frames.length >= 5, `${frames.length} frames`);
  const red = frames.filter((f) => f.delta > 0.01), blue = frames.filter((f) => f.delta < -0.01);
  assert.ok(red.length > 0 && blue.length > 0, 'order-0 against order-3: some frames grew, some shrank');
  assert.ok(red.every((f) => /^rgb\(255,/.test(f.fill)) && blue.every((f) => /,255\)$/.test(f.fill)), JSON.stringify(frames.slice(0, 8)));
  await page.locator(`${tid('flame-diff')} g.fl`).first().hover();
  assert.match(await page.locator(tid('flame-diff-focus')).innerText(), /: B [\d.]+ % \(A [\d.]+ %\), [+-][\d.]+ points/);
  // /proc views side by side, the differing lines marked.
  await page.click(`${tid('text-view-lock_stat')} summary`);
  const diff = tid('text-diff-lock_stat');
  await page.waitForSelector(diff);
  const cols = await page.locator(`${diff} pre`).evaluateAll((ps) => ps.map((p) => p.getBoundingClientRect().toJSON()));
  assert.equal(cols.length, 2);
  assert.ok(cols[1].left > cols[0].right - 1 && Math.abs(cols[1].top - cols[0].top) < 2, `side by side: ${JSON.stringify(cols)}`);
  assert.ok(await page.locator(`${diff} mark.dl`).count() > 0, 'lines that differ are marked');
  assert.match(await page.locator(`${diff} ${tid('text-diff-summary')}`).innerText(), /^\d+ of \d+ lines differ/);
  await page.locator(tid('flame-diff')).scrollIntoViewIfNeeded();
  await shot(page, 'compare-flame-diff');
  await page.locator(diff).scrollIntoViewIfNeeded();
  await shot(page, 'compare-proc');
  page.assertClean();
});

test('page-frag-free, fix off pinned and on: the graphs the fix does not change say so; the current run\'s is coloured', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${srv.base}/#/play/page-frag-free?fix=after&pin=fix%3Dbefore%2Cseed%3D1`);
  await appReady(page);
  await waitCompared(page);
  await page.waitForSelector(`${tid('flame-diff-current')} svg g.fl`, { timeout: 120000 });
  // "before the fix" and "after the fix" are drawn whatever the knob: A's and B's are one graph.
  for (const id of ['before', 'after']) {
    const section = page.locator(`section${tid(`flame-diff-${id}`)}`);
    assert.equal(await section.getAttribute('data-same'), 'true', `${id}: said to be the same`);
    assert.match(await section.locator(tid('flame-diff-same')).innerText(), /same graph in A and B/);
    assert.equal(await section.locator('svg').count(), 0, `${id}: no all-grey graph`);
  }
  const changed = await page.evaluate(() => [...document.querySelectorAll('[data-testid="flame-diff-current"] g.fl')]
    .filter((g) => Math.abs(Number(g.getAttribute('data-delta'))) > 0.01).length);
  assert.ok(changed > 5, `the current run's graph is coloured: ${changed} frames changed`);
  page.assertClean();
});

test('with A pinned, a custom chart (ktls-recursion stack vs TCP skbs) draws A dashed beside B', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${srv.base}/#/play/ktls-recursion`);
  await appReady(page);
  const chart = 'canvas[data-testid="ktls-chart"]';
  await page.waitForSelector(`${chart}[data-layout]`, { timeout: 60000 });
  assert.doesNotMatch(await page.locator(chart).getAttribute('aria-label'), /\((A|B)\)/, 'nothing pinned: no A');
  await page.click(tid('pin-run'));
  await page.selectOption(tid('param-fix'), 'bigger-stack');
  await page.selectOption(tid('param-thread_size_bytes'), '8192');
  await waitCompared(page);
  await page.waitForFunction((sel) => /none \(A\)/.test(document.querySelector(sel)?.getAttribute('aria-label') || ''),
    chart, { timeout: 60000 });
  // The text alternative names both runs' lines, and A's own stack size.
  const label = await page.locator(chart).getAttribute('aria-label');
  assert.match(label, /^Peak stack vs TCP skbs received, THREAD_SIZE 8192 B \(A's 16384 B\): none \(B\) overflows/, label);
  const from = (run) => Number(label.match(new RegExp(`none \\(${run}\\) overflows from (\\d+) TCP skbs`))[1]);
  assert.ok(from('B') < from('A'), `half the stack overflows sooner: ${label}`);
  // The legend, drawn on the canvas, names A's lines and B's.
  const layout = JSON.parse(await page.locator(chart).getAttribute('data-layout'));
  const texts = layout.texts.map((t) => t[4]);
  for (const want of ['none (A)', 'none (B)', 'bigger-stack (A)', "A's THREAD_SIZE 16384 B and 2 ×"]) {
    assert.ok(texts.includes(want), `${want} in ${JSON.stringify(texts)}`);
  }
  // The data table has A's columns beside B's.
  await page.click(tid('ktls-chart-table-toggle'));
  const head = await page.locator(`${tid('ktls-chart-table')} thead`).innerText();
  assert.match(head, /none \(B\) peak stack \(bytes\)[\s\S]*none \(A\) peak stack \(bytes\)/);
  await page.locator(chart).scrollIntoViewIfNeeded();
  await shot(page, 'compare-ktls-chart');
  page.assertClean();
});

test('on a phone, dark: A and B stacked, nothing wider than the screen', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 360, height: 780 }, deviceScaleFactor: 2, colorScheme: 'dark' });
  await page.goto(`${srv.base}/#/play/cross-cpu-free?consumer=same&pin=seed%3D1`);
  await appReady(page);
  await waitCompared(page);
  const diff = tid('text-diff-counters');
  await page.waitForSelector(diff);
  const cols = await page.locator(`${diff} pre`).evaluateAll((ps) => ps.map((p) => p.getBoundingClientRect().toJSON()));
  assert.ok(cols[1].top >= cols[0].bottom, `stacked: ${JSON.stringify(cols)}`);
  assert.ok(cols.every((c) => c.right <= 360), JSON.stringify(cols));
  await page.waitForSelector(`${tid('flame-diff')} svg g.fl`);
  // B's root "CPU 0 (IRQ CPU + iperf server)" is A's "CPU 0 (IRQ CPU: NIC RX, allocates)": its
  // frames are matched, not all new (A 0 %, all red).
  const says = await page.locator(`${tid('flame-diff')} g.fl`).evaluateAll((gs) => gs.map((g) => g.getAttribute('data-say')));
  assert.ok(says.some((s) => /^CPU 0 \(IRQ CPU \+ iperf server\): B [\d.]+ % \(A [1-9][\d.]* %\)/.test(s)), says.slice(0, 4).join(' | '));
  assert.ok(says.filter((s) => !/\(A 0\.00 %\)/.test(s)).length > 1, 'frames under the root matched too');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360);
  await page.locator(diff).scrollIntoViewIfNeeded();
  await shot(page, 'compare-proc-phone-dark');
  await page.locator(tid('flame-diff')).scrollIntoViewIfNeeded();
  await shot(page, 'compare-flame-diff-phone-dark');
  page.assertClean();
});

test('while the step question is open, the views show no run A', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${srv.base}/#/lesson/skb-layout/2?pin=mtu%3D9000%2Cseed%3D1`);
  await appReady(page);
  await page.waitForSelector(tid('veiled-compare'));
  await page.waitForSelector('canvas[data-testid="chart"][aria-label]');
  const labels = await page.locator('canvas').evaluateAll((cs) => cs.map((c) => c.getAttribute('aria-label') || ''));
  assert.ok(labels.length > 0 && labels.every((l) => !/\((A|B)\)/.test(l)), labels.join(' | '));
  page.assertClean();
});

test('a long run pinned by a shared link waits for its go-ahead; Unpin stops it', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  const big = 'sockets=8,cpus=512,max_threads=256,measure_us=20000,warmup_us=10000,msg_bytes=4096,seeds=10,seed=1';
  const url = `#/play/high-order-alloc?max_threads=1&pin=${encodeURIComponent(big)}`;
  await page.goto(`${srv.base}/${url}`);
  await appReady(page);
  const a = tid('compare-a-control');
  await page.waitForSelector(`${a} ${tid('run-confirm')}`, { timeout: 30000 });
  assert.match(await page.locator(`${a} ${tid('run-confirm')}`).innerText(), /estimated at about .*256 points/);
  assert.match(await page.locator(tid('compare-waiting')).innerText(), /waits for your go-ahead/);
  await page.click(`${a} ${tid('run-confirm-start')}`);
  await page.waitForSelector(`${a} ${tid('run-stop')}`, { timeout: 10000 });
  await page.click(tid('unpin-run'));
  await page.waitForSelector(tid('pin-run'));
  // Pinned again, the same run asks again: the one started was stopped and forgotten, not
  // left running in the background (its Stop would show instead).
  await page.evaluate((u) => { location.hash = u.slice(1); }, url);
  await page.waitForSelector(`${a} ${tid('run-confirm')}`, { timeout: 30000 });
  assert.equal(await page.locator(`${a} ${tid('run-stop')}`).count(), 0);
  page.assertClean();
});

test('a pinned run started from a shared link is stopped when the reader leaves the page', async () => {
  const page = await openPage(browser, srv.base, { viewport: { width: 1280, height: 900 } });
  const big = 'sockets=8,cpus=512,max_threads=256,measure_us=20000,warmup_us=10000,msg_bytes=4096,seeds=10,seed=1';
  const url = `#/play/high-order-alloc?min_threads=1&max_threads=1&pin=${encodeURIComponent(big)}`;
  await page.goto(`${srv.base}/${url}`);
  await appReady(page);
  const a = tid('compare-a-control');
  await page.waitForSelector(`${a} ${tid('run-confirm')}`, { timeout: 30000 });
  await page.click(`${a} ${tid('run-confirm-start')}`);
  await page.waitForSelector(`${a} ${tid('run-stop')}`, { timeout: 10000 });
  // Leave for another page, then come back by the same link: had the run gone on in the
  // background, its Stop would show at once; it asks for a go-ahead again instead.
  await page.evaluate(() => { location.hash = '#/about'; });
  await page.waitForFunction(() => !document.querySelector('[data-testid="compare-a-control"]'));
  await page.evaluate((u) => { location.hash = u.slice(1); }, url);
  await page.waitForSelector(`${a} ${tid('run-confirm')}`, { timeout: 30000 });
  assert.equal(await page.locator(`${a} ${tid('run-stop')}`).count(), 0);
  page.assertClean();
});
