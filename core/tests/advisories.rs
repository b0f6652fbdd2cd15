//! The advisory ignores of `deny.toml` stay honest (dependency hygiene): every
//! ignored RustSec advisory is in the committed snapshot (`deny/advisory-db/`), its crate is
//! still in `Cargo.lock` at the version the reason names (an ignore outliving its crate
//! fails), its reason is dated ("reviewed YYYY-MM-DD", not before the snapshot was taken) and docs/dependencies.md explains it. cargo-deny itself
//! (scripts/test.sh, offline) checks the tree against the same snapshot.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The quoted value after `key = "` in `line`.
fn quoted<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("{key} = \""))? + key.len() + 4;
    let len = line[start..].find('"')?;
    Some(&line[start..start + len])
}

/// `(id, reason)` of every `ignore` entry.
fn ignores(deny: &str) -> Vec<(String, String)> {
    let block = deny.split("\nignore = [").nth(1).expect("deny.toml has an ignore list");
    let block = &block[..block.find("\n]").expect("the ignore list ends")];
    block
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .map(|l| {
            let id = quoted(l, "id").unwrap_or_else(|| panic!("deny.toml: ignore without id: {l}"));
            let reason = quoted(l, "reason").unwrap_or_else(|| panic!("deny.toml: {id} has no reason"));
            (id.to_string(), reason.to_string())
        })
        .collect()
}

#[test]
fn every_ignored_advisory_is_dated_explained_and_still_applies() {
    let (deny, lock, docs) = (read("deny.toml"), read("Cargo.lock"), read("docs/dependencies.md"));
    let snapshot = read("deny/advisory-db/SNAPSHOT");
    let snapshot_day = quoted(&snapshot, "date").expect("SNAPSHOT has a date")[..10].to_string();
    let list = ignores(&deny);
    assert!(!list.is_empty(), "deny.toml ignores nothing: then drop this test's premise, not the check");
    for (id, reason) in &list {
        let day = reason.strip_prefix("reviewed ").map(|r| &r[..10.min(r.len())]).unwrap_or("");
        let dated = day.len() == 10
            && day.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
        assert!(dated, "{id}: the reason must start \"reviewed YYYY-MM-DD: \", got {reason:?}");
        assert!(*day >= *snapshot_day, "{id}: reviewed {day}, before the advisory snapshot of {snapshot_day}");
        // The advisory is in the snapshot, under the crate it concerns.
        let dir = root().join("deny/advisory-db/crates");
        let krate = std::fs::read_dir(&dir)
            .expect("the snapshot's crates")
            .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
            .find(|c| dir.join(c).join(format!("{id}.md")).exists())
            .unwrap_or_else(|| panic!("{id}: not in deny/advisory-db (refresh with scripts/advisory-snapshot.sh)"));
        // The reason names the crate at the version Cargo.lock holds.
        let version = reason
            .split_once(&format!("{krate} "))
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{id}: the reason must name \"{krate} <version>\""));
        let entry = format!("name = \"{krate}\"\nversion = \"{version}\"");
        assert!(lock.contains(&entry), "{id}: {krate} {version} is no longer in Cargo.lock: drop or update the ignore");
        assert!(docs.contains(id.as_str()), "{id}: docs/dependencies.md does not explain it");
    }
}
