//! Property test of `high-order-alloc` over its whole parameter space: random valid settings
//! (every parameter drawn from its spec's range; `validate` must accept or reject with an
//! error, never panic), bounded durations. After every event the zones keep their invariants
//! (buddy lists, per-CPU counts, page conservation, FIFO lock queue); the outputs are finite
//! and non-negative; a row at 0 Mbit/s always comes with a note.
//!
//! Replay a failure: proptest prints the settings; `skblab run high-order-alloc --set ...`.

use proptest::prelude::*;
use skblab_core::experiments::high_order_alloc::{self as hoa, FragOrder, StreamSim};
use skblab_core::sim::world::World as _;
use skblab_core::Experiment;

/// Random settings: every parameter of the spec, durations kept short so a case is cheap.
fn settings() -> impl Strategy<Value = Vec<String>> {
    (
        (1u32..=4, 1u32..=8, any::<bool>(), 1u32..=6, any::<bool>(), 0usize..3),
        (1u32..=16, 8u32..=8192, 1u32..=512, 1u32..=32, 2u32..=128),
        (10u32..=1000, 10u32..=2000, 0u32..=3, 1u32..=5, any::<bool>()),
    )
        .prop_map(|((sockets, per_socket, smt, flows, pcp_high_order, placement), pcp, rest)| {
            let (msg_k, pcp_high, pcp_batch, _, sndbuf_64k) = pcp;
            let (line, cross, warm_100, measure_100, order0) = rest;
            let placement = ["spread", "pack", "split"][placement];
            vec![
                format!("sockets={sockets}"),
                format!("cpus={}", sockets * per_socket),
                format!("smt={smt}"),
                format!("max_threads={flows}"),
                format!("pcp_high_order={pcp_high_order}"),
                format!("placement={placement}"),
                format!("msg_bytes={}", msg_k * 4096),
                format!("pcp_high={pcp_high}"),
                format!("pcp_batch={pcp_batch}"),
                format!("sndbuf_bytes={}", sndbuf_64k * 65536),
                format!("line_transfer_ns={line}"),
                format!("cross_socket_ns={}", cross / 10 * 10),
                format!("warmup_us={}", warm_100 * 100),
                format!("measure_us={}", measure_100 * 100),
                format!("profile_threads={flows}"),
                format!("profile_order={}", if order0 { "order0" } else { "order3" }),
            ]
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn any_valid_setting_keeps_invariants_and_never_shows_a_silent_zero(s in settings(), seed in 1u64..1000) {
        let e = hoa::HighOrderAlloc;
        // An invalid combination is a one-line error, never a panic.
        let params = match e.params_from(&s) {
            Ok(p) => p,
            Err(err) => {
                prop_assert!(!err.to_string().contains('\n'));
                return Ok(());
            }
        };
        let flows = params.int("max_threads") as u32;
        for order in [FragOrder::Order3, FragOrder::Order0] {
            let mut cfg = hoa::config(&params, flows, order);
            // A small zone keeps check_invariants() cheap after every event and lets big
            // socket buffers exhaust memory (the failure paths run).
            cfg.zone_pages = 1 << 13;
            let mut sim = StreamSim::new(cfg, seed);
            for _ in 0..4000 {
                if !sim.step() {
                    break;
                }
                if let Err(err) = sim.check_invariants() {
                    return Err(TestCaseError::fail(format!("after event {}: {err} ({s:?}, {order:?})", sim.outcome().events)));
                }
            }
            let mbps = sim.throughput_mbps();
            prop_assert!(mbps.is_finite() && mbps >= 0.0, "{mbps} Mbit/s");
        }
        // The whole run (two flow counts at most, short windows): numbers finite, and any
        // 0 Mbit/s cell explained in the summary.
        let mut short = s.clone();
        // Each parameter is set once (a repeated one is refused): these three are replaced.
        short.retain(|kv| !["min_threads=", "warmup_us=", "measure_us="].iter().any(|k| kv.starts_with(k)));
        short.push(format!("min_threads={}", flows.max(2) - 1));
        short.push("warmup_us=100".into());
        short.push("measure_us=300".into());
        let params = e.params_from(&short).expect("still valid");
        let out = e.run(&params, seed);
        let summary = &out.views.iter().find(|v| v.id == "summary").expect("summary view").text;
        for name in ["order3_mbps", "order0_mbps"] {
            for v in out.column_f64(name) {
                // A cell below its meaningful bar is missing, and the run says why.
                let Some(v) = v else {
                    prop_assert!(!out.notes.is_empty(), "a missing cell without a note");
                    continue;
                };
                prop_assert!(v.is_finite() && v >= 0.0);
                if v == 0.0 {
                    prop_assert!(summary.contains("0 Mbit/s:"), "silent zero: {summary}");
                }
            }
        }
        prop_assert!(summary.contains("note: measure_us = 300"), "short window not flagged: {summary}");
    }
}

/// The corners the random draw rarely hits: the smallest lists (a high-order refill of
/// `max(batch >> 3, 2)` blocks is 16 pages, twice `high`), and socket buffers that exhaust the
/// zone (the drain and back-off paths).
#[test]
fn corner_settings_keep_invariants() {
    let e = hoa::HighOrderAlloc;
    let corners: [&[&str]; 3] = [
        &["pcp_high_order=true", "pcp_high=8", "pcp_batch=8", "max_threads=4"],
        &["pcp_high=8192", "pcp_batch=512", "max_threads=6", "sndbuf_bytes=8388608"],
        &[
            "sockets=1",
            "cpus=2",
            "smt=false",
            "max_threads=5",
            "sndbuf_bytes=8388608",
            "pcp_high=2048",
            "pcp_batch=512",
        ],
    ];
    for c in corners {
        let owned: Vec<String> = c.iter().map(|s| s.to_string()).collect();
        let params = e.params_from(&owned).expect("valid");
        for order in [FragOrder::Order3, FragOrder::Order0] {
            let mut cfg = hoa::config(&params, params.int("max_threads") as u32, order);
            cfg.zone_pages = 1 << 13;
            let mut sim = StreamSim::new(cfg, 7);
            for _ in 0..6000 {
                if !sim.step() {
                    break;
                }
                sim.check_invariants().unwrap_or_else(|err| panic!("{c:?} {order:?}: {err}"));
            }
            assert!(sim.throughput_mbps() > 0.0, "{c:?} {order:?}: no progress ({:?})", sim.stats);
        }
    }
}
