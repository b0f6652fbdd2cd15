// The valid half of the hostile CLI pass (not part of `make test`: about 15 min on 2 cores).
// 1. Determinism: N random valid settings of every experiment (uniform over each parameter's
//    range, on its step; a setting the CLI refuses as inconsistent is redrawn), each run twice
//    with --format json, first with --jobs 1 then with --jobs 2: the two outputs must be
//    byte-identical. A setting whose estimate is shown (10 s of one core or more) is set aside
//    for part 2; one with no estimate shown must not take more than 20 s of CPU (2× the 10 s
//    from which the CLI shows its estimate).
// 2. Estimates: for up to K of the set-aside settings, and for `reproduce` and `validate` of
//    every experiment and `calibrate --rounds 1` of the fitted ones, the estimate the CLI
//    prints before it starts against the CPU time the command then takes (--jobs 1: one core):
//    within 2× either way (the issue's target), with --allow-long above 60 s.
//   node scripts/hostile-valid.mjs [--bin PATH] [--sets N] [--estimates K] [--seed S]
// (defaults: target/release/skblab, 400, 8, 1). Exit 1 on any failure; the failures and the
// estimate table go to stdout and target/hostile-valid.json.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, BIN, seeded, runTimed, readSpecs } from './hostile-lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

const SETS = Number(arg('--sets', 400));
const ESTIMATES = Number(arg('--estimates', 8));
const SKIP_COMMANDS = process.argv.includes('--no-commands');
const { rand, pick } = seeded();

/** Runs the CLI under /usr/bin/time: { code, timedOut, stdout, stderr, cpu (user+sys s), estimate (s) }. */
const run = async (args, timeoutMs) => {
  const r = await runTimed(args, timeoutMs);
  const m = /about ([\d.]+) (s|min|h) of one core/.exec(r.stderr);
  return { ...r, estimate: m ? Number(m[1]) * { s: 1, min: 60, h: 3600 }[m[2]] : null };
};

const { experiments: EXPERIMENTS, specs: SPECS } = await readSpecs();

/** A random valid-looking setting: each parameter set with probability 1/2, on its step. */
function randomSet(e) {
  const sets = [];
  for (const p of SPECS[e]) {
    if (rand() < 0.5) continue;
    let v;
    if (p.choices) v = pick(p.choices);
    else if (p.pow2) {
      const lo = Math.log2(p.min);
      v = 2 ** (lo + Math.floor(rand() * (Math.log2(p.max) - lo + 1)));
    } else {
      // Half the draws near the bottom of the range (where most sane settings are).
      const span = Math.floor((p.max - p.min) / p.step);
      const k = rand() < 0.5 ? Math.floor(rand() * Math.min(span + 1, 8)) : Math.floor(rand() * (span + 1));
      v = p.min + k * p.step;
    }
    sets.push('--set', `${p.name}=${v}`);
  }
  return sets;
}

const failures = [];
const fail = (what, line) => { failures.push({ what, line }); console.log(`FAIL [${what}] ${line}`); };
const counts = { determinism: { tried: 0, failed: 0, redrawn: 0, slow: 0 }, estimates: { tried: 0, failed: 0 } };
const setAside = [];
const t0 = Date.now();

let drawn = 0;
async function determinismWorker(w) {
  while (counts.determinism.tried < SETS) {
    drawn += 1;
    const e = EXPERIMENTS[drawn % EXPERIMENTS.length];
    const args = ['run', e, ...randomSet(e), '--seed', String(1 + Math.floor(rand() * 1000)), '--format', 'json'];
    const a = await run([...args, '--jobs', '1'], 30000);
    if (a.code === 2 && !a.timedOut) {
      if (/above the limit/.test(a.stderr)) { setAside.push({ args, estimate: a.estimate }); counts.determinism.slow += 1; } else counts.determinism.redrawn += 1;
      continue;
    }
    if (a.estimate !== null) { setAside.push({ args, estimate: a.estimate }); counts.determinism.slow += 1; continue; }
    counts.determinism.tried += 1;
    const shown = JSON.stringify(args.slice(1, -2).join(' '));
    if (a.timedOut || a.code !== 0) { counts.determinism.failed += 1; fail('determinism', `${shown}: first run ${a.timedOut ? 'timed out (30 s) with no estimate shown' : `exit ${a.code}: ${a.stderr.trim()}`}`); continue; }
    if (a.cpu > 20) { counts.determinism.failed += 1; fail('estimate', `${shown}: no estimate shown (under 10 s) but took ${a.cpu.toFixed(1)} s of CPU`); }
    const b = await run([...args, '--jobs', '2'], 60000);
    if (b.stdout !== a.stdout) { counts.determinism.failed += 1; fail('determinism', `${shown}: --jobs 1 and --jobs 2 outputs differ (${a.stdout.length} vs ${b.stdout.length} bytes)`); }
    if (counts.determinism.tried % 50 === 0) console.log(`  ${counts.determinism.tried} sets, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
}
await Promise.all([determinismWorker(0), determinismWorker(1)]);

// --- estimates ---------------------------------------------------------------------------
const table = [];
async function estimateOf(label, args) {
  const r = await run([...args, '--jobs', '1', '--allow-long'], 900000);
  counts.estimates.tried += 1;
  const row = { label, estimate: r.estimate, cpu: r.cpu, code: r.code };
  table.push(row);
  const ratio = r.estimate && r.cpu ? r.estimate / r.cpu : null;
  console.log(`  ${label}: estimate ${r.estimate ?? '(none: under 10 s)'} s, took ${r.cpu.toFixed(1)} s of CPU${ratio ? `, ratio ${ratio.toFixed(2)}` : ''}`);
  if (r.code !== 0) { counts.estimates.failed += 1; fail('estimate', `${label}: exit ${r.code}: ${r.stderr.trim().split('\n').pop()}`); return; }
  // The CLI prints whole seconds: below 2 s either way the ratio is rounding, not a bound.
  if (r.estimate === null ? r.cpu > 20 : Math.max(r.estimate, r.cpu) >= 2 && !(ratio <= 2 && ratio >= 0.5)) {
    counts.estimates.failed += 1;
    fail('estimate', `${label}: estimate ${r.estimate ?? '< 10'} s vs ${r.cpu.toFixed(1)} s of CPU`);
  }
}
setAside.sort((x, y) => (x.estimate ?? 0) - (y.estimate ?? 0));
const sample = setAside.filter((s) => s.estimate && s.estimate <= 120);
for (let i = 0; i < Math.min(ESTIMATES, sample.length); i++) {
  const s = sample[Math.floor((i * sample.length) / Math.min(ESTIMATES, sample.length))];
  await estimateOf(s.args.slice(1, -2).join(' '), s.args);
}
if (!SKIP_COMMANDS) {
  for (const e of EXPERIMENTS) await estimateOf(`reproduce ${e}`, ['reproduce', e, '--seeds', '2']);
  for (const e of ['high-order-alloc', 'page-frag-free']) await estimateOf(`calibrate ${e} --rounds 1`, ['calibrate', e, '--rounds', '1', '--seeds', '1']);
  await estimateOf('validate --seeds 1', ['validate', '--seeds', '1']);
}

console.log(`valid pass on ${BIN} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
console.log(`determinism: ${counts.determinism.tried} sets run twice, ${counts.determinism.failed} failed (${counts.determinism.redrawn} settings refused as inconsistent and redrawn, ${counts.determinism.slow} with an estimate shown set aside)`);
console.log(`estimates: ${counts.estimates.tried} commands timed, ${counts.estimates.failed} beyond 2×`);
fs.mkdirSync(path.join(here, '../target'), { recursive: true });
fs.writeFileSync(path.join(here, '../target/hostile-valid.json'), JSON.stringify({ counts, failures, table }, null, 1));
process.exit(failures.length ? 1 : 0);
