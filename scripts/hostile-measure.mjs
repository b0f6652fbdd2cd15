// Hostile measurement files against `skblab calibrate high-order-alloc --machine FILE` (not
// part of `make test`; the corpus core/tests/data/hostile-measure/ is, through
// core/tests/measure_hostile.rs). Runs the corpus plus files made here from a legal one: deep
// JSON, 1.7e308 and other huge numbers, negative, zero, -0, subnormal, "NaN" strings, 4 MB+,
// /dev/zero, /dev/urandom, binary, escape sequences and fake lines in every string, many
// cells. Each file, as a table and as JSON, must end in bounded time (an estimate shown
// before the work, the work within 2× of it; 20 s when none is shown) with exit 0 or 2, one
// line on stderr when refused, no panic, no raw control or invisible character on stdout or
// stderr, no inf/NaN in the output, and no percentage error or agreement against a measured 0.
//   node scripts/hostile-measure.mjs [--bin PATH]
// The page's "Your machine" load of the same files: e2e/hostile/page.mjs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, runTimed } from './hostile-lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.join(here, '../core/tests/data/hostile-measure');
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-measure-'));

/** The hostile files made here, by name: contents (string or Buffer), from the legal template. */
export function madeFiles() {
  const legal = JSON.parse(fs.readFileSync(path.join(CORPUS, 'accept/large-values.json'), 'utf8'));
  const cell = legal.suites.stream.cells[1];
  const withValue = (v, raw = false) => {
    const j = structuredClone(legal);
    const c = j.suites.stream.cells[1];
    c.samples = [{ ...c.samples[0], value: 0 }];
    c.median = 0;
    c.min = 0;
    c.max = 0;
    let s = JSON.stringify(j, null, 1);
    const text = raw ? v : JSON.stringify(v);
    s = s.replace(/"value": 0,/, `"value": ${text},`).replace(/"median": 0,/, `"median": ${text},`)
      .replace(/"min": 0,/, `"min": ${text},`).replace(/"max": 0\n/, `"max": ${text}\n`);
    return s;
  };
  const esc = '\x1b[2J\x1b[H\x1b]0;pwned\x07\r\nskblab: all cells agree\u202e\u200b';
  const escaped = structuredClone(legal);
  escaped.note = esc;
  escaped.tool = esc;
  escaped.kernel.release = `6.1${esc}`;
  escaped.kernel.version = esc;
  escaped.machine.model = esc;
  escaped.machine.cpu = `AuthenticAMD family 26 model 2${esc}`;
  escaped.machine.hypervisor = esc;
  escaped.suites.stream.commands = [esc];
  escaped.suites.stream.texts = { [esc]: esc };
  escaped.suites.stream.cells[1].id = `tcp-1flow-64k-order0${esc}`;
  const many = structuredClone(legal);
  for (let i = 0; i < 3000; i++) many.suites.stream.cells.push({ ...structuredClone(cell), id: `tcp-${i}flow-64k-order0` });
  const manyLegal = structuredClone(legal);
  const flows = [1, 2, 4, 8, 16];
  for (const f of flows) {
    for (const k of [4, 16, 64]) {
      for (const o of [0, 3]) {
        if (manyLegal.suites.stream.cells.some((c) => c.id === `tcp-${f}flow-${k}k-order${o}`)) continue;
        manyLegal.suites.stream.cells.push({ ...structuredClone(cell), id: `tcp-${f}flow-${k}k-order${o}`, setting: { flows: f, msg_bytes: k * 1024, order: o } });
      }
    }
  }
  const bigCpus = structuredClone(legal);
  bigCpus.machine.cpus = 4096;
  bigCpus.suites.stream.cells.push({ ...structuredClone(cell), id: 'tcp-16flow-64k-order3', setting: { flows: 16, msg_bytes: 65536, order: 3 } });
  const deep = (n) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const bin = Buffer.alloc(8192);
  for (let i = 0; i < bin.length; i++) bin[i] = (i * 2654435761) >>> 24;
  return {
    'value-1.7e308.json': withValue('1.7e308', true),
    'value-1.79e308.json': withValue('1.7976931348623157e308', true),
    'value-1e309.json': withValue('1e309', true),
    'value-negative.json': withValue(-21000),
    'value-zero.json': withValue(0),
    'value-minus-zero.json': withValue('-0.0', true),
    'value-subnormal.json': withValue('5e-324', true),
    'value-nan-string.json': withValue('NaN'),
    'value-inf-string.json': withValue('Infinity'),
    'value-bool.json': withValue(true),
    'value-null.json': withValue(null),
    'value-1e-300.json': withValue('1e-300', true),
    'value-huge-int.json': withValue('1'.padEnd(400, '0'), true),
    'deep-array-100k.json': deep(100000),
    'deep-in-note.json': JSON.stringify(legal).replace('"note":""', `"note":${deep(50000)}`),
    'deep-object-10k.json': `${'{"a":'.repeat(10000)}1${'}'.repeat(10000)}`,
    'escapes-everywhere-2.json': JSON.stringify(escaped, null, 1),
    'escapes-raw-bytes.json': JSON.stringify(legal).replace('"note":""', `"note":"${esc.replace(/\x1b/g, '\\u001b').replace(/\x07/g, '\\u0007').replace(/\r/g, '\\r').replace(/\n/g, '\\n')}"`).replace('"model":"AMD EPYC"', '"model":"AMD\x1b[31m EPYC"'),
    'note-4mb.json': JSON.stringify({ ...legal, note: 'x'.repeat(4 * 1024 * 1024 + 10) }),
    'note-3.9mb.json': JSON.stringify({ ...legal, note: 'x'.repeat(3_900_000) }),
    'cells-3000.json': JSON.stringify(many),
    'cells-legal-29.json': JSON.stringify(manyLegal),
    'cpus-4096-16flows.json': JSON.stringify(bigCpus),
    'cpus-1e308.json': JSON.stringify(legal).replace('"cpus":2', '"cpus":1e308'),
    'binary.json': bin,
    'nul-bytes.json': Buffer.concat([Buffer.from(JSON.stringify(legal).slice(0, 100)), Buffer.alloc(100), Buffer.from(JSON.stringify(legal).slice(100))]),
    'utf8-bom-nested.json': `\ufeff${JSON.stringify(legal)}`,
  };
}

const run = runTimed;

const RAW = /[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u00ad\u180e]/u;
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const files = [];
  for (const part of ['accept', 'reject']) {
    for (const f of fs.readdirSync(path.join(CORPUS, part)).sort()) files.push({ name: `${part}/${f}`, file: path.join(CORPUS, part, f) });
  }
  for (const [name, body] of Object.entries(madeFiles())) {
    const file = path.join(TMP, name);
    fs.writeFileSync(file, body);
    files.push({ name: `made/${name}`, file });
  }
  for (const dev of ['/dev/zero', '/dev/urandom', '/dev/null', '/proc/self/mem', '/proc/kcore', '/']) files.push({ name: dev, file: dev });
  let tried = 0;
  let failed = 0;
  const summary = [];
  for (const { name, file } of files) {
    for (const format of ['table', 'json']) {
      tried += 1;
      const r = await run(['calibrate', 'high-order-alloc', '--machine', file, '--format', format, '--jobs', '1'], 130000);
      const problems = [];
      const m = /about ([\d.]+) (s|min|h) of one core/.exec(r.stderr);
      const est = m ? Number(m[1]) * { s: 1, min: 60, h: 3600 }[m[2]] : null;
      if (r.timedOut) problems.push('timeout');
      if (r.signal && !r.timedOut) problems.push(`killed by ${r.signal}`);
      if (/panicked/.test(r.stderr)) problems.push('panic');
      if (r.code !== 0 && r.code !== 2) problems.push(`exit ${r.code}`);
      if (r.code === 2 && !(r.stderr.endsWith('\n') && r.stderr.trim().split('\n').pop().startsWith('skblab: '))) problems.push('refusal is not a skblab: line');
      if (r.code === 2 && r.stderr.trim().split('\n').filter((l) => !/^skblab: calibrate/.test(l)).length > 1) problems.push(`stderr has ${r.stderr.trim().split('\n').length} lines`);
      if (RAW.test(r.stdout)) problems.push('raw control/invisible on stdout');
      if (RAW.test(r.stderr)) problems.push('raw control/invisible on stderr');
      if (/\binf\b|NaN|\bnan\b/i.test(r.stdout.replace(/\\u\{[0-9a-f]+\}/g, ''))) problems.push('inf/NaN in the output');
      if (/^\S+\s+\S+\s+-?0\.0\s.*\bagrees\b/m.test(r.stdout)) problems.push('agreement against a measured 0');
      if (est !== null ? r.cpu > Math.max(2 * est, 2) : r.cpu > 20) problems.push(`took ${r.cpu.toFixed(1)} s of CPU, estimate ${est ?? 'not shown'}`);
      if (r.rssKb > 512 * 1024) problems.push(`peak memory ${(r.rssKb / 1024).toFixed(0)} MB`);
      const last = (r.code === 0 ? r.stdout.split('\n').find((l) => /^summary|"verdict"/.test(l)) : r.stderr.trim().split('\n').pop()) || '';
      summary.push(`${r.code} ${name} ${format}: ${last.slice(0, 150)} (${r.cpu.toFixed(2)} s, ${(r.rssKb / 1024).toFixed(0)} MB)`);
      if (problems.length) {
        failed += 1;
        console.log(`FAIL ${name} ${format}: ${problems.join('; ')}\n  stderr: ${JSON.stringify(r.stderr.slice(0, 300))}\n  stdout: ${JSON.stringify(r.stdout.slice(0, 300))}`);
      }
    }
  }
  for (const s of summary) console.log(s);
  console.log(`hostile measurement files: ${tried} runs (${files.length} files × 2 formats), ${failed} failed`);
  fs.rmSync(TMP, { recursive: true, force: true });
  process.exit(failed ? 1 : 0);
}
