//! The knobs of `high-order-alloc` move the way the real system would (docs/knob-audit.md,
//! findings 1–3), each on the mean of seeds 1..=2 at default parameters otherwise. Each test
//! failed on the model of bbca30e (the numbers in each comment are that model's).

use skblab_core::experiments::high_order_alloc::{self as hoa, FragOrder};
use skblab_core::params::Params;
use skblab_core::Experiment;

fn params(settings: &[String]) -> Params {
    hoa::HighOrderAlloc.params_from(settings).expect("valid settings")
}

/// (order-3, order-0) Mbit/s at `flows`, mean of seeds 1..=2.
fn point(settings: &[&str], flows: u32) -> (f64, f64) {
    let owned: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    let p = params(&owned);
    let (mut a, mut b) = (0.0, 0.0);
    for seed in 1..=2 {
        let s = hoa::sweep_point(&p, flows, seed);
        a += s.order3_mbps / 2.0;
        b += s.order0_mbps / 2.0;
    }
    (a, b)
}

/// `values` never rises (`rises` false) or never falls by more than `tol` (a fraction).
fn monotone(values: &[f64], rises: bool, tol: f64) -> bool {
    values.windows(2).all(|w| if rises { w[1] >= w[0] * (1.0 - tol) } else { w[1] <= w[0] * (1.0 + tol) })
}

#[test]
fn finding1_default_sends_scale_with_flows_and_send_size_orders_throughput() {
    // main: order-0 at 16 KiB sends fell 838 → 332 Gbit/s at 30 flows and fell as flows were
    // added; 4 KiB sends were 12× slower than 64 KiB.
    let o0: Vec<f64> = [10, 20, 30].iter().map(|&n| point(&[], n).1).collect();
    assert!(monotone(&o0, true, 0.03), "order-0 at 10/20/30 flows: {o0:?}");
    for flows in [1, 8] {
        let by_size: Vec<(f64, f64)> =
            ["msg_bytes=4096", "msg_bytes=16384", "msg_bytes=65536"].iter().map(|s| point(&[s], flows)).collect();
        let (o3, o0): (Vec<f64>, Vec<f64>) = by_size.iter().copied().unzip();
        assert!(monotone(&o3, true, 0.03) && monotone(&o0, true, 0.03), "{flows} flows, 4/16/64 KiB: {by_size:?}");
        // Four times the syscalls, not four times the segments: it should be well above a
        // quarter of 16 KiB (a 2-vCPU loopback measured 0.54-0.66x, autocorking never fired).
        // Main gave 0.19-0.23x at one flow (every 4 KiB send its own segment: netserver acked
        // every read). With Linux's ACK rules (before the refit, mean of seeds 1..=2): one flow
        // 29.1 / 25.4 against 43.3 / 36.3 Gbit/s (0.67x / 0.70x), 8 flows 163 / 188 against
        // 266 / 274 (0.61x / 0.69x); 26-36 kB per segment.
        let (r3, r0) = (by_size[0].0 / by_size[1].0, by_size[0].1 / by_size[1].1);
        assert!(
            (0.45..=0.8).contains(&r3) && (0.45..=0.8).contains(&r0),
            "{flows} flows: 4 KiB / 16 KiB {r3:.2} / {r0:.2}"
        );
    }
}

#[test]
fn finding2_one_flow_never_speeds_up_when_the_mesh_slows_down() {
    // main: 60–80 ns → 49.8 Gbit/s, 85 → 53.5, 97 → 47.0, 120 → 37.5; order-0 rose 37.0 → 39.1
    // from 97 to 112 ns.
    let runs: Vec<(f64, f64)> = [41, 50, 56, 60, 70, 85, 97, 112, 120]
        .iter()
        .map(|ns| point(&[&format!("line_transfer_ns={ns}")], 1))
        .collect();
    let (o3, o0): (Vec<f64>, Vec<f64>) = runs.iter().copied().unzip();
    println!("line_transfer_ns 41..120, one flow: o3 {o3:?} o0 {o0:?}");
    // Before the socket and wakeup lines were priced and an L3 hit scaled with the mesh,
    // order-3 rose +12 % (56 -> 60 ns) and +17 % (85 -> 97 ns), order-0 +7.9 % (56 -> 70 ns).
    // Now (mean of seeds 1..=2): order-3 42.4, 43.3, 43.3, 43.6, 40.0, 34.8, 32.4, 32.1, 31.6
    // Gbit/s, order-0 36.0, 36.3, 36.1, 36.0, 35.6, 32.9, 29.6, 26.7, 25.4: within 3 %.
    assert!(monotone(&o3, false, 0.03), "order-3, one flow: {o3:?}");
    assert!(monotone(&o0, false, 0.03), "order-0, one flow: {o0:?}");
    let cross: Vec<(f64, f64)> = [110, 134, 180, 300]
        .iter()
        .map(|ns| point(&[&format!("cross_socket_ns={ns}"), "placement=split"], 2))
        .collect();
    let (c3, c0): (Vec<f64>, Vec<f64>) = cross.iter().copied().unzip();
    assert!(monotone(&c3, false, 0.02) && monotone(&c0, false, 0.02), "split, 2 flows: {cross:?}");
}

/// One flow, order 3, at `line_transfer_ns` = `ns`, mean of seeds 1..=2: Gbit/s, the
/// receiver's busy share of the window, ACKs per segment, and the share of last `put_page`s
/// on the receiver's CPU.
fn one_flow_balance(ns: u64) -> [f64; 4] {
    use skblab_core::sim::world::World as _;
    let p = params(&[format!("line_transfer_ns={ns}")]);
    let mut acc = [0.0; 4];
    for seed in 1..=2 {
        let mut sim = hoa::StreamSim::new(hoa::config(&p, 1, FragOrder::Order3), seed);
        sim.run();
        let rep = sim.profile.report(String::new());
        let rcv: u64 = rep.entries.iter().filter(|e| e.command == "netserver").map(|e| e.ns).sum();
        let st = &sim.stats;
        let acks = st.acks_on_arrival + st.acks_on_read + st.acks_by_timer;
        let puts = (st.last_put_by_receiver + st.last_put_by_sender).max(1);
        acc[0] += sim.throughput_mbps() / 1000.0 / 2.0;
        acc[1] += rcv as f64 / sim.cfg.measure_ns() as f64 / 2.0;
        acc[2] += acks as f64 / st.segments.max(1) as f64 / 2.0;
        acc[3] += st.last_put_by_receiver as f64 / puts as f64 / 2.0;
    }
    acc
}

#[test]
fn finding2_below_the_receivers_saturation_a_slower_mesh_moves_work_off_the_sender() {
    // The one place where a slower mesh speeds one flow up (docs/knob-audit.md, finding 2):
    // below about 50 ns netserver keeps up and reads each segment soon after it lands, so
    // tcp_cleanup_rbuf acks after the read, while netperf owns its socket (the ACK waits in
    // the backlog and costs the sender at release_sock); once netserver lags, the ACKs go out
    // on arrival, one per two segments, and netserver's read drops the last reference of more
    // pages, so it frees them. Both are Linux's rules; the sender, the bottleneck, gets
    // cheaper until the receiver saturates. Measured (mean of seeds 1..=2, 2026-12-03): 20 ns
    // 40.1 Gbit/s, receiver 66 % busy, 0.62 ACKs per segment, 3 % of last puts; 50 ns 42.8,
    // 98 %, 0.54, 56 %; then down: 80 ns 32.8, 120 ns 29.8.
    let [fast, lag, slow, slowest] = [20, 50, 80, 120].map(one_flow_balance);
    println!("one flow, order 3 at 20/50/80/120 ns: {fast:?} {lag:?} {slow:?} {slowest:?}");
    if lag[0] > fast[0] {
        assert!(lag[0] <= fast[0] * 1.10, "the rise stays small: {:.1} -> {:.1} Gbit/s", fast[0], lag[0]);
        assert!(lag[1] > 0.9 && fast[1] < 0.8, "it ends where the receiver saturates: {:.2} -> {:.2}", fast[1], lag[1]);
        assert!(
            lag[2] < fast[2] && lag[3] > fast[3],
            "fewer ACKs per segment and more frees on the receiver: {fast:?} -> {lag:?}"
        );
    }
    assert!(slow[0] < lag[0] && slowest[0] <= slow[0], "past saturation it only falls: {lag:?} {slow:?} {slowest:?}");
}

#[test]
fn finding3_one_socket_saturates_its_one_lock() {
    // main: the order-3 plateau rose from 296 (11–15 flows) to 391 Gbit/s (25–29 flows) on a
    // saturated lock; two locks → one gave −34 %.
    //
    // Measured (`cargo run --release -p skblab-core --example one_lock`, seeds 1–3;
    // docs/high-order-alloc.md, "One socket, one lock"): at the catalogue's 50 ns mesh the one
    // zone->lock is *not* saturated on one 28-core socket. It is busy 58 / 64 / 82 / 85 % of
    // the window at 13 / 15 / 25 / 29 flows (acquisitions × (hold + handoff): 2.6–3.4 per µs
    // × 226–251 ns), while its ceiling is ~3.85 passes/µs ≈ 510 Gbit/s (reached with 56
    // cores on the socket). Only 0–3.7 % of the handoffs go to an SMT sibling (the mean
    // handoff grows, 74 → 89 ns), and no flow has both threads on one core. Order-3 is
    // CPU-bound like order-0 and climbs with the CPU: from 15 flows the SMT siblings add
    // capacity (two threads at 1/1.6 speed = 1.25× a core, `smt_slowdown_pct`), and the
    // copy's line stalls (ns, uncore) are not slowed by the sibling. Order-0, whose lock is
    // 5–6 % busy, climbs as much (+24 %). The flat top and the −50 % need a lock that binds
    // below the socket's CPU: at the pre-catalogue mesh of 97 ns it does (below).
    let cat = |n| point(&["sockets=1", "cpus=28"], n);
    let (m13, m15, l25, l29) = (cat(13), cat(15), cat(25), cat(29));
    let (mid, late) = ((m13.0 + m15.0) / 2.0, (l25.0 + l29.0) / 2.0);
    let (mid0, late0) = ((m13.1 + m15.1) / 2.0, (l25.1 + l29.1) / 2.0);
    println!("one socket, 50 ns: order-3 {mid:.0} -> {late:.0}, order-0 {mid0:.0} -> {late0:.0}");
    // The climb is the CPU's: order-3 climbs within 6 points of order-0 and stays within 10 %
    // of it (seeds 1–2: +23 % against +24 %; 8.6 / 8.3 % below order-0 at 25 / 29 flows with
    // the MCS head's cmpxchg claims, 8.0 / 7.4 % before).
    assert!(
        (late / mid - late0 / mid0).abs() <= 0.06,
        "order-3 {mid:.0} -> {late:.0}, order-0 {mid0:.0} -> {late0:.0}"
    );
    assert!(l25.0 >= 0.90 * l25.1 && l29.0 >= 0.90 * l29.1, "25 flows {l25:?}, 29 flows {l29:?}");
    // FIXME(model): the seed's flat plateau at the catalogue's mesh needs a zone->lock pass
    // of ≥ ~430 ns (the seed's two-socket top, ~604 Gbit/s), the model's is ~260 (hold ~160,
    // handoff two 50 ns transfers): the known gap "No flat order-3 top". Pinned at +27 %.
    assert!(late <= mid * 1.30, "one socket: {mid:.0} at 13–15 flows, {late:.0} at 25–29");
    let two = (point(&[], 25).0 + point(&[], 29).0) / 2.0;
    let ratio = late / two;
    // 0.645 here: the ratio of the two machines' CPU (35 core-equivalents against 50–56 cores).
    assert!((0.4..=0.65).contains(&ratio), "one socket / two sockets at 25–29 flows: {ratio:.2}");
    // Where the lock binds (mesh 97 ns: a pass ~480 ns, ceiling ~270 Gbit/s) the one socket
    // saturates it: flat from 13 flows (seeds 1–3: 251, 260, 273, 272 Gbit/s at 13, 15, 25,
    // 29, the lock 91–100 % busy) and about half of two sockets (0.54).
    let slow = |s: &[&str], n| point(s, n).0;
    let one97 = ["sockets=1", "cpus=28", "line_transfer_ns=97"];
    let mid97 = (slow(&one97, 13) + slow(&one97, 15)) / 2.0;
    let late97 = (slow(&one97, 25) + slow(&one97, 29)) / 2.0;
    let two97 = (slow(&["line_transfer_ns=97"], 25) + slow(&["line_transfer_ns=97"], 29)) / 2.0;
    println!("mesh 97 ns: one socket {mid97:.0} -> {late97:.0}, two sockets {two97:.0} at 25–29");
    assert!(late97 <= mid97 * 1.10, "one socket, 97 ns: {mid97:.0} at 13–15 flows, {late97:.0} at 25–29");
    let r97 = late97 / two97;
    assert!((0.45..=0.6).contains(&r97), "one socket / two sockets at 25–29 flows, 97 ns: {r97:.2}");
}

#[test]
fn idle_cores_never_lower_throughput() {
    let runs: Vec<(f64, f64)> = [16, 28, 56, 112].iter().map(|c| point(&[&format!("cpus={c}")], 8)).collect();
    let (o3, o0): (Vec<f64>, Vec<f64>) = runs.iter().copied().unzip();
    assert!(monotone(&o3, true, 0.03) && monotone(&o0, true, 0.03), "8 flows on 16/28/56/112 cores: {runs:?}");
}

#[test]
fn contention_never_falls_as_flows_are_added() {
    let p = params(&[]);
    let spin: Vec<f64> = [4, 10, 20, 30]
        .iter()
        .map(|&n| (1..=2).map(|s| hoa::profile(&p, n, FragOrder::Order3, s).summary.spin_pct).sum::<f64>() / 2.0)
        .collect();
    assert!(spin.windows(2).all(|w| w[1] >= w[0] - 0.5), "order-3 spin % at 4/10/20/30 flows: {spin:?}");
}
