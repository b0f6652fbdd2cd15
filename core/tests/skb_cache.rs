//! `skb-cache` against the rx skb cache patch quoted in seed 004 (tcp_rr, 10,000 flows, 112
//! threads: 8 → 9 Mpps) and the knobs of issue #11. Every figure is what the world counted on
//! the SLUB model; nothing is looked up.

use skblab_core::experiments::skb_cache::{self as sc, seed, SkbCache};
use skblab_core::Experiment;

fn run(settings: &[&str]) -> skblab_core::RunOutput {
    let s: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    let p = SkbCache.params_from(&s).expect("valid settings");
    SkbCache.run(&p, 1)
}

fn metric(out: &skblab_core::RunOutput, name: &str) -> f64 {
    out.metric(name, None).unwrap_or_else(|| panic!("column {name}"))
}

const ON: [&str; 2] = ["tcp_rx_skb_cache=true", "tcp_tx_skb_cache=true"];

fn with_on(extra: &[&'static str]) -> Vec<&'static str> {
    ON.iter().copied().chain(extra.iter().copied()).collect()
}

#[test]
fn reproduces_8_and_9_mpps_over_five_seeds() {
    let r = SkbCache.reproduce_mean(&[1, 2, 3, 4, 5]).expect("has a seed table");
    println!("{}", r.to_table());
    let cell = |label: &str, m: &str| {
        let row = r.rows.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("row {label}"));
        row.cells.iter().find(|c| c.metric == m).unwrap().clone()
    };
    let off = cell(sc::OFF_LABEL, "mpps");
    let on = cell(sc::ON_LABEL, "mpps");
    assert!((off.simulated - seed::OFF_MPPS).abs() <= 0.05 * seed::OFF_MPPS, "off {}", off.simulated);
    assert!((on.simulated - seed::ON_MPPS).abs() <= 0.05 * seed::ON_MPPS, "on {}", on.simulated);
    let gain = cell("gain", "gain_pct").simulated;
    assert!((gain - 12.5).abs() <= 3.0, "gain {gain:.2} %");
}

#[test]
fn caches_move_every_free_home() {
    let off = run(&[]);
    let on = run(&ON);
    // Without the caches both objects of both skbs are freed on a CPU that did not allocate them.
    assert!(metric(&off, "slowpath_frees_per_request") > 3.5, "{}", metric(&off, "slowpath_frees_per_request"));
    assert!(metric(&off, "freed_on_alloc_cpu_pct") < 5.0);
    assert!(metric(&on, "slowpath_frees_per_request") < 0.2);
    assert!(metric(&on, "freed_on_alloc_cpu_pct") > 95.0);
    assert!(metric(&on, "gain_pct") > 8.0);
    assert_eq!(metric(&off, "gain_pct"), 0.0);
}

#[test]
fn rps_leaves_the_rx_allocation_on_a_third_cpu() {
    let out = run(&with_on(&["rps=true"]));
    let gain = metric(&out, "gain_pct");
    assert!(gain.abs() < 2.0, "rps gain {gain:.2} %");
    // The rx skb is still freed away from the driver's CPU: about one skb in two (the rx one).
    assert!(metric(&out, "freed_on_alloc_cpu_pct") < 60.0);
    assert!(metric(&out, "slowpath_frees_per_request") > 1.5);
}

#[test]
fn each_cache_alone_helps_less_than_both() {
    let both = metric(&run(&ON), "gain_pct");
    let rx = metric(&run(&["tcp_rx_skb_cache=true"]), "gain_pct");
    let tx = metric(&run(&["tcp_tx_skb_cache=true"]), "gain_pct");
    assert!(rx > 0.0 && tx > 0.0 && rx < both && tx < both, "rx {rx:.2} tx {tx:.2} both {both:.2}");
}

#[test]
fn fewer_flows_per_thread_smaller_gain() {
    let many = metric(&run(&ON), "gain_pct");
    let one = metric(&run(&with_on(&["flows=112"])), "gain_pct");
    assert!(one < many - 2.0, "1 flow/thread {one:.2} vs {many:.2}");
}

#[test]
fn full_gro_requests_give_a_bigger_gain_when_cpu_bound() {
    // A small CPU-bound box (the 100 Gbit/s link does not limit it): 45-frag GRO requests put
    // 45 page frees per request on the wrong CPU without the rx cache.
    let small = ["sockets=1", "cpus=4", "smt=false", "threads=4", "flows=64"];
    let at = |req: &'static str| {
        let mut s = with_on(&small);
        s.push(req);
        run(&s)
    };
    let tiny = metric(&at("request_bytes=1"), "gain_pct");
    let gro = at("request_bytes=65000");
    assert!(metric(&gro, "gain_pct") > tiny + 3.0, "{} vs {tiny}", metric(&gro, "gain_pct"));
    let profile = gro.view("profile").expect("profile view");
    assert!(profile.text.contains("45 page frags"), "{}", profile.text);
}

#[test]
fn memory_grows_with_sockets_and_the_caches() {
    let out = run(&ON);
    let col = |n: &str| out.column_f64(n);
    let socks = col("sockets");
    let off = col("mem_off_gib");
    let on = col("mem_on_gib");
    let last = socks.len() - 1;
    assert_eq!(socks[last], Some(10_000_000.0));
    assert!(on[last].unwrap() > off[last].unwrap() + 15.0, "{:?} {:?}", on[last], off[last]);
    let big = run(&["request_bytes=16000", "tcp_rx_skb_cache=true"]);
    assert!(metric(&big, "cache_bytes_per_socket") > 16_000.0);
    assert_eq!(metric(&run(&[]), "cache_bytes_per_socket"), 0.0);
}

#[test]
fn same_seed_same_bits_and_bad_input_is_one_line() {
    assert_eq!(run(&ON), run(&ON));
    let e = SkbCache.params_from(&["threads=2000".into(), "cpus=2".into(), "sockets=1".into()]).unwrap_err();
    assert!(!e.to_string().contains('\n') && e.to_string().contains("threads"), "{e}");
    assert!(SkbCache.params_from(&["flows=0".into()]).is_err());
    assert!(SkbCache.params_from(&["request_bytes=70000".into()]).is_err());
}

/// The lane diagram: without the caches the rx skb dies on the application CPU; with them on
/// the IRQ CPU that built it; with RPS the rx path and recvmsg share a CPU, so the parked skb
/// is still freed away from the IRQ CPU.
#[test]
fn lane_diagram_shows_where_the_free_moves() {
    let frees_on = |set: &sc::LaneSet, rx: bool| -> (usize, usize) {
        let l: Vec<_> = set.lanes.iter().filter(|l| l.rx == rx && l.free_cpu.is_some()).collect();
        (l.len(), l.iter().filter(|l| l.free_cpu == Some(l.alloc_cpu)).count())
    };
    let p = SkbCache.params_from(&[]).unwrap();
    let d = sc::lane_diagram(&p, 1);
    assert_ne!(d.off.irq_cpu, d.off.app_cpu, "flow 0's IRQ and thread share a CPU: pick another seed");
    let (n_off, same_off) = frees_on(&d.off, true);
    let (n_on, same_on) = frees_on(&d.on, true);
    assert!(n_off >= 3 && n_on >= 3, "{n_off} / {n_on} rx frees recorded");
    assert_eq!(same_off, 0, "caches off: rx skbs freed by recvmsg on the app CPU");
    assert_eq!(same_on, n_on, "caches on: rx skbs freed by the next softirq on the IRQ CPU");
    let rps = sc::lane_diagram(&SkbCache.params_from(&["rps=true".to_string()]).unwrap(), 1);
    let (n_rps, same_rps) = frees_on(&rps.on, true);
    assert!(n_rps >= 3 && same_rps == 0, "rps: {same_rps} of {n_rps} rx frees on the IRQ CPU");
}
