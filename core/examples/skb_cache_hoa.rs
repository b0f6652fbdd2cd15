//! The two skb-cache sysctls in `high-order-alloc`'s TCP_STREAM world: throughput, zone->lock
//! acquisitions per GB and where the frees run, for each setting at 1 and 30 flows and both
//! orders, mean of seeds 1-5 [min-max]. The table in docs/high-order-alloc.md comes from
//! `cargo run --release -p skblab-core --example skb_cache_hoa`.

use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::{Experiment, Value};

fn main() {
    let base = hoa::HighOrderAlloc.defaults();
    println!("setting      flows order  Gbit/s [min-max]        zone->lock/GB  sender last put %  slab slow frees/skb  rx freed by softirq %  tx reused/skb  slab ns/skb");
    let only_off = std::env::args().any(|a| a == "off");
    for (rx, tx) in [(false, false), (true, false), (false, true), (true, true)] {
        if only_off && (rx || tx) {
            continue;
        }
        for flows in [1u32, 30] {
            for order in [hoa::FragOrder::Order3, hoa::FragOrder::Order0] {
                let mut p = base.clone();
                p.set("tcp_rx_skb_cache", Value::Bool(rx)).unwrap();
                p.set("tcp_tx_skb_cache", Value::Bool(tx)).unwrap();
                let (mut g, mut lock, mut sender, mut slow, mut soft, mut reuse) = (vec![], 0.0, 0.0, 0.0, 0.0, 0.0);
                let mut slab_pct = 0.0;
                for seed in 1..=5u64 {
                    let sim = hoa::simulate(&p, flows, order, seed);
                    let s = &sim.stats;
                    let gb = s.copy_bytes as f64 / 1e9;
                    let acq: u64 = sim.zones.iter().map(|z| z.lock.stats.acquisitions).sum();
                    let _ = acq;
                    let mhz = sim.cfg.machine.turbo_all_core_mhz as f64;
                    let ns = s.skb.slab_cycles as f64 * 1000.0 / mhz + s.skb.slab_wait_ns as f64;
                    slab_pct += ns / (s.skb.skb_allocs + s.skb.tx_reused).max(1) as f64 / 5.0;
                    let holds: u64 = s.lock_ops.iter().sum();
                    g.push(sim.throughput_mbps() / 1000.0);
                    lock += holds as f64 / gb.max(1e-9) / 5.0;
                    let puts = (s.last_put_by_sender + s.last_put_by_receiver).max(1) as f64;
                    sender += s.last_put_by_sender as f64 / puts * 100.0 / 5.0;
                    let skbs = (s.skb.skb_allocs + s.skb.tx_reused).max(1) as f64;
                    slow += s.skb.slab_slow_frees as f64 / skbs / 5.0;
                    soft += s.skb.rx_freed_by_softirq as f64 / (s.skb.rx_parked.max(1)) as f64 * 100.0 / 5.0;
                    reuse += s.skb.tx_reused as f64 / skbs / 5.0;
                }
                let mean = g.iter().sum::<f64>() / 5.0;
                let (lo, hi) = g.iter().fold((f64::MAX, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
                println!(
                    "rx {:<3} tx {:<3} {flows:>3}  {:<6} {mean:>6.2} [{lo:.2}-{hi:.2}]  {lock:>12.0}  {sender:>16.1}  {slow:>19.2}  {soft:>20.1}  {reuse:>12.2}  {slab_pct:>11.0}",
                    if rx { "on" } else { "off" },
                    if tx { "on" } else { "off" },
                    format!("{order:?}"),
                );
            }
        }
    }
}
