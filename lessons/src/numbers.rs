//! Model numbers in lesson text: the placeholder syntax, how a value is printed, and the units
//! a value converts between. No dependencies: `build.rs` includes this file with `#[path]` (it
//! fills the placeholders of the course at build time) and so does the checker.
//!
//! A placeholder is `{metric@settings}`, optionally `{metric[key=value]@settings:format}`:
//! the experiment's `metric` column (in the row whose `key` column equals `value`, for table
//! outputs) when it runs with `settings` (`step`: the step's parameters, and a question's own
//! on top in its prompt and explanation; any other name: that entry of the lesson's
//! `[settings]` table) on the experiment's defaults and the default seed. `format` is the number
//! of decimals (`:1`), a unit to convert to (`:Gbit/s`, same kind as the column's), both
//! (`:1 Gbit/s`), `-` for no unit (`:0 -`), or `abs` for the size without its sign (`:1 abs`).

/// One placeholder, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Placeholder {
    pub metric: String,
    pub row: Option<(String, f64)>,
    /// `step`, or a name of the lesson's `[settings]`.
    pub settings: String,
    pub decimals: Option<usize>,
    /// `None`: the column's; `Some("")`: none.
    pub unit: Option<String>,
    pub abs: bool,
}

/// What a placeholder's value is looked up by: the experiment's column (and row) under a list
/// of `--set` settings applied in order on the experiment's defaults.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NumberKey {
    pub metric: String,
    /// `key=value`, or empty.
    pub row: String,
    /// `name=value,name=value` in the order they apply.
    pub settings: String,
}

impl NumberKey {
    pub fn new(metric: &str, row: &Option<(String, f64)>, settings: &[(String, String)]) -> NumberKey {
        let row = row.as_ref().map_or(String::new(), |(k, v)| format!("{k}={}", fmt_value(*v)));
        let settings: Vec<String> = settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        NumberKey { metric: metric.to_string(), row, settings: settings.join(",") }
    }

    /// The row as `metric` looks it up.
    pub fn row_key(&self) -> Option<(String, f64)> {
        let (k, v) = self.row.split_once('=')?;
        Some((k.to_string(), v.parse().ok()?))
    }

    /// The settings as `--set` pairs.
    pub fn settings_list(&self) -> Vec<(String, String)> {
        let pairs = self.settings.split(',').filter(|s| !s.is_empty());
        pairs.filter_map(|s| s.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }
}

/// A model value as stored in `lessons/numbers.tsv`: the value and its column's unit.
#[derive(Debug, Clone, PartialEq)]
pub struct NumberValue {
    pub value: f64,
    pub unit: String,
}

/// The first line of `lessons/numbers.tsv`.
pub const NUMBERS_HEADER: &str = "# Generated from the model by the lessons checker (SKBLAB_UPDATE_NUMBERS=1 cargo test -p skblab-lessons --test numbers); do not edit.";

/// `lessons/numbers.tsv`: one line per model number the lesson text uses,
/// `lesson \t metric \t row \t settings \t unit \t value`.
pub fn parse_numbers_tsv(text: &str) -> Result<Vec<(String, NumberKey, NumberValue)>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let value = f.get(5).and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite());
        let (Some(value), 6) = (value, f.len()) else {
            return Err(format!("lessons/numbers.tsv line {}: not lesson, metric, row, settings, unit, value", i + 1));
        };
        let key = NumberKey { metric: f[1].into(), row: f[2].into(), settings: f[3].into() };
        out.push((f[0].to_string(), key, NumberValue { value, unit: f[4].to_string() }));
    }
    Ok(out)
}

/// The lines of `lessons/numbers.tsv` for `entries`, sorted.
pub fn numbers_tsv(entries: &[(String, NumberKey, NumberValue)]) -> String {
    let mut lines: Vec<String> = entries
        .iter()
        .map(|(slug, k, v)| format!("{slug}\t{}\t{}\t{}\t{}\t{:?}", k.metric, k.row, k.settings, v.unit, v.value))
        .collect();
    lines.sort();
    lines.dedup();
    lines.insert(0, NUMBERS_HEADER.to_string());
    lines.join("\n") + "\n"
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'
}

/// Every placeholder of `text` as (byte range, parsed or the problem). A placeholder is a `{`
/// followed by a lowercase name and then `@`, `[`, `:` or `}`; other braces are text (C code,
/// `sk_{tr}x` names written with a capital or a symbol after the brace are not affected, but
/// `{answer}` is reported with the problem "not a model number").
pub fn placeholders(text: &str) -> Vec<(std::ops::Range<usize>, Result<Placeholder, String>)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find('{').map(|i| from + i) {
        let name_end = text[i + 1..].find(|c: char| !is_name_char(c)).map_or(text.len(), |j| i + 1 + j);
        // `{answer}` is the page's (see grade.rs), filled when the explanation is shown.
        let answer = &text[i + 1..name_end] == "answer" && text[name_end..].starts_with('}');
        let opens = name_end > i + 1 && !answer && text[name_end..].starts_with(['@', '[', ':', '}']);
        let close = text[i..].find('}').map(|j| i + j);
        match (opens, close) {
            (true, Some(end)) => {
                found.push((i..end + 1, parse_placeholder(&text[i + 1..end])));
                from = end + 1;
            }
            (true, None) => {
                found.push((i..text.len(), Err("a placeholder without its closing `}`".to_string())));
                break;
            }
            (false, _) => from = i + 1,
        }
    }
    found
}

fn parse_placeholder(inner: &str) -> Result<Placeholder, String> {
    let bad = |why: &str| {
        format!("placeholder {{{inner}}}: {why} (write {{metric@settings}} or {{metric[key=value]@settings:format}})")
    };
    let (head, format) = inner.split_once(':').unwrap_or((inner, ""));
    let (target, settings) = head.split_once('@').ok_or_else(|| bad("no @settings"))?;
    let (metric, row) = match target.split_once('[') {
        None => (target, None),
        Some((metric, row)) => {
            let row = row.strip_suffix(']').ok_or_else(|| bad("the row has no closing `]`"))?;
            let (k, v) = row.split_once('=').ok_or_else(|| bad("the row is not key=value"))?;
            let v: f64 = v.parse().map_err(|_| bad("the row's value is not a number"))?;
            (metric, Some((k.to_string(), v)))
        }
    };
    let names_ok = [metric, settings].iter().all(|n| !n.is_empty() && n.chars().all(is_name_char));
    if !names_ok {
        return Err(bad("metric and settings are lowercase names"));
    }
    let (mut decimals, mut unit, mut abs) = (None, None, false);
    for part in format.split_whitespace() {
        match part {
            "abs" => abs = true,
            "-" => unit = Some(String::new()),
            p if p.chars().all(|c| c.is_ascii_digit()) => {
                decimals = Some(p.parse::<usize>().ok().filter(|d| *d <= 6).ok_or_else(|| bad("decimals are 0 to 6"))?)
            }
            p => unit = Some(p.to_string()),
        }
    }
    Ok(Placeholder { metric: metric.into(), row, settings: settings.into(), decimals, unit, abs })
}

impl Placeholder {
    /// The text the placeholder stands for, given its model value: the number (the page's
    /// rounding, or `decimals`; thousands grouped from 10,000) and the unit, converted to the
    /// placeholder's unit if it names one. `Err` if the units are not of one kind.
    pub fn render(&self, v: &NumberValue) -> Result<String, String> {
        let unit = self.unit.clone().unwrap_or_else(|| v.unit.clone());
        let factor = if unit.is_empty() { Some(1.0) } else { unit_factor(&v.unit, &unit) };
        let factor = factor.ok_or_else(|| format!("{} is in {}, not convertible to {unit}", self.metric, v.unit))?;
        let x = if self.abs { (v.value * factor).abs() } else { v.value * factor };
        let number = match self.decimals {
            Some(d) => group_thousands(&format!("{:.d$}", x + 0.0)),
            None => group_thousands(&fmt_value(x)),
        };
        // A rounding to zero keeps no minus sign ("-0.0").
        let number = if number.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
            number.trim_start_matches('-').to_string()
        } else {
            number
        };
        Ok(if unit.is_empty() { number } else { format!("{number} {unit}") })
    }
}

/// `12345.6` as `12,345.6`; below 10,000 unchanged (as the lessons write numbers).
fn group_thousands(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int, frac) = rest.split_once('.').map_or((rest, None), |(i, f)| (i, Some(f)));
    if int.len() < 5 {
        return s.to_string();
    }
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// A model value as the page prints it: whole numbers as they are, others with two decimals,
/// or two significant digits below 0.1 (0.045 % must not read as 0.04 %, nor 0.003 as 0.00).
pub fn fmt_value(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else if v.abs() < 0.1 {
        let decimals = (1 - v.abs().log10().floor() as i32).clamp(2, 9) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.2}")
    }
}

/// The powers of ten and two an answer's unit may carry, by unit family: bit rates, bytes and
/// plain multipliers. Names are matched case-insensitively.
const UNIT_SCALES: &[(&str, f64)] = &[
    ("bit/s", 1.0),
    ("kbit/s", 1e3),
    ("mbit/s", 1e6),
    ("gbit/s", 1e9),
    ("tbit/s", 1e12),
    ("b", 1.0),
    ("byte", 1.0),
    ("bytes", 1.0),
    ("kb", 1e3),
    ("mb", 1e6),
    ("gb", 1e9),
    ("kib", 1024.0),
    ("mib", 1_048_576.0),
    ("gib", 1_073_741_824.0),
];

/// The family of a unit name: rates and sizes convert within their family only.
pub fn unit_family(name: &str) -> Option<&'static str> {
    match name {
        n if n.ends_with("bit/s") => Some("rate"),
        "b" | "byte" | "bytes" | "kb" | "mb" | "gb" | "kib" | "mib" | "gib" => Some("size"),
        _ => None,
    }
}

pub fn unit_scale(name: &str) -> Option<f64> {
    UNIT_SCALES.iter().find(|(n, _)| *n == name).map(|u| u.1)
}

/// What a value in unit `from` is multiplied by to be in unit `to` (same family only).
pub fn unit_factor(from: &str, to: &str) -> Option<f64> {
    let (from, to) = (from.to_ascii_lowercase(), to.to_ascii_lowercase());
    if from == to {
        return Some(1.0);
    }
    match (unit_scale(&from), unit_scale(&to), unit_family(&from), unit_family(&to)) {
        (Some(a), Some(b), Some(fa), Some(fb)) if fa == fb => Some(a / b),
        _ => None,
    }
}
