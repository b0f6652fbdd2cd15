//! scripts/serve.mjs over raw sockets (node:net, so no client library tidies the request): a
//! malformed path (`/%`, `/%E0%A4%A`) is a 400 and the server keeps answering; every answer
//! carries the security headers, the CSP being the built index.html's meta policy plus
//! `frame-ancestors 'none'`; a missing .js/.wasm/.css (or any asset) is a 404, never
//! index.html, while a navigation to an unknown path gets index.html; only content-hashed
//! names may be cached; any number of distinct request paths adds nothing to what the server
//! keeps; the coding follows Accept-Encoding's q-values (`br;q=0` is no brotli). Runs against a
//! small fixture build, and checks the real build's CSP too.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { createStaticServer, metaCsp } from '../../scripts/serve.mjs';
import { DIST } from './harness.mjs';

const POLICY = "default-src 'none'; script-src 'self' 'sha256-abc+/='; style-src 'self'";
const fixture = fs.mkdtempSync(path.join(os.tmpdir(), 'skblab-serve-'));
fs.writeFileSync(path.join(fixture, 'index.html'),
  `<!doctype html><html><head><meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy"\n content="${POLICY.replaceAll("'", '&#39;')}" />` +
  '<title>fixture</title></head><body>app</body></html>');
fs.writeFileSync(path.join(fixture, 'app-0123456789abcdef.js'), 'export default 1;\n');
fs.writeFileSync(path.join(fixture, 'sweep-worker.js'), 'self.x = 1;\n');
fs.writeFileSync(path.join(fixture, 'app-e167294f887eae5_bg.wasm'), '\0asm');
fs.mkdirSync(path.join(fixture, 'snippets'));

let srv;
let app;
let port;
test.before(async () => {
  app = createStaticServer(fixture);
  srv = app.server;
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  port = srv.address().port;
});
test.after(() => {
  srv.close();
  fs.rmSync(fixture, { recursive: true, force: true });
});

/** Sends `head` (request line and headers, no blank line) on a fresh socket; the parsed answer. */
function raw(head) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [headText, ...body] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = headText.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => {
        const i = l.indexOf(':');
        return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()];
      }));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body.join('\r\n\r\n') });
    });
    socket.write(`${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });
}
const get = (p, extra = '') => raw(`GET ${p} HTTP/1.1${extra ? `\r\n${extra}` : ''}`);

test('malformed paths are 400 and the server keeps running', async () => {
  for (const p of ['/%', '/%E0%A4%A', '/%ZZ', '/a%', '/%C0%AF', '/lesson/%FF%FE']) {
    const r = await get(p);
    assert.equal(r.status, 400, `${p}: ${r.status}`);
    assert.match(r.body, /malformed path/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', p);
    const after = await get('/');
    assert.equal(after.status, 200, `the server still answers after ${p}`);
    assert.match(after.body, /fixture/);
  }
  // Not HTTP at all: Node's parser refuses it, the connection gets a 400, the server stays.
  const garbage = await raw('\x00\x01 nonsense');
  assert.equal(garbage.status, 400);
  assert.equal((await get('/')).status, 200);
  assert.equal((await raw('DELETE / HTTP/1.1')).status, 405);
  assert.equal((await get('/%00')).status, 404, 'a NUL byte names no file');
  assert.doesNotMatch((await get('/..%2f..%2fetc%2fpasswd', 'Accept: text/html')).body, /root:/, 'no way out of the build');
});

test('every answer carries the CSP of index.html plus frame-ancestors, nosniff and a referrer policy', async () => {
  for (const p of ['/', '/app-0123456789abcdef.js', '/missing.js', '/%']) {
    const r = await get(p);
    assert.equal(r.headers['content-security-policy'], `${POLICY}; frame-ancestors 'none'`, p);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', p);
    assert.equal(r.headers['referrer-policy'], 'no-referrer', p);
    assert.equal(r.headers['x-frame-options'], 'DENY', p);
  }
});

test('a missing asset is 404, never index.html; only navigations get the page', async () => {
  for (const p of ['/skblab-web-ffffffffffffffff.js', '/skblab-web-ffffffffffffffff_bg.wasm', '/app-ffffffffffffffff.css', '/x.png', '/worker.js']) {
    for (const extra of ['', 'Accept: */*', 'Sec-Fetch-Mode: no-cors\r\nSec-Fetch-Dest: script', 'Sec-Fetch-Mode: navigate\r\nAccept: text/html']) {
      const r = await get(p, extra);
      assert.equal(r.status, 404, `${p} [${extra}]: ${r.status}`);
      assert.doesNotMatch(r.headers['content-type'], /html/, p);
    }
  }
  const nav = await get('/some/page', 'Sec-Fetch-Mode: navigate\r\nSec-Fetch-Dest: document\r\nAccept: text/html');
  assert.equal(nav.status, 200);
  assert.match(nav.headers['content-type'], /text\/html/);
  assert.equal((await get('/some/page', 'Accept: text/html')).status, 200, 'an old client without fetch metadata');
  assert.equal((await get('/some/page', 'Sec-Fetch-Mode: cors\r\nAccept: text/html')).status, 404, 'a fetch is no navigation');
  assert.equal((await get('/snippets/', 'Sec-Fetch-Mode: no-cors')).status, 404, 'a directory is no file');
  const js = await get('/app-0123456789abcdef.js');
  assert.equal(js.status, 200);
  assert.equal(js.headers['content-type'], 'text/javascript');
});

test('only content-hashed names may be cached; index.html and unhashed files are revalidated', async () => {
  assert.equal((await get('/app-0123456789abcdef.js')).headers['cache-control'], 'public, max-age=3600');
  assert.equal((await get('/app-e167294f887eae5_bg.wasm')).headers['cache-control'], 'public, max-age=3600', 'a 15-digit hash is a hash');
  assert.equal((await get('/sweep-worker.js')).headers['cache-control'], 'no-cache');
  assert.equal((await get('/')).headers['cache-control'], 'no-cache');
  assert.equal((await get('/index.html')).headers['cache-control'], 'no-cache');
  const first = await get('/sweep-worker.js');
  assert.ok(first.headers.etag, 'an ETag to revalidate by');
  const again = await get('/sweep-worker.js', `If-None-Match: ${first.headers.etag}`);
  assert.equal(again.status, 304);
  assert.equal(again.body, '');
});

test('any number of distinct request paths adds nothing to what the server keeps', async () => {
  // Every file of the fixture in every coding, and the root page: all the server may keep.
  const files = ['/', '/index.html', '/app-0123456789abcdef.js', '/sweep-worker.js', '/app-e167294f887eae5_bg.wasm'];
  for (const p of files) for (const coding of ['br', 'gzip', 'identity']) await get(p, `Accept-Encoding: ${coding}`);
  await get('/elsewhere', 'Sec-Fetch-Mode: navigate\r\nAccept: text/html');
  const before = app.kept();
  assert.ok(before.counted <= files.length, `counted under ${[...app.stats.bytes.keys()]}`);
  for (let i = 0; i < 1500; i++) {
    const asked = [
      [`/lesson/${i}/step`, 'Sec-Fetch-Mode: navigate\r\nAccept: text/html'], // index.html for a navigation
      [`/missing-${i}.js`, ''], // a 404
      [`/${'%2e/'.repeat(1 + (i % 50))}index.html?v=${i}`, 'Accept-Encoding: gzip'], // an alias of a file
    ][i % 3];
    const r = await get(...asked);
    assert.ok(r.status === 200 || r.status === 404, `${asked[0]}: ${r.status}`);
  }
  assert.equal(app.stats.bytes.size, before.counted, `byte counts under ${app.stats.bytes.size} paths`);
  assert.deepEqual(app.kept(), before, 'the file cache and the byte counts hold only the build\'s files');
});

test('Accept-Encoding is read with its q-values: q=0 is not acceptable, the highest q wins', async () => {
  const source = fs.readFileSync(path.join(fixture, 'sweep-worker.js'));
  const cases = [
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0', null],
    ['br; q=0.000, gzip;q=0.001', 'gzip'],
    ['gzip, br', 'br'],
    ['gzip;q=0.9, br;q=0.5', 'gzip'],
    ['identity;q=1, br;q=0.5', null],
    ['*;q=0.2, br;q=0', 'gzip'],
    ['*;q=0', null],
    ['br;q=nonsense, gzip;q=0.1', 'gzip'],
    ['br;q=1.5', null],
    ['BR;Q=1', 'br'],
    ['x-gzip', 'gzip'],
    ['deflate, zstd', null],
    ['', null],
    [null, null],
  ];
  for (const [header, want] of cases) {
    const r = await get('/sweep-worker.js', header === null ? '' : `Accept-Encoding: ${header}`);
    assert.equal(r.status, 200, `${header}`);
    assert.equal(r.headers['content-encoding'] ?? null, want, `Accept-Encoding: ${header}`);
    const body = Buffer.from(r.body, 'latin1');
    const plain = want === 'br' ? zlib.brotliDecompressSync(body) : want === 'gzip' ? zlib.gunzipSync(body) : body;
    assert.deepEqual(plain, source, `the body for ${header} is the file`);
    assert.match(r.headers.vary, /accept-encoding/i);
  }
});

test('the real build: the header CSP is the meta tag policy of its index.html', { skip: !fs.existsSync(path.join(DIST, 'index.html')) && 'no build' }, async () => {
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const policy = metaCsp(html);
  assert.ok(policy && /script-src 'self'/.test(policy) && /'sha256-/.test(policy), policy);
  assert.doesNotMatch(policy, /INLINE_SCRIPT_HASHES/);
  const { server } = createStaticServer(DIST);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const r = await fetch(`http://127.0.0.1:${server.address().port}/`);
    assert.equal(r.headers.get('content-security-policy'), `${policy.replace(/;\s*$/, '')}; frame-ancestors 'none'`);
  } finally {
    server.close();
  }
});
