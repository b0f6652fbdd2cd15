// The built files agree with each other (no browser): the post-build steps (scripts/post-build.mjs)
// edit the same files, and Trunk would run them at once if they were separate hooks. A build
// whose index.html kept `skblab-build` = "dev" made every tab announce "a new version"; a stale
// precompressed copy is what `make serve` sends instead of the file.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIST } from './harness.mjs';

const read = (f) => fs.readFileSync(path.join(DIST, f), 'utf8');

test("index.html names the service worker's cache as its build", () => {
  const build = read('index.html').match(/<meta\s+name="skblab-build"\s+content="([^"]*)"/)?.[1];
  const cache = read('sw.js').match(/const CACHE = '([^']*)';/)?.[1];
  assert.match(build ?? '', /^skblab-[0-9a-f]{16}$/, `index.html's skblab-build: ${build}`);
  assert.equal(build, cache, "index.html's build name is sw.js's cache name");
  assert.doesNotMatch(read('sw.js'), /const FILES = \[\];/, "sw.js lists the build's files");
});

test("every inline script of index.html is allowed by the page's CSP hash", () => {
  const html = read('index.html');
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]*)"/)?.[1] ?? '';
  assert.doesNotMatch(csp, /INLINE_SCRIPT_HASHES/);
  const inline = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].filter(([, attrs]) => !/\bsrc\s*=/i.test(attrs));
  assert.ok(inline.length >= 1, 'the loader is an inline script');
  for (const [, , body] of inline) {
    const hash = `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`;
    assert.ok(csp.includes(hash), `CSP lacks ${hash}`);
  }
});

test('every precompressed copy is its file, compressed', () => {
  const copies = fs.readdirSync(DIST).filter((f) => /\.(br|gz)$/.test(f));
  assert.ok(copies.some((f) => f.endsWith('.wasm.br')), 'the wasm files are precompressed');
  for (const f of copies) {
    const packed = fs.readFileSync(path.join(DIST, f));
    const bytes = f.endsWith('.br') ? zlib.brotliDecompressSync(packed) : zlib.gunzipSync(packed);
    assert.ok(bytes.equals(fs.readFileSync(path.join(DIST, f.replace(/\.(br|gz)$/, '')))), `${f} is not its file's bytes`);
  }
});
