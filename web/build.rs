//! Lists every experiment's pinned default-run hash for web/tests/golden.rs, which runs in
//! the browser and cannot read files: `$OUT_DIR/pinned_hashes.rs` holds one
//! `(module, include_str!(core/src/experiments/<module>/default_run.hash))` per experiment
//! folder that has one, so a new experiment's hash is checked under wasm with no edit here.
//!
//! It also lists the custom-view modules for `src/views/mod.rs`: `$OUT_DIR/custom_views.rs` is
//! a macro `with_custom_modules!` naming every `src/views/<name>.rs` that declares
//! `pub const VIEWS`, so a new experiment's custom views need no edit outside their module.

use std::path::PathBuf;

fn main() {
    pinned_hashes();
    custom_views();
}

/// This crate's folder, read when the script runs: a build script compiled in one checkout
/// and reused from a shared target directory by another (cargo's hashes of workspace members
/// do not depend on their path) must still read the files of the checkout being built.
fn manifest_dir() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
}

fn out_file(name: &str) -> PathBuf {
    PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join(name)
}

/// Every `src/views/*.rs` (but `mod.rs`) that declares its custom views, by module name.
fn custom_views() {
    let dir = manifest_dir().join("src/views");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut modules: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|file| file.extension().is_some_and(|x| x == "rs"))
        .filter(|file| {
            let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            println!("cargo:rerun-if-changed={}", file.display());
            text.lines().any(|line| line.starts_with("pub const VIEWS:"))
        })
        .filter_map(|file| Some(file.file_stem()?.to_str()?.to_string()))
        .filter(|module| module != "mod")
        .collect();
    modules.sort();
    // A macro that hands the list to `custom_modules!` (called from views/mod.rs, so the
    // `mod` items resolve beside it, not in OUT_DIR where an `include!`d call would put them).
    let text =
        format!("macro_rules! with_custom_modules {{ ($then:ident) => {{ $then!({}); }}; }}\n", modules.join(", "));
    let out = out_file("custom_views.rs");
    std::fs::write(&out, text).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}

/// The pinned hash files of core's experiments (see the module doc).
fn pinned_hashes() {
    let dir = manifest_dir().join("../core/src/experiments");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter_map(|folder| {
            let file = folder.join("default_run.hash");
            let module = folder.file_name()?.to_str()?.to_string();
            file.is_file().then(|| (module, file.canonicalize().expect("an existing file")))
        })
        .collect();
    found.sort();
    let mut text = String::from("/// (experiment module, contents of its default_run.hash), by module name.\n");
    text.push_str("const PINNED_HASHES: &[(&str, &str)] = &[\n");
    for (module, file) in &found {
        text.push_str(&format!("    ({module:?}, include_str!({:?})),\n", file.display().to_string()));
    }
    text.push_str("];\n");
    let out = out_file("pinned_hashes.rs");
    std::fs::write(&out, text).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
