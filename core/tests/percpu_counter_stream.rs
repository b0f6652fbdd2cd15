//! percpu-counter's update stream follows the workload by 4.x's rules (`stream.rs`), and the
//! relation the old chosen rates broke now holds where the kernel fixes its sign.
//!
//! The relation that failed: "`timers_per_min` raises the atomic's cost". With timers and
//! raises two independent knobs, 240 → 1200 timers per minute at a fixed raise rate cut the
//! atomic's share by 84 %: most of the extra timers found nothing to return, and the empty
//! ones spread the reclaims of each burst so the line queued less. In the kernel a write
//! timer is armed by a send and reclaims what that exchange charged, so the reclaims and the
//! raises are one stream: both follow the sends. The knob is gone; its successor,
//! `sends_per_min`, must raise the atomic's cost while connections still idle past their
//! timer (λτ < 1), and the reclaims per connection must fall past 1/τ, where a connection
//! that sends again before its timer fires never reclaims.

use skblab_core::experiment::Point;
use skblab_core::experiments::percpu_counter::stream::{stream, Reclaimer};
use skblab_core::experiments::percpu_counter::PercpuCounter;
use skblab_core::output::Cell;
use skblab_core::rng::Rng;
use skblab_core::Experiment;

/// The atomic's share at sweep point `k` (mean of seeds 1 and 2), or None when missing.
fn atomic_pct(settings: &[String], k: usize) -> Option<f64> {
    let p = PercpuCounter.params_from(settings).expect("valid settings");
    let points: Vec<Point> = PercpuCounter.points(&p);
    let col = PercpuCounter.columns(&p).iter().position(|c| c.name == "atomic_cpu_pct").expect("the column");
    let v: Vec<f64> = [1, 2]
        .iter()
        .filter_map(|&seed| match PercpuCounter.run_point(&p, &points[k % points.len()], seed)[col] {
            Cell::Float(v) => Some(v),
            _ => None,
        })
        .collect();
    (v.len() == 2).then(|| v.iter().sum::<f64>() / 2.0)
}

#[test]
fn timers_per_min_relation_more_sends_raise_the_atomic_cost_while_connections_idle_past_their_timer() {
    let mut rng = Rng::new(42, 6);
    let (mut compared, mut bad) = (0, Vec::new());
    for _ in 0..10 {
        let sockets = 1 + rng.below(2);
        let hz = 100 + 50 * rng.below(19);
        let srtt_us = 50 * (1 + u64::from(rng.below(800)));
        let send_bytes = 1024 * (1 + u64::from(rng.below(256)));
        let base = vec![
            "counter=atomic".to_string(),
            format!("sockets={sockets}"),
            format!("cpus={}", sockets * (1 + rng.below(16))),
            format!("connections={}", 1000 * (1 + rng.below(400))),
            format!("hz={hz}"),
            format!("skew_tick={}", rng.below(2) == 1),
            format!("srtt_us={srtt_us}"),
            format!("send_bytes={send_bytes}"),
            format!("atomic_ns={}", 1 + rng.below(60)),
        ];
        // The highest rate with λτ < 1/2 (τ from the stream's own timers and wheel).
        let st = stream(1, send_bytes, srtt_us, hz);
        let top = (60_000_000 / (st.tau_us + 1) / 2).clamp(2, 1200) as u32;
        let lo = 1 + rng.below(top - 1);
        let hi = lo + 1 + rng.below(top - lo);
        let k = rng.below(3) as usize;
        let with = |s: u32| [base.clone(), vec![format!("sends_per_min={s}")]].concat();
        let (Some(a), Some(b)) = (atomic_pct(&with(lo), k), atomic_pct(&with(hi), k)) else { continue };
        compared += 1;
        if b < a - 0.03 * a.max(b) {
            bad.push(format!("sends {lo} -> {hi}: atomic {a:.4} -> {b:.4} % at point {k} with {base:?}"));
        }
    }
    assert!(bad.is_empty(), "more sends cost the atomic less:\n{}", bad.join("\n"));
    assert!(compared >= 5, "only {compared} cases compared");
}

#[test]
fn every_reclaim_follows_a_send_and_busy_connections_stop_reclaiming() {
    // 16 KiB responses, 50 ms srtt, HZ=1000: the loss probe re-armed by the first flight's
    // ACKs at srtt, 102 jiffies ahead (level 1): it fires 152 ms after the send, 156 on
    // average on its 8-jiffy wheel.
    let at = |per_min| stream(per_min, 16_384, 50_000, 1000);
    let s = at(60);
    assert_eq!((s.reclaimer, s.timeout_jiffies, s.tau_us), (Reclaimer::Write, 102, 156_000));
    assert!(s.raises_per_hour > 2 * s.timers_per_hour, "more than two charges per reclaim");
    assert!(s.forced_ppm > 0, "the split skbs are forced charges");
    // Reclaims rise with the sends up to λτ = 1 (~6.4/s here), then fall to none at λτ = 2.
    let r: Vec<u32> = [60, 240, 385, 600, 800].iter().map(|&m| at(m).timers_per_hour).collect();
    assert!(r[0] < r[1] && r[1] < r[2] && r[3] < r[2] && r[4] == 0, "{r:?}");
}
