// End-to-end test of the uncertainty band: on a light experiment's playground the
// seed table offers "Show uncertainty band" with the number of runs before anything runs; the
// band is computed in the sweep worker (the main thread never runs a sample), its progress
// shown, then drawn as a bar per banded cell with its label and, where it is wide, the computed
// "the model cannot tell" line; screenshots at desktop and 360 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;
const EXPERIMENT = 'cross-cpu-free';

async function bandOn(options, name) {
  const page = await openPage(browser, srv.base, options);
  await page.goto(`${srv.base}/#/play/${EXPERIMENT}`);
  await appReady(page);
  const panel = page.locator(tid('band-panel'));
  await panel.waitFor({ timeout: 20000 });
  assert.equal(await page.locator(tid('band-bar')).count(), 0, 'no band before the learner asks');
  assert.match(await panel.innerText(), /\b32 runs of the reproduction in the background workers, .*\(estimated [^)]* on \d+ workers?\)/);
  await page.click(tid('band-start'));
  await page.waitForSelector(`${tid('band-panel')}[data-done="true"]`, { timeout: 60000 });
  const label = await page.locator(tid('band-label')).innerText();
  assert.match(label, /^band: 32 samples of the catalogue constants inside their sourced ranges/);
  const bars = page.locator(tid('band-bar'));
  assert.ok(await bars.count() >= 1, 'a band bar is drawn');
  assert.ok(await bars.first().locator('rect.band-model').count() === 1, 'the model band is a shaded rect');
  assert.match(await bars.first().getAttribute('aria-label'), /^model band .* to .*; seed .*; simulated /);
  // The line is core's computation (Bands::cannot_tell), shown where the band is wide.
  const note = page.locator(tid('band-cannot-tell'));
  const narrow = page.locator(tid('band-narrow'));
  assert.equal((await note.count()) + (await narrow.count()), 1, 'either the cannot-tell line or the narrow note');
  if (await note.count()) assert.match(await note.innerText(), /^the model cannot tell: \d+ of \d+ banded cells are wide/);
  await page.locator(tid('band-panel')).scrollIntoViewIfNeeded();
  const file = await shot(page, name);
  await page.locator('.compare-view').first().screenshot({ path: file.replace(/\.png$/, '-table.png') });
  page.assertClean();
  return page;
}

test('the uncertainty band: started by the learner, streamed from the worker, drawn beside the seed table', async () => {
  const page = await bandOn({}, 'bands-desktop');
  await page.close();
});

test('the uncertainty band at 360 px: no horizontal page scroll', async () => {
  const page = await bandOn({ viewport: { width: 360, height: 800 }, isMobile: true, hasTouch: true }, 'bands-phone');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px`);
  await page.close();
});

// high-order-alloc's default view with its band (32 sampled profiles of the 30-point
// sweep) streams from the worker pool: the band is drawn before the last sample, the count
// grows, and Stop is offered while it runs. The time is printed (make bench's `band:` line).
test('high-order-alloc\'s band streams from the pool sample by sample', async () => {
  const page = await openPage(browser, srv.base, { serviceWorkers: 'block' });
  const t0 = Date.now();
  await page.goto(`${srv.base}/#/play/high-order-alloc`);
  await page.locator(tid('band-start')).first().waitFor({ timeout: 60000 });
  await page.locator(tid('band-start')).first().click();
  await page.locator(tid('band-stop')).first().waitFor({ timeout: 10000 });
  await page.waitForFunction(() => /\(so far\)/.test(document.querySelector('[data-testid="band-label"]')?.textContent || ''), null, { timeout: 60000 });
  const partial = await page.locator(tid('band-label')).first().innerText();
  const m = partial.match(/^band: (\d+) samples/);
  assert.ok(m && Number(m[1]) < 32, `a partial band is drawn: ${partial}`);
  await page.waitForSelector(`${tid('band-panel')}[data-done="true"]`, { timeout: 300000 });
  const total = Date.now() - t0;
  assert.match(await page.locator(tid('band-label')).first().innerText(), /^band: 32 samples/);
  assert.ok(await page.locator(tid('band-bar')).count() >= 1, 'the band is drawn beside the seed table');
  console.info(`[band] high-order-alloc default view + 32-sample band: ${total} ms (${await page.locator(tid('band-time')).first().innerText()})`);
  page.assertClean();
  await page.close();
});
