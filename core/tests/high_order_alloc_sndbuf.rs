//! high-order-alloc's `sndbuf_bytes` against what a socket buffer does (docs/knob-audit.md:
//! "128 KiB – 8 MiB identical at 1 and 20 flows").
//!
//! netperf sleeps in `sk_stream_wait_memory()` only when the bytes it has queued and not yet
//! seen acknowledged reach the socket buffer. On loopback the segment reaches netserver's
//! socket in the sender's own softirq and netserver acknowledges once more than one `rcv_mss`
//! (a 64 KiB segment) is unacknowledged (`__tcp_ack_snd_check`), so a flow never has more than
//! about two segments in flight: rate × "RTT" ≈ 43 Gbit/s × 9.4 µs ≈ 50 KiB on average at one
//! flow, 80 KiB at most. A buffer above that never binds (the knob's whole declared range starts
//! at 128 KiB); below it the sender sleeps and, at one flow, carries less.

use skblab_core::experiments::high_order_alloc::world::StreamSim;
use skblab_core::experiments::high_order_alloc::{config, sweep_point, FragOrder, HighOrderAlloc};
use skblab_core::sim::world::World as _;
use skblab_core::Experiment;

const SEEDS: [u64; 3] = [1, 2, 3];
const ORDERS: [FragOrder; 2] = [FragOrder::Order3, FragOrder::Order0];

/// One run at `flows`, `order` with the socket buffer forced to `sndbuf` bytes (below the
/// knob's range too): (Gbit/s, the largest in-flight bytes of any flow in the window).
fn run(msg: u32, flows: u32, order: FragOrder, sndbuf: u32, seed: u64) -> (f64, u64, StreamSim) {
    let p = HighOrderAlloc.params_from(&[format!("msg_bytes={msg}")]).expect("valid settings");
    let mut cfg = config(&p, flows, order);
    cfg.input.sndbuf_bytes = sndbuf;
    let warm = cfg.warmup_ns();
    let mut sim = StreamSim::new(cfg, seed);
    let mut max = 0;
    while sim.step() {
        if sim.now_ns() > warm {
            max = max.max(sim.inflight_bytes().into_iter().max().unwrap_or(0));
        }
    }
    (sim.throughput_mbps() / 1000.0, max, sim)
}

/// Mean Gbit/s over the seeds.
fn gbps(flows: u32, order: FragOrder, sndbuf_kib: u32) -> f64 {
    SEEDS.iter().map(|&s| run(16384, flows, order, sndbuf_kib << 10, s).0).sum::<f64>() / SEEDS.len() as f64
}

#[test]
fn no_flow_ever_has_the_declared_ranges_smallest_buffer_in_flight() {
    // Largest in-flight bytes (seeds 1-3): msg 4 KiB 124 / 116 KiB (1 flow, order 3 / 0),
    // 16 KiB 80 / 80, 64 KiB 128 / 128: two 64-KiB segments before netserver's ACK.
    for msg in [4096, 16384, 65536] {
        for flows in [1, 20] {
            for order in ORDERS {
                for seed in SEEDS {
                    let (_, max, _) = run(msg, flows, order, 1 << 20, seed);
                    assert!(
                        max <= 128 << 10,
                        "msg {msg}, {flows} flows, {order:?}, seed {seed}: {max} bytes in flight"
                    );
                }
            }
        }
    }
}

#[test]
fn across_the_declared_range_the_buffer_never_binds_so_nothing_moves() {
    // 128 KiB, 1 MiB (default), 8 MiB: the same runs, at 1 and 20 flows.
    for flows in [1, 20] {
        let at = |kib: u32| {
            let p = HighOrderAlloc.params_from(&[format!("sndbuf_bytes={}", kib << 10)]).expect("valid settings");
            SEEDS.iter().map(|&s| sweep_point(&p, flows, s)).map(|s| (s.order3_mbps, s.order0_mbps)).collect::<Vec<_>>()
        };
        let (small, default, large) = (at(128), at(1024), at(8192));
        assert_eq!(small, default, "{flows} flows: 128 KiB vs 1 MiB");
        assert_eq!(large, default, "{flows} flows: 8 MiB vs 1 MiB");
    }
}

#[test]
fn below_what_a_flow_has_in_flight_a_smaller_buffer_carries_less() {
    // Seeds 1-3, Gbit/s at 80 / 64 / 48 / 32 KiB: 1 flow order 3 42.95 / 39.41 / 27.42 /
    // 20.03, order 0 35.04 / 29.25 / 23.27 / 18.59; 20 flows order 0 592.2 / 499.4 / 395.3 /
    // 316.0. 80 KiB is the largest in flight there: the same as the default.
    let cases = [(1, FragOrder::Order3), (1, FragOrder::Order0), (20, FragOrder::Order0)];
    for (flows, order) in cases {
        let v: Vec<f64> = [1024, 80, 64, 48, 32].iter().map(|&k| gbps(flows, order, k)).collect();
        assert_eq!(v[0], v[1], "{flows} flows {order:?}: 80 KiB is all a flow has in flight: {v:?}");
        assert!(v[1..].windows(2).all(|w| w[1] < w[0]), "{flows} flows {order:?} at 80/64/48/32 KiB: {v:?}");
    }
}

#[test]
fn the_one_rise_below_the_range_is_a_sleeping_sender_handing_its_acks_to_the_receiver() {
    // 20 flows, order 3 (up to 112 KiB in flight): 80 KiB carries more than 128 KiB (seeds
    // 1-3: 593.2 vs 558.5 Gbit/s). netperf sleeps in sk_stream_wait_memory() with its socket
    // released, so netserver's ACK after a read (tcp_cleanup_rbuf) is processed at once on
    // netserver's CPU, which also drops the pages' last references there: work leaves the
    // sender, the bottleneck at 20 flows (finding 2's rule). Seed 1, per GB: ACKs after a
    // read 6,769 -> 23,398; last put_page on the receiver 249 -> 3,890 per window.
    let (small, big) = (gbps(20, FragOrder::Order3, 80), gbps(20, FragOrder::Order3, 128));
    assert!(small > big, "80 KiB {small:.1} vs 128 KiB {big:.1} Gbit/s");
    let (_, _, a) = run(16384, 20, FragOrder::Order3, 80 << 10, 1);
    let (_, _, b) = run(16384, 20, FragOrder::Order3, 128 << 10, 1);
    let per_gb = |s: &StreamSim, n: u64| n as f64 * 1e9 / s.stats.copy_bytes as f64;
    assert!(per_gb(&a, a.stats.acks_on_read) > 2.0 * per_gb(&b, b.stats.acks_on_read));
    assert!(a.stats.last_put_by_receiver > 4 * b.stats.last_put_by_receiver);
}
