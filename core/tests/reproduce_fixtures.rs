//! The Reproduce page's e2e test (`e2e/tests/reproduce.test.mjs`) compares every cell of the
//! page at 5 seeds with `skblab reproduce <id> --seeds 5 --format json`, committed in
//! `e2e/fixtures/reproduce-<id>.json`. This test runs the CLI and requires the committed files
//! to be its output byte for byte, so they cannot go stale; `SKBLAB_UPDATE=1` rewrites
//! them (then commit them with the model change that moved them).

use std::path::PathBuf;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_skblab");

fn fixture(id: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../e2e/fixtures").join(format!("reproduce-{id}.json"))
}

#[test]
fn committed_reproduce_json_is_the_clis() {
    let update = std::env::var_os("SKBLAB_UPDATE").is_some();
    let mut stale = Vec::new();
    for e in skblab_core::experiments() {
        let out = Command::new(BIN)
            .args(["reproduce", e.id(), "--seeds", "5", "--format", "json"])
            .output()
            .expect("skblab runs");
        assert!(out.status.success(), "{}: {}", e.id(), String::from_utf8_lossy(&out.stderr));
        if !out.stdout.starts_with(b"{") {
            continue; // no seed table
        }
        let path = fixture(e.id());
        if update {
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("fixtures folder");
            std::fs::write(&path, &out.stdout).expect("fixture written");
        } else if std::fs::read(&path).ok().as_deref() != Some(&out.stdout[..]) {
            stale.push(e.id());
        }
    }
    assert!(
        stale.is_empty(),
        "e2e/fixtures/reproduce-*.json differ from the CLI for {stale:?}: rerun with SKBLAB_UPDATE=1 and commit them"
    );
}

/// A count of one takes the singular: no "1 sockets" in any note the Reproduce page and
/// `skblab reproduce` print (the fixtures are the CLI's output, checked above).
#[test]
fn reproduce_notes_say_one_in_the_singular() {
    const PLURALS: [&str; 12] =
        ["sockets", "flows", "points", "cpus", "threads", "cores", "bytes", "pages", "frames", "seeds", "runs", "rows"];
    for e in skblab_core::experiments() {
        let Ok(text) = std::fs::read_to_string(fixture(e.id())) else { continue };
        let json: serde_json::Value = serde_json::from_str(&text).expect("a JSON fixture");
        let notes = json["notes"].as_array().into_iter().flatten().filter_map(|n| n.as_str());
        let words: Vec<String> = notes
            .flat_map(str::split_whitespace)
            .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric()).to_ascii_lowercase())
            .collect();
        for w in words.windows(2) {
            assert!(!(w[0] == "1" && PLURALS.contains(&w[1].as_str())), "{}: \"1 {}\" in a note", e.id(), w[1]);
        }
    }
}

/// `skblab reproduce` prints each seed value as the source wrote it (16.34, not 16.34 rounded
/// to 16.3): every measured value of the JSON with at most three decimals is in the text table.
#[test]
fn reproduce_prints_seed_values_as_written() {
    for e in skblab_core::experiments() {
        let Ok(text) = std::fs::read_to_string(fixture(e.id())) else { continue };
        let json: serde_json::Value = serde_json::from_str(&text).expect("a JSON fixture");
        let out = Command::new(BIN).args(["reproduce", e.id(), "--seeds", "5"]).output().expect("skblab runs");
        let table = String::from_utf8_lossy(&out.stdout);
        let rows = json["rows"].as_array().into_iter().flatten();
        for cell in rows.flat_map(|r| r["cells"].as_array().into_iter().flatten()) {
            let written = format!("{}", cell["measured"].as_f64().expect("a number"));
            if written.split_once('.').is_none_or(|(_, d)| d.len() <= 3) {
                assert!(
                    table.split_whitespace().any(|w| w == written),
                    "{}: seed value {written} not printed as written",
                    e.id()
                );
            }
        }
    }
}
