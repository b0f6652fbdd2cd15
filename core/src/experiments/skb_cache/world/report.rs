//! What a run of `skb-cache` reports: CPU time per term (and the charging of every piece of
//! work to its term), the lanes of the alloc → free view, and the `RunResult` with SLUB's and
//! the locks' statistics summed over the nodes; with the start of the measurement window and
//! its end (`finish`).

use super::{Sim, Skb, MAX_LANES};
use crate::sim::machine::{cycles_to_ns, CpuId};
use crate::sim::slub::{OpCost, SlubStats};
use serde::Serialize;

/// Where time goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Term {
    Softirq,
    App,
    Copy,
    Skb,
    SlabFast,
    SlabSlow,
    Spin,
    Pages,
    Lines,
    Wakeup,
    Rps,
}

/// Every term, in report order, with the kernel functions it stands for.
pub const TERMS: [(Term, &str); 11] = [
    (Term::Softirq, "softirq rx (napi, GRO, ip_rcv, tcp_v4_rcv, tcp_ack)"),
    (Term::App, "syscalls + tcp_recvmsg/tcp_sendmsg/xmit (epoll loop)"),
    (Term::Copy, "copy_to_user/copy_from_user"),
    (Term::Skb, "skb init/release (__alloc_skb, skb_release_head_state)"),
    (Term::SlabFast, "SLUB fast path (kmem_cache_alloc/free)"),
    (Term::SlabSlow, "SLUB slow path (__slab_free, ___slab_alloc)"),
    (Term::Spin, "spinning on list_lock / zone->lock"),
    (Term::Pages, "page frags (alloc_pages, put_page, free_unref_page)"),
    (Term::Lines, "cache-line transfers of socket and skb lines"),
    (Term::Wakeup, "try_to_wake_up of the reader"),
    (Term::Rps, "RPS enqueue + IPI"),
];

/// One alloc → free of the lane view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lane {
    pub rx: bool,
    pub flow: u32,
    pub alloc_cpu: CpuId,
    pub free_cpu: Option<CpuId>,
    /// Where the free ran (softirq, recvmsg, ack) and SLUB's path for the sk_buff.
    pub where_freed: &'static str,
    pub path: &'static str,
}

/// What one run measured (in the window after the warm-up).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    pub measure_ns: u64,
    pub requests: u64,
    pub responses: u64,
    pub skbs_freed: u64,
    /// skbs freed on the CPU that allocated them.
    pub freed_on_alloc_cpu: u64,
    pub tx_reused: u64,
    pub slub: SlubStats,
    pub list_lock: u64,
    pub list_lock_contended: u64,
    pub zone_lock_contended: u64,
    /// ns per term, summed over CPUs.
    pub time: [u64; 11],
    pub busy_ns: u64,
    pub n_cpus: u32,
    pub sim_flows: u32,
    /// Mean request → response latency seen by the server (arrival to send), ns.
    pub mean_latency_ns: f64,
    pub lanes: Vec<Lane>,
    pub events: u64,
    pub capped: bool,
}

impl Sim {
    pub(super) fn start_measuring(&mut self) {
        self.measuring = true;
        for s in &mut self.slub {
            s.reset_stats();
        }
    }

    pub(super) fn finish(mut self) -> RunResult {
        for s in &self.slub {
            for x in s.per_cpu() {
                self.res.slub.add(&x);
            }
            for c in &s.caches {
                self.res.list_lock += c.list_lock.stats.acquisitions;
                self.res.list_lock_contended += c.list_lock.stats.contentions;
            }
            self.res.zone_lock_contended += s.zone.lock.stats.contentions;
            debug_assert_eq!(s.check_invariants(), Ok(()));
        }
        self.res.busy_ns = self.res.time.iter().sum();
        self.res.mean_latency_ns = self.lat_sum as f64 / self.lat_n.max(1) as f64;
        self.res
    }

    pub(super) fn add(&mut self, term: Term, ns: u64) -> u64 {
        if self.measuring {
            self.res.time[term as usize] += ns;
        }
        ns
    }

    pub(super) fn work(&mut self, cpu: CpuId, term: Term, cycles: u64) -> u64 {
        let ns = cycles_to_ns(cycles, self.mhz[cpu as usize]);
        self.add(term, ns)
    }

    pub(super) fn charge(&mut self, cpu: CpuId, term: Term, c: OpCost) -> u64 {
        let w = cycles_to_ns(c.cycles, self.mhz[cpu as usize]) + c.line_ns;
        self.add(term, w);
        self.add(Term::Spin, c.spin_ns);
        w + c.spin_ns
    }

    pub(super) fn lane_reuse(&mut self, f: u32, alloc_cpu: CpuId, cpu: CpuId) {
        if self.measuring && self.res.lanes.len() < MAX_LANES && f % 97 == 0 {
            self.res.lanes.push(Lane {
                rx: false,
                flow: f,
                alloc_cpu,
                free_cpu: Some(cpu),
                where_freed: "sendmsg (tx cache)",
                path: "none",
            });
        }
    }

    pub(super) fn lane_free(&mut self, skb: &Skb, cpu: CpuId, where_freed: &'static str, path: &'static str) {
        if let Some(l) = skb.lane.and_then(|i| self.res.lanes.get_mut(i)) {
            l.free_cpu = Some(cpu);
            l.where_freed = where_freed;
            l.path = path;
        }
    }
}
