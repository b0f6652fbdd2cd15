// Trunk post_build hook (Trunk.toml): puts the sha256 of every inline <script> of the built
// index.html into its Content-Security-Policy, in place of the INLINE_SCRIPT_HASHES
// placeholder. Trunk injects an inline module script that loads the wasm; its text names the
// hashed file names, so its hash changes with every build and can only be computed here.
// Fails the build if the placeholder or the inline script is missing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const PLACEHOLDER = "'INLINE_SCRIPT_HASHES'";
const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('csp-hash.mjs runs as a Trunk hook (TRUNK_STAGING_DIR is not set)');
const file = path.join(dir, 'index.html');
const html = fs.readFileSync(file, 'utf8');

// Inline scripts: <script ...> without src=, up to the first </script> (HTML's own rule).
const hashes = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
  .filter(([, attrs]) => !/\bsrc\s*=/i.test(attrs))
  .map(([, , body]) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`);
if (hashes.length === 0) throw new Error(`${file}: no inline script to hash`);
if (!html.includes(PLACEHOLDER)) throw new Error(`${file}: no ${PLACEHOLDER} in the CSP`);
fs.writeFileSync(file, html.replaceAll(PLACEHOLDER, hashes.join(' ')));
console.log(`[csp-hash] ${hashes.length} inline script hash(es) in the CSP of ${file}`);
