//! percpu-counter against seed 003, as a PREDICTION: no constant is fitted to the seed's two
//! figures; the machine is the catalogue's Broadwell-EP with its 2018 kernel costs, the rates
//! an assumption (docs/percpu-counter.md). These tests pin what the model predicts (a miss:
//! both figures below the seed, the rate assumption being the main suspect) so that a change
//! of the prediction is a deliberate one, and check the bookkeeping.

use skblab_core::calibrate::tables::Verdict;
use skblab_core::experiments::percpu_counter::predict::{figures, uncertain, TABLE};
use skblab_core::experiments::percpu_counter::{
    Input, PercpuCounter, DUAL_XEON_2018, SEED_ATOMIC_PCT, SEED_PERCPU_PCT,
};
use skblab_core::Experiment;

#[test]
fn seed003_is_a_prediction_on_the_catalogue_machine() {
    let t = PercpuCounter.tables();
    assert_eq!(t.len(), 1);
    assert_eq!((t[0].table, t[0].targets, t[0].verdict()), (TABLE, 2, Verdict::Prediction));
    assert!(DUAL_XEON_2018.catalogue_mismatches().is_empty(), "{:?}", DUAL_XEON_2018.catalogue_mismatches());
    assert_eq!((DUAL_XEON_2018.line_same_socket_ns, DUAL_XEON_2018.line_cross_socket_ns), (44, 118));
    for (name, q) in uncertain() {
        assert!(q.min <= q.value && q.value <= q.max && !q.is_fitted(), "{name}");
    }
}

/// The committed prediction (5-seed means) on the stream 4.19's rules make of the assumed
/// workload, with the patch summing every CPU's part on each charge: atomic ~0.50 % (seed
/// 0.70, -28 %), percpu_counter ~0.48 % (seed 0.36, +34 %). Outside the ±25 % a success needs:
/// reported as a miss.
#[test]
fn the_prediction_misses_as_documented() {
    let i = Input::from(&PercpuCounter.reproduce_params());
    let (atomic, percpu) = figures(&i, &[1, 2, 3, 4, 5]);
    assert!((0.40..0.60).contains(&atomic), "atomic {atomic:.3} % (seed {SEED_ATOMIC_PCT})");
    assert!((0.38..0.60).contains(&percpu), "percpu_counter {percpu:.3} % (seed {SEED_PERCPU_PCT})");
    assert!(atomic < SEED_ATOMIC_PCT && percpu > SEED_PERCPU_PCT, "the atomic low, the patch high");
    let check = PercpuCounter.check_table(TABLE, &[1, 2, 3]).expect("seed003");
    assert!(check.in_sample_mape.unwrap() > 25.0 && check.errors.len() == 2 && !check.gaps.is_empty());
}

#[test]
fn the_prediction_rises_with_the_assumed_send_rate_while_connections_idle_past_their_timer() {
    // 1 → 2 sends/s with a 50 ms srtt (λτ 0.1 → 0.2): twice the exchanges that end in a
    // reclaim, less 5 %; the atomic's queue grows with them, so it more than doubles.
    let mut i = Input::from(&PercpuCounter.reproduce_params());
    let (a60, p60) = figures(&i, &[1, 2]);
    i.sends_per_min = 120;
    let (a120, p120) = figures(&i, &[1, 2]);
    assert!(a120 > 2.0 * a60 && p120 > 1.4 * p60, "{a60} -> {a120}, {p60} -> {p120}");
}
