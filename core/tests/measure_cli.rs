//! The `skblab measure` and `calibrate --machine` contract on the built binary: `--list` one
//! suite per line, `<suite> --dry-run` prints commands and exits 0, `calibrate high-order-alloc
//! --machine FILE --format json` prints `fitted` and `points`, a broken file exits 2 with one line.

use std::process::Command;

fn skblab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_skblab")).args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The first committed measurement file (`data/measurements/<date>-<machine>.json`).
fn reference() -> String {
    let dir = format!("{}/../data/measurements", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("data/measurements exists")
        .filter_map(Result::ok)
        .map(|e| e.path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".json"))
        .collect();
    files.sort();
    files.into_iter().next().expect("a measurement file")
}

#[test]
fn list_and_dry_run() {
    let (code, out, _) = skblab(&["measure", "--list"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = out.lines().collect();
    for s in ["layout", "stream", "udp", "rr", "state"] {
        assert!(names.contains(&s), "{s} in {names:?}");
    }
    for s in ["layout", "stream", "udp", "rr", "state", "all"] {
        let (code, out, err) = skblab(&["measure", s, "--dry-run"]);
        assert_eq!(code, 0, "{s}: {err}");
        assert!(out.lines().count() >= 3, "{s}: {out}");
    }
    let (code, out, _) = skblab(&["measure", "stream", "--dry-run"]);
    assert_eq!(code, 0);
    assert!(out.contains("sysctl -w net.core.high_order_alloc_disable=1"));
    assert!(out.contains("# restore"));
    let (code, _, err) = skblab(&["measure", "bogus", "--dry-run"]);
    assert_eq!((code, err.lines().count()), (2, 1), "{err}");
}

#[test]
fn calibrate_machine_json_and_broken_files() {
    let (code, out, err) = skblab(&["calibrate", "high-order-alloc", "--machine", &reference(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    for f in v["fitted"].as_array().expect("fitted") {
        assert!(f["name"].is_string() && f["value"].is_number() && f["range"].is_array());
    }
    let points = v["points"].as_array().expect("points");
    assert!(!points.is_empty());
    for p in points {
        for k in ["suite", "cell", "measured", "predicted", "error_pct", "used_for_fit"] {
            assert!(p.get(k).is_some(), "{k} in {p}");
        }
    }
    let dir = std::env::temp_dir().join(format!("skblab-measure-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(reference()).unwrap();
    let cases = [
        ("cut.json", text[..text.len() / 2].to_string()),
        ("hostile.json", "{\"schema_version\":1,\"tool\":\"\\u001b[31m\",\"kernel\":[]}".to_string()),
        ("version.json", text.replacen("\"schema_version\": 1", "\"schema_version\": 2", 1)),
        ("binary.json", "\u{0}\u{1}\u{2}".to_string()),
    ];
    for (name, body) in cases {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        let (code, out, err) =
            skblab(&["calibrate", "high-order-alloc", "--machine", path.to_str().unwrap(), "--format", "json"]);
        assert_eq!(code, 2, "{name}: {out}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(!err.contains('\u{1b}'), "{name}: raw escape in {err}");
    }
    let (code, _, err) = skblab(&["calibrate", "high-order-alloc", "--machine", "/nonexistent.json"]);
    assert_eq!((code, err.lines().count()), (2, 1));
    let _ = std::fs::remove_dir_all(&dir);
}
