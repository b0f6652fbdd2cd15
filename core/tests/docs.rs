//! The code map lives with the code: the table of experiments in `core/src/experiments/mod.rs`'s
//! `//!` is the registry beside it (one row per registered experiment, in order, naming its module), each experiment's top
//! `//!` comment names every `.rs` file of its folder and no file that is not there, and every
//! file of `core/tests/` opens with a `//!` saying what it checks.

use skblab_core::experiments;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// An experiment's files: its top file (`<module>/mod.rs` or `<module>.rs`), the folder its
/// file names are relative to, and every `.rs` file of it, as named from there.
struct Module {
    top: PathBuf,
    base: PathBuf,
    files: Vec<String>,
}

fn module_of(id: &str) -> Module {
    let dir = root().join("src/experiments");
    let name = id.replace('-', "_");
    let (top, base) = if dir.join(&name).join("mod.rs").exists() {
        (dir.join(&name).join("mod.rs"), dir.join(&name))
    } else {
        (dir.join(format!("{name}.rs")), dir.clone())
    };
    assert!(top.exists(), "{id}: no core/src/experiments/{name}/mod.rs nor {name}.rs");
    let mut files = Vec::new();
    collect_rs(&dir.join(&name), &base, &mut files);
    if top.starts_with(&dir) && base == dir {
        files.push(format!("{name}.rs"));
    }
    files.sort();
    Module { top, base, files }
}

fn collect_rs(dir: &Path, base: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_rs(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(base).unwrap().to_str().unwrap().replace('\\', "/"));
        }
    }
}

/// The leading `//!` block of a file.
fn top_doc(path: &Path) -> String {
    read(path).lines().take_while(|l| l.starts_with("//!")).collect::<Vec<_>>().join("\n")
}

/// Backticked names ending in `.rs` in `text` (file names, not paths with `::`).
fn named_files(text: &str) -> Vec<String> {
    text.split('`').skip(1).step_by(2).filter(|t| t.ends_with(".rs") && !t.contains(' ')).map(String::from).collect()
}

#[test]
fn every_experiment_doc_names_its_files_and_only_files_that_exist() {
    let mut problems = Vec::new();
    for e in experiments() {
        let m = module_of(e.id());
        let doc = top_doc(&m.top);
        let shown = m.top.strip_prefix(root()).unwrap().display().to_string();
        let top_name = m.top.strip_prefix(&m.base).unwrap().to_str().unwrap().to_string();
        for file in m.files.iter().filter(|f| **f != top_name) {
            if !doc.contains(&format!("`{file}`")) {
                problems.push(format!("{shown}: its top //! comment does not name `{file}`"));
            }
        }
        for file in named_files(&doc) {
            if !m.base.join(&file).exists() && !root().join("src").join(&file).exists() {
                problems.push(format!("{shown}: its top //! comment names `{file}`, which does not exist"));
            }
        }
    }
    assert!(problems.is_empty(), "the code map of each experiment is its top //! comment:\n{}", problems.join("\n"));
}

/// The rows of the table of experiments in `experiments/mod.rs`'s `//!`: (id, module).
fn table_rows() -> Vec<(String, String)> {
    let path = root().join("src/experiments/mod.rs");
    let doc = top_doc(&path);
    let start = doc.find("| id | module | what it reproduces |").expect("experiments/mod.rs has the experiment table");
    doc[start..]
        .lines()
        .skip(2)
        .map(|l| l.trim_start_matches("//!").trim())
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(|c| c.trim().trim_matches('`')).collect();
            assert!(cells.len() >= 5 && !cells[3].is_empty(), "experiments/mod.rs: a row without a summary: {l}");
            (cells[1].to_string(), cells[2].to_string())
        })
        .collect()
}

#[test]
fn the_experiment_table_lists_every_registered_experiment_once_in_order() {
    let want: Vec<(String, String)> = experiments()
        .iter()
        .map(|e| {
            let m = module_of(e.id());
            let module = m.top.strip_prefix(root().join("src/experiments")).unwrap().to_str().unwrap();
            (e.id().to_string(), module.strip_suffix("mod.rs").unwrap_or(module).to_string())
        })
        .collect();
    let got = table_rows();
    let rows: Vec<String> = want.iter().map(|(id, m)| format!("| `{id}` | `{m}` | <one line> |")).collect();
    assert_eq!(
        got,
        want,
        "experiments/mod.rs's table of experiments should have these rows, in order:\n{}",
        rows.join("\n")
    );
}

#[test]
fn every_integration_test_says_what_it_checks() {
    for entry in std::fs::read_dir(root().join("tests")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            assert!(!top_doc(&path).is_empty(), "{}: open with a //! saying what it checks", path.display());
        }
    }
}
