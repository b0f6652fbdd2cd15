//! Native-vs-wasm differential test over random settings: every line of
//! core/tests/differential.tsv — random valid settings of every experiment, a seed, and the
//! FNV-1a 64 of the whole run's JSON that core/tests/differential.rs computes natively — must
//! hash the same under wasm, in headless Chromium (scripts/wasm-test.sh). (On the host,
//! `unsupported = test` runs it natively too.)

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The list and its native hashes, read at compile time (the browser cannot read files).
const LIST: &str = include_str!("../../core/tests/differential.tsv");

/// FNV-1a 64, as core/tests/differential.rs hashes outputs.
fn fnv64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[wasm_bindgen_test(unsupported = test)]
fn random_settings_give_the_native_bytes() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for line in LIST.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let mut cols = line.split('\t');
        let (Some(id), Some(seed), Some(want), settings) = (cols.next(), cols.next(), cols.next(), cols.next()) else {
            panic!("differential.tsv: bad line {line:?}");
        };
        let settings: Vec<String> = settings.unwrap_or("").split_whitespace().map(String::from).collect();
        let e = skblab_core::find(id).unwrap_or_else(|err| panic!("{err}"));
        let p = e.params_from(&settings).unwrap_or_else(|err| panic!("{id}: {err}"));
        let out = e.run(&p, seed.parse().expect("seed"));
        let got = format!("{:016x}", fnv64(&serde_json::to_string(&out).expect("outputs serialize")));
        if got != want {
            wrong.push(format!("{id} seed {seed}: wasm {got}, native {want}"));
        }
        checked += 1;
    }
    assert!(checked > 0, "differential.tsv lists no case");
    assert!(wrong.is_empty(), "wasm differs from native:\n{}", wrong.join("\n"));
}
