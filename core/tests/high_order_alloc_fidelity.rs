//! Fidelity and response-to-knobs tests of `high-order-alloc` against seed 000 (Eric Dumazet,
//! netdev, 2019-06-14, <20190614232221.248392-5-edumazet@google.com>), default parameters and
//! seed 1, as printed by `skblab reproduce high-order-alloc`.
//!
//! The targets are MAPE ≤ 5 % per column, no cell off by > 12 %, crossover at 9 flows,
//! order-3 peak 575..615 Gbit/s over 20..30 flows. All are met and asserted as targets below;
//! the single-flow order-3/order-0 ratio (1.25x vs the seed's 1.34x) is the weakest point.

use skblab_core::experiments::high_order_alloc::{self as hoa, crossover, plateau};
use skblab_core::params::Params;
use skblab_core::Experiment;

fn params(settings: &[&str]) -> Params {
    Params::from_settings(hoa::ID, hoa::specs(), settings).expect("valid settings")
}

#[test]
fn reproduces_seed_000() {
    let r = hoa::HighOrderAlloc.reproduce(1).expect("has a seed table");
    let mape3 = r.mape_pct("order3_mbps").unwrap();
    let mape0 = r.mape_pct("order0_mbps").unwrap();
    let max_err = r.max_abs_error_pct();
    println!("{}", r.to_table());
    // Targets of the issue (met since the remote-L2 copy cost, `copy_remote_line_ps`).
    assert!(mape0 <= 5.0, "MAPE order0 {mape0:.2} %");
    assert!(mape3 <= 5.0, "MAPE order3 {mape3:.2} %");
    assert!(max_err <= 12.0, "max |error| {max_err:.2} %");
}

fn sweep_rows(p: &Params) -> Vec<(u32, f64, f64)> {
    hoa::sweep(p, 1).iter().map(|s| (s.threads, s.order3_mbps, s.order0_mbps)).collect()
}

#[test]
fn crossover_and_plateau() {
    let rows = sweep_rows(&params(&[]));
    let x = crossover(&rows).expect("order-0 overtakes order-3");
    // Target: 9 flows, as in the seed (order-0 ahead from there on).
    assert_eq!(x, 9, "crossover at {x} flows");
    // Seed: 1.34x. FIXME(model): the model gives 1.25x (order-3 one flow 44.0 Gbit/s, -12 %):
    // only ~11 % of the single sender's copies land in blocks still in its own L2, so the
    // fit keeps the fixed per-skb work high; the early bend (1 -> 6 flows) comes from the
    // remote-L2 copies instead of from lost warmth. Asserting the current band.
    assert!(rows[0].1 > rows[0].2 * 1.2, "one flow: order-3 wins clearly ({:.0} vs {:.0})", rows[0].1, rows[0].2);
    let (_, peak) = plateau(&rows).unwrap();
    // Target: 575..615 Gbit/s over 20..30 flows (seed 611,610 at 29 flows).
    assert!((575_000.0..=615_000.0).contains(&peak), "order-3 peak {peak:.0} Mbit/s");
    // The plateau is flat: 30 flows give no more than 25 flows (+3 % noise); the seed is flat
    // from 25 flows on (603 -> 577 Gbit/s), the model from 22.
    assert!(rows[29].1 <= rows[24].1 * 1.03, "order-3 keeps scaling: {:.0} -> {:.0}", rows[24].1, rows[29].1);
    // Between 12 and 16 flows order-3 is below order-0 per flow although zone->lock is far
    // from saturated (seed: 31 vs 33.7 Gbit/s per flow): the remote-L2 copies.
    assert!(rows[11].1 < rows[11].2 && rows[15].1 < rows[15].2, "order-3 below order-0 at 12 and 16 flows");
    // The early bend: per-flow order-3 at 6 flows is well below 1 flow's (seed: 0.72x),
    // while order-0 loses only what turbo takes (seed: 0.93x).
    let (o3_1, o3_6) = (rows[0].1, rows[5].1 / 6.0);
    let (o0_1, o0_6) = (rows[0].2, rows[5].2 / 6.0);
    assert!(o3_6 < 0.85 * o3_1, "order-3 per flow: {o3_1:.0} at 1, {o3_6:.0} at 6");
    assert!(o0_6 > 0.9 * o0_1, "order-0 per flow: {o0_1:.0} at 1, {o0_6:.0} at 6");
    // Order-0 keeps scaling nearly linearly to 30 flows.
    assert!(rows[29].2 > 2.0 * rows[11].2 * 0.75, "order-0 at 30 {:.0} vs 12 {:.0}", rows[29].2, rows[11].2);
}

#[test]
fn pcp_high_order_lets_order3_scale() {
    let p = params(&["pcp_high_order=true"]);
    let p15 = hoa::sweep_point(&p, 15, 1);
    let p30 = hoa::sweep_point(&p, 30, 1);
    assert!(
        p30.order3_mbps >= 1.3 * p15.order3_mbps,
        "order-3: {:.0} at 30 vs {:.0} at 15",
        p30.order3_mbps,
        p15.order3_mbps
    );
    assert!(
        p30.order3_mbps >= p30.order0_mbps,
        "order-3 {:.0} vs order-0 {:.0} at 30 flows",
        p30.order3_mbps,
        p30.order0_mbps
    );
    // And the lock is no longer where the time goes.
    assert!(p30.order3.spin_pct < 5.0, "spin {:.1} %", p30.order3.spin_pct);
}

#[test]
fn fewer_cpus_cut_order0_at_30_flows() {
    let full = hoa::sweep_point(&params(&[]), 30, 1);
    let half = hoa::sweep_point(&params(&["cpus=28"]), 30, 1);
    assert!(
        half.order0_mbps < 0.8 * full.order0_mbps,
        "cpus=28: {:.0} vs cpus=56: {:.0}",
        half.order0_mbps,
        full.order0_mbps
    );
}

#[test]
fn longer_lock_handoff_lowers_the_plateau() {
    let base = hoa::sweep_point(&params(&[]), 28, 1);
    let slow = hoa::sweep_point(&params(&["line_transfer_ns=200"]), 28, 1);
    assert!(slow.order3_mbps < 0.85 * base.order3_mbps, "{:.0} vs {:.0}", slow.order3_mbps, base.order3_mbps);
}

#[test]
fn csv_contract() {
    let out = hoa::HighOrderAlloc.run(&params(&["max_threads=3", "measure_us=300"]), 1);
    let csv = out.to_csv();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("threads,order3_mbps,order0_mbps"));
    assert_eq!(lines.clone().count(), 3);
    assert!(lines.next().unwrap().starts_with("1,"));
    let titles: Vec<&str> = out.views.iter().map(|v| v.title.as_str()).collect();
    for want in ["/proc/buddyinfo", "/proc/zoneinfo pagesets", "lock_stat", "perf report"] {
        assert!(titles.iter().any(|t| t.contains(want)), "missing view {want}: {titles:?}");
    }
}
