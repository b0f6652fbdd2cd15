//! What a run of `cross-cpu-free` reports: CPU time per call chain of each CPU
//! ([`super::chains`]), the
//! alloc/free arrows of the lane view, and the `RunResult` with the receiver's SLUB and lock
//! statistics; with the start of the measurement window (statistics reset after the warm-up)
//! and its end (`finish`), which reads them out of the hosts.

use super::{Sim, Stack, Workload, MAX_LANE_EVENTS};
use crate::sim::machine::CpuId;
use crate::sim::profile::Profile;
use crate::sim::slub::{AllocPath, SlubStats};
use serde::Serialize;

/// The idle task's command in [`Stack`]'s commands.
const SWAPPER: usize = 2;

/// ns per call chain per CPU of one host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CpuTime {
    /// One profile per CPU.
    pub cpus: Vec<Profile<Stack>>,
    /// Of that, ns spent freeing skbs (slab, pages, defer handoff and flush).
    pub free_ns: Vec<u64>,
    /// The command (index into [`Stack`]'s commands) time is charged to.
    command: usize,
}

impl CpuTime {
    pub(super) fn new(cpus: usize) -> Self {
        CpuTime { cpus: vec![Profile::default(); cpus], free_ns: vec![0; cpus], command: 0 }
    }
    pub(super) fn add(&mut self, cpu: CpuId, stack: Stack, ns: u64) {
        self.cpus[cpu as usize].add(self.command, stack, ns);
    }
    /// Busy ns of `cpu`.
    pub fn busy(&self, cpu: usize) -> u64 {
        self.cpus[cpu].total_ns()
    }
    /// Free work (slab, pages, defer handoff and flush) done on `cpu`.
    pub fn free_side(&self, cpu: usize) -> u64 {
        self.free_ns[cpu]
    }
    /// `cpu`'s profile over a window of `window_ns`, the time it did nothing charged to
    /// [`Stack::Idle`] (as `perf record -a` sees the idle task).
    pub fn with_idle(&self, cpu: usize, window_ns: u64) -> Profile<Stack> {
        let mut p = self.cpus[cpu].clone();
        p.add(SWAPPER, Stack::Idle, window_ns.saturating_sub(self.busy(cpu)));
        p
    }
}

/// One allocation or free the lane view draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LaneEvent {
    pub t_ns: u64,
    pub cpu: CpuId,
    /// Which skb (in allocation order from the start of the recording).
    pub skb: u32,
    pub free: bool,
    /// Index into [`RunResult::caches`].
    pub cache: u16,
    /// Fast path?
    pub fast: bool,
    /// Short name of the path (fast, refill, new slab, frozen, add partial, ...).
    pub path: &'static str,
    pub slab_pfn: u32,
    /// Whose active slab the object's slab was (None: nobody's).
    pub slab_owner: Option<CpuId>,
    /// The CPU that allocated the object (for frees).
    pub alloc_cpu: CpuId,
}

pub(super) fn alloc_path_name(p: AllocPath) -> &'static str {
    match p {
        AllocPath::Fast => "fast",
        AllocPath::Refill => "refill",
        AllocPath::Partial => "from partial",
        AllocPath::NewSlab => "new slab",
    }
}

/// What one run measured (over the measurement window, after the warm-up).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    pub workload: Workload,
    /// Simulated ns measured.
    pub measure_ns: u64,
    /// Datagrams (udp) or frames (tcp) sent in the window.
    pub sent: u64,
    /// Datagrams or frames read by the receiver(s) in the window.
    pub received: u64,
    /// Datagrams dropped on a full socket buffer in the window.
    pub dropped: u64,
    /// Payload bytes read in the window.
    pub bytes_read: u64,
    /// skbs freed on the receiving host in the window, and the slow-path frees among them.
    pub rx_skbs_freed: u64,
    pub rx_free_slowpath: u64,
    pub rx_free_fastpath: u64,
    /// Receiving host: SLUB statistics per CPU (all caches).
    pub rx_slub: Vec<SlubStats>,
    /// Sending host: SLUB statistics per CPU (all caches; CPU 0 takes netfront's interrupt).
    pub tx_slub: Vec<SlubStats>,
    /// Receiving host: `list_lock` acquisitions and contentions (all caches), zone->lock too.
    pub list_lock_acquisitions: u64,
    pub list_lock_contentions: u64,
    pub list_lock_wait_ns: u64,
    pub zone_lock_contentions: u64,
    /// Receiving host CPU time per call chain.
    pub rx_time: CpuTime,
    /// Sending host CPU time per call chain (udp only).
    pub tx_time: CpuTime,
    /// Receiver CPU roles, in lane order: (cpu, role).
    pub rx_cpus: Vec<(CpuId, &'static str)>,
    /// Names of the receiver's caches with object size and slab order.
    pub caches: Vec<(&'static str, u32, u32)>,
    /// `/sys/kernel/slab/*/` statistics of the receiver, text.
    pub sysfs: String,
    pub lanes: Vec<LaneEvent>,
    pub events: u64,
    /// True if the run stopped at [`MAX_EVENTS`](super::MAX_EVENTS).
    pub capped: bool,
}

impl Sim {
    /// The window opens ([`World::on_measure_start`](crate::sim::world::World::on_measure_start):
    /// the run state's `measuring()` has just turned true): drops what the warm-up counted.
    pub(super) fn start_measuring(&mut self) {
        self.rx.slub.reset_stats();
        self.tx.slub.reset_stats();
        // netperf's receiver for tcp-100g, iperf otherwise (see `chains`).
        let command = usize::from(self.cfg.input.workload == Workload::Tcp100g);
        self.rx.time = CpuTime { command, ..CpuTime::new(self.rx.free_at.len()) };
        self.tx.time = CpuTime { command, ..CpuTime::new(self.tx.free_at.len()) };
    }

    /// [`Ev::WindowEnd`](super::Ev::WindowEnd): reads the window's statistics out; the run
    /// ends now unless a datagram the window counts is still on its way (the drain).
    pub(super) fn window_end(&mut self, t: u64) {
        self.close_window();
        if self.pending == 0 {
            self.run_state.end_at_most(t);
        }
    }

    /// A datagram the window counts was read or dropped; the drain ends with the last one.
    pub(super) fn settle(&mut self, t: u64) {
        self.pending -= 1;
        if self.closed && self.pending == 0 {
            self.run_state.end_at_most(t);
        }
    }

    /// The window's SLUB, lock and CPU-time statistics into the result (once).
    fn close_window(&mut self) {
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        let r = &mut self.res;
        r.rx_slub = self.rx.slub.per_cpu();
        r.tx_slub = self.tx.slub.per_cpu();
        for c in &self.rx.slub.caches {
            r.list_lock_acquisitions += c.list_lock.stats.acquisitions;
            r.list_lock_contentions += c.list_lock.stats.contentions;
            r.list_lock_wait_ns += c.list_lock.stats.wait_ns_total;
        }
        r.zone_lock_contentions = self.rx.slub.zone.lock.stats.contentions;
        r.rx_free_slowpath = r.rx_slub.iter().map(|s| s.free_slowpath).sum();
        r.rx_free_fastpath = r.rx_slub.iter().map(|s| s.free_fastpath).sum();
        let cpus: Vec<CpuId> = (0..self.rx.free_at.len() as CpuId).collect();
        r.sysfs = (0..self.rx.slub.caches.len() as u16).map(|c| self.rx.slub.sysfs_stats(c, &cpus)).collect();
        r.rx_time = self.rx.time.clone();
        r.tx_time = self.tx.time.clone();
    }

    /// The result (`checked`: the runner checked every event, and may have stopped the run at
    /// a broken invariant).
    pub(super) fn finish(mut self, checked: bool) -> RunResult {
        // A run the event cap stopped inside its window.
        self.close_window();
        debug_assert!(checked || self.rx.slub.check_invariants().is_ok());
        self.res
    }

    pub(super) fn lane(&mut self, ev: LaneEvent) {
        if !self.cfg.lanes || !self.in_window() || self.res.lanes.len() >= MAX_LANE_EVENTS {
            return;
        }
        let first = *self.lane_first_skb.get_or_insert(ev.skb);
        if ev.skb < first {
            return;
        }
        self.res.lanes.push(LaneEvent { skb: ev.skb - first, ..ev });
    }
}
