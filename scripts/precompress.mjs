// Trunk post_build hook (Trunk.toml): writes NAME.br (brotli, quality 11) and NAME.gz (gzip -9)
// beside every .wasm, .js and .css of the build, so that scripts/serve.mjs sends compressed
// files without compressing at request time (quality 11 takes seconds for the app's wasm).
// index.html is left alone (another hook still edits it; it is small and compressed per request).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('precompress.mjs runs as a Trunk hook (TRUNK_STAGING_DIR is not set)');
let n = 0;
for (const f of fs.readdirSync(dir).filter((f) => /\.(wasm|js|css)$/.test(f))) {
  const raw = fs.readFileSync(path.join(dir, f));
  fs.writeFileSync(path.join(dir, `${f}.br`), zlib.brotliCompressSync(raw, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  }));
  fs.writeFileSync(path.join(dir, `${f}.gz`), zlib.gzipSync(raw, { level: 9 }));
  n += 1;
}
console.log(`[precompress] ${n} files, .br and .gz beside each`);
