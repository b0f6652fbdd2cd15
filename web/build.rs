//! Lists every experiment's pinned default-run hash for web/tests/golden.rs, which runs in
//! the browser and cannot read files: `$OUT_DIR/pinned_hashes.rs` holds one
//! `(module, include_str!(core/src/experiments/<module>/default_run.hash))` per experiment
//! folder that has one, so a new experiment's hash is checked under wasm with no edit here.

use std::path::{Path, PathBuf};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/experiments");
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
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("pinned_hashes.rs");
    std::fs::write(&out, text).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
