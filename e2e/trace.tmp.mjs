import { startServer, launch, openPage } from '/work/main/e2e/tests/harness.mjs';
import fs from 'node:fs';
const srv = await startServer();
const browser = await launch();
const page = await openPage(browser, srv.base, { serviceWorkers: 'block' });
await page.context().addInitScript((n) => localStorage.setItem('skblab-workers', String(n)), 2);
const lines = [];
page.on('console', (m) => { if (m.text().includes('points of')) lines.push(m.text()); });
await page.goto(`${srv.base}/#/play/high-order-alloc`);
while (lines.length < 1) await page.waitForTimeout(50);
await page.waitForTimeout(500);
await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing'] });
const n = lines.length;
const t0 = Date.now();
await page.goto(`${srv.base}/#/play/high-order-alloc?seed=2`);
while (lines.length <= n) await page.waitForTimeout(20);
await page.waitForTimeout(300);
const buf = await browser.stopTracing();
console.log(lines.at(-1));
const ev = JSON.parse(buf.toString()).traceEvents;
// main thread of the renderer: find thread named CrRendererMain
const names = {}; for (const e of ev) if (e.name === 'thread_name') names[`${e.pid}:${e.tid}`] = e.args.name;
const agg = {};
let start = Infinity, end = 0;
for (const e of ev) { if (e.ph === 'X' && names[`${e.pid}:${e.tid}`] === 'CrRendererMain') { start = Math.min(start, e.ts); end = Math.max(end, e.ts + e.dur); } }
// top-level: RunTask durations and child names
for (const e of ev) {
  const th = names[`${e.pid}:${e.tid}`];
  if (e.ph !== 'X' || !e.dur) continue;
  const k = `${th} | ${e.name}`;
  agg[k] = (agg[k] || 0) + e.dur / 1000;
}
Object.entries(agg).filter(([k]) => k.startsWith('CrRendererMain') || k.startsWith('DedicatedWorker')).sort((a, b) => b[1] - a[1]).slice(0, 30).forEach(([k, v]) => console.log(v.toFixed(0).padStart(7), k));
await browser.close(); srv.server.close();
