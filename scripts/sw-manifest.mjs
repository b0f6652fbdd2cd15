// Trunk post_build hook (Trunk.toml): writes the list of the build's files and a cache name
// derived from their contents into the service worker (static/sw.js, copied to sw.js) and the
// name into index.html's `skblab-build` meta tag (the page's loader compares the two), so that
// it caches exactly this build for offline use (the worker keeps the previous build's cache for
// tabs still on it and deletes older ones; see static/sw.js).
// Runs after csp-hash.mjs (scripts/post-build.mjs runs them in order: index.html is final).
// Fails the build if a placeholder is missing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('sw-manifest.mjs runs as a Trunk hook (TRUNK_STAGING_DIR is not set)');
const sw = path.join(dir, 'sw.js');
let text = fs.readFileSync(sw, 'utf8');
// Every file of the build, in subfolders too (wasm-bindgen's `snippets/`), but the worker
// itself and the precompressed copies (the server picks those; the cache keeps the originals).
const walk = (rel) => fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
  const name = rel ? `${rel}/${d.name}` : d.name;
  return d.isDirectory() ? walk(name) : d.isFile() ? [name] : [];
});
const files = walk('').filter((f) => f !== 'sw.js' && !/\.(br|gz)$/.test(f)).sort();
const hash = createHash('sha256');
for (const f of files) hash.update(f).update(fs.readFileSync(path.join(dir, f)));
const name = `skblab-${hash.digest('hex').slice(0, 16)}`;
const list = JSON.stringify(['./', ...files.map((f) => `./${f}`)]);
for (const [placeholder, value] of [
  ["const FILES = []; // SKBLAB_PRECACHE_FILES", `const FILES = ${list};`],
  ["const CACHE = 'skblab-dev'; // SKBLAB_CACHE_NAME", `const CACHE = '${name}';`],
]) {
  if (!text.includes(placeholder)) throw new Error(`${sw}: no "${placeholder}"`);
  text = text.replace(placeholder, value);
}
fs.writeFileSync(sw, text);
// The page learns its build's name too (index.html's loader compares it with the worker's).
const index = path.join(dir, 'index.html');
const meta = /(<meta\s+name="skblab-build"\s+content=")dev("\s*\/?>)/;
const html = fs.readFileSync(index, 'utf8');
if (!meta.test(html)) throw new Error(`${index}: no <meta name="skblab-build" content="dev" />`);
fs.writeFileSync(index, html.replace(meta, `$1${name}$2`));
console.log(`[sw-manifest] ${files.length} files in cache ${name}`);
