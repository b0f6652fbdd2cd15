//! Why the order-3 column of `high-order-alloc` saturates: zone->lock of node 0 seen from
//! outside the simulation, event by event, over the measured window (default parameters, order
//! 3). Per flow count, mean of seeds 1-3: throughput, acquisitions per µs, mean hold (the work
//! under the lock), mean handoff (lock busy but nobody working under it: the line moving from
//! the releaser to the next holder), the share of the window the lock is busy, the
//! time-weighted mean queue length, and the mean wait; the hold split by caller
//! (`__rmqueue_smallest`, `free_one_page`; both nodes). The numbers in docs/high-order-alloc.md
//! ("The hard plateau knee") come from
//! `cargo run --release -p skblab-core --example lock_knee`.

use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::sim::world::World as _;
use skblab_core::Experiment;

fn main() {
    let params = hoa::HighOrderAlloc.defaults();
    let flows: Vec<u32> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let flows = if flows.is_empty() { vec![2, 4, 8, 12, 16, 18, 20, 22, 24, 27, 30] } else { flows };
    println!("flows  Gbit/s  acq/us  hold ns  (alloc  free)  handoff ns  busy %  queue  wait ns");
    for n in flows {
        let mut acc = [0.0f64; 9];
        let seeds = 1..=3u64;
        let k = seeds.clone().count() as f64;
        for seed in seeds {
            let mut sim = hoa::StreamSim::new(hoa::config(&params, n, hoa::FragOrder::Order3), seed);
            let warm = sim.cfg.warmup_ns;
            // Run the warm-up, then snapshot the lock's counters.
            while sim.now_ns() < warm && sim.step() {}
            let s0 = sim.zones[0].lock.stats.clone();
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
            acc[0] += sim.throughput_mbps() / 1000.0;
            acc[1] += acq / (window / 1000.0);
            acc[2] += hold / acq;
            acc[3] += (busy as f64 - hold) / acq;
            acc[4] += busy as f64 / window * 100.0;
            acc[5] += queue as f64 / window;
            acc[6] += (s.wait_ns_total - s0.wait_ns_total) as f64 / acq;
            acc[7] += per_op(0);
            acc[8] += per_op(2);
        }
        let a: Vec<f64> = acc.iter().map(|x| x / k).collect();
        println!(
            "{n:>5}  {:>6.1}  {:>6.2}  {:>7.0}  ({:>5.0}  {:>4.0})  {:>10.0}  {:>6.1}  {:>5.2}  {:>7.0}",
            a[0], a[1], a[2], a[7], a[8], a[3], a[4], a[5], a[6]
        );
    }
}
