// Sweeps at the parameter edges (not part of `make test`: a few minutes). Every numeric
// parameter of every experiment at its minimum and at its maximum (one at a time, the rest at
// their defaults), and every choice, run with --format json: no percentage of a whole (a
// column in % other than a gain or an error) outside 0..100 (null: a cell the table declares
// meaningless), no carried load above the offered one (page-frag-free), no NaN/inf number, no note that prints inf or NaN. A
// setting refused as inconsistent or above the 60 s limit is counted as refused (exit 2, one line).
//   node scripts/hostile-edges.mjs [--bin PATH]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const i = process.argv.indexOf('--bin');
const BIN = path.resolve(i > 0 ? process.argv[i + 1] : path.join(here, '../target/release/skblab'));
const sh = (args) => spawnSync(BIN, args, { encoding: 'utf8', timeout: 60000, maxBuffer: 64 << 20 });

/** Percent columns that are not a share of a whole (a gain, an error, a change may pass 100). */
const NOT_A_SHARE = /gain|error|change|delta|speedup|diff|overshoot|vs_|_vs|ratio|growth|err/;
const failures = [];
let tried = 0;
let refused = 0;
for (const e of sh(['list']).stdout.trim().split('\n')) {
  const specs = [];
  for (const line of sh(['params', e]).stdout.split('\n')) {
    const m = /^(\w+)(?: \[[^\]]*\])?\s+default (\S+)\s+range (.+)$/.exec(line);
    if (!m) continue;
    const num = /^(-?\d+)\.\.=(-?\d+)/.exec(m[3]);
    if (num) specs.push([m[1], [num[1], num[2]]]);
    else specs.push([m[1], m[3].split(' ')[0].split('|')]);
  }
  for (const [name, values] of specs) {
    for (const v of values) {
      tried += 1;
      const r = sh(['run', e, '--set', `${name}=${v}`, '--format', 'json']);
      const what = `${e} ${name}=${v}`;
      if (r.status === 2) {
        refused += 1;
        if (r.stderr.trim().split('\n').length !== 1) failures.push(`${what}: refusal of ${r.stderr.trim().split('\n').length} lines`);
        continue;
      }
      if (r.status !== 0) { failures.push(`${what}: exit ${r.status} ${r.signal ?? ''} ${r.stderr.slice(0, 200)}`); continue; }
      const d = JSON.parse(r.stdout);
      const units = Object.fromEntries(d.columns.map((c) => [c.name, c.unit]));
      // page-frag-free's offered load: the value set, else the router's default 6,030 kpps.
      const offeredKpps = name === 'offered_kpps' ? Number(v) : ['machine', 'line_gbps', 'packet_bytes'].includes(name) ? 0 : 6030;
      const offered = e === 'page-frag-free' && offeredKpps > 0 ? d.rows.map(() => offeredKpps / 1000) : [];
      d.rows.forEach((row, k) => {
        for (const [col, val] of Object.entries(row)) {
          if (typeof val === 'number' && !Number.isFinite(val)) failures.push(`${what}: row ${k} ${col} = ${val}`);
          if (units[col] === '%' && typeof val === 'number' && !NOT_A_SHARE.test(col) && (val > 100.05 || val < -0.05)) failures.push(`${what}: row ${k} ${col} = ${val} %`);
        }
        if (offered[k] != null && row.mpps > offered[k] * 1.0005) failures.push(`${what}: carried ${row.mpps} Mpps above offered ${offered[k]}`);
      });
      for (const n of d.notes || []) {
        const text = typeof n === 'string' ? n : JSON.stringify(n);
        if (/\binf\b|NaN|\b1\d\d\.\d+ ?% of (the )?(CPU|time)/i.test(text)) failures.push(`${what}: note ${text.slice(0, 200)}`);
      }
    }
  }
}
console.log(`edges: ${tried} settings (${refused} refused with one line), ${failures.length} findings`);
for (const f of failures) console.log(`FAIL ${f}`);
process.exit(failures.length ? 1 : 0);
