// A link to a step or lesson that does not exist, on a first visit (the loader's pre-rendered
// first view is on): the loader asks the server for no copy that is not there (index.html's
// `skblab-first` list, scripts/first-list.mjs), so the console stays clean and no request
// fails; the app says what is wrong with the link. The service worker is registered by its
// absolute path.
import test from 'node:test';
import assert from 'node:assert/strict';
import { openPage, serverAndBrowser, tid } from './harness.mjs';

const ctx = serverAndBrowser();

for (const [hash, said] of [
  ['#/lesson/skb-layout/99', /bad step '99': lesson 'skb-layout' has steps 1 to \d+/],
  ['#/lesson/skb-layout/0', /bad step '0'/],
  ['#/lesson/nope/2', /unknown lesson 'nope'/],
]) {
  test(`${hash}: no failed request, no console error, and the app says why`, async () => {
    const page = await openPage(ctx.browser, ctx.srv.base, { first: true });
    const failed = [];
    page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
    page.on('requestfailed', (r) => failed.push(`failed: ${r.url()}`));
    await page.goto(`${ctx.srv.base}/${hash}`);
    await page.waitForSelector(tid('notice'), { timeout: 20000 });
    assert.match(await page.locator(tid('notice')).innerText(), said);
    const sw = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.ready;
      return (r.active || r.installing || r.waiting)?.scriptURL;
    });
    assert.equal(sw, `${ctx.srv.base}/sw.js`);
    await page.waitForTimeout(500);
    assert.deepEqual(failed, []);
    page.assertClean();
    await page.context().close();
  });
}

test('a step that exists still draws its pre-rendered copy', async () => {
  const page = await openPage(ctx.browser, ctx.srv.base, { first: true });
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  await page.goto(`${ctx.srv.base}/#/lesson/skb-layout/2`);
  await page.waitForSelector('#first, main', { timeout: 20000 });
  assert.ok(asked.some((p) => /^\/first\/skb-layout-2-wide-light\.html$/.test(p)), asked.join(' '));
  page.assertClean();
  await page.context().close();
});
