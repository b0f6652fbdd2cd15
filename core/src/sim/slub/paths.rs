//! SLUB's allocation and free paths: `kmem_cache_alloc()` (fast path, then `___slab_alloc()`:
//! refill from the page freelist, a slab from the partial list, a new slab) and
//! `kmem_cache_free()` (fast path, then `__slab_free()` with its list moves and discards).
//! The data they work on is in `mod.rs`; the pages of a new or discarded slab go through `pages`.

use super::{slab_in, AllocPath, Caller, Done, FreePath, Obj, ObjState, OpCost, Slab, Slub, SlubError};
use crate::sim::cacheline::CacheLine;
use crate::sim::machine::CpuId;

/// How far an allocation may look once this CPU's freelist is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The active slab's page freelist and this CPU's partial slabs.
    Cpu,
    /// ... and the node's partial list.
    Node,
    /// ... and a new slab from the page allocator.
    Pages,
}

impl Slub {
    /// `kmem_cache_alloc()`.
    pub fn alloc(&mut self, at: Caller<'_>, cache: u16) -> Result<(Obj, Done<AllocPath>), SlubError> {
        self.alloc_with(at, cache, Reach::Pages).map(|r| r.expect("bug: the full path always allocates or fails"))
    }

    /// `kmem_cache_alloc()` as far as `reach` goes on this node, short of a new slab:
    /// [`Reach::Cpu`], the CPU's freelist, the active slab's page freelist (`get_freelist`),
    /// then its partial slabs on this node; [`Reach::Node`], then a batch from this node's
    /// partial list (`get_partial_node`, under `list_lock`), what `get_any_partial` takes from
    /// another node (5.x, `remote_node_defrag_ratio`). `Err` with what was spent (the lines
    /// only: the caller's next attempt pays the path's cycles) when all are empty: the active
    /// slab is then deactivated, as `___slab_alloc` does before it looks further. For a world
    /// whose CPUs keep one per-CPU partial list over several nodes' slabs (`Slub` models one
    /// node): it tries the node of the CPU's active slab, then the others' partial slabs,
    /// then [`Slub::alloc`] on the CPU's own node (`get_partial_node`, a new slab).
    pub fn alloc_within(&mut self, at: Caller<'_>, cache: u16, reach: Reach) -> Result<(Obj, Done<AllocPath>), OpCost> {
        assert_ne!(reach, Reach::Pages, "bug: alloc_within reaches short of the page allocator; use alloc");
        match self.alloc_with(at, cache, reach) {
            Ok(r) => r,
            Err(_) => unreachable!("bug: an allocation that stops at {reach:?} asked the page allocator"),
        }
    }

    /// Slabs on this node's partial list of `cache` (`n->nr_partial`).
    pub fn node_partial_slabs(&self, cache: u16) -> usize {
        self.caches[cache as usize].partial.len()
    }

    fn alloc_with(
        &mut self,
        at: Caller<'_>,
        cache: u16,
        reach: Reach,
    ) -> Result<Result<(Obj, Done<AllocPath>), OpCost>, SlubError> {
        let Caller { m, cpu, .. } = at;
        let k = &self.costs.clone();
        let mut cost = OpCost { cycles: k.shared.fast_cycles, ..OpCost::default() };
        let ci = cache as usize;
        let mut path = AllocPath::Fast;
        if self.caches[ci].cpu[cpu as usize].freelist.is_empty() {
            let Some(p) = self.refill(at, cache, &mut cost, reach)? else {
                return Ok(Err(OpCost { cycles: 0, ..cost }));
            };
            path = p;
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
        Ok(Ok((Obj { cache, slab: slab_id, idx }, done)))
    }

    /// `___slab_alloc()`: this CPU's freelist is empty. Stops (None) where `reach` ends.
    fn refill(
        &mut self,
        at: Caller<'_>,
        cache: u16,
        cost: &mut OpCost,
        reach: Reach,
    ) -> Result<Option<AllocPath>, SlubError> {
        let Caller { m, cpu, .. } = at;
        let ci = cache as usize;
        let k = self.costs;
        cost.cycles += k.shared.slow_cycles;
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
                return Ok(Some(AllocPath::Refill));
            }
            // deactivate_slab(): the slab is full (every object allocated): it leaves the CPU
            // and lives on no list until a free makes it partial.
            slab.frozen = None;
            self.caches[ci].cpu[cpu as usize].slab = None;
            self.caches[ci].stats[cpu as usize].deactivate_full += 1;
        }
        if self.caches[ci].cpu_partial > 0 {
            // 3.2+: this CPU's partial slabs first, then a batch from the node (`partial`).
            if self.take_cpu_partial(at, cache, cost) {
                return Ok(Some(AllocPath::Partial));
            }
            if reach == Reach::Cpu {
                return Ok(None);
            }
            if self.get_partial_node(at, cache, cost) {
                return Ok(Some(AllocPath::Partial));
            }
            if reach == Reach::Node {
                return Ok(None);
            }
            return self.new_slab(at, cache, cost).map(Some);
        }
        if reach != Reach::Pages {
            return Ok(None);
        }
        // get_partial_node() under list_lock.
        if !self.caches[ci].partial.is_empty() {
            cost.add(self.list_lock_over(at, cache, (0, k.list_cycles)));
            let sid = self.caches[ci].partial.pop_front().expect("checked non-empty");
            let slab = slab_in(&mut self.slabs, sid);
            slab.on_partial = false;
            cost.line_ns += slab.line.touch(m, &self.cpu_caches, cpu);
            self.freeze(cpu, cache, sid);
            self.caches[ci].stats[cpu as usize].alloc_from_partial += 1;
            return Ok(Some(AllocPath::Partial));
        }
        self.new_slab(at, cache, cost).map(Some)
    }

    /// `new_slab()`: pages from the page allocator (list_lock not held), a fresh freelist of
    /// every object, frozen as `cpu`'s active slab.
    fn new_slab(&mut self, at: Caller<'_>, cache: u16, cost: &mut OpCost) -> Result<AllocPath, SlubError> {
        let Caller { m, cpu, .. } = at;
        let ci = cache as usize;
        let k = self.costs;
        let order = self.caches[ci].order;
        let (pfn, pc) = self.alloc_pages(at, order as usize);
        cost.add(pc);
        let pfn = pfn.ok_or(SlubError::OutOfPages)?;
        let n = self.caches[ci].objects_per_slab as usize;
        cost.cycles += k.shared.init_object_cycles * n as u64;
        let mut line = CacheLine::UNTOUCHED;
        line.touch(m, &self.cpu_caches, cpu);
        let slab = Slab::fresh(cache, pfn, n, line);
        let sid = self.insert_slab(slab);
        self.caches[ci].nr_slabs += 1;
        self.freeze(cpu, cache, sid);
        self.caches[ci].stats[cpu as usize].alloc_slab += 1;
        Ok(AllocPath::NewSlab)
    }

    /// Stores `slab` in a free slot (or a new one) and returns its id.
    pub(super) fn insert_slab(&mut self, slab: Slab) -> u32 {
        super::insert_in_slot(&mut self.slabs, &mut self.free_slots, slab)
    }

    /// The slab becomes `cpu`'s active slab; its page freelist becomes the CPU's freelist.
    pub(super) fn freeze(&mut self, cpu: CpuId, cache: u16, sid: u32) {
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

    /// `kmem_cache_free()` of `obj`.
    pub fn free(&mut self, at: Caller<'_>, obj: Obj) -> Done<FreePath> {
        let Caller { m, cpu, .. } = at;
        let k = self.costs;
        let ci = obj.cache as usize;
        let mut cost = OpCost { cycles: k.shared.fast_cycles, ..OpCost::default() };
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
        cost.cycles += k.shared.slow_cycles;
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
        } else if prior_empty && self.caches[ci].cpu_partial > 0 {
            // 3.2+: the full slab is frozen to this CPU's partial list (`partial`).
            cost.add(self.put_cpu_partial(at, obj.cache, obj.slab));
            FreePath::CpuPartial
        } else if inuse == 0 {
            cost.add(self.list_lock_over(at, obj.cache, (0, k.list_cycles)));
            let c = &mut self.caches[ci];
            if c.partial.len() >= c.min_partial {
                if on_partial {
                    c.partial.retain(|&s| s != obj.slab);
                    c.stats[cpu as usize].free_remove_partial += 1;
                }
                c.stats[cpu as usize].free_slab += 1;
                cost.add(self.discard(at, obj.slab));
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
            cost.add(self.list_lock_over(at, obj.cache, (0, k.list_cycles)));
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
    pub(super) fn discard(&mut self, at: Caller<'_>, sid: u32) -> OpCost {
        let slab = self.slabs[sid as usize].take().expect("bug: discard of a freed slab");
        debug_assert_eq!(slab.inuse(), 0);
        self.free_slots.push(sid);
        let c = &mut self.caches[slab.cache as usize];
        c.nr_slabs -= 1;
        let order = c.order as usize;
        self.free_pages(at, slab.pfn, order)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::slub;
    use super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn same_cpu_is_fast_and_remote_free_is_slow() {
        let m = SERVER_2019;
        let mut s = slub(2);
        let (a, d) = s.alloc(Caller::new(&m, 0, 0), 0).unwrap();
        assert_eq!(d.path, AllocPath::NewSlab);
        assert_eq!(s.free(Caller::new(&m, 0, 10), a).path, FreePath::Fast);
        let (b, d) = s.alloc(Caller::new(&m, 0, 20), 0).unwrap();
        assert_eq!((d.path, b), (AllocPath::Fast, a));
        let f = s.free(Caller::new(&m, 1, 30), b);
        assert_eq!((f.path, f.slab_owner), (FreePath::Frozen, Some(0)));
        assert!(f.cost.line_ns > 0);
        s.check_invariants().unwrap();
    }
}
