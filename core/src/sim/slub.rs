//! SLUB (mm/slub.c, 3.x–6.x): kmem caches, per-CPU active slabs, slab pages with their own
//! freelists, the node's partial list and its `list_lock`.
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
//! What we simplify: one node; no per-CPU partial lists (CONFIG_SLUB_CPU_PARTIAL, 3.2+): a
//! full slab that gets a remote free goes straight to the node's partial list under
//! `list_lock`, as before 3.2; no debugging, no bulk API, no NUMA policy. The free pointer
//! of each object is one cache line (SLUB writes it into the free object, so a remote free
//! leaves the object's line in the freeing CPU's cache and the next allocation pays for it).
//! Objects, slabs, freelists and counters are real data; [`Slub::check_invariants`] checks
//! that every object is on exactly one freelist or allocated, and the per-slab counts.
//!
//! Lock order (see `sim/mod.rs`): S1 this CPU's slab (IRQs off) → S2 `list_lock`; slab pages
//! are allocated and freed with `list_lock` dropped (zone->lock is taken alone).
//!
//! Timing of locks: a world computes each piece of work at its start time, so a lock is held
//! over a known interval. [`SerialLock`] turns that into [`QSpinLock`] calls: a CPU that asks
//! while the previous holder's interval has not ended queues behind it (a contention, with
//! the handoff's line transfer), otherwise it takes the lock at once.

use super::buddy::Pfn;
use super::cache::Caches;
use super::cacheline::CacheLine;
use super::machine::{CpuId, MachineProfile};
use super::qspinlock::{Acquire, QSpinLock};
use super::zone::Zone;
use serde::Serialize;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// Bytes of a page (x86).
pub const PAGE_SIZE: u32 = 4096;
/// `slub_max_order` default: PAGE_ALLOC_COSTLY_ORDER.
pub const SLUB_MAX_ORDER: u32 = 3;
/// Most objects a slab may hold here (a u16 index); real SLUB allows 32767.
pub const MAX_OBJECTS_PER_SLAB: u32 = 4096;

/// A lock held over known intervals (see the module doc): the lock's word and its
/// /proc/lock_stat counters live in the [`QSpinLock`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SerialLock {
    /// When the current holder releases it (0: free).
    release_at: u64,
    held: bool,
}

impl SerialLock {
    /// `cpu` asks for `lock` at `now_ns` and holds it `hold_ns` once it has it. Returns (wait
    /// until granted incl. the line transfer, the time it is granted).
    pub fn hold(
        &mut self,
        lock: &mut QSpinLock,
        m: &MachineProfile,
        cpu: CpuId,
        now_ns: u64,
        hold_ns: u64,
    ) -> (u64, u64) {
        if self.held && self.release_at <= now_ns {
            lock.unlock(m, self.release_at);
            self.held = false;
        }
        let granted = match lock.lock(m, now_ns, u32::from(cpu), cpu) {
            Acquire::Taken { cost_ns } => now_ns + cost_ns,
            Acquire::Queued => {
                // The holder releases at `release_at`; we are the only waiter.
                let (_, at) = lock.unlock(m, self.release_at).expect("bug: queued behind nobody");
                at
            }
        };
        self.release_at = granted + hold_ns;
        self.held = true;
        (granted - now_ns, granted)
    }
}

/// The CPU-cycle costs of the allocator's own work (line transfers and lock waits come on top).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SlubCosts {
    /// `slab_alloc` / `slab_free` fast path: read kmem_cache_cpu, cmpxchg_double, tid.
    pub fast_cycles: u64,
    /// Extra work of `___slab_alloc` / `__slab_free` (page counters, retry loop, frozen checks).
    pub slow_cycles: u64,
    /// List manipulation under `list_lock` (add_partial / remove_partial).
    pub list_cycles: u64,
    /// Per object when a new slab's freelist is built (`allocate_slab` / `shuffle`).
    pub init_object_cycles: u64,
    /// One page-allocator operation without lock (a PCP list add/del, page refcount).
    pub page_op_cycles: u64,
    /// Buddy work per block moved under zone->lock.
    pub buddy_cycles: u64,
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
}

impl FreePath {
    pub fn is_slow(self) -> bool {
        self != FreePath::Fast
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
}

impl SlubStats {
    /// Adds `o`'s counts to these.
    pub fn add(&mut self, o: &SlubStats) {
        self.alloc_fastpath += o.alloc_fastpath;
        self.alloc_slowpath += o.alloc_slowpath;
        self.alloc_refill += o.alloc_refill;
        self.alloc_from_partial += o.alloc_from_partial;
        self.alloc_slab += o.alloc_slab;
        self.free_fastpath += o.free_fastpath;
        self.free_slowpath += o.free_slowpath;
        self.free_frozen += o.free_frozen;
        self.free_add_partial += o.free_add_partial;
        self.free_remove_partial += o.free_remove_partial;
        self.free_slab += o.free_slab;
        self.deactivate_full += o.deactivate_full;
        self.deactivate_partial += o.deactivate_partial;
        self.list_lock += o.list_lock;
        self.list_lock_wait_ns += o.list_lock_wait_ns;
    }
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
    cpu: Vec<CpuSlab>,
    partial: VecDeque<u32>,
    pub list_lock: QSpinLock,
    list_timing: SerialLock,
    /// Per-CPU statistics.
    pub stats: Vec<SlubStats>,
    /// Slabs this cache holds now.
    pub nr_slabs: u32,
}

/// `calculate_order()`: the smallest order (≤ [`SLUB_MAX_ORDER`]) whose slab holds at least
/// `min_objects` with little waste, relaxing the waste fraction 1/16 → 1/8 → 1/4, then fewer
/// objects, as mm/slub.c does. `min_objects = 4 * (fls(nr_cpus) + 1)` (3.x–6.x).
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
                    cpu: vec![CpuSlab::default(); n_cpus],
                    partial: VecDeque::new(),
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

    /// The index of the cache named `name`.
    pub fn cache_index(&self, name: &str) -> Option<u16> {
        self.caches.iter().position(|c| c.name == name).map(|i| i as u16)
    }

    /// Whose active slab `obj`'s slab is.
    pub fn owner_of(&self, obj: Obj) -> Option<CpuId> {
        self.slab(obj.slab).frozen
    }

    /// First page frame of `obj`'s slab.
    pub fn pfn_of(&self, obj: Obj) -> Pfn {
        self.slab(obj.slab).pfn
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

    /// Takes `list_lock` of `cache` at `now_ns` for `hold_cycles` of list work.
    fn list_lock(&mut self, m: &MachineProfile, cache: u16, cpu: CpuId, now_ns: u64, hold_cycles: u64) -> OpCost {
        let c = &mut self.caches[cache as usize];
        let hold_ns = Self::ns(hold_cycles, m.turbo_max_mhz);
        let (wait, _) = c.list_timing.hold(&mut c.list_lock, m, cpu, now_ns, hold_ns);
        let s = &mut c.stats[cpu as usize];
        s.list_lock += 1;
        s.list_lock_wait_ns += wait;
        OpCost { cycles: hold_cycles, line_ns: 0, spin_ns: wait }
    }

    /// `kmem_cache_alloc()` on `cpu` at `now_ns`.
    pub fn alloc(
        &mut self,
        m: &MachineProfile,
        cpu: CpuId,
        cache: u16,
        now_ns: u64,
    ) -> Result<(Obj, Done<AllocPath>), SlubError> {
        let k = &self.costs.clone();
        let mut cost = OpCost { cycles: k.fast_cycles, ..OpCost::default() };
        let ci = cache as usize;
        let mut path = AllocPath::Fast;
        if self.caches[ci].cpu[cpu as usize].freelist.is_empty() {
            path = self.refill(m, cpu, cache, now_ns, &mut cost)?;
            self.caches[ci].stats[cpu as usize].alloc_slowpath += 1;
        } else {
            self.caches[ci].stats[cpu as usize].alloc_fastpath += 1;
        }
        let c = &mut self.caches[ci].cpu[cpu as usize];
        let slab_id = c.slab.expect("bug: refill left no active slab");
        let idx = c.freelist.pop().expect("bug: refill left an empty freelist");
        let slab = slab_in(&mut self.slabs, slab_id);
        debug_assert_eq!(slab.state[idx as usize], ObjState::CpuFree);
        slab.state[idx as usize] = ObjState::Allocated;
        // Reading the free pointer pulls the object's first line (written by its last freer).
        cost.line_ns += slab.obj_line[idx as usize].touch(m, &self.cpu_caches, cpu);
        let done = Done { path, cost, slab_owner: Some(cpu), slab_pfn: slab.pfn };
        Ok((Obj { cache, slab: slab_id, idx }, done))
    }

    /// `___slab_alloc()`: this CPU's freelist is empty.
    fn refill(
        &mut self,
        m: &MachineProfile,
        cpu: CpuId,
        cache: u16,
        now_ns: u64,
        cost: &mut OpCost,
    ) -> Result<AllocPath, SlubError> {
        let ci = cache as usize;
        let k = self.costs;
        cost.cycles += k.slow_cycles;
        if let Some(sid) = self.caches[ci].cpu[cpu as usize].slab {
            // get_freelist(): cmpxchg_double on the page takes what remote frees left there.
            let slab = slab_in(&mut self.slabs, sid);
            cost.line_ns += slab.line.touch(m, &self.cpu_caches, cpu);
            if !slab.freelist.is_empty() {
                let mut list = std::mem::take(&mut slab.freelist);
                for &i in &list {
                    slab.state[i as usize] = ObjState::CpuFree;
                }
                list.reverse();
                self.caches[ci].cpu[cpu as usize].freelist = list;
                self.caches[ci].stats[cpu as usize].alloc_refill += 1;
                return Ok(AllocPath::Refill);
            }
            // deactivate_slab(): the slab is full (every object allocated): it leaves the CPU
            // and lives on no list until a free makes it partial.
            slab.frozen = None;
            self.caches[ci].cpu[cpu as usize].slab = None;
            self.caches[ci].stats[cpu as usize].deactivate_full += 1;
        }
        // get_partial_node() under list_lock.
        if !self.caches[ci].partial.is_empty() {
            cost.add(self.list_lock(m, cache, cpu, now_ns, k.list_cycles));
            let sid = self.caches[ci].partial.pop_front().expect("checked non-empty");
            let slab = slab_in(&mut self.slabs, sid);
            slab.on_partial = false;
            cost.line_ns += slab.line.touch(m, &self.cpu_caches, cpu);
            self.freeze(cpu, cache, sid);
            self.caches[ci].stats[cpu as usize].alloc_from_partial += 1;
            return Ok(AllocPath::Partial);
        }
        // new_slab(): pages from the page allocator, list_lock not held.
        let order = self.caches[ci].order;
        let (pfn, pc) = self.alloc_pages(m, cpu, now_ns, order as usize);
        cost.add(pc);
        let pfn = pfn.ok_or(SlubError::OutOfPages)?;
        let n = self.caches[ci].objects_per_slab as usize;
        cost.cycles += k.init_object_cycles * n as u64;
        let mut line = CacheLine::UNTOUCHED;
        line.touch(m, &self.cpu_caches, cpu);
        let slab = Slab {
            cache,
            pfn,
            freelist: (0..n as u16).rev().collect(),
            frozen: None,
            on_partial: false,
            line,
            obj_line: vec![CacheLine::UNTOUCHED; n],
            state: vec![ObjState::PageFree; n],
        };
        let sid = match self.free_slots.pop() {
            Some(s) => {
                self.slabs[s as usize] = Some(slab);
                s
            }
            None => {
                self.slabs.push(Some(slab));
                (self.slabs.len() - 1) as u32
            }
        };
        self.caches[ci].nr_slabs += 1;
        self.freeze(cpu, cache, sid);
        self.caches[ci].stats[cpu as usize].alloc_slab += 1;
        Ok(AllocPath::NewSlab)
    }

    /// The slab becomes `cpu`'s active slab; its page freelist becomes the CPU's freelist.
    fn freeze(&mut self, cpu: CpuId, cache: u16, sid: u32) {
        let slab = slab_in(&mut self.slabs, sid);
        slab.frozen = Some(cpu);
        let mut list = std::mem::take(&mut slab.freelist);
        for &i in &list {
            slab.state[i as usize] = ObjState::CpuFree;
        }
        list.reverse();
        let c = &mut self.caches[cache as usize].cpu[cpu as usize];
        c.slab = Some(sid);
        c.freelist = list;
    }

    /// `kmem_cache_free()` of `obj` on `cpu` at `now_ns`.
    pub fn free(&mut self, m: &MachineProfile, cpu: CpuId, obj: Obj, now_ns: u64) -> Done<FreePath> {
        let k = self.costs;
        let ci = obj.cache as usize;
        let mut cost = OpCost { cycles: k.fast_cycles, ..OpCost::default() };
        let slab = self.slabs[obj.slab as usize].as_mut().expect("bug: free of an object of a freed slab");
        assert_eq!(slab.state[obj.idx as usize], ObjState::Allocated, "bug: double free of {obj:?}");
        assert_eq!(slab.cache, obj.cache, "bug: free to the wrong cache");
        // set_freepointer() writes the object's first line.
        cost.line_ns += slab.obj_line[obj.idx as usize].touch(m, &self.cpu_caches, cpu);
        let owner = slab.frozen;
        let pfn = slab.pfn;
        if self.caches[ci].cpu[cpu as usize].slab == Some(obj.slab) {
            slab.state[obj.idx as usize] = ObjState::CpuFree;
            self.caches[ci].cpu[cpu as usize].freelist.push(obj.idx);
            self.caches[ci].stats[cpu as usize].free_fastpath += 1;
            return Done { path: FreePath::Fast, cost, slab_owner: owner, slab_pfn: pfn };
        }
        // __slab_free(): cmpxchg_double on the page's freelist + counters.
        cost.cycles += k.slow_cycles;
        cost.line_ns += slab.line.touch(m, &self.cpu_caches, cpu);
        let prior_empty = slab.freelist.is_empty();
        slab.freelist.push(obj.idx);
        slab.state[obj.idx as usize] = ObjState::PageFree;
        let inuse = slab.inuse();
        let on_partial = slab.on_partial;
        self.caches[ci].stats[cpu as usize].free_slowpath += 1;
        let path = if owner.is_some() {
            self.caches[ci].stats[cpu as usize].free_frozen += 1;
            FreePath::Frozen
        } else if inuse == 0 {
            cost.add(self.list_lock(m, obj.cache, cpu, now_ns, k.list_cycles));
            let c = &mut self.caches[ci];
            if c.partial.len() >= c.min_partial {
                if on_partial {
                    c.partial.retain(|&s| s != obj.slab);
                    c.stats[cpu as usize].free_remove_partial += 1;
                }
                c.stats[cpu as usize].free_slab += 1;
                cost.add(self.discard(m, cpu, obj.slab, now_ns));
                FreePath::Discard
            } else {
                if !on_partial {
                    c.partial.push_back(obj.slab);
                    c.stats[cpu as usize].free_add_partial += 1;
                    slab_in(&mut self.slabs, obj.slab).on_partial = true;
                }
                FreePath::KeepEmpty
            }
        } else if prior_empty {
            // Full → partial: add_partial() under list_lock.
            cost.add(self.list_lock(m, obj.cache, cpu, now_ns, k.list_cycles));
            self.caches[ci].partial.push_back(obj.slab);
            self.caches[ci].stats[cpu as usize].free_add_partial += 1;
            slab_in(&mut self.slabs, obj.slab).on_partial = true;
            FreePath::AddPartial
        } else {
            FreePath::Partial
        };
        Done { path, cost, slab_owner: owner, slab_pfn: pfn }
    }

    /// `discard_slab()`: the empty slab's pages go back to the page allocator.
    fn discard(&mut self, m: &MachineProfile, cpu: CpuId, sid: u32, now_ns: u64) -> OpCost {
        let slab = self.slabs[sid as usize].take().expect("bug: discard of a freed slab");
        debug_assert_eq!(slab.inuse(), 0);
        self.free_slots.push(sid);
        let c = &mut self.caches[slab.cache as usize];
        c.nr_slabs -= 1;
        let order = c.order as usize;
        self.free_pages(m, cpu, now_ns, slab.pfn, order)
    }

    /// `alloc_pages(order)` on `cpu`: the PCP list for pcp-allowed orders (refilled under
    /// zone->lock when empty), the buddy under zone->lock otherwise.
    pub fn alloc_pages(&mut self, m: &MachineProfile, cpu: CpuId, now_ns: u64, order: usize) -> (Option<Pfn>, OpCost) {
        let k = self.costs;
        let mut cost = OpCost { cycles: k.page_op_cycles, ..OpCost::default() };
        if self.zone.pcp_allowed(order) {
            if let Some(p) = self.zone.pcp_alloc(cpu, order) {
                cost.line_ns += self.zone.touch_page(m, &self.cpu_caches, cpu, p);
                return (Some(p), cost);
            }
            let (moved, zc) = self.zone.rmqueue_bulk(m, &self.cpu_caches, cpu, order);
            self.under_zone_lock(m, cpu, now_ns, (zc.line_ns, k.buddy_cycles * u64::from(moved.max(1))), &mut cost);
            let p = self.zone.pcp_alloc(cpu, order);
            if let Some(p) = p {
                cost.line_ns += self.zone.touch_page(m, &self.cpu_caches, cpu, p);
            }
            return (p, cost);
        }
        let (p, zc) = self.zone.rmqueue_locked(m, &self.cpu_caches, cpu, order);
        self.under_zone_lock(m, cpu, now_ns, (zc.line_ns, zc.cycles), &mut cost);
        (p, cost)
    }

    /// Work of `work` = (line ns, cycles) done under zone->lock by `cpu` at `now_ns`: the
    /// lock is held that long, the CPU first waits its turn; all of it lands in `cost`.
    fn under_zone_lock(&mut self, m: &MachineProfile, cpu: CpuId, now_ns: u64, work: (u64, u64), cost: &mut OpCost) {
        let (line_ns, cycles) = work;
        let hold = line_ns + Self::ns(cycles, m.turbo_max_mhz);
        let (wait, _) = self.zone_timing.hold(&mut self.zone.lock, m, cpu, now_ns, hold);
        cost.spin_ns += wait;
        cost.line_ns += line_ns;
        cost.cycles += cycles;
    }

    /// `__free_pages(pfn, order)` on `cpu` (the last reference): PCP list or buddy.
    pub fn free_pages(&mut self, m: &MachineProfile, cpu: CpuId, now_ns: u64, pfn: Pfn, order: usize) -> OpCost {
        let k = self.costs;
        let mut cost = OpCost { cycles: k.page_op_cycles, ..OpCost::default() };
        cost.line_ns += self.zone.touch_page(m, &self.cpu_caches, cpu, pfn);
        let last = self.zone.put_page_testzero(pfn);
        debug_assert!(last, "bug: slab page with other references");
        if self.zone.pcp_allowed(order) {
            if self.zone.pcp_free(cpu, pfn, order) {
                let zc = self.zone.free_pcppages_bulk(m, &self.cpu_caches, cpu);
                self.under_zone_lock(m, cpu, now_ns, (zc.line_ns, zc.cycles), &mut cost);
            }
            return cost;
        }
        let zc = self.zone.free_one_page(m, &self.cpu_caches, cpu, pfn, order);
        self.under_zone_lock(m, cpu, now_ns, (zc.line_ns, zc.cycles), &mut cost);
        cost
    }

    /// Statistics of `cache` summed over CPUs.
    pub fn totals(&self, cache: u16) -> SlubStats {
        let mut t = SlubStats::default();
        for s in &self.caches[cache as usize].stats {
            t.add(s);
        }
        t
    }

    /// Statistics of every cache summed, per CPU.
    pub fn per_cpu(&self) -> Vec<SlubStats> {
        let mut out = vec![SlubStats::default(); self.n_cpus];
        for c in &self.caches {
            for (o, s) in out.iter_mut().zip(&c.stats) {
                o.add(s);
            }
        }
        out
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
        self.slabs
            .iter()
            .flatten()
            .filter(|s| s.cache == cache)
            .map(|s| s.state.iter().filter(|&&x| x == ObjState::Allocated).count() as u64)
            .sum()
    }

    /// Every object is on exactly one freelist (its page's or its frozen CPU's) or allocated;
    /// every CPU freelist holds only objects of its active slab; `inuse` and the partial list
    /// agree with the objects; frozen slabs are some CPU's active slab and on no list.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (ci, c) in self.caches.iter().enumerate() {
            let mut slabs = 0;
            for (sid, s) in self.slabs.iter().enumerate() {
                let Some(s) = s else { continue };
                if s.cache as usize != ci {
                    continue;
                }
                slabs += 1;
                let mut seen = vec![0u8; s.state.len()];
                for &i in &s.freelist {
                    seen[i as usize] += 1;
                    if s.state[i as usize] != ObjState::PageFree {
                        return Err(format!(
                            "{}: slab {sid} object {i} on the page freelist but {:?}",
                            c.name, s.state[i as usize]
                        ));
                    }
                }
                match s.frozen {
                    Some(cpu) => {
                        let cs = &c.cpu[cpu as usize];
                        if cs.slab != Some(sid as u32) {
                            return Err(format!("{}: slab {sid} frozen to cpu {cpu} but not its active slab", c.name));
                        }
                        if s.on_partial {
                            return Err(format!("{}: frozen slab {sid} on the partial list", c.name));
                        }
                        for &i in &cs.freelist {
                            seen[i as usize] += 1;
                            if s.state[i as usize] != ObjState::CpuFree {
                                return Err(format!(
                                    "{}: cpu {cpu} freelist holds object {i} that is {:?}",
                                    c.name, s.state[i as usize]
                                ));
                            }
                        }
                    }
                    None => {
                        if s.state.contains(&ObjState::CpuFree) {
                            return Err(format!("{}: unfrozen slab {sid} has objects on a CPU freelist", c.name));
                        }
                        let listed = c.partial.iter().filter(|&&p| p as usize == sid).count();
                        if listed != usize::from(s.on_partial) {
                            return Err(format!(
                                "{}: slab {sid} on_partial {} but listed {listed} times",
                                c.name, s.on_partial
                            ));
                        }
                        if s.on_partial && s.freelist.is_empty() {
                            return Err(format!("{}: full slab {sid} on the partial list", c.name));
                        }
                    }
                }
                for (i, (&n, st)) in seen.iter().zip(&s.state).enumerate() {
                    let want = u8::from(*st != ObjState::Allocated);
                    if n != want {
                        return Err(format!("{}: slab {sid} object {i} is {st:?} but on {n} freelists", c.name));
                    }
                }
            }
            if slabs != c.nr_slabs {
                return Err(format!("{}: {slabs} slabs but nr_slabs {}", c.name, c.nr_slabs));
            }
            for (cpu, cs) in c.cpu.iter().enumerate() {
                if cs.slab.is_none() && !cs.freelist.is_empty() {
                    return Err(format!("{}: cpu {cpu} has a freelist but no slab", c.name));
                }
            }
        }
        self.zone.check_invariants()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::machine::SERVER_2019;
    use proptest::prelude::*;

    const COSTS: SlubCosts = SlubCosts {
        fast_cycles: 50,
        slow_cycles: 150,
        list_cycles: 60,
        init_object_cycles: 20,
        page_op_cycles: 100,
        buddy_cycles: 30,
    };

    fn slub(n_cpus: usize) -> Slub {
        let zone = Zone::new(0, 1 << 12, n_cpus, 378, 63, false);
        let specs =
            [CacheSpec { name: "skbuff_head_cache", size: 256 }, CacheSpec { name: "kmalloc-1024", size: 1024 }];
        Slub::new(&SERVER_2019, &specs, n_cpus, zone, COSTS)
    }

    #[test]
    fn orders_follow_calculate_order() {
        // 2 CPUs: min_objects = 4 * (fls(2) + 1) = 12.
        assert_eq!(calculate_order(256, 2), 0);
        assert_eq!(calculate_order(512, 2), 1);
        assert_eq!(calculate_order(1024, 2), 2);
        assert_eq!(calculate_order(2048, 2), 3);
        assert_eq!(min_partial(256), 5);
    }

    #[test]
    fn same_cpu_is_fast_and_remote_free_is_slow() {
        let m = SERVER_2019;
        let mut s = slub(2);
        let (a, d) = s.alloc(&m, 0, 0, 0).unwrap();
        assert_eq!(d.path, AllocPath::NewSlab);
        assert_eq!(s.free(&m, 0, a, 10).path, FreePath::Fast);
        let (b, d) = s.alloc(&m, 0, 0, 20).unwrap();
        assert_eq!((d.path, b), (AllocPath::Fast, a));
        let f = s.free(&m, 1, b, 30);
        assert_eq!((f.path, f.slab_owner), (FreePath::Frozen, Some(0)));
        assert!(f.cost.line_ns > 0);
        s.check_invariants().unwrap();
    }

    #[derive(Debug, Clone)]
    enum Op {
        Alloc { cpu: u16, cache: u16 },
        Free { pick: usize, cpu: u16 },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u16..3, 0u16..2).prop_map(|(cpu, cache)| Op::Alloc { cpu, cache }),
            (any::<usize>(), 0u16..3).prop_map(|(pick, cpu)| Op::Free { pick, cpu }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any sequence of allocations and frees on any CPUs keeps every object free or
        /// allocated exactly once, and the allocated count equals what the caller holds.
        #[test]
        fn every_object_free_or_allocated_once(ops in prop::collection::vec(op(), 1..400)) {
            let m = SERVER_2019;
            let mut s = slub(3);
            let mut held: Vec<Obj> = Vec::new();
            for (t, o) in ops.into_iter().enumerate() {
                let now = t as u64 * 100;
                match o {
                    Op::Alloc { cpu, cache } => {
                        let (obj, _) = s.alloc(&m, cpu, cache, now).unwrap();
                        prop_assert!(!held.contains(&obj), "object handed out twice");
                        held.push(obj);
                    }
                    Op::Free { pick, cpu } if !held.is_empty() => {
                        let obj = held.swap_remove(pick % held.len());
                        s.free(&m, cpu, obj, now);
                    }
                    Op::Free { .. } => {}
                }
                prop_assert_eq!(s.check_invariants(), Ok(()));
            }
            for cache in 0..2u16 {
                prop_assert_eq!(s.allocated(cache), held.iter().filter(|o| o.cache == cache).count() as u64);
            }
            // Free everything on one CPU: nothing stays allocated, pages are conserved.
            for obj in held.drain(..) {
                s.free(&m, 2, obj, 1 << 30);
            }
            prop_assert_eq!(s.check_invariants(), Ok(()));
            prop_assert_eq!(s.allocated(0) + s.allocated(1), 0);
        }
    }
}
