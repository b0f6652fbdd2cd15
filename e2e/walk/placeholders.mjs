// Every model number the lesson text shows, checked against the value it names: each
// placeholder `{metric[key=value]@settings:format}` of a step's title, text, question prompt and
// explanation (lessons/content/<slug>.md) is resolved to its settings (the step's, the
// question's on top, or a `[settings]` entry, on the experiment's defaults), printed as the page
// prints it (lessons/src/numbers.rs `render`, from lessons/numbers.tsv), looked for in what the
// walk read on that step's page, and compared, within the placeholder's last printed digit,
// with the value the model gives at those settings: the page's own table cell when the page
// runs at those settings, else `skblab run <experiment> --set … --format json` (the table the
// playground shows at those settings: "Copy as CLI" prints the page's numbers).
//   node walk/placeholders.mjs            (reads walk/out/report.json, written by walk.mjs)
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const LESSONS_DIR = path.join(here, '../../lessons');
const CLI = () => process.env.SKBLAB_CLI || path.join(here, '../../target/release/skblab');

const PY = `
import json, sys, tomllib, re
text = open(sys.argv[1], encoding="utf-8").read()
_, front, body = text.split("+++", 2)
data = tomllib.loads(front)
sections = [s.split("\\n", 1)[1] if "\\n" in s else "" for s in re.split(r"^## ", body, flags=re.M)[1:]]
print(json.dumps({"settings": data.get("settings", {}), "steps": data.get("steps", []), "sections": sections}))
`;

/** A lesson's source: its `[settings]`, its steps (params, question) and each step's text. */
export function lessonSource(slug) {
  return JSON.parse(execFileSync('python3', ['-c', PY, path.join(LESSONS_DIR, 'content', `${slug}.md`)], { encoding: 'utf8' }));
}

const PH = /\{([a-z0-9_]+)(?:\[([a-z0-9_]+)=([^\]]+)\])?@([a-z0-9_]+)(?::([^}]*))?\}/g;

/** The placeholders of `text` as written. */
export function placeholdersOf(text) {
  return [...(text || '').matchAll(PH)].map((m) => {
    const p = { raw: m[0], metric: m[1], row: m[2] ? [m[2], Number(m[3])] : null, settings: m[4], decimals: null, unit: null, abs: false };
    for (const part of (m[5] || '').split(/\s+/).filter(Boolean)) {
      if (part === 'abs') p.abs = true;
      else if (part === '-') p.unit = '';
      else if (/^\d+$/.test(part)) p.decimals = Number(part);
      else p.unit = part;
    }
    return p;
  });
}

const SCALES = { 'bit/s': 1, 'kbit/s': 1e3, 'mbit/s': 1e6, 'gbit/s': 1e9, 'tbit/s': 1e12, b: 1, byte: 1, bytes: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1048576, gib: 1073741824 };
const family = (u) => (u.endsWith('bit/s') ? 'rate' : ['b', 'byte', 'bytes', 'kb', 'mb', 'gb', 'kib', 'mib', 'gib'].includes(u) ? 'size' : null);
/** What a value in `from` is multiplied by to be in `to` (numbers.rs unit_factor). */
export function unitFactor(from, to) {
  const [a, b] = [from.toLowerCase(), to.toLowerCase()];
  if (a === b) return 1;
  if (SCALES[a] && SCALES[b] && family(a) && family(a) === family(b)) return SCALES[a] / SCALES[b];
  return null;
}

/**
 * `v` with `d` decimals as Rust's `format!("{v:.d$}")` writes it: an exact tie (188.5 to 0
 * decimals) goes to the even digit ("188"; JavaScript's toFixed says "189").
 */
export function toFixedRust(v, d) {
  const plain = v.toFixed(d);
  const exact = Math.abs(v).toFixed(Math.min(100, d + 60)); // a double's exact decimal expansion
  const tail = exact.slice(exact.length - (Math.min(100, d + 60) - d));
  if (!/^50*$/.test(tail)) return plain;
  const down = exact.slice(0, exact.length - tail.length).replace(/\.$/, '');
  const last = Number(down.replace('.', '').slice(-1));
  if (last % 2 === 0) return `${v < 0 ? '-' : ''}${down}`;
  return plain; // toFixed rounds the tie away from zero: up to the even digit here
}

/** numbers.rs fmt_value: whole numbers as they are, else two decimals (two significant digits below 0.1). */
function fmtValue(v) {
  if (Number.isInteger(v)) return String(v);
  if (Math.abs(v) < 0.1) return toFixedRust(v, Math.min(9, Math.max(2, 1 - Math.floor(Math.log10(Math.abs(v))))));
  return toFixedRust(v, 2);
}
function group(s) {
  const neg = s.startsWith('-'); const rest = neg ? s.slice(1) : s;
  const [int, frac] = rest.split('.');
  if (int.length < 5) return s;
  const g = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}${g}${frac !== undefined ? `.${frac}` : ''}`;
}

/** What the page prints for placeholder `p` of value `v` (unit `unit`): [text, number, decimals]. */
export function render(p, v, unit) {
  const to = p.unit ?? unit;
  const f = to === '' ? 1 : unitFactor(unit, to);
  if (f === null) return null;
  const x = p.abs ? Math.abs(v * f) : v * f;
  let num = group(p.decimals !== null ? toFixedRust(x + 0, p.decimals) : fmtValue(x));
  if (/^-?[0.]+$/.test(num)) num = num.replace(/^-/, '');
  const dec = (num.split('.')[1] || '').length;
  return { text: to === '' ? num : `${num} ${to}`, number: Number(num.replace(/,/g, '')), dec, factor: f };
}

const cache = new Map();
function cliDefaults(exp) {
  const key = `params ${exp}`;
  if (!cache.has(key)) {
    const d = {};
    const out = execFileSync(CLI(), ['params', exp], { encoding: 'utf8' });
    for (const m of out.matchAll(/^(\w+)(?: \[[^\]]*\])?\s+default (\S+)/gm)) d[m[1]] = m[2];
    cache.set(key, d);
  }
  return cache.get(key);
}
const canon = (v) => (typeof v === 'boolean' ? String(v) : typeof v === 'number' || /^-?\d+(\.\d+)?$/.test(String(v)) ? String(Number(v)) : String(v));
/** Settings as the sorted pairs that differ from the experiment's defaults. */
export function norm(exp, obj) {
  const d = cliDefaults(exp);
  return JSON.stringify(Object.keys(obj).filter((k) => canon(obj[k]) !== canon(d[k] ?? '')).sort().map((k) => [k, canon(obj[k])]));
}

/** The model's table at `settings` (`skblab run … --format json`), cached. */
function run(exp, settings) {
  const args = ['run', exp, ...Object.entries(settings).flatMap(([k, v]) => ['--set', `${k}=${canon(v)}`]), '--format', 'json', '--allow-long'];
  const key = args.join(' ');
  if (!cache.has(key)) {
    try { cache.set(key, JSON.parse(execFileSync(CLI(), args, { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 600000 }))); } catch (e) { cache.set(key, { error: e.message.split('\n')[0] }); }
  }
  return cache.get(key);
}

const cellNumber = (text) => {
  const t = String(text).replace(/,/g, '').replace('−', '-').match(/-?\d+(?:\.\d+)?/);
  return t ? Number(t[0]) : null;
};

/**
 * Checks every placeholder of the written lessons against what `pages` (walk.mjs's
 * findings.pages: per `slug/step`, the page's CLI line, its table cells and its text) show.
 * Returns { checked, contradictions: [...], missing: [...] , rows: [...] }.
 */
export function checkPlaceholders(pages, lessons) {
  const tsv = fs.readFileSync(path.join(LESSONS_DIR, 'numbers.tsv'), 'utf8').split('\n')
    .filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t'));
  const out = { checked: 0, contradictions: [], missing: [], rows: [] };
  for (const { slug, experiment } of lessons) {
    const src = lessonSource(slug);
    src.steps.forEach((step, i) => {
      const at = `${slug}/${i + 1}`;
      const page = pages[at];
      const q = step.question || {};
      const stepSet = { ...(step.params || {}) };
      const qSet = { ...stepSet, ...(q.params || {}) };
      const texts = [['title', step.title, stepSet], ['text', src.sections[i], stepSet], ['prompt', q.prompt, qSet], ['explanation', q.explanation, qSet]];
      for (const [where, text, ctx] of texts) {
        for (const p of placeholdersOf(text)) {
          const settings = p.settings === 'step' ? ctx : src.settings[p.settings];
          const id = `${at} ${where} ${p.raw}`;
          if (!settings) { out.missing.push(`${id}: no settings "${p.settings}"`); continue; }
          const n = norm(experiment, settings);
          const rowStr = p.row ? `${p.row[0]}=${p.row[1]}` : '';
          const line = tsv.find((r) => r[0] === slug && r[1] === p.metric && (r[2] ? `${r[2].split('=')[0]}=${Number(r[2].split('=')[1])}` : '') === rowStr
            && norm(experiment, Object.fromEntries(r[3].split(',').filter(Boolean).map((kv) => kv.split('=')))) === n);
          if (!line) { out.missing.push(`${id}: no value in lessons/numbers.tsv`); continue; }
          const shown = render(p, Number(line[5]), line[4]);
          if (!shown) { out.missing.push(`${id}: unit ${line[4]} not convertible`); continue; }
          const onPage = page ? page.text.replace(/\s+/g, ' ').includes(shown.text) : null;
          // The value it names: the page's own cell at the page's settings, else the CLI's.
          let truth = null; let from = '';
          const cli = page && /skblab run (\S+)(.*)/.exec(page.cli);
          if (cli && norm(experiment, Object.fromEntries([...cli[2].matchAll(/--set (\w+)=(\S+)/g)].map((x) => [x[1], x[2]]))) === n) {
            const cells = page.cells.filter((c) => c.head.split(/\s/)[0] === p.metric && !/seed\b/.test(c.head) && (!p.row || Number(c.key) === p.row[1]));
            const v = cells.map((c) => cellNumber(c.text)).find((x) => x !== null);
            if (v !== undefined) { truth = v; from = `the page's table (${cells[0].head})`; }
          }
          if (truth === null) {
            const res = run(experiment, settings);
            if (res.error) { out.missing.push(`${id}: skblab run failed: ${res.error}`); continue; }
            const rows = (res.rows || []).filter((x) => x[p.metric] !== undefined && x[p.metric] !== null);
            const r = p.row ? rows.find((x) => Number(x[p.row[0]]) === p.row[1]) : rows[0];
            if (!r || r[p.metric] === undefined) { out.missing.push(`${id}: the model's table has no ${p.metric}${rowStr ? `[${rowStr}]` : ''}`); continue; }
            if (!p.row && rows.length > 1 && new Set(rows.map((x) => x[p.metric])).size > 1) { out.missing.push(`${id}: ${rows.length} rows and no [key=value]`); continue; }
            truth = Number(r[p.metric]); from = `skblab run ${experiment} ${Object.entries(settings).map(([k, v]) => `--set ${k}=${canon(v)}`).join(' ')}`;
          }
          out.checked++;
          const want = p.abs ? Math.abs(truth * shown.factor) : truth * shown.factor;
          const half = 0.5 * 10 ** -shown.dec;
          const ok = Math.abs(shown.number - want) <= half * (1 + 1e-6) + 1e-9 * Math.abs(want);
          out.rows.push({ at, where, placeholder: p.raw, shown: shown.text, on_page: onPage, model: want, from, ok });
          if (!ok) out.contradictions.push(`${id}: prints "${shown.text}", ${from} gives ${want}`);
          if (onPage === false) out.missing.push(`${id}: "${shown.text}" is not in the page's text as read`);
          else if (onPage === null) out.missing.push(`${id}: the walk has no page for ${at}`);
        }
      }
    });
  }
  return out;
}

/** The written lessons of lessons/index.toml (slug, experiment), `only` if given. */
export function writtenLessons(only = []) {
  const index = fs.readFileSync(path.join(LESSONS_DIR, 'index.toml'), 'utf8');
  return index.split('[[lesson]]').slice(1).filter((b) => /status = "written"/.test(b))
    .map((b) => ({ slug: b.match(/slug = "([^"]+)"/)[1], experiment: b.match(/experiment = "([^"]+)"/)[1] }))
    .filter((l) => !only.length || only.includes(l.slug));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const report = JSON.parse(fs.readFileSync(path.join(here, 'out/report.json'), 'utf8'));
  const res = checkPlaceholders(report.pages, writtenLessons(process.argv.slice(2)));
  for (const c of res.contradictions) console.log(`[contradiction] ${c}`);
  for (const m of res.missing) console.log(`[unchecked] ${m}`);
  fs.writeFileSync(path.join(here, 'out/placeholders.json'), JSON.stringify(res, null, 2));
  console.log(JSON.stringify({ placeholders_checked: res.checked, contradictions: res.contradictions.length, unchecked: res.missing.length }));
}
