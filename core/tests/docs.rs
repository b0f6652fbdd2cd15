//! The code map lives with the code: the table of experiments in `core/src/experiments/mod.rs`'s
//! `//!` is the registry beside it (one row per registered experiment, in order, naming its module), each experiment's top
//! `//!` comment names every `.rs` file of its folder and no file that is not there, every
//! file of `core/tests/` opens with a `//!` saying what it checks, and every path
//! ARCHITECTURE.md names exists, every top folder among them.

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

/// The repository's root (the workspace, one up from `core/`).
fn repo() -> PathBuf {
    root().parent().unwrap().to_path_buf()
}

/// A backticked name that reads as a path: no spaces, not a `//!` or a `::` path, and with a
/// `/` or a file's extension (`core/src/sim/`, `main.rs`, `content/*.md`, `<module>/mod.rs`).
fn is_path(t: &str) -> bool {
    const EXTENSIONS: [&str; 11] =
        [".rs", ".md", ".toml", ".sh", ".mjs", ".js", ".json", ".css", ".html", ".hash", ".tsv"];
    !t.is_empty()
        && !t.contains(char::is_whitespace)
        && !t.starts_with("//")
        && !t.contains("::")
        && (t.contains('/') || EXTENSIONS.iter().any(|e| t.ends_with(e)))
}

/// Whether `pattern` matches `name`: `*` and a `<placeholder>` stand for any text.
fn matches(pattern: &str, name: &str) -> bool {
    let mut glob = pattern.to_string();
    while let (Some(a), Some(b)) = (glob.find('<'), glob.find('>')) {
        glob.replace_range(a..=b.max(a), "*");
    }
    let parts: Vec<&str> = glob.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return name == first;
    }
    let mut rest = match name.strip_prefix(first) {
        Some(r) => r,
        None => return false,
    };
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The existing paths `name` (a path with wildcards; a trailing `/`: a folder) names below `base`.
fn resolve(base: &Path, name: &str) -> Vec<PathBuf> {
    let folder = name.ends_with('/');
    let mut found = vec![base.to_path_buf()];
    for seg in name.trim_end_matches('/').split('/') {
        let mut next = Vec::new();
        for dir in &found {
            if !seg.contains(['*', '<']) {
                next.push(dir.join(seg));
            } else if let Ok(entries) = std::fs::read_dir(dir) {
                let names = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
                next.extend(names.filter(|n| matches(seg, n)).map(|n| dir.join(n)));
            }
        }
        found = next.into_iter().filter(|p| p.exists()).collect();
    }
    found.retain(|p| !folder || p.is_dir());
    found
}

/// ARCHITECTURE.md is a map: every path it names exists. A name is read from the repository's
/// root or, inside a list item, from a folder its item or an enclosing item names (`sim/`
/// under the item that names `core/src/`; `main.rs` in the item of `bin/skblab/`).
#[test]
fn every_path_architecture_md_names_exists() {
    let text = read(&repo().join("ARCHITECTURE.md"));
    let (mut problems, mut fenced) = (Vec::new(), false);
    // The folders of the list items enclosing the current line: (indent, folders).
    let mut items: Vec<(usize, Vec<PathBuf>)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        let item = body.starts_with("- ") || body.split_once(". ").is_some_and(|(k, _)| k.parse::<u32>().is_ok());
        if fenced || line.trim().is_empty() {
            items.clear();
            continue;
        }
        if indent == 0 && !item {
            items.clear();
        } else if item {
            items.retain(|(i, _)| *i < indent);
            items.push((indent, Vec::new()));
        }
        for name in line.split('`').skip(1).step_by(2).filter(|t| is_path(t)) {
            let bases = std::iter::once(repo()).chain(items.iter().rev().flat_map(|(_, f)| f.clone()));
            let Some(path) = bases.map(|b| resolve(&b, name)).find(|p| !p.is_empty()) else {
                problems.push(format!("ARCHITECTURE.md:{}: `{name}` does not exist", n + 1));
                continue;
            };
            if let Some((_, folders)) = items.last_mut() {
                folders.extend(
                    path.iter().map(|p| if p.is_dir() { p.clone() } else { p.parent().unwrap().to_path_buf() }),
                );
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// ... and names every top folder of the repository (the generated `target/` and `dist/` aside).
#[test]
fn architecture_md_names_every_top_folder() {
    let text = read(&repo().join("ARCHITECTURE.md"));
    for entry in std::fs::read_dir(repo()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && !name.starts_with('.') && name != "target" && name != "dist" {
            assert!(text.contains(&format!("`{name}/`")), "ARCHITECTURE.md does not name the top folder `{name}/`");
        }
    }
}
