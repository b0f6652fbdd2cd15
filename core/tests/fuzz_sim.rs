//! The simulator fuzzed like a storage engine (after TigerBeetle's VOPR and
//! FoundationDB's simulation tests): every registered experiment's worlds run with random
//! valid parameters and random seeds, with every world's invariants checked before the first
//! event and after every event (`Experiment::run_point_checked` → `World::run_checked` →
//! each experiment's `world/invariants.rs`: buddy lists, pagesets, zone totals, SLUB objects
//! and slabs, lock queues FIFO with one holder, page and object conservation, counters within
//! bounds). A broken invariant fails with a one-line reproduction (`skblab run <id> --set …
//! --seed N`, and the replay line for this checker), shrunk by proptest.
//!
//! Budget, by environment variable:
//! - `SKBLAB_FUZZ_SIM_SECONDS`: wall-time budget of the whole run (default 30: `make test`);
//!   no new case starts in an experiment after its share of it (shrinking is not cut short);
//!   an experiment whose first 200 cases ran no world (closed form) stops there.
//! - `SKBLAB_FUZZ_SIM_CASES`: most cases per experiment (default 64).
//! - `SKBLAB_FUZZ_SIM_EVENTS`: most events checked per world (default 1000; `make fuzz-sim` 20000): a world is
//!   checked from its first event over this many (the whole run at the smallest windows of
//!   small machines; the start of it for big ones), which bounds one case's time.
//! - `SKBLAB_FUZZ_SIM_SEED`: the generator's seed (default 27; `make fuzz-sim` draws one and
//!   prints it), so a run is a reproducible sequence of cases.
//! - `SKBLAB_FUZZ_SIM_SHRINK_RUNS`: most runs spent shrinking a failure (default 500).
//! - `SKBLAB_FUZZ_SIM_REPLAY="<id> <seed> <point> k=v ..."`: runs that one case (the
//!   `replay` test), as a failure prints it.
//!
//! Values: every `Int` from its edges, its default and a log-uniform draw over its grid (so
//! small machines are common and the largest come up too); simulated durations (`*_us`) from
//! their first two grid steps only, which bounds each world's events; a repeat count
//! (`seeds`) at its minimum (the fuzzer draws the seeds).

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use skblab_core::sim::world::Checked;
use skblab_core::{experiments, find, Experiment, ParamKind, ParamSpec};

use crate::common;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Grid steps a simulated duration (`*_us`) may take above its minimum.
const DURATION_STEPS: i64 = 1;

/// A valid value of `spec`: an `Int` from its edges, its default and a log-uniform draw over
/// its grid.
fn valid_value(spec: &ParamSpec) -> BoxedStrategy<String> {
    // A repeat count (`seeds`) only reruns the same worlds with the next seeds: the fuzzer
    // draws seeds itself, so it keeps the minimum.
    if let (ParamKind::Int { min, .. }, "seeds") = (&spec.kind, spec.name) {
        return Just(min.to_string()).boxed();
    }
    let max_steps = if spec.name.ends_with("_us") { DURATION_STEPS } else { i64::MAX };
    common::valid_value(spec, max_steps, |g| {
        // Log-uniform over the grid: k + 1 = (top + 1)^u.
        let log = (0u32..=1000).prop_map(move |u| {
            let k = ((g.top as f64 + 1.0).powf(f64::from(u) / 1000.0) - 1.0).floor() as i64;
            g.at(k.clamp(0, g.top))
        });
        prop_oneof![3 => log, 1 => Just(g.min), 1 => Just(g.max()), 1 => Just(g.default)].boxed()
    })
}

/// One case: settings (`k=v`), the run's seed, which point of the sweep.
type Case = (Vec<String>, u64, usize);

fn strategy(e: &dyn Experiment) -> impl Strategy<Value = Case> {
    let specs = e.specs();
    let names: Vec<&'static str> = specs.iter().map(|s| s.name).collect();
    let values: Vec<_> = specs.iter().map(valid_value).collect();
    (values, 0u64..1 << 32, 0usize..1 << 16)
        .prop_map(move |(v, seed, pick)| (names.iter().zip(v).map(|(n, v)| format!("{n}={v}")).collect(), seed, pick))
}

/// The one-line reproductions of a case: the CLI run, and the replay of this checker.
fn repro(id: &str, (settings, seed, _): &Case, point: usize) -> String {
    let sets: String = settings.iter().map(|s| format!(" --set {s}")).collect();
    format!(
        "skblab run {id}{sets} --seed {seed}  (point {point}; check again: SKBLAB_FUZZ_SIM_EVENTS={} SKBLAB_FUZZ_SIM_REPLAY=\"{id} {seed} {point} {}\" cargo test -p skblab-core --release --features cli --test all fuzz_sim::replay)",
        env_u64("SKBLAB_FUZZ_SIM_EVENTS", 1_000),
        settings.join(" ")
    )
}

/// Runs one case with checks: `Ok(None)` if `validate` rejects the set, else what it covered;
/// a broken invariant is the error, with its reproduction.
fn run_case(e: &dyn Experiment, case: &Case) -> Result<Option<Checked>, String> {
    let max_events = env_u64("SKBLAB_FUZZ_SIM_EVENTS", 1_000);
    let (settings, seed, pick) = case;
    let Ok(params) = e.params_from(settings) else { return Ok(None) };
    let points = e.points(&params);
    if points.is_empty() {
        return Ok(Some(Checked::default()));
    }
    let i = pick % points.len();
    match e.run_point_checked(&params, &points[i], *seed, max_events) {
        Ok(c) => Ok(Some(c)),
        Err(err) => Err(format!("{}: invariant broken: {err}\n  reproduce: {}", e.id(), repro(e.id(), case, i))),
    }
}

/// Shrinks the failing case of `tree` as proptest's runner does (simplify while it still
/// fails, complicate when it passes), for at most `max_iters` runs; the smallest failure.
fn shrink(e: &dyn Experiment, tree: &mut impl ValueTree<Value = Case>, mut msg: String, max_iters: u32) -> String {
    let mut iters = 0;
    if !tree.simplify() {
        return msg;
    }
    while iters < max_iters {
        iters += 1;
        let more = match run_case(e, &tree.current()) {
            Err(m) => {
                msg = m;
                tree.simplify()
            }
            Ok(_) => tree.complicate(),
        };
        if !more {
            break;
        }
    }
    msg
}

#[test]
fn every_world_keeps_its_invariants_after_every_event() {
    let seconds = env_u64("SKBLAB_FUZZ_SIM_SECONDS", 30) as f64;
    let cases = env_u64("SKBLAB_FUZZ_SIM_CASES", 64);
    let gen_seed = env_u64("SKBLAB_FUZZ_SIM_SEED", 27);
    let shrink_iters = env_u64("SKBLAB_FUZZ_SIM_SHRINK_RUNS", 500) as u32;
    let all = experiments();
    let share = seconds / all.len() as f64;
    let mut total = Checked::default();
    let mut total_cases = 0u64;
    let mut failures = Vec::new();
    eprintln!("fuzz-sim: generator seed {gen_seed}, {seconds:.0} s budget, at most {cases} cases per experiment");
    for (k, e) in all.iter().enumerate() {
        #[expect(
            clippy::disallowed_types,
            clippy::disallowed_methods,
            reason = "the budget is wall time, outside the model"
        )]
        let start = std::time::Instant::now();
        let mut seed_bytes = [0u8; 32];
        seed_bytes[..8].copy_from_slice(&gen_seed.to_le_bytes());
        seed_bytes[8..16].copy_from_slice(&(k as u64).to_le_bytes());
        let config = Config { failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes));
        let strategy = strategy(*e);
        let (mut ran, mut rejected, mut covered) = (0u64, 0u64, Checked::default());
        // An experiment whose cases run no world (closed form) has nothing to check.
        while ran + rejected < cases && start.elapsed().as_secs_f64() < share && (ran < 200 || covered.worlds > 0) {
            let mut tree = strategy.new_tree(&mut runner).expect("the strategy always generates");
            match run_case(*e, &tree.current()) {
                Ok(None) => rejected += 1,
                Ok(Some(c)) => {
                    ran += 1;
                    covered.merge(c);
                }
                Err(msg) => {
                    let msg = shrink(*e, &mut tree, msg, shrink_iters);
                    eprintln!("fuzz-sim: FAILED (shrunk): {msg}");
                    failures.push(msg);
                    break;
                }
            }
        }
        eprintln!(
            "fuzz-sim: {}: {ran} cases ran ({rejected} rejected by validate), {} worlds, {} events checked, {:.1} s",
            e.id(),
            covered.worlds,
            covered.events,
            start.elapsed().as_secs_f64()
        );
        total.merge(covered);
        total_cases += ran;
    }
    eprintln!(
        "fuzz-sim: total {total_cases} cases, {} worlds, {} events, each followed by every invariant check",
        total.worlds, total.events
    );
    assert!(failures.is_empty(), "broken invariants:\n{}", failures.join("\n"));
}

/// `SKBLAB_FUZZ_SIM_REPLAY="<id> <seed> <point> k=v ..."`: that one case, checked (nothing
/// when unset).
#[test]
fn replay() {
    let Ok(line) = std::env::var("SKBLAB_FUZZ_SIM_REPLAY") else { return };
    let mut words = line.split_whitespace();
    let (Some(id), Some(seed), Some(point)) = (words.next(), words.next(), words.next()) else {
        panic!("SKBLAB_FUZZ_SIM_REPLAY: want \"<id> <seed> <point> k=v ...\", got {line:?}");
    };
    let e = find(id).unwrap_or_else(|err| panic!("{err}"));
    let seed: u64 = seed.parse().expect("seed");
    let point: usize = point.parse().expect("point");
    let case = (words.map(String::from).collect(), seed, point);
    match run_case(e, &case) {
        Ok(c) => eprintln!("replay: invariants hold ({c:?})"),
        Err(msg) => panic!("{msg}"),
    }
}

/// Every experiment that simulates runs its worlds under the checker (default settings,
/// first point, 300 events each); the closed-form ones have none.
#[test]
fn checked_runs_cover_the_worlds_of_every_simulated_experiment() {
    for e in experiments() {
        let params = e.params_from(&[]).expect("defaults are valid");
        let points = e.points(&params);
        let c = e.run_point_checked(&params, &points[0], 1, 300).unwrap_or_else(|err| panic!("{}: {err}", e.id()));
        let simulated = !matches!(e.id(), "skb-layout" | "ktls-recursion");
        assert_eq!(c.worlds > 0, simulated, "{}: {c:?}", e.id());
    }
}
