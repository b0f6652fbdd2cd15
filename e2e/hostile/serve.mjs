// A hostile user's pass over scripts/serve.mjs (not part of `make test`; e2e/tests/serve.test.mjs
// is). Serves a small build in a temporary directory whose parent, and a sibling directory
// whose name starts with the build's, hold secret files, then sends raw request lines (no
// client normalises them): path-traversal probes in every spelling (dot segments, percent
// escapes, double encoding, overlong UTF-8, backslashes, NUL, absolute paths, the sibling
// prefix), 15,000 unique paths (what the server keeps must not
// grow with them, nor its heap), and Accept-Encoding hostile headers (`br;q=0` and others).
// A probe fails if any answer carries a secret's bytes or the server stops answering.
//   node --expose-gc e2e/hostile/serve.mjs
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createStaticServer } from '../../scripts/serve.mjs';

const SECRET = 'SECRET-OUTSIDE-DIST-5f3a';
const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-serve-'));
const dist = path.join(top, 'dist');
fs.mkdirSync(path.join(dist, 'sub'), { recursive: true });
fs.writeFileSync(path.join(dist, 'index.html'), `<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'self'"><title>t</title>${'<p>page</p>'.repeat(100)}`);
fs.writeFileSync(path.join(dist, 'app-0123456789abcdef.js'), `console.log(1);${' '.repeat(2000)}`);
fs.writeFileSync(path.join(dist, 'sub', 'x.css'), 'body{}');
fs.writeFileSync(path.join(top, 'secret.txt'), SECRET);
fs.writeFileSync(path.join(top, 'secret'), SECRET);
fs.mkdirSync(path.join(top, 'dist-evil'));
fs.writeFileSync(path.join(top, 'dist-evil', 'x.js'), SECRET);
fs.mkdirSync(path.join(top, 'distx'));
fs.writeFileSync(path.join(top, 'distx', 'index.html'), SECRET);
fs.symlinkSync(path.join(top, 'secret.txt'), path.join(dist, 'link.txt'));
fs.symlinkSync(top, path.join(dist, 'up'));

const { server, kept } = createStaticServer(dist);
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;

/** Sends `raw` bytes on a new connection; resolves with the whole answer (string), or 'TIMEOUT'. */
const send = (raw, ms = 5000) => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1');
  const chunks = [];
  const t = setTimeout(() => { s.destroy(); resolve('TIMEOUT'); }, ms);
  s.on('data', (d) => chunks.push(d));
  s.on('error', () => {});
  s.on('close', () => { clearTimeout(t); resolve(Buffer.concat(chunks).toString('latin1')); });
  s.end(raw);
});
const get = (target, headers = '') => send(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`);

const counts = {};
const failures = [];
const note = (cat, ok, what) => {
  counts[cat] ??= { tried: 0, failed: 0 };
  counts[cat].tried += 1;
  if (!ok) { counts[cat].failed += 1; failures.push(`[${cat}] ${what}`); }
};

const TRAVERSAL = [
  '/../secret.txt', '/../../secret.txt', '/..%2fsecret.txt', '/%2e%2e/secret.txt', '/%2e%2e%2fsecret.txt', '/%2E%2E%2Fsecret.txt',
  '/..%5csecret.txt', '/..\\secret.txt', '/%252e%252e/secret.txt', '/%c0%ae%c0%ae/secret.txt', '/%c0%ae%c0%ae%c0%afsecret.txt',
  '/.%2e/secret.txt', '/%2e./secret.txt', '/....//secret.txt', '/..;/secret.txt', '/sub/../../secret.txt', '/sub/%2e%2e/%2e%2e/secret.txt',
  '/./../secret.txt', '//../secret.txt', `/${top}/secret.txt`, `${top}/secret.txt`, `/%2f${top.slice(1)}/secret.txt`, '/../dist-evil/x.js',
  '/..%2fdist-evil/x.js', '/../distx/index.html', '/..%2fdistx%2findex.html', '/index.html%00/../../secret.txt', '/%00../secret.txt',
  '/sub/..%2f..%2fsecret', '/..', '/%2e%2e', '/..%00', '/.%00./secret.txt',
  'http://x/../secret.txt', '*', '/%u002e%u002e/secret.txt', '/%ef%bc%8e%ef%bc%8e/secret.txt', '/\u2025/secret.txt', '/sub/..\\..\\secret.txt',
  `/..${'/..'.repeat(50)}/secret.txt`, '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
];
for (const p of TRAVERSAL) {
  const r = await get(p, 'Sec-Fetch-Mode: navigate\r\n');
  const status = r.slice(9, 12);
  note('path traversal', r !== 'TIMEOUT' && !r.includes(SECRET) && !/root:x:0/.test(r), `${JSON.stringify(p)}: ${r === 'TIMEOUT' ? 'no answer in 5 s' : `${status}, secret bytes ${r.includes(SECRET)}`}`);
}

// Symlinks the build's owner put in it are followed (as nginx's default and Trunk's copy do):
// not a request's doing, so listed, not counted as traversal.
for (const p of ['/link.txt', '/up/secret.txt']) {
  const r = await get(p);
  console.log(`symlink in the build: ${p}: ${r.slice(9, 12)}${r.includes(SECRET) ? ' (follows it out of the build)' : ''}`);
}

// Hostile requests that must get an answer (4xx/5xx or 200) and leave the server answering.
const ODD = [
  'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept-Encoding: br;q=0\r\n\r\n',
  `GET /${'a'.repeat(70000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
  'GET /% HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'GET /%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'DELETE /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc',
  'BREW / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  'GET / HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n',
  'GARBAGE\r\n\r\n',
  '\x00\x01\x02\r\n\r\n',
  `GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept-Encoding: ${'br, '.repeat(5000)}\r\n\r\n`,
  `GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nIf-None-Match: ${'"x", '.repeat(5000)}\r\n\r\n`,
  'GET /index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\nRange: bytes=0-0,1-1,2-2\r\n\r\n',
];
for (const raw of ODD) {
  const r = await send(raw);
  const alive = (await get('/index.html')).includes('200 OK');
  note('malformed requests', r !== 'TIMEOUT' && alive && !r.includes(SECRET), `${JSON.stringify(raw.slice(0, 60))}: ${r === 'TIMEOUT' ? 'no answer' : r.slice(0, 12)}, alive after: ${alive}`);
}

// Accept-Encoding: which coding comes back.
const CODINGS = [
  ['br;q=0', null], ['br;q=0, gzip;q=0', null], ['gzip;q=0, br;q=0, identity;q=0', null], ['*;q=0', null], ['br;q=0, *', 'gzip'],
  ['BR;Q=0', null], ['br; q=0', null], ['br;q=0.000', null], ['br;q=1.0001', 'gzip?'], ['br;q=-1', null], ['br;q=NaN', null],
  ['br;q=1e0', null], ['gzip;q=0.5, br;q=0.4', 'gzip'], ['br;q=0, gzip;q=0.001', 'gzip'], ['identity', null], ['', null],
  ['x-gzip', 'gzip'], ['br, br;q=0', 'br'], ['br;q=0, br', null],
];
for (const [header, want] of CODINGS) {
  const r = await get('/', `Accept-Encoding: ${header}\r\n`);
  const m = /\r\ncontent-encoding: (\S+)/i.exec(r);
  const got = m ? m[1] : null;
  const ok = want === 'gzip?' ? got !== 'br' : got === want;
  note('accept-encoding', ok, `${JSON.stringify(header)}: got ${got}, want ${want}`);
}

// Memory under many unique paths: what it keeps stays bounded, the heap does not grow with them.
global.gc?.();
const heap0 = process.memoryUsage().heapUsed;
const kept0 = kept();
const N = 15000;
let next = 0;
let answered = 0;
const hdrs = ['Sec-Fetch-Mode: navigate\r\n', 'Accept: text/html\r\n', '', 'Accept-Encoding: gzip\r\n', 'Accept-Encoding: br\r\n'];
await Promise.all(Array.from({ length: 16 }, async () => {
  while (next < N) {
    const i = next++;
    const p = [`/u${i}`, `/u${i}.html`, `/u${i}.js`, `/%2e/index.html?${i}`, `/sub/../x${i}`, `/app-0123456789abcdef.js?v=${i}`][i % 6];
    const r = await get(p, hdrs[i % hdrs.length]);
    if (r !== 'TIMEOUT') answered += 1;
  }
}));
global.gc?.();
const heap1 = process.memoryUsage().heapUsed;
const kept1 = kept();
const grew = (heap1 - heap0) / 1024 / 1024;
note('unique paths', answered === N && kept1.cached <= 12 && kept1.counted <= 6, `${N} unique paths: ${answered} answered, kept ${JSON.stringify(kept0)} -> ${JSON.stringify(kept1)}`);
note('unique paths', grew < 20, `heap grew ${grew.toFixed(1)} MB over ${N} unique paths`);
console.log(`unique paths: ${answered}/${N} answered, kept ${JSON.stringify(kept0)} -> ${JSON.stringify(kept1)}, heap ${(heap0 / 1048576).toFixed(1)} -> ${(heap1 / 1048576).toFixed(1)} MB`);

server.close();
fs.rmSync(top, { recursive: true, force: true });
for (const [cat, k] of Object.entries(counts)) console.log(`${cat.padEnd(22)} tried ${k.tried}, failed ${k.failed}`);
for (const f of failures) console.log(`FAIL ${f}`);
process.exit(failures.length ? 1 : 0);
