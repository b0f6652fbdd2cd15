//! Fidelity and response-to-knobs tests of `page-frag-free` against seed 002 (Tariq Toukan
//! quoting Aaron Lu's patch, netdev / linux-mm, 2018-11-07,
//! <ec2e45bb-5c28-8f89-5bb5-041f68f79b51@mellanox.com>; commit 65895b67ad27).
//!
//! Targets: before the fix, each of the four big perf frames within ±2.5 points of the seed
//! (router, one fitted constant: its carried load) at that load without drop; the x86 and
//! Cortex-A53 gains are predictions from the catalogue (their misses are in
//! docs/page-frag-free.md), all as the mean of seeds 1..=5. Knobs: more RX queues or CPUs →
//! more contention before the fix; recycle_pct=100 → the allocator and the fix stop
//! mattering; bigger packets → smaller gain.

use skblab_core::experiments::page_frag_free::machines::{MachineKind, ROUTER};
use skblab_core::experiments::page_frag_free::{
    self as pff, machine_defaults, pair, summary_on, Fix, PageFragFree, Shares, SEED_GAIN_A53_PCT, SEED_GAIN_X86_PCT,
    SEED_SHARES,
};
use skblab_core::params::Params;
use skblab_core::sim::world::World as _;
use skblab_core::{Experiment, ParamError};

fn params(settings: &[&str]) -> Params {
    PageFragFree.params_from(&settings.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect("valid settings")
}

const SEEDS: [u64; 5] = [1, 2, 3, 4, 5];

#[test]
fn reproduces_seed_002_over_five_seeds() {
    let figures: Vec<Vec<f64>> = SEEDS.iter().map(|&s| pff::reproduce_figures(s)).collect();
    let mean = |k: usize| figures.iter().map(|f| f[k]).sum::<f64>() / SEEDS.len() as f64;
    // The four big frames of the router (the fitted table: one constant, the carried load).
    for (k, (label, _, seed)) in SEED_SHARES.iter().enumerate() {
        let sim = mean(k);
        assert!((sim - seed).abs() <= 2.5, "{label}: sim {sim:.2} % vs seed {seed} %");
    }
    // The two gains are predictions (nothing fitted to them), reported in
    // docs/page-frag-free.md: x86 within a factor of two of the seed's (on the host's own
    // clock, with recycling and stack cycles fitted to the XDP paper's rates), the A53 positive
    // and short of the seed's (a miss the docs explain).
    let (x86, a53) = (mean(7), mean(8));
    assert!(
        (SEED_GAIN_X86_PCT / 2.0..SEED_GAIN_X86_PCT * 2.0).contains(&x86) && a53 > 0.0 && a53 < SEED_GAIN_A53_PCT,
        "x86 {x86:.2} % vs {SEED_GAIN_X86_PCT}, a53 {a53:.2} % vs {SEED_GAIN_A53_PCT}"
    );
    let r = PageFragFree.reproduce(1).expect("has a seed table");
    let labels: Vec<&str> = r.rows.iter().map(|r| r.label.as_str()).collect();
    let mut want: Vec<&str> = pff::SEED_FRAMES.iter().map(|(n, _)| *n).collect();
    want.extend(["x86 micro-benchmark", "cortex-a53 64 B"]);
    assert_eq!(labels, want);
}

/// The seed's ~10 % spin must emerge at a load the router carries, not at
/// 79 % packet drop (the old model offered 100 Gbit of 800-byte packets, 15.2 Mpps).
#[test]
fn the_router_spins_like_the_seed_while_carrying_its_load() {
    let p = PageFragFree.defaults();
    let i = pff::Input::new(&p);
    assert!(i.offered_pps() < 10_000_000, "offered {} pps: not line rate", i.offered_pps());
    for &seed in &SEEDS[..3] {
        let before = summary_on(&ROUTER, &p, Fix::Before, seed);
        let drop = pff::drop_pct(&i, &before);
        let spin = Shares::of(&before.flame).spin_free;
        assert!(drop < 1.0, "seed {seed}: {drop:.2} % dropped");
        assert!((7.0..=13.0).contains(&spin), "seed {seed}: spin {spin:.2} % (seed 10.10 %)");
    }
}

/// x86: the benchmark's forwarding capacity is the sourced one (6 cores
/// of the XDP paper's E5-1650 v4 forward 9.29 Mpps with one route), and its gain does not
/// need a 98.7 % drop: just past the after-fix capacity it is the line-rate flood's gain.
#[test]
fn the_x86_gain_needs_saturation_not_a_flood() {
    // A driver that recycles nothing, so that the lock is what limits the box before the fix.
    let flood = pair(&params(&["machine=x86-bench", "recycle_pct=0"]), 1);
    let after = flood.after.mpps;
    // Uncontended capacity (after the fix) against the paper's 9.29 Mpps (uncontended too:
    // its driver recycled, `the_x86_hosts_rates_before_the_fix_are_the_xdp_papers`).
    assert!((after - 9.29).abs() / 9.29 < 0.25, "after-fix capacity {after:.2} Mpps vs 9.29");
    let just_past = format!("offered_kpps={}", ((after * 1.2 * 100.0).round() * 10.0) as u64);
    let near = pair(&params(&["machine=x86-bench", "recycle_pct=0", &just_past]), 1);
    assert!((near.gain_pct - flood.gain_pct).abs() < 0.05 * flood.gain_pct.abs() + 1.0, "{near:?}");
}

/// Overload: a NIC's send queue holds `TX_SQ` packets; when the CPU that
/// polls its completions lags, the queue fills and the transmit drops (the receiving CPU frees
/// the packet). The old model queued completions without bound: at a 15.2 Mpps flood the
/// router held 54,000 pages in flight and node 1's zone ran dry (5,269 allocation failures).
/// With the bound the zone never runs dry, and what is forwarded or dropped at the send queue
/// never exceeds what was received.
#[test]
fn a_lagging_completion_cpu_fills_its_send_queue_not_the_zone() {
    for (machine, kpps) in [("router", 8000), ("router", 15200), ("x86-bench", 0)] {
        let p = params(&[&format!("machine={machine}"), &format!("offered_kpps={kpps}")]);
        let b = pff::machines::machine(pff::Input::new(&p).machine);
        let sim = pff::simulate_on(b, &p, Fix::Before, 1);
        let s = &sim.stats;
        assert_eq!(s.alloc_failures, 0, "{machine} at {kpps} kpps: {s:?}");
        assert!(s.forwarded > 0, "{machine} at {kpps} kpps: {s:?}");
    }
    assert_eq!(pff::world::TX_SQ, 1024, "mlx5's default send queue (log_sq_size 0xa)");
}

#[test]
fn after_the_fix_the_free_path_barely_spins_but_batches_still_take_the_lock() {
    let p = PageFragFree.defaults();
    let mut spin = 0.0;
    for &seed in &SEEDS[..3] {
        let after = summary_on(&ROUTER, &p, Fix::After, seed);
        spin += Shares::of(&after.flame).spin_free / 3.0;
        // Alloc and free on different CPUs: lists still drain and refill under zone->lock.
        assert!(after.stats.pcp_drains > 0 && after.stats.pcp_refills > 0, "{:?}", after.stats);
        assert_eq!(after.stats.free_one_page_calls, 0);
        assert!(Shares::of(&after.flame).free_pcppages_bulk > 0.1);
    }
    // The seed says "lock contention is gone"; the model keeps 2.2 % (cross-socket drains and
    // refills of 63 pages), a fifth of the 10.8 % before.
    assert!(spin < 2.5, "spinning under the free path after the fix: {spin:.2} %");
    // With completions on the receiving CPU the lists balance: no lock at all.
    let same = summary_on(&ROUTER, &params(&["tx_irq=same"]), Fix::After, 1);
    assert_eq!(same.stats.zone_lock_calls(), 0, "{:?}", same.stats);
}

#[test]
fn one_zone_and_smt_siblings_mean_more_contention_before_the_fix() {
    let spin = |s: &[&str]| Shares::of(&summary_on(&ROUTER, &params(s), Fix::Before, 1).flame).spin_free;
    // At the router's load: 8 queues are the first 8 cores of socket 0, so every page comes
    // from (and goes back to) one zone: one lock takes the whole load. 28 queues split it over
    // both zones; 56 add the SMT siblings, which hold the lock longer (1.6x slower threads).
    let (q8, q28, q56) = (spin(&["rx_queues=8"]), spin(&["rx_queues=28"]), spin(&["rx_queues=56"]));
    assert!(q8 > q28 && q28 < q56, "{q8:.2} {q28:.2} {q56:.2}");
    let gain = |c: &str| pair(&params(&["machine=x86-bench", "recycle_pct=0", c]), 1).gain_pct;
    let (c2, c6) = (gain("cpus=2"), gain("cpus=6"));
    assert!(c2 + 1.0 < c6, "x86-bench gain: 2 cpus {c2:.2} %, 6 cpus {c6:.2} %");
}

#[test]
fn full_recycling_makes_the_allocator_and_the_fix_irrelevant() {
    let p = pair(&params(&["machine=x86-bench", "recycle_pct=100"]), 1);
    assert!(p.gain_pct.abs() < 0.5, "gain {:.2} %", p.gain_pct);
    let s = Shares::of(&p.before.flame);
    assert_eq!((s.free_pages_ok, s.spin_all, s.rmqueue_bulk), (0.0, 0.0, 0.0));
    // The benchmark is saturated, so the gain shows: half the pages recycled, a smaller one.
    let half = pair(&params(&["machine=x86-bench", "recycle_pct=50"]), 1).gain_pct;
    let none = pair(&params(&["machine=x86-bench", "recycle_pct=0"]), 1).gain_pct;
    assert!(half < none, "gain at 50 % recycling {half:.2} vs none {none:.2}");
}

/// x86: the XDP paper measured this host forwarding 9.29 Mpps on six
/// cores *before* the fix, nearly in proportion to the cores; a driver that recycled nothing
/// would have stopped at about half of that on one zone->lock (the old model's 4.68 Mpps and
/// +80 % gain). With the recycling and the stack's cycles fitted to those rates the model's
/// are within 3 % of each (the one-core rate within 0.5 %: it fixes the cycles), and on the
/// host's own clock the predicted gain lands within a factor of two of the seed's +7 %; on the
/// borrowed Broadwell-EP clock it was +0.51 % (docs/page-frag-free.md, "The host's own clock").
#[test]
fn the_x86_hosts_rates_before_the_fix_are_the_xdp_papers() {
    let sim = pff::validate::xdp_fwd_rates(&SEEDS[..3]);
    for (k, (s, m)) in sim.iter().zip(pff::validate::XDP_FWD_MPPS).enumerate() {
        let tolerance = if k == 0 { 0.005 } else { 0.03 };
        assert!((s / m - 1.0).abs() < tolerance, "{} cores: {s:.3} vs {m:.3} Mpps", k + 1);
    }
    let none = pair(&params(&["machine=x86-bench", "recycle_pct=0"]), 1);
    // Two packets per page halve the lock passes: without recycling six cores fall ~11 % short.
    assert!(none.before.mpps < 0.92 * 9.285971, "no recycling: {:.2} Mpps before the fix", none.before.mpps);
    let fitted = pair(&machine_defaults(MachineKind::X86Bench), 1).gain_pct;
    let seed = SEED_GAIN_X86_PCT;
    assert!((seed / 2.0..seed * 2.0).contains(&fitted), "x86 gain {fitted:.2} % vs the seed's {seed} %");
}

/// The x86 host runs at its own part's clock (the E5-1650 v4: 3,804 MHz with one and with four
/// busy cores, measured by `perf stat` in the XDP paper's notes), not at its family's (an
/// E5-2680 v4's 3.3 / 2.9 GHz), and the catalogue checks it against that part.
#[test]
fn the_x86_host_has_the_e5_1650_v4s_clock() {
    use skblab_core::sim::catalogue::{part, E5_1650_V4};
    let cpu = &pff::machines::machine(MachineKind::X86Bench).cpu;
    assert_eq!(cpu.part, Some(E5_1650_V4.name));
    assert_eq!(cpu.turbo_max_mhz, 3804);
    assert_eq!(cpu.turbo_all_core_mhz, 3804);
    assert!(cpu.catalogue_mismatches().is_empty(), "{:?}", cpu.catalogue_mismatches());
    let mut other = cpu.clone();
    other.turbo_max_mhz = 3300;
    assert_eq!(other.catalogue_mismatches().len(), 1, "a clock off its part is a mismatch");
    other.part = Some("no such part");
    assert!(other.catalogue_mismatches().iter().any(|m| m.contains("no part")));
    assert!(part("Xeon E5-1650 v4").is_some());
}

#[test]
fn bigger_packets_mean_fewer_pages_per_second_and_a_smaller_gain() {
    let gain = |b: &str| pair(&params(&["machine=cortex-a53", b]), 1).gain_pct;
    let (g64, g512) = (gain("packet_bytes=64"), gain("packet_bytes=512"));
    // 512-byte frames at 1 Gbit are 235 kpps, below the A53's capacity: nothing to gain.
    assert!(g64 > 1.0 && g512 < 0.5, "64 B {g64:.2} %, 512 B {g512:.2} %");
}

#[test]
fn pcp_batch_above_pcp_high_is_one_line_error() {
    let e = PageFragFree.params_from(&["pcp_batch=400".into(), "pcp_high=100".into()]).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, ParamError::BadValue { .. }) && !text.contains('\n'), "{text}");
    assert!(text.contains("pcp_batch") && text.contains("pcp_high"), "{text}");
    let e = PageFragFree.params_from(&["sockets=2".into(), "cpus=7".into()]).unwrap_err();
    assert!(e.to_string().contains("cpus"), "{e}");
}

#[test]
fn machines_are_data_and_runs_keep_the_zones_consistent() {
    for kind in [MachineKind::Router, MachineKind::X86Bench, MachineKind::CortexA53] {
        let p = machine_defaults(kind);
        for fix in [Fix::Before, Fix::After] {
            let b = pff::machines::machine(kind);
            let mut sim = pff::world::ForwardSim::new(pff::config_on(b, &p, fix), 7);
            let mut n = 0;
            while sim.step() {
                n += 1;
                if n % 997 == 0 {
                    sim.check_invariants().unwrap_or_else(|e| panic!("{kind:?} {fix:?} after {n} events: {e}"));
                }
            }
            assert!(!sim.outcome().truncated && sim.stats.forwarded > 0);
        }
    }
    let c = pff::calibrate::constants(MachineKind::Router);
    assert!(c.len() <= 8);
    for kind in [MachineKind::Router, MachineKind::X86Bench, MachineKind::CortexA53] {
        for (c, v) in pff::calibrate::constants(kind).iter().zip(pff::calibrate::committed(kind)) {
            assert!((c.min..=c.max).contains(&v), "{kind:?} {} = {v} outside {}..={}", c.name, c.min, c.max);
        }
    }
}

#[test]
fn run_has_both_flame_graphs_and_is_deterministic() {
    let p = PageFragFree.defaults();
    let a = PageFragFree.run(&p, 3);
    assert_eq!(a, PageFragFree.run(&p, 3));
    let ids: Vec<&str> = a.flames.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["before", "after", "current"]);
    assert_eq!(a.flame("current").unwrap().stacks, a.flame("before").unwrap().stacks, "current follows fix = before");
    let before = a.flame("before").unwrap();
    assert!(before.nodes().iter().any(|n| n.name == "free_one_page"));
    assert!(!a.flame("after").unwrap().nodes().iter().any(|n| n.name == "free_one_page"));
    assert!(a.view("perf").unwrap().text.contains("queued_spin_lock_slowpath"));
}

/// Conservation: a packet counts as forwarded only if it arrived in the measured window, so
/// over random settings of the three machines, before and after the fix, what is forwarded
/// or dropped never exceeds what the generator sent in the window (the model once forwarded
/// 3.12 Mpps of 3.04 offered with `sockets=1`: ring backlog of the warm-up drained in the
/// window and counted).
#[test]
fn carried_load_never_exceeds_offered_load() {
    let mut rng = skblab_core::rng::Rng::new(42, 7);
    for case in 0..12 {
        let machine = ["router", "x86-bench", "cortex-a53"][rng.below(3) as usize];
        let sockets = 1 + rng.below(2);
        let cpus = sockets * (1 + rng.below(8));
        let kpps = [0, 500, 3000, 6000, 9000, 15_000][rng.below(6) as usize];
        let settings = [
            format!("machine={machine}"),
            format!("sockets={sockets}"),
            format!("cpus={cpus}"),
            format!("offered_kpps={kpps}"),
            format!("recycle_pct={}", [0, 50, 90][rng.below(3) as usize]),
            format!("tx_irq={}", ["same", "remote"][rng.below(2) as usize]),
            format!("packet_bytes={}", [64, 800, 1500][rng.below(3) as usize]),
            "warmup_us=2000".to_string(),
            "measure_us=2000".to_string(),
        ];
        let p = params(&settings.iter().map(String::as_str).collect::<Vec<_>>());
        let b = pff::machines::machine(pff::Input::new(&p).machine);
        for fix in [Fix::Before, Fix::After] {
            let s = pff::simulate_on(b, &p, fix, case).stats;
            let out = s.forwarded + s.rx_dropped + s.tx_dropped + s.alloc_failures;
            assert!(s.offered > 0 && out <= s.offered, "{settings:?} {fix:?}: {s:?}");
        }
    }
    // The paper's case: sockets=1 at the router's default load.
    let p = params(&["sockets=1"]);
    let s = pff::simulate_on(&ROUTER, &p, Fix::Before, 1).stats;
    assert!(s.forwarded <= s.offered, "{s:?}");
}

/// Past the knee the router's carried load falls only with its mechanism in the output: at
/// 15 Mpps the send queues overflow, the receiving CPUs free the dropped packets' pages under
/// their own node's zone->lock, both sockets' CPUs queue on each lock, and its FIFO handoffs
/// cross sockets (two cross-socket line transfers each) in a large share of its passes; the
/// run's note says so. Below that the NIC's ring drops carry the excess at no CPU cost.
#[test]
fn past_the_knee_the_carried_load_falls_only_with_its_mechanism_shown() {
    let at = |kpps: u32| pff::summary_on(&ROUTER, &params(&[&format!("offered_kpps={kpps}")]), Fix::Before, 1);
    let knee = at(8000);
    assert_eq!(knee.stats.rx_dropped + knee.stats.tx_dropped, 0, "{:?}", knee.stats);
    let flood = at(15_000);
    let s = &flood.stats;
    let cross = s.cross_socket_passes as f64 / s.zone_lock_calls().max(1) as f64;
    assert!(flood.mpps < knee.mpps, "{:.2} vs {:.2}", flood.mpps, knee.mpps);
    assert!(s.rx_dropped > 0 && s.tx_dropped > 0 && cross > 0.2, "{s:?}: cross-socket passes {cross:.2}");
    let out = PageFragFree.run(&params(&["offered_kpps=15000"]), 1);
    assert!(out.notes.iter().any(|n| n.contains("full send queue") && n.contains("across sockets")), "{:?}", out.notes);
}
