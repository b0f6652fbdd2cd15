// The walk's placeholder check (e2e/walk/placeholders.mjs) finds what it should: a number the
// text prints from a placeholder is compared with the value it names, within the last printed
// digit, and a page's table that disagrees is a contradiction. Needs a CLI (the experiments'
// defaults and runs), not the web build: the release one, else the debug one `make test`'s
// native stage builds (skb-layout's table is arithmetic, cheap in either).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkPlaceholders, placeholdersOf, render, toFixedRust } from '../walk/placeholders.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const BUILT = ['release', 'debug'].map((p) => path.join(here, `../../target/${p}/skblab`));
const CLI = process.env.SKBLAB_CLI || BUILT.find((p) => fs.existsSync(p)) || BUILT[0];
const NO_CLI = !fs.existsSync(CLI) && `no CLI at ${BUILT.join(' or ')} (set SKBLAB_CLI)`;

test('a placeholder is printed as lessons/src/numbers.rs prints it', () => {
  const [p, q, r, s] = placeholdersOf('{order3_mbps[threads=30]@seed_30:0 Gbit/s} {stack_left_bytes@step:0 abs} {mpps@step:1} {gain_pct@step}');
  assert.deepEqual(p.row, ['threads', 30]);
  assert.equal(render(p, 707723.0, 'Mbit/s').text, '708 Gbit/s');
  assert.equal(render(q, -32.0, 'bytes').text, '32 bytes');
  assert.equal(render(r, 12.19, 'Mpps').text, '12.2 Mpps');
  assert.equal(render(s, 0.045, '%').text, '0.045 %');
  assert.equal(render(s, 34.666, '%').text, '34.67 %');
  assert.equal(render({ ...s, decimals: 0 }, 12345.6, 'bytes').text, '12,346 bytes');
  assert.equal(render({ ...s, decimals: 1 }, -0.01, '%').text, '0.0 %', 'a rounding to zero keeps no sign');
  // Rust rounds an exact tie to the even digit (cross-cpu-free/4's 188.5 locks/ms reads "188").
  assert.deepEqual([toFixedRust(188.5, 0), toFixedRust(189.5, 0), toFixedRust(0.125, 2), toFixedRust(-2.5, 0), toFixedRust(1.005, 2), toFixedRust(2.675, 2)],
    ['188', '190', '0.12', '-2', '1.00', '2.67']);
});

test('every placeholder of skb-layout/3 is checked against the page\'s table; a table that disagrees is a contradiction', { skip: NO_CLI }, () => {
  process.env.SKBLAB_CLI = CLI;
  const lessons = [{ slug: 'skb-layout', experiment: 'skb-layout' }];
  const page = (headBytes) => ({
    cli: 'skblab run skb-layout --set preset=frag-destructor-2011',
    cells: [{ head: 'head_bytes [bytes]', key: '', text: String(headBytes) }],
    text: '… is 2112 bytes, more than kmalloc-2k holds …',
  });
  const ok = checkPlaceholders({ 'skb-layout/3': page(2112) }, lessons);
  const at3 = ok.rows.filter((r) => r.at === 'skb-layout/3');
  assert.ok(at3.some((r) => r.placeholder === '{head_bytes@step}' && /page's table/.test(r.from) && r.ok), JSON.stringify(at3));
  assert.deepEqual(ok.contradictions, []);
  assert.ok(ok.checked >= at3.length && at3.length >= 5, `${ok.checked} checked, ${at3.length} at step 3`);
  const bad = checkPlaceholders({ 'skb-layout/3': page(2048) }, lessons);
  assert.equal(bad.contradictions.length, 1, bad.contradictions.join('\n'));
  assert.match(bad.contradictions[0], /skb-layout\/3 explanation \{head_bytes@step\}: prints "2112 bytes", the page's table \(head_bytes \[bytes\]\) gives 2048/);
});
