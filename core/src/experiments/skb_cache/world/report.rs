//! What a run of `skb-cache` reports: CPU time per call chain (and the charging of every
//! piece of work to its chain, [`super::chains`]), the lanes of the alloc → free view, and the `RunResult` with SLUB's and
//! the locks' statistics summed over the nodes; with the start of the measurement window and
//! its end (`finish`).

use super::{Sim, Skb, Stack, MAX_LANES};
use crate::sim::machine::{cycles_to_ns, CpuId};
use crate::sim::profile::Profile;
use crate::sim::slab::{Slab, SlabStats};
use crate::sim::slub::{OpCost, SlubStats};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// One alloc → free of the lane view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lane {
    pub rx: bool,
    pub flow: u32,
    pub alloc_cpu: CpuId,
    pub free_cpu: Option<CpuId>,
    /// Where the free ran (softirq, recvmsg, ack) and SLUB's path for the sk_buff.
    pub where_freed: Cow<'static, str>,
    pub path: Cow<'static, str>,
}

/// What one run measured (in the window after the warm-up).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    pub measure_ns: u64,
    /// Transactions whose response left the server inside the window (a request and a
    /// response each).
    pub requests: u64,
    pub responses: u64,
    pub skbs_freed: u64,
    /// Requests the driver dropped because the zone had no page for their frags or no slab
    /// for their sk_buff or head.
    pub rx_alloc_failed: u64,
    /// Responses not sent because the zone had no slab for their sk_buff or head.
    pub tx_alloc_failed: u64,
    /// skbs freed on the CPU that allocated them.
    pub freed_on_alloc_cpu: u64,
    pub tx_reused: u64,
    pub slub: SlubStats,
    /// SLAB's counters, when the kernel runs SLAB (`slub` then holds only its frees — array
    /// pushes as fast, flushes and alien frees as slow — and its `list_lock` wait).
    pub slab: SlabStats,
    pub list_lock: u64,
    pub list_lock_contended: u64,
    pub zone_lock_contended: u64,
    /// ns per call chain, summed over CPUs.
    pub profile: Profile<Stack>,
    /// Of that, ns of cache-line transfers (socket, skb and `struct page` lines).
    pub line_ns: u64,
    pub busy_ns: u64,
    pub n_cpus: u32,
    pub sim_flows: u32,
    /// Mean round trip of the window's transactions, ns: from the request's send (handed to
    /// the link by the client) to its response's receive (across the link), plus, for flows
    /// beyond [`super::MAX_SIM_FLOWS`], the queueing Little's law gives them; 0 without one.
    pub mean_latency_ns: f64,
    /// Time-averaged over the window, all CPUs together: requests waiting for the driver (in
    /// the NIC ring, no sk_buff yet), and rx skbs allocated by the driver and not yet consumed
    /// by recvmsg (on an RPS backlog or a socket's receive queue, waiting for the epoll loop).
    /// SLUB's slabs turn over when the latter, per allocating CPU, exceed a slab's objects.
    pub waiting_for_driver: f64,
    pub rx_skbs_held: f64,
    /// Slabs CPUs took from their per-CPU partial list on another node than their own (a slab
    /// they froze by a remote free of that node's object; `CPU_PARTIAL_ALLOC`).
    pub off_node_partial_allocs: u64,
    /// When the window began: `warmup_ns`, or later if the flows needed longer to complete
    /// [`super::WARM_ROUND_TRIPS`] round trips.
    pub warmup_ns: u64,
    /// Sleeping, waking and idling in the window ([`super::wait`]).
    pub wait: super::WaitStats,
    pub lanes: Vec<Lane>,
    pub events: u64,
    pub capped: bool,
}

impl Sim {
    /// The window opens ([`World::on_measure_start`](crate::sim::world::World::on_measure_start):
    /// the run state's `measuring()` has just turned true): drops what the warm-up counted.
    pub(super) fn start_measuring(&mut self) {
        for s in &mut self.slub {
            s.reset_stats();
        }
        if let Some(s) = &mut self.slab {
            s.reset_stats();
        }
        self.held_since = self.run_state.window().warmup_ns;
    }

    /// Adds the time since the last event to the integrals of the requests waiting for the
    /// driver and the rx skbs held (only inside the window).
    pub(super) fn account_held(&mut self, t: u64) {
        if self.run_state.measuring() && t > self.held_since {
            let dt = (t - self.held_since) as f64;
            self.res.waiting_for_driver += self.n_before_driver as f64 * dt;
            self.res.rx_skbs_held += self.n_rx_held as f64 * dt;
            self.held_since = t;
        }
    }

    /// The result (`checked`: the runner checked every event, and may have stopped the run at
    /// a broken invariant).
    pub(super) fn finish(mut self, checked: bool) -> RunResult {
        let span = self.held_since.saturating_sub(self.run_state.window().warmup_ns).max(1) as f64;
        self.res.waiting_for_driver /= span;
        self.res.rx_skbs_held /= span;
        for s in &self.slub {
            for x in s.per_cpu() {
                self.res.slub.add(&x);
            }
            for c in &s.caches {
                for (cpu, st) in c.stats.iter().enumerate() {
                    if self.m.pos(cpu as CpuId).socket != s.zone.node {
                        self.res.off_node_partial_allocs += st.cpu_partial_alloc;
                    }
                }
                self.res.list_lock += c.list_lock.stats.acquisitions;
                self.res.list_lock_contended += c.list_lock.stats.contentions;
            }
            self.res.zone_lock_contended += s.zone.lock.stats.contentions;
            debug_assert!(checked || s.check_invariants().is_ok());
        }
        if let Some(s) = self.slab.take() {
            self.slab_result(&s);
            debug_assert!(checked || s.check_invariants().is_ok(), "SLAB: {:?}", s.check_invariants());
        }
        let end = self.run_state.window().warmup_ns + self.res.measure_ns;
        self.close_idle(end);
        let (mut done, mut rtt_sum) = (0u64, 0u64);
        for &(at, rtt) in &self.sent_ns {
            if at < end {
                done += 1;
                rtt_sum += rtt;
            }
        }
        self.res.requests = done;
        self.res.responses = done;
        self.res.busy_ns = self.res.profile.total_ns();
        // The flows beyond the simulated ones are not run (module doc): each holds one more
        // transaction in the closed loop of a saturated server, which by Little's law adds
        // one transaction time, measure_ns / done, to every round trip.
        let unsimulated = u64::from(self.cfg.flows - self.cfg.sim_flows());
        let little_ns = if done > 0 { unsimulated as f64 * self.res.measure_ns as f64 / done as f64 } else { 0.0 };
        self.res.mean_latency_ns = rtt_sum as f64 / done.max(1) as f64 + little_ns;
        self.res
    }

    /// SLAB's counters and lock counts into the result.
    fn slab_result(&mut self, s: &Slab) {
        for x in s.per_cpu() {
            self.res.slab.add(&x);
        }
        self.res.slub.free_fastpath = self.res.slab.freehit;
        // Slow: every free that is not a push on the CPU's own array (a flush or an alien free).
        self.res.slub.free_slowpath = self.res.slab.freemiss + self.res.slab.node_frees;
        self.res.slub.list_lock_wait_ns = self.res.slab.list_lock_wait_ns;
        for n in s.caches.iter().flat_map(|c| &c.nodes) {
            self.res.list_lock += n.list_lock.stats.acquisitions;
            self.res.list_lock_contended += n.list_lock.stats.contentions;
        }
        self.res.zone_lock_contended += s.zones.iter().map(|z| z.lock.stats.contentions).sum::<u64>();
    }

    pub(super) fn add(&mut self, stack: Stack, ns: u64) -> u64 {
        if self.run_state.measuring() {
            self.res.profile.add(0, stack, ns);
        }
        ns
    }

    /// Cache-line transfers, charged to `stack` and counted apart.
    pub(super) fn lines(&mut self, stack: Stack, ns: u64) -> u64 {
        if self.run_state.measuring() {
            self.res.line_ns += ns;
        }
        self.add(stack, ns)
    }

    pub(super) fn work(&mut self, cpu: CpuId, stack: Stack, cycles: u64) -> u64 {
        let ns = cycles_to_ns(cycles, self.mhz[cpu as usize]);
        self.add(stack, ns)
    }

    /// An allocator operation: its work to `stack`, its lock wait to `stack.spin()`.
    pub(super) fn charge(&mut self, cpu: CpuId, stack: Stack, c: OpCost) -> u64 {
        self.charge_to(cpu, (stack, stack.spin()), c)
    }

    /// An allocator operation: its work to `stacks.0`, its lock wait to `stacks.1`.
    pub(super) fn charge_to(&mut self, cpu: CpuId, (stack, spin): (Stack, Stack), c: OpCost) -> u64 {
        let w = cycles_to_ns(c.cycles, self.mhz[cpu as usize]) + c.line_ns;
        self.add(stack, w);
        self.add(spin, c.spin_ns);
        w + c.spin_ns
    }

    pub(super) fn lane_reuse(&mut self, f: u32, alloc_cpu: CpuId, cpu: CpuId) {
        if self.run_state.measuring() && self.res.lanes.len() < MAX_LANES && f % 97 == 0 {
            self.res.lanes.push(Lane {
                rx: false,
                flow: f,
                alloc_cpu,
                free_cpu: Some(cpu),
                where_freed: "sendmsg (tx cache)".into(),
                path: "none".into(),
            });
        }
    }

    pub(super) fn lane_free(&mut self, skb: &Skb, cpu: CpuId, where_freed: &'static str, path: &'static str) {
        if let Some(l) = skb.lane.and_then(|i| self.res.lanes.get_mut(i)) {
            l.free_cpu = Some(cpu);
            l.where_freed = where_freed.into();
            l.path = path.into();
        }
    }
}
