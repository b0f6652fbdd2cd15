//! SLAB's accounting: the STATS counters of /proc/slabinfo (a CONFIG_DEBUG_SLAB kernel
//! prints them as `globalstat` and `cpustat`; `allochit`, `allocmiss`, `freehit`,
//! `freemiss`, `grown`, `node_frees`, `node_overflow`), ours beside them (which refill and
//! flush path, slabs destroyed, lock acquisitions and waits), per CPU in each cache, their
//! sums, and the objects allocated now. The paths count into them; nothing here changes the
//! model.

use super::{ObjState, Slab};
use crate::sim::slab_common::{self, counters};
use serde::Serialize;

counters! {
    /// STATS counters of one CPU in one cache, and ours.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
    pub struct SlabStats {
        pub allochit: u64,
        pub allocmiss: u64,
        pub freehit: u64,
        pub freemiss: u64,
        /// New slabs (`cache_grow_begin`).
        pub grown: u64,
        /// Frees of another node's object (`__cache_free_alien`).
        pub node_frees: u64,
        /// ... that found the alien cache full and drained it.
        pub node_overflow: u64,
        /// Ours: refills from the shared array, and from the slab lists.
        pub refill_shared: u64,
        pub refill_slabs: u64,
        /// Ours: flushes to the shared array, and to the slabs (`free_block`).
        pub flush_shared: u64,
        pub flush_slabs: u64,
        /// Ours: slabs whose pages went back to the page allocator.
        pub slabs_destroyed: u64,
        /// `list_lock` acquisitions (any node's) and the ns spent waiting for it.
        pub list_lock: u64,
        pub list_lock_wait_ns: u64,
        /// Alien-cache lock acquisitions and the ns spent waiting.
        pub alien_lock: u64,
        pub alien_lock_wait_ns: u64,
    }
}

impl Slab {
    /// Statistics of `cache` summed over CPUs.
    pub fn totals(&self, cache: u16) -> SlabStats {
        slab_common::totals(&self.caches[cache as usize].stats)
    }

    /// Statistics of every cache summed, per CPU.
    pub fn per_cpu(&self) -> Vec<SlabStats> {
        slab_common::per_cpu(self.cpu_node.len(), self.caches.iter().map(|c| c.stats.as_slice()))
    }

    /// Clears every statistic and lock counter (after a warm-up).
    pub fn reset_stats(&mut self) {
        for c in &mut self.caches {
            c.stats.iter_mut().for_each(|s| *s = SlabStats::default());
            for n in &mut c.nodes {
                n.list_lock.stats = Default::default();
                for a in n.alien.iter_mut().flatten() {
                    a.lock.stats = Default::default();
                }
            }
        }
        for z in &mut self.zones {
            z.lock.stats = Default::default();
        }
    }

    /// Objects allocated now, per cache.
    pub fn allocated(&self, cache: u16) -> u64 {
        let slabs = self.slabs.iter().flatten().map(|s| (s.cache, s.state.as_slice()));
        slab_common::allocated(slabs, cache, &ObjState::Allocated)
    }
}
