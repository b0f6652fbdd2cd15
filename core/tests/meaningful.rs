//! No silent nonsense, for every registered experiment: every output column
//! declares when its value is meaningful (`Experiment::meanings`); over random valid settings,
//! biased to the smallest windows and loads, no rate is 0, no change is -100 % or ten-fold
//! and no loss share is 100 % without a note naming its column, every `Cell::Missing` has a
//! note naming its row and column, and no note is more than one line. Then the cases
//! that once printed nonsense, one by one.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use skblab_core::{experiments, find, Basis, Cell, Experiment, ParamKind, ParamSpec, RunOutput, Value};

use crate::common;

/// Runs per experiment (each a few ms to a few hundred ms in a debug build).
const CASES: u32 = 40;
/// Settings whose estimate is above this many events are skipped (kept fast in debug builds).
const MAX_EVENTS: u64 = 40_000_000;

#[test]
fn every_column_declares_when_it_is_meaningful() {
    for e in experiments() {
        let p = e.defaults();
        let meanings = e.meanings(&p);
        let cols = e.columns(&p);
        for c in &cols {
            assert!(meanings.iter().any(|m| m.column == c.name), "{}: column {} declares no Meaning", e.id(), c.name);
        }
        for m in &meanings {
            assert!(cols.iter().any(|c| c.name == m.column), "{}: Meaning of unknown column {}", e.id(), m.column);
            if let Basis::AtLeast { min, what } = &m.basis {
                assert!(*min > 0 && !what.is_empty(), "{}: {m:?}", e.id());
            }
        }
    }
}

/// A valid value of `spec`: the minimum half the time (the smallest windows, loads, sizes),
/// else the default, the maximum of a short range or a grid point.
fn value(spec: &ParamSpec) -> BoxedStrategy<String> {
    match spec.kind.clone() {
        ParamKind::Int { min, max, step } => {
            let step = step.max(1);
            let top = (max - min) / step;
            let default = match spec.default {
                Value::Int(v) => v,
                _ => min,
            };
            // Windows stay short (the first grid steps) so a case stays fast.
            let near = if spec.name.ends_with("_us") { top.min(3) } else { top };
            prop_oneof![3 => Just(min), 2 => Just(default), 1 => (0..=near).prop_map(move |k| min + k * step)]
                .prop_map(|v| v.to_string())
                .boxed()
        }
        ParamKind::Pow2 { min, max } => {
            let (lo, hi) = (min.trailing_zeros(), max.trailing_zeros());
            (lo..=hi).prop_map(|k| (1i64 << k).to_string()).boxed()
        }
        ParamKind::Bool => any::<bool>().prop_map(|b| b.to_string()).boxed(),
        ParamKind::Choice { options } => {
            proptest::sample::select(options.to_vec()).prop_map(|s: &str| s.to_string()).boxed()
        }
    }
}

/// The nonsense a number must not be without a note naming its column: a rate of 0, a
/// change of -100 % (nothing after) or a thousand-fold one (nothing before: a denominator
/// near 0; a real ten-fold gain exists, a lock-bound kernel against a lock-free one), all
/// of the offered load lost.
fn suspicious(column: &str, unit: &str, signed: bool, v: f64) -> bool {
    let rate = unit.contains("pps") || unit.contains("bit/s") || unit.starts_with("datagrams");
    let loss = column.starts_with("drop") || column.starts_with("lost");
    (rate && v == 0.0) || (unit == "%" && signed && (v <= -99.9 || v >= 100_000.0)) || (loss && v >= 99.9)
}

/// The contract on one output.
fn check(e: &dyn Experiment, settings: &[String], out: &RunOutput) -> Result<(), String> {
    let ctx = || format!("{} {settings:?}", e.id());
    for n in &out.notes {
        if n.contains('\n') || n.chars().any(char::is_control) {
            return Err(format!("{}: note is not one line: {n:?}", ctx()));
        }
    }
    for (r, row) in out.rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let col = &out.columns[c];
            let noted = || out.notes.iter().any(|n| n.contains(&col.name));
            match cell {
                Cell::Missing => {
                    let row_named =
                        out.notes.iter().any(|n| n.contains(&format!("row {}", r + 1)) && n.contains(&col.name));
                    if !row_named {
                        return Err(format!(
                            "{}: row {} {} is missing without a note: {:?}",
                            ctx(),
                            r + 1,
                            col.name,
                            out.notes
                        ));
                    }
                }
                _ => {
                    if let Some(v) = cell.as_f64() {
                        if suspicious(&col.name, &col.unit, col.signed, v) && !noted() {
                            return Err(format!(
                                "{}: row {} {} = {v} without a note: {:?}",
                                ctx(),
                                r + 1,
                                col.name,
                                out.notes
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

#[test]
fn no_zero_or_extreme_ratio_without_a_note() {
    for e in experiments() {
        let mut runner = TestRunner::new(Config { cases: CASES, failure_persistence: None, ..Config::default() });
        let result = runner.run(&common::settings(*e, value), |s| {
            let Ok(params) = e.params_from(&s) else { return Ok(()) };
            if e.estimate(&params).events > MAX_EVENTS {
                return Ok(());
            }
            let out = e.run(&params, 1);
            check(*e, &s, &out).map_err(TestCaseError::fail)
        });
        if let Err(err) = result {
            panic!("{}: {err}", e.id());
        }
    }
}

fn run(id: &str, settings: &[&str]) -> RunOutput {
    let e = find(id).unwrap();
    let s: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    let out = e.run(&e.params_from(&s).unwrap(), 1);
    check(e, &s, &out).unwrap();
    out
}

fn missing(out: &RunOutput, column: &str) -> bool {
    out.rows[0][out.column_index(column).unwrap()] == Cell::Missing
}

/// 0 packets forwarded once printed gain -100 % and drop 100 %.
#[test]
fn page_frag_free_without_packets_says_so() {
    let out = run("page-frag-free", &["warmup_us=0", "measure_us=100", "offered_kpps=10"]);
    for col in ["mpps", "gain_pct", "drop_pct", "spin_pct"] {
        assert!(missing(&out, col), "{col}: {:?}", out.rows[0]);
    }
    assert!(out.notes.iter().any(|n| n.starts_with("row 1 (fix before)") && n.contains("gain_pct")), "{:?}", out.notes);
    let json: serde_json::Value = serde_json::from_str(&out.to_json()).unwrap();
    assert!(json["rows"][0]["gain_pct"].is_null());
    assert!(out.to_csv().lines().nth(1).unwrap().contains(",–,"), "{}", out.to_csv());
}

/// At the default load with no warm-up and 100 us, the gain once read 216 %: the
/// per-CPU lists had not reached their steady state. Now a light load warms up until they
/// have (`warmup_us` is a minimum, up to 100 ms): the default load with `warmup_us=0` gets
/// its gain; a load too light for 100 ms still says why it has none.
#[test]
fn page_frag_free_gain_needs_the_lists_steady() {
    let out = run("page-frag-free", &["warmup_us=0", "measure_us=100"]);
    assert!(!missing(&out, "gain_pct") && out.notes.is_empty(), "{:?} {:?}", out.rows[0], out.notes);
    let out = run("page-frag-free", &["warmup_us=0", "measure_us=2000", "offered_kpps=100"]);
    assert!(missing(&out, "gain_pct"), "{:?}", out.rows[0]);
    assert!(out.notes.iter().any(|n| n.contains("steady state")), "{:?}", out.notes);
    // Between them, a load the old 10 ms warm-up left unsteady: numbers, and spin rising with load.
    let spin = |kpps: &str| {
        let out = run("page-frag-free", &[kpps]);
        assert!(out.notes.is_empty(), "{kpps}: {:?}", out.notes);
        match out.rows[0][out.column_index("spin_pct").unwrap()] {
            Cell::Float(v) => v,
            ref c => panic!("{kpps}: spin_pct {c:?}"),
        }
    };
    let (s500, s1000, s2000) = (spin("offered_kpps=500"), spin("offered_kpps=1000"), spin("offered_kpps=2000"));
    assert!(s500 <= s1000 && s1000 <= s2000, "spin at 0.5 / 1 / 2 Mpps: {s500} {s1000} {s2000}");
    let default = find("page-frag-free").unwrap();
    assert!(default.run(&default.defaults(), 1).notes.is_empty(), "the default run is meaningful");
}

/// A note once listed every condition of a column ("fewer than one of: 100 packets...;
/// 1024 pages...; 2 runs...") when only one had failed: it names the one that failed, with
/// what the run counted.
#[test]
fn page_frag_free_notes_name_the_condition_that_failed() {
    let out = run("page-frag-free", &["warmup_us=0", "measure_us=2000", "offered_kpps=100"]);
    let note = out.notes.iter().find(|n| n.contains("gain_pct")).expect("a note on gain_pct");
    assert!(!note.contains("one of"), "{note}");
    assert!(note.contains("steady state") && note.contains("it needs"), "{note}");
    assert!(!note.contains("reached the end of their window"), "both runs reached it: {note}");
    let out = run("page-frag-free", &["warmup_us=0", "measure_us=100", "offered_kpps=10"]);
    let note = out.notes.iter().find(|n| n.contains("mpps,")).expect("a note on mpps");
    assert!(note.contains("packets forwarded in the measured window (fewer than the 100 it needs)"), "{note}");
    assert!(!note.contains("one of") && !note.contains("reached the end of their window"), "{note}");
}

/// Found by the property above: one Cortex-A53 core at the line rate of a 197 Gbit/s link
/// (64-byte frames) drops 99.9 % of what is offered; the output says so.
#[test]
fn page_frag_free_overload_says_so() {
    let settings = ["machine=cortex-a53", "cpus=1", "sockets=1", "smt=false", "rx_queues=1", "line_gbps=197"];
    let out = run("page-frag-free", &[&settings[..], &["offered_kpps=0", "measure_us=1000"]].concat());
    let drop = out.rows[0][out.column_index("drop_pct").unwrap()].as_f64().unwrap();
    assert!(drop >= 99.0, "{:?}", out.rows[0]);
    assert!(out.notes.iter().any(|n| n.starts_with("drop_pct = ") && n.contains("Mpps offered")), "{:?}", out.notes);
}

/// threads=1 rps=true once gave 0 Mpps, latency 0 and per-request costs over no request.
#[test]
fn skb_cache_without_requests_says_so() {
    let out = run("skb-cache", &["threads=1", "rps=true"]);
    let requests_in_window = out.view("profile").unwrap().text.clone();
    if missing(&out, "mpps") {
        assert!(missing(&out, "latency_us") && missing(&out, "slab_ns_per_request"), "{:?}", out.rows[0]);
        assert!(out.notes.iter().any(|n| n.contains("requests completed")), "{:?}", out.notes);
        assert!(requests_in_window.contains("per request: not shown"), "{requests_in_window}");
    } else {
        // The world counts requests here (the physics fixed): then they are shown.
        assert!(out.rows[0][0].as_f64().unwrap() > 0.0);
    }
}

/// A single-point sweep once reported a "crossover" on a 0.05 % difference.
#[test]
fn a_crossover_that_means_nothing_says_so() {
    let out = run("high-order-alloc", &["min_threads=9", "max_threads=9", "measure_us=500"]);
    let summary = &out.view("summary").unwrap().text;
    assert!(summary.contains("crossover (order-0 ahead from here on): not meaningful"), "{summary}");
    use skblab_core::experiments::high_order_alloc::crossover_text;
    let close = [(9, 100.0, 100.05), (10, 100.0, 100.04)];
    assert!(crossover_text(&close).contains("not meaningful"), "{}", crossover_text(&close));
    let real = [(8, 100.0, 90.0), (9, 100.0, 101.0), (10, 100.0, 110.0)];
    assert_eq!(crossover_text(&real), "9 flows");
}

/// A mean over seeds of which one has no value has none either.
#[test]
fn mean_of_keeps_missing_cells() {
    let mut a = RunOutput::new("x", 1, vec![skblab_core::Column::new("v", "")]);
    a.push_row(vec![Cell::Float(1.0)]);
    let mut b = a.clone();
    b.rows[0][0] = Cell::Missing;
    assert_eq!(RunOutput::mean_of(&[a, b]).unwrap().rows[0][0], Cell::Missing);
}

/// A condition of one event reads "no …", not "fewer than 1 …": ktls-recursion's fix that
/// never overflows has no overflow level because the run has no stack overflow.
#[test]
fn a_one_event_condition_reads_no_event() {
    let out = run("ktls-recursion", &["fix=strparser-unclone"]);
    let note = out.notes.iter().find(|n| n.contains("overflow_level")).expect("a note on overflow_level");
    assert!(note.contains("the run has no stack overflow in the walk"), "{note}");
    assert!(!note.contains("fewer than 1 "), "{note}");
}

/// high-order-alloc at one flow says "1 flow" in every title, and no profile title carries the
/// throughput a question hides with the chart (one knob away, the profile's point is the
/// question's).
#[test]
fn one_flow_reads_in_the_singular_and_no_profile_title_gives_the_throughput() {
    let e = find("high-order-alloc").expect("registered");
    let out = common::run(e, &["max_threads=1", "profile_threads=1"]);
    let views = out.views.iter().map(|v| (v.id.as_str(), v.title.as_str()));
    let titles: Vec<(&str, &str)> = views.chain(out.flames.iter().map(|f| ("flame", f.title.as_str()))).collect();
    assert!(titles.iter().any(|(_, t)| t.contains("1 flow,")), "{titles:?}");
    for (id, t) in &titles {
        assert!(!t.contains("1 flows"), "{t}");
        let profile = *id == "profile" || *id == "flame";
        assert!(!(profile && t.contains("Mbit/s")), "{id}: {t}");
    }
}
