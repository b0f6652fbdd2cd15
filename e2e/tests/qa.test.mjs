// Defects found by a QA pass, each pinned by the test that failed before its fix: settings an
// experiment refuses together (a rule between parameters, e.g. cores a multiple of sockets)
// must neither hang a question nor leave the page without a word.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launch, openPage, shot, appReady } from './harness.mjs';

let srv; let browser;
before(async () => { srv = await startServer(); browser = await launch(); });
after(async () => { await browser?.close(); srv?.server.close(); });

const tid = (id) => `[data-testid="${id}"]`;
// skb-cache refuses more than 4 threads per logical CPU (a heavy run: the worker's path);
// percpu-counter refuses cores that do not split evenly over the sockets.
const REFUSED_SKB_CACHE = '#/lesson/skb-cache/1?threads=2048&cpus=1&sockets=1&smt=false';
const REFUSED_PERCPU = '#/lesson/percpu-counter/1?sockets=3';

test('a question under refused settings is graded at its step\'s own settings, at once', async () => {
  // A question is graded at the step's own parameters, so settings the
  // model refuses (the panel's alert says why) do not hold the question up.
  const page = await openPage(browser, srv.base);
  for (const url of [REFUSED_SKB_CACHE, REFUSED_PERCPU]) {
    await page.goto(`${srv.base}/${url}`);
    await appReady(page);
    await page.locator(tid('params-invalid')).waitFor({ timeout: 5000 });
    await page.fill(tid('answer'), '2');
    await page.click(tid('check'));
    await page.waitForFunction(() => /Not quite|Right/.test(document.querySelector('[data-testid="verdict"]')?.innerText || ''),
      null, { timeout: 30000 });
    assert.equal(await page.locator(tid('checking')).count(), 0, 'no endless "Checking…"');
  }
  await shot(page, 'qa-refused-question');
  page.assertClean();
});

test('the parameter panel says which settings cannot run together, on a phone too', async () => {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 360, height: 780 }]) {
    const page = await openPage(browser, srv.base, { viewport });
    await page.goto(`${srv.base}/${REFUSED_SKB_CACHE}`);
    await appReady(page);
    const alert = page.locator(tid('params-invalid'));
    await alert.waitFor({ timeout: 5000 });
    assert.ok(await alert.isVisible(), `visible at ${viewport.width} px`);
    assert.match(await alert.innerText(), /cannot run together: threads = 2048 is more than 4 per logical CPU/);
    await alert.scrollIntoViewIfNeeded();
    await shot(page, `qa-params-invalid-${viewport.width}`);
    // A valid combination takes the message away.
    const threads = page.locator(tid('param-threads'));
    if (viewport.width > 720) {
      await threads.fill('4');
      await threads.press('Enter');
      await page.waitForFunction(() => !document.querySelector('[data-testid="params-invalid"]'));
    }
    page.assertClean();
    await page.context().close();
  }
});

test('a bad seed is flagged on its box like any parameter (aria-invalid, described by the error)', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/play/skb-layout`);
  await appReady(page);
  const seed = page.locator(tid('param-seed'));
  await seed.fill('-1');
  await seed.press('Enter');
  await page.waitForSelector('#param-seed-error');
  assert.equal(await seed.getAttribute('aria-invalid'), 'true');
  assert.match(await seed.getAttribute('aria-describedby'), /\bparam-seed-error\b/);
  assert.match(await page.locator('#param-seed-error').innerText(), /bad seed '-1'/);
  await seed.fill('7');
  await seed.press('Enter');
  await page.waitForFunction(() => !document.querySelector('#param-seed-error'));
  assert.equal(await seed.getAttribute('aria-invalid'), null);
  page.assertClean();
});

test('the seed box keeps what is typed while a sweep streams its rows', async () => {
  const page = await openPage(browser, srv.base);
  await page.goto(`${srv.base}/#/play/high-order-alloc?max_threads=30&seeds=3`);
  await appReady(page);
  await page.waitForSelector(tid('sweep-progress'));
  const seed = page.locator(tid('param-seed'));
  await seed.click();
  await seed.press('Control+a');
  await seed.pressSequentially('4242', { delay: 120 });
  assert.equal(await seed.inputValue(), '4242', 'nothing typed was lost to a redraw');
  await seed.press('Enter');
  await page.waitForFunction(() => /[?&]seed=4242\b/.test(location.hash));
  assert.equal(await seed.inputValue(), '4242');
  page.assertClean();
});

test('a view whose run was refused says so instead of "waiting for the run" for ever', async () => {
  const page = await openPage(browser, srv.base);
  // percpu-counter: text and plot views; page-frag-free: flame graphs.
  for (const url of ['#/play/percpu-counter?sockets=3', '#/play/page-frag-free?pcp_batch=512&pcp_high=8']) {
    await page.goto(`${srv.base}/${url}`);
    await appReady(page);
    await page.waitForSelector('text=/^No run: bad value/', { timeout: 5000 });
    await page.waitForTimeout(1500);
    const waiting = await page.locator('text=/waiting for the run/').count();
    assert.equal(waiting, 0, `${url}: a refused run is not awaited`);
  }
  await shot(page, 'qa-refused-views');
  page.assertClean();
});
