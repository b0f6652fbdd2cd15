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
