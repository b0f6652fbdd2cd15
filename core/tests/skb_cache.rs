//! `skb-cache` against the rx skb cache patch quoted in seed 004 (tcp_rr, 10,000 flows, 112
//! threads: 8 → 9 Mpps) and its knobs. Every figure is what the world counted, on SLAB (the
//! seed's allocator, the default) or on SLUB where a test sets `allocator=slub`; nothing is
//! looked up. The registry-wide tests cover same seed, same bits
//! and the parameters' ranges.

use skblab_core::experiments::skb_cache::{self as sc, seed, SkbCache};
use skblab_core::Experiment;

use crate::common;
use common::metric;

fn run(settings: &[&str]) -> skblab_core::RunOutput {
    common::run(&SkbCache, settings)
}

const ON: [&str; 2] = ["tcp_rx_skb_cache=true", "tcp_tx_skb_cache=true"];

fn with_on(extra: &[&'static str]) -> Vec<&'static str> {
    ON.iter().copied().chain(extra.iter().copied()).collect()
}

/// Seed 004 is a prediction. No constant is fitted to its two numbers; the error
/// is what it is (docs/skb-cache.md explains the miss). The gain, the lesson's point, must be
/// there (both caches faster) and is bounded around what SLAB predicts today (about 20 %
/// against the seed's 12.5 %) only so that a change that moves it is noticed and explained;
/// so is the Mpps miss.
#[test]
fn seed_004_is_a_prediction_with_its_error_reported() {
    let tables = SkbCache.tables();
    assert_eq!(tables.len(), 1);
    assert_eq!(tables[0].targets, 2, "8 and 9 Mpps; the gain is derived from them");
    assert!(tables[0].fitted.is_empty(), "nothing may be fitted to two numbers");
    assert_eq!(tables[0].verdict().name(), "prediction");
    let check = SkbCache.check_table("seed004", &[1, 2, 3]).expect("the table");
    println!("{:?}", check.errors);
    let mape = check.in_sample_mape.expect("an error");
    assert!(mape > 0.0 && mape < 80.0, "prediction error {mape:.1} %");
    let r = SkbCache.reproduce_mean(&[1, 2, 3]).expect("has a seed table");
    let gain = r.rows.iter().find(|r| r.label == "gain").unwrap().cells[0].simulated;
    assert!(gain > 8.0 && gain < 25.0, "gain {gain:.2} % (the seed's {:.1})", seed::gain_pct());
    assert!(SkbCache.calibration().is_none(), "no Calibration: nothing to fit");
}

#[test]
fn caches_move_every_free_home_under_slub() {
    let off = run(&["allocator=slub"]);
    let on = run(&with_on(&["allocator=slub"]));
    // Without the caches every slab object of both skbs is freed on a CPU that did not
    // allocate it: 3 with 5.2's page-fragment rx head (sk_buff; fclone and head), 4 with a
    // kmalloc'd one.
    assert!(metric(&off, "slowpath_frees_per_request") > 2.5, "{}", metric(&off, "slowpath_frees_per_request"));
    let kmalloc = run(&["allocator=slub", "rx_head=kmalloc"]);
    assert!(metric(&kmalloc, "slowpath_frees_per_request") > 3.5, "{}", metric(&kmalloc, "slowpath_frees_per_request"));
    assert!(metric(&off, "freed_on_alloc_cpu_pct") < 5.0);
    // With 10,000 flows the parked rx skb's slab is no longer its CPU's active slab when the
    // next request frees it: a slow-path free, but on the allocating CPU (its own lines).
    assert!(metric(&on, "slowpath_frees_per_request") < 1.2, "{}", metric(&on, "slowpath_frees_per_request"));
    assert!(metric(&on, "freed_on_alloc_cpu_pct") > 95.0);
    assert!(metric(&on, "gain_pct") > 5.0);
    assert_eq!(metric(&off, "gain_pct"), 0.0);
}

/// Under SLAB a free lands in the freeing CPU's own array unless the object is another
/// node's: then it goes to that node's alien cache (`__cache_free_alien`), under the alien
/// cache's lock. Without the caches about half the frees cross nodes (the threads are spread
/// over both sockets); with both caches every free is on the allocating CPU, and the spin is
/// gone.
#[test]
fn caches_move_every_free_home_under_slab() {
    let off = run(&[]);
    let on = run(&ON);
    let slow = |o| metric(o, "slowpath_frees_per_request");
    println!("not an array push per request: off {:.2}, on {:.2}", slow(&off), slow(&on));
    // About half of the 3 slab frees (sk_buff, fclone, tx head; the rx head is a page
    // fragment) cross nodes.
    assert!(slow(&off) > 1.2 && slow(&off) < 3.0, "{}", slow(&off));
    assert!(metric(&off, "freed_on_alloc_cpu_pct") < 5.0);
    assert!(slow(&on) < 0.5, "{}", slow(&on));
    assert!(metric(&on, "freed_on_alloc_cpu_pct") > 95.0);
    assert!(metric(&off, "spin_pct") > 5.0 && metric(&on, "spin_pct") < 1.0);
}

#[test]
fn rps_leaves_the_rx_allocation_on_a_third_cpu() {
    let out = run(&with_on(&["rps=true", "allocator=slub"]));
    let gain = metric(&out, "gain_pct");
    assert!(gain.abs() < 2.0, "rps gain {gain:.2} %");
    // The rx skb is still freed away from the driver's CPU: about one skb in two (the rx one,
    // its sk_buff a slow-path free, its fragment head a put_page).
    assert!(metric(&out, "freed_on_alloc_cpu_pct") < 60.0);
    assert!(metric(&out, "slowpath_frees_per_request") > 0.9);
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
    // A small CPU-bound box (two cores: the 100 Gbit/s link does not limit it): 45-frag GRO
    // requests put 45 page frees per request on the wrong CPU without the rx cache.
    let small = ["sockets=1", "cpus=2", "smt=false", "threads=2", "flows=32"];
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

/// More threads than 4 per logical CPU is refused, in one line naming the parameter.
#[test]
fn too_many_threads_is_a_one_line_error() {
    let e = SkbCache.params_from(&["threads=2000".into(), "cpus=2".into(), "sockets=1".into()]).unwrap_err();
    assert!(!e.to_string().contains('\n') && e.to_string().contains("threads"), "{e}");
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
    let input = |s: &[String]| sc::Input::from(&SkbCache.params_from(s).unwrap());
    let d = sc::lane_diagram(&input(&[]), 1);
    assert_ne!(d.off.irq_cpu, d.off.app_cpu, "flow 0's IRQ and thread share a CPU: pick another seed");
    let (n_off, same_off) = frees_on(&d.off, true);
    let (n_on, same_on) = frees_on(&d.on, true);
    assert!(n_off >= 3 && n_on >= 3, "{n_off} / {n_on} rx frees recorded");
    assert_eq!(same_off, 0, "caches off: rx skbs freed by recvmsg on the app CPU");
    assert_eq!(same_on, n_on, "caches on: rx skbs freed by the next softirq on the IRQ CPU");
    let rps = sc::lane_diagram(&input(&["rps=true".to_string()]), 1);
    let (n_rps, same_rps) = frees_on(&rps.on, true);
    assert!(n_rps >= 3 && same_rps == 0, "rps: {same_rps} of {n_rps} rx frees on the IRQ CPU");
}

/// 1,024, 10,000 and 1,000,000 flows differ: a simulated flow stands for
/// flows/1,024 sockets whose state ages out of L2 and L3 by capacity; a million sockets' state
/// comes from DRAM (more line time per request, fewer Mpps). A model that capped the flows
/// (MAX_SIM_FLOWS) and aged nothing gave bit-identical output.
///
/// Between 1,024 and 10,000 flows the line time may not grow beyond noise, and that is the
/// physics: a socket's private state is 2 × 8 lines (1 KiB); 10,000 sockets over 56 cores are
/// ~180 KiB per core, inside a 1 MiB L2 (and 10 MiB in all, inside 77 MiB of L3). What a
/// request pays there is the shared socket and skb lines crossing CPUs, the same at any flow
/// count. Capacity misses start near 56 × 1 MiB / 1 KiB ≈ 57,000 sockets; at a million
/// every request fetches its socket's state from DRAM.
#[test]
fn flows_scale_socket_state_misses() {
    let at = |f: &'static str| run(&[f]);
    let (a, b, c) = (at("flows=1024"), at("flows=10000"), at("flows=1000000"));
    let line = |o: &skblab_core::RunOutput| metric(o, "line_ns_per_request");
    assert_ne!(a, b, "1,024 and 10,000 flows give the same output");
    assert!(
        line(&b) >= 0.99 * line(&a),
        "10,000 sockets fit the caches: non-decreasing within 1 %: {} {}",
        line(&a),
        line(&b)
    );
    assert!(line(&c) > line(&b) + 500.0, "a million sockets' state must come from far: {} vs {}", line(&c), line(&b));
    // ... and their memory: the memory rows already bill every socket.
    let mem = c.column_f64("mem_off_gib");
    assert!(mem.iter().flatten().any(|&g| g > 3.0), "{mem:?}");
}

/// Flows beyond the simulated ones (docs/knob-audit.md, finding 5): beyond the 16,384 simulated flows each one
/// stands for `flows / 16,384` sockets as an exact ratio (a rounded integer made 16,384 to
/// 24,575 flows identical and 100,000 equal to 1,000,000), and the round trip grows by
/// Little's law for the flows that are not simulated: in a saturated closed loop with one
/// request in flight per flow, latency = flows / transactions per second (less the client's
/// turnaround). A model without it stopped at 2.86 ms for a million flows.
#[test]
fn flows_beyond_the_simulated_ones_still_move_the_run() {
    let at = |f: u32| run(&[&format!("flows={f}")]);
    let lat = |o: &skblab_core::RunOutput| metric(o, "latency_us");
    let runs: Vec<_> = [16_384, 20_000, 24_575, 100_000, 1_000_000].into_iter().map(|f| (f, at(f))).collect();
    assert_ne!(runs[1].1, runs[2].1, "20,000 and 24,575 flows give the same output");
    assert_ne!(runs[3].1, runs[4].1, "100,000 and 1,000,000 flows give the same output");
    for w in runs.windows(2) {
        assert!(
            lat(&w[1].1) > lat(&w[0].1),
            "latency {} µs at {} flows vs {} µs at {}",
            lat(&w[1].1),
            w[1].0,
            lat(&w[0].1),
            w[0].0
        );
    }
    // Little's law at a million flows: transactions per second = Mpps / 2 (a request and a
    // response per transaction).
    let (f, o) = &runs[4];
    let little_us = f64::from(*f) / (metric(o, "mpps") * 1e6 / 2.0) * 1e6;
    assert!((lat(o) - little_us).abs() < 0.02 * little_us, "{} µs vs Little's law {little_us:.0} µs", lat(o));
}

/// 112, 224 and 448 threads on 112 CPUs differ: several threads share a CPU, so
/// each epoll batch is smaller, and a thread that runs out of ready sockets sleeps and the CPU
/// switches (context switches). With 512 flows threads run dry; with the seed's 10,000
/// (22 sockets per thread at 448) every thread always has work, never sleeps, and CFS shares
/// the CPU among them: the cost is within 2 %.
#[test]
fn more_threads_than_cpus_cost_context_switches() {
    let m: Vec<f64> =
        ["threads=112", "threads=224", "threads=448"].iter().map(|t| metric(&run(&[t, "flows=512"]), "mpps")).collect();
    assert!(m[0] > m[1] && m[1] > m[2], "{m:?}");
    let prof = run(&["threads=448", "flows=512"]).view("profile").unwrap().text.clone();
    assert!(prof.contains("__schedule"), "context switches in the profile");
    let (a, b) = (metric(&run(&["threads=112"]), "mpps"), metric(&run(&["threads=448"]), "mpps"));
    assert!((a - b).abs() < 0.02 * a, "10,000 flows: {a} vs {b}");
}

/// The gain grows with the core count (more CPUs: nearly every free is remote, and
/// more of them cross the socket). Shown and explained in docs/skb-cache.md.
#[test]
fn gain_grows_with_cores() {
    let gain = |c: &'static str, t: &'static str| metric(&run(&with_on(&[c, t])), "gain_pct");
    let (g7, g28) = (gain("cpus=7", "threads=28"), gain("cpus=28", "threads=112"));
    assert!(g28 > g7, "gain at 7 cores/socket {g7:.2} vs 28 {g28:.2}");
}

/// `rx_queues`: fewer RX queues than CPUs put every driver allocation and TCP
/// receive on a few CPUs while all CPUs free: the IRQ CPUs saturate (Mpps falls with the
/// queues, the other CPUs idle) and nearly every rx free is remote (the exceptions: the flows
/// whose thread runs on an IRQ CPU, which ksoftirqd now lets run). On SLAB the allocating CPUs
/// refill and the freeing CPUs flush their arrays under list_lock (on SLUB the freeing CPUs'
/// partial lists overflow): docs/skb-cache.md, "Flows, threads, cores and slab contention".
/// Fewer than 4x between 32 and 8 queues: the idle threads' CPUs are woken, and the IRQ CPUs
/// pay only `try_to_wake_up` of each wakeup (its `schedule()` runs on the thread's CPU), a
/// larger share of an 8-queue IRQ CPU's work (0.91 wakeups per request against 0.75).
#[test]
fn fewer_rx_queues_saturate_the_irq_cpus() {
    let at = |q: &'static str| run(&[q]);
    let (all, half, few) = (at("rx_queues=112"), at("rx_queues=32"), at("rx_queues=8"));
    let mpps = |o: &skblab_core::RunOutput| metric(o, "mpps");
    assert!(
        mpps(&all) > 1.3 * mpps(&half) && mpps(&half) > 2.5 * mpps(&few),
        "{} {} {}",
        mpps(&all),
        mpps(&half),
        mpps(&few)
    );
    assert!(metric(&few, "busy_pct") < 25.0, "8 IRQ CPUs saturate, the rest idle: {}", metric(&few, "busy_pct"));
    assert!(metric(&few, "freed_on_alloc_cpu_pct") < 10.0, "{}", metric(&few, "freed_on_alloc_cpu_pct"));
}

/// The world's counters of one run of `settings` (caches off unless set) with `seed`.
fn world_run(settings: &[&str], seed: u64) -> sc::RunResult {
    let p = common::params(&SkbCache, settings);
    sc::run_input(&sc::Input::from(&p), sc::profile::SERVER_2019_RR, seed).0
}

/// SLUB's slabs turn over — and `list_lock` is taken — only
/// when more of a cache's objects are in flight per allocating CPU than a slab holds (32 for
/// `skbuff_head_cache` at 112 CPUs). The rx skb is in flight from the driver to recvmsg. In the
/// saturated default the requests do *not* wait before the driver (in the NIC ring, no
/// sk_buff): softirq work runs first, so the driver allocates on arrival and the skb waits on
/// the socket for the epoll loop, ~87 per CPU (not the other way round:
/// docs/knob-audit.md, finding 5). Fewer flows hold fewer: 2,048 flows hold ~16 per CPU and take `list_lock`
/// almost never, 10,000 hold ~87 and take it ~9 times per 1,000 requests.
#[test]
fn slab_turnover_follows_the_rx_skbs_held_per_cpu() {
    let r = world_run(&["allocator=slub"], 1);
    let flows = f64::from(r.sim_flows);
    println!("10,000 flows: {:.1} waiting for the driver, {:.1} rx skbs held", r.waiting_for_driver, r.rx_skbs_held);
    assert!(r.waiting_for_driver < 0.01 * flows, "{:.1} requests before the driver", r.waiting_for_driver);
    assert!(r.rx_skbs_held > 0.95 * flows, "{:.1} rx skbs held of {flows} flows", r.rx_skbs_held);
    let per_req = |r: &sc::RunResult| r.list_lock as f64 / r.requests.max(1) as f64 * 1000.0;
    let few = world_run(&["flows=2048", "allocator=slub"], 1);
    let held = |r: &sc::RunResult| r.rx_skbs_held / f64::from(r.n_cpus);
    println!(
        "list_lock per 1,000 requests: {:.2} at {:.1} held per CPU, {:.2} at {:.1}",
        per_req(&few),
        held(&few),
        per_req(&r),
        held(&r)
    );
    assert!(held(&few) < 32.0 && held(&r) > 64.0, "held per CPU {:.1} / {:.1}", held(&few), held(&r));
    assert!(per_req(&few) < 1.0, "{:.2} list_lock per 1,000 requests below a slab in flight", per_req(&few));
    assert!(per_req(&r) > 5.0, "{:.2} list_lock per 1,000 requests at ~87 held per CPU", per_req(&r));
    assert!(r.list_lock_contended > few.list_lock_contended);
}

/// At a fixed load per CPU (the seed's 10,000 flows on 112 threads, i.e.
/// ~87 rx skbs held per CPU, flows and threads scaled with the CPUs) more cores per socket
/// put more CPUs on each node's `list_lock` (SLAB's refills, flushes and alien drains) at the
/// same rate each: contentions must not fall
/// as cores are added, and an acquisition waits longer at 28 cores than at 7 (summed over
/// seeds 1–3; each seed alone is noisy). At a fixed 10,000 flows they need not rise: each CPU
/// holds fewer skbs.
#[test]
fn list_lock_contention_grows_with_cores_at_a_fixed_load_per_cpu() {
    let mut seen: Vec<(u64, f64)> = Vec::new();
    for (cores, threads, flows) in [
        ("cpus=7", "threads=28", "flows=2500"),
        ("cpus=14", "threads=56", "flows=5000"),
        ("cpus=28", "threads=112", "flows=10000"),
    ] {
        let (mut acq, mut cont, mut wait) = (0, 0, 0);
        for seed in 1..=3 {
            let r = world_run(&[cores, threads, flows], seed);
            acq += r.list_lock;
            cont += r.list_lock_contended;
            wait += r.slub.list_lock_wait_ns;
        }
        let per_acq = wait as f64 / acq.max(1) as f64;
        println!("{cores}: list_lock {acq}, contended {cont}, {per_acq:.0} ns waited per acquisition");
        if let Some(&(c, _)) = seen.last() {
            assert!(cont >= c, "{cores}: contended {cont}, before {c}");
        }
        seen.push((cont, per_acq));
    }
    assert!(seen[2].1 > seen[0].1 && seen[2].0 > 0, "{seen:?}");
}

/// A CPU's per-CPU partial slabs are one list (`kmem_cache_cpu->partial`,
/// one per cache and CPU), whatever the slabs' nodes, and every skb allocation passes
/// `NUMA_NO_NODE`, so `___slab_alloc` takes a slab of the other node that the CPU froze by a
/// remote free (5.x mm/slub.c: `node_match` is true for `NUMA_NO_NODE`). The world modelled one
/// list per node and allocated only from the CPU's own node: those lists only grew, and
/// drained every 14 slabs under `list_lock`; no CPU ever took a slab of the other node (0).
#[test]
fn a_cpu_allocates_from_the_other_nodes_slabs_it_froze() {
    let two = world_run(&["allocator=slub"], 1);
    let one = world_run(&["sockets=1", "threads=56", "allocator=slub"], 1);
    println!(
        "partial slabs taken off-node: {} on two sockets, {} on one",
        two.off_node_partial_allocs, one.off_node_partial_allocs
    );
    assert_eq!(one.off_node_partial_allocs, 0);
    assert!(two.off_node_partial_allocs > 100, "{}", two.off_node_partial_allocs);
    assert!(two.slub.cpu_partial_alloc > 2 * two.off_node_partial_allocs / 3);
}

/// The busy share of all CPUs is a share of the window's CPU time: never above 100 %, also
/// where every CPU is saturated and operations charged at the window's end run past it (a long
/// warm-up, the 5.11+ kmalloc heads, a short window: 100.1-100.2 % before the cap).
#[test]
fn busy_share_is_at_most_100_pct_on_saturated_cpus() {
    for settings in [&["warmup_us=10000"][..], &["rx_head=kmalloc"], &["warmup_us=10000", "measure_us=1000"]] {
        let out = run(settings);
        let busy = metric(&out, "busy_pct");
        assert!((99.0..=100.0).contains(&busy), "{settings:?}: busy_pct {busy}");
        let text = out.views.iter().map(|v| format!("{v:?}")).collect::<String>();
        assert!(
            !text.contains("100.1 % busy") && !text.contains("100.2 % busy"),
            "{settings:?}: a view says more than 100 % busy"
        );
    }
}
