//! Browser tests (wasm-bindgen-test in headless Chromium): the core gives the same numbers
//! under wasm32 as natively, and the URL code round-trips in the browser.
//!
//! The expected values below were produced by the native build (`skblab run skb-layout
//! --format json` with the same settings). Every test is also a plain `#[test]` on the host
//! (`unsupported = test`), so `cargo test -p skblab-web` checks the same goldens natively and
//! the wasm run checks them in Chromium: a difference between the two fails one side.
//! How to run in the browser: `scripts/wasm-test.sh`.

use skblab_core::rng::Rng;
use skblab_web::pages::{self, View};
use skblab_web::route;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// Ian Campbell's 2011 settings (seed 001), with MAX_SKB_FRAGS left to the caller.
fn ian(max_skb_frags: u32) -> Vec<String> {
    let mut s: Vec<String> = [
        "frag_bytes=24",
        "shinfo_fixed_bytes=56",
        "page_size=4096",
        "cacheline_bytes=64",
        "net_skb_pad=64",
        "mtu=1500",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    s.push(format!("max_skb_frags={max_skb_frags}"));
    s
}

fn run_json(settings: &[String]) -> String {
    let e = skblab_core::find("skb-layout").expect("skb-layout is registered");
    let params = e.params_from(settings).expect("settings are valid");
    let v: serde_json::Value =
        serde_json::from_str(&e.run(&params, skblab_core::DEFAULT_SEED).to_json()).expect("json");
    assert_eq!(v["seed"], skblab_core::DEFAULT_SEED);
    serde_json::to_string_pretty(&v["rows"][0]).expect("json")
}

const IAN_18_JSON: &str = r#"{
  "fits_half_page": false,
  "frame_bytes": 1514,
  "from_page_allocator": false,
  "head_bytes": 2112,
  "head_unaligned_bytes": 2066,
  "heads_per_page": 1,
  "kmalloc_bucket_bytes": 4096,
  "max_skb_frags": 18,
  "page_size_bytes": 4096,
  "preset": "linux-6.4-x86_64",
  "shinfo_aligned_bytes": 512,
  "shinfo_bytes": 488,
  "tailroom_bytes": 2006,
  "truesize_bytes": 4352,
  "waste_bytes": 2030
}"#;

const IAN_16_JSON: &str = r#"{
  "fits_half_page": true,
  "frame_bytes": 1514,
  "from_page_allocator": false,
  "head_bytes": 2048,
  "head_unaligned_bytes": 2018,
  "heads_per_page": 2,
  "kmalloc_bucket_bytes": 2048,
  "max_skb_frags": 16,
  "page_size_bytes": 4096,
  "preset": "linux-6.4-x86_64",
  "shinfo_aligned_bytes": 448,
  "shinfo_bytes": 440,
  "tailroom_bytes": 22,
  "truesize_bytes": 2304,
  "waste_bytes": 30
}"#;

const DEFAULT_JSON: &str = r#"{
  "fits_half_page": true,
  "frame_bytes": 1514,
  "from_page_allocator": false,
  "head_bytes": 1920,
  "head_unaligned_bytes": 1898,
  "heads_per_page": 2,
  "kmalloc_bucket_bytes": 2048,
  "max_skb_frags": 17,
  "page_size_bytes": 4096,
  "preset": "linux-6.4-x86_64",
  "shinfo_aligned_bytes": 320,
  "shinfo_bytes": 320,
  "tailroom_bytes": 150,
  "truesize_bytes": 2304,
  "waste_bytes": 150
}"#;

#[wasm_bindgen_test(unsupported = test)]
fn skb_layout_ian_18_frags_matches_native() {
    assert_eq!(run_json(&ian(18)), IAN_18_JSON);
}

#[wasm_bindgen_test(unsupported = test)]
fn skb_layout_ian_16_frags_matches_native() {
    assert_eq!(run_json(&ian(16)), IAN_16_JSON);
}

#[wasm_bindgen_test(unsupported = test)]
fn skb_layout_default_preset_matches_native() {
    assert_eq!(run_json(&[]), DEFAULT_JSON);
}

/// FNV-1a over the little-endian bytes of 1000 `next_u32` and 100 `below(1000)` draws.
#[wasm_bindgen_test(unsupported = test)]
fn rng_stream_hash_matches_native() {
    let mut rng = Rng::new(1, 0);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |word: u32| {
        for b in word.to_le_bytes() {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for _ in 0..1000 {
        feed(rng.next_u32());
    }
    for _ in 0..100 {
        feed(rng.below(1000));
    }
    assert_eq!(hash, 0x0706_c0dc_ce73_51cf);
}

#[wasm_bindgen_test(unsupported = test)]
fn url_round_trips_through_the_page_state() {
    let text = format!(
        "#/lesson/skb-layout/4?max_skb_frags=16&mtu=9000&preset=frag-destructor-2011&seed=9&model={}",
        skblab_core::MODEL_VERSION
    );
    let text = text.as_str();
    let (view, notices) = pages::resolve(&route::parse(text));
    assert!(notices.is_empty(), "{notices:?}");
    let View::Player(p) = view else { panic!("{text} is not a player page") };
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    assert_eq!((p.step, p.seed, p.params.int("mtu")), (3, 9, 9000));
    assert_eq!(route::format(&p.location()), text);
}

#[wasm_bindgen_test(unsupported = test)]
fn malformed_url_falls_back_with_notices() {
    let (view, _) = pages::resolve(&route::parse("#/lesson/skb-layout/99?mtu=abc"));
    let View::Player(p) = view else { panic!("expected the lesson player") };
    assert_eq!(p.step, 0);
    assert_eq!(p.notices.len(), 2, "{:?}", p.notices);
}
