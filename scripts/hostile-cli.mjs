// A hostile user's pass over the skblab CLI (not part of `make test`: about 10,000 runs).
// Every subcommand (list, params, run, reproduce, validate, calibrate, measure, help) gets
// malformed arguments, each case built from a cheap valid command plus one hostile change:
// bad names, out-of-range, off-step and huge values, NaN/inf, unicode digits, invisible and
// control characters, repeated flags, missing values, long strings, odd --jobs. `measure`
// always carries --dry-run, so no case measures (or switches a sysctl on) this machine.
// Each case must end within 10 s with exit 2 and one line on stderr, without a panic, with
// nothing on stdout and no raw control or invisible character echoed. A case that exits 0 is
// listed for a reader to judge (a generator that made a valid command by accident).
//   node scripts/hostile-cli.mjs [--bin PATH] [--cases N] [--seed S] [--jobs J]
// (defaults: target/release/skblab, 10000, 1, 2). Prints the counts per category (tried /
// failed) and every failure; writes the failures to target/hostile-cli.json. Exit 1 on any.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, BIN, seeded, readSpecs } from './hostile-lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

const CASES = Number(arg('--cases', 10000));
const JOBS = Number(arg('--jobs', 2));
const TIMEOUT_MS = 10000;
const { rand, pick } = seeded();

const run = (args, timeout = TIMEOUT_MS) => new Promise((resolve) => {
  const t0 = Date.now();
  let child;
  try {
    child = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    return resolve({ code: null, signal: null, timedOut: false, ms: 0, stdout: '', outLen: 0, stderr: `spawn failed: ${e.code}` });
  }
  const out = [];
  const err = [];
  let outLen = 0;
  child.stdout.on('data', (d) => { outLen += d.length; if (outLen < 1 << 20) out.push(d); });
  child.stderr.on('data', (d) => err.push(d));
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeout);
  child.on('close', (code, signal) => {
    clearTimeout(timer);
    resolve({ code, signal, timedOut, ms: Date.now() - t0, stdout: Buffer.concat(out).toString('utf8'), outLen, stderr: Buffer.concat(err).toString('utf8') });
  });
});

// --- the parameter specs, read from `skblab params` ------------------------------------
const { experiments: EXPERIMENTS, specs: SPECS } = await readSpecs();

// --- hostile values ----------------------------------------------------------------------
const ESC = '\x1b[31mred\x1b[0m';
const INVISIBLE = ['\u200b', '\u200e', '\u202e', '\u2066', '\ufeff', '\u00ad', '\u2060', '\u180e'];
const CONTROL = ['\x00'.replace('\x00', '\x01'), '\x07', '\x08', '\t', '\r', '\n', '\x1b', '\x7f', '\u0085', '\u009b', ESC, '\x1b]0;title\x07', '\r\nskblab: fake line'];
const UNICODE_DIGITS = ['１２', '٣', '३', '𝟒', '²', 'Ⅻ', '½', '−1', '٫5'];
const numericJunk = [
  '', ' ', 'NaN', 'nan', 'inf', '-inf', 'Infinity', '1e400', '-1e400', '1e3', '1.5', '-1', '0x10', '0o7', '0b1',
  '+3', '03', '3 ', ' 3', '3\n4', '1_000', '1,000', '9'.repeat(40), '9'.repeat(5000), '-0', '1.', '.5', 'e', '--', '-',
  '18446744073709551616', '-9223372036854775809', 'a'.repeat(100000), 'null', 'true', '[]', '{}', '3;rm -rf /', '$(id)', '%s%n',
];
const hostileString = () => {
  switch (Math.floor(rand() * 6)) {
    case 0: return pick(numericJunk);
    case 1: return pick(UNICODE_DIGITS);
    case 2: return `3${pick(INVISIBLE)}`;
    case 3: return `${pick(INVISIBLE)}${pick(['1', 'json', 'skb-layout', 'mtu'])}${pick(CONTROL)}`;
    case 4: return pick(CONTROL) + pick(['1', '4', 'table']);
    default: return pick(['x'.repeat(1 + Math.floor(rand() * 70000)), '😀'.repeat(1000), 'ǅ'.repeat(10), 'é'.normalize('NFD')]);
  }
};
// A value no integer flag accepts (0 and a few small numbers are legal for some; not here).
const badNumber = () => hostileString();

/** Integer flags of each subcommand, with one value out of their range. */
const FLAGS = {
  run: { '--seed': ['18446744073709551616', '-1'], '--jobs': ['0', '257'] },
  reproduce: { '--seed': ['18446744073709551616', '-1'], '--seeds': ['0', '51'], '--bands': ['0', '65'], '--jobs': ['0', '257'] },
  validate: { '--seed': ['18446744073709551616', '-1'], '--seeds': ['0', '51'], '--jobs': ['0', '257'] },
  calibrate: { '--rounds': ['15', '-1'], '--seeds': ['0', '51'], '--seed': ['-1', '18446744073709551616'], '--starts': ['65', '-1'], '--coarse-seeds': ['0', '51'], '--jobs': ['0', '257'] },
  measure: { '--seconds': ['0', '61'], '--runs': ['0', '1000'], '--max-flows': ['0', '100000'], '--max-foreign': ['-1', '101'], '--retries': ['-1', '1000'], '--jobs': ['0', '257'] },
  list: { '--jobs': ['0', '257'] },
  params: { '--jobs': ['0', '257'] },
};
const SUBS = Object.keys(FLAGS);

/** A cheap valid command for a subcommand (what the hostile change is applied to). */
function base(sub) {
  const e = pick(EXPERIMENTS);
  switch (sub) {
    case 'run': return ['run', 'skb-layout'];
    case 'reproduce': return ['reproduce', e];
    case 'validate': return ['validate', e];
    case 'calibrate': return ['calibrate', e];
    case 'measure': return ['measure', pick(['layout', 'stream', 'udp', 'rr', 'state', 'sched', 'all']), '--dry-run'];
    case 'params': return ['params', e];
    default: return ['list'];
  }
}

// --- the categories: each returns [args] that must be refused --------------------------
const withJunkName = (name) => {
  const junk = junkName(name);
  return junk === name ? `${name}_` : junk;
};
const junkName = (name) => pick([
  name.toUpperCase(), `${name} `, ` ${name}`, `${name}${pick(INVISIBLE)}`, `${pick(INVISIBLE)}${name}`, name.replace(/_/g, '-'),
  `${name}${pick(CONTROL)}`, name.slice(0, -1), `${name}\u0301`, name.replace(/a/g, 'а' /* Cyrillic */), '', `${name}=`, 'x'.repeat(50000),
]);
const CATEGORIES = {
  'bad experiment name': () => {
    const sub = pick(['run', 'reproduce', 'validate', 'calibrate', 'params']);
    return [sub, withJunkName(pick(EXPERIMENTS))];
  },
  'bad subcommand': () => rand() < 0.2 ? ['help', hostileString()] : [pick([withJunkName(pick(SUBS)), hostileString(), 'RUN', 'lis', 'run\u200b', 'help\x1b[2J'])],
  'bad parameter name': () => {
    const e = pick(EXPERIMENTS);
    const p = pick(SPECS[e]);
    return ['run', e, '--set', `${withJunkName(p.name)}=${p.dflt}`];
  },
  'out-of-range value': () => {
    const e = pick(EXPERIMENTS);
    const ps = SPECS[e].filter((p) => p.min !== undefined);
    const p = pick(ps);
    const v = pick([p.min - 1, p.max + 1, p.max * 1000 + 7, -Math.abs(p.max) - 1, p.min - 1000]);
    return ['run', e, '--set', `${p.name}=${v}`];
  },
  'off-step value': () => {
    const e = pick(EXPERIMENTS.filter((x) => SPECS[x].some((p) => (p.step && p.step > 1) || p.pow2)));
    const p = pick(SPECS[e].filter((q) => (q.step && q.step > 1) || q.pow2));
    const v = p.pow2 ? pick([p.min + 1, p.min * 3, p.max - 1]) : pick([p.min + 1, p.min + Math.floor(p.step / 2) || p.min + 1, p.max - 1]);
    return ['run', e, '--set', `${p.name}=${v}`];
  },
  'fractional / exponent value': () => {
    const e = pick(EXPERIMENTS);
    const p = pick(SPECS[e].filter((q) => q.min !== undefined));
    return ['run', e, '--set', `${p.name}=${pick([`${p.min}.5`, `${p.min}.0`, `${p.min}e0`, `${p.min}E1`, `0x${p.min.toString(16)}`, `+${p.min}`, `0${p.min}`])}`];
  },
  'huge value': () => {
    const e = pick(EXPERIMENTS);
    const p = pick(SPECS[e]);
    return ['run', e, '--set', `${p.name}=${pick(['1e308', '1.7e308', '1e400', '9'.repeat(30), '9'.repeat(400), '18446744073709551616', '340282366920938463463374607431768211456'])}`];
  },
  'NaN / inf value': () => {
    const e = pick(EXPERIMENTS);
    const p = pick(SPECS[e]);
    return ['run', e, '--set', `${p.name}=${pick(['NaN', 'nan', '-NaN', 'inf', '-inf', '+inf', 'Infinity', '-Infinity', 'infinity', 'NAN'])}`];
  },
  'unicode / invisible / control value': () => {
    const e = pick(EXPERIMENTS);
    const p = pick(SPECS[e]);
    const good = p.choices ? pick(p.choices) : String(p.min);
    const v = pick([`${good}${pick(INVISIBLE)}`, `${pick(INVISIBLE)}${good}`, `${good}${pick(CONTROL)}`, pick(UNICODE_DIGITS), `${good}\u0301`, good.toUpperCase() === good ? `${good}\u00a0` : good.toUpperCase(), pick(CONTROL)]);
    return ['run', e, '--set', `${p.name}=${v}`];
  },
  'bad choice value': () => {
    const e = pick(EXPERIMENTS.filter((x) => SPECS[x].some((p) => p.choices)));
    const p = pick(SPECS[e].filter((q) => q.choices));
    return ['run', e, '--set', `${p.name}=${pick(['', 'yes', 'no', '1', '0', 'TRUE', 'False', `${p.choices[0]},${p.choices[1]}`, `${p.choices[0]} `, p.choices[0].toUpperCase() === p.choices[0] ? 'x' : p.choices[0].toUpperCase(), 'null'])}`];
  },
  'malformed --set': () => {
    const e = pick(EXPERIMENTS);
    const p = pick(SPECS[e]);
    return ['run', e, '--set', pick(['', '=', `${p.name}`, `${p.name}=`, `=${p.dflt}`, `${p.name}==${p.dflt}`, `${p.name}=${p.dflt}=${p.dflt}`, `${p.name} = ${p.dflt}`, `${p.name}:${p.dflt}`, `${p.name}=${p.dflt},${p.name}=${p.dflt}`])];
  },
  'repeated flag / parameter': () => {
    const sub = pick(['run', 'reproduce', 'validate', 'calibrate', 'measure']);
    const args = base(sub);
    if (sub === 'run' && rand() < 0.5) {
      const p = pick(SPECS['skb-layout']);
      return [...args, '--set', `${p.name}=${p.dflt}`, '--set', `${p.name}=${p.dflt}`];
    }
    const f = pick([...Object.keys(FLAGS[sub]).filter((x) => x !== '--jobs'), ...(sub === 'measure' ? ['--dry-run', '--out', '--note'] : ['--format', '--allow-long'])]);
    const val = { '--format': 'table', '--out': '/dev/null', '--note': 'n', '--dry-run': null, '--allow-long': null, '--seed': '1', '--seeds': '1', '--bands': '1', '--rounds': '0', '--starts': '0', '--coarse-seeds': '1', '--seconds': '1', '--runs': '1', '--max-flows': '1', '--max-foreign': '10', '--retries': '1' }[f];
    const once = val === null ? [f] : [f, val];
    return sub === 'measure' && f === '--dry-run' ? [...args, f] : [...args, ...once, ...once];
  },
  'missing value': () => {
    const sub = pick(['run', 'reproduce', 'validate', 'calibrate', 'measure']);
    const f = pick([...Object.keys(FLAGS[sub]), ...(sub === 'run' ? ['--set', '--format'] : []), ...(sub === 'calibrate' ? ['--machine', '--format'] : []), ...(sub === 'measure' ? ['--out', '--note', '--kib'] : [])]);
    const args = base(sub);
    return rand() < 0.5 ? [...args, f] : [...args, f, pick(['--format', '--set', '--jobs', '-h'].filter((x) => x !== f))];
  },
  'bad flag value': () => {
    const sub = pick(SUBS.filter((s) => s !== 'list' && s !== 'params'));
    const f = pick(Object.keys(FLAGS[sub]).filter((x) => x !== '--jobs'));
    return [...base(sub), f, rand() < 0.4 ? pick(FLAGS[sub][f]) : badNumber()];
  },
  'bad --format / --kib': () => {
    const sub = pick(['run', 'reproduce', 'validate', 'calibrate', 'measure']);
    const f = sub === 'measure' ? '--kib' : '--format';
    const v = pick(['', 'TABLE', 'json ', 'yaml', 'csv\u200b', 'tsv', '8', '4.0', '064', ESC, 'x'.repeat(10000), 'j']);
    return [...base(sub), f, sub === 'calibrate' && f === '--format' && v === 'csv' ? 'tsv' : v];
  },
  'unknown flag / extra argument': () => {
    const sub = pick(SUBS);
    return [...base(sub), pick(['--sed', '--Seed', '--set=', '-x', '---jobs', '--jobs=', `--${pick(INVISIBLE)}seed`, 'extra', hostileString(), '--allowlong', '--help-me'])];
  },
  '--jobs odd values': () => {
    const sub = pick(SUBS);
    const v = pick(['0', '-1', '1.5', '0x2', '+2', '02', ' 2', '2 ', '257', '1e3', '18446744073709551616', '', 'NaN', 'inf', '２', '2\u200b', ESC, '9'.repeat(100), 'all', 'max']);
    const args = base(sub);
    return rand() < 0.5 ? ['--jobs', v, ...args] : [...args, '--jobs', v];
  },
  'long strings': () => {
    // Below the kernel's 128 KiB limit on one argument (MAX_ARG_STRLEN).
    const ch = pick(['x', '\u200b', 'é', '%', '\x1b']);
    const s = ch.repeat(Math.floor(pick([4096, 65536, 120000]) / Buffer.byteLength(ch)));
    return pick([['run', s], ['run', 'skb-layout', '--set', `${s}=1`], ['run', 'skb-layout', '--set', `mtu=${s}`], ['validate', s], ['measure', 'stream', '--dry-run', '--kib', s], [s]]);
  },
  'calibrate --machine path': () => {
    const e = pick(EXPERIMENTS.filter((x) => x !== 'high-order-alloc'));
    return pick([
      ['calibrate', 'high-order-alloc', '--machine', pick(['/nonexistent', '/', '/proc', '/dev/null', '/dev/zero', '/etc/shadow\u200b', '', ESC, `/tmp/${'x'.repeat(5000)}`])],
      ['calibrate', e, '--machine', '/dev/null'],
      ['calibrate', 'high-order-alloc', '--machine', '/dev/null', '--sensitivity'],
    ]);
  },
};

// Raw control (C0 but \n, DEL, C1) and invisible format characters in output.
const RAW = /[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad\u180e]/u;

const names = Object.keys(CATEGORIES);
const cases = [];
for (let i = 0; i < CASES; i++) {
  const cat = names[i % names.length];
  cases.push({ cat, args: CATEGORIES[cat]() });
}

const counts = Object.fromEntries(names.map((n) => [n, { tried: 0, failed: 0, accepted: 0 }]));
const failures = [];
const accepted = [];
const show = (args) => JSON.stringify(args.map((a) => (a.length > 80 ? `${a.slice(0, 40)}…(${a.length} chars)` : a)));
let next = 0;
const t0 = Date.now();
async function worker() {
  while (next < cases.length) {
    const c = cases[next++];
    const r = await run(c.args);
    const k = counts[c.cat];
    k.tried += 1;
    const problems = [];
    if (r.timedOut) problems.push('timeout (10 s)');
    if (r.signal && !r.timedOut) problems.push(`killed by ${r.signal}`);
    if (/panicked|RUST_BACKTRACE/.test(r.stderr)) problems.push('panic');
    if (RAW.test(r.stderr)) problems.push('raw control/invisible character on stderr');
    if (r.code === 0) {
      accepted.push({ cat: c.cat, args: show(c.args), stdout: r.stdout.slice(0, 200) });
      k.accepted += 1;
    } else if (!r.timedOut) {
      if (r.code !== 2) problems.push(`exit ${r.code}`);
      const lines = r.stderr.split('\n');
      if (!(lines.length === 2 && lines[1] === '' && lines[0].startsWith('skblab: '))) problems.push(`stderr is ${lines.length - 1} lines`);
      if (r.outLen) problems.push(`${r.outLen} bytes on stdout`);
      if (r.stderr.length > 4096) problems.push(`stderr line of ${r.stderr.length} chars`);
    }
    if (problems.length) {
      k.failed += 1;
      failures.push({ cat: c.cat, args: show(c.args), problems, stderr: JSON.stringify(r.stderr.slice(0, 400)), ms: r.ms });
    }
  }
}
await Promise.all(Array.from({ length: JOBS }, worker));

console.log(`hostile CLI pass: ${cases.length} cases on ${BIN} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
console.log('category'.padEnd(40), 'tried', 'failed', 'exit 0');
for (const n of names) console.log(n.padEnd(40), String(counts[n].tried).padStart(5), String(counts[n].failed).padStart(6), String(counts[n].accepted).padStart(6));
const total = Object.values(counts).reduce((a, k) => ({ tried: a.tried + k.tried, failed: a.failed + k.failed, accepted: a.accepted + k.accepted }), { tried: 0, failed: 0, accepted: 0 });
console.log('total'.padEnd(40), String(total.tried).padStart(5), String(total.failed).padStart(6), String(total.accepted).padStart(6));
const seen = new Set();
for (const f of failures) {
  const key = `${f.cat}|${f.problems.join(',')}`;
  if (seen.has(key) && seen.size > 40) continue;
  seen.add(key);
  console.log(`FAIL [${f.cat}] ${f.args}: ${f.problems.join('; ')} (${f.ms} ms) stderr=${f.stderr}`);
}
for (const a of accepted.slice(0, 30)) console.log(`EXIT 0 [${a.cat}] ${a.args}`);
fs.mkdirSync(path.join(here, '../target'), { recursive: true });
fs.writeFileSync(path.join(here, '../target/hostile-cli.json'), JSON.stringify({ counts, failures, accepted }, null, 1));
process.exit(failures.length ? 1 : 0);
