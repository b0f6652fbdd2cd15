//! Where `ktls-recursion` faults, over random valid settings, and how its knobs move the cliff
//! (docs/knob-audit.md).
//!
//! Seed 004's oops faults in `free_one_page+0x2b` ← `__free_pages_ok+0x143` ←
//! `skb_release_data+0x8e`: `skb_release_data` (net/core/skbuff.c, 5.1) puts its own page
//! frags (the last `put_page` of a compound page ends in `__free_pages_ok` → `free_one_page`)
//! *before* it frees its frag_list with `kfree_skb_list`, which recurses one level deeper. So
//! the fault must be where the stack is deepest, and that is the page-free dip of the deepest
//! level, for every nesting depth past the cliff, not at one depth.
//!
//! The oracle here is independent of the walk machine: the closed-form sequence of frame
//! pushes of the scenario's free (close() path, the rx cache's `__kfree_skb`, then per level
//! `kfree_skb_list`, `kfree_skb`, `__kfree_skb`, `skb_release_all`, `skb_release_data`, and the
//! dip `__free_pages_ok`, `free_one_page`), and the first push that does not fit. The chain is
//! as deep as the TCP skbs received (strparser after 4e485d06bb8c, the rx cache on, records no
//! longer than a TCP skb: one level per skb, 4a9c2e3746e6).

use proptest::prelude::*;
use skblab_core::experiments::ktls_recursion::{self as ktls, FrameSizes, KtlsInput, KtlsRecursion, WalkResult};
use skblab_core::params::Params;
use skblab_core::Experiment;

fn params(settings: &[String]) -> Params {
    KtlsRecursion.params_from(settings).expect("valid settings")
}

fn walk(settings: &[String]) -> (KtlsInput, WalkResult) {
    let input = KtlsInput::from(&params(settings));
    let (r, _, _) = ktls::run_input(&input);
    (input, r)
}

/// The frames the oops prints, innermost first (inlined ones take no stack and print no line).
fn oops_tail(r: &WalkResult, n: usize) -> Vec<&'static str> {
    let o = r.overflow.as_ref().expect("an overflow");
    o.stack.iter().rev().filter(|e| e.frame_bytes > 0).take(n).map(|e| e.function).collect()
}

/// The first push of the recursive scenario (fix none) that does not fit: (function, level,
/// bytes needed), or None. `levels` = TCP skbs received; `frags` says whether data blocks hold
/// frags.
fn first_push_over(s: &FrameSizes, thread: u64, levels: u32, frags: bool) -> Option<(&'static str, u32, u64)> {
    let (inl, base) = (s.inlined_bytes, s.base_bytes());
    if base > thread {
        return Some(("tcp_disconnect", 0, base));
    }
    // Each push with the level it is made at (`kfree_skb_list` runs in its parent's level).
    let over = |used: u64, pushes: &[(&'static str, u64)], level: u32| {
        let mut u = used;
        for &(f, b) in pushes {
            if u + b > thread {
                return Some((f, if f == "kfree_skb_list" { level - 1 } else { level }, u + b));
            }
            u += b;
        }
        None
    };
    let dip = [("__free_pages_ok", s.free_pages_ok_bytes), ("free_one_page", s.free_one_page_bytes)];
    let root = [
        ("__kfree_skb", s.root_kfree_skb_bytes),
        ("skb_release_all", inl),
        ("skb_release_data", s.skb_release_data_bytes),
    ];
    let next = [
        ("kfree_skb_list", inl),
        ("kfree_skb", s.kfree_skb_bytes),
        ("__kfree_skb", inl),
        ("skb_release_all", inl),
        ("skb_release_data", s.skb_release_data_bytes),
    ];
    let mut used = base;
    for level in 1..=levels {
        let enter: &[(&str, u64)] = if level == 1 { &root } else { &next };
        if let Some(hit) = over(used, enter, level) {
            return Some(hit);
        }
        used += enter.iter().map(|(_, b)| b).sum::<u64>();
        if frags {
            if let Some(hit) = over(used, &dip, level) {
                return Some(hit);
            }
        }
    }
    None
}

/// The seed's chain: the default close() faults in `free_one_page` under
/// `__free_pages_ok` under the frag-unref loop of the deepest level's `skb_release_data`.
#[test]
fn the_default_oops_faults_like_the_seed() {
    let (_, r) = walk(&[]);
    let o = r.overflow.as_ref().expect("the default overflows");
    assert_eq!(
        oops_tail(&r, 5),
        ["free_one_page", "__free_pages_ok", "skb_release_data", "kfree_skb", "skb_release_data"]
    );
    assert_eq!(o.level, r.depth_reached, "the dip of the deepest level entered");
    assert!(o.guard_page_hit);
}

/// Every nesting depth past the cliff faults at the same place: the walk frees from the top
/// of the chain down, so how many levels lie below the fault does not matter.
#[test]
fn the_fault_site_does_not_depend_on_how_deep_the_chain_goes() {
    // (function, level, bytes needed): the skb ids differ, the site does not.
    let at = |d: u32| walk(&[format!("tcp_skbs={d}")]).1.overflow.map(|o| (o.function, o.level, o.needed_bytes));
    let first = (1..=ktls::TCP_SKBS_MAX).find(|&d| at(d).is_some()).expect("a cliff");
    let site = at(first);
    assert_eq!(site.map(|s| s.0), Some("free_one_page"));
    for d in [first + 1, first + 2, first + 17, 1000, 1529, ktls::TCP_SKBS_MAX] {
        assert_eq!(at(d), site, "tcp_skbs={d}");
    }
}

/// The smallest number of TCP skbs received that overflows (bisection: a deeper chain's walk
/// starts with the shallower one's), or None if even the largest fits.
fn cliff(settings: &[String]) -> Option<u32> {
    let overflows = |d: u32| {
        let mut s = settings.to_vec();
        s.push(format!("tcp_skbs={d}"));
        walk(&s).1.overflow.is_some()
    };
    let (mut lo, mut hi) = (1u32, ktls::TCP_SKBS_MAX);
    if !overflows(hi) {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if overflows(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// A bigger stack, or smaller frames, need a deeper chain before the free overflows.
#[test]
fn a_bigger_stack_or_smaller_frames_move_the_cliff_deeper() {
    let with = |k: &str, v: u64| cliff(&[format!("{k}={v}")]).expect("overflows at 8192 TCP skbs");
    let by_stack: Vec<u32> =
        [4096u64, 8192, 16384, 32768, 65536].iter().map(|&t| with("thread_size_bytes", t)).collect();
    assert!(by_stack.windows(2).all(|w| w[0] < w[1]), "THREAD_SIZE 4..64 KiB: {by_stack:?}");
    for knob in ["kfree_skb_frame_bytes", "skb_release_data_frame_bytes", "inlined_frame_bytes"] {
        let by_frame: Vec<u32> = [8u64, 24, 40, 64, 128, 256].iter().map(|&b| with(knob, b)).collect();
        assert!(by_frame.windows(2).all(|w| w[0] >= w[1]), "{knob}: {by_frame:?}");
        assert!(by_frame[0] > by_frame[5], "{knob}: {by_frame:?}");
    }
    let by_path: Vec<u32> = [512u64, 2048, 8192].iter().map(|&b| with("syscall_path_bytes", b)).collect();
    assert!(by_path.windows(2).all(|w| w[0] > w[1]), "syscall_path_bytes: {by_path:?}");
}

/// Random valid settings for the recursive scenario (fix none or bigger-stack, the rx cache
/// on, the default record and TCP skb sizes).
fn arb_settings() -> impl Strategy<Value = Vec<String>> {
    let frame = || (1i64..=64).prop_map(|k| k * 8);
    (
        (1u32..=ktls::TCP_SKBS_MAX, 12u32..=16, 0u32..=45, any::<bool>(), any::<bool>()),
        (frame(), frame(), (0i64..=32).prop_map(|k| k * 8), prop_oneof![Just(0i64), (1i64..=2048).prop_map(|k| k * 8)]),
    )
        .prop_map(|((depth, shift, frags, bigger, vmap), (kfree, srd, inl, path))| {
            vec![
                format!("fix={}", if bigger { "bigger-stack" } else { "none" }),
                format!("tcp_skbs={depth}"),
                format!("thread_size_bytes={}", 1u64 << shift),
                format!("frags_per_skb={frags}"),
                format!("vmap_stack={vmap}"),
                format!("kfree_skb_frame_bytes={kfree}"),
                format!("skb_release_data_frame_bytes={srd}"),
                format!("inlined_frame_bytes={inl}"),
                format!("syscall_path_bytes={path}"),
            ]
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// The walk faults at the first push that does not fit, and when one level's frames are
    /// no deeper than the page-free dip (as with the default sizes) that push is always in the
    /// dip of the deepest level entered: `__free_pages_ok` or `free_one_page` right above that
    /// level's `skb_release_data`, never in the next `kfree_skb`.
    #[test]
    fn the_fault_is_in_the_page_free_dip_of_the_deepest_level(s in arb_settings()) {
        let (input, r) = walk(&s);
        let sizes = &input.walk.sizes;
        let levels = input.scenario.tcp_skbs();
        let want = first_push_over(sizes, input.walk.thread_size_bytes, levels, input.nr_frags() > 0);
        let got = r.overflow.as_ref().map(|o| (o.function, o.level, o.needed_bytes));
        prop_assert_eq!(got, want, "{:?}", s);
        let dip = sizes.free_pages_ok_bytes + sizes.free_one_page_bytes;
        if let Some(o) = r.overflow.as_ref().filter(|o| o.level >= 2 && input.nr_frags() > 0) {
            if sizes.per_level_bytes() <= dip {
                prop_assert!(matches!(o.function, "__free_pages_ok" | "free_one_page"), "{:?}: {}", s, o.function);
                prop_assert_eq!(o.level, r.depth_reached);
                let under = if o.function == "free_one_page" { 2 } else { 1 };
                prop_assert_eq!(o.stack.iter().rev().nth(under).map(|e| e.function), Some("skb_release_data"), "{:?}", s);
            }
        }
    }
}
