// Trunk post_build hook (run first by scripts/post-build.mjs): writes the steps each written
// lesson has into index.html's `skblab-first` meta tag, as JSON ({"skb-layout": 8, ...}), read
// from lessons/index.toml and each lesson's `[[steps]]`. The loader (Trunk.toml) fetches a
// step's pre-rendered first view (first/<slug>-<n>-….html, e2e/prerender.mjs writes one per
// step of these lessons) only for a step of this list: a link to a step or lesson that does not
// exist asks the server for nothing, and the app says what is wrong with it.
// Fails the build if the placeholder is missing or a written lesson has no steps.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('first-list.mjs runs as a Trunk hook (TRUNK_STAGING_DIR is not set)');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lessons = path.join(root, 'lessons');
const steps = {};
for (const block of fs.readFileSync(path.join(lessons, 'index.toml'), 'utf8').split(/^\[\[lesson\]\]/m).slice(1)) {
  const field = (name) => new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, 'm').exec(block)?.[1];
  const slug = field('slug');
  if (!slug || field('status') !== 'written') continue;
  const text = fs.readFileSync(path.join(lessons, 'content', `${slug}.md`), 'utf8');
  const n = (text.match(/^\[\[steps\]\]/gm) || []).length;
  if (n === 0) throw new Error(`first-list.mjs: lesson ${slug} has no [[steps]]`);
  steps[slug] = n;
}
const index = path.join(dir, 'index.html');
const html = fs.readFileSync(index, 'utf8');
const placeholder = '<meta name="skblab-first" content="{}" />';
if (!html.includes(placeholder)) throw new Error(`first-list.mjs: no ${placeholder} in index.html`);
const json = JSON.stringify(steps).replaceAll('"', '&quot;');
fs.writeFileSync(index, html.replace(placeholder, `<meta name="skblab-first" content="${json}" />`));
