// A small static server for a Trunk build (`make serve`, and the e2e tests' server): serves
// DIST on 127.0.0.1, compressed with brotli (or gzip) for clients that accept it — the wasm is
// most of the first load and shrinks to about a third. The build writes NAME.br / NAME.gz
// beside the big files (scripts/precompress.mjs); other files are compressed on first request
// (fast settings) and kept in memory. Unknown paths get index.html (the app routes by hash).
//   node scripts/serve.mjs [DIST] [PORT]      (defaults: dist, 8080)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.json': 'application/json', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.svg', '.json']);

/**
 * A server for `dist`. `stats.bytes` counts the body bytes sent per URL path (what a
 * browser transfers), for first-load measurements.
 */
export function createStaticServer(dist) {
  const root = path.resolve(dist);
  const cache = new Map();
  const stats = { bytes: new Map() };
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = path.join(root, path.normalize(urlPath).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      file = path.join(root, 'index.html');
    }
    const ext = path.extname(file);
    const accept = String(req.headers['accept-encoding'] || '');
    const encoding = !COMPRESSIBLE.has(ext) ? null : /\bbr\b/.test(accept) ? 'br' : /\bgzip\b/.test(accept) ? 'gzip' : null;
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
    const headers = { 'content-type': TYPES[ext] || 'application/octet-stream', 'content-length': entry.body.length, vary: 'accept-encoding' };
    if (encoding) headers['content-encoding'] = encoding;
    // index.html and the service worker must be revalidated; hashed files may be kept.
    headers['cache-control'] = ext === '.html' || path.basename(file) === 'sw.js' ? 'no-cache' : 'public, max-age=3600';
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : entry.body);
    stats.bytes.set(urlPath, (stats.bytes.get(urlPath) || 0) + entry.body.length);
  });
  return { server, stats };
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
