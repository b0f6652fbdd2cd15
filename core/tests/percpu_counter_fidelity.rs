//! percpu-counter against seed 003: both figures within ±0.1 point, as the mean of 5 seeds,
//! from the one committed profile; the committed constants lie inside their ranges.

use skblab_core::experiments::percpu_counter::calibrate::{committed, score, CONSTANTS};
use skblab_core::experiments::percpu_counter::{SEED_ATOMIC_PCT, SEED_PERCPU_PCT};

#[test]
fn both_figures_within_a_tenth_of_a_point_over_five_seeds() {
    let s = score(&committed(), &[1, 2, 3, 4, 5]);
    let (atomic, percpu) = (s.figures[0].1, s.figures[1].1);
    assert!((atomic - SEED_ATOMIC_PCT).abs() <= 0.1, "atomic {atomic:.3} % vs 0.70 %");
    assert!((percpu - SEED_PERCPU_PCT).abs() <= 0.1, "percpu_counter {percpu:.3} % vs 0.36 %");
    assert!(s.objective < 0.05, "calibration error {:.3} points", s.objective);
}

#[test]
fn at_most_eight_fitted_constants_each_inside_its_range() {
    assert!(CONSTANTS.len() <= 8);
    for (c, v) in CONSTANTS.iter().zip(committed()) {
        assert!((c.min..=c.max).contains(&v), "{} = {v} outside {}..={}", c.name, c.min, c.max);
        assert!(!c.source.is_empty());
    }
}
