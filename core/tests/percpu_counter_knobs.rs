//! percpu-counter's knobs against what the kernel and the hardware say (docs/knob-audit.md):
//! HZ moves the atomic by the timer wheel's burst period (non-monotonic in HZ, monotonic in
//! the period), the figure does not grow with the run length while the line drains each
//! burst, and the atomic's share rises with CPUs and with the line transfers (the declared
//! `monotone()` relations are `core/tests/monotone.rs`'s).

use skblab_core::experiments::percpu_counter::predict::{run_perturbed, uncertain};
use skblab_core::experiments::percpu_counter::world::wheel_granularity;
use skblab_core::experiments::percpu_counter::{Input, PercpuCounter};
use skblab_core::output::{Cell, RunOutput};
use skblab_core::Experiment;

fn run(settings: &[&str], seeds: &[u64]) -> Vec<RunOutput> {
    let s: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    let p = PercpuCounter.params_from(&s).expect("valid settings");
    seeds.iter().map(|&seed| PercpuCounter.run(&p, seed)).collect()
}

/// Mean over the runs of `column` at `nr_cpus`.
fn at(runs: &[RunOutput], column: &str, nr_cpus: f64) -> f64 {
    let v: Vec<f64> = runs.iter().filter_map(|r| r.metric(column, Some(("nr_cpus", nr_cpus)))).collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn the_write_timer_lands_in_the_wheel_level_its_jiffies_pick() {
    // 200 ms ahead: 200 jiffies at HZ=1000 (level 1, every 8th tick), 50 at 250 and 20 at 100
    // (level 0, every tick); 63 is level 1's first delta, 504 level 2's.
    assert_eq!([200, 50, 20, 62, 63, 503, 504].map(wheel_granularity), [8, 1, 1, 1, 8, 8, 64]);
}

#[test]
fn hz_moves_the_atomic_by_the_burst_period_not_by_hz() {
    // Burst every 4 ms (HZ=250) < 8 ms (HZ=1000) < 10 ms (HZ=100): bigger synchronous bursts,
    // longer queues for the line. Seeds 1..=3 at 56 CPUs: ~0.06 / 0.21 / 0.29 %.
    let s = [1, 2, 3];
    let pct = |hz: &str| at(&run(&["counter=atomic", hz], &s), "atomic_cpu_pct", 56.0);
    let (h250, h1000, h100) = (pct("hz=250"), pct("hz=1000"), pct("hz=100"));
    assert!(h250 < h1000 && h1000 < h100, "HZ 250 / 1000 / 100: {h250:.3} / {h1000:.3} / {h100:.3}");
}

#[test]
fn the_figure_does_not_grow_with_the_run_length_while_the_line_drains_each_burst() {
    // 112 CPUs (2 x the default cores, 350k connections): 8 ms vs 48 ms within 10 %.
    let s = [1, 2];
    let short = at(&run(&["counter=atomic", "measure_us=8000"], &s), "atomic_cpu_pct", 112.0);
    let long = at(&run(&["counter=atomic", "measure_us=48000"], &s), "atomic_cpu_pct", 112.0);
    assert!((long / short - 1.0).abs() < 0.10, "8 ms {short:.3} % vs 48 ms {long:.3} %");
}

#[test]
fn the_atomic_share_rises_with_cpus() {
    let r = run(&["counter=atomic"], &[1]);
    let col: Vec<f64> = r[0]
        .rows
        .iter()
        .map(|row| match row[3] {
            Cell::Float(v) => v,
            _ => panic!("atomic_cpu_pct is a float"),
        })
        .collect();
    assert!(col.windows(2).all(|w| w[1] >= w[0]), "atomic % over the CPU ladder: {col:?}");
}

#[test]
fn slower_line_transfers_cost_the_atomic_more() {
    let p = Input::from(&PercpuCounter.reproduce_params());
    let base: Vec<f64> = uncertain().iter().map(|(_, q)| q.value).collect();
    let pct = |name: &str, v: f64| {
        let mut vals = base.clone();
        let k = uncertain().iter().position(|(n, _)| *n == name).expect("an uncertain quantity");
        vals[k] = v;
        (1..=2).map(|s| at(&[run_perturbed(&p, s, &vals).expect("run")], "atomic_cpu_pct", 56.0)).sum::<f64>() / 2.0
    };
    for (name, lo, hi) in [("line_same_socket_ns", 33.1, 55.1), ("line_cross_socket_ns", 105.2, 145.0)] {
        let (a, b) = (pct(name, lo), pct(name, hi));
        assert!(b > a, "{name} {lo} -> {hi}: atomic {a:.3} -> {b:.3} %");
    }
}

#[test]
fn a_sweep_cut_at_the_core_limit_says_which_points_are_not_run() {
    let input = |settings: &[&str]| {
        let s: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
        Input::from(&PercpuCounter.params_from(&s).expect("valid settings"))
    };
    use skblab_core::experiments::percpu_counter::{core_ladder, ladder_note};
    let big = input(&["cpus=256", "sockets=2"]);
    assert_eq!(core_ladder(&big), vec![64, 128, 256, 512]);
    let note = ladder_note(&big).expect("a note");
    assert!(note.contains("stops at 512 cores") && note.contains("1024 cores"), "{note}");
    assert_eq!(ladder_note(&input(&["cpus=64", "sockets=2"])), None);
}
