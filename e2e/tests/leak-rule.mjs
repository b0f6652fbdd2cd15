// The leak rule of e2e/tests/leaks.test.mjs (its header says what gives an answer away), shared
// with the course walk (e2e/walk/walk.mjs).

/** Units the pages write, by kind, each with its factor to the kind's base unit. */
const UNITS = {
  'Gbit/s': ['rate', 1e9], 'Mbit/s': ['rate', 1e6], 'kbit/s': ['rate', 1e3],
  Mpps: ['pps', 1e6], kpps: ['pps', 1e3],
  '%': ['share', 1e-2],
  ns: ['time', 1e-9], 'µs': ['time', 1e-6], us: ['time', 1e-6], ms: ['time', 1e-3],
  bytes: ['size', 1], B: ['size', 1], KiB: ['size', 1024], MiB: ['size', 1048576], GiB: ['size', 1073741824],
};
const UNIT_RE = Object.keys(UNITS).sort((a, b) => b.length - a.length).map((u) => u.replace(/[/%]/g, (c) => `\\${c}`)).join('|');

const parse = (s) => Number(s.replace(/,/g, '').replace('−', '-'));
const significant = (s) => s.replace(/[^\d]/g, '').replace(/^0+/, '').replace(/0+$/, '').length;

/**
 * Every number in `text` that gives `answer` ({value, unit}) away at `tolerancePct` (see the
 * header), with its context.
 */
export const givenAway = (text, answer, tolerancePct) => {
  const a = parse(answer.value);
  const kind = UNITS[answer.unit];
  const hits = [];
  // The answer's own unit word when it is not one of UNITS ("levels": also "level").
  const word = !kind && /^[a-z]+$/i.test(answer.unit) ? answer.unit.replace(/s$/, '') : null;
  const WORD_RE = word ? String.raw`|(?:[A-Za-z-]+ )?${word}s?` : '';
  const re = new RegExp(String.raw`(?<![\w.,\/-])[-−]?\d[\d,]*(?:\.\d+)?(?![\w]|[.,]\d)(?:[\s\u00a0]{0,3}(${UNIT_RE}${WORD_RE})(?![\w]))?`, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const before = text.slice(Math.max(0, m.index - 8), m.index);
    if (/(Linux|kernel|v)\s?$/i.test(before)) continue;
    const number = m[0].slice(0, m[0].length - (m[1] ? m[1].length : 0)).trim();
    const x = parse(number);
    let near = significant(number) >= 2 && x === a && number.replace(/,/g, '') === answer.value.replace(/,/g, '');
    if (!near && kind && m[1] && UNITS[m[1]][0] === kind[0]) {
      const inAnswerUnit = x * UNITS[m[1]][1] / kind[1];
      near = Math.abs(inAnswerUnit - a) <= Math.abs(a) * tolerancePct / 100 && (significant(number) >= 2 || inAnswerUnit === a);
    }
    if (!near && word && m[1] && !UNITS[m[1]]) {
      near = Math.abs(x - a) <= Math.abs(a) * tolerancePct / 100;
    }
    if (!near && answer.unit === '%' && !m[1] && x > 0 && x < 1 && significant(number) >= 2) {
      near = Math.abs(x * 100 - a) <= Math.abs(a) * tolerancePct / 100;
    }
    if (near) hits.push(`"${m[0]}" …${text.slice(Math.max(0, m.index - 70), m.index + 30)}…`);
  }
  return hits;
};

/**
 * What a reader can see before answering, as one string: of the page, or of `html` (a
 * pre-rendered copy) when given. It runs in the page (`page.evaluate(readable, html)`), so it
 * uses nothing from this module.
 */
export function readable(html) {
  const main = html ? new DOMParser().parseFromString(html, 'text/html').body : document.querySelector('main');
  const hidden = (el) => !el || el.closest(
    '.veil-content, [inert], [hidden], [aria-hidden="true"], [data-testid="verdict"], [data-testid="grade"], [data-testid="param-panel"], [data-testid="question"]');
  const parts = [html ? '' : document.title];
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!hidden(n.parentElement)) parts.push(n.textContent);
  }
  for (const el of main.querySelectorAll('[aria-label], [title]')) {
    if (!hidden(el)) parts.push(el.getAttribute('aria-label') || '', el.getAttribute('title') || '');
  }
  return parts.join(' | ').replace(/\s+/g, ' ');
}
