//! Unit, snapshot, determinism and property tests of the skb graph, the free walk and the
//! `ktls-recursion` experiment. A failing property prints its case; replay it with
//! `cargo test -p skblab-core ktls_recursion`.

use super::graph::{Root, RootCall, SkbId};
use super::*;
use crate::experiment::Experiment;
use crate::params::Params;
use proptest::prelude::*;
use std::collections::BTreeSet;

/// The experiment as the platform calls it.
const KTLS: &dyn Experiment = &KtlsRecursion;

fn params(settings: &[&str]) -> Params {
    let settings: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    KTLS.params_from(&settings).expect("valid settings")
}

fn run_json(settings: &[&str]) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&KTLS.run(&params(settings), 1).to_json()).expect("json");
    v["rows"][0].clone()
}

fn view(settings: &[&str], title: &str) -> String {
    let out = KTLS.run(&params(settings), 1);
    out.views.into_iter().find(|v| v.title == title).expect("view exists").text
}

fn cfg(thread_size_bytes: u64, iterative: bool) -> WalkConfig {
    WalkConfig { sizes: FrameSizes::default(), thread_size_bytes, iterative, vmap_stack: true }
}

/// The chain the seed's strparser leaves under the rx cache's skb, counted without the
/// simulation: level 1 is the first TCP skb's shared info; a record that starts in the current
/// TCP skb and runs on into a later one hangs that later skb's shared info one level down (its
/// clone is on the current one's frag_list); the chain stops at a TCP skb whose end is a record
/// boundary (no record crosses it) or at the stream's end.
fn chain_levels_oracle(wire: u64, skb: u64, record: u64) -> u32 {
    if wire == 0 {
        return 0;
    }
    let (mut at, mut levels) = (0u64, 1u32);
    loop {
        let end = ((at + 1) * skb).min(wire);
        if end == wire || end % record == 0 {
            return levels;
        }
        // The record crossing this skb's end ends in skb `next`.
        let record_end = (end / record + 1) * record;
        at = (record_end.min(wire) - 1) / skb;
        levels += 1;
    }
}

#[test]
fn default_scenario_is_the_seed_and_overflows() {
    let v = run_json(&[]);
    assert_eq!(v["records"], 6104, "100 MB / 16 KiB records, rounded up");
    assert_eq!(v["tcp_skbs"], 1529, "100 MB + 29 B per record, in 64 KiB skbs");
    assert_eq!(v["graph_levels"], 1529, "every TCP skb chained one level below the last");
    assert_eq!(v["skbs_total"], 1529, "the cached TCP skb and one clone per later TCP skb");
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
    assert_eq!(
        v["transfer_free_levels_max"], 1,
        "the cache keeps the chain: nothing below a level is freed before close"
    );
}

/// Each level frees its own page frags (`__free_pages_ok` →
/// `free_one_page`) before it walks its frag_list, so the fault is in the leaf under the frag
/// loop, not in the next level's `kfree_skb`.
#[test]
fn the_default_oops_faults_in_free_one_page_under_the_frag_loop() {
    let input = KtlsInput::from(&params(&[]));
    let (r, _, _) = run_input(&input);
    let o = r.overflow.expect("the default overflows");
    // The frames the oops shows (inlined ones take no stack and print no line).
    let tail: Vec<&str> = o.stack.iter().rev().filter(|e| e.frame_bytes > 0).take(5).map(|e| e.function).collect();
    assert_eq!(tail, ["free_one_page", "__free_pages_ok", "skb_release_data", "kfree_skb", "skb_release_data"]);
    // Nothing is released until the frag loop of a level returns.
    assert!(r.data_freed.is_empty(), "nothing is released until the frag loop returns");
    for fix in [Fix::IterativeFree, Fix::StrparserUnclone] {
        let (r, _, _) = run_input(&input.with_fix(fix));
        assert!(r.overflow.is_none(), "{fix:?} must not overflow");
    }
    let (r, _, _) = run_input(&KtlsInput::from(&params(&["tcp_rx_skb_cache=false"])));
    assert!(r.overflow.is_none(), "without the rx cache nothing is left to free at close");
}

/// 4a9c2e3746e6's mechanism on four TCP skbs: the cached TCP skb's shared info holds
/// strparser's clone of the second TCP skb, whose (shared) info holds the third's, and so on.
#[test]
fn the_seed_strparser_chains_the_tcp_skbs_through_their_shared_info() {
    let input = KtlsInput::from(&params(&["tcp_skbs=4"]));
    let t = input.transfer();
    let g = &t.graph;
    g.check_invariants();
    assert_eq!(g.roots.len(), 1);
    assert_eq!(g.roots[0].call, graph::RootCall::RxSkbCache);
    let mut at = g.roots[0].skb;
    assert_eq!(g.skbs[at as usize].role, SkbRole::Tcp);
    let mut chain = vec![at];
    while let [next] = g.children(at) {
        let c = &g.skbs[*next as usize];
        assert_eq!((c.role, c.kind), (SkbRole::StrpClone, SkbKind::Clone));
        // The clone's data is a TCP skb's, which TCP has freed: the clone is its last user.
        assert_eq!(g.data[c.data as usize].dataref, 1);
        assert!(g.skbs.iter().any(|s| s.role == SkbRole::Tcp && s.data == c.data && s.freed));
        at = *next;
        chain.push(at);
    }
    assert_eq!(chain.len(), 4, "{chain:?}");
    assert_eq!(g.live_skbs(), 4);
    assert_eq!(g.nesting_levels(), 4);
}

#[test]
fn shallow_chains_fit() {
    let v = run_json(&["tcp_skbs=4"]);
    assert_eq!(v["overflow"], false);
    assert_eq!(v["graph_levels"], 4);
    assert_eq!(v["skbs_freed"], 4);
    assert_eq!(v["skbs_left"], 0);
    assert!(v["stack_used_bytes_max"].as_i64().unwrap() < 1024);
}

/// The brief's knob relations: more data received → a deeper chain under the seed's
/// strparser with the rx cache; the merged fix → at most one level whatever the data; no rx
/// cache → nothing kept at close.
#[test]
fn more_data_deepens_the_chain_only_under_the_bug_and_the_cache() {
    let levels = |s: &[&str]| run_json(s)["graph_levels"].as_i64().unwrap();
    let seed: Vec<i64> = [1, 2, 10, 100, 1000, 8192].iter().map(|n| levels(&[&format!("tcp_skbs={n}")])).collect();
    assert_eq!(seed, [1, 2, 10, 100, 1000, 8192], "one level per TCP skb received");
    let by_transfer: Vec<i64> =
        [1, 10, 100, 1000].iter().map(|mb| levels(&[&format!("transfer_bytes={}", mb * 1_000_000)])).collect();
    assert!(by_transfer.windows(2).all(|w| w[0] < w[1]), "{by_transfer:?}");
    for n in [1, 10, 1000, 8192] {
        let fixed = levels(&["fix=strparser-unclone", &format!("tcp_skbs={n}")]);
        assert_eq!(fixed, 1, "the fix: only the cached TCP skb, its frag_list empty ({n} skbs)");
        for fix in ["none", "strparser-unclone"] {
            let v = run_json(&[&format!("fix={fix}"), "tcp_rx_skb_cache=false", &format!("tcp_skbs={n}")]);
            assert_eq!((v["graph_levels"].as_i64(), v["skbs_total"].as_i64()), (Some(0), Some(0)), "{fix} {n}");
        }
    }
    // Without the cache the chain is freed as the data is read: a record's head frees the
    // previous TCP skb's shared info, whose frag_list holds the next TCP skb's clone (2 levels).
    assert_eq!(run_json(&["tcp_rx_skb_cache=false"])["transfer_free_levels_max"], 2);
}

/// Records longer than a TCP skb: one level per record that crosses into a later skb, and
/// the chain stops where a record ends exactly at an skb's end.
#[test]
fn the_chain_follows_the_records_across_the_tcp_skbs() {
    for (skb, record, n) in [(4096u64, 16384u64, 64u32), (65536, 1024, 40), (16384, 16384, 30), (1024, 2048, 300)] {
        let input = KtlsInput::from(&params(&[
            &format!("tcp_skb_bytes={skb}"),
            &format!("tls_record_bytes={record}"),
            &format!("tcp_skbs={n}"),
        ]));
        let sc = input.scenario;
        let want = chain_levels_oracle(sc.wire_bytes, sc.tcp_skb_bytes, sc.record_wire_bytes);
        assert_eq!(input.graph().nesting_levels(), want, "skb {skb} record {record} skbs {n}");
    }
    // A record boundary on an skb boundary stops the chain (the oracle on small numbers).
    assert_eq!(chain_levels_oracle(4 * 100, 100, 50), 1, "every skb end is a record end");
    assert_eq!(chain_levels_oracle(4 * 100, 100, 150), 3, "records end at 150 and 300: the third skb ends the chain");
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
    for (fix, overflow) in
        [("none", true), ("strparser-unclone", false), ("iterative-free", false), ("bigger-stack", true)]
    {
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
    assert_eq!(v["depth_reached"], 1529, "every level is freed, none on the stack");
    assert!(v["stack_used_bytes_max"].as_i64().unwrap() < 1024);
    let v = run_json(&["fix=strparser-unclone"]);
    assert_eq!((v["graph_levels"].as_i64(), v["skbs_freed"].as_i64()), (Some(1), Some(1)));
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
        // The last level that fits is the deepest a walk without overflow reaches: one TCP skb
        // more overflows.
        let walk = |skbs: i64| run_json(&[&format!("thread_size_bytes={thread}"), &format!("tcp_skbs={skbs}")]);
        let ok = walk(fit);
        assert_eq!(
            (ok["overflow"].as_bool(), ok["depth_reached"].as_i64()),
            (Some(false), Some(fit)),
            "{thread}: fit {fit}"
        );
        assert_eq!(walk(fit + 1)["overflow"].as_bool(), Some(true), "{thread}: {} skbs overflow", fit + 1);
    }
}

#[test]
fn the_transfer_is_capped_and_reported() {
    let v = run_json(&["transfer_bytes=1000000000"]);
    assert_eq!(v["tcp_skbs"], TCP_SKBS_MAX);
    assert_eq!(v["transfer_capped"], true);
    let v = run_json(&["tcp_skbs=8192", "tcp_skb_bytes=65536", "tls_record_bytes=1024"]);
    assert_eq!(v["records"], RECORDS_MAX);
    assert_eq!(v["transfer_capped"], true);
    assert_eq!(run_json(&[])["transfer_capped"], false);
}

#[test]
fn oops_snapshot() {
    insta::assert_snapshot!("oops_default", view(&[], "oops"));
    insta::assert_snapshot!("oops_no_overflow", view(&["tcp_skbs=4"], "oops"));
}

#[test]
fn stack_table_snapshot() {
    insta::assert_snapshot!("stack_nesting_4", view(&["tcp_skbs=4"], "stack"));
}

#[test]
fn runs_are_deterministic() {
    for s in [&[][..], &["fix=iterative-free"][..], &["tcp_skbs=300", "fix=strparser-unclone"][..]] {
        let p = params(s);
        assert_eq!(KTLS.run(&p, 1), KTLS.run(&p, 1), "{s:?}");
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
    assert_eq!(t.graph.nodes.len(), 1529);
    assert_eq!(t.graph.nesting_levels, 1529);
    assert!(t.graph.nodes.iter().all(|n| n.level >= 1), "every live skb hangs from the cache");
    serde_json::to_string(&t).expect("serializes");
}

#[test]
fn walk_trace_is_bounded() {
    let t = walk_trace(&params(&["fix=iterative-free", "tcp_skbs=8192"]));
    assert!(t.truncated);
    assert_eq!(t.frames.len(), TRACE_FRAMES_MAX);
    assert_eq!(t.summary.skbs_freed.len(), 8192, "the summary covers the whole walk");
}

#[test]
fn an_empty_close_walks_nothing() {
    let t = walk_trace(&params(&["tcp_rx_skb_cache=false"]));
    assert!(t.graph.nodes.is_empty() && t.frames.is_empty() && t.summary.overflow.is_none());
    assert_eq!(t.summary.stack_used_bytes_max, 512, "only the close() path");
    assert!(view(&["tcp_rx_skb_cache=false"], "oops").contains("no overflow. close() freed 0 skbs"));
}

#[test]
fn stack_vs_depth_per_fix() {
    let p = KtlsInput::from(&params(&[]));
    let depths = chart_depths();
    let none = stack_vs_depth(&p, Fix::None, &depths);
    assert_eq!(none.len(), 65);
    assert!(none.iter().all(|pt| pt.levels == pt.tcp_skbs), "one level per TCP skb");
    assert!(none.windows(2).all(|w| w[0].stack_used_bytes_max <= w[1].stack_used_bytes_max));
    let cliff = none.iter().find(|pt| pt.overflow).expect("a cliff").tcp_skbs;
    let bigger = stack_vs_depth(&p, Fix::BiggerStack, &depths);
    let cliff2 = bigger.iter().find(|pt| pt.overflow).expect("a later cliff").tcp_skbs;
    assert!(cliff <= 256 && cliff2 > 2 * cliff - 32 && cliff2 <= 2 * cliff + 32, "{cliff} {cliff2}");
    for fix in [Fix::StrparserUnclone, Fix::IterativeFree] {
        let pts = stack_vs_depth(&p, fix, &depths);
        assert!(pts.iter().all(|pt| !pt.overflow), "{fix:?}");
        let peak = pts.iter().map(|pt| pt.stack_used_bytes_max).max().unwrap();
        assert!(peak < 1024, "{fix:?} stays flat: {peak}");
    }
    let off = KtlsInput::from(&params(&["tcp_rx_skb_cache=false"]));
    for &fix in FIXES {
        assert!(stack_vs_depth(&off, fix, &depths).iter().all(|pt| pt.levels == 0 && !pt.overflow), "{fix:?}");
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
    let rep = KTLS.reproduce(1).expect("a comparison");
    assert!(rep.notes[0].contains("ESTIMATE"));
    assert!(rep.notes[1].contains("FITTED"));
    assert!(rep.max_abs_error_pct() < 2.0);
    let t = &KTLS.tables()[0];
    assert_eq!(t.verdict(), crate::calibrate::tables::Verdict::Fit);
    assert_eq!(t.fitted, FITTED, "the frames of one level are fitted to the one number");
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
    fn scenario_graphs_are_sound(
        skbs in 0u32..400,
        skb_k in 1u64..=64,
        record_k in 1u64..=16,
        fix in 0usize..4,
        cache in any::<bool>(),
        frags in 0u32..18,
    ) {
        let input = KtlsInput::from(&params(&[
            &format!("fix={}", FIXES[fix].name()),
            &format!("tcp_rx_skb_cache={cache}"),
            &format!("tcp_skbs={skbs}"),
            &format!("tcp_skb_bytes={}", skb_k * 1024),
            &format!("tls_record_bytes={}", record_k * 1024),
            &format!("frags_per_skb={frags}"),
        ]));
        let t = input.transfer();
        let g = &t.graph;
        g.check_invariants();
        let sc = input.scenario;
        let want = match (cache, FIXES[fix]) {
            (false, _) => 0,
            (true, Fix::StrparserUnclone) => u32::from(sc.wire_bytes > 0),
            (true, _) => chain_levels_oracle(sc.wire_bytes, sc.tcp_skb_bytes, sc.record_wire_bytes),
        };
        prop_assert_eq!(g.nesting_levels(), want, "{:?}", sc);
        // One skb per level when records are no longer than TCP skbs; a longer record also
        // keeps the clones of the TCP skbs it covers whole, on the same frag_list.
        if sc.record_wire_bytes <= sc.tcp_skb_bytes || want == 0 {
            prop_assert_eq!(g.live_skbs() as u32, want);
        } else {
            prop_assert!(g.live_skbs() as u32 >= want);
        }
        let (r, after) = walk::walk(g.clone(), cfg(1 << 30, false));
        prop_assert_eq!(r.skbs_freed.len(), g.live_skbs());
        prop_assert_eq!(r.depth_reached, want);
        after.check_invariants();
        prop_assert!(after.data.iter().all(|d| d.freed), "close() releases every data block");
    }
}

#[test]
fn view_data_is_the_walk_and_the_chart_and_reads_back_from_json() {
    let p = params(&["tcp_skbs=40"]);
    let walk = KTLS.view_data(&p, 1, &ViewQuery::new("walk")).expect("walk data");
    let direct = walk.decode::<WalkTrace>().unwrap();
    assert_eq!(*direct, walk_trace(&p));
    let back = ViewData::from_json(walk.to_json()).decode::<WalkTrace>().unwrap();
    assert_eq!(back, direct, "the walk crosses the worker boundary unchanged");
    let chart = KTLS.view_data(&p, 1, &ViewQuery::new("chart")).expect("chart data");
    let back = ViewData::from_json(chart.to_json()).decode::<StackVsDepth>().unwrap();
    assert_eq!(back, chart.decode::<StackVsDepth>().unwrap());
    assert_eq!(back.series.len(), FIXES.len());
    assert!(KTLS.view_data(&p, 1, &ViewQuery::new("oops")).is_none());
    assert_eq!(KTLS.view_cost(&p, &ViewQuery::new("chart")), crate::Cost::Heavy);
}

#[test]
fn an_unknown_function_name_is_an_error() {
    let e = serde_json::from_str::<StackEntry>(r#"{"function":"nope","frame_bytes":8}"#).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
}

/// The stack table's delta column is signed: under the iterative free a later level can use less
/// stack than the first (a fuzz draw found the unsigned subtraction overflowing here).
#[test]
fn the_stack_table_shows_a_shrinking_level_as_a_negative_delta() {
    let text = view(&["fix=iterative-free", "tcp_skbs=64", "thread_size_bytes=4096", "frags_per_skb=0"], "stack");
    let deltas: Vec<i64> =
        text.lines().skip(2).filter_map(|l| l.split_whitespace().nth(2)).filter_map(|d| d.parse().ok()).collect();
    assert!(!deltas.is_empty(), "no rows in:\n{text}");
    assert!(deltas.iter().all(|d| d.abs() <= 4096), "a delta beyond THREAD_SIZE in:\n{text}");
}
