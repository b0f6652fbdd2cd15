//! A node's slabs (`struct kmem_cache_node`) and the work done on them under its
//! `list_lock`: `get_first_slab`, `alloc_block` and `fixup_slab_list` (a refill),
//! `free_block` with the surplus free slabs it detaches, `cache_grow_begin` (the page
//! allocator, no lock) and `cache_grow_end` (the new slab onto the lists), `slabs_destroy`
//! (the detached slabs' pages back to their node's zone, no slab lock held).
//!
//! The list discipline is the kernel's: `get_first_slab` takes the partial list's head, else
//! the free list's (`free_touched`, `free_slabs--`); `fixup_slab_list` puts a slab that still
//! has free objects at the partial list's HEAD; `free_block` puts a slab that still has
//! objects out at the partial list's TAIL ("maximum time for the other objects to be freed")
//! and an empty one at the free list's head, then detaches free slabs from the free list's
//! tail while `free_objects > free_limit`.

use super::{slab_in, Caller, KmemCacheNode, ObjState, OpCost, Slab, SlabError, SlabList, SlabPage};
use crate::sim::buddy::Pfn;
use crate::sim::cacheline::CacheLine;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::slub::{insert_in_slot, Obj, PageSide};

/// Freelist index bytes per line (`freelist_idx_t` is one byte with 4 KiB pages).
const INDEXES_PER_LINE: u32 = 64;

impl KmemCacheNode {
    /// `list_del(&page->slab_list)` of slab `sid`, which is on list `list`.
    fn list_del(&mut self, sid: u32, list: SlabList) {
        let q = match list {
            SlabList::Partial => &mut self.slabs_partial,
            SlabList::Free => &mut self.slabs_free,
            SlabList::Full | SlabList::Off => return,
        };
        let at = q.iter().position(|&s| s == sid).expect("bug: slab not on the list it names");
        q.remove(at);
    }
}

impl Slab {
    /// The caller takes `node`'s `list_lock` of `cache` and holds it over `work` = (line ns,
    /// cycles) plus the lock's own cycles: the cost (wait, work, lines) and the time it
    /// releases the lock.
    pub(super) fn list_lock_over(
        &mut self,
        at: Caller<'_>,
        (cache, node): (u16, usize),
        work: (u64, u64),
    ) -> (OpCost, u64) {
        let Caller { m, cpu, now_ns: at_ns } = at;
        let (line_ns, cycles) = work;
        let cycles = cycles + self.costs.lock_cycles;
        let hold = line_ns + Self::ns(cycles, m);
        let c = &mut self.caches[cache as usize];
        let n = &mut c.nodes[node];
        let (wait, granted) = n.list_timing.hold(&mut n.list_lock, m, cpu, at_ns, hold);
        let s = &mut c.stats[cpu as usize];
        s.list_lock += 1;
        s.list_lock_wait_ns += wait;
        (OpCost { cycles, line_ns, spin_ns: wait }, granted + hold)
    }

    /// `cpu` writes `node`'s list heads and counters (the line beside its lock word).
    pub(super) fn touch_node(&mut self, m: &MachineProfile, cache: u16, node: usize, cpu: CpuId) -> u64 {
        self.caches[cache as usize].nodes[node].line.touch(m, &self.cpu_caches, cpu)
    }

    /// `get_first_slab(n)`: the head of the partial list, else of the free list (which
    /// marks the node's free slabs touched and counts one fewer). The slab stays linked
    /// until `fixup_slab_list`.
    pub(super) fn get_first_slab(&mut self, cache: u16, node: usize) -> Option<u32> {
        let n = &mut self.caches[cache as usize].nodes[node];
        if let Some(&sid) = n.slabs_partial.front() {
            return Some(sid);
        }
        n.free_touched = true;
        let sid = *n.slabs_free.front()?;
        n.free_slabs -= 1;
        Some(sid)
    }

    /// `alloc_block()`: up to `batch` objects of slab `sid` into `cpu`'s array of `cache`
    /// (`slab_get_obj`: the freelist's next index, `page->active++`). Returns (batch left,
    /// objects taken, line ns: the slab's `struct page` and freelist lines, the array's).
    pub(super) fn alloc_block(&mut self, at: Caller<'_>, cache: u16, sid: u32, batch: u32) -> (u32, u32, u64) {
        let Caller { m, cpu, .. } = at;
        let slab = slab_in(&mut self.slabs, sid);
        assert!(slab.active < slab.objects(), "bug: alloc_block on a full slab");
        let mut ns = self.zones[usize::from(slab.node)].touch_page(m, &self.cpu_caches, cpu, slab.pfn);
        let ac = &mut self.caches[cache as usize].cpu[cpu as usize];
        let start = ac.entry.len();
        let mut left = batch;
        while slab.active < slab.objects() && left > 0 {
            left -= 1;
            let idx = slab.freelist[slab.active as usize];
            ns += slab.freelist_lines[(slab.active / INDEXES_PER_LINE) as usize].touch(m, &self.cpu_caches, cpu);
            slab.active += 1;
            slab.state[idx as usize] = ObjState::Cached;
            ac.push(Obj { cache, slab: sid, idx });
        }
        let end = ac.entry.len();
        ns += ac.touch(m, &self.cpu_caches, cpu, start, end);
        (left, batch - left, ns)
    }

    /// `fixup_slab_list()`: slab `sid` leaves its list for the full list, or for the
    /// partial list's head if it still has free objects.
    pub(super) fn fixup_slab_list(&mut self, cache: u16, sid: u32) {
        let slab = slab_in(&mut self.slabs, sid);
        let n = &mut self.caches[cache as usize].nodes[usize::from(slab.node)];
        n.list_del(sid, slab.list);
        if slab.active == slab.objects() {
            slab.list = SlabList::Full;
        } else {
            n.slabs_partial.push_front(sid);
            slab.list = SlabList::Partial;
        }
    }

    /// `free_block()`: `objs`, all of slabs on `node`, go back to their slabs (the caller
    /// holds `node`'s `list_lock`): `slab_put_obj` writes each slab's `struct page` and
    /// freelist lines; then free slabs beyond `free_limit` are detached (for `slabs_destroy`
    /// after the unlock). Returns (line ns, cycles, the detached slabs).
    pub(super) fn free_block(
        &mut self,
        at: Caller<'_>,
        (cache, node): (u16, usize),
        objs: &[Obj],
    ) -> (u64, u64, Vec<u32>) {
        let Caller { m, cpu, .. } = at;
        let (mut ns, cycles) = (0, self.costs.object_cycles * objs.len() as u64);
        let n = &mut self.caches[cache as usize].nodes[node];
        n.free_objects += objs.len() as u32;
        for o in objs {
            let slab = slab_in(&mut self.slabs, o.slab);
            debug_assert_eq!(usize::from(slab.node), node, "bug: free_block of another node's object");
            debug_assert_eq!(slab.state[o.idx as usize], ObjState::Cached);
            ns += self.zones[node].touch_page(m, &self.cpu_caches, cpu, slab.pfn);
            slab.active -= 1;
            slab.freelist[slab.active as usize] = o.idx;
            ns += slab.freelist_lines[(slab.active / INDEXES_PER_LINE) as usize].touch(m, &self.cpu_caches, cpu);
            slab.state[o.idx as usize] = ObjState::SlabFree;
            n.list_del(o.slab, slab.list);
            if slab.active == 0 {
                n.slabs_free.push_front(o.slab);
                n.free_slabs += 1;
                slab.list = SlabList::Free;
            } else {
                n.slabs_partial.push_back(o.slab);
                slab.list = SlabList::Partial;
            }
        }
        let num = self.caches[cache as usize].objects_per_slab;
        let n = &mut self.caches[cache as usize].nodes[node];
        let mut detached = Vec::new();
        while n.free_objects > n.free_limit {
            let Some(sid) = n.slabs_free.pop_back() else { break };
            n.free_objects -= num;
            n.free_slabs -= 1;
            n.total_slabs -= 1;
            slab_in(&mut self.slabs, sid).list = SlabList::Off;
            detached.push(sid);
        }
        (ns, cycles, detached)
    }

    /// `cache_grow_begin()` for `node`: `2^order` pages from the node's
    /// zone (no slab lock held), the slab's management set up (`cache_init_objs`); the slab
    /// is on no list yet. The page allocator's cost and the setup land in `cost`.
    pub(super) fn cache_grow_begin(
        &mut self,
        at: Caller<'_>,
        (cache, node): (u16, usize),
        cost: &mut OpCost,
    ) -> Result<u32, SlabError> {
        let Caller { m, cpu, .. } = at;
        let c = &self.caches[cache as usize];
        let (order, num) = (c.order as usize, c.objects_per_slab);
        let (pfn, pc) = self.page_side(node).alloc_pages(at, order);
        cost.add(pc);
        let pfn = pfn.ok_or(SlabError::OutOfPages)?;
        // slab_map_pages() and alloc_slabmgmt() write the struct page.
        cost.line_ns += self.zones[node].touch_page(m, &self.cpu_caches, cpu, pfn);
        cost.cycles += self.costs.shared.init_object_cycles * u64::from(num);
        let mut freelist_lines = vec![CacheLine::UNTOUCHED; num.div_ceil(INDEXES_PER_LINE) as usize];
        for line in &mut freelist_lines {
            cost.line_ns += line.touch(m, &self.cpu_caches, cpu);
        }
        let slab = SlabPage {
            cache,
            node: node as u16,
            pfn,
            active: 0,
            freelist: (0..num as u16).collect(),
            list: SlabList::Off,
            freelist_lines,
            state: vec![ObjState::SlabFree; num as usize],
        };
        self.caches[cache as usize].stats[cpu as usize].grown += 1;
        Ok(insert_in_slot(&mut self.slabs, &mut self.free_slots, slab))
    }

    /// `cache_grow_end()`: under the slab's node's `list_lock`, the new slab joins the
    /// free list's tail (nothing taken yet) or goes where `fixup_slab_list` puts it, and
    /// the node counts it and its free objects.
    pub(super) fn cache_grow_end(&mut self, at: Caller<'_>, sid: u32) -> (OpCost, u64) {
        let Caller { m, cpu, .. } = at;
        let slab = slab_in(&mut self.slabs, sid);
        let (cache, node, active, num) = (slab.cache, usize::from(slab.node), slab.active, slab.objects());
        let line = self.touch_node(m, cache, node, cpu);
        let n = &mut self.caches[cache as usize].nodes[node];
        n.total_slabs += 1;
        if active == 0 {
            n.slabs_free.push_back(sid);
            n.free_slabs += 1;
            slab_in(&mut self.slabs, sid).list = SlabList::Free;
        } else {
            self.fixup_slab_list(cache, sid);
        }
        self.caches[cache as usize].nodes[node].free_objects += num - active;
        self.list_lock_over(at, (cache, node), (line, self.costs.object_cycles))
    }

    /// `slabs_destroy()`: each detached slab's pages go back to its node's zone
    /// (`kmem_freepages` → `__free_pages`, the calling CPU's PCP list of that zone).
    pub(super) fn slabs_destroy(&mut self, at: Caller<'_>, detached: Vec<u32>) -> OpCost {
        let cpu = at.cpu;
        let mut cost = OpCost::default();
        for sid in detached {
            let slab = self.slabs[sid as usize].take().expect("bug: destroying a freed slab");
            debug_assert_eq!(slab.active, 0, "bug: destroying a slab with objects out");
            self.free_slots.push(sid);
            let c = &mut self.caches[slab.cache as usize];
            c.stats[cpu as usize].slabs_destroyed += 1;
            let order = c.order as usize;
            let after = Self::after(at, &cost);
            cost.add(self.page_side(usize::from(slab.node)).free_pages(after, slab.pfn, order));
        }
        cost
    }

    /// `alloc_pages_node(node, order)` for a caller beside the slabs (a driver's receive
    /// pages): `node`'s zone through this CPU's PCP list, as the slabs' own pages.
    pub fn alloc_pages(&mut self, at: Caller<'_>, node: usize, order: usize) -> (Option<Pfn>, OpCost) {
        self.page_side(node).alloc_pages(at, order)
    }

    /// `__free_pages(pfn, order)` of a page of `node`'s zone allocated by [`Slab::alloc_pages`].
    pub fn free_pages(&mut self, at: Caller<'_>, node: usize, pfn: Pfn, order: usize) -> OpCost {
        self.page_side(node).free_pages(at, pfn, order)
    }

    /// Node `node`'s zone as a `PageSide`.
    fn page_side(&mut self, node: usize) -> PageSide<'_> {
        PageSide {
            zone: &mut self.zones[node],
            timing: &mut self.zone_timing[node],
            caches: &self.cpu_caches,
            page_op_cycles: self.costs.shared.page_op_cycles,
            buddy_cycles: self.costs.shared.buddy_cycles,
        }
    }
}
