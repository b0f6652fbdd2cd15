//! Native-vs-wasm determinism of the simulations: the wasm build must reproduce, bit for bit,
//! the golden outputs that core's native snapshot tests pin.
//!
//! The goldens are read (at compile time) from core's own files — an insta snapshot, and the
//! per-experiment `default_run.hash` files that web/build.rs lists — so there is one source
//! of truth: `cargo test -p skblab-core` checks native == those files, and this file,
//! run in headless Chromium by scripts/wasm-test.sh, checks wasm == the same files. (On the
//! host, `unsupported = test` runs it natively too.)

use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::{find, DEFAULT_SEED};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// The body of an insta snapshot file (after its `---` header block).
fn snapshot_body(file: &str) -> &str {
    let rest = file.strip_prefix("---").expect("snapshot header");
    let end = rest.find("\n---\n").expect("end of snapshot header");
    rest[end + 5..].trim_end()
}

#[wasm_bindgen_test(unsupported = test)]
fn high_order_alloc_golden_point_matches_native() {
    let golden =
        snapshot_body(include_str!("../../core/tests/snapshots/all__high_order_alloc_model__golden_sweep_point.snap"));
    let exp = find(hoa::ID).expect("registered");
    let p = exp.params_from(&["measure_us=500".to_string()]).expect("valid");
    let pt = hoa::sweep_point(&p, 4, 1);
    let got = format!(
        "order3 {:.3}\norder0 {:.3}\nevents {} {}",
        pt.order3_mbps, pt.order0_mbps, pt.order3.outcome.events, pt.order0.outcome.events
    );
    assert_eq!(got, golden);
}

#[wasm_bindgen_test(unsupported = test)]
fn ktls_recursion_default_run_matches_native() {
    let exp = find("ktls-recursion").expect("registered");
    let out = exp.run(&exp.defaults(), DEFAULT_SEED);
    let json: serde_json::Value = serde_json::from_str(&out.to_json()).expect("json");
    let json = &json["rows"][0];
    // The numbers of docs/ktls-recursion.md (native CLI output).
    assert_eq!(json["overflow"], true);
    assert_eq!(json["depth_reached"], 247);
    assert_eq!(json["stack_used_bytes_max"], 16416);
    assert_eq!(json["overflow_function"], "free_one_page");
    assert_eq!(json["thread_size_bytes"], 16384);
}

/// FNV-1a 64, as core/tests/registry.rs hashes outputs.
fn fnv64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

// PINNED_HASHES: every experiment folder's default_run.hash, listed by web/build.rs.
include!(concat!(env!("OUT_DIR"), "/pinned_hashes.rs"));

/// Every registered experiment's default run hashes, under wasm, to the value core pins
/// natively (core/src/experiments/<module>/default_run.hash, checked by
/// core/tests/registry.rs): one check for all experiments, new ones included, with no
/// hand-written golden and no edit here.
#[wasm_bindgen_test(unsupported = test)]
fn every_experiment_default_run_hash_matches_native() {
    for e in skblab_core::experiments() {
        let module = e.id().replace('-', "_");
        let pinned = PINNED_HASHES.iter().find(|(m, _)| *m == module).map(|(_, h)| h.trim());
        let out = e.run(&e.defaults(), DEFAULT_SEED);
        let json = serde_json::to_string(&out).expect("outputs serialize");
        let got = format!("{:016x}", fnv64(&json));
        assert_eq!(Some(got.as_str()), pinned, "{}: core/src/experiments/{module}/default_run.hash", e.id());
    }
}
