//! The committed measurement files (`data/measurements/*.json`): each parses, has the
//! contract's top-level keys, round-trips, and `machine::fit::fit` fits within the
//! sourced range and predicts every stream cell (`used_for_fit` on the 64 KiB ones).

use skblab_core::machine::fit::FIT;
use skblab_core::machine::{file, fit};
use std::path::PathBuf;

fn files() -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/measurements");
    let mut v: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .expect("data/measurements exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            (p, text)
        })
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no measurement file under data/measurements");
    v
}

#[test]
fn every_committed_file_parses_round_trips_and_has_the_contract_keys() {
    for (path, text) in files() {
        let m = file::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        for key in ["schema_version", "kernel", "machine", "suites"] {
            assert!(v.get(key).is_some(), "{}: no {key}", path.display());
        }
        assert_eq!(file::parse(&m.to_json()).as_ref(), Ok(&m), "{}", path.display());
        // Truncated anywhere: one line, never a panic.
        for cut in [1, text.len() / 3, text.len() / 2, text.len() - 2] {
            let e = file::parse(&text[..cut]).expect_err("truncated");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}

#[test]
fn the_fit_stays_in_its_range_and_predicts_every_stream_cell() {
    for (path, text) in files() {
        let m = file::parse(&text).unwrap();
        let r = fit::fit(&m, &mut |_, _| {}).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stream: Vec<_> = r.points.iter().filter(|p| p.suite == "stream").collect();
        assert_eq!(stream.len(), m.cells("stream").len());
        for p in &stream {
            assert!(
                p.predicted.is_finite() && p.predicted > 0.0,
                "{}: {} predicted {}",
                path.display(),
                p.cell,
                p.predicted
            );
            assert_eq!(p.used_for_fit, p.setting.get("msg_bytes") == Some(&65536.0));
        }
        // The fitting budget: one constant on at least three measured numbers.
        let fit_cells = stream.iter().filter(|p| p.used_for_fit).count();
        assert!(r.fitted.len() * fit::MIN_FIT_CELLS <= fit_cells, "{}: {fit_cells} fit cells", path.display());
        for f in &r.fitted {
            assert_eq!(f.name, FIT.0);
            assert!(f.range[0] <= f.value && f.value <= f.range[1], "{f:?}");
        }
        assert!(r.to_table().contains("summary: stream MAPE"));
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert!(json["fitted"].is_array() && json["points"].is_array());
    }
}

/// The "Your machine" page must show the CLI's numbers: `data/machine-fit/2026-12-02-amd-epyc-f25m1.json` is
/// `skblab calibrate high-order-alloc --machine data/measurements/2026-12-02-amd-epyc-f25m1.json --format json`
/// (the same `fit` and `to_json`), checked here and read by `e2e/tests/machine.test.mjs`, which
/// compares the page's table with it. `SKBLAB_UPDATE=1` rewrites it (after a model
/// change or a new reference measurement).
#[test]
fn the_reference_fit_is_the_committed_cli_output() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let text =
        std::fs::read_to_string(root.join("data/measurements/2026-12-02-amd-epyc-f25m1.json")).expect("the reference");
    let report = fit::fit(&file::parse(&text).unwrap(), &mut |_, _| {}).unwrap();
    let path = root.join("data/machine-fit/2026-12-02-amd-epyc-f25m1.json");
    if std::env::var_os("SKBLAB_UPDATE").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, report.to_json()).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with SKBLAB_UPDATE=1 cargo test -p skblab-core --features cli --test all measure::",
            path.display()
        )
    });
    assert!(
        report.to_json() == committed,
        "{} is not the fit of the reference any more: regenerate it with SKBLAB_UPDATE=1 cargo test -p skblab-core --features cli --test all measure::",
        path.display()
    );
    // The page's worker sends the report as this JSON: it reads back as the same report.
    let back: fit::MachineReport = serde_json::from_str(&committed).unwrap();
    assert_eq!(back, report);
    let estimate = fit::MachineFit::new(&file::parse(&text).unwrap()).unwrap().estimate();
    assert!(estimate.points == 84 && estimate.events > 0, "{estimate:?}");
}
