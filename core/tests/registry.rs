//! Registry-wide checks that every experiment gets for free: its default run is deterministic
//! (twice per seed → identical), its parameters round-trip through the worker's wire form,
//! its points and `run_point` rows are the rows of `run`, every view it declares names parts
//! of its output that exist, and a hash of its default output is pinned.
//!
//! The pinned hash lives with the experiment, in `core/src/experiments/<id>/default_run.hash`
//! (`<id>` in snake_case; a single-file experiment gets a folder for it): one line, the FNV-1a
//! 64 of the default run's JSON (seed [`DEFAULT_SEED`]) in hex. web/tests/golden.rs checks the
//! same files under wasm. When a model change moves the numbers on purpose, rewrite them with
//! `SKBLAB_UPDATE=1 cargo test -p skblab-core --features cli --test all registry::` and say why in the commit.

use skblab_core::{experiments, Experiment, ViewSpec, DEFAULT_SEED};
use std::path::PathBuf;

/// FNV-1a 64 of the output's JSON (table, views), as the hash files hold it.
pub fn fnv64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The env var that rewrites the hash files instead of checking them.
const UPDATE: &str = "SKBLAB_UPDATE";

/// Where an experiment's pinned hash lives: its own folder (kebab-case id → snake_case module).
fn hash_file(id: &str) -> PathBuf {
    let module = id.replace('-', "_");
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/experiments").join(module).join("default_run.hash")
}

#[test]
fn every_experiment_runs_twice_to_the_same_bits_and_its_hash_is_pinned() {
    let update = std::env::var_os(UPDATE).is_some_and(|v| v == "1");
    let mut wrong = Vec::new();
    for e in experiments() {
        let p = e.defaults();
        let a = e.run(&p, DEFAULT_SEED);
        let b = e.run(&p, DEFAULT_SEED);
        assert_eq!(a, b, "{}: two runs with seed {DEFAULT_SEED} differ", e.id());
        let got = format!("{:016x}", fnv64(&serde_json::to_string(&a).expect("outputs serialize")));
        let file = hash_file(e.id());
        let pinned = std::fs::read_to_string(&file).unwrap_or_default();
        if pinned.trim() == got {
            continue;
        }
        if update {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, format!("{got}\n")).unwrap_or_else(|err| panic!("{}: {err}", file.display()));
            eprintln!("{}: {} -> {got}", file.display(), pinned.trim());
        } else {
            let was = if pinned.is_empty() { "no hash file".to_string() } else { pinned.trim().to_string() };
            wrong.push(format!("{}: default run hashes to {got}, {} says {was}", e.id(), file.display()));
        }
    }
    assert!(
        wrong.is_empty(),
        "{}\nIf the change is meant (a model change, a new experiment), rewrite the files with \
         {UPDATE}=1 cargo test -p skblab-core --features cli --test all registry::, and say why in the commit.",
        wrong.join("\n")
    );
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

/// An experiment's typed `Input` (`params_input!`) reads exactly the parameters of its spec:
/// no field without a spec (a run would panic), no spec without a field (a knob nothing reads),
/// no name twice. The order may differ (the spec's is the panel's, the struct's is free).
#[test]
fn every_typed_input_reads_exactly_the_spec() {
    use std::collections::BTreeSet;
    let mut typed = Vec::new();
    for e in experiments() {
        let Some(names) = e.input_names() else { continue };
        typed.push(e.id());
        let fields: BTreeSet<&str> = names.iter().copied().collect();
        assert_eq!(fields.len(), names.len(), "{}: a parameter is read twice: {names:?}", e.id());
        let specs: BTreeSet<&str> = e.specs().iter().map(|s| s.name).collect();
        let unspecced: Vec<_> = fields.difference(&specs).collect();
        let unread: Vec<_> = specs.difference(&fields).collect();
        assert!(
            unspecced.is_empty() && unread.is_empty(),
            "{}: Input fields without a spec: {unspecced:?}; specs without an Input field: {unread:?}",
            e.id()
        );
    }
    assert!(typed.len() >= 7, "the experiments with a typed Input: {typed:?}");
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

/// The CLI's JSON has one shape for every experiment and row count (docs/cli.md, "Output formats of `run`").
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

/// No hash file without its experiment (one left behind by a removed or renamed experiment).
#[test]
fn every_hash_file_belongs_to_a_registered_experiment() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/experiments");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let folder = entry.unwrap().path();
        if !folder.join("default_run.hash").exists() {
            continue;
        }
        let module = folder.file_name().unwrap().to_str().unwrap().to_string();
        assert!(
            experiments().iter().any(|e| e.id().replace('-', "_") == module),
            "{}/default_run.hash: no registered experiment has the id {}",
            folder.display(),
            module.replace('_', "-")
        );
    }
}

/// What a view names that the output at `p` lacks: chart columns, text views, flame graphs,
/// plots and the columns a plot shows. Empty when the view can be drawn from this output.
fn missing_parts(e: &dyn Experiment, view: &ViewSpec, out: &skblab_core::RunOutput) -> Vec<String> {
    let column = |name: &str| out.columns.iter().any(|c| c.name == name);
    let mut missing = Vec::new();
    let mut need = |kind: &str, name: &str, found: bool| {
        if !found {
            missing.push(format!("{}: view '{}' names {kind} '{name}', not in the output", e.id(), view.id()));
        }
    };
    match view {
        ViewSpec::Table { .. } | ViewSpec::Compare { .. } | ViewSpec::Custom { .. } => {}
        ViewSpec::Chart { chart, .. } => {
            need("x column", chart.x, column(chart.x));
            for (y, _) in chart.ys {
                need("y column", y, column(y));
            }
        }
        ViewSpec::Text { texts, .. } => {
            for t in *texts {
                need("text view", t, out.views.iter().any(|v| v.id == *t));
            }
        }
        ViewSpec::Flame { flames, .. } => {
            for f in *flames {
                need("flame graph", f, out.flames.iter().any(|g| g.id == *f));
            }
        }
        ViewSpec::Plot { plots, shows, .. } => {
            for p in *plots {
                need("plot", p, out.plots.iter().any(|g| g.id == *p));
            }
            for s in *shows {
                need("shown column", s, column(s));
            }
        }
    }
    missing
}

/// Every view of every experiment can be drawn from its default output: a chart's columns, a
/// text view's texts, a flame view's graphs and a plot view's plots all exist (a typo drew an
/// empty chart, silently), and view ids are unique per experiment (lesson steps name them).
#[test]
fn every_view_names_parts_of_the_output_that_exist() {
    let mut missing = Vec::new();
    for e in experiments() {
        let views = e.views();
        let mut ids: Vec<&str> = views.iter().map(ViewSpec::id).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "{}: view ids are not unique: {:?}", e.id(), e.views());
        for (setting, p) in view_settings(*e) {
            let out = e.run(&p, DEFAULT_SEED);
            for view in &views {
                missing.extend(missing_parts(*e, view, &out).into_iter().map(|m| format!("{m} ({setting})")));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Settings that make a long sweep short, applied to the view check's runs other than the
/// defaults (high-order-alloc's 30 points take about a second per run in a debug build).
const SHORT_SWEEPS: &[(&str, &str)] = &[("high-order-alloc", "max_threads=2")];

/// The settings the view check runs at: the defaults, then every option of every choice
/// parameter and the other value of every bool, one at a time (a mode, a preset or a fix may
/// change what the output holds), over a short sweep where [`SHORT_SWEEPS`] has one. Every
/// view of every experiment holds at all of them today: none appears only at some settings.
fn view_settings(e: &dyn Experiment) -> Vec<(String, skblab_core::Params)> {
    use skblab_core::{ParamKind, Value};
    let mut base = e.defaults();
    for (_, setting) in SHORT_SWEEPS.iter().filter(|(id, _)| *id == e.id()) {
        let (name, value) = setting.split_once('=').unwrap();
        base.set_text(name, value).expect("a short sweep's setting is valid");
    }
    let mut settings = vec![("defaults".to_string(), e.defaults())];
    for spec in e.specs() {
        let texts: Vec<String> = match (&spec.kind, &spec.default) {
            (ParamKind::Choice { options }, _) => options.iter().map(|o| o.to_string()).collect(),
            (ParamKind::Bool, Value::Bool(b)) => vec![(!b).to_string()],
            _ => continue,
        };
        for text in texts {
            let mut p = base.clone();
            p.set_text(spec.name, &text).expect("every option parses");
            if e.validate(&p).is_ok() {
                settings.push((format!("{}={text}", spec.name), p));
            }
        }
    }
    settings
}
