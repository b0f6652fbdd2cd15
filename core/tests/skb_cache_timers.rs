//! `skb-cache`'s per-transaction socket-timer and driver-transmit work (docs/skb-cache.md,
//! "What a request costs in the model"): every request re-arms the delayed-ACK timer in the
//! softirq and every response the retransmit timer twice (RTO, then the tail loss probe), each
//! a `mod_timer` of `tcp_timer_rearm_cycles`; every response pays the driver's transmit with its own
//! doorbell and completion, `nic_tx_pkt_cycles`. Dearer timers or a dearer transmit can only
//! cost transactions, and the profile charges the timers where the kernel runs them.

use skblab_core::experiments::skb_cache::{self as sc, profile::RrProfile, world::Stack, SkbCache};

use crate::common;

const SHORT: [&str; 2] = ["measure_us=600", "warmup_us=400"];

/// One short default run (caches off) on `profile`, seed 1.
fn run_on(profile: RrProfile) -> sc::RunResult {
    let p = common::params(&SkbCache, &SHORT);
    sc::run_input(&sc::Input::from(&p), profile, 1).0
}

fn with_timer(cycles: f64) -> RrProfile {
    let mut p = sc::profile::SERVER_2019_RR;
    p.kernel.tcp_timer_rearm_cycles = p.kernel.tcp_timer_rearm_cycles.with_value(cycles);
    p
}

/// The three re-arms land on the CPUs that make them: the delayed ACK's in the receive
/// softirq, the two of the response in sendmsg; their time per request is three
/// `tcp_timer_rearm_cycles` at the hyperthread's clock, and the Mpps fall as the re-arm gets dearer.
#[test]
fn socket_timers_cost_every_transaction_where_the_kernel_arms_them() {
    let base = sc::profile::SERVER_2019_RR;
    let k = base.kernel.tcp_timer_rearm_cycles.value;
    let (none, at, dear) = (run_on(with_timer(0.0)), run_on(base), run_on(with_timer(2.0 * k)));
    let per_req = |r: &sc::RunResult, s: Stack| r.profile.ns_of(&[s]) as f64 / r.requests.max(1) as f64;
    let (rx, tx) = (per_req(&at, Stack::DelackTimer), per_req(&at, Stack::XmitTimers));
    println!("timer ns per request: softirq {rx:.1}, sendmsg {tx:.1}");
    assert!(rx > 0.0 && tx > 1.5 * rx && tx < 2.5 * rx, "one re-arm in the softirq, two in sendmsg: {rx:.1} / {tx:.1}");
    assert_eq!(per_req(&none, Stack::DelackTimer) + per_req(&none, Stack::XmitTimers), 0.0);
    let mpps = |r: &sc::RunResult| sc::summarize(r).mpps;
    let (a, b, c) = (mpps(&none), mpps(&at), mpps(&dear));
    println!("Mpps with tcp_timer_rearm_cycles 0 / {k} / {}: {a:.3} / {b:.3} / {c:.3}", 2.0 * k);
    assert!(a > b && b > c, "dearer timers, fewer transactions: {a:.3} / {b:.3} / {c:.3}");
}

/// A dearer driver transmit (say, an IOMMU mapping or no doorbell batching) is paid once per
/// response on the thread's CPU: fewer transactions, never more.
#[test]
fn a_dearer_driver_transmit_costs_transactions() {
    let base = sc::profile::SERVER_2019_RR;
    let mut dear = base;
    let v = base.kernel.nic_tx_pkt_cycles.max;
    dear.kernel.nic_tx_pkt_cycles = dear.kernel.nic_tx_pkt_cycles.with_value(3.0 * v);
    let (a, b) = (sc::summarize(&run_on(base)).mpps, sc::summarize(&run_on(dear)).mpps);
    println!("Mpps at nic_tx_pkt_cycles {} / {}: {a:.3} / {b:.3}", base.kernel.nic_tx_pkt_cycles.value, 3.0 * v);
    assert!(a > b, "{a:.3} / {b:.3}");
}
