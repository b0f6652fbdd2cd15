//! Native-vs-wasm differential test over random settings: a fixed list of random
//! valid settings — [`CASES_PER_EXPERIMENT`] per experiment, drawn by `skblab_core::rng::Rng`
//! from [`LIST_SEED`], small enough to run in seconds — and the FNV-1a 64 of each whole run's
//! JSON (table, views, flame graphs, notes) natively, pinned in `core/tests/differential.tsv`.
//! web/tests/differential.rs reads the same file and recomputes every hash under wasm in
//! headless Chromium (scripts/wasm-test.sh), so wasm must give the same bytes as native, not
//! only for the default settings (registry.rs, golden.rs) but for these.
//!
//! When the settings or the numbers change on purpose (a model change, a new parameter or
//! experiment), rewrite the file with `SKBLAB_UPDATE=1 cargo test -p skblab-core --test
//! differential` (the registry's variable) and say why in the commit.

use skblab_core::rng::Rng;
use skblab_core::{experiments, Experiment, ParamKind, ParamSpec, Value};
use std::path::PathBuf;

/// Settings per experiment in the list.
const CASES_PER_EXPERIMENT: usize = 3;
/// The list's seed (the list is a pure function of it and the registry's specs).
const LIST_SEED: u64 = 27;
/// A case's sweep has at most this many points (bounded work, in wasm too).
const MAX_POINTS: usize = 8;

fn fnv64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/differential.tsv")
}

/// A random valid value of `spec`: ints log-uniform over their grid (small machines common),
/// simulated durations (`*_us`) on their first two grid steps.
fn value(spec: &ParamSpec, rng: &mut Rng) -> String {
    match spec.kind.clone() {
        ParamKind::Int { min, max, step } => {
            let step = step.max(1);
            let mut top = (max - min) / step;
            if spec.name.ends_with("_us") {
                top = top.min(1);
            }
            let u = f64::from(rng.below(1001)) / 1000.0;
            let k = ((top as f64 + 1.0).powf(u) - 1.0).floor() as i64;
            (min + k.clamp(0, top) * step).to_string()
        }
        ParamKind::Pow2 { min, max } => {
            let exps: Vec<u32> = (0..63).filter(|s| (min..=max).contains(&(1i64 << s))).collect();
            (1i64 << exps[rng.below(exps.len() as u32) as usize]).to_string()
        }
        ParamKind::Bool => (rng.below(2) == 1).to_string(),
        ParamKind::Choice { options } => options[rng.below(options.len() as u32) as usize].to_string(),
    }
}

/// Whether `e` runs `settings` as a bounded case: valid, at most [`MAX_POINTS`] points, and
/// no parameter at a value that only sizes work (e.g. flows) beyond its default.
fn bounded(e: &dyn Experiment, settings: &[String]) -> bool {
    let Ok(p) = e.params_from(settings) else { return false };
    if e.points(&p).len() > MAX_POINTS {
        return false;
    }
    e.specs().iter().zip(settings).all(|(spec, s)| match (&spec.kind, &spec.default) {
        (ParamKind::Int { .. }, Value::Int(d)) => {
            let v: i64 = s.split_once('=').and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
            !["cpus", "flows", "threads", "connections", "seeds", "cores", "consumers"]
                .iter()
                .any(|w| spec.name.contains(w))
                || v <= (*d).max(8)
        }
        _ => true,
    })
}

/// The list: (experiment, seed, settings).
fn cases() -> Vec<(&'static str, u64, Vec<String>)> {
    let mut rng = Rng::new(LIST_SEED, 0x27);
    let mut out = Vec::new();
    for e in experiments() {
        let specs = e.specs();
        let mut found = 0;
        for _ in 0..10_000 {
            if found == CASES_PER_EXPERIMENT {
                break;
            }
            let settings: Vec<String> = specs.iter().map(|s| format!("{}={}", s.name, value(s, &mut rng))).collect();
            let seed = u64::from(rng.below(1 << 16));
            if bounded(*e, &settings) {
                out.push((e.id(), seed, settings));
                found += 1;
            }
        }
        assert_eq!(found, CASES_PER_EXPERIMENT, "{}: too few bounded random settings", e.id());
    }
    out
}

/// The lines of the file for the list, as native computes them.
fn lines() -> Vec<String> {
    cases()
        .into_iter()
        .map(|(id, seed, settings)| {
            let e = skblab_core::find(id).expect("registered");
            let p = e.params_from(&settings).expect("valid");
            let json = serde_json::to_string(&e.run(&p, seed)).expect("outputs serialize");
            format!("{id}\t{seed}\t{:016x}\t{}", fnv64(&json), settings.join(" "))
        })
        .collect()
}

const HEADER: &str = "# core/tests/differential.rs: experiment, seed, FNV-1a 64 of the run's JSON, settings (tab-separated); web/tests/differential.rs checks them under wasm. Rewrite: SKBLAB_UPDATE=1 cargo test -p skblab-core --features cli --test all differential::";

#[test]
fn random_settings_hash_to_the_pinned_values() {
    let got = format!("{HEADER}\n{}\n", lines().join("\n"));
    let path = file();
    let pinned = std::fs::read_to_string(&path).unwrap_or_default();
    if pinned == got {
        return;
    }
    if std::env::var_os("SKBLAB_UPDATE").is_some_and(|v| v == "1") {
        std::fs::write(&path, &got).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        eprintln!("{} rewritten", path.display());
        return;
    }
    let want: Vec<&str> = pinned.lines().collect();
    let diff: Vec<String> = got
        .lines()
        .enumerate()
        .filter(|(i, l)| want.get(*i) != Some(l))
        .map(|(i, l)| {
            format!("line {}: native gives\n  {l}\nthe file says\n  {}", i + 1, want.get(i).unwrap_or(&"(nothing)"))
        })
        .collect();
    panic!(
        "{}: {} lines differ:\n{}\nIf the change is meant (model, parameters), rewrite it with \
         SKBLAB_UPDATE=1 cargo test -p skblab-core --features cli --test all differential::, and say why in the commit.",
        path.display(),
        diff.len(),
        diff.join("\n")
    );
}
