//! HZ over random valid settings (docs/knob-audit.md): which way the atomic's CPU share must
//! move when only `hz` changes.
//!
//! What HZ changes in this workload: hardly how many write timers fire (that is the sends and
//! the share of connections idle past the timer, which HZ moves only by rounding the timeout
//! to jiffies) nor how many raises there are, mostly how they bunch. With a 50 ms srtt the
//! loss-probe timer is armed 2·srtt + 2 jiffies = 100 ms + 2 jiffies ahead; the timer wheel
//! (kernel/time/timer.c since 4.8, `LVL_START(1)` = 63 jiffies) puts it on level 0 below 63
//! jiffies (HZ ≤ 600 in the parameter's steps: it fires at its tick, every 1000/HZ ms) and on
//! level 1 from 63 (HZ ≥ 650: every 8th jiffy, every 8000/HZ ms). Every CPU counts the same
//! jiffies, so each expiry is a burst on all CPUs at once, carrying one period's worth of
//! timers. So:
//! - within one level, a higher HZ means a shorter period, smaller bursts, fewer CPUs on the
//!   line at the same time and shorter queues: the atomic's share must not rise (the same
//!   number of updates, each no dearer). At the level change it jumps up (the period grows
//!   8-fold), which is why the figure is not monotonic in HZ as a whole;
//! - HZ=100 (12 jiffies, level 0) and HZ=800 (82 jiffies, level 1) both burst every 10 ms:
//!   the figure must be the same up to noise.
//!
//! `skew_tick` is off here: with it each CPU's tick is offset over half a tick, which also
//! shrinks with HZ, so two effects oppose and the kernel fixes no sign. Settings are drawn with
//! the house PRNG (fixed seed), each figure is the mean of two seeds.

use skblab_core::experiment::Point;
use skblab_core::experiments::percpu_counter::stream::stream;
use skblab_core::experiments::percpu_counter::world::wheel_granularity;
use skblab_core::experiments::percpu_counter::PercpuCounter;
use skblab_core::output::Cell;
use skblab_core::rng::Rng;
use skblab_core::Experiment;

/// Settings drawn at random over every parameter's valid range that HZ interacts with.
fn random_settings(rng: &mut Rng) -> Vec<String> {
    let sockets = 1 + rng.below(2);
    let cpus = sockets * (1 + rng.below(32));
    vec![
        "counter=atomic".to_string(),
        "skew_tick=false".to_string(),
        format!("sockets={sockets}"),
        format!("cpus={cpus}"),
        format!("smt={}", rng.below(2) == 1),
        format!("connections={}", 1000 * (1 + rng.below(1000))),
        // The default srtt and a response of more than one packet: the loss-probe timer is
        // armed 2·srtt + 2 jiffies ahead (102 jiffies at HZ=1000). At most 4 sends/s, so the
        // share of connections idling past the timer (1 − λτ/2) moves by at most ~5 % with
        // HZ's rounding of τ.
        "srtt_us=50000".to_string(),
        format!("send_bytes={}", 1024 * (2 + rng.below(255))),
        format!("sends_per_min={}", 1 + rng.below(240)),
        format!("atomic_ns={}", 1 + rng.below(100)),
        format!("traffic_mb_s={}", 100 * rng.below(101)),
        format!("measure_us={}", 100 * (1 + rng.below(200))),
    ]
}

/// The atomic's share (mean of seeds 1 and 2) at the sweep's point `k` with `hz`, or `None`
/// where the run says the figure is not a measurement (a missing cell).
fn atomic_pct(settings: &[String], hz: u32, k: usize) -> Option<f64> {
    let mut s = settings.to_vec();
    s.push(format!("hz={hz}"));
    let p = PercpuCounter.params_from(&s).expect("valid settings");
    let points: Vec<Point> = PercpuCounter.points(&p);
    let point = &points[k % points.len()];
    let col = PercpuCounter.columns(&p).iter().position(|c| c.name == "atomic_cpu_pct").expect("the column");
    let v: Vec<f64> = [1, 2]
        .iter()
        .filter_map(|&seed| match PercpuCounter.run_point(&p, point, seed)[col] {
            Cell::Float(v) => Some(v),
            _ => None,
        })
        .collect();
    (v.len() == 2).then(|| v.iter().sum::<f64>() / 2.0)
}

/// `hi` is not above `lo`, up to noise: 15 % of it plus 0.002 points (a figure of a few
/// thousandths of a percent is a handful of updates' worth).
fn not_above(hi: f64, lo: f64) -> bool {
    hi <= lo * 1.15 + 0.002
}

#[test]
fn within_a_wheel_level_a_higher_hz_never_costs_the_atomic_more() {
    let mut rng = Rng::new(23, 7);
    let mut compared = 0;
    let mut failures = Vec::new();
    for case in 0..12 {
        let s = random_settings(&mut rng);
        // The HZ of the knob's steps whose reclaiming timer sits on level 0 (even cases) or
        // above (odd): the stream's own last arm (102 jiffies at HZ 1000; one packet left out
        // by the last re-arm waits 2·srtt + 200 ms, capped by the RTO, and changes level at
        // another HZ).
        let bytes: u64 = s.iter().find_map(|x| x.strip_prefix("send_bytes=")).expect("send_bytes").parse().unwrap();
        let gran = |hz: u32| wheel_granularity(stream(1, bytes, 50_000, hz).timeout_jiffies);
        let levels: Vec<u32> = (2..=20).map(|k| 50 * k).filter(|&hz| (gran(hz) > 1) == (case % 2 == 1)).collect();
        if levels.len() < 2 {
            continue;
        }
        let a = rng.below(levels.len() as u32) as usize;
        let b = (a + 1 + rng.below(levels.len() as u32 - 1) as usize) % levels.len();
        let (lo_hz, hi_hz) = (levels[a.min(b)], levels[a.max(b)]);
        let k = rng.below(5) as usize;
        let (Some(lo), Some(hi)) = (atomic_pct(&s, lo_hz, k), atomic_pct(&s, hi_hz, k)) else { continue };
        compared += 1;
        if !not_above(hi, lo) {
            failures.push(format!("HZ {lo_hz} -> {hi_hz}: {lo:.3} -> {hi:.3} % at point {k} with {s:?}"));
        }
    }
    assert!(failures.is_empty(), "a higher HZ in the same wheel level cost more:\n{}", failures.join("\n"));
    assert!(compared >= 8, "only {compared} of 12 cases gave both figures");
}

#[test]
fn hz_100_and_800_burst_every_10_ms_and_cost_the_same() {
    let mut rng = Rng::new(23, 8);
    let mut failures = Vec::new();
    for _ in 0..6 {
        let s = random_settings(&mut rng);
        let k = rng.below(5) as usize;
        let (Some(a), Some(b)) = (atomic_pct(&s, 100, k), atomic_pct(&s, 800, k)) else { continue };
        if !(not_above(a, b) && not_above(b, a)) {
            failures.push(format!("HZ 100 {a:.3} % vs HZ 800 {b:.3} % at point {k} with {s:?}"));
        }
    }
    assert!(failures.is_empty(), "the same burst period gave different figures:\n{}", failures.join("\n"));
}
