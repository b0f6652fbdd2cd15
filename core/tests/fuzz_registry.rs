//! Registry-wide property tests: every experiment in `skblab_core::experiments()` gets them by
//! registering, with no extra code.
//!
//! - Random *valid* parameter sets, drawn from each `ParamSpec` (ints on their step grid, with
//!   the edges and the default often; powers of two, bools, choices), run without panic and
//!   give finite numbers, non-negative except in columns declared `Column::signed` (each with its reason). Sets that
//!   `Experiment::validate` rejects (values fine alone, not together) must be rejected with a
//!   one-line `ParamError`. Heavy sweeps are sampled (see [`FULL_RUN_MAX_POINTS`]).
//! - Random *invalid* sets (one parameter out of range, off its step, not a power of two, not
//!   a bool, not a choice name, not a number) always give a `ParamError` that names it.
//!
//! Cases per experiment: `PROPTEST_CASES` (default [`DEFAULT_CASES`]; `make fuzz` runs 10^5),
//! within a wall-time budget per experiment for the valid sets (`SKBLAB_FUZZ_SECONDS`, default
//! [`DEFAULT_BUDGET_S`]; `make fuzz` gives 600 s).
//! Simulated durations (`Int` parameters named `*_us`) are drawn from their first grid steps
//! only, so a case stays milliseconds in a debug build; their full range is the domain of the
//! experiment's own tests.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use skblab_core::{experiments, Column, Cost, Experiment, ParamKind, ParamSpec, Row};
use std::cell::Cell;
use std::collections::BTreeSet;

use crate::common;

/// Cases per experiment in `make test` (debug build: seconds for most experiments; the valid
/// sets of the heaviest stop at [`DEFAULT_BUDGET_S`]).
const DEFAULT_CASES: u32 = 2000;

/// Seconds of wall time each experiment's valid sets may take in `make test`
/// (`SKBLAB_FUZZ_SECONDS`; `make fuzz` gives 600 s): sets drawn after it are counted, not run.
/// Most experiments run all their cases in seconds; the heaviest random sets (a million
/// skb-cache sockets, 256 high-order-alloc flows) take seconds each in a debug build, and
/// without a budget this property alone took 20 minutes of `make test` (1,168 s, 2026-12-02);
/// at 90 s each, one experiment after the other, 311 s of a clean-clone run (2026-12-03).
/// The experiments now run side by side, 45 s each (`make fuzz`: 600 s each).
const DEFAULT_BUDGET_S: f64 = 45.0;

/// Valid sets each experiment must run within its budget (all of them if fewer were tried).
const MIN_RUN: u32 = 20;

/// Valid sets an experiment must run when its budget, not validate, stopped it: its random
/// sets are heavy (skb-cache's take 2-6 s each in a debug build, more on a loaded machine), so
/// the count depends on the machine; the budget stops drawing only after this many ran, so a
/// loaded machine takes longer instead of failing (a clean-clone run at load 14 ran 2).
const MIN_RUN_TIMED: u32 = 3;

fn budget_seconds() -> f64 {
    std::env::var("SKBLAB_FUZZ_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_BUDGET_S)
}

/// Grid steps a simulated duration (`*_us`) may take above its minimum.
const DURATION_STEPS: i64 = 1;

/// A `Cost::Heavy` sweep is run whole (`finish` and its views too) only up to this many
/// points; longer ones are checked on three of their points (`run = loop over points` is
/// registry.rs's business).
const FULL_RUN_MAX_POINTS: usize = 8;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CASES)
}

fn config() -> Config {
    Config { cases: cases(), failure_persistence: None, ..Config::default() }
}

/// A valid value of `spec`: an `Int` on its step grid, with the edges and the default often
/// (so that combinations `validate` accepts are common).
fn valid_value(spec: &ParamSpec) -> BoxedStrategy<String> {
    let max_steps = if spec.name.ends_with("_us") { DURATION_STEPS } else { i64::MAX };
    common::valid_value(spec, max_steps, |g| {
        let grid = (0..=g.top).prop_map(move |k| g.at(k));
        prop_oneof![2 => grid, 1 => Just(g.min), 1 => Just(g.max()), 1 => Just(g.default)].boxed()
    })
}

/// A value `spec` must reject.
fn invalid_value(spec: &ParamSpec) -> BoxedStrategy<String> {
    let junk = prop_oneof![Just(String::new()), "[a-z]{1,8}", "\\PC{1,20}", Just("1.5".to_string())];
    match spec.kind.clone() {
        ParamKind::Int { min, max, step } => {
            let mut bad = vec![
                (i64::MIN..min).prop_map(|v| v.to_string()).boxed(),
                (max.saturating_add(1)..=i64::MAX).prop_map(|v| v.to_string()).boxed(),
                Just(format!("{max}0000000000000000000000")).boxed(),
                junk.prop_filter("not a number", |s| s.trim().parse::<i64>().is_err()).boxed(),
            ];
            if step > 1 {
                let top = (max - min) / step;
                bad.push((0..top, 1..step).prop_map(move |(k, off)| (min + k * step + off).to_string()).boxed());
            }
            proptest::strategy::Union::new(bad).boxed()
        }
        ParamKind::Pow2 { min, max } => prop_oneof![
            (min..=max)
                .prop_filter("not a power of two", |v| (*v as u64).count_ones() != 1)
                .prop_map(|v| v.to_string()),
            (i64::MIN..min).prop_map(|v| v.to_string()),
            (max.saturating_add(1)..=i64::MAX).prop_map(|v| v.to_string()),
        ]
        .boxed(),
        // Booleans are exactly `true|false`: "1", "yes", "on", " true" are junk too.
        ParamKind::Bool => prop_oneof![
            junk.prop_filter("not a bool word", |s| s != "true" && s != "false"),
            proptest::sample::select(vec!["1", "0", "on", "off", "yes", "no", "TRUE", " true", "false\n"])
                .prop_map(str::to_string),
        ]
        .boxed(),
        ParamKind::Choice { options } => {
            junk.prop_filter("not an option", move |s| !options.contains(&s.trim())).boxed()
        }
    }
}

fn settings(names: &[&'static str], values: Vec<String>) -> Vec<String> {
    names.iter().zip(values).map(|(n, v)| format!("{n}={v}")).collect()
}

/// Runs one random valid set: three points of the sweep (first, last, one at random) always,
/// the whole run — `finish` and its views included — when it is light or short. Returns
/// whether the set passed `validate`.
fn check_case(e: &dyn Experiment, settings: &[String], seed: u64, pick: usize) -> Result<bool, TestCaseError> {
    let params = match e.params_from(settings) {
        Ok(p) => p,
        Err(err) => {
            let text = err.to_string();
            prop_assert!(!text.chars().any(char::is_control) && text.len() < 500, "{}: {}", e.id(), text);
            return Ok(false); // values fine alone, rejected together by validate()
        }
    };
    let (points, columns) = (e.points(&params), e.columns(&params));
    prop_assert!(!points.is_empty(), "{}: no points", e.id());
    let sample: BTreeSet<usize> = [0, points.len() - 1, pick % points.len()].into();
    for i in sample {
        check_row(e, settings, &columns, &e.run_point(&params, &points[i], seed))?;
    }
    if e.cost(&params) == Cost::Light || points.len() <= FULL_RUN_MAX_POINTS {
        let out = e.run(&params, seed);
        prop_assert_eq!(out.rows.len(), points.len());
        for row in &out.rows {
            check_row(e, settings, &out.columns, row)?;
        }
    }
    Ok(true)
}

/// Every number finite, and non-negative unless its column is declared signed.
fn check_row(e: &dyn Experiment, settings: &[String], columns: &[Column], row: &Row) -> Result<(), TestCaseError> {
    prop_assert_eq!(row.len(), columns.len(), "{}: row width", e.id());
    for (column, cell) in columns.iter().zip(row) {
        let Some(v) = cell.as_f64() else { continue };
        prop_assert!(v.is_finite(), "{} {:?}: {} = {:?}", e.id(), settings, column.name, cell);
        prop_assert!(column.signed || v >= 0.0, "{} {:?}: {} = {:?} < 0", e.id(), settings, column.name, cell);
    }
    Ok(())
}

/// Runs `e`'s random valid sets within its budget; the line it prints, or a failure.
fn fuzz_valid_sets(e: &dyn Experiment) {
    let specs = e.specs();
    let names: Vec<&'static str> = specs.iter().map(|s| s.name).collect();
    let strategy = (specs.iter().map(valid_value).collect::<Vec<_>>(), 0u64..1000, 0usize..1024);
    #[expect(
        clippy::disallowed_types,
        clippy::disallowed_methods,
        reason = "progress shows wall time, outside the model"
    )]
    let (ran, total, late, start) = (Cell::new(0u32), Cell::new(0u32), Cell::new(0u32), std::time::Instant::now());
    let budget = budget_seconds();
    TestRunner::new(config())
        .run(&strategy, |(values, seed, pick)| {
            total.set(total.get() + 1);
            // Over this experiment's time budget: drawn, not run — once the minimum has run,
            // so that a loaded machine runs fewer sets, never too few to mean anything.
            if start.elapsed().as_secs_f64() > budget && ran.get() >= MIN_RUN_TIMED {
                late.set(late.get() + 1);
                return Ok(());
            }
            ran.set(ran.get() + u32::from(check_case(e, &settings(&names, values), seed, pick)?));
            Ok(())
        })
        .unwrap_or_else(|err| panic!("{}: {err}", e.id()));
    let (ran, total, late) = (ran.get(), total.get(), late.get());
    eprintln!(
        "{}: {ran} of {total} random sets ran, {late} drawn after the {budget} s budget (not run), the rest rejected by validate, in {:.1} s",
        e.id(),
        start.elapsed().as_secs_f64()
    );
    let tried = total - late;
    assert!(ran * 5 >= tried, "{}: validate rejected most random sets ({ran} of {tried} ran)", e.id());
    let min = if late > 0 { MIN_RUN_TIMED } else { MIN_RUN.min(tried) };
    assert!(ran >= min, "{}: only {ran} random sets ran within the budget", e.id());
}

/// Every experiment's valid sets, the experiments spread over the machine's cores (each keeps
/// its own budget and its own proptest runner; a failure names its experiment). On one
/// thread this property took 311 s of a clean-clone `make test` (2026-12-03).
#[test]
fn valid_parameter_sets_run_with_finite_non_negative_numbers() {
    let list = experiments();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, list.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(e) = list.get(i) else { break };
                fuzz_valid_sets(*e);
            });
        }
    });
}

#[test]
fn invalid_values_are_param_errors_naming_the_parameter() {
    for e in experiments() {
        let specs = e.specs();
        let names: Vec<&'static str> = specs.iter().map(|s| s.name).collect();
        let valid = specs.iter().map(valid_value).collect::<Vec<_>>();
        let invalid: Vec<_> = specs.iter().map(invalid_value).collect();
        let strategy = (valid, (0..specs.len()).prop_flat_map(move |i| (Just(i), invalid[i].clone())));
        TestRunner::new(config())
            .run(&strategy, |(values, (i, bad))| {
                let mut s = settings(&names, values);
                s[i] = format!("{}={bad}", names[i]);
                let err = match e.params_from(&s) {
                    Ok(_) => return Err(TestCaseError::fail(format!("{} accepted {}", e.id(), s[i]))),
                    Err(err) => err.to_string(),
                };
                prop_assert!(err.contains(&format!("'{}'", names[i])), "{}: {err}", e.id());
                prop_assert!(!err.chars().any(char::is_control) && err.chars().count() < 500, "{}: {err}", e.id());
                Ok(())
            })
            .unwrap_or_else(|err| panic!("{}: {err}", e.id()));
    }
}
