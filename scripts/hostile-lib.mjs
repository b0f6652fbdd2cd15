// What the hostile CLI drivers (scripts/hostile-cli.mjs, hostile-valid.mjs, hostile-measure.mjs)
// share: their command line (--bin and the rest), a seeded random stream (the same --seed gives
// the same cases) and a run of the CLI under /usr/bin/time.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The value after `name` on the command line, else `dflt`. */
export const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};

/** The CLI the pass runs: --bin, else the release build. */
export const BIN = path.resolve(arg('--bin', path.join(here, '../target/release/skblab')));

/** A small deterministic PRNG (mulberry32) seeded by --seed (default 1), and a pick from a list. */
export function seeded() {
  let state = Number(arg('--seed', 1)) >>> 0;
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { rand, pick: (xs) => xs[Math.floor(rand() * xs.length)] };
}

const TIMES = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-time-'));
let nextTime = 0;

/** Runs the CLI with `args` under /usr/bin/time, killed after `timeoutMs`: { code, signal,
 * timedOut, cpu (user + system s, NaN if killed), rssKb, stdout, stderr }. */
export const runTimed = (args, timeoutMs) => new Promise((resolve) => {
  const tfile = path.join(TIMES, String(nextTime++));
  const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', tfile, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = [];
  const err = [];
  child.stdout.on('data', (d) => out.push(d));
  child.stderr.on('data', (d) => err.push(d));
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
  child.on('close', (code, signal) => {
    clearTimeout(timer);
    let [cpu, rssKb] = [NaN, NaN];
    try {
      const [u, s, m] = fs.readFileSync(tfile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
      [cpu, rssKb] = [u + s, m];
      fs.unlinkSync(tfile);
    } catch { /* killed before time wrote */ }
    resolve({ code, signal, timedOut, cpu, rssKb, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
  });
});

/** The experiments (`skblab list`) and each one's parameters (`skblab params`): { name, dflt,
 * min, max, step (1 when none), pow2 } for a number, { name, dflt, choices } for a choice. */
export async function readSpecs() {
  const sync = async (args) => (await runTimed(args, 30000)).stdout;
  const experiments = (await sync(['list'])).trim().split('\n');
  const specs = {};
  for (const e of experiments) {
    specs[e] = [];
    for (const line of (await sync(['params', e])).split('\n')) {
      const m = /^(\w+)(?: \[[^\]]*\])?\s+default (\S+)\s+range (.+)$/.exec(line);
      if (!m) continue;
      const [, name, dflt, range] = m;
      const num = /^(-?\d+)\.\.=(-?\d+)(?: step (\d+)|, (power of two))?/.exec(range);
      if (num) specs[e].push({ name, dflt, min: Number(num[1]), max: Number(num[2]), step: num[3] ? Number(num[3]) : 1, pow2: !!num[4] });
      else specs[e].push({ name, dflt, choices: range.split(' ')[0].split('|') });
    }
  }
  return { experiments, specs };
}
