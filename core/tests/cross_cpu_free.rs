//! `cross-cpu-free` against seed 001 (Ian Campbell, netdev, 2011-12-07, "Re: [PATCH 0/4] skb
//! paged fragment destructors") and the knobs of issue #10. Slow-path counts are what the
//! SLUB model counted (`free_slowpath` of the receiver's caches per skb freed), not set.

use skblab_core::experiments::cross_cpu_free::{self as x, seed, CrossCpuFree};
use skblab_core::Experiment;

fn run(settings: &[&str]) -> skblab_core::RunOutput {
    let s: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
    let p = CrossCpuFree.params_from(&s).expect("valid settings");
    CrossCpuFree.run(&p, 1)
}

fn metric(out: &skblab_core::RunOutput, name: &str) -> f64 {
    out.metric(name, None).unwrap_or_else(|| panic!("column {name}"))
}

#[test]
fn reproduces_seed_001() {
    let r = CrossCpuFree.reproduce(1).expect("has a seed table");
    println!("{}", r.to_table());
    let cell = |label: &str, metric: &str| {
        let row = r.rows.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("row {label}"));
        row.cells.iter().find(|c| c.metric == metric).unwrap().clone()
    };
    let b = cell("64 B before", "datagrams");
    let a = cell("64 B after", "datagrams");
    assert!(b.error_pct().abs() <= 3.0, "before {:.0} vs {}", b.simulated, b.measured);
    assert!(a.error_pct().abs() <= 3.0, "after {:.0} vs {}", a.simulated, a.measured);
    let ratio = a.simulated / b.simulated;
    assert!((ratio - seed::ratio()).abs() <= 0.005, "after/before {ratio:.4} vs {:.4}", seed::ratio());
    let m = cell("64 B before", "mbps");
    assert!(m.error_pct().abs() <= 3.0, "Mbit/s before {:.1}", m.simulated);
    let c = cell("1200 B change", "change_pct");
    assert!(c.simulated.abs() < 1.0, "1200 B change {:.2} %", c.simulated);
}

#[test]
fn eric_counts_two_then_three_slow_path_frees() {
    let same = metric(&run(&["consumer=same"]), "slowpath_frees_per_skb");
    let other = metric(&run(&["consumer=other"]), "slowpath_frees_per_skb");
    let split = metric(&run(&["consumer=other", "shinfo_split=true"]), "slowpath_frees_per_skb");
    assert!(same < 0.01, "same CPU: {same}");
    assert!((other - 2.0).abs() < 0.01, "other CPU: {other}");
    assert!((split - 3.0).abs() < 0.01, "other CPU + split: {split}");
}

#[test]
fn a_dispatcher_feeding_more_readers_frees_more_on_the_slow_path_and_contends() {
    let at = |n: u32| {
        let o = run(&["consumer=dispatcher", &format!("consumers={n}"), "reader_work_ns=20000"]);
        (metric(&o, "slowpath_frees_per_ms"), metric(&o, "list_lock_contended_pct"), metric(&o, "list_lock_per_ms"))
    };
    let pts: Vec<(f64, f64, f64)> = [1, 2, 4, 8].iter().map(|&n| at(n)).collect();
    println!("{pts:?}");
    for w in pts.windows(2) {
        assert!(w[1].0 > w[0].0 * 1.3, "slow-path frees/ms must grow with readers: {pts:?}");
    }
    assert!(pts[2].1 > pts[0].1 + 5.0 && pts[3].1 > pts[0].1 + 5.0, "list_lock contention grows: {pts:?}");
    assert!(pts[3].2 > pts[0].2, "list_lock taken more often: {pts:?}");
}

#[test]
fn defer_free_moves_the_free_work_to_the_allocating_cpu() {
    for w in ["workload=tcp-100g", "workload=udp-iperf"] {
        let off = run(&[w]);
        let on = run(&[w, "defer_free=true"]);
        assert!((metric(&off, "slowpath_frees_per_skb") - 2.0).abs() < 0.05, "{w}");
        assert!(metric(&on, "slowpath_frees_per_skb") < 0.05, "{w}: deferred frees are local");
        assert!(metric(&off, "free_work_on_alloc_cpu_pct") < 5.0, "{w}");
        assert!(metric(&on, "free_work_on_alloc_cpu_pct") > 60.0, "{w}");
        assert!(metric(&on, "free_cpu_busy_pct") < metric(&off, "free_cpu_busy_pct"), "{w}: the reader works less");
    }
    // tcp-100g: the reader was saturated; deferral frees it and the flow gets faster.
    let (off, on) = (run(&["workload=tcp-100g"]), run(&["workload=tcp-100g", "defer_free=true"]));
    assert!(metric(&on, "mbps") > metric(&off, "mbps"), "tcp-100g throughput with deferral");
    assert!(metric(&on, "change_pct") > 0.0);
    let prof = &on.view("profile").unwrap().text;
    assert!(prof.contains("skb_attempt_defer_free"), "{prof}");
}

#[test]
fn large_datagrams_are_wire_bound_and_hide_the_split() {
    let o = run(&["datagram_bytes=1200", "shinfo_split=true"]);
    assert!(metric(&o, "mbps") > 900.0 && metric(&o, "mbps") < 1000.0, "1 GbE bound: {}", metric(&o, "mbps"));
    assert!(metric(&o, "change_pct").abs() < 1.0);
    // At 64 B the CPU is the limit: the split costs about a percent.
    let s = run(&["shinfo_split=true"]);
    assert!(metric(&s, "change_pct") < -0.8, "64 B change {}", metric(&s, "change_pct"));
}

#[test]
fn cli_contract_columns_for_both_workloads() {
    for w in ["workload=udp-iperf", "workload=tcp-100g"] {
        let json = run(&[w]).to_json();
        for key in ["\"slowpath_frees_per_skb\"", "\"datagrams\"", "\"mbps\""] {
            assert!(json.contains(key), "{w}: {key} missing");
        }
    }
}

#[test]
fn lanes_show_remote_frees_across_cpus() {
    let p = CrossCpuFree.params_from(&["consumer=other".to_string()]).unwrap();
    let l = x::lanes(&p, 1);
    assert!(!l.events.is_empty());
    let remote = l.events.iter().filter(|e| e.free && e.cpu != e.alloc_cpu).count();
    assert!(remote > 0 && l.events.iter().filter(|e| e.free && e.cpu != e.alloc_cpu).all(|e| !e.fast));
    let p = CrossCpuFree.params_from(&["consumer=same".to_string()]).unwrap();
    assert!(x::lanes(&p, 1).events.iter().filter(|e| e.free).all(|e| e.fast));
}

#[test]
fn bad_input_is_a_one_line_error() {
    for bad in ["consumer=both", "consumers=99", "datagram_bytes=0", "workload=sctp", "measure_us=10"] {
        let e = CrossCpuFree.params_from(&[bad.to_string()]).expect_err(bad);
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}
