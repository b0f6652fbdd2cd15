// Accessibility: axe-core (npm, pinned in package.json) on every page and every lesson step,
// light and dark: no serious or critical violation, and no moderate one about landmarks or
// headings (unique landmark names, heading order). axe is evaluated through the DevTools
// protocol, which the page's Content-Security-Policy does not apply to.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startServer, launch, openPage, appReady, axeViolations } from './harness.mjs';
const INDEX = fs.readFileSync(new URL('../../lessons/index.toml', import.meta.url), 'utf8');
// The last: a run pinned as A (a light one), so the differential flame graph and the text
// views side by side are checked too.
const URLS = ['#/', '#/about', '#/play', '#/reproduce', '#/play/cross-cpu-free?consumer=same&pin=seed%3D1'];
for (const block of INDEX.split('[[lesson]]').slice(1).filter((b) => /status = "written"/.test(b))) {
  const slug = block.match(/slug = "([^"]+)"/)[1];
  const text = fs.readFileSync(new URL(`../../lessons/content/${slug}.md`, import.meta.url), 'utf8');
  const steps = (text.match(/^\[\[steps\]\]/gm) || []).length;
  for (let i = 1; i <= steps; i++) URLS.push(`#/lesson/${slug}/${i}`);
  URLS.push(`#/play/${block.match(/experiment = "([^"]+)"/)[1]}`);
}

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

for (const scheme of ['light', 'dark']) {
  test(`axe: no serious or critical violations, no landmark or heading issue, on ${URLS.length} pages (${scheme})`, async () => {
    const page = await openPage(browser, srv.base, { colorScheme: scheme });
    const found = [];
    for (const u of URLS) {
      await page.goto(`${srv.base}/${u}`);
      await appReady(page);
      await page.waitForTimeout(200);
      const violations = await axeViolations(page);
      for (const v of violations) found.push(`${u}: ${v}`);
    }
    assert.deepEqual(found, [], found.join('\n'));
    page.assertClean();
  });
}
