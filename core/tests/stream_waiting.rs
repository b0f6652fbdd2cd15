//! The stream world with waiting (`StreamConfig::waiting`, what `calibrate --machine` runs):
//! a wakeup of a task on another, idle CPU costs the waker the IPI (`ipi_send_ns`) and the
//! wakee its CPU's exit from idle (`wake_latency_ns`, `idle_exit_ns`), and each CPU's idle
//! time comes out of the run. Knobs: a slower exit lowers the one-flow rate once the sender
//! waits for the reader (a small send buffer) and raises the idle share; a dearer IPI slows
//! the sender; both threads on one CPU send no IPI and pay no exit. The measured side: the
//! state suite's idle share read from its folded `perf record -a` stacks.

use crate::common;
use skblab_core::experiments::high_order_alloc::{StreamSim, Waiting};
use skblab_core::machine::{file, fit, tools};
use skblab_core::sim::catalogue::{self, Era, FamilyId};
use std::path::PathBuf;

/// One run of EMR-guest costs on `cpus` CPUs, one flow of 64 KiB sends, the socket buffer
/// forced to `sndbuf` bytes, with `waiting`.
fn run_kib(kib: u32, cpus: u32, sndbuf: u32, waiting: Option<Waiting>) -> StreamSim {
    run_window(kib, cpus, sndbuf, waiting, 1)
}

/// [`run_kib`] with a measurement window `longer` times the default.
fn run_window(kib: u32, cpus: u32, sndbuf: u32, waiting: Option<Waiting>, longer: u64) -> StreamSim {
    let machine = fit::profile(cpus, FamilyId::EmrGuest, 14894.0);
    common::one_flow_stream(machine, cpus, kib, |cfg| {
        cfg.input.sndbuf_bytes = sndbuf;
        cfg.waiting = waiting;
        cfg.input.measure_us *= longer;
    })
}

fn emr() -> Waiting {
    Waiting::from_kernel(catalogue::kernel(FamilyId::EmrGuest, Era::Linux2026).expect("a 6.x entry"), 3000)
}

/// Every exit `k` times the catalogue's.
fn slower(k: u64) -> Waiting {
    let mut w = emr();
    w.costs.shallow_exit_ns *= k as f64;
    w.costs.deep_exit_ns *= k as f64;
    w
}

/// The catalogue's costs with the waker's side of a cross-CPU wakeup at `ns`.
fn ipi(mut w: Waiting, ns: f64) -> Waiting {
    w.costs.ipi_send_ns = ns;
    w
}

#[test]
fn a_slower_exit_from_idle_lengthens_each_wait_of_the_reader() {
    // 16 KiB sends: the reader keeps up and sleeps on an empty queue; each segment that
    // finds it asleep wakes it across CPUs. A slower exit keeps its CPU idle longer per
    // wakeup; meanwhile segments pile up, so it sleeps (and is woken) less often. The reader
    // is woken only a few times in the default window (2-6 times at these exits), too few
    // for a per-wakeup share: the window is 20 times longer here.
    let mut last_per_wake = 0.0;
    let mut last_ipis = u64::MAX;
    for k in [1, 2, 4, 8] {
        let sim = run_window(16, 2, 1 << 20, Some(slower(k)), 20);
        let ipis = sim.wakeup_ipis();
        assert!(ipis > 0, "x{k}: the reader is woken across CPUs");
        let per_wake = sim.idle_shares()[1] / ipis as f64;
        assert!(per_wake > last_per_wake, "x{k}: idle per wakeup {per_wake} after {last_per_wake}");
        assert!(ipis <= last_ipis, "x{k}: {ipis} wakeups after {last_ipis}");
        (last_per_wake, last_ipis) = (per_wake, ipis);
    }
}

#[test]
fn a_dearer_ipi_slows_the_sender_that_sends_it() {
    // 16 KiB sends: the reader keeps up and sleeps; every segment that finds it asleep costs
    // the sender the IPI's send. Dearer sends, a slower sender, at every step.
    let mut last = f64::INFINITY;
    for ns in [2_000.0, 6_000.0, 12_000.0, 40_000.0] {
        let sim = run_kib(16, 2, 1 << 20, Some(ipi(emr(), ns)));
        assert!(sim.wakeup_ipis() > 0, "{ns} ns: the reader is woken across CPUs");
        let mbps = sim.throughput_mbps();
        assert!(mbps < last, "{ns} ns: {mbps} Mbit/s after {last}");
        last = mbps;
    }
}

#[test]
fn both_threads_on_one_cpu_send_no_ipi_and_pay_no_exit() {
    for kib in [16, 64] {
        let base = run_kib(kib, 1, 1 << 20, Some(emr()));
        let slow = run_kib(kib, 1, 1 << 20, Some(ipi(slower(8), 50_000.0)));
        assert_eq!(base.wakeup_ipis(), 0);
        assert_eq!(slow.wakeup_ipis(), 0);
        assert_eq!(base.throughput_mbps(), slow.throughput_mbps(), "{kib} KiB");
        // The one CPU always has one of the two to run.
        assert!(base.idle_share_of_used() < 1e-9, "{kib} KiB: idle {}", base.idle_share_of_used());
    }
    // Two CPUs do send them; without waiting none is counted (the seed runs).
    assert!(run_kib(16, 2, 1 << 20, Some(emr())).wakeup_ipis() > 0);
    assert_eq!(run_kib(16, 2, 1 << 20, None).wakeup_ipis(), 0);
}

#[test]
fn the_idle_share_is_read_from_the_folded_stacks_over_the_samples_taken() {
    let folded = "swapper;cpu_startup_entry;do_idle;default_idle 30\niperf3;tcp_sendmsg 60\nswapper;irq_exit 10\n";
    assert_eq!(tools::folded_idle_samples(folded), (30.0, 100.0));
    let cmd = "perf record -a -g -e cpu-clock -F 499 -o /tmp/x.data -- sleep 5 &";
    assert_eq!(tools::perf_record_samples(cmd, 2), Some(4990.0));
    assert_eq!(tools::perf_record_samples("iperf3 -c 127.0.0.1 -t 5", 2), None);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/measurements");
    let text = std::fs::read_to_string(dir.join("2026-12-07-intel-xeon-f6m207.json")).expect("committed file");
    let m = file::parse(&text).expect("valid file");
    let idle = fit::measured_idle_pct(&m).expect("a state suite with stacks");
    assert!((30.0..45.0).contains(&idle), "{idle} %");
    let report = fit::fit(&m, &mut |_, _| {}).expect("fits");
    let p = report.points.iter().find(|p| p.suite == "idle").expect("the idle point");
    assert_eq!(p.cell, fit::IDLE_CELL);
    assert!((0.0..=100.0).contains(&p.predicted_catalogue) && (0.0..=100.0).contains(&p.predicted));
}
