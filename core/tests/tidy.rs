//! Checks the architecture invariants of ARCHITECTURE.md that a machine can check.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn files(sub: &str) -> Vec<(PathBuf, String)> {
    let mut paths = Vec::new();
    rust_files(&root().join(sub), &mut paths);
    paths.into_iter().map(|p| (p.clone(), fs::read_to_string(&p).unwrap())).collect()
}

#[test]
fn core_has_no_browser_dependency() {
    let manifest = fs::read_to_string(root().join("core/Cargo.toml")).unwrap();
    for dep in ["yew", "web-sys", "js-sys", "wasm-bindgen", "gloo", "plotters"] {
        assert!(
            !manifest.lines().any(|l| l.trim_start().starts_with(dep)),
            "core/Cargo.toml depends on {dep} (Architecture Invariant 1)"
        );
    }
}

#[test]
fn core_reads_no_clock_no_unseeded_randomness_no_hash_order_no_target_cfg() {
    let banned = [
        "Instant::now",
        "SystemTime",
        "thread_rng",
        "rand::random",
        "HashMap",
        "HashSet",
        "target_arch",
        "std::fs",
        "std::net",
    ];
    for (path, text) in files("core/src") {
        if path.ends_with("bin/skblab.rs") {
            continue; // the CLI is the I/O edge
        }
        for b in banned {
            assert!(!text.contains(b), "{} uses {b} (Architecture Invariants 2 and 3)", path.display());
        }
    }
}

#[test]
fn every_rust_file_says_what_it_is() {
    for sub in ["core", "lessons", "web/src"] {
        for (path, text) in files(sub) {
            if path.components().any(|c| c.as_os_str() == "target") {
                continue;
            }
            assert!(text.starts_with("//!"), "{} does not start with a //! doc comment", path.display());
        }
    }
}

#[test]
fn no_parked_tests() {
    let attr = ["#[", "ignore]"].concat();
    for sub in ["core", "lessons", "web/src", "web/tests"] {
        if !root().join(sub).exists() {
            continue;
        }
        for (path, text) in files(sub) {
            assert!(!text.contains(&attr), "{} parks a test with {attr}", path.display());
        }
    }
}

/// The code of a web source file before its `#[cfg(test)]` module, without `//` comments.
fn non_test_code(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

#[test]
fn web_names_experiments_only_in_its_custom_views() {
    // One road: outside web/src/views/ (the custom-view table and the custom views), the web
    // crate is generic over experiments.
    let ids: Vec<&str> = skblab_core::experiments().iter().map(|e| e.id()).collect();
    for (path, text) in files("web/src") {
        if path.components().any(|c| c.as_os_str() == "views") {
            continue;
        }
        let code = non_test_code(&text);
        assert!(!code.contains("experiments::"), "{} names an experiment module", path.display());
        for id in &ids {
            assert!(!code.contains(id), "{} names experiment '{id}'", path.display());
        }
    }
}
