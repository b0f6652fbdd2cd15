//! Uncertainty bands (`validate::bands`) over a stub whose one cell is y = 10 k, k uncertain
//! in 1..=4 ns, against a seed table of 20: the band spans the samples inside the range, a
//! wide band says the model cannot tell, a band wider than the table's own difference cannot
//! tell either, and a job streams the same band sample by sample.

use crate::common::stub::Stub;
use skblab_core::output::{Citation, ReproCell, ReproRow};
use skblab_core::sim::catalogue::{Basis, Quantity};
use skblab_core::validate::{bands_with, BandCell, BandJob, Bands, MAX_BANDS};
use skblab_core::{Experiment, Reproduction};

/// One cell y = 10 k, k uncertain in 1..=4 ns; the seed table measured 20.
const STUB: Stub = Stub {
    specs: Vec::new,
    columns: &[("y", "ns")],
    row: |_| vec![20.0],
    uncertain: Some((
        Quantity { value: 2.0, min: 1.0, max: 4.0, unit: "ns", basis: Basis::Assumed, source: "test" },
        |k| vec![k * 10.0],
    )),
    measured: &[20.0],
};

#[test]
fn a_band_spans_the_samples_inside_the_range() {
    let b = bands_with(&STUB, &STUB.defaults(), 1, 8, &mut |_| {}).unwrap();
    assert_eq!((b.samples, b.ran), (8, 8));
    let [lo, hi] = b.get("0", "y").unwrap();
    // 8 geometric slices of 1..=4: the first and last sample sit in the middle of theirs.
    assert!(lo > 10.0 && lo < 11.0 && hi > 36.0 && hi < 40.0, "[{lo}, {hi}]");
    assert!(b.note().contains("8 Latin-hypercube samples") && b.note().contains('k'));
    let table = STUB.reproduce(1).unwrap().to_table_banded(|l, m| b.get(l, m));
    assert!(table.lines().nth(1).unwrap().contains("band") && table.contains("[10.9-36.7]"), "{table}");
    // [10.9-36.7] around 20 is ±64 %: wide.
    let r = STUB.reproduce(1).unwrap();
    let line = b.cannot_tell(&r).unwrap();
    assert!(
        line.starts_with("the model cannot tell: 1 of 1 banded cells are wide") && line.contains("±64 %"),
        "{line}"
    );
    let narrow =
        Bands { cells: vec![BandCell { label: "0".into(), metric: "y".into(), band: [19.0, 21.0] }], ..b.clone() };
    assert!(narrow.cannot_tell(&r).is_none());
    let many = bands_with(&STUB, &STUB.defaults(), 1, 1000, &mut |_| {}).unwrap();
    assert_eq!(many.samples, MAX_BANDS);
}

#[test]
fn a_band_wider_than_the_tables_own_difference_cannot_tell() {
    let cell =
        |metric: &'static str, measured: f64, simulated: f64| ReproCell { metric, measured, simulated, spread: None };
    let citation = Citation { list: "", date: "", author: "", subject: "", message_id: "" };
    let rows = vec![
        ReproRow { label: "before".into(), cells: vec![cell("rate", 100.0, 101.0)] },
        ReproRow { label: "after".into(), cells: vec![cell("rate", 110.0, 108.0)] },
    ];
    let r = Reproduction { experiment: "stub", citation, key_name: "run", rows, notes: Vec::new() };
    let band = |lo: f64, hi: f64| BandCell { label: "before".into(), metric: "rate".into(), band: [lo, hi] };
    let b = Bands {
        experiment: "stub".into(),
        samples: 8,
        ran: 8,
        seed: 1,
        quantities: Vec::new(),
        cells: vec![band(90.0, 115.0)],
    };
    // ±12 % of the value, but 25 wide against the table's 10 between before and after.
    let line = b.cannot_tell(&r).unwrap();
    assert!(
        line.contains("2.5× the seed table's own difference in rate (10)") && !line.contains("more than"),
        "{line}"
    );
    let b = Bands { cells: vec![band(97.0, 104.0)], ..b };
    assert!(b.cannot_tell(&r).is_none(), "7 wide < 10 and ±3.5 %");
}

#[test]
fn a_job_streams_the_band_sample_by_sample() {
    let mut job = BandJob::new(&STUB, &STUB.defaults(), 1, 4).unwrap();
    assert_eq!(job.progress(), (0, 4));
    assert!(job.step() && job.bands().ran == 1 && job.bands().get("0", "y").is_some());
    while job.step() {}
    assert!(job.is_done());
    assert_eq!(job.bands(), &bands_with(&STUB, &STUB.defaults(), 1, 4, &mut |_| {}).unwrap());
    let text = serde_json::to_string(job.bands()).unwrap();
    assert_eq!(&serde_json::from_str::<Bands>(&text).unwrap(), job.bands(), "crosses the worker boundary");
}
