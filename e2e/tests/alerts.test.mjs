//! One alert region per problem: settings an experiment refuses are
//! announced once, by the parameter panel, not again by every view's progress line; and the
//! cosmetic findings of 8: a step written `+2` is named as written, and a query on a page that
//! takes none (`#/about?x=…`) is dropped with a notice, like a bad parameter elsewhere.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, appReady, serverAndBrowser, tid } from './harness.mjs';

const ctx = serverAndBrowser();

/** The texts of every role="alert" region on the page. */
const alerts = (page) => page.$$eval('[role="alert"]', (els) => els.map((e) => e.innerText.trim()));

for (const url of ['#/play/high-order-alloc?cpus=57', '#/play/percpu-counter?cpus=27']) {
  test(`${url}: one alert region for one problem`, async () => {
    const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
    await page.goto(`${ctx.srv.base}/${url}`);
    await appReady(page);
    await page.waitForSelector('[role="alert"]');
    // Every view has drawn its progress line (a refused run is refused at once).
    await page.waitForTimeout(1000);
    const texts = await alerts(page);
    assert.equal(texts.length, 1, `one alert, got ${texts.length}: ${JSON.stringify(texts)}`);
    assert.equal(new Set(texts).size, texts.length, 'no two alerts say the same');
    page.assertClean();
  });
}

test('a step written "+2" is named as written, and not taken for step 2', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  await page.goto(`${ctx.srv.base}/#/lesson/skb-layout/+2`);
  await page.waitForSelector(tid('notice'));
  const notice = await page.locator(tid('notice')).innerText();
  assert.match(notice, /bad step '\+2'/, notice);
  assert.equal(await page.locator(tid('step-title')).count(), 1);
  assert.match(page.url(), /#\/lesson\/skb-layout\/1\b/, 'the URL shows the step shown');
  page.assertClean();
});

test('a query on a page that takes none is dropped with a notice', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { serviceWorkers: 'block' });
  for (const [hash, canonical, ready] of [
    ['#/about?x=%E2%80%A6', '#/about', tid('seed-sources')],
    ['#/?step=2', '#/', 'a[href^="#/lesson/"]'],
  ]) {
    await page.goto(`${ctx.srv.base}/${hash}`);
    await page.waitForSelector(ready);
    await page.waitForSelector(tid('notice'));
    assert.match(await page.locator(tid('notice')).innerText(), /takes no URL parameters; ignored '(x|step)'/);
    await page.waitForFunction((c) => location.hash === c, canonical);
  }
  page.assertClean();
});
