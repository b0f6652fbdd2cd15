//! SLUB (mm/slub.c, 3.x–6.19): kmem caches, per-CPU active slabs, slab pages with their own
//! freelists, the node's partial list and its `list_lock`. (For 7.0, Vlastimil Babka's
//! slab/for-7.0 series replaces the per-CPU slabs with percpu sheaves; not modelled here.)
//!
//! What Linux does: every cache (`skbuff_head_cache`, `kmalloc-1024`, ...) keeps, per CPU, one
//! *active* slab (`kmem_cache_cpu->page`, "frozen" to that CPU) and a lockless per-CPU freelist
//! of its free objects. `slab_alloc()` pops that freelist and `slab_free()` pushes onto it —
//! the fast path, a `this_cpu_cmpxchg_double` on (freelist, tid) and nothing shared — but the
//! free only takes it when the object's slab *is* this CPU's active slab. Any other free goes
//! to `__slab_free()`: a `cmpxchg_double` on the slab page's own freelist and counters (a
//! cache line in `struct page` that whichever CPU last freed to the slab owns), and, when the
//! slab turns from full to partial or from partial to empty, the node's `list_lock` to put it
//! on or take it off the partial list; an empty slab beyond `min_partial` goes back to the
//! page allocator. When a CPU's freelist runs dry, `___slab_alloc()` first takes the objects
//! other CPUs freed to the page's freelist (`get_freelist`), then a slab from the partial
//! list (under `list_lock`), then a new slab of `2^order` pages from the page allocator.
//!
//! Per-CPU partial slabs (CONFIG_SLUB_CPU_PARTIAL, 3.2+) are opt-in
//! ([`Slub::enable_cpu_partial`], `partial`): a full slab that gets a remote free is frozen
//! to the freeing CPU's partial list, drained to the node's list under `list_lock` when it
//! counts more than `s->cpu_partial` objects; a CPU whose slab runs dry takes its next
//! partial slab without a lock, then a batch from the node's list under `list_lock`. The
//! page-line transfers of a drain or a batch happen with `list_lock` held (that is how the
//! lock's hold time, and so its contention, grows with remote CPUs). Without it (the
//! default) a full slab that gets a remote free goes straight to the node's partial list
//! under `list_lock`, as before 3.2. What we simplify: one node per `Slub`; no debugging,
//! no bulk API, no NUMA policy. The free pointer
//! of each object is one cache line (SLUB writes it into the free object, so a remote free
//! leaves the object's line in the freeing CPU's cache and the next allocation pays for it).
//! Objects, slabs, freelists and counters are real data; [`Slub::check_invariants`] checks
//! that every object is on exactly one freelist or allocated, and the per-slab counts.
//!
//! Lock order (see `sim/mod.rs`): S1 this CPU's slab (IRQs off) → S2 `list_lock`; slab pages
//! are allocated and freed with `list_lock` dropped (zone->lock is taken alone).
//!
//! Map of this folder (one concept per file):
//! - `mod.rs` (here): the model's data — caches, slabs, objects, what an operation costs and
//!   which path it took — and `calculate_order` / `min_partial`, which size a cache.
//! - `lock`: [`SerialLock`], a lock held over known intervals (how a world's work, computed
//!   at its start time, meets a [`QSpinLock`]).
//! - `paths`: `kmem_cache_alloc` and `kmem_cache_free`: the fast paths, `___slab_alloc`
//!   (refill, partial list, new slab) and `__slab_free` (frozen, partial, add, discard).
//! - `partial`: per-CPU partial slabs (3.2+): `put_cpu_partial`, `unfreeze_partials`, the
//!   CPU-partial allocation and `get_partial_node`'s batch, with `list_lock` held over the
//!   page lines they touch.
//! - `steady`: the steady-state start (opt-in per world): per-CPU and node partial lists
//!   filled to their long-run occupancy before the first event, from the workload's remote
//!   alloc/free traffic ([`RemoteTraffic`], [`cpu_partial_occupancy`]).
//! - `pages`: the slab pages' side of the page allocator (PCP lists and the buddy under
//!   zone->lock), `PageSide`, which `sim::slab` uses for each node's zone too.
//! - `stats`: `CONFIG_SLUB_STATS` counters, their sums and the `/sys/kernel/slab` text.
//! - `check`: [`Slub::check_invariants`], kept apart from the model it checks.

mod check;
mod lock;
mod pages;
mod partial;
mod paths;
mod stats;
mod steady;

pub use super::slab_common::Caller;
pub(crate) use check::check_held_objects;
pub use lock::SerialLock;
pub(crate) use pages::PageSide;
pub use partial::cpu_partial_objects;
pub use paths::Reach;
pub use stats::SlubStats;
pub use steady::{cpu_partial_occupancy, draw, RemoteTraffic};

use super::buddy::Pfn;
use super::cache::Caches;
use super::cacheline::CacheLine;
use super::machine::{CpuId, MachineProfile, PAGE_SIZE};
use super::qspinlock::QSpinLock;
use super::slab_common::AllocatorCosts;
use super::zone::Zone;
use serde::Serialize;
use std::collections::VecDeque;

/// `slub_max_order` default: PAGE_ALLOC_COSTLY_ORDER.
pub const SLUB_MAX_ORDER: u32 = 3;
/// Most objects a slab may hold here (a u16 index); real SLUB allows 32767.
pub const MAX_OBJECTS_PER_SLAB: u32 = 4096;

/// The CPU-cycle costs of the allocator's own work (line transfers and lock waits come on top).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SlubCosts {
    /// The fast and slow paths, a new slab's freelist, the page allocator.
    pub shared: AllocatorCosts,
    /// List manipulation under `list_lock` (add_partial / remove_partial).
    pub list_cycles: u64,
}

/// SLUB on seed 000's 2019 server ([`super::machine::SERVER_2019`]), the machine of
/// `skb-cache` and of `high-order-alloc`'s skb caches: every value from the catalogue's
/// Skylake-SP 2019 kernel costs ([`SlubCosts::from_catalogue`]); nothing is fitted here.
pub const SERVER_2019_SLUB: SlubCosts = SlubCosts::from_catalogue(&super::catalogue::SKYLAKE_SP_2019);

impl SlubCosts {
    /// SLUB's costs from a catalogue entry: [`AllocatorCosts::from_catalogue`] (the struct
    /// page and object line transfers of a remote free are counted by distance on top), and a
    /// partial-list add/remove under `list_lock` as one `spin_lock_cycles` plus one list step
    /// (`buddy_step_cycles`: the same list_del/list_add instructions).
    pub const fn from_catalogue(k: &super::catalogue::KernelCosts) -> SlubCosts {
        SlubCosts {
            shared: AllocatorCosts::from_catalogue(k),
            list_cycles: k.spin_lock_cycles.int() + k.buddy_step_cycles.int(),
        }
    }
}

/// What one operation cost: CPU cycles, ns of cache-line transfers, ns spinning on locks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OpCost {
    pub cycles: u64,
    pub line_ns: u64,
    pub spin_ns: u64,
}

impl OpCost {
    pub fn add(&mut self, o: OpCost) {
        self.cycles += o.cycles;
        self.line_ns += o.line_ns;
        self.spin_ns += o.spin_ns;
    }
}

/// An object: its cache, its slab (an index into [`Slub`]'s slab table) and its index in the slab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Obj {
    pub cache: u16,
    pub slab: u32,
    pub idx: u16,
}

/// Which path an allocation took (`/sys/kernel/slab/<cache>/alloc_*` stats).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AllocPath {
    /// From this CPU's freelist.
    Fast,
    /// Freelist empty: took the objects other CPUs freed to the active slab's page freelist.
    Refill,
    /// A slab from the node's partial list (under list_lock).
    Partial,
    /// A new slab from the page allocator.
    NewSlab,
}

/// Which path a free took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FreePath {
    /// Onto this CPU's freelist: the object's slab is this CPU's active slab.
    Fast,
    /// `__slab_free` to a slab that is some CPU's active slab (`FREE_FROZEN`): no list op.
    Frozen,
    /// `__slab_free` to a partial slab that stays partial: no list op.
    Partial,
    /// `__slab_free` to a full slab: it becomes partial (list_lock, `FREE_ADD_PARTIAL`).
    AddPartial,
    /// `__slab_free` empties the slab, which goes back to the page allocator (list_lock, `FREE_SLAB`).
    Discard,
    /// `__slab_free` empties the slab, which stays on the partial list (min_partial).
    KeepEmpty,
    /// `__slab_free` to a full slab with per-CPU partials (3.2+): the slab is frozen to the
    /// freeing CPU and goes on its partial list (`CPU_PARTIAL_FREE`), no list_lock unless
    /// that list overflows (`CPU_PARTIAL_DRAIN`).
    CpuPartial,
}

impl FreePath {
    pub fn is_slow(self) -> bool {
        self != FreePath::Fast
    }

    /// How traces and lane diagrams name the path.
    pub fn name(self) -> &'static str {
        match self {
            FreePath::Fast => "fast",
            FreePath::Frozen => "slow: frozen",
            FreePath::Partial => "slow: partial",
            FreePath::AddPartial => "slow: add partial",
            FreePath::Discard => "slow: discard",
            FreePath::KeepEmpty => "slow: keep empty",
            FreePath::CpuPartial => "slow: to cpu partial",
        }
    }
}

/// What an allocation or free did, for the world's trace and profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Done<P> {
    pub path: P,
    pub cost: OpCost,
    /// Whose active slab the object's slab was at that moment (None: nobody's).
    pub slab_owner: Option<CpuId>,
    /// The slab's first page frame.
    pub slab_pfn: Pfn,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ObjState {
    /// On the slab page's freelist.
    PageFree,
    /// On the freelist of the CPU the slab is frozen to.
    CpuFree,
    Allocated,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Slab {
    cache: u16,
    pfn: Pfn,
    /// The page's freelist (LIFO, object indexes), `page->freelist`.
    freelist: Vec<u16>,
    /// The CPU whose active slab this is (`page->frozen`).
    frozen: Option<CpuId>,
    on_partial: bool,
    /// `struct page`'s freelist + counters line (cmpxchg_double target).
    line: CacheLine,
    /// The free-pointer line of every object.
    obj_line: Vec<CacheLine>,
    state: Vec<ObjState>,
}

impl Slab {
    /// A slab just taken from the page allocator (`allocate_slab`): `n` objects of `cache`,
    /// all on the page's freelist in index order, on no list and frozen by no CPU.
    fn fresh(cache: u16, pfn: Pfn, n: usize, line: CacheLine) -> Slab {
        Slab {
            cache,
            pfn,
            freelist: (0..n as u16).rev().collect(),
            frozen: None,
            on_partial: false,
            line,
            obj_line: vec![CacheLine::UNTOUCHED; n],
            state: vec![ObjState::PageFree; n],
        }
    }
    fn objects(&self) -> u32 {
        self.state.len() as u32
    }
    /// `page->inuse`: objects not on the page's freelist (allocated or on a CPU freelist).
    fn inuse(&self) -> u32 {
        self.objects() - self.freelist.len() as u32
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct CpuSlab {
    slab: Option<u32>,
    freelist: Vec<u16>,
    /// Per-CPU partial slabs (`c->partial`, 3.2+), head last, each with `pobjects` as
    /// `put_cpu_partial` counted it when the slab was added (free objects of the list then).
    partial: Vec<(u32, u32)>,
}

/// What a cache is: a name and an object size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CacheSpec {
    pub name: &'static str,
    /// Object size after alignment (e.g. SLAB_HWCACHE_ALIGN).
    pub size: u32,
}

/// One kmem_cache on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmemCache {
    pub name: &'static str,
    pub size: u32,
    /// Pages per slab: 2^order (`calculate_order`).
    pub order: u32,
    pub objects_per_slab: u32,
    /// `s->min_partial`: empty slabs kept on the partial list.
    pub min_partial: usize,
    /// `s->cpu_partial`: free objects a CPU's partial list may count before it is drained to
    /// the node (0: no per-CPU partials, SLUB before 3.2; [`Slub::enable_cpu_partial`]).
    pub cpu_partial: u32,
    cpu: Vec<CpuSlab>,
    partial: VecDeque<u32>,
    pub list_lock: QSpinLock,
    list_timing: SerialLock,
    /// Per CPU: the `pobjects` its partial lists of the same cache on *other* nodes count (set
    /// by a world whose CPUs keep one list over several nodes, [`Slub::set_peer_pobjects`]; 0
    /// otherwise): `put_cpu_partial` drains when this list's and theirs together exceed
    /// `cpu_partial`, as the kernel's one list would.
    peer_pobjects: Vec<u32>,
    /// Per-CPU statistics.
    pub stats: Vec<SlubStats>,
    /// Slabs this cache holds now.
    pub nr_slabs: u32,
}

/// `calculate_order()`: the smallest order (≤ [`SLUB_MAX_ORDER`]) whose slab holds at least
/// `min_objects` with little waste, relaxing the waste fraction 1/16 → 1/8 → 1/4, then fewer
/// objects, as mm/slub.c does. `min_objects = 4 * (fls(nr_cpus) + 1)` (3.x–6.19).
pub fn calculate_order(size: u32, nr_cpus: u32) -> u32 {
    let fls = 32 - nr_cpus.leading_zeros();
    let max_objects = ((PAGE_SIZE << SLUB_MAX_ORDER) / size).max(1);
    let mut min_objects = (4 * (fls + 1)).min(max_objects);
    while min_objects > 1 {
        for fract in [16, 8, 4] {
            for order in 0..=SLUB_MAX_ORDER {
                let slab = PAGE_SIZE << order;
                if slab / size < min_objects {
                    continue;
                }
                if slab % size <= slab / fract {
                    return order;
                }
            }
        }
        min_objects -= 1;
    }
    (0..=SLUB_MAX_ORDER).find(|&o| (PAGE_SIZE << o) >= size).unwrap_or(SLUB_MAX_ORDER)
}

/// `s->min_partial = clamp(ilog2(size) / 2, MIN_PARTIAL 5, MAX_PARTIAL 10)`.
pub fn min_partial(size: u32) -> usize {
    let ilog2 = 31 - size.max(1).leading_zeros();
    (ilog2 / 2).clamp(5, 10) as usize
}

/// Why an allocation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SlubError {
    /// The page allocator had no block of the cache's order.
    OutOfPages,
}

/// All caches of a machine, their slabs, and the zone their pages come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slub {
    pub caches: Vec<KmemCache>,
    slabs: Vec<Option<Slab>>,
    free_slots: Vec<u32>,
    pub zone: Zone,
    /// The CPUs' private caches (`sim::cache`): whether a line another CPU wrote is still in
    /// that CPU's L2. Model assumption: SLUB's users here do not stream data through the
    /// caches, so lines stay where their last writer put them until someone else takes them.
    cpu_caches: Caches,
    zone_timing: SerialLock,
    costs: SlubCosts,
    n_cpus: usize,
}

/// Stores `item` in a free slot of `slots` (or a new one) and returns its index: the slab
/// table of either slab allocator (`Slub`, `sim::slab`).
pub(crate) fn insert_in_slot<T>(slots: &mut Vec<Option<T>>, free_slots: &mut Vec<u32>, item: T) -> u32 {
    match free_slots.pop() {
        Some(s) => {
            slots[s as usize] = Some(item);
            s
        }
        None => {
            slots.push(Some(item));
            (slots.len() - 1) as u32
        }
    }
}

/// Slab `id` of `slabs` (a free function, so that other fields of `Slub` stay borrowable).
fn slab_in(slabs: &mut [Option<Slab>], id: u32) -> &mut Slab {
    slabs[id as usize].as_mut().expect("bug: object of a freed slab")
}

impl Slub {
    /// Caches of `specs` for `n_cpus` CPUs over `zone` (one node).
    pub fn new(m: &MachineProfile, specs: &[CacheSpec], n_cpus: usize, zone: Zone, costs: SlubCosts) -> Slub {
        let caches = specs
            .iter()
            .map(|s| {
                let size = s.size.clamp(8, PAGE_SIZE << SLUB_MAX_ORDER);
                let order = calculate_order(size, n_cpus as u32);
                KmemCache {
                    name: s.name,
                    size,
                    order,
                    objects_per_slab: ((PAGE_SIZE << order) / size).clamp(1, MAX_OBJECTS_PER_SLAB),
                    min_partial: min_partial(size),
                    cpu_partial: 0,
                    cpu: vec![CpuSlab::default(); n_cpus],
                    partial: VecDeque::new(),
                    peer_pobjects: vec![0; n_cpus],
                    list_lock: QSpinLock::new("&n->list_lock"),
                    list_timing: SerialLock::default(),
                    stats: vec![SlubStats::default(); n_cpus],
                    nr_slabs: 0,
                }
            })
            .collect();
        Slub {
            caches,
            slabs: Vec::new(),
            free_slots: Vec::new(),
            zone,
            cpu_caches: Caches::new(m),
            zone_timing: SerialLock::default(),
            costs,
            n_cpus,
        }
    }

    /// Whose active slab `obj`'s slab is.
    pub fn owner_of(&self, obj: Obj) -> Option<CpuId> {
        self.slab(obj.slab).frozen
    }

    fn slab(&self, id: u32) -> &Slab {
        self.slabs[id as usize].as_ref().expect("bug: object of a freed slab")
    }

    /// The CPUs' private caches this allocator's lines live in (for other lines of the same world).
    pub fn cpu_caches(&self) -> &Caches {
        &self.cpu_caches
    }

    fn ns(cycles: u64, mhz: u64) -> u64 {
        super::machine::cycles_to_ns(cycles, mhz.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_follow_calculate_order() {
        // 2 CPUs: min_objects = 4 * (fls(2) + 1) = 12.
        assert_eq!(calculate_order(256, 2), 0);
        assert_eq!(calculate_order(512, 2), 1);
        assert_eq!(calculate_order(1024, 2), 2);
        assert_eq!(calculate_order(2048, 2), 3);
        assert_eq!(min_partial(256), 5);
    }
}

/// A small allocator for the tests of this folder: two caches over a 16 MiB zone.
#[cfg(test)]
mod testing {
    use super::*;
    use crate::sim::machine::SERVER_2019;
    use crate::sim::slab_common::TEST_COSTS;

    pub(super) const COSTS: SlubCosts = SlubCosts { shared: TEST_COSTS, list_cycles: 60 };

    pub(super) fn slub(n_cpus: usize) -> Slub {
        let zone = Zone::new(0, 1 << 12, n_cpus, 378, 63, false);
        let specs =
            [CacheSpec { name: "skbuff_head_cache", size: 256 }, CacheSpec { name: "kmalloc-1024", size: 1024 }];
        Slub::new(&SERVER_2019, &specs, n_cpus, zone, COSTS)
    }
}
