//! Unit, snapshot and property tests of the skb head arithmetic.

use super::*;
use crate::experiment::Experiment;

fn run_json(settings: &[&str]) -> serde_json::Value {
    let settings: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    let params = SkbLayout.params_from(&settings).expect("valid settings");
    let v: serde_json::Value = serde_json::from_str(&SkbLayout.run(&params, 1).to_json()).expect("json");
    v["rows"][0].clone()
}

const IAN: &[&str] = &[
    "frag_bytes=24",
    "shinfo_fixed_bytes=56",
    "max_skb_frags=18",
    "page_size=4096",
    "cacheline_bytes=64",
    "net_skb_pad=64",
    "mtu=1500",
];

#[test]
fn ian_campbell_18_frags_lands_in_kmalloc_4k() {
    let v = run_json(IAN);
    assert_eq!(v["shinfo_bytes"], 488);
    assert_eq!(v["shinfo_aligned_bytes"], 512);
    assert_eq!(v["head_bytes"], 2112);
    assert_eq!(v["kmalloc_bucket_bytes"], 4096);
    assert_eq!(v["fits_half_page"], false);
}

#[test]
fn ian_campbell_16_frags_fits_half_a_page() {
    let mut s = IAN.to_vec();
    s[2] = "max_skb_frags=16";
    let v = run_json(&s);
    assert_eq!(v["shinfo_bytes"], 440);
    assert_eq!(v["shinfo_aligned_bytes"], 448);
    assert_eq!(v["head_unaligned_bytes"], 2018);
    assert_eq!(v["head_bytes"], 2048);
    assert_eq!(v["kmalloc_bucket_bytes"], 2048);
    assert_eq!(v["heads_per_page"], 2);
}

#[test]
fn formulas_per_era() {
    assert_eq!(FragsFormula::Plus2Floor16.max_skb_frags(4096, 17), 18);
    assert_eq!(FragsFormula::Plus1Floor16.max_skb_frags(4096, 17), 17);
    assert_eq!(FragsFormula::Plus1Floor16.max_skb_frags(65536, 17), 16);
    assert_eq!(FragsFormula::Plus2Floor16.max_skb_frags(65536, 17), 16);
    assert_eq!(FragsFormula::Plus1Floor16.max_skb_frags(16384, 17), 16);
    assert_eq!(FragsFormula::Config.max_skb_frags(4096, 45), 45);
}

#[test]
fn eric_dumazet_shinfo_table_for_config_max_skb_frags() {
    // 3948b05950fd: 17..45 frags -> 320..768 bytes on 64-bit.
    for (frags, bytes) in [(17, 320), (21, 384), (25, 448), (29, 512), (33, 576), (37, 640), (41, 704), (45, 768)] {
        let v = run_json(&["preset=linux-6.4-x86_64", &format!("config_max_skb_frags={frags}")]);
        assert_eq!(v["shinfo_bytes"], bytes, "{frags} frags");
    }
}

#[test]
fn explicit_settings_override_the_preset() {
    let v = run_json(&["preset=linux-2011-x86_64"]);
    assert_eq!(v["max_skb_frags"], 18);
    assert_eq!(v["shinfo_bytes"], 344);
    let v = run_json(&["preset=linux-2011-x86_64", "frag_bytes=24"]);
    assert_eq!(v["shinfo_bytes"], 488);
    let v = run_json(&["frag_bytes=24", "preset=linux-2011-x86_64"]);
    assert_eq!(v["shinfo_bytes"], 488, "order of --set must not matter");
}

#[test]
fn kmalloc_classes() {
    let cases = [
        (1, 8),
        (8, 8),
        (9, 16),
        (65, 96),
        (96, 96),
        (97, 128),
        (129, 192),
        (193, 256),
        (2048, 2048),
        (2049, 4096),
        (8192, 8192),
    ];
    for (req, class) in cases {
        assert_eq!(kmalloc_class(req, 4096), Some(class), "{req}");
    }
    assert_eq!(kmalloc_class(8193, 4096), None);
    assert_eq!(page_alloc_bytes(8193, 4096), 16384);
    assert_eq!(page_alloc_bytes(9100, 4096), 16384);
    assert_eq!(kmalloc_class(70000, 65536), Some(131072));
}

#[test]
fn jumbo_frames_go_to_the_page_allocator() {
    let v = run_json(&["mtu=9000"]);
    assert_eq!(v["from_page_allocator"], true);
    assert_eq!(v["kmalloc_bucket_bytes"], 16384);
    assert_eq!(v["heads_per_page"], 0);
}

#[test]
fn presets_snapshot() {
    let mut text = String::new();
    for p in PRESETS {
        let l = p.input.layout();
        text.push_str(&format!(
            "{:<22} frags={:<2} shinfo={}/{} head={} class={} truesize={} waste={} per_page={}\n",
            p.name,
            l.max_skb_frags,
            l.shinfo_bytes,
            l.shinfo_aligned_bytes,
            l.head_bytes,
            l.kmalloc_bucket_bytes,
            l.truesize_bytes,
            l.waste_bytes,
            l.heads_per_page
        ));
    }
    insta::assert_snapshot!(text);
}

#[test]
fn segments_view_snapshot() {
    insta::assert_snapshot!(render_segments(&preset("frag-destructor-2011").input));
}

#[test]
fn reproduce_matches_the_seed_exactly() {
    let r = reproduce();
    assert_eq!(r.max_abs_error_pct(), 0.0, "{}", r.to_table());
    insta::assert_snapshot!(r.to_table());
}

fn arb_input() -> impl proptest::strategy::Strategy<Value = LayoutInput> {
    use proptest::prelude::*;
    (
        prop::sample::select(vec![4096u64, 8192, 16384, 65536]),
        0u64..=64,
        prop::sample::select(vec![8u64, 16, 24, 32]),
        0u64..=256,
        prop::sample::select(vec![16u64, 32, 64, 128, 256]),
        0u64..=256,
        68u64..=65535,
    )
        .prop_map(|(page, frags, frag_bytes, fixed, line, pad, mtu)| LayoutInput {
            page_size_bytes: page,
            formula: FragsFormula::Plus1Floor16,
            config_max_skb_frags: 17,
            max_skb_frags: frags,
            frag_bytes,
            shinfo_fixed_bytes: fixed,
            cacheline_bytes: line,
            net_skb_pad_bytes: pad,
            net_ip_align_bytes: 0,
            mtu_bytes: mtu,
            sk_buff_bytes: 232,
        })
}

proptest::proptest! {
    #[test]
    fn layout_invariants(input in arb_input()) {
        let l = input.layout();
        proptest::prop_assert!(l.shinfo_aligned_bytes >= l.shinfo_bytes);
        proptest::prop_assert_eq!(l.shinfo_aligned_bytes % input.cacheline_bytes, 0);
        proptest::prop_assert!(l.shinfo_aligned_bytes - l.shinfo_bytes < input.cacheline_bytes);
        proptest::prop_assert!(l.kmalloc_bucket_bytes >= l.head_bytes);
        proptest::prop_assert!(l.head_bytes >= l.head_unaligned_bytes);
        let total: u64 = input.segments().iter().map(|s| s.size_bytes).sum();
        proptest::prop_assert_eq!(total, l.kmalloc_bucket_bytes);
        proptest::prop_assert_eq!(l.truesize_bytes, l.kmalloc_bucket_bytes + input.sk_buff_bytes.div_ceil(input.cacheline_bytes) * input.cacheline_bytes);
    }

    #[test]
    fn more_frags_never_shrink_the_head(input in arb_input(), extra in 1u64..8) {
        let a = LayoutInput { max_skb_frags: input.max_skb_frags.max(1), ..input.clone() };
        let b = LayoutInput { max_skb_frags: a.max_skb_frags + extra, ..input };
        proptest::prop_assert!(b.layout().kmalloc_bucket_bytes >= a.layout().kmalloc_bucket_bytes);
        proptest::prop_assert!(b.layout().shinfo_bytes > a.layout().shinfo_bytes);
    }
}
