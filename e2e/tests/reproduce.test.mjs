// End-to-end tests of the Reproduce page (#/reproduce?seeds=N): the five seed
// posts in order, each with its citation and the tables of its experiments, titled as the
// lessons, with links to the lesson and the playground; every cell of every table at 5 seeds
// equals `skblab reproduce <id> --seeds 5 --format json` (committed in e2e/fixtures, kept in
// step with the CLI by core/tests/reproduce_fixtures.rs), printed in the CLI's rounding; the
// seeds control and a bad value; the time all tables take (printed, not asserted); axe; and
// screenshots at 1280 px, 360 px and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { startServer, launch, openPage, shot, appReady, tid } from './harness.mjs';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const FIXTURES = new URL('../fixtures/', import.meta.url);
const IDS = fs.readdirSync(FIXTURES).filter((f) => /^reproduce-.*\.json$/.test(f)).map((f) => f.slice(10, -5));
const CLI = Object.fromEntries(IDS.map((id) => [id, JSON.parse(fs.readFileSync(new URL(`reproduce-${id}.json`, FIXTURES), 'utf8'))]));
// The posts in order and the experiments under each (lessons/index.toml pairs them).
const POSTS = { '000': ['high-order-alloc'], '001': ['skb-layout', 'cross-cpu-free'], '002': ['page-frag-free'],
  '003': ['percpu-counter'], '004': ['skb-cache', 'ktls-recursion'] };
// Generous: the whole page at 5 seeds on a loaded 2-core machine.
const ALL_IN_MS = 600_000;

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

// Rust's `{:.d}`: like toFixed, except that a value exactly halfway between two results (21.25
// to one decimal) goes to the even one ("21.2"), where toFixed takes the larger ("21.3"). The
// tie is read off the double's exact decimal digits (toFixed's own exact arithmetic): 12.65 is
// 12.6500000000000003553… and rounds up either way.
function fixed(v, d) {
  const exact = Math.abs(v).toFixed(Math.min(100, d + 60));
  const dot = exact.indexOf('.');
  const truncated = exact.slice(0, d === 0 ? dot : dot + 1 + d);
  const tie = /^50*$/.test(exact.slice(dot + 1 + d));
  if (tie && Number(truncated.at(-1)) % 2 === 0) return `${v < 0 ? '-' : ''}${truncated}`;
  return v.toFixed(d);
}
// core's fmt_num (core/src/output/mod.rs): whole numbers as integers, below 10 up to three
// decimals (trailing zeros dropped, one kept), else one decimal.
function small(v) {
  const t = fixed(v, 3).replace(/0+$/, '');
  return t.endsWith('.') ? `${t}0` : t;
}
function fmtNum(v) {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return Math.abs(v) < 10 ? small(v) : fixed(v, 1);
}
// core's fmt_seed: a seed value as the source wrote it (shortest form, up to three decimals).
function fmtSeed(v) {
  const t = String(v);
  return (t.split('.')[1] ?? '').length > 3 || Math.abs(v) >= 1e15 ? fmtNum(v) : t;
}
// No percentage against a measured zero (core's ReproCell::error_pct): "n/a".
const errorPct = (c) => (c.measured === 0 ? (c.simulated === 0 ? 0 : null) : (c.simulated - c.measured) / c.measured * 100);
const signed = (v) => (v === null ? 'n/a' : `${v >= 0 ? '+' : '-'}${fixed(Math.abs(v), 1)} %`);

async function allIn(page, n) {
  const t0 = Date.now();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid$="-time"].repro-time').length === n,
    IDS.length, { timeout: ALL_IN_MS, polling: 500 });
  const times = await page.$$eval('.repro-time', (els) => els.map((e) => [e.closest('section').dataset.testid, Number(e.dataset.ms)]));
  console.log(`# reproduce page at ${n} seed(s): all ${IDS.length} tables in ${((Date.now() - t0) / 1000).toFixed(1)} s after the app was ready;`
    + ` per table (ms): ${times.map(([id, ms]) => `${id.replace('reproduce-', '')} ${ms}`).join(', ')}`);
}

test('reproduce page at 5 seeds: the five posts in order, every cell the CLI\'s', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/reproduce`);
  await appReady(page);
  const t0 = Date.now();
  assert.equal(await page.getAttribute(tid('reproduce-page'), 'data-seeds'), '5');
  // The page's work is said before it starts (the CLI's estimate, on the pool's workers).
  const estimate = await page.locator(tid('repro-estimate')).innerText();
  const m = /^Every table's seeds: estimated (under 1 s|(\d+) s|(\d+) min) on (1 worker|\d+ workers)\.$/.exec(estimate);
  assert.ok(m, estimate);
  const posts = await page.$$eval('section.seed-post', (els) => els.map((e) => e.dataset.testid));
  assert.deepEqual(posts, Object.keys(POSTS).map((k) => `seed-post-${k}`));
  for (const [k, ids] of Object.entries(POSTS)) {
    const post = page.locator(tid(`seed-post-${k}`));
    const order = await post.locator('section.repro-section').evaluateAll((els) => els.map((e) => e.dataset.testid));
    assert.deepEqual(order, ids.map((id) => `reproduce-${id}`), `post ${k}`);
    assert.equal(await post.locator(`${tid('seed-cite')} dt`).count(), 5, 'list, date, author, subject, Message-ID');
  }
  // Message-IDs are links to the archive.
  assert.equal(await page.locator(`${tid('seed-post-000')} ${tid('seed-cite')} a`).getAttribute('href'),
    'https://lore.kernel.org/r/20190614232221.248392-5-edumazet@google.com');
  await allIn(page, 5);
  const tookS = (Date.now() - t0) / 1000;
  const estS = m[2] ? Number(m[2]) : m[3] ? 60 * Number(m[3]) : 0.5;
  console.info(`[reproduce] 5 seeds: estimated ${estS} s, all tables in ${tookS.toFixed(1)} s (${(estS / tookS).toFixed(2)}x)`);
  for (const id of IDS) {
    const cli = CLI[id];
    assert.deepEqual(cli.seeds, [1, 2, 3, 4, 5]);
    const table = page.locator(tid(`repro-${id}-table`));
    assert.equal(await table.getAttribute('data-partial'), 'false', id);
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      label: tr.dataset.label,
      cells: Object.fromEntries([...tr.querySelectorAll('td[data-metric]')].map((td) => [`${td.dataset.metric}/${td.dataset.kind}`, td.textContent])),
    })));
    assert.deepEqual(rows.map((r) => r.label), cli.rows.map((r) => r.label), `${id}: every row of the CLI, in order`);
    for (const [i, row] of cli.rows.entries()) {
      for (const c of row.cells) {
        const at = `${id} / ${row.label} / ${c.metric}`;
        const got = rows[i].cells;
        assert.equal(got[`${c.metric}/seed`], fmtSeed(c.measured), `${at}: seed`);
        const spread = c.spread ? ` [${fmtNum(c.spread[0])}–${fmtNum(c.spread[1])}]` : '';
        assert.equal(got[`${c.metric}/sim`], fmtNum(c.simulated) + spread, `${at}: model`);
        assert.equal(got[`${c.metric}/err`], signed(errorPct(c)), `${at}: error`);
      }
    }
    for (const [k, v] of Object.entries(cli.summary)) {
      if (!k.startsWith('mape_pct_')) continue;
      const metric = k.slice('mape_pct_'.length);
      if (v === null) {
        assert.equal(await table.locator(`tfoot [data-metric="${metric}"][data-kind="mape"]`).count(), 0, `${id}: no MAPE of ${metric}`);
        continue;
      }
      assert.equal(await table.locator(`tfoot [data-metric="${metric}"][data-kind="mape"]`).innerText(), `${v.toFixed(2)} %`, `${id}: MAPE ${metric}`);
    }
    assert.equal(await table.locator('[data-kind="max-error"]').innerText(), `max |error|: ${cli.summary.max_abs_error_pct.toFixed(2)} %`);
    const notes = await table.locator('.repro-summary li:not([data-kind])').allInnerTexts();
    assert.deepEqual(notes, cli.notes, `${id}: the CLI's notes`);
    // The verdict strip: one line per table of the CLI's verdicts.
    assert.equal(await table.locator(`${tid('verdict-strip')} li`).count(), cli.tables.length, `${id}: verdicts`);
    // Titled as the lesson, with its links.
    const section = page.locator(tid(`reproduce-${id}`));
    assert.equal(await section.locator(tid(`repro-${id}-lesson`)).getAttribute('href'), `#/lesson/${id}/1`);
    assert.match(await section.locator(tid(`repro-${id}-play`)).getAttribute('href'), new RegExp(`^#/play/${id}(\\?|$)`));
  }
  const headers = await page.locator(`${tid('repro-high-order-alloc-table')} thead`).innerText();
  assert.match(headers, /order-3, Mbit\/s/);
  assert.doesNotMatch(headers, /order3_mbps/);
  await shot(page, 'reproduce-5-seeds');
  page.assertClean();
  await page.close();
});

test('reproduce page: the seeds control, one seed, and a bad value', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/reproduce?seeds=1`);
  await appReady(page);
  assert.equal(await page.getAttribute(tid('reproduce-page'), 'data-seeds'), '1');
  await allIn(page, 1);
  // One seed: no spread, and the seed-1 table equals a 1-seed mean (the CLI's default seed).
  assert.equal(await page.locator('.spread').count(), 0);
  await page.selectOption(tid('repro-seeds'), '3');
  await page.waitForFunction(() => location.hash === '#/reproduce?seeds=3');
  assert.equal(await page.getAttribute(tid('reproduce-page'), 'data-seeds'), '3');
  await page.goto(`${srv.base}/#/reproduce?seeds=42`);
  const notice = page.locator('[role="alert"]').first();
  await notice.waitFor();
  assert.match(await notice.innerText(), /bad value '42' for 'seeds'.*1 to 10; using 5 seeds/);
  assert.equal(await page.getAttribute(tid('reproduce-page'), 'data-seeds'), '5');
  page.assertClean();
  await page.close();
});

for (const [name, options] of [['desktop', {}], ['phone', { viewport: { width: 360, height: 800 }, isMobile: true, hasTouch: true }],
  ['dark', { colorScheme: 'dark' }]]) {
  test(`reproduce page (${name}): axe finds no serious violation, no new landmark or heading issue; screenshot`, async () => {
    const page = await openPage(browser, srv.base, options);
    await page.goto(`${srv.base}/#/reproduce?seeds=1`);
    await appReady(page);
    await allIn(page, 1);
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
    });
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'
      || ['landmark-unique', 'heading-order', 'region'].includes(v.id));
    assert.deepEqual(bad, [], JSON.stringify(bad));
    if (name === 'phone') {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px`);
    }
    await shot(page, `reproduce-${name}`);
    page.assertClean();
    await page.close();
  });
}
