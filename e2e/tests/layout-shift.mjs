// The e2e harness's layout-shift reader: `watchLayoutShift(page)` before the page loads records
// every `layout-shift` entry; `cls(page)` scores them as the browser's Cumulative Layout Shift
// (the largest session window: entries without recent input, less than 1 s apart, the window at
// most 5 s long) and `shifts(page)` lists them with the elements that moved.

/** Records the page's layout shifts from its first paint (call before `goto`). */
export async function watchLayoutShift(page) {
  await page.context().addInitScript(() => {
    window.skblabShifts = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (e.hadRecentInput) continue;
        const moved = (e.sources || []).map((s) => {
          const n = s.node;
          const name = n?.nodeType === 1 ? `${n.tagName.toLowerCase()}${n.className ? `.${String(n.className).trim().split(/\s+/).join('.')}` : ''}` : String(n?.nodeName);
          return `${name} ${Math.round(s.previousRect.y)}→${Math.round(s.currentRect.y)} h${Math.round(s.previousRect.height)}→${Math.round(s.currentRect.height)}`;
        });
        window.skblabShifts.push({ t: e.startTime, value: e.value, moved });
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
}

/** The page's CLS so far. */
export async function cls(page) {
  return page.evaluate(() => {
    let best = 0;
    let sum = 0;
    let start = -Infinity;
    let last = -Infinity;
    for (const { t, value } of window.skblabShifts || []) {
      if (t - last > 1000 || t - start > 5000) {
        sum = 0;
        start = t;
      }
      sum += value;
      last = t;
      best = Math.max(best, sum);
    }
    return best;
  });
}

/** The shifts recorded so far: time, score, what moved. */
export async function shifts(page) {
  return page.evaluate(() => window.skblabShifts || []);
}
