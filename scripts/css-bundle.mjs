// Trunk pre_build hook (Trunk.toml): writes static/gen/app.css, the app's one stylesheet, from
// static/style.css (the shell, generic views, themes) followed by every static/views/*.css in
// name order (one file per experiment's custom views). A new custom view adds its own file;
// nothing else is edited (the "one road"). The output is generated, not committed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const base = path.join(root, 'static', 'style.css');
const viewsDir = path.join(root, 'static', 'views');
const outDir = path.join(root, 'static', 'gen');
const views = fs.readdirSync(viewsDir).filter((f) => f.endsWith('.css')).sort();
const parts = [fs.readFileSync(base, 'utf8')];
for (const f of views) parts.push(`/* ---- static/views/${f} ---- */\n${fs.readFileSync(path.join(viewsDir, f), 'utf8')}`);
const css = parts.join('\n');
fs.mkdirSync(outDir, { recursive: true });
const out = path.join(outDir, 'app.css');
// Unchanged output is not rewritten, so `trunk serve` does not see a change and rebuild.
if (!fs.existsSync(out) || fs.readFileSync(out, 'utf8') !== css) fs.writeFileSync(out, css);
console.log(`css-bundle: static/gen/app.css from style.css + ${views.length} view files`);
