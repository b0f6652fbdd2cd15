// A learner's walk through the whole course, re-runnable (not part of `make test`: it takes
// about 11 to 16 minutes on 2 cores). Every written lesson, every step, on a desktop and on a 360 px phone:
//  - the desktop pass reads all readable text of the step (and of its four pre-rendered
//    copies), moves one knob the step invites (one its text names, else one its parameters
//    set) and reads again, answers wrong, then asks for the answer, and looks for that answer
//    in everything read before it (e2e/tests/leaks.test.mjs's rule);
//  - the phone pass answers wrong, then right with the answer the desktop pass learned;
//  - once the answer is shown, every number with a unit in the step's text and explanation is
//    looked for among the numbers the step's views show (table cells, chart labels, text
//    views), within the last written digit: one not found is listed for a reader to judge (the
//    text may speak of other settings: a contradiction only if it speaks of these);
//  - a sample of steps is saved as screenshots (desktop, phone, dark) to look at.
// Then every placeholder the lesson text shows is checked against the value it names
// (walk/placeholders.mjs: a contradiction is a printed number outside the placeholder's last
// digit of the page's table, or of `skblab run` at the placeholder's settings; needs
// SKBLAB_CLI, the release CLI), and the Reproduce page, the Validation page and the home page's lesson cards are read for
// their verdicts and counts, printed side by side.
//   cd e2e && SKBLAB_DIST=../dist node walk/walk.mjs [lesson-slug …]
// Prints one line per finding and a summary; writes walk/out/report.json and screenshots to
// e2e/screenshots/walk/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launch, openPage, SHOTS } from '../tests/harness.mjs';
import { givenAway, readable } from '../tests/leak-rule.mjs';
import { checkPlaceholders, writtenLessons } from './placeholders.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const tid = (id) => `[data-testid="${id}"]`;
const INDEX = fs.readFileSync(path.join(here, '../../lessons/index.toml'), 'utf8');
const ONLY = process.argv.slice(2);
const LESSONS = INDEX.split('[[lesson]]').slice(1)
  .filter((b) => /status = "written"/.test(b))
  .map((b) => {
    const slug = b.match(/slug = "([^"]+)"/)[1];
    const text = fs.readFileSync(path.join(here, `../../lessons/content/${slug}.md`), 'utf8');
    return { slug, steps: (text.match(/^\[\[steps\]\]/gm) || []).length };
  })
  .filter((l) => !ONLY.length || ONLY.includes(l.slug));
const SAMPLE = new Set(['skb-layout/2', 'skb-cache/2', 'high-order-alloc/3', 'high-order-alloc/4',
  'page-frag-free/4', 'cross-cpu-free/3', 'percpu-counter/2', 'ktls-recursion/7', 'ktls-recursion/3']);
const DIR = path.join(SHOTS, 'walk');
fs.mkdirSync(DIR, { recursive: true });
fs.mkdirSync(path.join(here, 'out'), { recursive: true });

const findings = { leaks: [], contradictions: [], placeholders_unchecked: [], model_numbers: [], grading: [], knobs: [], problems: [], verdicts: {}, pages: {} };
const log = (kind, line) => { findings[kind].push(line); console.log(`[${kind}] ${line}`); };

const revealed = (text) => {
  const m = /model says ([-+−]?[\d,]*\.?\d+)\s*([^\s.]*)/i.exec(text);
  if (m) return { value: m[1].replace('−', '-'), unit: m[2] || '' };
  const c = /model says (.+?)\.?$/im.exec(text);
  return c ? { choice: c[1].trim() } : null;
};

async function settle(page, timeout = 90000) {
  const t0 = Date.now();
  for (;;) {
    if (await page.locator(tid('run-confirm')).count()) return 'go-ahead';
    const done = await page.evaluate(() => [...document.querySelectorAll('[data-testid="sweep-progress"]')]
      .every((bar) => bar.getAttribute('aria-valuenow') === '100')
      && !document.querySelector('[data-testid="checking"]'));
    if (done) break;
    if (Date.now() - t0 > timeout) return 'timeout';
    await page.waitForTimeout(250);
  }
  await page.waitForTimeout(400);
  return 'done';
}

async function gotoStep(page, base, slug, step) {
  await page.goto(`${base}/#/lesson/${slug}/${step}`);
  await page.waitForFunction((n) => document.querySelector(`[data-testid="step-${n}"]`)?.getAttribute('aria-current') === 'step', step, { timeout: 30000 });
  return settle(page);
}

/** The knobs a step invites, best first: those its text names, then those its params set. */
async function knobCandidates(page) {
  return page.evaluate(() => {
    const panel = document.querySelector('[data-testid="param-panel"]');
    if (!panel) return [];
    const controls = [...panel.querySelectorAll('input[id^="param-"], select[id^="param-"]')]
      .filter((el) => el.id !== 'param-seed' && !el.id.endsWith('-range'));
    const prose = document.querySelector('article.step .prose')?.innerText || document.querySelector('main').innerText;
    const named = (el) => prose.includes(el.id.replace(/^param-/, ''));
    const set = (el) => /set/.test(el.closest('.control')?.querySelector('.badge')?.innerText || '');
    const score = (el) => (named(el) ? 2 : 0) + (set(el) ? 1 : 0);
    return controls.map((el) => ({ id: el.id, tag: el.tagName, type: el.type, score: score(el),
      value: el.type === 'checkbox' ? String(el.checked) : el.value,
      options: el.tagName === 'SELECT' ? [...el.options].map((o) => o.value) : null,
      min: el.min, max: el.max }))
      .filter((c) => c.score > 0).sort((a, b) => b.score - a.score);
  });
}

/** Moves one knob (the first candidate whose run needs no go-ahead); returns what it did. */
async function moveKnob(page) {
  for (const c of (await knobCandidates(page)).slice(0, 4)) {
    const sel = `#${c.id}`;
    let to;
    if (c.type === 'checkbox') { to = c.value === 'true' ? 'off' : 'on'; await page.click(sel); }
    else if (c.tag === 'SELECT') {
      const i = c.options.indexOf(c.value);
      to = c.options[(i + 1) % c.options.length];
      await page.selectOption(sel, to);
    } else {
      const v = Number(c.value); const max = Number(c.max || Infinity); const min = Number(c.min || 0);
      let n = v * 2 <= max ? v * 2 : Math.max(min, Math.floor(v / 2));
      if (n === v) n = v + 1 <= max ? v + 1 : v - 1;
      to = String(n);
      await page.fill(sel, to); await page.press(sel, 'Enter');
    }
    const state = await settle(page, 120000);
    if (state === 'done') return `${c.id} ${c.value} → ${to}`;
    // Too heavy to start without a go-ahead (or slow): back to the step's settings, try the next.
    await page.click(tid('reset-step')).catch(() => {});
    await settle(page, 60000);
  }
  return null;
}

const NUM_RE = /(?<![\w.,/-])[-−+]?\d[\d,]*(?:\.\d+)?(?![\w]|[.,]\d)\s?(Gbit\/s|Mbit\/s|Mpps|kpps|%|ns|µs|us|ms|bytes|KiB|MiB|B)(?!\w)/g;
const FACT = { 'Gbit/s': 1e3, 'Mbit/s': 1, Mpps: 1e3, kpps: 1, '%': 1, ns: 1, 'µs': 1e3, us: 1e3, ms: 1e6, bytes: 1, B: 1, KiB: 1024, MiB: 1048576 };
const KIND = { 'Gbit/s': 'r', 'Mbit/s': 'r', Mpps: 'p', kpps: 'p', '%': '%', ns: 't', 'µs': 't', us: 't', ms: 't', bytes: 's', B: 's', KiB: 's', MiB: 's' };

/** Numbers with units stated in `text` that none of `shown` (numbers the views show) matches. */
function unmatched(text, shown) {
  const out = [];
  for (const m of text.matchAll(NUM_RE)) {
    const num = m[0].slice(0, m[0].length - m[1].length).trim().replace(/,/g, '').replace('−', '-');
    const x = Math.abs(Number(num));
    const dec = (num.split('.')[1] || '').length;
    const half = 0.5 * 10 ** -dec * FACT[m[1]];
    const v = x * FACT[m[1]];
    const ok = shown.some((s) => {
      if (s.unit && KIND[s.unit] !== KIND[m[1]]) return false;
      const f = s.unit ? FACT[s.unit] : FACT[m[1]];
      const y = Math.abs(s.value) * f;
      return Math.abs(y - v) <= half * 1.0001 + 1e-9 || Math.abs(y - v) <= 0.005 * v;
    });
    if (!ok) out.push(`${m[0]} …${text.slice(Math.max(0, m.index - 60), m.index + m[0].length + 20)}…`);
  }
  return out;
}

/** Numbers the step's views show: table cells (with the column's unit in its header), chart and view labels, text views. */
async function viewNumbers(page) {
  return page.evaluate(() => {
    const out = [];
    const col = document.querySelector('.col-views') || document.querySelector('main');
    for (const table of col.querySelectorAll('table')) {
      const heads = [...table.querySelectorAll('thead th')].map((th) => th.innerText);
      for (const tr of table.querySelectorAll('tbody tr')) {
        [...tr.children].forEach((td, i) => {
          const unit = (/(Gbit\/s|Mbit\/s|Mpps|kpps|%|ns|µs|ms|bytes|KiB|MiB)/.exec(heads[i] || '') || [])[1] || '';
          for (const n of td.innerText.match(/[-−+]?\d[\d,]*(?:\.\d+)?/g) || []) out.push({ value: Number(n.replace(/,/g, '').replace('−', '-')), unit });
        });
      }
    }
    const texts = [...col.querySelectorAll('pre, svg text, figcaption, [aria-label], .view')].map((e) => `${e.getAttribute('aria-label') || ''} ${e.textContent}`);
    for (const t of texts) for (const m of t.matchAll(/[-−+]?\d[\d,]*(?:\.\d+)?/g)) out.push({ value: Number(m[0].replace(/,/g, '').replace('−', '-')), unit: '' });
    return out;
  });
}

/** The page's settings (its "Copy as CLI" line) and every table cell of its views, charts' data tables opened. */
async function pageState(page) {
  for (const t of await page.$$('[data-testid$="-table-toggle"]')) await t.click().catch(() => {});
  await page.waitForTimeout(200);
  return page.evaluate(() => {
    const cli = document.querySelector('[data-testid="cli-line"]')?.innerText || '';
    const cells = [];
    for (const table of document.querySelectorAll('.col-views table')) {
      const heads = [...table.querySelectorAll('thead th')].map((th) => th.innerText.trim());
      for (const tr of table.querySelectorAll('tbody tr')) {
        const key = tr.children[0]?.innerText.trim();
        [...tr.children].forEach((td, i) => cells.push({ head: heads[i] || '', key, text: td.innerText.trim() }));
      }
    }
    return { cli, cells };
  });
}

async function answerText(page, text) {
  const before = await page.locator(tid('verdict')).innerText().catch(() => '');
  if (/^choice:/.test(text)) await page.check(`${tid('question')} input[value="${text.slice(7)}"]`);
  else await page.locator(`${tid('question')} input[type="text"]`).fill(text);
  await page.click(tid('check'));
  await page.waitForFunction((b) => document.querySelector('[data-testid="verdict"]')?.innerText !== b, before, { timeout: 60000 });
  await settle(page);
  return page.locator(tid('grade')).innerText();
}

async function wrongFor(page) {
  const choices = await page.$$eval(`${tid('question')} input[type="radio"][name="answer"]`, (els) => els.map((e) => e.value));
  return { choices, wrong: (right) => (choices.length ? `choice:${choices.find((c) => c !== right) ?? choices[0]}` : (right ? String(Number(right.replace(/,/g, '')) * 3 + 17) : '987654321')) };
}

async function desktopPass(browser, base, answers) {
  let steps = 0;
  for (const { slug, steps: n } of LESSONS) {
    const page = await openPage(browser, base, { serviceWorkers: 'block' });
    for (let step = 1; step <= n; step++) {
      const at = `${slug}/${step}`;
      steps++;
      try { await desktopStep(page, base, slug, step, at, answers); } catch (e) { log('problems', `${at}: the walk failed here: ${e.message.split('\n')[0]}`); }
    }
    try { page.assertClean(); } catch (e) { log('problems', `${slug}: ${e.message.slice(0, 300)}`); }
    await page.close();
  }
  return steps;
}

async function desktopStep(page, base, slug, step, at, answers) {
  const state = await gotoStep(page, base, slug, step);
  if (state !== 'done') log('problems', `${at}: the step's own run: ${state}`);
  const hasQ = await page.locator(tid('show-answer')).count() > 0;
  const before = await page.evaluate(readable);
  const copies = [];
  for (const v of ['wide-light', 'wide-dark', 'phone-light', 'phone-dark']) {
    const html = await page.evaluate(async (u) => { const r = await fetch(u); return r.ok ? r.text() : null; }, `${base}/first/${slug}-${step}-${v}.html`);
    if (html) copies.push([v, await page.evaluate(readable, html)]);
    else log('problems', `${at}: no pre-rendered copy ${v}`);
  }
  if (SAMPLE.has(at)) await page.screenshot({ path: path.join(DIR, `${slug}-${step}-desktop.png`), fullPage: true });
  const tolerance = Number(await page.locator(tid('question')).getAttribute('data-tolerance-pct').catch(() => '0')) || 0;
  const moved = await moveKnob(page);
  if (!moved) log('knobs', `${at}: no knob moved (none invited, or each needs a go-ahead)`);
  const afterKnob = moved ? await page.evaluate(readable) : '';
  if (SAMPLE.has(at) && moved) await page.screenshot({ path: path.join(DIR, `${slug}-${step}-knob.png`), fullPage: true });
  await page.click(tid('reset-step')).catch(() => {});
  await settle(page);
  if (!hasQ) {
    answers[at] = null;
    findings.pages[at] = await pageState(page);
    findings.pages[at].text = await page.evaluate(() => document.querySelector('article.step')?.innerText || '');
    return;
  }
  const { wrong } = await wrongFor(page);
  const g1 = await answerText(page, wrong(null));
  if (!/not quite|not graded/i.test(g1)) log('grading', `${at}: a wrong answer got "${g1.slice(0, 120)}"`);
  if (/not quite/i.test(g1) && !(await page.locator(tid('hint')).count())) log('grading', `${at}: no hint after a miss`);
  if (!/model says/i.test(g1)) await page.click(tid('show-answer'));
  await page.waitForFunction(() => /model says/i.test(document.querySelector('[data-testid="grade"]')?.innerText || ''), null, { timeout: 90000 });
  await settle(page);
  const grade = await page.locator(tid('grade')).innerText();
  const ans = revealed(grade);
  answers[at] = ans;
  if (ans && ans.value !== undefined) {
    for (const [where, text] of [['page', before], ...copies.map(([v, t]) => [`copy ${v}`, t]), ['after knob move ' + moved, afterKnob]]) {
      for (const hit of givenAway(text, ans, tolerance)) log('leaks', `${at}: ${ans.value} ${ans.unit} (±${tolerance} %) readable in ${where}: ${hit}`);
    }
  } else if (ans && ans.choice) {
    // A choice is given away when written as a choice would be, beside the metric's words: listed for reading.
    for (const [where, text] of [['page', before], ['after knob ' + moved, afterKnob]]) {
      if (/^\d/.test(ans.choice) && new RegExp(`(?<![\\w.])${ans.choice.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.])`).test(text)) {
        log('knobs', `${at}: the right choice "${ans.choice}" appears in ${where} (read it)`);
      }
    }
  }
  // Contradictions: the text's numbers against what the views show, answer settled.
  const prose = await page.evaluate(() => {
    const body = document.querySelector('article.step .prose');
    const ex = document.querySelector('[data-testid="explanation"]');
    return `${body ? body.innerText : ''} || ${ex ? ex.innerText : ''}`;
  });
  const shown = await viewNumbers(page);
  for (const u of unmatched(prose, shown).filter((x) => /model/i.test(x))) log('model_numbers', `${at}: stated beside 'model', not in the views (read it): ${u}`);
  if (SAMPLE.has(at)) await page.screenshot({ path: path.join(DIR, `${slug}-${step}-answered.png`), fullPage: true });
  findings.pages[at] = await pageState(page);
  // What the learner reads once the answer is shown: title, text, prompt, explanation.
  findings.pages[at].text = await page.evaluate(() => document.querySelector('article.step')?.innerText || '');
  const seedTable = await page.evaluate(() => {
    const strip = document.querySelector('[data-testid="verdict-strip"]');
    return strip ? `${strip.innerText} || ${strip.closest('section, figure, div').innerText}` : null;
  });
  if (seedTable) findings.verdicts[`lesson ${at}`] = seedTable.replace(/\s+/g, ' ');
}

async function phonePass(browser, base, answers, scheme) {
  let steps = 0;
  for (const { slug, steps: n } of LESSONS) {
    const page = await openPage(browser, base, { serviceWorkers: 'block', viewport: { width: 360, height: 780 }, deviceScaleFactor: 2, colorScheme: scheme });
    for (let step = 1; step <= n; step++) {
      const at = `${slug}/${step}`;
      steps++;
      try { await phoneStep(page, base, slug, step, at, answers, scheme); } catch (e) { log('problems', `${at} (phone ${scheme}): the walk failed here: ${e.message.split('\n')[0]}`); }
    }
    try { page.assertClean(); } catch (e) { log('problems', `${slug} (phone): ${e.message.slice(0, 300)}`); }
    await page.close();
  }
  return steps;
}

async function phoneStep(page, base, slug, step, at, answers, scheme) {
  const state = await gotoStep(page, base, slug, step);
  if (state !== 'done') log('problems', `${at} (phone ${scheme}): the step's own run: ${state}`);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (wide > 1) log('problems', `${at} (phone ${scheme}): scrolls sideways by ${wide} px`);
  if (SAMPLE.has(at)) await page.screenshot({ path: path.join(DIR, `${slug}-${step}-phone-${scheme}.png`), fullPage: true });
  const ans = answers[at];
  if (!ans) return;
  const { wrong, choices } = await wrongFor(page);
  const right = choices.length ? `choice:${ans.choice ?? ans.value}` : `${ans.value}`;
  const g1 = await answerText(page, wrong(ans.choice ?? ans.value));
  if (!/not quite/i.test(g1)) log('grading', `${at} (phone): a wrong answer got "${g1.slice(0, 120)}"`);
  const g2 = await answerText(page, right);
  if (!/right/i.test(g2)) log('grading', `${at} (phone): the right answer ${right} got "${g2.slice(0, 160)}"`);
  if (SAMPLE.has(at)) await page.screenshot({ path: path.join(DIR, `${slug}-${step}-phone-${scheme}-right.png`), fullPage: true });
}

/** The verdicts and counts of the Reproduce page, the Validation page and the home page's cards. */
async function verdicts(browser, base) {
  const page = await openPage(browser, base, { serviceWorkers: 'block' });
  const out = {};
  await page.goto(`${base}/#/`);
  await page.waitForSelector('a[href^="#/lesson/"]');
  await page.waitForTimeout(1500);
  out.home = await page.evaluate(() => [...document.querySelectorAll('a[href^="#/lesson/"]')].map((a) => (a.closest('li, article, .card') || a).innerText.replace(/\s+/g, ' ')).filter((t, i, all) => all.indexOf(t) === i));
  await page.goto(`${base}/#/validation`);
  await page.waitForSelector(tid('validation-table'), { timeout: 60000 });
  await page.waitForTimeout(1500);
  out.validation = await page.evaluate(() => document.querySelector('[data-testid="validation-page"]').innerText);
  await page.goto(`${base}/#/reproduce`);
  await page.waitForSelector(tid('reproduce-page'));
  await page.waitForFunction(() => !/left\b/.test(document.querySelector('[data-testid="reproduce-page"]').innerText), null, { timeout: 600000, polling: 2000 }).catch(() => log('problems', 'the Reproduce page did not finish in 10 min'));
  out.reproduce = await page.evaluate(() => document.querySelector('[data-testid="reproduce-page"]').innerText);
  try { page.assertClean(); } catch (e) { log('problems', `verdict pages: ${e.message.slice(0, 300)}`); }
  await page.close();
  return out;
}

/**
 * Every placeholder the lesson text shows (title, text, prompt, explanation), printed as the
 * page prints it and compared with the value it names: the page's own table at the page's
 * settings, else the model's table at the placeholder's settings (walk/placeholders.mjs). A
 * value outside the placeholder's last printed digit is a contradiction; one the page's text
 * does not show, or that cannot be checked, is listed for reading.
 */
function modelNumbers() {
  const res = checkPlaceholders(findings.pages, writtenLessons(ONLY));
  for (const c of res.contradictions) log('contradictions', c);
  for (const m of res.missing) log('placeholders_unchecked', m);
  findings.placeholders = res.rows;
  findings.model_numbers_checked = res.checked;
  console.log(`[model numbers] ${res.checked} placeholders checked against the value they name`);
}

const srv = await startServer();
const browser = await launch();
const answers = {};
const t0 = Date.now();
try {
  const desktop = await desktopPass(browser, srv.base, answers);
  const phone = await phonePass(browser, srv.base, answers, 'light');
  const dark = !ONLY.length || ONLY.includes('dark') ? await phonePass(browser, srv.base, answers, 'dark') : 0;
  modelNumbers();
  Object.assign(findings.verdicts, await verdicts(browser, srv.base));
  findings.answers = answers;
  findings.counts = { desktop, phone, phone_dark: dark, leaks: findings.leaks.length, contradictions: findings.contradictions.length, placeholders_checked: findings.model_numbers_checked, placeholders_unchecked: findings.placeholders_unchecked.length, model_numbers_to_read: findings.model_numbers.length,
    grading: findings.grading.length, problems: findings.problems.length, seconds: Math.round((Date.now() - t0) / 1000) };
  console.log(JSON.stringify(findings.counts));
} finally {
  fs.writeFileSync(path.join(here, 'out/report.json'), JSON.stringify(findings, null, 2));
  await browser.close();
  srv.server.close();
}
