// End-to-end tests of the "Your machine" page (#/machine): the project's
// reference measurement is fetched, parsed and fitted in the worker (progress to done), and the
// page's table and fitted constant equal the CLI's JSON for it (data/machine-fit/2026-12-02-amd-epyc-f25m1.json,
// checked against core by core/tests/measure.rs) number for number; a file picked or pasted is
// fitted and its overlays drawn, kept in localStorage across a reload and forgotten on demand; a
// broken file (truncated, wrong schema_version, a hostile huge string) is one clear line and no
// console error; a corrupt kept entry is dropped with a notice, a kept file core now refuses
// (a stream value of 1.7e308) too, and the largest legal values draw; Stop ends the fit at once; the
// high-order-alloc lesson links the page. Screenshots: desktop 1280 px, 360 px phone, dark.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { serverAndBrowser, openPage, shot, appReady, tid } from './harness.mjs';

const REFERENCE_PATH = new URL('../../data/measurements/2026-12-02-amd-epyc-f25m1.json', import.meta.url);
const REFERENCE = fs.readFileSync(REFERENCE_PATH, 'utf8');
const CLI = JSON.parse(fs.readFileSync(new URL('../../data/machine-fit/2026-12-02-amd-epyc-f25m1.json', import.meta.url), 'utf8'));
const KEY = 'skblab-machine-v1';
const FIT_TIMEOUT = 300_000;

const ctx = serverAndBrowser();

async function openMachine(options = {}, init = null, arg = undefined) {
  const page = await openPage(ctx.browser, ctx.srv.base, options);
  const times = [];
  page.on('console', (m) => { if (/machine fit of/.test(m.text())) times.push(m.text()); });
  page.fitTimes = times;
  if (init) await page.addInitScript(init, arg);
  await page.goto(`${ctx.srv.base}/#/machine`);
  await appReady(page);
  await page.waitForSelector(tid('machine-page'));
  return page;
}

async function fitted(page) {
  await page.locator(tid('machine-table')).waitFor({ timeout: FIT_TIMEOUT });
  await page.locator(tid('machine-time')).waitFor();
}

/** The table as the page wrote it: every row's exact numbers (data attributes) and shown text. */
async function tableRows(page) {
  return page.$$eval(`${tid('machine-row')}`, (rows) => rows.map((r) => ({
    suite: r.dataset.suite,
    cell: r.dataset.cell,
    measured: Number(r.dataset.measured),
    measured_min: Number(r.dataset.min),
    measured_max: Number(r.dataset.max),
    predicted_catalogue: Number(r.dataset.catalogue),
    error_catalogue_pct: Number(r.dataset.errorCatalogue),
    predicted: Number(r.dataset.fitted),
    error_pct: Number(r.dataset.error),
    used_for_fit: r.dataset.used === 'true',
    verdict: r.dataset.verdict,
    shown: r.querySelector('[data-testid="machine-measured"]').innerText,
    text: r.innerText,
  })));
}

const oneDecimal = (v) => v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
// A table cell: one decimal, none for a whole number ("4,096 bytes", not "4,096.0").
const cellNum = (v) => (Number.isInteger(v) ? v.toLocaleString('en-US') : oneDecimal(v));

test('the reference is fetched, fitted in the worker, and its numbers are the CLI\'s', async () => {
  const page = await openMachine({ viewport: { width: 1280, height: 900 } });
  assert.match(await page.locator(tid('machine-commands')).innerText(), /measure all --out my-machine\.json/);
  await page.locator(tid('machine-facts')).waitFor({ timeout: 60000 });
  const facts = await page.locator(tid('machine-facts')).innerText();
  for (const word of ['AMD EPYC', 'AuthenticAMD family 25 model 1', '6.18.44-fc-v1045', 'KVM', 'cpu-clock', '2026-12-02T10:11:18Z']) {
    assert.ok(facts.includes(word), `facts: no ${word} in ${facts}`);
  }
  // The family row agrees with the profile the prediction uses (the file names none; its CPU maps to milan-guest).
  assert.match(await page.locator('[data-fact="catalogue family"]').innerText(), /^milan-guest \(from the CPU/);
  // Progress is drawn while the worker runs (unless the fit beat the first frame).
  const progress = page.locator(tid('machine-progress'));
  if (await progress.count()) assert.ok(Number(await progress.getAttribute('data-total')) > 0);
  await fitted(page);
  assert.match(await page.locator(tid('machine-time')).innerText(), /^Fitted the reference measurement in [\d.]+ s in the worker \(84 simulator runs/);
  const rows = await tableRows(page);
  assert.equal(rows.length, CLI.points.length);
  const fields = ['suite', 'cell', 'measured', 'measured_min', 'measured_max', 'predicted_catalogue',
    'error_catalogue_pct', 'predicted', 'error_pct', 'used_for_fit', 'verdict'];
  CLI.points.forEach((p, i) => {
    for (const f of fields) assert.equal(rows[i][f], p[f], `${p.cell}: ${f}`);
    assert.equal(rows[i].shown, cellNum(p.measured), `${p.cell}: shown`);
    assert.ok(rows[i].text.includes(`${p.error_pct >= 0 ? '+' : ''}${p.error_pct.toFixed(1)} %`), `${p.cell}: its error is shown`);
  });
  const fit = page.locator(tid('machine-fitted'));
  assert.equal(Number(await fit.getAttribute('data-value')), CLI.fitted[0].value);
  assert.ok((await fit.innerText()).includes(CLI.fitted[0].name));
  // A fit on its range's bound says so beside the value (core's Fitted::at_bound: within 2 %).
  const f0 = CLI.fitted[0];
  const atBound = f0.value <= f0.range[0] * 1.02 || f0.value >= f0.range[1] * 0.98;
  assert.equal(await page.locator(tid('machine-fit-at-bound')).count(), atBound ? 1 : 0, `fit ${f0.value} in [${f0.range}]`);
  assert.match(await page.locator(tid('machine-summary')).innerText(), /stream MAPE from the catalogue alone/);
  assert.equal(await page.locator(`${tid('machine-not-predicted')} li`).count(), CLI.not_predicted.length);
  assert.equal(await page.locator(`${tid('machine-notes')} li`).count(), CLI.notes.length);
  // One overlay per flows × order of the stream suite, each with its three send sizes.
  const charts = page.locator('canvas[data-testid^="machine-chart-"]');
  assert.equal(await charts.count(), 4);
  for (let i = 0; i < 4; i++) {
    assert.equal(await charts.nth(i).getAttribute('data-points'), '3');
    assert.match(await charts.nth(i).getAttribute('aria-label'), /64 KiB: measured \d+ Mbit\/s .*(misses|close|agrees|within spread)/);
  }
  console.info(`[machine] ${page.fitTimes.join('; ')}`);
  await shot(page, 'machine');
  page.assertClean();
  await page.close();
});

test('a picked file is fitted and kept across a reload; a pasted one too; Forget drops it', async () => {
  const page = await openMachine();
  await fitted(page);
  await page.setInputFiles(tid('machine-file'), { name: 'my-machine.json', mimeType: 'application/json', buffer: Buffer.from(REFERENCE) });
  await page.waitForFunction(() => /my-machine\.json/.test(document.querySelector('[data-testid="machine-time"]')?.innerText ?? ''));
  assert.equal(await page.locator('canvas[data-testid^="machine-chart-"]').count(), 4);
  await page.waitForFunction((k) => localStorage.getItem(k) !== null, KEY);
  const kept = JSON.parse(await page.evaluate((k) => localStorage.getItem(k), KEY));
  assert.deepEqual([kept.v, kept.name, kept.text === REFERENCE], [1, 'my-machine.json', true]);
  await page.reload();
  await appReady(page);
  await page.locator(tid('machine-progress')).or(page.locator(tid('machine-time'))).first().waitFor({ timeout: 60000 });
  await fitted(page);
  assert.match(await page.locator(tid('machine-time')).innerText(), /my-machine\.json/);
  assert.equal((await tableRows(page)).length, CLI.points.length);
  await page.click(tid('machine-forget'));
  await page.waitForFunction(() => /reference measurement/.test(document.querySelector('[data-testid="machine-time"]')?.innerText ?? ''), null, { timeout: FIT_TIMEOUT });
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), KEY), null);
  await page.locator('.machine-paste-box summary').click();
  await page.locator(tid('machine-paste')).fill(REFERENCE);
  await page.click(tid('machine-paste-use'));
  await page.waitForFunction(() => /pasted text/.test(document.querySelector('[data-testid="machine-time"]')?.innerText ?? ''));
  assert.equal(await page.locator('canvas[data-testid^="machine-chart-"]').count(), 4);
  page.assertClean();
  await page.close();
});

test('a broken file is one clear line, never kept, and no console error', async () => {
  const page = await openMachine();
  await fitted(page);
  const wrongVersion = REFERENCE.replace('"schema_version": 1', '"schema_version": 2');
  const hostile = `{"schema_version": 1, "tool": "${'x'.repeat(5 << 20)}"}`;
  const cases = [
    ['truncated.json', REFERENCE.slice(0, REFERENCE.length / 2), /not valid JSON/],
    ['version.json', wrongVersion, /schema_version 2 is not supported: this skblab reads version 1/],
    ['hostile.json', hostile, /more than the 4194304 a measurement may have/],
    ['array.json', '[1, 2, 3]', /not a measurement/],
  ];
  for (const [name, text, expected] of cases) {
    await page.setInputFiles(tid('machine-file'), { name, mimeType: 'application/json', buffer: Buffer.from(text) });
    const line = page.locator(`${tid('machine-error')}, ${tid('machine-notice')}`).first();
    await line.waitFor({ timeout: 60000 });
    const said = await line.innerText();
    assert.match(said, expected, name);
    assert.ok(said.includes(name), `${name}: the message names the file: ${said}`);
    assert.ok(!said.trim().includes('\n'), `${name}: one line: ${said}`);
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), KEY), null, `${name} is not kept`);
    // The reference again, before the next case (from the page's finished fits: at once).
    await page.click(tid('machine-reference'));
    await page.locator(tid('machine-table')).waitFor({ timeout: FIT_TIMEOUT });
  }
  // Pasted text reaches core's parser in the worker the same way: one line, named.
  await page.locator('.machine-paste-box summary').click();
  await page.locator(tid('machine-paste')).fill(wrongVersion);
  await page.click(tid('machine-paste-use'));
  await page.locator(tid('machine-error')).waitFor({ timeout: 60000 });
  assert.match(await page.locator(tid('machine-error')).innerText(), /^pasted text: schema_version 2 is not supported/);
  page.assertClean();
  await page.close();
});

test('a corrupt or old kept entry is dropped with a plain notice and the reference is shown', async () => {
  const page = await openMachine({}, () => {
    localStorage.setItem('skblab-machine-v1', '{"v":1,"name":"x"');
    localStorage.setItem('skblab-machine', 'old');
  });
  await page.locator(tid('machine-notice')).waitFor();
  const notice = await page.locator(tid('machine-notice')).innerText();
  assert.match(notice, /The measurement kept in this browser was dropped: it is not in the format this page keeps/);
  assert.match(notice, /kept by an older version of this page/);
  await fitted(page);
  assert.match(await page.locator(tid('machine-time')).innerText(), /reference measurement/);
  assert.deepEqual(await page.evaluate(() => [localStorage.getItem('skblab-machine-v1'), localStorage.getItem('skblab-machine')]), [null, null]);
  page.assertClean();
  await page.close();
});

const HOSTILE = (kind, name) => fs.readFileSync(new URL(`../../core/tests/data/hostile-measure/${kind}/${name}`, import.meta.url), 'utf8');

test('a kept file with a stream value of 1.7e308 is dropped with a notice and the reference fitted, not a hang; 1e14 draws', async () => {
  // Kept before core refused such values, the entry used to hang the page on every visit (the
  // chart's top, 1.1 x the largest value, overflowed to infinity).
  const huge = JSON.stringify({ v: 1, name: 'huge.json', text: HOSTILE('reject', 'huge-values.json') });
  const page = await openMachine({}, (entry) => {
    if (!sessionStorage.getItem('seeded')) { localStorage.setItem('skblab-machine-v1', entry); sessionStorage.setItem('seeded', '1'); }
  }, huge);
  await page.locator(tid('machine-notice')).waitFor({ timeout: 60000 });
  assert.match(await page.locator(tid('machine-notice')).innerText(),
    /The measurement kept in this browser was dropped: core could not read it .*1\.7e308 is not a measurement/);
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), KEY), null, 'the refused entry is forgotten');
  // The page stays responsive and is not left empty: the reference is fitted on its own, as
  // after a kept entry that does not decode, under the notice.
  await fitted(page);
  assert.match(await page.locator(tid('machine-time')).innerText(), /reference measurement/);
  assert.match(await page.locator(tid('machine-notice')).innerText(), /was dropped/, 'the notice stays');
  // The largest legal values are fitted and drawn (the axis is capped), and kept.
  await page.setInputFiles(tid('machine-file'), { name: 'large.json', mimeType: 'application/json', buffer: Buffer.from(HOSTILE('accept', 'large-values.json')) });
  await page.waitForFunction(() => /large\.json/.test(document.querySelector('[data-testid="machine-time"]')?.innerText ?? ''), null, { timeout: 60000 });
  assert.ok(await page.locator('canvas[data-testid^="machine-chart-"]').count() >= 1);
  await page.reload();
  await appReady(page);
  await page.waitForFunction(() => /large\.json/.test(document.querySelector('[data-testid="machine-time"]')?.innerText ?? ''), null, { timeout: 60000 });
  page.assertClean();
  await page.close();
});

/** A file whose fit takes many seconds (the reference's takes a fraction of one): 256 cells of 16 flows. */
function heavy() {
  const m = JSON.parse(REFERENCE);
  const base = m.suites.stream.cells[0];
  m.suites.stream.cells = Array.from({ length: 256 }, (_, k) => ({
    ...base, id: `tcp-16flow-64k-${k}`, setting: { flows: 16, msg_bytes: 65536, order: k % 2 ? 0 : 3 },
  }));
  return JSON.stringify(m);
}

test('Stop ends the fit at once, Fit again restarts it', async () => {
  const page = await openMachine();
  await fitted(page);
  await page.setInputFiles(tid('machine-file'), { name: 'heavy.json', mimeType: 'application/json', buffer: Buffer.from(heavy()) });
  await page.locator(tid('machine-stop')).waitFor({ timeout: 60000 });
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="machine-progress"]')?.dataset.done) > 0, null, { timeout: 60000 });
  assert.match(await page.locator(tid('machine-eta')).innerText(), /about \d+ (s|min) left/);
  await page.locator(tid('machine-eta')).waitFor();
  const t0 = Date.now();
  await page.click(tid('machine-stop'));
  await page.locator(tid('machine-stopped')).waitFor({ timeout: 2000 });
  const ms = Date.now() - t0;
  const stopped = await page.locator(tid('machine-stopped')).innerText();
  assert.match(stopped, /Stopped after \d+ of \d+ simulator runs/);
  await page.waitForTimeout(1500);
  assert.equal(await page.locator(tid('machine-stopped')).innerText(), stopped, 'nothing arrives after Stop');
  console.info(`[machine] Stop: ${ms} ms to "Stopped after"`);
  await page.click(tid('machine-restart'));
  await page.locator(tid('machine-stop')).waitFor({ timeout: 60000 });
  await page.click(tid('machine-stop'));
  await page.locator(tid('machine-stopped')).waitFor({ timeout: 2000 });
  page.assertClean();
  await page.close();
});

test('the footer and the high-order-alloc lesson link the page', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base);
  await page.goto(`${ctx.srv.base}/#/about`);
  await appReady(page);
  await page.click(tid('footer-machine'));
  await page.waitForSelector(tid('machine-page'));
  assert.equal(new URL(page.url()).hash, '#/machine');
  await page.goto(`${ctx.srv.base}/#/lesson/high-order-alloc/7`);
  await appReady(page);
  const link = page.locator('main a[href="#/machine"]');
  await link.first().waitFor();
  await link.first().click();
  await page.waitForSelector(tid('machine-page'));
  page.assertClean();
  await page.close();
});

test('the page at 360 px (no sideways scroll) and in the dark theme', async () => {
  const phone = await openMachine({ viewport: { width: 360, height: 800 }, isMobile: true, hasTouch: true });
  await fitted(phone);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px`);
  await shot(phone, 'machine-phone');
  phone.assertClean();
  await phone.close();
  const dark = await openMachine({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
  await fitted(dark);
  await shot(dark, 'machine-dark');
  dark.assertClean();
  await dark.close();
});
