//! Why the order-3 column of `high-order-alloc` saturates: zone->lock of node 0 seen from
//! outside the simulation, event by event, over the measured window (default parameters, order
//! 3). Per flow count, mean of seeds 1-3: throughput, acquisitions per µs, mean hold (the work
//! under the lock), mean handoff (lock busy but nobody working under it: the line moving from
//! the releaser to the next holder), the share of the window the lock is busy, the
//! time-weighted mean queue length, and the mean wait; the hold split by caller
//! (`__rmqueue_smallest`, `free_one_page`; both nodes); the share of handoffs an arrival
//! delayed (`QSpinLock::handoff_steals` per acquisition) and the share of grants whose claim
//! was a cmpxchg (`QSpinLock::cmpxchg_claims` per acquisition), and the share of passes that
//! split or merged a block (`FreeArea::splits` + `merges` per acquisition). The numbers in docs/high-order-alloc.md
//! ("The hard plateau knee") come from
//! `cargo run --release -p skblab-core --example lock_knee [flows...] [name=value...]`.

use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::sim::world::World as _;

mod common;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flows, settings) = common::numbers_and_settings(&args, vec![2, 4, 8, 12, 16, 18, 20, 22, 24, 27, 30]);
    let params = common::params(&settings);
    println!("flows  Gbit/s  acq/us  hold ns  (alloc  free)  handoff ns  busy %  queue  wait ns  steals/acq  cmpxchg/acq  split+merge/acq");
    for n in flows {
        let a = common::mean_over_seeds(&params, n, hoa::FragOrder::Order3, |sim| {
            let warm = sim.cfg.warmup_ns();
            // Run the warm-up, then snapshot the lock's counters.
            while sim.now_ns() < warm && sim.step() {}
            let s0 = sim.zones[0].lock.stats.clone();
            let steals0 = sim.zones[0].lock.handoff_steals;
            let claims0 = sim.zones[0].lock.cmpxchg_claims;
            let sm = |sim: &hoa::StreamSim| sim.zones[0].free_area.splits + sim.zones[0].free_area.merges;
            let sm0 = sm(sim);
            let (mut busy, mut queue, mut last) = (0u64, 0u64, sim.now_ns());
            let (mut was_busy, mut was_q) =
                (sim.zones[0].lock.holder().is_some(), sim.zones[0].lock.queue_len() as u64);
            loop {
                let more = sim.step();
                let now = sim.now_ns().min(sim.end_ns());
                let dt = now.saturating_sub(last);
                if was_busy {
                    busy += dt;
                }
                queue += was_q * dt;
                last = now;
                was_busy = sim.zones[0].lock.holder().is_some();
                was_q = sim.zones[0].lock.queue_len() as u64;
                if !more {
                    break;
                }
            }
            let s = &sim.zones[0].lock.stats;
            let window = (last - warm) as f64;
            let acq = (s.acquisitions - s0.acquisitions) as f64;
            let hold = (s.hold_ns_total - s0.hold_ns_total) as f64;
            // Both nodes, measured window: __rmqueue_smallest (0) and free_one_page (2).
            let st = &sim.stats;
            let per_op = |k: usize| st.lock_hold_ns[k] as f64 / st.lock_ops[k].max(1) as f64;
            [
                sim.throughput_mbps() / 1000.0,
                acq / (window / 1000.0),
                hold / acq,
                (busy as f64 - hold) / acq,
                busy as f64 / window * 100.0,
                queue as f64 / window,
                (s.wait_ns_total - s0.wait_ns_total) as f64 / acq,
                per_op(0),
                per_op(2),
                (sim.zones[0].lock.handoff_steals - steals0) as f64 / acq,
                (sim.zones[0].lock.cmpxchg_claims - claims0) as f64 / acq,
                (sm(sim) - sm0) as f64 / acq,
            ]
        });
        println!(
            "{n:>5}  {:>6.1}  {:>6.2}  {:>7.0}  ({:>5.0}  {:>4.0})  {:>10.0}  {:>6.1}  {:>5.2}  {:>7.0}  {:>10.2}  {:>11.2}  {:>15.3}",
            a[0], a[1], a[2], a[7], a[8], a[3], a[4], a[5], a[6], a[9], a[10], a[11]
        );
    }
}
