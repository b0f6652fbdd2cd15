// A small static server for a Trunk build (`make serve`, and the e2e tests' server): serves
// DIST on 127.0.0.1, compressed with brotli (or gzip) for clients that accept it — the wasm is
// most of the first load and shrinks to about a third. The build writes NAME.br / NAME.gz
// beside the big files (scripts/precompress.mjs); other files are compressed on first request
// (fast settings) and kept in memory.
//
// The coding follows Accept-Encoding with its q-values (RFC 9110 §12.5.3): `q=0` means not
// acceptable, the highest q wins, a tie goes to br, then gzip, then none; `*` stands for any
// coding not named; no header means none.
//
// What it keeps is bounded by the build, never by the requests: the memory cache holds files
// of the build (one entry per file and coding), and the byte counts are kept per file of the
// build (under `/` for the page at the root), so any number of distinct request paths —
// missing ones, navigations that get index.html, aliases such as `/%2e/index.html` — adds
// nothing.
//
// What it answers:
// - a file of the build: 200 with its type; content-hashed names (`name-<hex>.ext`: Trunk writes 16 digits, fewer when the hash starts with zeros) may be
//   kept by caches for an hour, everything else (index.html, sw.js, the sweep worker's unhashed
//   files) is revalidated on every use (`no-cache`; an unchanged file is a 304 by its ETag), so
//   a new build is never mixed with an old one;
// - a missing path: index.html only for a navigation (`Sec-Fetch-Mode: navigate`, or an
//   `Accept: text/html` request without fetch metadata) to a path without an extension or
//   ending in .html (the app routes by hash); anything else — a missing .js, .wasm, .css or
//   other asset — is 404, never HTML under a script's name;
// - a malformed path (a broken percent escape such as `/%` or `/%E0%A4%A`): 400; a method other
//   than GET or HEAD: 405. No request can stop the server: an unexpected error is a 500.
// Every answer carries the security headers: the Content-Security-Policy of the built
// index.html's meta tag (read from the build, so it is the same policy, its inline-script hash
// included) plus `frame-ancestors 'none'` (a meta tag cannot carry it),
// `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`.
//   node scripts/serve.mjs [DIST] [PORT]      (defaults: dist, 8080)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.webp': 'image/webp',
  '.json': 'application/json', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.svg', '.json']);
/** Trunk's content-hashed file names: `skblab-web-0123456789abcdef.js`, `…_bg.wasm`. */
const HASHED = /-[0-9a-f]{10,16}(_bg)?\.[a-z0-9]+$/;

/**
 * The Content-Security-Policy of the `<meta http-equiv="Content-Security-Policy">` tag of
 * `html` (attribute entities decoded), or null if there is none.
 */
export function metaCsp(html) {
  for (const [tag] of html.matchAll(/<meta\b[^>]*>/gi)) {
    if (!/http-equiv\s*=\s*["']?content-security-policy["'\s>/]/i.test(tag)) continue;
    const m = tag.match(/\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')/i);
    if (!m) continue;
    const raw = m[1] ?? m[2];
    return raw.replace(/&(quot|#34|apos|#39|lt|gt|amp);/g, (_, e) => (
      { quot: '"', '#34': '"', apos: "'", '#39': "'", lt: '<', gt: '>', amp: '&' }[e]));
  }
  return null;
}

/**
 * The security headers for the build at `root`: index.html's CSP with `frame-ancestors 'none'`
 * added (re-read when index.html changes).
 */
function securityHeaders(root, memo) {
  const index = path.join(root, 'index.html');
  let stamp = -1;
  try { stamp = fs.statSync(index).mtimeMs; } catch { /* no build: no CSP beyond the default */ }
  if (memo.root !== root || memo.stamp !== stamp) {
    let csp = null;
    try { csp = metaCsp(fs.readFileSync(index, 'utf8')); } catch { /* no index.html */ }
    // Without the build's policy, the strictest one: nothing loads.
    const policy = (csp ?? "default-src 'none'").trim().replace(/;\s*$/, '');
    memo.root = root;
    memo.stamp = stamp;
    memo.headers = {
      'content-security-policy': `${policy}; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    };
  }
  return memo.headers;
}

/** The file under `root` for a decoded URL path, or null if there is none (or it is outside). */
function fileFor(root, urlPath) {
  if (urlPath.includes('\0')) return null;
  const file = path.join(root, path.normalize(urlPath).replace(/^(\.\.[/\\])+/, ''));
  if (file !== root && !file.startsWith(root + path.sep)) return null;
  if (file === root || file === root + path.sep) return path.join(root, 'index.html');
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** A coding we can send, by its Accept-Encoding name (`x-gzip` is gzip, RFC 9110 §8.4.1.3). */
const CODINGS = { br: 'br', gzip: 'gzip', 'x-gzip': 'gzip', identity: 'identity' };
/** A qvalue (RFC 9110 §12.4.2): 0 to 1 with at most three decimals; anything else is null. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The content coding to send for an Accept-Encoding header: 'br', 'gzip' or null (none).
 * Each listed coding gets its q (1 when not given; a malformed q counts as 0, so a coding is
 * never sent on a weight we cannot read); `*` gives its q to br, gzip and identity when they
 * are not named. Codings with q=0 are out; of the rest the highest q wins, ties going to br,
 * then gzip, then identity. Identity not named (and no `*`) is the last resort, below any
 * acceptable coding; when nothing is acceptable, not even identity, the answer is still
 * uncompressed (the one form every client reads).
 */
export function pickEncoding(header) {
  if (header == null) return null;
  const named = new Map();
  let star = null;
  for (const item of String(header).split(',')) {
    const [name, ...params] = item.split(';').map((t) => t.trim());
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const value = param.slice(eq + 1).trim();
      q = QVALUE.test(value) ? Number(value) : 0;
    }
    const lower = name.toLowerCase();
    if (lower === '*') star = q;
    else if (CODINGS[lower] && !named.has(CODINGS[lower])) named.set(CODINGS[lower], q);
  }
  const weight = (coding) => named.get(coding) ?? star ?? (coding === 'identity' ? Number.MIN_VALUE : 0);
  let best = null;
  let bestQ = 0;
  for (const coding of ['br', 'gzip', 'identity']) {
    const q = weight(coding);
    if (q > bestQ) [best, bestQ] = [coding, q];
  }
  return best === 'identity' ? null : best;
}

/** Whether the request is a page load (the only kind that may get index.html for a missing path). */
function isNavigation(req) {
  const mode = req.headers['sec-fetch-mode'];
  if (mode) return mode === 'navigate';
  return /\btext\/html\b/.test(String(req.headers.accept || ''));
}

/**
 * The path a response's bytes are counted under: `/` for the page at the root, else the
 * served file's own path in the build (`/skblab-web-….js`, `/index.html` for a navigation
 * to a missing path). One key per file of the build, whatever the request said.
 */
function statsKey(root, file, urlPath) {
  const rel = `/${path.relative(root, file).split(path.sep).join('/')}`;
  return urlPath === '/' && rel === '/index.html' ? '/' : rel;
}

/**
 * A server for `dist`. `stats.bytes` counts the body bytes sent per file of the build (keyed
 * by its URL path, `/` for the root page: what a browser transfers), for first-load
 * measurements. `setRoot(dir)` serves another build from the same origin from the next
 * request on (a test's "new version deployed"). `kept()` says how much the server holds:
 * `{ cached, counted }`, the entries of its file cache and of `stats.bytes`.
 */
export function createStaticServer(dist) {
  let root = path.resolve(dist);
  const cache = new Map();
  const stats = { bytes: new Map() };
  const memo = {};
  const plain = (res, status, text, security) => {
    const body = Buffer.from(`${text}\n`);
    res.writeHead(status, {
      ...security, 'content-type': 'text/plain; charset=utf-8', 'content-length': body.length, 'cache-control': 'no-store',
      ...(status === 405 ? { allow: 'GET, HEAD' } : {}),
    });
    res.end(body);
  };
  const handle = (req, res) => {
    const security = securityHeaders(root, memo);
    if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'method not allowed', security);
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      return plain(res, 400, 'bad request: malformed path', security);
    }
    let file = fileFor(root, urlPath);
    if (!file) {
      const ext = path.extname(urlPath);
      if (!isNavigation(req) || (ext !== '' && ext !== '.html')) return plain(res, 404, 'not found', security);
      file = path.join(root, 'index.html');
      if (!fs.existsSync(file)) return plain(res, 404, 'not found', security);
    }
    const ext = path.extname(file);
    const encoding = COMPRESSIBLE.has(ext) ? pickEncoding(req.headers['accept-encoding']) : null;
    const stamp = fs.statSync(file).mtimeMs;
    const key = `${file}|${encoding}`;
    let entry = cache.get(key);
    if (!entry || entry.stamp !== stamp) {
      const pre = encoding && `${file}.${encoding === 'br' ? 'br' : 'gz'}`;
      let body;
      if (pre && fs.existsSync(pre) && fs.statSync(pre).mtimeMs >= stamp) {
        body = fs.readFileSync(pre);
      } else {
        const raw = fs.readFileSync(file);
        body = encoding === 'br'
          ? zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
          : encoding === 'gzip' ? zlib.gzipSync(raw, { level: 6 }) : raw;
      }
      entry = { stamp, body };
      cache.set(key, entry);
    }
    const etag = `"${Math.round(stamp).toString(36)}-${entry.body.length.toString(36)}-${encoding || 'id'}"`;
    const headers = { ...security, 'content-type': TYPES[ext] || 'application/octet-stream', 'content-length': entry.body.length, vary: 'accept-encoding', etag };
    if (encoding) headers['content-encoding'] = encoding;
    // Hashed files may be kept; anything else (index.html, sw.js, the sweep worker's files,
    // whose names stay the same from build to build) must be revalidated.
    headers['cache-control'] = HASHED.test(path.basename(file)) ? 'public, max-age=3600' : 'no-cache';
    if (String(req.headers['if-none-match'] || '').split(/\s*,\s*/).includes(etag)) {
      // Revalidation of an unchanged file (the `no-cache` ones on every use): no body.
      delete headers['content-length'];
      res.writeHead(304, headers);
      return res.end();
    }
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : entry.body);
    const counted = statsKey(root, file, urlPath);
    stats.bytes.set(counted, (stats.bytes.get(counted) || 0) + entry.body.length);
  };
  const server = http.createServer((req, res) => {
    try {
      handle(req, res);
    } catch (e) {
      // A file removed mid-request, an unreadable file: this request fails, the server stays.
      console.error(`[serve] ${req.method} ${JSON.stringify(req.url).slice(0, 200)}: ${e.message}`);
      if (!res.headersSent) plain(res, 500, 'internal error', securityHeaders(root, memo));
      else res.destroy();
    }
  });
  // A request Node's parser rejects (not HTTP at all) gets a 400, and only its connection closes.
  server.on('clientError', (err, socket) => {
    if (socket.writable && !socket.destroyed) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  const setRoot = (dir) => {
    root = path.resolve(dir);
    cache.clear();
  };
  const kept = () => ({ cached: cache.size, counted: stats.bytes.size });
  return { server, stats, setRoot, kept };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const dist = process.argv[2] || 'dist';
  const port = Number(process.argv[3] || 8080);
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    console.error(`serve: no ${dist}/index.html (build first: trunk build --release)`);
    process.exit(2);
  }
  const { server } = createStaticServer(dist);
  server.listen(port, '127.0.0.1', () => console.log(`[serve] http://127.0.0.1:${port}/ (Ctrl-C to stop)`));
}
