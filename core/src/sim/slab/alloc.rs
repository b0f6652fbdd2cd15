//! SLAB's allocation: `____cache_alloc` (the CPU's array) and `cache_alloc_refill` (the
//! node's shared array, then its slabs, under `list_lock`; then a new slab). Every
//! allocation is from the CPU's own node (`numa_mem_id()`), as `kmem_cache_alloc` and
//! `kmem_cache_alloc_node(.., NUMA_NO_NODE)` make it.

use super::array::transfer_objects;
use super::{slab_in, AllocPath, Caller, Done, ObjState, OpCost, Slab, SlabError, BATCHREFILL_LIMIT};
use crate::sim::slub::Obj;

/// Pointers per line a shared-array transfer copies (one `object_cycles` each).
const POINTERS_PER_LINE: u64 = 8;

impl Slab {
    /// `kmem_cache_alloc()`: `____cache_alloc`, refilling the array when it is empty.
    pub fn alloc(&mut self, at: Caller<'_>, cache: u16) -> Result<(Obj, Done<AllocPath>), SlabError> {
        let (Caller { m, cpu, .. }, ci) = (at, cache as usize);
        let mut cost = OpCost { cycles: self.costs.shared.fast_cycles, ..OpCost::default() };
        let path = if self.caches[ci].cpu[cpu as usize].avail() > 0 {
            self.caches[ci].stats[cpu as usize].allochit += 1;
            AllocPath::Fast
        } else {
            self.caches[ci].stats[cpu as usize].allocmiss += 1;
            self.cache_alloc_refill(at, cache, &mut cost)?
        };
        let ac = &mut self.caches[ci].cpu[cpu as usize];
        ac.touched = true;
        let top = ac.entry.len();
        cost.line_ns += ac.touch(m, &self.cpu_caches, cpu, top - 1, top);
        let obj = ac.pop().expect("bug: refill left an empty array");
        let slab = slab_in(&mut self.slabs, obj.slab);
        debug_assert_eq!(slab.state[obj.idx as usize], ObjState::Cached);
        slab.state[obj.idx as usize] = ObjState::Allocated;
        Ok((obj, Done { path, cost, slab_owner: None, slab_pfn: slab.pfn }))
    }

    /// `cache_alloc_refill()`: `cpu`'s array is empty. A batch (at most
    /// [`BATCHREFILL_LIMIT`] if the array was not touched since the last reap) from the
    /// node's shared array or slabs under `list_lock` — skipped when the node has neither —
    /// else a new slab, from which the batch is taken before `cache_grow_end` lists it.
    fn cache_alloc_refill(&mut self, at: Caller<'_>, cache: u16, cost: &mut OpCost) -> Result<AllocPath, SlabError> {
        let cpu = at.cpu;
        let (ci, node) = (cache as usize, self.node_of_cpu(cpu));
        cost.cycles += self.costs.shared.slow_cycles;
        let ac = &self.caches[ci].cpu[cpu as usize];
        let batch = if !ac.touched && ac.batchcount > BATCHREFILL_LIMIT { BATCHREFILL_LIMIT } else { ac.batchcount };
        let n = &self.caches[ci].nodes[node];
        let shared_avail = n.shared.as_ref().map_or(0, |s| s.avail());
        let mut path = AllocPath::Slabs;
        if n.free_objects > 0 || shared_avail > 0 {
            let (p, lc) = self.refill_locked(Self::after(at, cost), cache, batch);
            cost.add(lc);
            path = p;
        }
        if self.caches[ci].cpu[cpu as usize].avail() > 0 {
            return Ok(path);
        }
        let sid = self.cache_grow_begin(Self::after(at, cost), (cache, node), cost)?;
        let (_, taken, line_ns) = self.alloc_block(at, cache, sid, batch);
        cost.line_ns += line_ns;
        cost.cycles += self.costs.object_cycles * u64::from(taken);
        let (lc, _) = self.cache_grow_end(Self::after(at, cost), sid);
        cost.add(lc);
        Ok(AllocPath::Grow)
    }

    /// The part of `cache_alloc_refill` under the calling CPU's node's `list_lock`:
    /// `transfer_objects` from the shared array if it has any (marking it touched), else
    /// `alloc_block` from `get_first_slab` until the batch is full or the node has no free
    /// object, each slab then `fixup_slab_list`ed, and `free_objects` lowered by what the
    /// array got.
    fn refill_locked(&mut self, at: Caller<'_>, cache: u16, batch: u32) -> (AllocPath, OpCost) {
        let Caller { m, cpu, .. } = at;
        let (ci, node) = (cache as usize, self.node_of_cpu(cpu));
        let mut line_ns = self.touch_node(m, cache, node, cpu);
        let mut cycles = 0;
        let c = &mut self.caches[ci];
        let (ac, n) = (&mut c.cpu[cpu as usize], &mut c.nodes[node]);
        if let Some(shared) = n.shared.as_mut() {
            let (nr, ns) = transfer_objects(m, &self.cpu_caches, cpu, ac, shared, batch);
            if nr > 0 {
                shared.touched = true;
                line_ns += ns;
                cycles += self.costs.object_cycles * u64::from(nr).div_ceil(POINTERS_PER_LINE);
                c.stats[cpu as usize].refill_shared += 1;
                let (lc, _) = self.list_lock_over(at, (cache, node), (line_ns, cycles));
                return (AllocPath::Shared, lc);
            }
        }
        let mut left = batch;
        while left > 0 {
            let Some(sid) = self.get_first_slab(cache, node) else { break };
            let (l, taken, ns) = self.alloc_block(at, cache, sid, left);
            left = l;
            line_ns += ns;
            cycles += self.costs.object_cycles * u64::from(taken);
            self.fixup_slab_list(cache, sid);
        }
        let c = &mut self.caches[ci];
        c.nodes[node].free_objects -= c.cpu[cpu as usize].avail();
        c.stats[cpu as usize].refill_slabs += 1;
        let (lc, _) = self.list_lock_over(at, (cache, node), (line_ns, cycles));
        (AllocPath::Slabs, lc)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{alloc_here_free_there, machine, slab};
    use super::*;

    #[test]
    fn a_cold_alloc_grows_a_slab_and_refills_a_batch_then_hits() {
        let m = machine();
        let mut s = slab();
        let (a, d) = s.alloc(Caller::new(&m, 0, 0), 0).unwrap();
        assert_eq!(d.path, AllocPath::Grow);
        // An untouched array refills at most BATCHREFILL_LIMIT (16); a 256-byte slab holds 16.
        assert_eq!(s.cpu_avail(0, 0), 15);
        assert_eq!(s.node_of(a), 0);
        let c = &s.caches[0];
        assert_eq!((c.limit, c.batchcount, c.objects_per_slab), (120, 60, 16));
        assert_eq!((c.nodes[0].total_slabs, c.nodes[0].free_objects), (1, 0));
        let (_, d) = s.alloc(Caller::new(&m, 0, 100), 0).unwrap();
        assert_eq!(d.path, AllocPath::Fast);
        // CPU 2 is on node 1: its slab comes from node 1's zone.
        let (b, _) = s.alloc(Caller::new(&m, 2, 200), 0).unwrap();
        assert_eq!(s.node_of(b), 1);
        s.check_invariants().unwrap();
    }

    #[test]
    fn a_touched_array_refills_a_whole_batch_from_the_slabs() {
        let m = machine();
        let mut s = slab();
        // 16 allocations on CPU 0 empty its first batch; the array is touched now.
        let held: Vec<_> = (0..16).map(|t| s.alloc(Caller::new(&m, 0, t), 0).unwrap().0).collect();
        assert_eq!(s.cpu_avail(0, 0), 0);
        let (_, d) = s.alloc(Caller::new(&m, 0, 100), 0).unwrap();
        // Nothing free on the node: a new slab, and a batch of 60 is more than it holds.
        assert_eq!(d.path, AllocPath::Grow);
        assert_eq!(s.cpu_avail(0, 0), 15);
        // CPU 1 (same node) frees its 16 objects: they stay in CPU 1's array.
        for (t, o) in held.into_iter().enumerate() {
            s.free(Caller::new(&m, 1, 200 + t as u64), o);
        }
        assert_eq!(s.cpu_avail(0, 1), 16);
        s.check_invariants().unwrap();
    }

    #[test]
    fn a_refill_takes_the_shared_array_first() {
        let m = machine();
        let mut s = slab();
        // CPU 0 allocates 13, CPU 2 (node 1) frees them: the 13th free drains 12 into node
        // 0's shared array (alien limit 12).
        alloc_here_free_there(&mut s, &m, 13);
        assert_eq!(s.shared_avail(0, 0), 12);
        // CPU 1 (node 0) refills from the shared array: all 12 (its batch is 16).
        let (_, d) = s.alloc(Caller::new(&m, 1, 5000), 0).unwrap();
        assert_eq!(d.path, AllocPath::Shared);
        assert_eq!((s.cpu_avail(0, 1), s.shared_avail(0, 0)), (11, 0));
        assert_eq!(s.totals(0).refill_shared, 1);
        s.check_invariants().unwrap();
    }
}
