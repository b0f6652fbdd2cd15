//! SLAB (mm/slab.c as Linux 5.2 had it; the SLAB allocator was removed in 6.8): per-CPU
//! array caches, each node's shared array, alien caches for objects of other nodes, and the
//! node's slab lists under its `list_lock`. Read from the 4.19 and 5.4 trees, whose functions
//! named here are the same line for line but for the list field's name (`page->lru` in 4.19,
//! `page->slab_list` in 5.4); 5.2 lies between them.
//!
//! What Linux does: every cache keeps, per CPU, an `array_cache` — `avail` object pointers,
//! at most `limit`, moved `batchcount` at a time, `touched` when used since the last reap.
//! `____cache_alloc` pops it and `___cache_free` pushes it (IRQs off, no lock, no write to
//! the object: SLAB keeps free objects' pointers in arrays, never in the objects). An empty
//! array is refilled by `cache_alloc_refill`: under the node's `list_lock`, from the node's
//! *shared* array first (`transfer_objects`), else object by object from the node's slabs
//! (`get_first_slab`: partial slabs first, then free ones; `alloc_block`, `fixup_slab_list`);
//! with nothing there, `cache_grow_begin` gets pages from the page allocator (lock dropped)
//! and `cache_grow_end` puts the new slab on the node's lists under `list_lock`. A full array
//! is flushed by `cache_flusharray`: its oldest `batchcount` objects go, under `list_lock`,
//! to the shared array if it has room, else back to their slabs (`free_block`), which frees
//! slabs beyond the node's `free_limit` to the page allocator after the lock is dropped
//! (`slabs_destroy`). On a machine of more than one node, a free of an object whose slab is
//! on another node (`cache_free_alien`, reading the slab's `struct page`) goes instead to the
//! freeing node's *alien cache* for that node (`__cache_free_alien`, under the alien cache's
//! own spinlock); a full alien cache is drained first (`__drain_alien_cache`), under the
//! REMOTE node's `list_lock`: to the remote shared array as far as it has room, the rest
//! back to the remote slabs. That is the "asymmetric alloc/free pattern for which slab has
//! to drain alien caches" of a receive path whose skbs are freed on the other socket.
//!
//! Sizes (`enable_cpucache`, `alloc_alien_cache`, `init_cache_node`): `limit` 120 for
//! objects up to 256 bytes, 54 up to 1 KiB, 24 up to a page, 8 up to 128 KiB, else 1;
//! `batchcount = (limit + 1) / 2`; the shared array holds `8 * batchcount` for objects up to
//! a page on SMP (none above); an alien cache holds 12 (1 if `limit` is 1); a node keeps at
//! most `free_limit = (1 + its CPUs) * batchcount + objects per slab` free objects in slabs.
//! The slab order (`calculate_slab_order`) is the smallest whose leftover is at most 1/8,
//! up to `slab_max_order` 1 (a machine above 32 MB).
//!
//! What we simplify (ours): the caches have no constructor and keep their freelist in a free
//! object (`OBJFREELIST_SLAB`, 4.6+), so a slab holds `slab bytes / size` objects; no
//! colouring, debugging, pfmemalloc, memcg or node-specific allocation (`____cache_alloc_node`,
//! `fallback_alloc`: every allocation is from the CPU's own node); the periodic `cache_reap`
//! (every 2 s per CPU: `reap_alien`, `drain_array`, `drain_freelist`) is not modelled — it
//! runs far outside a measurement window of milliseconds; the full list is a per-slab flag
//! (its order is never used), while the partial and free lists keep the kernel's order.
//! Lines: a slab's `struct page` line is its zone's ([`Zone::touch_page`]), written by
//! `slab_get_obj` / `slab_put_obj` and read by `cache_free_alien` (a read is a touch here:
//! MESI reduced to the last writer); the freelist's index bytes one line per 64; an
//! `array_cache` its header (avail, limit, batchcount, touched) and 8 entries per line (an
//! alien cache's lock word shares the header's line, `struct alien_cache`, so the line comes
//! with the lock); a
//! node's lists and counters one line beside its lock word. The neighbours' `struct page`
//! lines a list move writes are not counted.
//!
//! Lock order (see `sim/mod.rs`): L1 this CPU's array (IRQs off) → L2 an alien cache's lock
//! → L3 a node's `list_lock` (the remote node's, in `__drain_alien_cache`); slab pages are
//! allocated and freed with no slab lock held (zone->lock alone).
//!
//! Map of this folder:
//! - `mod.rs` (here): the model's data — costs, caches, nodes, slabs, the paths' names — and
//!   the sizes of a cache (`enable_cpucache`, `calculate_slab_order`).
//! - `array`: `array_cache` with its lines, `transfer_objects`.
//! - `node`: the node's slab lists under `list_lock`: `get_first_slab`, `alloc_block`,
//!   `fixup_slab_list`, `free_block` with its surplus slabs, `cache_grow_begin` / `_end`,
//!   `slabs_destroy`.
//! - `alloc`: `____cache_alloc` and `cache_alloc_refill`.
//! - `free`: `___cache_free`, `cache_flusharray`, `__cache_free_alien`, `__drain_alien_cache`.
//! - `stats`: the STATS counters of /proc/slabinfo and ours, their sums.
//! - `check`: [`Slab::check_invariants`] and its property test.

mod alloc;
mod array;
mod check;
mod free;
mod node;
mod stats;

/// The operation records and the error SLUB's callers already know, so that a world can take
/// either allocator (a `Done`'s `slab_owner` is always `None` here: SLAB has no per-CPU slab).
pub use super::slub::{Caller, Done, OpCost, SlubError as SlabError};
pub use stats::SlabStats;

use super::buddy::Pfn;
use super::cache::Caches;
use super::cacheline::CacheLine;
use super::machine::{CpuId, MachineProfile, PAGE_SIZE};
use super::qspinlock::QSpinLock;
use super::slab_common::AllocatorCosts;
use super::slub::{CacheSpec, Obj, SerialLock};
use super::zone::Zone;
use array::ArrayCache;
use serde::Serialize;
use std::collections::VecDeque;

/// `slab_max_order` on a machine of more than 32 MB (`SLAB_MAX_ORDER_HI`).
pub const SLAB_MAX_ORDER: u32 = 1;
/// Biggest order `calculate_slab_order` tries for a huge object (`KMALLOC_MAX_ORDER` is
/// larger; objects here stay far below it).
const MAX_TRY_ORDER: u32 = 5;
/// `BATCHREFILL_LIMIT`: an untouched array refills at most this many.
pub const BATCHREFILL_LIMIT: u32 = 16;
/// Entries of an alien cache of a cache whose `limit` is above 1 (`alloc_alien_cache`).
pub const ALIEN_LIMIT: u32 = 12;
/// The shared array's size in batches on SMP (`enable_cpucache`).
pub const SHARED_FACTOR: u32 = 8;

/// The CPU-cycle costs of the allocator's own work (line transfers and lock waits on top).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SlabCosts {
    /// The fast and slow paths, a new slab's objects, the page allocator: as SLUB's.
    pub shared: AllocatorCosts,
    /// spin_lock + spin_unlock of `list_lock` or an alien lock, uncontended.
    pub lock_cycles: u64,
    /// Per object `alloc_block` / `free_block` moves (slab_get_obj / slab_put_obj, the list
    /// fixup), and per line of 8 pointers a shared-array transfer copies.
    pub object_cycles: u64,
}

impl SlabCosts {
    /// SLAB's costs from a catalogue entry. ASSUMPTIONS (no SLAB figure in the catalogue):
    /// fast and slow path, a new slab's objects and the page allocator as SLUB's
    /// ([`AllocatorCosts::from_catalogue`]); per object moved to or from a slab one list step
    /// (`buddy_step_cycles`: the same few stores on fetched lines); the lock
    /// `spin_lock_cycles`.
    pub const fn from_catalogue(k: &super::catalogue::KernelCosts) -> SlabCosts {
        SlabCosts {
            shared: AllocatorCosts::from_catalogue(k),
            lock_cycles: k.spin_lock_cycles.int(),
            object_cycles: k.buddy_step_cycles.int(),
        }
    }
}

/// Which path an allocation took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AllocPath {
    /// From this CPU's array (`STATS_INC_ALLOCHIT`).
    Fast,
    /// `cache_alloc_refill` from the node's shared array.
    Shared,
    /// `cache_alloc_refill` from the node's partial or free slabs.
    Slabs,
    /// `cache_alloc_refill` with a new slab (`cache_grow_begin` / `cache_grow_end`).
    Grow,
}

/// Which path a free took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FreePath {
    /// Onto this CPU's array (`STATS_INC_FREEHIT`).
    Fast,
    /// The array was full: `cache_flusharray` moved a batch to the node's shared array.
    FlushShared,
    /// The array was full and the shared array too: `free_block` of a batch to the slabs.
    FlushSlabs,
    /// An object of another node into this node's alien cache for it.
    Alien,
    /// ... which was full: `__drain_alien_cache` under the remote node's `list_lock` first.
    AlienDrain,
}

impl FreePath {
    pub fn is_slow(self) -> bool {
        self != FreePath::Fast
    }

    /// How traces and lane diagrams name the path.
    pub fn name(self) -> &'static str {
        match self {
            FreePath::Fast => "fast",
            FreePath::FlushShared => "slow: flush to shared",
            FreePath::FlushSlabs => "slow: flush to slabs",
            FreePath::Alien => "alien",
            FreePath::AlienDrain => "slow: drain alien",
        }
    }
}

/// Where an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ObjState {
    /// Free in its slab (on the slab's freelist).
    SlabFree,
    /// In some array: a CPU's, a node's shared one or an alien cache.
    Cached,
    Allocated,
}

/// Which of its node's lists a slab is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlabList {
    Full,
    Partial,
    Free,
    /// On none: a new slab before `cache_grow_end`, or one on its way to `slabs_destroy`.
    Off,
}

/// A slab: in 5.2 its descriptor is the `struct page` of its first page (`active`,
/// `freelist`, `slab_list`), whose line is the zone's.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SlabPage {
    cache: u16,
    node: u16,
    pfn: Pfn,
    /// `page->active`: objects handed out of the slab (allocated or in an array).
    active: u32,
    /// The freelist: object indexes; `freelist[active..]` are the free ones.
    freelist: Vec<u16>,
    list: SlabList,
    /// Lines of the freelist's index bytes (one per 64 objects).
    freelist_lines: Vec<CacheLine>,
    state: Vec<ObjState>,
}

impl SlabPage {
    fn objects(&self) -> u32 {
        self.state.len() as u32
    }
}

/// An alien cache: an array with its own spinlock, of one node for objects of another.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AlienCache {
    ac: ArrayCache,
    lock: QSpinLock,
    timing: SerialLock,
}

/// `struct kmem_cache_node`: one cache's slabs on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmemCacheNode {
    slabs_partial: VecDeque<u32>,
    slabs_free: VecDeque<u32>,
    pub total_slabs: u32,
    pub free_slabs: u32,
    /// Free objects in this node's slabs (not in arrays).
    pub free_objects: u32,
    pub free_limit: u32,
    pub free_touched: bool,
    shared: Option<ArrayCache>,
    /// Per node: this node's alien cache for objects of that node (None for itself).
    alien: Vec<Option<AlienCache>>,
    pub list_lock: QSpinLock,
    list_timing: SerialLock,
    /// The lists' heads and counters beside the lock word.
    line: CacheLine,
}

/// One kmem_cache over every node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmemCache {
    pub name: &'static str,
    pub size: u32,
    /// Pages per slab: 2^order (`gfporder`).
    pub order: u32,
    /// `num`: objects per slab.
    pub objects_per_slab: u32,
    pub limit: u32,
    pub batchcount: u32,
    /// The shared array's size in batches (0: none).
    pub shared: u32,
    cpu: Vec<ArrayCache>,
    pub nodes: Vec<KmemCacheNode>,
    /// Per-CPU statistics.
    pub stats: Vec<SlabStats>,
}

/// `enable_cpucache()`'s `limit` for objects of `size` bytes.
pub fn cpucache_limit(size: u32) -> u32 {
    match size {
        s if s > 131_072 => 1,
        s if s > PAGE_SIZE => 8,
        s if s > 1024 => 24,
        s if s > 256 => 54,
        _ => 120,
    }
}

/// `calculate_slab_order()` for an `OBJFREELIST_SLAB` cache: (order, objects per slab), the
/// first order whose leftover is at most 1/8 of the slab, stopping at [`SLAB_MAX_ORDER`]
/// once an object fits.
pub fn slab_order(size: u32) -> (u32, u32) {
    let mut found = (0, 0);
    for order in 0..=MAX_TRY_ORDER {
        let bytes = PAGE_SIZE << order;
        let num = bytes / size;
        if num == 0 {
            continue;
        }
        found = (order, num);
        if order >= SLAB_MAX_ORDER || (bytes % size) * 8 <= bytes {
            break;
        }
    }
    found
}

/// All caches of a machine over its nodes, their slabs, and each node's zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slab {
    pub caches: Vec<KmemCache>,
    slabs: Vec<Option<SlabPage>>,
    free_slots: Vec<u32>,
    /// One zone per node, node `i` at index `i`.
    pub zones: Vec<Zone>,
    zone_timing: Vec<SerialLock>,
    /// The CPUs' private caches (`sim::cache`), as in `Slub`.
    cpu_caches: Caches,
    /// `cpu_to_node()` of every CPU: its socket.
    cpu_node: Vec<u16>,
    costs: SlabCosts,
}

impl Slab {
    /// Caches of `specs` for `n_cpus` CPUs of `m`, one node per zone of `zones` (node `i`'s
    /// zone at index `i`; a CPU's node is its socket).
    pub fn new(m: &MachineProfile, specs: &[CacheSpec], n_cpus: usize, zones: Vec<Zone>, costs: SlabCosts) -> Slab {
        let n_nodes = zones.len();
        assert!(n_nodes >= 1, "bug: SLAB without a node");
        let cpu_node: Vec<u16> = (0..n_cpus).map(|c| (m.pos(c as CpuId).socket as usize % n_nodes) as u16).collect();
        let caches = specs.iter().map(|s| Self::kmem_cache(s, &cpu_node, n_nodes)).collect();
        Slab {
            caches,
            slabs: Vec::new(),
            free_slots: Vec::new(),
            zones,
            zone_timing: vec![SerialLock::default(); n_nodes],
            cpu_caches: Caches::new(m),
            cpu_node,
            costs,
        }
    }

    /// One cache sized as `__kmem_cache_create` and `enable_cpucache` size it.
    fn kmem_cache(s: &CacheSpec, cpu_node: &[u16], n_nodes: usize) -> KmemCache {
        let size = s.size.max(8);
        let (order, num) = slab_order(size);
        let limit = cpucache_limit(size);
        let batchcount = limit.div_ceil(2);
        let shared = if size <= PAGE_SIZE && cpu_node.len() > 1 { SHARED_FACTOR } else { 0 };
        let alien_limit = if limit > 1 { ALIEN_LIMIT } else { limit };
        let nodes = (0..n_nodes)
            .map(|n| {
                let cpus = cpu_node.iter().filter(|&&c| usize::from(c) == n).count() as u32;
                let alien = (0..n_nodes)
                    .map(|o| {
                        (o != n && n_nodes > 1).then(|| AlienCache {
                            ac: ArrayCache::new(alien_limit, alien_limit),
                            lock: QSpinLock::new("&alc->lock"),
                            timing: SerialLock::default(),
                        })
                    })
                    .collect();
                KmemCacheNode {
                    slabs_partial: VecDeque::new(),
                    slabs_free: VecDeque::new(),
                    total_slabs: 0,
                    free_slabs: 0,
                    free_objects: 0,
                    free_limit: (1 + cpus) * batchcount + num,
                    free_touched: false,
                    shared: (shared > 0).then(|| ArrayCache::new(shared * batchcount, batchcount)),
                    alien,
                    list_lock: QSpinLock::new("&n->list_lock"),
                    list_timing: SerialLock::default(),
                    line: CacheLine::UNTOUCHED,
                }
            })
            .collect();
        KmemCache {
            name: s.name,
            size,
            order,
            objects_per_slab: num,
            limit,
            batchcount,
            shared,
            cpu: vec![ArrayCache::new(limit, batchcount); cpu_node.len()],
            nodes,
            stats: vec![SlabStats::default(); cpu_node.len()],
        }
    }

    /// The node of `cpu`.
    pub fn node_of_cpu(&self, cpu: CpuId) -> usize {
        usize::from(self.cpu_node[cpu as usize])
    }

    /// The node of `obj`'s slab (`page_to_nid`).
    pub fn node_of(&self, obj: Obj) -> usize {
        usize::from(self.slab(obj.slab).node)
    }

    /// Objects in `cpu`'s array of `cache` now (`ac->avail`).
    pub fn cpu_avail(&self, cache: u16, cpu: CpuId) -> u32 {
        self.caches[cache as usize].cpu[cpu as usize].avail()
    }

    /// Objects in `node`'s shared array of `cache` now.
    pub fn shared_avail(&self, cache: u16, node: usize) -> u32 {
        self.caches[cache as usize].nodes[node].shared.as_ref().map_or(0, ArrayCache::avail)
    }

    /// Objects in `node`'s alien cache of `cache` for objects of node `of`.
    pub fn alien_avail(&self, cache: u16, node: usize, of: usize) -> u32 {
        self.caches[cache as usize].nodes[node].alien[of].as_ref().map_or(0, |a| a.ac.avail())
    }

    /// `node`'s alien lock of `cache` for objects of node `of` (its /proc/lock_stat).
    pub fn alien_lock(&self, cache: u16, node: usize, of: usize) -> Option<&QSpinLock> {
        self.caches[cache as usize].nodes[node].alien[of].as_ref().map(|a| &a.lock)
    }

    fn slab(&self, id: u32) -> &SlabPage {
        self.slabs[id as usize].as_ref().expect("bug: object of a freed slab")
    }

    /// The CPUs' private caches this allocator's lines live in.
    pub fn cpu_caches(&self) -> &Caches {
        &self.cpu_caches
    }

    fn ns(cycles: u64, m: &MachineProfile) -> u64 {
        super::machine::cycles_to_ns(cycles, m.turbo_max_mhz.max(1))
    }

    /// The caller once the work it started and that cost `cost` so far ends.
    fn after<'a>(at: Caller<'a>, cost: &OpCost) -> Caller<'a> {
        at.at(at.now_ns + cost.spin_ns + cost.line_ns + Self::ns(cost.cycles, at.m))
    }
}

/// Slab `id` of `slabs` (a free function, so that other fields of `Slab` stay borrowable).
fn slab_in(slabs: &mut [Option<SlabPage>], id: u32) -> &mut SlabPage {
    slabs[id as usize].as_mut().expect("bug: object of a freed slab")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_enable_cpucache_and_calculate_slab_order() {
        assert_eq!(cpucache_limit(256), 120);
        assert_eq!(cpucache_limit(257), 54);
        assert_eq!(cpucache_limit(1024), 54);
        assert_eq!(cpucache_limit(2048), 24);
        assert_eq!(cpucache_limit(8192), 8);
        assert_eq!(slab_order(256), (0, 16));
        assert_eq!(slab_order(1024), (0, 4));
        // 640 bytes: 6 per page leaves 256 (1/16): order 0.
        assert_eq!(slab_order(640), (0, 6));
        // 1536: 2 per page leaves 1024 (1/4): order 1 holds 5, leaving 512 (1/16).
        assert_eq!(slab_order(1536), (1, 5));
        // 8 KiB objects need order 1.
        assert_eq!(slab_order(8192), (1, 1));
    }
}

/// A small allocator for the tests of this folder: two caches on 2 sockets × 2 cores × 2
/// threads (8 CPUs: 0-1 and 4-5 on node 0, 2-3 and 6-7 on node 1), a 16 MiB zone per node.
/// (`with_topology` keeps a die's 28 cores; a test machine of 8 CPUs keeps the arrays small.)
#[cfg(test)]
mod testing {
    use super::*;
    use crate::sim::machine::SERVER_2019;
    use crate::sim::slab_common::TEST_COSTS;

    pub(super) const COSTS: SlabCosts = SlabCosts { shared: TEST_COSTS, lock_cycles: 40, object_cycles: 20 };

    pub(super) fn machine() -> MachineProfile {
        MachineProfile { cores_per_socket: 2, ..SERVER_2019 }
    }

    /// CPU 0 (node 0) allocates `n` objects of cache 0, CPU 2 (node 1) frees them, 100 ns
    /// apart: the paths of the frees.
    pub(super) fn alloc_here_free_there(s: &mut Slab, m: &MachineProfile, n: u64) -> Vec<FreePath> {
        let held: Vec<_> = (0..n).map(|t| s.alloc(Caller::new(m, 0, t), 0).unwrap().0).collect();
        held.into_iter().enumerate().map(|(t, o)| s.free(Caller::new(m, 2, 1000 + 100 * t as u64), o).path).collect()
    }

    pub(super) fn slab() -> Slab {
        let m = machine();
        let n = m.n_cpus() as usize;
        let zones = (0..2).map(|node| Zone::new(node, 1 << 12, n, 378, 63, false)).collect();
        let specs =
            [CacheSpec { name: "skbuff_head_cache", size: 256 }, CacheSpec { name: "kmalloc-1024", size: 1024 }];
        Slab::new(&m, &specs, n, zones, COSTS)
    }
}
