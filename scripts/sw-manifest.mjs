// Trunk post_build hook (Trunk.toml): writes the list of the build's files and a cache name
// derived from their contents into the service worker (static/sw.js, copied to sw.js), so that
// it caches exactly this build for offline use and drops the previous build's cache.
// Runs after csp-hash.mjs (index.html is final). Fails the build if a placeholder is missing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('sw-manifest.mjs runs as a Trunk hook (TRUNK_STAGING_DIR is not set)');
const sw = path.join(dir, 'sw.js');
let text = fs.readFileSync(sw, 'utf8');
const files = fs.readdirSync(dir)
  .filter((f) => f !== 'sw.js' && fs.statSync(path.join(dir, f)).isFile() && !/\.(br|gz)$/.test(f))
  .sort();
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
console.log(`[sw-manifest] ${files.length} files in cache ${name}`);
