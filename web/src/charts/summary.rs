//! What a chart says in words and to the keyboard, for any chart: its points as numbered
//! lines ([`Lines`], which every [`crate::components::chart::Drawing`] gives beside its
//! picture and its table), a one-sentence summary of the trend ([`summarize`]: where each
//! line starts, ends and peaks, and where two lines cross), the words the chart's live region
//! speaks for one point ([`Lines::announce`]) and how the arrow keys move the cursor over the
//! points ([`Lines::moved`]).
//!
//! Pure (no browser, no experiment: the words come from the chart's own labels), so it is
//! unit-tested natively.

/// A chart's lines as numbers, with the labels of its axes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lines {
    /// The x axis' label as the chart writes it, unit included ("flows (netperf pairs)",
    /// "MTU (bytes)").
    pub x_label: String,
    /// The y axis' label ("Gbit/s", "stack used, max (bytes)", "pages (4 KiB)").
    pub y_label: String,
    /// Names of the x values where the x axis is a row of categories drawn at 0, 1, 2, …
    /// ("64 KiB sends"); empty for a numeric axis.
    pub x_names: Vec<String>,
    pub lines: Vec<Line>,
}

/// One line (or one set of measured markers) of a chart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line {
    pub name: String,
    /// (x, y), finite, x ascending.
    pub points: Vec<(f64, f64)>,
    /// A word on a point, by its index in `points` ("the walk overflowed"); empty: none.
    pub notes: Vec<String>,
    /// Measured points beside the model's lines (a seed post's table): the cursor visits
    /// them, the summary leaves them out.
    pub measured: bool,
    /// The uncertainty bands drawn around the line (the seeds' min-max, the model band): the
    /// live region reads a point's band after its value, as the picture shows it around it.
    pub spreads: Vec<Spread>,
}

/// A band drawn around a line: its name as the announcement says it ("model band", "seeds'
/// spread") and its low and high edge at each x where it is drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spread {
    pub name: String,
    /// (x, lo, hi), finite; an x of the line's points.
    pub at: Vec<(f64, f64, f64)>,
}

impl Spread {
    /// A band of the finite ones of `at`.
    pub fn new(name: impl Into<String>, at: impl IntoIterator<Item = (f64, f64, f64)>) -> Spread {
        let at = at.into_iter().filter(|(x, lo, hi)| x.is_finite() && lo.is_finite() && hi.is_finite()).collect();
        Spread { name: name.into(), at }
    }

    /// The band's (lo, hi) at exactly `x`.
    fn at(&self, x: f64) -> Option<(f64, f64)> {
        self.at.iter().find(|p| p.0 == x).map(|p| (p.1, p.2))
    }
}

impl Line {
    /// A line of the finite ones of `points`, sorted by x.
    pub fn new(name: impl Into<String>, points: impl IntoIterator<Item = (f64, f64)>) -> Line {
        let mut points: Vec<(f64, f64)> = points.into_iter().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        Line { name: name.into(), points, notes: Vec::new(), measured: false, spreads: Vec::new() }
    }

    /// The same points as measured markers (see [`Line::measured`]).
    pub fn measured(self) -> Line {
        Line { measured: true, ..self }
    }

    /// The y at exactly `x`, if the line has a point there.
    fn y_at(&self, x: f64) -> Option<f64> {
        let i = self.points.binary_search_by(|p| p.0.total_cmp(&x)).ok()?;
        Some(self.points[i].1)
    }
}

/// Where the keyboard cursor is: a line and one of its points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub line: usize,
    pub point: usize,
}

/// A key that moves the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// ← / →: the previous / next point of the line.
    Prev,
    Next,
    /// ↑ / ↓: the previous / next line, at the point nearest the same x.
    Up,
    Down,
    /// Home / End: the line's first / last point.
    First,
    Last,
    /// Page Up / Page Down: a tenth of the line back / on.
    PageBack,
    PageOn,
}

impl Key {
    /// The key of a `KeyboardEvent.key`, if it moves the cursor.
    pub fn of(key: &str) -> Option<Key> {
        Some(match key {
            "ArrowLeft" => Key::Prev,
            "ArrowRight" => Key::Next,
            "ArrowUp" => Key::Up,
            "ArrowDown" => Key::Down,
            "Home" => Key::First,
            "End" => Key::Last,
            "PageUp" => Key::PageBack,
            "PageDown" => Key::PageOn,
            _ => return None,
        })
    }
}

/// A number as the sentences write it: whole from 1000 up, else four significant digits
/// without trailing zeros (0.3312, not 0).
pub fn short(v: f64) -> String {
    if !v.is_finite() {
        return "no value".to_string();
    }
    let a = v.abs();
    if a == 0.0 {
        return "0".to_string();
    }
    if a >= 1000.0 {
        return format!("{v:.0}");
    }
    let decimals = (3 - a.log10().floor() as i32).clamp(0, 9) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// "name (unit)" split in two where the parenthesis ends the label and holds one word
/// ("MTU (bytes)"; not "flows (netperf pairs)").
fn unit_of(label: &str) -> Option<(&str, &str)> {
    let label = label.trim();
    let open = label.rfind(" (")?;
    let inner = label[open + 2..].strip_suffix(')')?;
    (!inner.is_empty() && !inner.contains(char::is_whitespace)).then(|| (label[..open].trim(), inner))
}

/// The unit a y value is read in: the label's one-word parenthesis, else the whole label
/// ("0.33 % of all CPU time", "6291456 pages (4 KiB)").
pub fn y_unit(label: &str) -> &str {
    unit_of(label).map_or(label.trim(), |(_, unit)| unit)
}

/// An x value in words, after its axis' label: "MTU 1500 bytes", "9 flows", "1 flow",
/// "8 CPUs online", "MAX_SKB_FRAGS 17", "nesting depth 12".
pub fn x_phrase(label: &str, x: f64) -> String {
    let v = short(x);
    if let Some((name, unit)) = unit_of(label) {
        return [name, &v, unit].iter().filter(|w| !w.is_empty()).copied().collect::<Vec<_>>().join(" ");
    }
    let noun = label.split(" (").next().unwrap_or(label).trim();
    let mut words = noun.split_whitespace();
    match words.next() {
        // A count ("flows", "CPUs online", "sockets"): the number first, singular for one.
        Some(first) if first.len() > 1 && first.ends_with('s') => {
            let first = if x == 1.0 { &first[..first.len() - 1] } else { first };
            [v.as_str(), first].into_iter().chain(words).collect::<Vec<_>>().join(" ")
        }
        Some(_) => format!("{noun} {v}"),
        None => v,
    }
}

/// One sentence on the trend of `lines`: where two lines cross, then per line where it
/// starts, where it ends and its highest point when that lies between. Measured markers are
/// left out (the cursor reads them).
pub fn summarize(lines: &Lines) -> String {
    let main: Vec<&Line> = lines.lines.iter().filter(|l| !l.measured).collect();
    if main.iter().all(|l| l.points.is_empty()) {
        return "No points yet.".to_string();
    }
    // What counts as a change: a share of the span of every line's values (a level far from 0
    // that moves by a thousandth of itself still moves across the chart).
    let ys = || main.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let span = ys().fold(f64::NEG_INFINITY, f64::max) - ys().fold(f64::INFINITY, f64::min);
    let scale = if span > 0.0 { span } else { ys().fold(0.0_f64, |m, y| m.max(y.abs())) };
    let mut parts = crossings(lines, &main);
    parts.extend(main.iter().map(|l| trend(lines, l, scale)));
    format!("{}.", parts.join("; "))
}

/// "order-3 rises from 36.96 Gbit/s at 1 flow to 590.1 Gbit/s at 30 flows, highest …": a
/// line that moves by less than 1 % of `scale` (the chart's span) stays; its highest and
/// lowest points are named where they lie beyond both ends by more than 0.5 % of it.
fn trend(lines: &Lines, l: &Line, scale: f64) -> String {
    let at = |x: f64| lines.x_words(x);
    let unit = y_unit(&lines.y_label);
    let val = |y: f64| format!("{} {unit}", short(y)).trim().to_string();
    let (Some(&(x0, y0)), Some(&(x1, y1))) = (l.points.first(), l.points.last()) else {
        return format!("{} has no points yet", l.name);
    };
    if l.points.len() == 1 {
        return format!("{} is {} at {}", l.name, val(y0), at(x0));
    }
    let (xm, ym) = l.points.iter().copied().fold((x0, y0), |m, p| if p.1 > m.1 { p } else { m });
    let (xn, yn) = l.points.iter().copied().fold((x0, y0), |m, p| if p.1 < m.1 { p } else { m });
    let mut s = if scale == 0.0 || (y1 - y0).abs() < 0.01 * scale {
        format!("{} stays at about {} from {} to {}", l.name, val(y0), at(x0), at(x1))
    } else {
        let verb = if y1 > y0 { "rises" } else { "falls" };
        format!("{} {verb} from {} at {} to {} at {}", l.name, val(y0), at(x0), val(y1), at(x1))
    };
    if ym - y0.max(y1) > 0.005 * scale {
        s.push_str(&format!(", highest {} at {}", val(ym), at(xm)));
    }
    if y0.min(y1) - yn > 0.005 * scale {
        s.push_str(&format!(", lowest {} at {}", val(yn), at(xn)));
    }
    s
}

/// Where two lines cross, at the x they share: "A overtakes B at 9 flows"; a pair that
/// crosses more than three times is counted, and at most four crossings are named.
fn crossings(lines: &Lines, main: &[&Line]) -> Vec<String> {
    const NAMED: usize = 4;
    let mut out = Vec::new();
    for (i, a) in main.iter().enumerate() {
        for b in &main[i + 1..] {
            let found = crossing_points(a, b);
            if found.len() > 3 {
                out.push(format!("{} and {} cross {} times", a.name, b.name, found.len()));
                continue;
            }
            for (x, a_above) in found {
                let (hi, lo) = if a_above { (a, b) } else { (b, a) };
                out.push(format!("{} overtakes {} at {}", hi.name, lo.name, lines.x_words(x)));
            }
        }
    }
    if out.len() > NAMED {
        let more = out.len() - NAMED;
        out.truncate(NAMED);
        out.push(format!("{more} more crossing{}", if more == 1 { "" } else { "s" }));
    }
    out
}

/// The x (shared by both lines) at which `a` and `b` change places, and whether `a` is the
/// one above from there; equal values (within a billionth) change nothing.
fn crossing_points(a: &Line, b: &Line) -> Vec<(f64, bool)> {
    let mut out = Vec::new();
    let mut above: Option<bool> = None;
    for &(x, ya) in &a.points {
        let Some(yb) = b.y_at(x) else { continue };
        let scale = ya.abs().max(yb.abs());
        if scale == 0.0 || (ya - yb).abs() <= 1e-9 * scale {
            continue;
        }
        let now = ya > yb;
        if above.is_some_and(|was| was != now) {
            out.push((x, now));
        }
        above = Some(now);
    }
    out
}

impl Lines {
    /// An x value in words: its category's name, or [`x_phrase`].
    pub fn x_words(&self, x: f64) -> String {
        let name = (x >= 0.0 && x.fract() == 0.0).then(|| self.x_names.get(x as usize)).flatten();
        name.cloned().unwrap_or_else(|| x_phrase(&self.x_label, x))
    }

    /// What the live region says for the point under `c`: "9 flows, order-0 frags (sim),
    /// 512.3 Gbit/s", with each band drawn around the point ("… 722.1 Gbit/s (model band
    /// 690–750 Gbit/s)": a value read without its spread reads as more certain than the chart
    /// shows it) and the point's note, if any.
    pub fn announce(&self, c: Cursor) -> Option<String> {
        let line = self.lines.get(c.line)?;
        let &(x, y) = line.points.get(c.point)?;
        let unit = y_unit(&self.y_label);
        let with_unit = |v: String| format!("{v} {unit}").trim().to_string();
        let mut value = with_unit(short(y));
        let bands: Vec<String> = line
            .spreads
            .iter()
            .filter_map(|b| {
                b.at(x).map(|(lo, hi)| format!("{} {}", b.name, with_unit(format!("{}–{}", short(lo), short(hi)))))
            })
            .collect();
        if !bands.is_empty() {
            value.push_str(&format!(" ({})", bands.join("; ")));
        }
        let mut s = format!("{}, {}, {value}", self.x_words(x), line.name);
        if let Some(note) = line.notes.get(c.point).filter(|n| !n.is_empty()) {
            s.push_str(&format!(", {note}"));
        }
        Some(s)
    }

    /// The (x, y) under `c`.
    pub fn point(&self, c: Cursor) -> Option<(f64, f64)> {
        self.lines.get(c.line)?.points.get(c.point).copied()
    }

    /// Where `key` takes the cursor from `from` (`None`: not placed yet, or its line gone):
    /// lines without points are skipped; `None` if no line has one.
    pub fn moved(&self, from: Option<Cursor>, key: Key) -> Option<Cursor> {
        let filled: Vec<usize> = (0..self.lines.len()).filter(|&i| !self.lines[i].points.is_empty()).collect();
        let last_of = |line: usize| self.lines[line].points.len() - 1;
        let Some(from) = from.filter(|c| filled.contains(&c.line)) else {
            let line = *filled.first()?;
            return Some(Cursor { line, point: if key == Key::Last { last_of(line) } else { 0 } });
        };
        let (line, point) = (from.line, from.point.min(last_of(from.line)));
        let page = (self.lines[line].points.len() / 10).max(1);
        let point = match key {
            Key::Prev => point.saturating_sub(1),
            Key::Next => (point + 1).min(last_of(line)),
            Key::First => 0,
            Key::Last => last_of(line),
            Key::PageBack => point.saturating_sub(page),
            Key::PageOn => (point + page).min(last_of(line)),
            Key::Up | Key::Down => {
                let at = filled.iter().position(|&l| l == line).unwrap_or(0);
                let next = if key == Key::Up { at.checked_sub(1) } else { Some(at + 1) };
                let Some(&to) = next.and_then(|n| filled.get(n)) else { return Some(Cursor { line, point }) };
                let x = self.lines[line].points[point].0;
                let nearest = self.lines[to]
                    .points
                    .iter()
                    .enumerate()
                    .min_by(|a, b| (a.1 .0 - x).abs().total_cmp(&(b.1 .0 - x).abs()));
                return Some(Cursor { line: to, point: nearest.map_or(0, |(i, _)| i) });
            }
        };
        Some(Cursor { line, point })
    }
}

#[cfg(test)]
mod tests;
