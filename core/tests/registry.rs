//! Registry-wide checks that every experiment gets for free: its default run is deterministic
//! (twice per seed → identical), its parameters round-trip through the worker's wire form,
//! its points and `run_point` rows are the rows of `run`, and a hash of its default output is
//! pinned (the same snapshots are checked under wasm by web/tests/golden.rs).

use skblab_core::experiments;

/// FNV-1a 64 of the output's JSON (table, views): one line per experiment in the snapshot.
pub fn fnv64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[test]
fn every_experiment_runs_twice_to_the_same_bits_and_its_hash_is_pinned() {
    let mut lines = Vec::new();
    for e in experiments() {
        let p = e.defaults();
        let a = e.run(&p, 1);
        let b = e.run(&p, 1);
        assert_eq!(a, b, "{}: two runs with seed 1 differ", e.id());
        let json = serde_json::to_string(&a).expect("outputs serialize");
        lines.push(format!("{} {:016x}", e.id(), fnv64(&json)));
    }
    insta::assert_snapshot!("default_run_hashes", lines.join("\n"));
}

#[test]
fn run_is_the_loop_over_points() {
    for e in experiments() {
        let p = e.defaults();
        let points = e.points(&p);
        assert!(!points.is_empty(), "{}: no points", e.id());
        assert!(points.iter().enumerate().all(|(i, pt)| pt.index as usize == i), "{}: point indexes", e.id());
        let rows: Vec<_> = points.iter().map(|pt| e.run_point(&p, pt, 1)).collect();
        assert_eq!(e.finish(&p, 1, rows), e.run(&p, 1), "{}", e.id());
        assert!(e.validate(&p).is_ok(), "{}: defaults must validate", e.id());
    }
}

#[test]
fn params_round_trip_through_the_wire_form() {
    for e in experiments() {
        let p = e.defaults();
        let wire: skblab_core::ParamsWire =
            serde_json::from_str(&serde_json::to_string(&p.to_wire()).unwrap()).unwrap();
        assert_eq!(e.params_from_wire(&wire).unwrap(), p, "{}", e.id());
    }
}

#[test]
fn outputs_round_trip_through_json_bit_for_bit() {
    for e in experiments() {
        let p = e.defaults();
        let out = e.run(&p, 1);
        let back: skblab_core::RunOutput = serde_json::from_str(&serde_json::to_string(&out).unwrap()).unwrap();
        assert_eq!(back, out, "{}", e.id());
    }
}

/// Defaults and whatever a choice (a preset) resolves to lie on their spec's grid: validation
/// enforces the step `skblab params` prints, so no built-in value may be off it.
#[test]
fn defaults_and_every_choice_resolve_inside_the_spec() {
    use skblab_core::ParamKind;
    for e in experiments() {
        let check = |p: &skblab_core::Params, what: &str| {
            let resolved = e.resolve(p);
            for spec in e.specs() {
                let value = resolved.value(spec.name);
                assert!(
                    spec.check(value).is_ok(),
                    "{} ({what}): {} = {value} is not {}",
                    e.id(),
                    spec.name,
                    spec.range_text()
                );
            }
        };
        check(&e.defaults(), "defaults");
        for spec in e.specs() {
            if let ParamKind::Choice { options } = spec.kind {
                for option in options {
                    let mut p = e.defaults();
                    p.set_text(spec.name, option).expect("every option parses");
                    check(&p, &format!("{}={option}", spec.name));
                }
            }
        }
    }
}

/// The CLI's JSON has one shape for every experiment and row count (README "The CLI").
#[test]
fn json_output_has_the_documented_shape() {
    for e in experiments() {
        let p = e.defaults();
        let out = e.run(&p, 3);
        let v: serde_json::Value = serde_json::from_str(&out.to_json()).expect("json");
        assert_eq!(v["experiment"], e.id());
        assert_eq!(v["seed"], 3);
        assert_eq!(v["model_version"], skblab_core::MODEL_VERSION);
        let names: Vec<&str> = out.columns.iter().map(|c| c.name.as_str()).collect();
        let columns: Vec<&str> = v["columns"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(columns, names, "{}", e.id());
        let rows = v["rows"].as_array().expect("rows is an array");
        assert_eq!(rows.len(), out.rows.len(), "{}", e.id());
        for row in rows {
            let mut keys: Vec<&str> = row.as_object().unwrap().keys().map(String::as_str).collect();
            let mut want = names.clone();
            keys.sort_unstable();
            want.sort_unstable();
            assert_eq!(keys, want, "{}", e.id());
        }
    }
}

/// The seed table (chart overlays, `reproduce`) has a cell per column: a column added to the
/// run but not to the seed rows panicked in the page, not in any native test.
#[test]
fn seed_rows_have_a_cell_per_column() {
    for e in experiments() {
        let Some(seed) = e.seed_output() else { continue };
        let n = e.columns(&e.defaults()).len();
        assert_eq!(seed.columns.len(), n, "{}: seed table columns", e.id());
        assert!(seed.rows.iter().all(|r| r.len() == n), "{}: a seed row without a cell per column", e.id());
    }
}
