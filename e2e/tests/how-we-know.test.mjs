// "How we know": every step of a lesson carries a folded note (a native <details>)
// of which statements are the kernel's (with sources), which are the model's simplifications,
// and where the model differs from the seed's kernel (components/player.rs how_we_know). Folded
// on load, in the app and in the pre-rendered first view; opened from the keyboard; three
// headings, citations as links; an empty list is left out, and with all three empty the note.
// Screenshots: e2e/screenshots/how-we-know-{desktop,phone,phone-dark}.png (the page) and
// how-we-know-*-note.png (the note alone, opened).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launch, openPage, appReady, axeViolations, shot, tid, SHOTS } from './harness.mjs';

const HEADINGS = [
  'From the kernel (with sources)',
  "The model's simplifications (ours)",
  "Where the model differs from the seed's kernel",
];
const LISTS = ['kernel', 'model', 'seed_kernel'];

const INDEX = fs.readFileSync(new URL('../../lessons/index.toml', import.meta.url), 'utf8');
/** Each written lesson's slug, step count, and which of the note's lists its front matter fills. */
const LESSONS = INDEX.split('[[lesson]]').slice(1).filter((b) => /status = "written"/.test(b)).map((block) => {
  const slug = block.match(/slug = "([^"]+)"/)[1];
  const text = fs.readFileSync(new URL(`../../lessons/content/${slug}.md`, import.meta.url), 'utf8');
  const steps = (text.match(/^\[\[steps\]\]/gm) || []).length;
  const table = (text.match(/^\[how_we_know\]\n([\s\S]*?)^\[/m) || [])[1] || '';
  // A list is filled when its `[` is followed by anything but `]`.
  const filled = LISTS.map((k) => new RegExp(`^${k}\\s*=\\s*\\[\\s*[^\\]\\s]`, 'm').test(table));
  return { slug, steps, filled };
});
// The lesson the note is looked at closely in: the first with all three lists filled.
const FULL = LESSONS.find((l) => l.filled.every(Boolean));
const NONE = FULL ? false : 'no written lesson fills all three lists of [how_we_know] yet';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

/** Screenshots of the page (`name`) and of the opened note alone (`name`-note). */
async function shots(page, name) {
  await shot(page, name);
  // The sticky site header would cover the note's top in a shot of the note alone.
  await page.evaluate(() => { document.querySelector('.site-header').style.position = 'static'; });
  await page.locator(tid('how-we-know')).screenshot({ path: path.join(SHOTS, `${name}-note.png`) });
  await page.evaluate(() => { document.querySelector('.site-header').style.position = ''; });
}

/** The note's state: open, its headings, its links, and whether its first list is drawn. */
const noteState = (page, scope = '') => page.$eval(`${scope} ${tid('how-we-know')}`, (d) => ({
  open: d.open,
  headings: [...d.querySelectorAll('h4')].map((h) => h.textContent.trim()),
  links: [...d.querySelectorAll('li a[href]')].map((a) => ({ href: a.getAttribute('href'), rel: a.getAttribute('rel') || '' })),
  // A folded <details> keeps its content laid out, out of sight (content-visibility: hidden).
  listShown: d.querySelector('ul')?.checkVisibility({ contentVisibilityAuto: true }) ?? false,
}));

test('the note is folded on every step, opens from the keyboard, and shows three headings and links', { skip: NONE }, async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/lesson/${FULL.slug}/1`);
  await appReady(page);
  let note = await noteState(page);
  assert.equal(note.open, false, 'folded on load');
  assert.equal(note.listShown, false, 'nothing of it drawn while folded');
  // Keyboard: the summary takes focus, Enter opens and closes it.
  const summary = page.locator(`${tid('how-we-know')} > summary`);
  await summary.focus();
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'SUMMARY');
  await page.keyboard.press('Enter');
  note = await noteState(page);
  assert.equal(note.open, true, 'Enter opens it');
  assert.ok(note.listShown);
  assert.deepEqual(note.headings, HEADINGS);
  assert.ok(note.links.length >= 1, 'at least one citation is a link');
  for (const { href, rel } of note.links) {
    assert.match(href, /^https:\/\//, href);
    if (/lore\.kernel\.org|git\.kernel\.org/.test(href)) assert.match(rel, /noopener/, href);
  }
  assert.ok(!note.links.some((l) => l.href.startsWith('mailto:')), 'a Message-ID goes to the archive');
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], violations.join('\n'));
  await shots(page, 'how-we-know-desktop');
  await page.keyboard.press('Enter');
  assert.equal((await noteState(page)).open, false, 'Enter folds it again');
  // The last step has it too (beside the lesson's sources).
  await page.goto(`${srv.base}/#/lesson/${FULL.slug}/${FULL.steps}`);
  await appReady(page);
  await page.waitForSelector(tid('lesson-end'));
  assert.equal((await noteState(page)).open, false);
  page.assertClean();
  await page.context().close();
});

for (const scheme of ['light', 'dark']) {
  test(`on a 360 px phone (${scheme}): nothing wider than the screen, opened or not`, { skip: NONE }, async () => {
    const page = await openPage(browser, srv.base, { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, colorScheme: scheme });
    await page.goto(`${srv.base}/#/lesson/${FULL.slug}/1`);
    await appReady(page);
    const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(await sideways(), 0, 'folded');
    await page.click(`${tid('how-we-know')} > summary`);
    assert.equal((await noteState(page)).open, true);
    assert.equal(await sideways(), 0, 'opened');
    const wide = await page.$$eval(`${tid('how-we-know')} *`, (es) => es.filter((e) => e.getBoundingClientRect().right > 360.5).map((e) => e.outerHTML.slice(0, 80)));
    assert.deepEqual(wide, [], 'every part of the note within the screen');
    // Its text and links readable on the theme's surface (axe: colour contrast).
    const violations = await axeViolations(page);
    assert.deepEqual(violations, [], violations.join('\n'));
    await shots(page, scheme === 'dark' ? 'how-we-know-phone-dark' : 'how-we-know-phone');
    page.assertClean();
    await page.context().close();
  });
}

test('each lesson shows the lists its front matter fills, and no note when it fills none', async () => {
  const page = await openPage(browser, srv.base);
  const wrong = [];
  for (const { slug, filled } of LESSONS) {
    await page.goto(`${srv.base}/#/lesson/${slug}/1`);
    await appReady(page);
    await page.waitForSelector(tid('step-title'));
    const shown = await page.$$eval(`${tid('how-we-know')} .how-we-know-list`, (es) => es.map((e) => e.dataset.testid));
    const expected = LISTS.filter((_, i) => filled[i]).map((k) => `how-we-know-${k.replace('_', '-')}`);
    if (JSON.stringify(shown) !== JSON.stringify(expected)) wrong.push(`${slug}: shows ${shown.join(', ') || 'nothing'}, fills ${expected.join(', ') || 'nothing'}`);
    const notes = await page.$$eval(tid('how-we-know'), (es) => es.length);
    if (notes !== (expected.length ? 1 : 0)) wrong.push(`${slug}: ${notes} notes`);
  }
  assert.deepEqual(wrong, [], wrong.join('\n'));
  page.assertClean();
  await page.context().close();
});

test('the pre-rendered first view has the note, folded, where the app draws it', { skip: NONE }, async () => {
  const page = await openPage(browser, srv.base, { serviceWorkers: 'block', first: true });
  // The app's wasm waits until the copy has been looked at (as prerender.test.mjs).
  let release;
  const gate = new Promise((r) => { release = r; });
  await page.route(/skblab-web-[0-9a-f]+_bg\.wasm$/, async (route) => { await gate; await route.fallback(); });
  await page.goto(`${srv.base}/#/lesson/${FULL.slug}/1`);
  await page.waitForSelector(`#first ${tid('how-we-know')}`);
  const copy = await noteState(page, '#first');
  assert.equal(copy.open, false, 'folded in the copy');
  assert.deepEqual(copy.headings, HEADINGS);
  const top = (scope) => page.$eval(`${scope} ${tid('how-we-know')}`, (d) => d.getBoundingClientRect().top + window.scrollY);
  const copyTop = await top('#first');
  release();
  await page.waitForSelector('#first', { state: 'detached', timeout: 60000 });
  await page.waitForSelector(`#app ${tid('how-we-know')}`);
  assert.equal((await noteState(page, '#app')).open, false, 'folded in the app');
  const appTop = await top('#app');
  assert.ok(Math.abs(appTop - copyTop) <= 2, `the note stays in place: ${copyTop} px in the copy, ${appTop} px in the app`);
  page.assertClean();
  await page.context().close();
});
