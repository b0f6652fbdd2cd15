//! Unit, snapshot, determinism and property tests of the skb graph, the free walk and the
//! `ktls-recursion` experiment. A failing property prints its case; replay it with
//! `cargo test -p skblab-core ktls_recursion`.

use super::graph::{Root, RootCall, SkbId};
use super::*;
use crate::experiment::Experiment;
use proptest::prelude::*;
use std::collections::BTreeSet;

fn params(settings: &[&str]) -> Params {
    let settings: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    KtlsRecursion.params_from(&settings).expect("valid settings")
}

fn run_json(settings: &[&str]) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&KtlsRecursion.run(&params(settings), 1).to_json()).expect("json");
    v["rows"][0].clone()
}

fn view(settings: &[&str], title: &str) -> String {
    let out = KtlsRecursion.run(&params(settings), 1);
    out.views.into_iter().find(|v| v.title == title).expect("view exists").text
}

fn cfg(thread_size_bytes: u64, iterative: bool) -> WalkConfig {
    WalkConfig { sizes: FrameSizes::default(), thread_size_bytes, iterative, vmap_stack: true }
}

#[test]
fn default_scenario_is_the_seed_and_overflows() {
    let v = run_json(&[]);
    assert_eq!(v["records"], 6104, "100 MB / 16 KiB records, rounded up");
    assert_eq!(v["overflow"], true);
    assert_eq!(v["guard_page_hit"], true);
    assert_eq!(v["thread_size_bytes"], 16384);
    // The seed's oops: RIP free_one_page+0x2b, called from __free_pages_ok, called from the
    // frag-unref loop of skb_release_data (+0x8e), one level below the last kfree_skb.
    assert_eq!(v["overflow_function"], "free_one_page");
    assert_eq!(v["depth_reached"], 247);
    assert_eq!(v["stack_used_bytes_max"], 16416);
    assert_eq!(v["stack_base_bytes"], 512);
    assert_eq!(v["stack_per_level_bytes"], 64);
}

/// Issue 23 finding 8: each level frees its own page frags (`__free_pages_ok` →
/// `free_one_page`) before it walks its frag_list, so the fault is in the leaf under the frag
/// loop, not in the next level's `kfree_skb`.
#[test]
fn the_default_oops_faults_in_free_one_page_under_the_frag_loop() {
    let input = KtlsInput::from_params(&params(&[]));
    let (r, _, _) = run_input(&input);
    let o = r.overflow.expect("the default overflows");
    // The frames the oops shows (inlined ones take no stack and print no line).
    let tail: Vec<&str> = o.stack.iter().rev().filter(|e| e.frame_bytes > 0).take(5).map(|e| e.function).collect();
    assert_eq!(tail, ["free_one_page", "__free_pages_ok", "skb_release_data", "kfree_skb", "skb_release_data"]);
    // Every level on the stack freed pages on the way down: the data blocks released before
    // the fault are the levels' own (one per level entered, the deepest one's in progress).
    assert!(r.data_freed.is_empty(), "nothing is released until the frag loop returns");
    for fix in [Fix::IterativeFree, Fix::NoRxCache, Fix::StrparserFlatten] {
        let (r, _, _) = run_input(&input.with_fix(fix));
        assert!(r.overflow.is_none(), "{fix:?} must not overflow");
    }
}

#[test]
fn shallow_nesting_fits() {
    let v = run_json(&["nesting_depth=4"]);
    assert_eq!(v["overflow"], false);
    assert_eq!(v["graph_levels"], 5, "4 wrapped heads above the first record's clone");
    assert_eq!(v["skbs_left"], 0);
    assert!(v["stack_used_bytes_max"].as_i64().unwrap() < 1024);
}

#[test]
fn doubling_thread_size_roughly_doubles_the_depth() {
    let d16 = run_json(&[])["depth_reached"].as_f64().unwrap();
    let d32 = run_json(&["thread_size_bytes=32768"])["depth_reached"].as_f64().unwrap();
    let ratio = d32 / d16;
    assert!((1.9..=2.1).contains(&ratio), "{d16} -> {d32}");
}

#[test]
fn fixes_compared_on_the_seed_scenario() {
    for (fix, overflow) in [
        ("none", true),
        ("no-rx-cache", false),
        ("iterative-free", false),
        ("strparser-flatten", false),
        ("bigger-stack", true),
    ] {
        let v = run_json(&[&format!("fix={fix}")]);
        assert_eq!(v["overflow"], overflow, "{fix}");
        if !overflow {
            assert_eq!(v["skbs_left"], 0, "{fix} frees everything");
        }
    }
    let v = run_json(&["fix=bigger-stack"]);
    assert_eq!(v["thread_size_bytes"], 32768);
    assert_eq!(v["depth_reached"], run_json(&["thread_size_bytes=32768"])["depth_reached"]);
    let v = run_json(&["fix=iterative-free"]);
    assert_eq!(v["depth_reached"], 6105, "every level is freed, none on the stack");
    assert!(v["stack_used_bytes_max"].as_i64().unwrap() < 1024);
}

#[test]
fn without_vmap_stack_the_overrun_is_silent() {
    let v = run_json(&["vmap_stack=false"]);
    assert_eq!(v["overflow"], true);
    assert_eq!(v["guard_page_hit"], false);
    assert!(view(&["vmap_stack=false"], "oops").contains("no guard page"));
}

#[test]
fn levels_fit_is_the_walks_last_level() {
    for thread in [4096u64, 8192, 16384, 32768, 65536] {
        let fit = run_json(&[&format!("thread_size_bytes={thread}")])["levels_fit"].as_i64().unwrap();
        // The last level that fits is the deepest a walk without overflow reaches: one record
        // more overflows (the seed's depth is far past it at every size here).
        let walk =
            |records: i64| run_json(&[&format!("thread_size_bytes={thread}"), &format!("nesting_depth={records}")]);
        let ok = walk(fit - 1);
        assert_eq!(
            (ok["overflow"].as_bool(), ok["depth_reached"].as_i64()),
            (Some(false), Some(fit)),
            "{thread}: fit {fit}"
        );
        assert_eq!(walk(fit)["overflow"].as_bool(), Some(true), "{thread}: {fit} records overflow");
    }
}

#[test]
fn nesting_is_capped_and_reported() {
    let v = run_json(&["transfer_bytes=1000000000"]);
    assert_eq!(v["records"], NESTING_DEPTH_MAX);
    assert_eq!(v["records_capped"], true);
}

#[test]
fn oops_snapshot() {
    insta::assert_snapshot!("oops_default", view(&[], "oops"));
    insta::assert_snapshot!("oops_no_overflow", view(&["nesting_depth=4"], "oops"));
}

#[test]
fn stack_table_snapshot() {
    insta::assert_snapshot!("stack_nesting_4", view(&["nesting_depth=4"], "stack"));
}

#[test]
fn runs_are_deterministic() {
    for s in [&[][..], &["fix=iterative-free"][..], &["nesting_depth=300", "fix=strparser-flatten"][..]] {
        let p = params(s);
        assert_eq!(KtlsRecursion.run(&p, 1), KtlsRecursion.run(&p, 1), "{s:?}");
        assert_eq!(walk_trace(&p), walk_trace(&p), "{s:?}");
    }
}

#[test]
fn walk_trace_steps_to_the_overflow() {
    let t = walk_trace(&params(&[]));
    let last = t.frames.last().expect("frames");
    assert!(last.overflow, "the last frame is the overflow");
    assert!(!t.truncated);
    assert_eq!(t.frames.iter().filter(|f| f.overflow).count(), 1);
    let stack = t.stack_at(t.frames.len() - 1);
    let bytes: u64 = stack.iter().map(|e| e.frame_bytes).sum();
    assert_eq!(bytes, last.stack_used_bytes);
    assert!(bytes > t.thread_size_bytes);
    assert_eq!(t.graph.nodes.len(), 12209);
    assert_eq!(t.graph.nesting_levels, 6105);
    serde_json::to_string(&t).expect("serializes");
}

#[test]
fn walk_trace_is_bounded() {
    let t = walk_trace(&params(&["fix=iterative-free"]));
    assert!(t.truncated);
    assert_eq!(t.frames.len(), TRACE_FRAMES_MAX);
    assert_eq!(t.summary.skbs_freed.len(), 12209, "the summary covers the whole walk");
}

#[test]
fn stack_vs_depth_per_fix() {
    let p = params(&[]);
    let depths = chart_depths();
    let none = stack_vs_depth(&p, Fix::None, &depths);
    assert_eq!(none.len(), 65);
    assert!(none.windows(2).all(|w| w[0].stack_used_bytes_max <= w[1].stack_used_bytes_max));
    let cliff = none.iter().find(|pt| pt.overflow).expect("a cliff").depth;
    let bigger = stack_vs_depth(&p, Fix::BiggerStack, &depths);
    let cliff2 = bigger.iter().find(|pt| pt.overflow).expect("a later cliff").depth;
    assert!(cliff <= 256 && cliff2 > 2 * cliff - 32 && cliff2 <= 2 * cliff + 32, "{cliff} {cliff2}");
    for fix in [Fix::NoRxCache, Fix::IterativeFree, Fix::StrparserFlatten] {
        let pts = stack_vs_depth(&p, fix, &depths);
        assert!(pts.iter().all(|pt| !pt.overflow), "{fix:?}");
        let peak = pts.iter().map(|pt| pt.stack_used_bytes_max).max().unwrap();
        assert!(peak < 1024, "{fix:?} stays flat: {peak}");
    }
    let many = vec![1u32; 10_000];
    assert_eq!(stack_vs_depth(&p, Fix::None, &many).len(), CHART_POINTS_MAX);
}

#[test]
fn a_clone_keeps_shared_data_until_the_last_reference() {
    let mut g = SkbGraph::default();
    let orig = g.alloc_skb(3, SkbRole::Other);
    let clone = g.skb_clone(orig, SkbRole::Other);
    g.roots =
        vec![Root { skb: orig, call: RootCall::ReceiveQueuePurge }, Root { skb: clone, call: RootCall::RxSkbCache }];
    g.check_invariants();
    let (r, after) = walk::walk(g, cfg(16384, false));
    assert_eq!(r.skbs_freed, vec![orig, clone]);
    assert_eq!(r.data_freed, vec![(0, 1)], "data released only during the clone's free");
    after.check_invariants();
}

#[test]
fn reproduce_is_labelled_an_estimate() {
    let rep = KtlsRecursion.reproduce(1).expect("a comparison");
    assert!(rep.notes[0].contains("ESTIMATE"));
    assert!(rep.max_abs_error_pct() < 2.0);
}

/// A random graph: skbs with frags, clones, frag_lists of older unlisted skbs, and extra
/// references held by the socket.
fn arb_graph() -> impl Strategy<Value = SkbGraph> {
    proptest::collection::vec((0u8..4, 0u32..4, 0usize..64, 0usize..4), 1..40).prop_map(|ops| {
        let mut g = SkbGraph::default();
        let mut unlisted: Vec<SkbId> = Vec::new();
        for (op, frags, pick, take) in ops {
            let id = if op == 0 && !g.skbs.is_empty() {
                g.skb_clone((pick % g.skbs.len()) as SkbId, SkbRole::Other)
            } else {
                let id = g.alloc_skb(frags, SkbRole::Other);
                for _ in 0..take.min(unlisted.len()) {
                    let child = unlisted.remove(pick % unlisted.len());
                    g.frag_list_append(id, child);
                }
                id
            };
            unlisted.push(id);
        }
        for (i, &skb) in unlisted.iter().enumerate() {
            // `__kfree_skb` (the rx cache) is only for an skb's last reference.
            if i % 3 == 0 {
                g.skb_get(skb);
                g.roots.push(Root { skb, call: RootCall::ReceiveQueuePurge });
                g.roots.push(Root { skb, call: RootCall::ReceiveQueuePurge });
            } else {
                let call = if i % 2 == 0 { RootCall::ReceiveQueuePurge } else { RootCall::RxSkbCache };
                g.roots.push(Root { skb, call });
            }
        }
        g
    })
}

fn freed_set(r: &WalkResult) -> BTreeSet<SkbId> {
    r.skbs_freed.iter().copied().collect()
}

proptest! {
    #[test]
    fn every_skb_freed_exactly_once_without_overflow(g in arb_graph(), iterative in any::<bool>()) {
        g.check_invariants();
        let n = g.skbs.len();
        let (r, after) = walk::walk(g, cfg(1 << 30, iterative));
        prop_assert!(r.overflow.is_none());
        prop_assert_eq!(r.skbs_freed.len(), n, "no skb freed twice or missed");
        prop_assert_eq!(freed_set(&r).len(), n);
        prop_assert_eq!(r.data_freed.len(), after.data.len());
        prop_assert!(after.skbs.iter().all(|s| s.freed && s.users == 0));
        after.check_invariants();
    }

    #[test]
    fn shared_data_goes_with_its_last_skb(g in arb_graph()) {
        let (r, after) = walk::walk(g, cfg(1 << 30, false));
        for &(data, freed_before) in &r.data_freed {
            let owners: BTreeSet<SkbId> = after.skbs.iter().filter(|s| s.data == data).map(|s| s.id).collect();
            let gone: BTreeSet<SkbId> = r.skbs_freed[..freed_before].iter().copied().collect();
            let still: Vec<_> = owners.difference(&gone).collect();
            prop_assert_eq!(still.len(), 1, "data {} freed while skbs {:?} used it", data, still);
        }
    }

    #[test]
    fn recursive_and_iterative_free_the_same_set(g in arb_graph(), thread in 1024u64..8192) {
        let (rec, _) = walk::walk(g.clone(), cfg(1 << 30, false));
        let (it, _) = walk::walk(g.clone(), cfg(1 << 30, true));
        prop_assert_eq!(freed_set(&rec), freed_set(&it));
        // With a small stack an overflow stops the walk but never frees anything twice.
        let (small, after) = walk::walk(g, cfg(thread, false));
        prop_assert_eq!(freed_set(&small).len(), small.skbs_freed.len());
        match small.overflow {
            Some(o) => prop_assert!(o.needed_bytes > thread),
            None => {
                prop_assert!(small.stack_used_bytes_max <= thread);
                after.check_invariants();
            }
        }
    }

    #[test]
    fn scenario_graphs_are_sound(records in 0u32..300, fix in 0usize..5, frags in 0u32..18) {
        let g = build_scenario(records, FIXES[fix], frags);
        g.check_invariants();
        let want = match FIXES[fix] {
            Fix::NoRxCache | Fix::StrparserFlatten => 2.min(records + 1),
            _ => records + 1,
        };
        prop_assert_eq!(g.nesting_levels(), if records == 0 { 0 } else { want });
        let (r, after) = walk::walk(g.clone(), cfg(1 << 30, false));
        prop_assert_eq!(r.skbs_freed.len(), g.live_skbs());
        after.check_invariants();
    }
}

#[test]
fn view_data_is_the_walk_and_the_chart_and_reads_back_from_json() {
    let p = params(&["nesting_depth=40"]);
    let walk = KtlsRecursion.view_data(&p, 1, &ViewQuery::new("walk")).expect("walk data");
    let direct = walk.decode::<WalkTrace>().unwrap();
    assert_eq!(*direct, walk_trace(&p));
    let back = ViewData::from_json(walk.to_json()).decode::<WalkTrace>().unwrap();
    assert_eq!(back, direct, "the walk crosses the worker boundary unchanged");
    let chart = KtlsRecursion.view_data(&p, 1, &ViewQuery::new("chart")).expect("chart data");
    let back = ViewData::from_json(chart.to_json()).decode::<StackVsDepth>().unwrap();
    assert_eq!(back, chart.decode::<StackVsDepth>().unwrap());
    assert_eq!(back.series.len(), FIXES.len());
    assert!(KtlsRecursion.view_data(&p, 1, &ViewQuery::new("oops")).is_none());
    assert_eq!(KtlsRecursion.view_cost(&p, &ViewQuery::new("chart")), crate::Cost::Heavy);
}

#[test]
fn an_unknown_function_name_is_an_error() {
    let e = serde_json::from_str::<StackEntry>(r#"{"function":"nope","frame_bytes":8}"#).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
}
