//! The text views and the flame graph of a `skb-cache` run: where sampled skbs were allocated
//! and freed (CPU lanes as text), where the CPU time goes over the whole machine (perf-style,
//! with the per-request figures and SLUB's counters), and the flame graph of all CPUs.

use super::world::{self, RunResult};
use super::{Input, Stack, Summary};
use crate::output::{Meaning, TextView};
use crate::sim::profile::FlameGraph;
use std::fmt::Write as _;

/// The text views and the flame graph of `input`'s run `r` (summarized as `s`).
pub(super) fn of(input: &Input, r: &RunResult, s: &Summary) -> (Vec<TextView>, FlameGraph) {
    let texts = vec![
        TextView::new("lanes", "where each skb is allocated and freed (CPU lanes)", lanes_text(r)),
        TextView::new("profile", "where the time goes (perf-style, all CPUs)", profile_text(input, r, s)),
    ];
    (texts, flame(input, r, s))
}

/// The title of a run's profile: the configuration and its Mpps.
fn profile_title(input: &Input, r: &RunResult, s: &Summary) -> String {
    format!(
        "tcp_rr, {} flows ({} simulated), {} threads, {} CPUs; rx cache {}, tx cache {}, rps {}: {:.2} Mpps",
        input.flows,
        r.sim_flows,
        input.threads,
        r.n_cpus,
        on_off(input.tcp_rx_skb_cache),
        on_off(input.tcp_tx_skb_cache),
        on_off(input.rps),
        s.mpps
    )
}

/// The run's flame graph (all CPUs, id `flame`).
fn flame(input: &Input, r: &RunResult, s: &Summary) -> FlameGraph {
    let title = profile_title(input, r, s);
    r.profile.report(title.clone()).flame("flame", title)
}

/// Where the CPU time goes over the whole machine: a perf report of every CPU's time, then
/// the per-request figures and SLUB's counters.
fn profile_text(input: &Input, r: &RunResult, s: &Summary) -> String {
    let mut out = format!("all CPUs {:.1} % busy; the report is in % of busy time\n\n", s.busy_pct);
    out.push_str(&r.profile.report(profile_title(input, r, s)).text);
    let tr = r.requests.max(1) as f64;
    if r.requests < Meaning::MIN_COUNTED {
        let _ = writeln!(
            out,
            "\nper request: not shown: {} requests completed in the window (a per-request cost needs {})",
            r.requests,
            Meaning::MIN_COUNTED
        );
    } else {
        let _ = writeln!(
            out,
            "\nper request: {:.2} slab frees on the slow path,\n  {:.0} ns in the slow path and spinning,\n  {:.0} ns of line transfers",
            s.slowpath_frees_per_request, s.slab_ns_per_request, s.line_ns_per_request
        );
        wait_text(&mut out, r);
    }
    if r.slab.allochit + r.slab.allocmiss > 0 {
        slab_counters(&mut out, r);
    } else {
        let _ = writeln!(
            out,
            "SLUB in the window: {} fast frees, {} slow frees,\n  {} list_lock ({} contended), zone->lock contended {},\n  tx skbs reused {}",
            r.slub.free_fastpath,
            r.slub.free_slowpath,
            r.list_lock,
            r.list_lock_contended,
            r.zone_lock_contended,
            r.tx_reused
        );
        let slab_spin = r.profile.ns_of(&[Stack::SlabAllocSpin, Stack::SlabFreeSpin]) as f64;
        let _ = writeln!(
            out,
            "lock_stat, &n->list_lock: {} contentions, {:.1} us waited; {:.3} % of busy time\n  in queued_spin_lock_slowpath under ___slab_alloc / __slab_free",
            r.list_lock_contended,
            r.slub.list_lock_wait_ns as f64 / 1e3,
            slab_spin / r.busy_ns.max(1) as f64 * 100.0
        );
    }
    let frags = world::rx_frags(input.request_bytes);
    if frags > 0 {
        let _ = writeln!(out, "each request skb carries {frags} page frags: {frags} page frees per request");
    }
    let _ = writeln!(
        out,
        "\n(simulated {:.1} ms after {:.1} ms warm-up; {} events{}; {:.0} transactions/s/flow)",
        r.measure_ns as f64 / 1e6,
        r.warmup_ns as f64 / 1e6,
        r.events,
        if r.capped { ", STOPPED AT THE EVENT CAP" } else { "" },
        tr / (r.measure_ns as f64 / 1e9) / f64::from(r.sim_flows.max(1))
    );
    out
}

/// SLAB's counters of the window (`/proc/slabinfo`'s STATS and the locks' waits).
fn slab_counters(out: &mut String, r: &RunResult) {
    let st = &r.slab;
    let _ = writeln!(
        out,
        "SLAB in the window: {} array frees, {} flushes (cache_flusharray), {} alien frees ({} drained a full alien cache),\n  {} refills (cache_alloc_refill), {} new slabs, tx skbs reused {}",
        st.freehit, st.freemiss, st.node_frees, st.node_overflow, st.allocmiss, st.grown, r.tx_reused
    );
    let spin = |stacks: &[Stack]| r.profile.ns_of(stacks) as f64 / r.busy_ns.max(1) as f64 * 100.0;
    let _ = writeln!(
        out,
        "lock_stat, &n->list_lock: {} acquisitions, {:.1} us waited; &alc->lock: {} acquisitions, {:.1} us waited; zone->lock contended {}\n  queued_spin_lock_slowpath: {:.3} % of busy time under __cache_free_alien, {:.3} % under __drain_alien_cache, {:.3} % under cache_alloc_refill / cache_flusharray",
        st.list_lock,
        st.list_lock_wait_ns as f64 / 1e3,
        st.alien_lock,
        st.alien_lock_wait_ns as f64 / 1e3,
        r.zone_lock_contended,
        spin(&[Stack::SlabAlienSpin]),
        spin(&[Stack::SlabAlienDrainSpin]),
        spin(&[Stack::SlabRefillSpin, Stack::SlabFlushSpin])
    );
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// Where sampled skbs were allocated and freed, as lanes (narrow: fits a phone).
fn lanes_text(r: &RunResult) -> String {
    let mut out = String::from("sampled skbs after the warm-up:\nCPU that allocated -> CPU that freed\n\n");
    let _ = writeln!(out, "{:<6} {:<3} {:>11}  {:<19} free path", "flow", "skb", "CPUs", "freed by");
    for l in &r.lanes {
        let cpus = match l.free_cpu {
            Some(c) => format!("{:>3} -> {:<3}", l.alloc_cpu, c),
            None => format!("{:>3} -> -  ", l.alloc_cpu),
        };
        let same = match l.free_cpu {
            Some(c) if c == l.alloc_cpu => "same CPU",
            Some(_) => "other CPU",
            None => "",
        };
        let path = if l.path.is_empty() { "-" } else { &*l.path };
        let _ = writeln!(
            out,
            "{:<6} {:<3} {:>11}  {:<19} {path}, {same}",
            l.flow,
            if l.rx { "rx" } else { "tx" },
            cpus,
            l.where_freed
        );
    }
    out
}

/// Sleeping and waking in the window: wakeups and idle exits per request, the epoll batch.
fn wait_text(out: &mut String, r: &RunResult) {
    let w = &r.wait;
    let tr = r.requests.max(1) as f64;
    let cpu_ns = (r.measure_ns as f64 * f64::from(r.n_cpus)).max(1.0);
    let _ = writeln!(
        out,
        "waiting: {:.3} thread wakeups and {:.3} idle exits per request ({:.1} us each on average),\n  {:.1} ready sockets per epoll_wait, CPUs idle {:.1} % of the window",
        w.thread_wakeups as f64 / tr,
        w.idle_exits as f64 / tr,
        w.idle_exit_ns as f64 / w.idle_exits.max(1) as f64 / 1e3,
        w.epoll_events as f64 / w.epoll_waits.max(1) as f64,
        w.idle_ns as f64 / cpu_ns * 100.0
    );
}
