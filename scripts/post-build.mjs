// Trunk post_build hook (Trunk.toml): runs first-list.mjs, csp-hash.mjs, sw-manifest.mjs and precompress.mjs one
// after the other. Trunk 0.21 starts every hook of a stage at once (one task each, awaited
// together), and these read and write the same files: as three hooks, sw-manifest's build name
// in index.html was sometimes overwritten by csp-hash's copy of the file read before it
// (a build then shipped `skblab-build` = "dev", and every tab announced "a new version"), and
// precompress could compress sw.js before its file list and cache name were written.
// e2e/tests/build.test.mjs checks a build's files against each other.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
for (const script of ['first-list.mjs', 'csp-hash.mjs', 'sw-manifest.mjs', 'precompress.mjs']) {
  execFileSync(process.execPath, [path.join(here, script)], { stdio: 'inherit' });
}
