//! Registry-wide knob property: every relation an experiment declares in
//! `Experiment::monotone` holds over random valid settings. For each relation and case, the
//! other parameters are drawn at random from their specs (simulated durations `*_us` stay at
//! their defaults, so the noise is the one the relation's tolerance was declared for), the
//! relation's parameter takes two values lo < hi of its grid, and at every compared point of
//! the sweep (at most [`MAX_POINTS`], light ones first) the column must not move against the
//! declared sign by more than `tolerance_pct` of the larger magnitude.
//!
//! Also: a stub experiment proving the checker catches a violation, and that every experiment
//! with measured seed tables declares at least one relation.
//! Cases per relation: `SKBLAB_MONOTONE_CASES` (default [`DEFAULT_CASES`]) compared ones,
//! deterministic; a case that compares nothing is replaced by another draw.

use crate::common::stub::Stub;
use skblab_core::calibrate::tables::Verdict;
use skblab_core::experiment::{Monotone, Point};
use skblab_core::rng::Rng;
use skblab_core::{experiments, Cell, Cost, Experiment, ParamKind, ParamSpec, Params, Row, Value};

/// Cases per relation in `make test`.
const DEFAULT_CASES: u32 = 3;
/// Points of a sweep compared per case.
const MAX_POINTS: usize = 2;
/// Draws of the other parameters before a case gives up on `Experiment::validate`.
const MAX_DRAWS: u32 = 16;

fn cases() -> u32 {
    std::env::var("SKBLAB_MONOTONE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_CASES)
}

/// The `k`-th value of an ordered grid.
type At = Box<dyn Fn(u64) -> Value>;

/// The number `n` of values of an orderable parameter and its `k`-th (None: not orderable).
fn grid(spec: &ParamSpec) -> Option<(u64, At)> {
    match spec.kind.clone() {
        ParamKind::Int { min, max, step } => {
            let step = step.max(1);
            Some((((max - min) / step) as u64 + 1, Box::new(move |k| Value::Int(min + k as i64 * step))))
        }
        ParamKind::Pow2 { min, max } => {
            let exps: Vec<u32> = (0..63).filter(|s| (min..=max).contains(&(1i64 << s))).collect();
            Some((exps.len() as u64, Box::new(move |k| Value::Int(1i64 << exps[k as usize]))))
        }
        ParamKind::Bool => Some((2, Box::new(|k| Value::Bool(k == 1)))),
        ParamKind::Choice { .. } => None,
    }
}

/// A random valid value of `spec` (durations keep their default).
fn random_value(spec: &ParamSpec, rng: &mut Rng) -> Value {
    if spec.name.ends_with("_us") {
        return spec.default.clone();
    }
    match (&spec.kind, grid(spec)) {
        (ParamKind::Choice { options }, _) => {
            Value::Choice(options[rng.below(options.len() as u32) as usize].to_string())
        }
        (_, Some((n, at))) => at(rng.range_u64(0, n - 1)),
        _ => spec.default.clone(),
    }
}

/// Random valid settings of every parameter but `param`, set to `lo` and to `hi` (None if
/// `validate` rejected every draw).
fn case(e: &dyn Experiment, m: &Monotone, lo: &Value, hi: &Value, rng: &mut Rng) -> Option<(Params, Params)> {
    let param = m.param;
    for _ in 0..MAX_DRAWS {
        let mut base = e.defaults();
        for spec in e.specs().iter().filter(|s| s.name != param) {
            base.set(spec.name, random_value(spec, rng)).expect("a grid value is valid");
        }
        // Settings the relation declares it does not hold under are not drawn.
        let excluded = m.unless.iter().any(|&(name, text)| {
            let mut probe = base.clone();
            probe.set_text(name, text).is_ok() && probe.value(name) == base.value(name)
        });
        if excluded {
            continue;
        }
        let with = |v: &Value| {
            let mut p = base.clone();
            p.set(param, v.clone()).ok()?;
            e.validate(&p).ok()?;
            Some(e.resolve(&p))
        };
        if let (Some(a), Some(b)) = (with(lo), with(hi)) {
            return Some((a, b));
        }
    }
    None
}

/// The column's value at the points both settings share (same position and x), light ones first.
fn values(
    e: &dyn Experiment,
    p: &Params,
    q: &Params,
    column: &str,
    seed: u64,
) -> Result<Vec<(Point, f64, f64)>, String> {
    let (pa, pb) = (e.points(p), e.points(q));
    let mut shared: Vec<Point> = pa.iter().copied().filter(|a| pb.contains(a)).collect();
    shared.sort_by_key(|pt| (e.point_cost(p, pt) != Cost::Light || e.point_cost(q, pt) != Cost::Light, pt.index));
    let col = |params: &Params| {
        e.columns(params).iter().position(|c| c.name == column).ok_or(format!("{}: no column '{column}'", e.id()))
    };
    let (ia, ib) = (col(p)?, col(q)?);
    // A point whose row leaves the column empty (e.g. a table of memory rows beside the
    // measured one) is skipped; the first MAX_POINTS points that have it are compared.
    let num = |row: Row, i: usize| row.get(i).and_then(Cell::as_f64);
    let mut out = Vec::new();
    for pt in shared {
        if out.len() == MAX_POINTS {
            break;
        }
        if let (Some(a), Some(b)) = (num(e.run_point(p, &pt, seed), ia), num(e.run_point(q, &pt, seed), ib)) {
            out.push((pt, a, b));
        }
    }
    Ok(out)
}

/// Checks one relation over `n` cases: (cases compared, violations one line each).
fn check(e: &dyn Experiment, m: &Monotone, n: u32, stream: u64) -> (u32, Vec<String>) {
    let Some(spec) = e.specs().into_iter().find(|s| s.name == m.param) else {
        return (0, vec![format!("{}: relation on unknown parameter '{}'", e.id(), m.param)]);
    };
    let Some((size, at)) = grid(&spec).filter(|(size, _)| *size >= 2) else {
        return (0, vec![format!("{}: '{}' has no order to raise it along", e.id(), m.param)]);
    };
    let mut rng = Rng::new(0x6d6f_6e6f, stream);
    let (mut compared, mut bad) = (0, Vec::new());
    // A case whose runs leave the column empty (e.g. a flood whose per-CPU lists never reach
    // their steady state) compares nothing: another is drawn, up to MAX_DRAWS per case.
    for c in 0..n * MAX_DRAWS {
        if compared == n {
            break;
        }
        let i = rng.range_u64(0, size - 2);
        let j = rng.range_u64(i + 1, size - 1);
        let (lo, hi) = (at(i), at(j));
        let Some((p, q)) = case(e, m, &lo, &hi, &mut rng) else { continue };
        let seed = 1 + u64::from(c);
        match values(e, &p, &q, m.column, seed) {
            Err(line) => bad.push(line),
            Ok(v) if v.is_empty() => {}
            Ok(v) => {
                compared += 1;
                for (pt, a, b) in v {
                    let tol = m.tolerance_pct / 100.0 * a.abs().max(b.abs());
                    let against = if m.rises { a - b } else { b - a };
                    if against > tol {
                        let dir = if m.rises { "fell" } else { "rose" };
                        bad.push(format!(
                            "{}: raising {} {lo} -> {hi} {dir}: {} {a} -> {b} at point {} (x={}, seed {seed}, tolerance {} %; {})",
                            e.id(), m.param, m.column, pt.index, pt.x, m.tolerance_pct, m.why
                        ));
                    }
                }
            }
        }
    }
    (compared, bad)
}

#[test]
fn every_declared_relation_holds_over_random_valid_settings() {
    let mut bad = Vec::new();
    for (k, e) in experiments().iter().enumerate() {
        for (r, m) in e.monotone().iter().enumerate() {
            let (compared, v) = check(*e, m, cases(), (k * 1000 + r) as u64);
            bad.extend(v);
            if compared == 0 && cases() > 0 {
                bad.push(format!("{}: {} -> {}: no case could be compared", e.id(), m.param, m.column));
            }
        }
    }
    assert!(bad.is_empty(), "knobs that move the wrong way:\n{}", bad.join("\n"));
}

#[test]
fn every_experiment_with_measured_tables_declares_a_relation() {
    for e in experiments() {
        if e.tables().iter().any(|t| t.verdict() != Verdict::Arithmetic) {
            assert!(!e.monotone().is_empty(), "{}: measured seed tables but no Experiment::monotone relation", e.id());
        }
    }
}

/// y = -x and z = x: "z rises with x" holds, "y rises with x" must be caught.
const STUB: Stub = Stub {
    specs: || vec![ParamSpec::int("x", "", 5, (1, 10, 1)), ParamSpec::boolean("noise", false)],
    columns: &[("y", ""), ("z", "")],
    row: |params| vec![-(params.int("x") as f64), params.int("x") as f64],
    uncertain: None,
    measured: &[],
};

#[test]
fn the_checker_catches_a_knob_that_moves_the_wrong_way() {
    let rel =
        |column, rises, tolerance_pct| Monotone { param: "x", column, rises, tolerance_pct, why: "stub", unless: &[] };
    let (n, ok) = check(&STUB, &rel("z", true, 0.0), 4, 1);
    assert_eq!((n, ok.len()), (4, 0), "{ok:?}");
    let (_, wrong) = check(&STUB, &rel("y", true, 1.0), 4, 1);
    assert_eq!(wrong.len(), 4, "{wrong:?}");
    assert!(wrong[0].contains("raising x") && wrong[0].contains("fell"), "{}", wrong[0]);
    assert!(check(&STUB, &rel("y", false, 0.0), 4, 1).1.is_empty());
    let (_, unknown) = check(&STUB, &Monotone { param: "nope", ..rel("y", true, 0.0) }, 1, 1);
    assert!(unknown[0].contains("unknown parameter 'nope'"));
    let (_, missing) = check(&STUB, &rel("w", true, 0.0), 1, 1);
    assert!(missing[0].contains("no column 'w'"));
}

/// A relation's exceptions name real settings (a typo would exclude nothing, silently).
#[test]
fn every_exception_names_a_valid_setting() {
    for e in experiments() {
        for m in e.monotone() {
            for &(name, text) in m.unless {
                let mut p = e.defaults();
                assert!(
                    p.set_text(name, text).is_ok(),
                    "{}: {} -> {}: unless {name}={text} is not a valid setting",
                    e.id(),
                    m.param,
                    m.column
                );
            }
        }
    }
}
