//! SLUB's accounting: the `CONFIG_SLUB_STATS` counters of each CPU in each cache, their sums
//! over CPUs or caches, the objects allocated now, and the `/sys/kernel/slab/<cache>/<stat>`
//! text the lessons show. The paths (`paths`) count into them; nothing here changes the model.

use super::{ObjState, Slub};
use crate::sim::machine::CpuId;
use crate::sim::slab_common::{self, counters};
use serde::Serialize;
use std::fmt::Write as _;

counters! {
    /// `CONFIG_SLUB_STATS` counters of one CPU in one cache.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
    pub struct SlubStats {
        pub alloc_fastpath: u64,
        pub alloc_slowpath: u64,
        pub alloc_refill: u64,
        pub alloc_from_partial: u64,
        pub alloc_slab: u64,
        pub free_fastpath: u64,
        pub free_slowpath: u64,
        pub free_frozen: u64,
        pub free_add_partial: u64,
        pub free_remove_partial: u64,
        pub free_slab: u64,
        pub deactivate_full: u64,
        pub deactivate_partial: u64,
        /// list_lock acquisitions and the ns spent waiting for it.
        pub list_lock: u64,
        pub list_lock_wait_ns: u64,
        /// Per-CPU partial slabs (3.2+): allocations from one, frees that froze a full slab onto
        /// one, drains of a CPU's list to the node.
        pub cpu_partial_alloc: u64,
        pub cpu_partial_free: u64,
        pub cpu_partial_drain: u64,
    }
}

impl Slub {
    /// Statistics of `cache` summed over CPUs.
    pub fn totals(&self, cache: u16) -> SlubStats {
        slab_common::totals(&self.caches[cache as usize].stats)
    }

    /// Statistics of every cache summed, per CPU.
    pub fn per_cpu(&self) -> Vec<SlubStats> {
        slab_common::per_cpu(self.n_cpus, self.caches.iter().map(|c| c.stats.as_slice()))
    }

    /// Clears every statistic (after a warm-up).
    pub fn reset_stats(&mut self) {
        for c in &mut self.caches {
            for s in &mut c.stats {
                *s = SlubStats::default();
            }
            c.list_lock.stats = Default::default();
        }
        self.zone.lock.stats = Default::default();
    }

    /// Objects allocated now, per cache.
    pub fn allocated(&self, cache: u16) -> u64 {
        let slabs = self.slabs.iter().flatten().map(|s| (s.cache, s.state.as_slice()));
        slab_common::allocated(slabs, cache, &ObjState::Allocated)
    }
    /// `/sys/kernel/slab/<cache>/<stat>` files of `cpus`, SLUB_STATS style: total, then
    /// `C<cpu>=<count>` per CPU with a non-zero count.
    pub fn sysfs_stats(&self, cache: u16, cpus: &[CpuId]) -> String {
        let c = &self.caches[cache as usize];
        let mut out = String::new();
        type Stat = fn(&SlubStats) -> u64;
        let rows: [(&str, Stat); 8] = [
            ("alloc_fastpath", |s| s.alloc_fastpath),
            ("alloc_slowpath", |s| s.alloc_slowpath),
            ("alloc_refill", |s| s.alloc_refill),
            ("free_fastpath", |s| s.free_fastpath),
            ("free_slowpath", |s| s.free_slowpath),
            ("free_frozen", |s| s.free_frozen),
            ("free_add_partial", |s| s.free_add_partial),
            ("free_slab", |s| s.free_slab),
        ];
        for (name, get) in rows {
            let total: u64 = c.stats.iter().map(get).sum();
            let _ = write!(out, "{}/{name:<17} {total:>8}", c.name);
            for &cpu in cpus {
                let v = get(&c.stats[cpu as usize]);
                if v > 0 {
                    let _ = write!(out, " C{cpu}={v}");
                }
            }
            out.push('\n');
        }
        out
    }
}
