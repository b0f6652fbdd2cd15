//! The model numbers of the lesson text (docs/lesson-format.md, "Model numbers in the text"):
//! `lessons/numbers.tsv` holds what `skblab run` gives for every placeholder, and no number
//! the model computes is typed in a step's title, text, prompt, hint or explanation.

use skblab_core::{find, Experiment, DEFAULT_SEED};
use skblab_lessons::{apply_settings, index, lesson, numbers::*, QuestionKind, Runs, Status};
use std::path::Path;

mod model {
    pub use skblab_lessons::{Claim, HowWeKnow, IndexEntry, Lesson, Question, QuestionKind, Status, Step};
}
mod numbers {
    pub use skblab_lessons::numbers::*;
}
#[path = "common/cited.rs"]
mod cited;
#[path = "../src/format.rs"]
#[expect(dead_code, reason = "the whole course's parse is tests/check.rs's")]
mod format;
#[path = "common/quantities.rs"]
mod quantities;
#[path = "common/text.rs"]
mod text;
use cited::CITED_NUMBERS;

fn source(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Each written lesson: its experiment, its source text, and the keys of its placeholders
/// (all, and by step those shown before the step's question is answered).
fn written() -> Vec<(String, &'static dyn Experiment, String, format::LessonKeys)> {
    let numbers = format::read_numbers(&source("numbers.tsv")).unwrap();
    let mut out = Vec::new();
    for e in index().iter().filter(|e| e.status == Status::Written) {
        let text = source(&format::content_path(&e.slug));
        let (_, keys) = format::parse_lesson_keys(&e.slug, &e.experiment, &text, &numbers)
            .unwrap_or_else(|err| panic!("content/{}.md: {err}", e.slug));
        out.push((e.slug.clone(), find(&e.experiment).unwrap(), text, keys));
    }
    out
}

/// The value of `key` as `skblab run <experiment> --set name=value …` computes it (the
/// CLI's `run_command`: `params_from` the `--set` settings, the default seed), with its
/// column's unit.
fn model_value(runs: &mut Runs, exp: &dyn Experiment, key: &NumberKey) -> Result<NumberValue, String> {
    let sets: Vec<String> = key.settings_list().iter().map(|(k, v)| format!("{k}={v}")).collect();
    let params = exp.params_from(&sets).map_err(|e| format!("--set {}: {e}", sets.join(" --set ")))?;
    let unit = exp.columns(&params).into_iter().find(|c| c.name == key.metric).map(|c| c.unit);
    let unit = unit.ok_or_else(|| format!("no column '{}' in {}'s output", key.metric, exp.id()))?;
    let row = key.row_key();
    let out = runs.output(exp, &params, DEFAULT_SEED);
    let value = out.metric(&key.metric, row.as_ref().map(|(k, v)| (k.as_str(), *v)));
    let value = value.ok_or_else(|| format!("no value of '{}' in row '{}'", key.metric, key.row))?;
    Ok(NumberValue { value, unit })
}

/// numbers.tsv is what the model gives, for exactly the placeholders of the text. With
/// `SKBLAB_UPDATE=1` (the one regeneration switch of every generated file; the older
/// `SKBLAB_UPDATE_NUMBERS=1` still works) the test writes it instead (then rebuild: the build
/// fills the text from it). A refit that moves a number fails here until the table is written
/// again.
#[test]
fn the_numbers_table_is_what_skblab_run_gives() {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (slug, exp, _, (keys, _)) in written() {
        let mut runs = Runs::new();
        for key in keys {
            match model_value(&mut runs, exp, &key) {
                Ok(v) => entries.push((slug.clone(), key, v)),
                Err(e) => problems.push(format!("content/{slug}.md: {{{}@…}} ({}): {e}", key.metric, key.settings)),
            }
        }
    }
    assert!(problems.is_empty(), "placeholders the model cannot fill:\n{}", problems.join("\n"));
    let want = numbers_tsv(&entries);
    let have = source("numbers.tsv");
    let update = ["SKBLAB_UPDATE", "SKBLAB_UPDATE_NUMBERS"].iter().any(|v| std::env::var_os(v).is_some());
    if want != have && update {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("numbers.tsv");
        std::fs::write(&path, &want).unwrap();
        eprintln!("wrote {}: rebuild to fill the text", path.display());
        return;
    }
    let stale: Vec<&str> = have.lines().filter(|l| !want.lines().any(|w| w == *l)).collect();
    let missing: Vec<&str> = want.lines().filter(|l| !have.lines().any(|h| h == *l)).collect();
    assert!(
        want == have,
        "lessons/numbers.tsv is not the model's (run SKBLAB_UPDATE=1 cargo test -p skblab-lessons --test numbers, then rebuild)\nstale or unused:\n{}\nmissing:\n{}",
        stale.join("\n"),
        missing.join("\n")
    );
}

/// The compiled course shows a value for every placeholder: none is left as written, and
/// none lacks a value.
#[test]
fn every_placeholder_of_the_compiled_course_is_filled() {
    for l in index().iter().filter_map(|e| lesson(&e.slug)) {
        for (i, s) in l.steps.iter().enumerate() {
            let q = s.question.as_ref();
            let texts = [
                Some(&s.title),
                Some(&s.body_html),
                q.map(|q| &q.prompt),
                q.map(|q| &q.hint),
                q.map(|q| &q.explanation),
            ];
            for t in texts.into_iter().flatten() {
                assert!(
                    !t.contains(format::NO_VALUE),
                    "content/{}.md step {}: a placeholder without a value",
                    l.slug,
                    i + 1
                );
                assert!(placeholders(t).is_empty(), "content/{}.md step {}: placeholder left in {t}", l.slug, i + 1);
            }
            let answer_outside =
                [&s.title, &s.body_html].into_iter().chain(q.map(|q| &q.prompt)).chain(q.map(|q| &q.hint));
            for t in answer_outside {
                assert!(
                    !t.contains("{answer}"),
                    "content/{}.md step {}: {{answer}} outside an explanation",
                    l.slug,
                    i + 1
                );
            }
        }
    }
}

#[test]
fn placeholders_parse_and_render_with_rounding_and_unit() {
    let p = |t: &str| placeholders(t).into_iter().map(|(_, p)| p).collect::<Vec<_>>();
    let v = NumberValue { value: 260_571.4, unit: "Mbit/s".into() };
    let one = |t: &str| p(t).remove(0).unwrap().render(&v).unwrap();
    assert_eq!(one("{mbps@step}"), "260,571.40 Mbit/s");
    assert_eq!(one("{mbps@step:0}"), "260,571 Mbit/s");
    assert_eq!(one("{mbps@off:1 Gbit/s}"), "260.6 Gbit/s");
    assert_eq!(one("{mbps[flows=8]@off:0 -}"), "260,571");
    let neg = NumberValue { value: -1.13, unit: "%".into() };
    assert_eq!(p("{gain_pct@rps:1 abs}")[0].clone().unwrap().render(&neg).unwrap(), "1.1 %");
    assert_eq!(p("{gain_pct@rps:0}")[0].clone().unwrap().render(&neg).unwrap(), "-1 %");
    let tiny = NumberValue { value: -0.04, unit: "%".into() };
    assert_eq!(p("{gain_pct@rps:1}")[0].clone().unwrap().render(&tiny).unwrap(), "0.0 %");
    let row = p("{mbps[flows=8]@off}")[0].clone().unwrap().row;
    assert_eq!(row, Some(("flows".to_string(), 8.0)));
    // Not placeholders: C code, the page's {answer}, a brace before a capital or a symbol.
    assert!(p("if (x) { y(); } {answer} sk_{Tr}x {-1}").is_empty());
    for bad in ["{mbps}", "{mbps@}", "{mbps[flows]@off}", "{mbps@off:9}", "{Mbps@off", "{mbps@off"] {
        let found = p(bad);
        assert!(found.is_empty() || found[0].is_err(), "{bad}: {found:?}");
    }
    assert!(p("{mbps@off:1 Gbit/s}")[0]
        .clone()
        .unwrap()
        .render(&NumberValue { value: 1.0, unit: "%".into() })
        .is_err());
}

/// A placeholder naming settings the lesson does not define fails the build (and this parse).
#[test]
fn unknown_settings_are_an_error_naming_the_step() {
    let text = source("content/skb-cache.md").replacen("## The slow path", "## The slow path\n\n{mpps@nowhere}", 1);
    let err = format::parse_lesson("skb-cache", "skb-cache", &text, &format::Numbers::new()).unwrap_err();
    assert!(err.contains("step 2") && err.contains("no settings 'nowhere'"), "{err}");
}

/// A step's shown text without code (kernel source, names) and tags: what the scan reads.
fn prose_of_html(html: &str) -> String {
    let mut text = html.to_string();
    for (open, close) in [("<pre", "</pre>"), ("<code>", "</code>")] {
        while let Some(a) = text.find(open) {
            let b = text[a..].find(close).map_or(text.len(), |i| a + i + close.len());
            text.replace_range(a..b, " ");
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
}

/// Every value the lesson's runs compute (its steps', questions', claims' and placeholders'
/// settings), with its column's unit, but not the columns that echo a parameter: a setting
/// written in the text is an input, not a result.
fn model_values(runs: &mut Runs, exp: &dyn Experiment, l: &model::Lesson, keys: &[NumberKey]) -> Vec<ModelValue> {
    let mut settings: Vec<Vec<(String, String)>> = Vec::new();
    for s in &l.steps {
        settings.push(s.params.clone());
        if let Some(q) = &s.question {
            settings.push(s.params.iter().chain(&q.params).cloned().collect());
        }
    }
    settings.extend(l.claims.iter().map(|c| c.params.clone()));
    settings.extend(keys.iter().map(NumberKey::settings_list));
    let inputs: Vec<&str> = exp.specs().iter().map(|s| s.name).collect();
    let mut values = Vec::new();
    for set in settings {
        let sets: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let Ok(params) = exp.params_from(&sets) else { continue };
        let out = runs.output(exp, &params, DEFAULT_SEED);
        // A table's first column is its sweep's key (threads, CPUs, sockets): an input too.
        let key = usize::from(out.rows.len() > 1);
        for (i, c) in out.columns.iter().enumerate().skip(key).filter(|(_, c)| !inputs.contains(&c.name.as_str())) {
            for row in &out.rows {
                if let Some(v) = row[i].as_f64().filter(|v| *v != 0.0 && v.is_finite()) {
                    let what = format!("{} at {}", c.name, sets.join(" "));
                    values.push(ModelValue { value: v, unit: c.unit.clone(), what });
                }
            }
        }
    }
    values
}

struct ModelValue {
    value: f64,
    unit: String,
    what: String,
}

impl ModelValue {
    /// What a number written one unit up reads as: a bit rate in the next unit up (Gbit/s of a
    /// Mbit/s column), a size in KiB of a bytes column; counts and percentages have no unit up.
    fn scales(&self) -> &'static [f64] {
        match unit_family(&self.unit.to_ascii_lowercase()) {
            Some("rate") => &[1.0, 1e-3],
            Some("size") => &[1.0, 1.0 / 1024.0],
            _ => &[1.0],
        }
    }
}

/// The integer parameters of a run at `settings` as it really runs (presets resolved): the
/// page size, MTU, frag size, CPUs a step sets or its preset implies. A number of the step's
/// text equal to one of them (or to one in KiB, written "N KiB") is an input the text states,
/// not a result.
fn inputs_at(exp: &dyn Experiment, settings: &[(String, String)]) -> Vec<f64> {
    let sets: Vec<String> = settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let Ok(params) = exp.params_from(&sets) else { return Vec::new() };
    let resolved = exp.resolve(&params);
    let ints = resolved.iter().filter_map(|(_, v)| match v {
        skblab_core::Value::Int(i) if *i != 0 => Some(*i as f64),
        _ => None,
    });
    ints.collect()
}

/// A number of the text that is a model value: within the rounding of its last written digit
/// or 1 % of the value, also one unit up (see [`ModelValue::scales`]) if it has two digits or
/// more. One-digit integers count only when written as a quantity of the value's unit
/// ([`one_digit_model_numbers`]); years (four digits from 1990 to 2030) and the step's
/// `inputs` are left out.
fn typed_model_numbers(text: &str, values: &[ModelValue], inputs: &[f64]) -> Vec<(String, String)> {
    let numbers = text::numbers_in(text).into_iter().filter(|(w, _)| w.starts_with(|c: char| c.is_ascii_digit()));
    let mut typed = one_digit_model_numbers(text, values, inputs);
    typed.extend(numbers.filter_map(|(written, w)| {
        let decimals = written.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
        let year = decimals == 0 && written.len() == 4 && (1990.0..=2030.0).contains(&w);
        let input = inputs.contains(&w) || (text.contains(&format!("{written} KiB")) && inputs.contains(&(w * 1024.0)));
        if (decimals == 0 && w < 10.0) || year || input {
            return None;
        }
        let digits = written.chars().filter(char::is_ascii_digit).skip_while(|c| *c == '0').count();
        let half = 0.5 * 10f64.powi(-decimals);
        values.iter().find_map(|m| {
            let scales = if digits >= 2 { m.scales() } else { &[1.0] };
            let near = scales.iter().any(|s| (w - (m.value * s).abs()).abs() <= half.max(0.01 * (m.value * s).abs()));
            near.then(|| (written.clone(), format!("{} = {}", m.what, m.value)))
        })
    }));
    typed
}

/// The one-digit integers of the text written as a quantity ([`quantities::one_digit_quantities`]:
/// "about 2 %", "over 2 nesting levels", "two levels") whose noun is a model value's unit
/// (without case or plural `s`, [`quantities::noun_of`]), within 0.5 of the value (1 % above
/// 50), the sign left out. Not one unit up: 2 Gbit/s would stand for anything from 1,500 to
/// 2,500 Mbit/s. The step's `inputs` are left out.
fn one_digit_model_numbers(text: &str, values: &[ModelValue], inputs: &[f64]) -> Vec<(String, String)> {
    let mut typed = Vec::new();
    for q in quantities::one_digit_quantities(text).into_iter().filter(|q| !inputs.contains(&q.value)) {
        let hit = values.iter().find_map(|m| {
            let unit_noun = quantities::noun_of(&m.unit)?;
            let noun = q.nouns.iter().find(|noun| quantities::noun_of(noun).as_ref() == Some(&unit_noun))?;
            let v = m.value.abs();
            ((q.value - v).abs() <= 0.5f64.max(0.01 * v)).then(|| (format!("{} {noun}", q.written), m))
        });
        if let Some((written, m)) = hit {
            typed.push((written, format!("{} = {} {}", m.what, m.value, m.unit)));
        }
    }
    typed
}

/// The lessons whose text the scan below covers: those whose model numbers are placeholders.
/// Every lesson belongs here; the others still type numbers of the model.
const SCANNED: &[&str] = &[
    "skb-cache",
    "high-order-alloc",
    "page-frag-free",
    "cross-cpu-free",
    "percpu-counter",
    "skb-layout",
    "ktls-recursion",
];

/// No model number is typed in a step's title, text, prompt, hint or explanation: it is a
/// placeholder, cited ([`CITED_NUMBERS`]), or one of the step's inputs ([`inputs_at`]).
#[test]
fn no_model_number_is_typed_in_the_text() {
    let (mut typed, mut needed) = (Vec::new(), Vec::new());
    for (slug, exp, text, (keys, _)) in written().into_iter().filter(|w| SCANNED.contains(&w.0.as_str())) {
        // Parsed without values: placeholders show as NO_VALUE, which has no digits.
        let l = format::parse_lesson(&slug, exp.id(), &text, &format::Numbers::new()).unwrap();
        let values = model_values(&mut Runs::new(), exp, &l, &keys);
        for (i, s) in l.steps.iter().enumerate() {
            let q = s.question.as_ref();
            let mut inputs = inputs_at(exp, &s.params);
            if let Some(q) = q {
                inputs.extend(inputs_at(exp, &s.params.iter().chain(&q.params).cloned().collect::<Vec<_>>()));
            }
            let explanation = q.map(|q| q.explanation.replace("{answer}", " "));
            let parts = [
                Some(s.title.clone()),
                Some(prose_of_html(&s.body_html)),
                q.map(|q| q.prompt.clone()),
                q.map(|q| q.hint.clone()),
                explanation,
            ];
            for mut part in parts.into_iter().flatten() {
                for (_, cited, _) in CITED_NUMBERS.iter().filter(|(s, _, _)| *s == slug) {
                    if part.contains(cited) {
                        needed.push(*cited);
                        part = part.replace(cited, " ");
                    }
                }
                for (written, what) in typed_model_numbers(&part, &values, &inputs) {
                    typed.push(format!("content/{slug}.md step {}: '{written}' is {what}", i + 1));
                }
            }
        }
    }
    assert!(typed.is_empty(), "model numbers typed in the text (write a placeholder, or cite):\n{}", typed.join("\n"));
    let stale: Vec<&str> = CITED_NUMBERS.iter().map(|(_, c, _)| *c).filter(|c| !needed.contains(c)).collect();
    assert!(stale.is_empty(), "CITED_NUMBERS entries no step needs: {stale:?}");
}

/// A placeholder shown before a step's question is answered (in its title, text, prompt or hint)
/// does not show the answer: its value is not within the question's tolerance of the answer
/// (the sign left out, in the answer's unit where the two convert; a choice's answer read as
/// a number, exactly).
#[test]
fn no_placeholder_shows_the_answer_before_it_is_given() {
    let numbers = format::read_numbers(&source("numbers.tsv")).unwrap();
    let mut shown = Vec::new();
    for (slug, exp, _, (_, before_answer)) in written() {
        let l = lesson(&slug).unwrap();
        let mut runs = Runs::new();
        for (i, key) in before_answer {
            let Some(q) = l.steps[i].question.as_ref() else { continue };
            let Some(v) = numbers.get(&(slug.clone(), key.clone())) else { continue };
            let p = apply_settings(exp, &exp.defaults(), &l.steps[i].params).unwrap();
            let (answer, tol) = match &q.kind {
                QuestionKind::Number { tolerance_pct } => {
                    (q.grade_in(&mut runs, exp, &p, "-123456789").expected.parse::<f64>().ok(), *tolerance_pct)
                }
                QuestionKind::Choice { .. } => {
                    (q.correct_choices_in(&mut runs, exp, &p).first().and_then(|c| c.parse().ok()), 0.0)
                }
            };
            let Some(answer) = answer else { continue };
            let unit = exp.columns(&p).into_iter().find(|c| c.name == q.metric).map(|c| c.unit).unwrap_or_default();
            let value = v.value * unit_factor(&v.unit, &unit).unwrap_or(1.0);
            if (value.abs() - answer.abs()).abs() <= answer.abs() * tol / 100.0 + 1e-9 {
                let row = if key.row.is_empty() { String::new() } else { format!("[{}]", key.row) };
                shown.push(format!(
                    "content/{slug}.md step {}: {{{}{row}@{}}} = {} {} shows the answer {answer} before it is given",
                    i + 1,
                    key.metric,
                    key.settings,
                    v.value,
                    v.unit
                ));
            }
        }
    }
    assert!(shown.is_empty(), "placeholders that give the answer away:\n{}", shown.join("\n"));
}

/// Numbers of `[[claims]]` text that are not what the claim checks, by lesson, with where each
/// comes from: a seed's or a commit's figure, a kernel version, arithmetic on the claim's inputs.
const CLAIM_CITED: &[(&str, &str, &str)] = &[
    ("high-order-alloc", "the seed 37.3", "seed 000's table: 1 flow, order 0"),
    ("high-order-alloc", "the seed 577", "seed 000's table: 30 flows, order 3"),
    ("high-order-alloc", "(Linux 5.14)", "a kernel version"),
    ("high-order-alloc", "2 x 26 cores, 208 flows", "the kernel test robot's machine and nr_threads (inputs)"),
    ("cross-cpu-free", "SLUB before 3.2", "a kernel version"),
    ("cross-cpu-free", "Eric measured +47 %", "commit 68822bdf76f1: 49,685 to 73,076 Mbit/s"),
    ("page-frag-free", "Jesper's 7 %", "seed 002: Jesper Dangaard Brouer's gain"),
    ("page-frag-free", "(Ilias measured ~11 %)", "seed 002: Ilias Apalodimas's gain on a Cortex-A53"),
    ("page-frag-free", "instead of 56", "the router's RX queues (an input)"),
    ("page-frag-free", "twice per 63 pages", "the PCP batch of 4.19 (an input), twice"),
    ("percpu-counter", "the 0.7 % Olof measured", "seed 003: Olof Johansson's profile of the atomic"),
    ("percpu-counter", "the 0.36 % Olof measured", "seed 003: Olof Johansson's percpu functions"),
    ("percpu-counter", "112 x 56", "lib/percpu_counter.c: batch max(32, 2 x 56) at 56 CPUs"),
    ("percpu-counter", "256 x 56", "1 MiB in 4 KiB pages, at 56 CPUs"),
    ("percpu-counter", "4096 x 56", "16 MiB in 4 KiB pages, at 56 CPUs"),
    ("percpu-counter", "6.0's", "a kernel version"),
    ("percpu-counter", "224 CPUs", "the claim's CPUs (an input)"),
    ("percpu-counter", "at 56 CPUs", "the model's machine (an input)"),
    ("percpu-counter", "1 MiB", "a reserve size (an input)"),
    ("percpu-counter", "16 MiB", "a reserve size (an input)"),
    ("skb-cache", "(5.11 and later)", "a kernel version"),
    ("skb-cache", "the patch's 8", "the cover letter of merge bdaba8959e92: 8 Mpps"),
    ("skb-cache", "the patch's 12.5 %", "the cover letter of merge bdaba8959e92"),
    ("skb-cache", "20.69 %", "the tx commit's profile"),
    ("skb-cache", "10 million idle sockets", "the cover letter's example (an input)"),
    ("skb-layout", "With 18 frags of 24 bytes", "the preset's MAX_SKB_FRAGS and frag size (inputs)"),
    ("skb-layout", "64 + 1500 + 14 + 440", "the head's parts: NET_SKB_PAD, MTU, Ethernet header, shinfo (inputs)"),
    ("skb-layout", "kmalloc-4k", "a slab cache's name"),
    ("skb-layout", "kmalloc-2k", "a slab cache's name"),
    ("skb-layout", "Before 6.4", "a kernel version"),
    ("ktls-recursion", "100 MB GET", "seed 004's request (an input)"),
];

/// What a claim's text may state of the model: a bound it checks (in the column's unit or one
/// unit up), or "about X" when both bounds lie within 10 % of X, so the words cannot drift
/// further than that without the claim failing. Anything else of the model ("the model gives
/// about 722" beside a check of 600 to 760) is a number nothing keeps in step with the model.
fn claim_problems(c: &model::Claim, unit: &str, inputs: &[f64], cited: &[&str]) -> Vec<String> {
    let mut text = format!(" {}", c.text);
    for cite in cited {
        text = text.replace(cite, " ");
    }
    let scales: &[f64] = match unit_family(&unit.to_ascii_lowercase()) {
        Some("rate") => &[1.0, 1e-3],
        Some("size") => &[1.0, 1.0 / 1024.0],
        _ => &[1.0],
    };
    let bounds: Vec<f64> = [c.min, c.max].into_iter().flatten().collect();
    let numbers = text::numbers_in(&text).into_iter().filter(|(w, _)| w.starts_with(|ch: char| ch.is_ascii_digit()));
    let mut out = Vec::new();
    for (written, w) in numbers {
        let decimals = written.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
        // One unit of the last written digit: "less than 6272" checks `max = 6271`.
        let unit_digit = 10f64.powi(-decimals);
        let year = decimals == 0 && written.len() == 4 && (1990.0..=2030.0).contains(&w);
        let input = inputs.contains(&w) || (text.contains(&format!("{written} KiB")) && inputs.contains(&(w * 1024.0)));
        if (decimals == 0 && w < 10.0) || year || input {
            continue;
        }
        let bound = bounds.iter().any(|b| scales.iter().any(|s| (w - b.abs() * s).abs() <= unit_digit + 1e-9));
        let before = text[..text.find(&written).unwrap_or(0)].to_ascii_lowercase();
        let about = ["about ", "near ", "roughly ", "~"].iter().any(|a| before.ends_with(a));
        let tight = about
            && c.min.is_some()
            && c.max.is_some()
            && scales.iter().any(|s| bounds.iter().all(|b| (b.abs() * s - w).abs() <= 0.1 * w));
        if !bound && !tight {
            out.push(format!("'{written}' is neither a bound the claim checks ({bounds:?} {unit}) nor 'about' a range within 10 % of it"));
        }
    }
    out
}

/// No number of a claim's text drifts from the model: each is a bound the claim checks, "about"
/// a range within 10 % of it, an input of the claim's run, or cited ([`CLAIM_CITED`]).
#[test]
fn every_number_of_a_claims_text_is_what_it_checks() {
    let (mut problems, mut needed) = (Vec::new(), Vec::new());
    for (slug, exp, _, _) in written() {
        let l = lesson(&slug).unwrap();
        let cited: Vec<&str> = CLAIM_CITED.iter().filter(|(s, _, _)| *s == slug).map(|(_, c, _)| *c).collect();
        for c in &l.claims {
            needed.extend(cited.iter().filter(|s| c.text.contains(**s)));
            let p = apply_settings(exp, &exp.defaults(), &c.params).unwrap();
            let unit =
                exp.columns(&p).into_iter().find(|col| col.name == c.metric).map(|col| col.unit).unwrap_or_default();
            for p in claim_problems(c, &unit, &inputs_at(exp, &c.params), &cited) {
                problems.push(format!("content/{slug}.md claim '{}': {p}", c.text));
            }
        }
    }
    assert!(problems.is_empty(), "claims whose text states a number they do not check:\n{}", problems.join("\n"));
    let stale: Vec<&str> = CLAIM_CITED.iter().map(|(_, c, _)| *c).filter(|c| !needed.contains(c)).collect();
    assert!(stale.is_empty(), "CLAIM_CITED entries no claim needs: {stale:?}");
}

/// The claim rule itself: a drifted "the model gives about 722" beside a check of 600 to 760 is
/// caught; bounds, one unit up, and a tight "about" pass.
#[test]
fn a_claim_stating_an_unchecked_model_number_is_caught() {
    let claim = |text: &str, min: Option<f64>, max: Option<f64>| model::Claim {
        text: text.into(),
        params: Vec::new(),
        metric: "order3_mbps".into(),
        row: None,
        min,
        max,
    };
    let c = claim("600 to 760 Gbit/s (the model gives about 722)", Some(600_000.0), Some(760_000.0));
    let found = claim_problems(&c, "Mbit/s", &[], &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("'722'"), "{found:?}");
    assert!(claim_problems(&claim("about 43 Gbit/s", Some(41_500.0), Some(44_500.0)), "Mbit/s", &[], &[]).is_empty());
    assert!(claim_problems(&claim("less than 6272 pages", None, Some(6271.0)), "pages", &[], &[]).is_empty());
    assert_eq!(claim_problems(&claim("costs more than 10 %", None, Some(720_000.0)), "Mbit/s", &[], &[]).len(), 1);
    assert_eq!(claim_problems(&claim("about 2 %", Some(1.0), Some(4.0)), "%", &[], &[]).len(), 0, "one digit");
    assert_eq!(claim_problems(&claim("about 12 %", Some(1.0), Some(40.0)), "%", &[], &[]).len(), 1);
    assert!(claim_problems(&claim("at 30 flows, 722", None, Some(722.0)), "", &[30.0], &[]).is_empty());
}

/// The one-digit rule itself: a model value written as an amount of its unit is caught (in
/// digits or a word, with a word between); a label ("step 2", "CPU 3"), a count of another
/// unit, one unit up, "one", a number glued to punctuation and an input pass.
#[test]
fn a_one_digit_model_number_written_as_a_quantity_is_caught() {
    let value = |value: f64, unit: &str| ModelValue { value, unit: unit.into(), what: "m".into() };
    let values =
        [value(1.92, "%"), value(2.0, "levels"), value(2_140.0, "Mbit/s"), value(3.0, "frees/skb"), value(1.0, "skbs")];
    let typed = |text: &str| typed_model_numbers(text, &values, &[4.0]);
    for (text, written) in [
        ("A53: about +2 % faster", "2 %"),
        ("it grew 2% in all", "2 %"),
        ("over 2 nesting levels deep", "2 levels"),
        ("two levels, then the guard page", "two levels"),
        ("3 frees per skb", "3 frees"),
        ("it kept 1 skb", "1 skb"),
    ] {
        let found = typed(text);
        assert_eq!(found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), [written], "{text}");
    }
    for text in [
        "as step 2 levels showed",
        "on vCPU 3 frees the skb",
        "2 CPUs",
        "(level 2), then",
        "the 2nd level",
        "4 levels",
        "2.",
        "5 %",
        "about 2 Gbit/s",
        "it kept one skb",
    ] {
        assert!(typed(text).is_empty(), "{text}: {:?}", typed(text));
    }
}
