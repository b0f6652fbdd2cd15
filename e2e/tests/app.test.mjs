// End-to-end tests of the skblab app in a real headless Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launch, openPage, shot, appReady, DIST } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;

// The course as lessons/index.toml lists it: a new lesson changes these counts, not this test.
const INDEX = fs.readFileSync(new URL('../../lessons/index.toml', import.meta.url), 'utf8');
const N_LESSONS = (INDEX.match(/^\[\[lesson\]\]/gm) || []).length;
const N_COMING = (INDEX.match(/^status = "coming"/gm) || []).length;

test('home lists every lesson of the index, the coming ones marked', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/`);
  await appReady(page);
  const cards = await page.locator('[data-testid^="lesson-card-"]').count();
  assert.equal(cards, N_LESSONS);
  const home = await page.locator('main').innerText();
  assert.match(home, /How big is an sk_buff head\?/);
  assert.equal(await page.locator('.tag-coming').count(), N_COMING, 'the coming lessons are marked');
  const ready = N_COMING === 0 ? `All ${N_LESSONS} lessons are ready` : `${N_LESSONS - N_COMING} of ${N_LESSONS} lessons are ready`;
  assert.match(await page.locator(tid('course-note')).innerText(), new RegExp(ready));
  // Each card says what `skblab validate` says of its tables, misses included.
  assert.doesNotMatch(await page.locator(tid('course-note')).innerText(), /opens only once its model reproduces/);
  assert.match(await page.locator(tid('verdicts-skb-layout')).innerText(), /exact arithmetic/);
  assert.match(await page.locator(tid('verdicts-percpu-counter')).innerText(), /predicted, misses by \d+ %/);
  assert.match(await page.locator(tid('verdicts-high-order-alloc')).innerText(), /fitted \(\d+ constants\), [\d.]+ % in sample, [\d.]+ % held out/);
  await shot(page, 'home');
  await page.click(`${tid('lesson-card-skb-layout')} a`);
  await page.waitForSelector(tid('step-title'));
  assert.match(page.url(), /#\/lesson\/skb-layout/);
  page.assertClean();
});

test('lesson: moving a control changes the diagram, the chart and the URL', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/skb-layout/1`);
  await appReady(page);
  await page.waitForSelector(`${tid('diagram')} svg, svg${tid('diagram')}`);
  const diagramBefore = await page.locator(tid('diagram')).innerHTML();
  const chartBefore = await page.locator(tid('chart')).evaluate((c) => c.toDataURL());
  assert.ok(chartBefore.length > 2000, 'the chart canvas is not blank');
  await shot(page, 'lesson-step1');

  const frags = page.locator(tid('param-max_skb_frags')).first();
  await frags.fill('40');
  await frags.press('Enter');
  await page.waitForFunction((b) => document.querySelector('[data-testid="diagram"]').innerHTML !== b, diagramBefore);
  const chartAfter = await page.locator(tid('chart')).evaluate((c) => c.toDataURL());
  assert.notEqual(chartAfter, chartBefore, 'the chart redraws when a control moves');
  assert.match(decodeURIComponent(page.url()), /max_skb_frags=40/);
  await shot(page, 'lesson-step1-40-frags');
  page.assertClean();
});

test('lesson: steps, keyboard and predict-then-check', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/skb-layout/2`);
  await appReady(page);
  const title2 = await page.locator(tid('step-title')).innerText();
  assert.match(title2, /destructor/i);
  // Predict before you see: the diagram (which shows the shared info size) is veiled.
  assert.equal(await page.locator(tid('veiled-diagram')).count(), 1, 'the diagram is veiled before answering');
  const answer = page.locator(`${tid('question')} input`).first();
  await answer.fill('487');
  await page.click(tid('check'));
  const wrong = await page.locator(tid('grade')).innerText();
  assert.match(wrong, /not quite/i);
  assert.match(wrong, /higher/i, 'a wrong number says which way');
  assert.doesNotMatch(wrong, /488/, 'a wrong answer does not give the right one away');
  assert.equal(await page.locator(tid('hint')).count(), 1, 'a hint after the first miss');
  assert.equal(await page.locator(tid('veiled-diagram')).count(), 1, 'still veiled after a miss');
  await answer.fill('488');
  await page.click(tid('check'));
  assert.match(await page.locator(tid('grade')).innerText(), /right/i);
  await page.waitForFunction(() => !document.querySelector('[data-testid="veiled-diagram"]'));
  assert.equal((await page.locator(tid('grade')).innerText()).match(/right/gi).length, 1, 'says it once');
  await shot(page, 'lesson-step2-graded');

  await page.click(tid('next-step'));
  await page.waitForFunction((t) => document.querySelector('[data-testid="step-title"]').innerText !== t, title2);
  assert.match(page.url(), /skb-layout\/3/);
  // ← / → change the step only with focus on the step list or the step's buttons.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('ArrowLeft');
  await page.waitForTimeout(300);
  assert.match(page.url(), /skb-layout\/3/, 'an arrow key on the page scrolls, it does not change the step');
  await page.locator(tid('step-3')).focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => /skb-layout\/2/.test(location.hash));
  await page.waitForFunction(() => document.activeElement?.dataset.testid === 'step-2');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => /skb-layout\/3/.test(location.hash));
  await page.locator(tid('prev-step')).focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => /skb-layout\/2/.test(location.hash));
  page.assertClean();
});

test('a shared URL restores lesson, step and parameters', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/skb-layout/4?max_skb_frags=18&mtu=1500`);
  await appReady(page);
  assert.match(await page.locator(tid('step-title')).innerText(), /two frags fewer/i);
  assert.equal(await page.locator(tid('param-max_skb_frags')).first().inputValue(), '18');
  const diagram = await page.locator(tid('diagram')).innerText();
  assert.match(diagram, /4k|4096/, 'the diagram shows the 4 KiB object for 18 frags');
  await shot(page, 'shared-url');
  page.assertClean();
});

test('the page runs under a strict Content-Security-Policy', async () => {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]*)"/)?.[1];
  assert.ok(csp, 'index.html has a CSP meta tag');
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]{44}'/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /INLINE_SCRIPT_HASHES|https?:|\*/, 'no placeholder, no remote origin, no wildcard');
  const page = await openPage(browser, srv.base);
  const violations = [];
  page.on('console', (msg) => { if (msg.text().includes('Content Security Policy') || msg.text().startsWith('CSP violation')) violations.push(msg.text()); });
  // The heavy lesson runs in the Web Worker: the wasm, the worker and its wasm all start.
  await page.goto(`${srv.base}/#/play/high-order-alloc?max_threads=2&measure_us=100`);
  await appReady(page);
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="chart-chart"]')
    ?.dataset.points) >= 2, null, { timeout: 30000 });
  await page.goto(`${srv.base}/#/lesson/ktls-recursion/1`);
  await appReady(page);
  assert.deepEqual(violations, []);
  page.assertClean();
});

test('a malformed URL shows a notice and falls back to defaults', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/skb-layout/99?mtu=banana&nope=1`);
  await appReady(page);
  const notice = await page.locator(tid('notice')).innerText();
  assert.match(notice, /mtu|banana|step/i);
  await page.waitForSelector(tid('step-title'));
  await shot(page, 'malformed-url');
  await page.goto(`${srv.base}/#/lesson/no-such-lesson`);
  await appReady(page);
  assert.match(await page.locator(tid('notice')).innerText(), /no-such-lesson/);
  page.assertClean();
});

test('a new preset keeps the learner\'s knobs and says so in a note, not as a problem', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/play/skb-layout?mtu=9000`);
  await appReady(page);
  await page.locator(tid('param-preset')).first().selectOption('arm64-64k');
  const note = page.locator(tid('note'));
  await note.waitFor();
  assert.match(await note.innerText(), /^Note/);
  assert.match(await note.innerText(), /Your own settings stay over the preset: mtu = 9000/);
  assert.equal(await note.getAttribute('role'), 'status');
  assert.equal(await page.locator(tid('notice')).count(), 0, 'no "could not be used" box');
  await page.click(`${tid('note')} button`);
  assert.equal(await page.locator(tid('note')).count(), 0, 'Dismiss removes it');
  page.assertClean();
});

test('dark mode follows the system', async () => {
  const page = await openPage(browser, srv.base, { colorScheme: 'dark' });
  await page.goto(`${srv.base}/#/lesson/skb-layout/3`);
  await appReady(page);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const [r, g, b] = bg.match(/\d+/g).map(Number);
  assert.ok(r + g + b < 200, `dark background expected, got ${bg}`);
  await shot(page, 'lesson-dark');
  page.assertClean();
});

test('about page cites the seed posts', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/about`);
  await appReady(page);
  const text = await page.locator('main').innerText();
  assert.match(text, /20190614232221\.248392-5-edumazet@google\.com/);
  assert.match(text, /Ian Campbell/);
  await shot(page, 'about');
  page.assertClean();
});

test('corrupt saved progress shows a notice and starts from empty progress', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/`);
  await appReady(page);
  await page.evaluate(() => localStorage.setItem('skblab.progress.v1', '{not json'));
  await page.reload();
  await appReady(page);
  const notice = await page.locator(tid('notice')).innerText();
  assert.match(notice, /progress/i);
  assert.match(await page.locator(tid('lesson-card-skb-layout')).innerText(), /0 \/ 8 steps/);
  await shot(page, 'corrupt-progress');
  // Dismissed on the home page (its small app), it stays dismissed in the full app.
  await page.click(`${tid('notice')} button`);
  await page.click(`${tid('lesson-card-skb-layout')} a`);
  await page.waitForSelector(tid('step-title'));
  assert.equal(await page.locator(tid('notice')).count(), 0, 'the dismissed notice stays dismissed after the handover');
  page.assertClean();
});
