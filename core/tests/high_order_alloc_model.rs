//! Allocator and engine tests for the `high-order-alloc` model: property tests of the buddy
//! allocator and per-CPU lists against `check_invariants()`, invariants after every event of
//! whole runs, determinism, and snapshots of the kernel-style text views.
//!
//! Replay a failure: `cargo test -p skblab-core --features cli --test all high_order_alloc_model::<name>`; proptest
//! prints the minimal failing sequence and persists its seed.

use proptest::prelude::*;
use skblab_core::experiments::high_order_alloc::StreamSim;
use skblab_core::experiments::high_order_alloc::{self as hoa, FragOrder};
use skblab_core::params::Params;
use skblab_core::rng::Rng;
use skblab_core::sim::cache::Caches;
use skblab_core::sim::machine::SERVER_2019;
use skblab_core::sim::qspinlock::{Acquire, QSpinLock};
use skblab_core::sim::trace::LaneState;
use skblab_core::sim::world::World as _;
use skblab_core::sim::zone::Zone;

fn params(settings: &[&str]) -> Params {
    Params::from_settings(hoa::ID, hoa::specs(), settings).expect("valid settings")
}

/// One step of a random workload against a zone.
#[derive(Debug, Clone)]
enum Op {
    Alloc { cpu: u16, order: usize },
    Free { index: usize, cpu: u16 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u16..4, prop_oneof![Just(0usize), Just(0), Just(1), Just(3), Just(5)])
            .prop_map(|(cpu, order)| Op::Alloc { cpu, order }),
        (any::<usize>(), 0u16..4).prop_map(|(index, cpu)| Op::Free { index, cpu }),
    ]
}

/// Allocates through the paths the kernel uses: pcp-allowed orders from the CPU's list (bulk
/// refill under the lock when empty), the rest from the buddy.
fn alloc(z: &mut Zone, cpu: u16, order: usize, _now: u64) -> Option<u32> {
    let m = SERVER_2019;
    if !z.pcp_allowed(order) {
        return z.rmqueue_locked(&m, &Caches::new(&m), cpu, order).0;
    }
    if let Some(pfn) = z.pcp_alloc(cpu, order) {
        return Some(pfn);
    }
    z.rmqueue_bulk(&m, &Caches::new(&m), cpu, order);
    z.pcp_alloc(cpu, order)
}

fn free(z: &mut Zone, cpu: u16, pfn: u32, order: usize, _now: u64) {
    let m = SERVER_2019;
    assert!(z.put_page_testzero(pfn));
    if z.pcp_allowed(order) {
        if z.pcp_free(cpu, pfn, order) {
            z.free_pcppages_bulk(&m, &Caches::new(&m), cpu);
        }
    } else {
        z.free_one_page(&m, &Caches::new(&m), cpu, pfn, order);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_alloc_free_keeps_zone_invariants(ops in proptest::collection::vec(op(), 1..300), high_order in any::<bool>(), seed in any::<u64>()) {
        let mut rng = Rng::new(seed, 7);
        let mut z = Zone::fragmented(0, 4096, 4, (24, 8), high_order, &mut rng);
        z.check_invariants().map_err(TestCaseError::fail)?;
        let mut held: Vec<(u32, usize)> = Vec::new();
        for (now, op) in ops.into_iter().enumerate() {
            match op {
                Op::Alloc { cpu, order } => {
                    if let Some(pfn) = alloc(&mut z, cpu, order, now as u64) {
                        prop_assert!(!held.iter().any(|&(p, o)| p < pfn + (1 << order) && pfn < p + (1 << o)), "overlapping allocation");
                        held.push((pfn, order));
                    }
                }
                Op::Free { index, cpu } if !held.is_empty() => {
                    let (pfn, order) = held.swap_remove(index % held.len());
                    free(&mut z, cpu, pfn, order, now as u64);
                }
                Op::Free { .. } => {}
            }
            z.check_invariants().map_err(TestCaseError::fail)?;
        }
        // Everything back: only pagesets and the other users keep pages.
        for (i, (pfn, order)) in held.drain(..).enumerate() {
            free(&mut z, (i % 4) as u16, pfn, order, 10_000);
        }
        z.check_invariants().map_err(TestCaseError::fail)?;
        prop_assert_eq!(z.in_use_pages, 0);
    }

    #[test]
    fn lock_queue_is_fifo_under_random_arrivals(arrivals in proptest::collection::vec((0u16..112, 1u64..500), 1..40)) {
        let m = SERVER_2019;
        let mut l = QSpinLock::new("zone.lock");
        let mut now = 0;
        let mut expected = Vec::new();
        for (i, &(cpu, gap)) in arrivals.iter().enumerate() {
            now += gap;
            if l.lock(&m, now, i as u32, cpu) == Acquire::Queued {
                expected.push(i as u32);
            }
            l.check_invariants().map_err(TestCaseError::fail)?;
        }
        let mut granted = Vec::new();
        let mut t = now;
        while let Some((w, at)) = l.unlock(&m, t + 100) {
            prop_assert!(at >= t + 100, "handoff is never free");
            granted.push(w.thread);
            t = at;
            l.check_invariants().map_err(TestCaseError::fail)?;
        }
        prop_assert_eq!(granted, expected);
    }
}

fn run_checked(settings: &[&str], flows: u32, order: FragOrder, max_events: u64) -> StreamSim {
    let mut cfg = hoa::config(&params(settings), flows, order);
    // A small zone keeps the full walk of check_invariants() cheap enough for every event.
    cfg.zone_pages = 1 << 14;
    let mut sim = StreamSim::new(cfg, 1);
    for _ in 0..max_events {
        if !sim.step() {
            break;
        }
        if let Err(e) = sim.check_invariants() {
            panic!("invariant broken after event {} at {} ns: {e} (replay: seed 1, {flows} flows, {order:?}, {settings:?})", sim.outcome().events, sim.now_ns());
        }
    }
    sim
}

#[test]
fn invariants_hold_after_every_event() {
    let short = ["warmup_us=100", "measure_us=300", "sndbuf_bytes=262144"];
    for order in [FragOrder::Order3, FragOrder::Order0] {
        let sim = run_checked(&short, 6, order, 20_000);
        assert!(sim.outcome().events > 1000, "{order:?} ran only {} events", sim.outcome().events);
    }
    let sim = run_checked(
        &["warmup_us=100", "measure_us=300", "pcp_high_order=true", "pcp_high=64", "pcp_batch=15"],
        6,
        FragOrder::Order3,
        20_000,
    );
    assert!(sim.stats.order3_allocs > 0);
    let sim = run_checked(&["warmup_us=100", "measure_us=300", "cpus=2", "smt=false"], 3, FragOrder::Order0, 20_000);
    assert!(sim.throughput_mbps() > 0.0, "oversubscribed CPUs still make progress");
}

#[test]
fn same_seed_same_results_other_seed_other_noise() {
    let p = params(&["measure_us=500"]);
    let a = serde_json::to_string(&hoa::sweep_point(&p, 7, 1)).unwrap();
    let b = serde_json::to_string(&hoa::sweep_point(&p, 7, 1)).unwrap();
    assert_eq!(a, b, "replay with: skblab run high-order-alloc --set measure_us=500 --seed 1");
    let c = serde_json::to_string(&hoa::sweep_point(&p, 7, 2)).unwrap();
    assert_ne!(a, c, "the seed must reach the model");
    let t1 = serde_json::to_string(&hoa::traced_run(&p, 2, FragOrder::Order3, 5, 300)).unwrap();
    let t2 = serde_json::to_string(&hoa::traced_run(&p, 2, FragOrder::Order3, 5, 300)).unwrap();
    assert_eq!(t1, t2);
}

#[test]
fn golden_sweep_point() {
    // Pinned: any change to the model or the RNG moves these numbers (update deliberately;
    // the wasm build must print the same, see docs/high-order-alloc.md).
    let p = params(&["measure_us=500"]);
    let pt = hoa::sweep_point(&p, 4, 1);
    insta::assert_snapshot!(format!(
        "order3 {:.3}\norder0 {:.3}\nevents {} {}",
        pt.order3_mbps, pt.order0_mbps, pt.order3.outcome.events, pt.order0.outcome.events
    ));
}

#[test]
fn trace_frames_show_lanes_refills_locks_and_buddyinfo() {
    let p = params(&[]);
    let t = hoa::traced_run(&p, 2, FragOrder::Order3, 1, 400);
    assert_eq!(t.frames.len(), 400);
    assert!(!t.complete);
    let f = &t.frames[399];
    assert_eq!(f.lanes.len(), 4);
    assert_eq!(f.buddyinfo.len(), 2);
    assert_eq!(f.locks.len(), 2);
    assert!(t.frames.iter().any(|f| f.refills.iter().any(|r| r.order == 3)), "order-3 refills are marked");
    assert!(t.frames.iter().any(|f| f.event.contains("zone->lock")));
    assert!(t.frames.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
    let t0 = hoa::traced_run(&p, 2, FragOrder::Order0, 1, 400);
    assert!(t0.frames.iter().any(|f| f.refills.iter().any(|r| r.source == "per-cpu list")));
    assert!(t0.frames.iter().any(|f| f.lanes.iter().any(|l| l.pcp_count > 0)));
}

#[test]
fn text_views_snapshot() {
    let p = params(&["warmup_us=100", "measure_us=300"]);
    let d = hoa::profile(&p, 4, FragOrder::Order3, 1);
    insta::assert_snapshot!("buddyinfo", d.buddyinfo);
    insta::assert_snapshot!("zoneinfo_pagesets", d.zoneinfo_pagesets);
    insta::assert_snapshot!("lock_stat", d.lock_stat);
    insta::assert_snapshot!("perf_report", d.profile.text);
    let d0 = hoa::profile(&p, 4, FragOrder::Order0, 1);
    insta::assert_snapshot!("zoneinfo_pagesets_order0", d0.zoneinfo_pagesets);
}

#[test]
fn profile_blames_the_zone_lock_for_order3_at_many_flows() {
    let p = params(&["measure_us=500"]);
    let few = hoa::profile(&p, 1, FragOrder::Order3, 1);
    let many = hoa::profile(&p, 30, FragOrder::Order3, 1);
    let o0 = hoa::profile(&p, 30, FragOrder::Order0, 1);
    // FIXME(model): after the catalogue rework (mesh 50 ns) order-3 spins only ~2 % at 30
    // flows (500 us window): the lock is busy but not yet saturated, the seed's plateau is
    // not the lock's here (docs/calibration.md, high-order-alloc). Pinned: it still rises.
    assert!(
        many.profile.spin_pct > 1.5 * few.profile.spin_pct.max(0.5),
        "{} vs {}",
        many.profile.spin_pct,
        few.profile.spin_pct
    );
    assert!(
        many.profile.spin_pct > 2.0 * o0.profile.spin_pct,
        "{} vs order-0 {}",
        many.profile.spin_pct,
        o0.profile.spin_pct
    );
    assert!(many.summary.lock.contentions > 10 * few.summary.lock.contentions.max(1));
    // netperf owns its socket while it sends, so the receiver's ACKs wait in its backlog and
    // the frag pages die on the sender's CPU at release_sock. (An ACK sent on arrival, before
    // the read, leaves the last reference to the reader: 122 of 2,190 pages on seed 1.)
    let st = &many.summary.stats;
    assert!(st.acks_backlogged > 0);
    assert!(st.last_put_by_sender > 10 * st.last_put_by_receiver.max(1), "{st:?}");
}

#[test]
fn the_ack_frees_the_frags_where_it_is_processed() {
    // Sender-bound (the default): netperf is inside tcp_sendmsg when the ACK comes, so
    // tcp_v4_rcv queues it to the socket's backlog and release_sock frees the skb on netperf's
    // CPU. A receiver that cannot keep up (every line over UPI with placement=split and a
    // small socket buffer) leaves netperf asleep in sk_stream_wait_memory, the socket not
    // owned: the ACK is processed at once, in netserver's softirq, and the pages die there.
    let share = |settings: &[&str], order| {
        let p = params(settings);
        let mut sim = StreamSim::new(hoa::config(&p, 4, order), 1);
        sim.run();
        let s = &sim.stats;
        s.last_put_by_sender as f64 / (s.last_put_by_sender + s.last_put_by_receiver).max(1) as f64
    };
    for order in [FragOrder::Order3, FragOrder::Order0] {
        let busy = share(&["measure_us=1000"], order);
        // Not 1.0: an ACK sent on arrival (more than one rcv_mss unacknowledged) can be
        // processed before netserver reads the skb, and then the read frees the pages.
        assert!(busy > 0.85, "{order:?}: sender share {busy}");
        let starved = share(&["measure_us=1000", "placement=split", "sndbuf_bytes=131072"], order);
        assert!(starved < busy - 0.2, "{order:?}: sender share {starved} with a slow receiver vs {busy}");
    }
}

#[test]
fn trace_lanes_agree_with_the_lock_view() {
    // Whoever the lock view names as holder is shown holding it in its lane, never spinning.
    let p = params(&[]);
    for flows in [2, 8] {
        let t = hoa::traced_run(&p, flows, FragOrder::Order3, 1, 600);
        for f in &t.frames {
            for lock in &f.locks {
                let Some(cpu) = lock.holder_cpu else { continue };
                let holding = f.lanes.iter().any(|l| l.cpu == cpu && l.state == LaneState::HoldingLock);
                assert!(
                    holding,
                    "frame {} ({}): cpu {cpu} holds node {} zone->lock but no lane says so",
                    f.index, f.event, lock.node
                );
            }
        }
    }
}

#[test]
fn seeds_give_each_cell_its_mean_and_spread() {
    use skblab_core::{Cell, Experiment};
    let e = &hoa::HighOrderAlloc;
    let one = params(&["max_threads=2"]);
    let three = params(&["max_threads=2", "seeds=3"]);
    assert_eq!(e.columns(&one).len(), 3, "one seed: the CLI contract's three columns");
    let names: Vec<String> = e.columns(&three).into_iter().map(|c| c.name).collect();
    assert_eq!(names[3..], ["order3_mbps_min", "order3_mbps_max", "order0_mbps_min", "order0_mbps_max"]);
    let f = |c: &Cell| c.as_f64().unwrap();
    let mut widths = 0.0;
    for (k, point) in e.points(&three).iter().enumerate() {
        let row = e.run_point(&three, point, 7);
        let singles: Vec<f64> = (7..10).map(|s| f(&e.run_point(&one, &e.points(&one)[k], s)[1])).collect();
        let mean = singles.iter().sum::<f64>() / 3.0;
        assert!((f(&row[1]) - mean).abs() <= 1.0, "order-3 mean {} vs {mean}", f(&row[1]));
        let (lo, hi) = (f(&row[3]), f(&row[4]));
        assert!(lo <= f(&row[1]) && f(&row[1]) <= hi, "{lo} <= mean <= {hi}");
        assert!((lo - singles.iter().copied().fold(f64::INFINITY, f64::min)).abs() <= 0.5);
        assert!((hi - singles.iter().copied().fold(0.0, f64::max)).abs() <= 0.5);
        widths += hi - lo + f(&row[6]) - f(&row[5]);
    }
    assert!(widths > 0.0, "three seeds differ somewhere");
}
