//! SLAB's free: `___cache_free` (the CPU's array, flushed by `cache_flusharray` when full)
//! and, on a machine of more than one node, `cache_free_alien` / `__cache_free_alien` for an
//! object of another node: the freeing node's alien cache for that node, under its own
//! lock, drained when full by `__drain_alien_cache` under the REMOTE node's `list_lock`.

use super::{Caller, Done, FreePath, ObjState, OpCost, Slab};
use crate::sim::slub::Obj;

/// Pointers per line a shared-array transfer copies (one `object_cycles` each).
const POINTERS_PER_LINE: u64 = 8;

impl Slab {
    /// `kmem_cache_free()` of `obj`.
    pub fn free(&mut self, at: Caller<'_>, obj: Obj) -> Done<FreePath> {
        let (Caller { m, cpu, .. }, ci) = (at, obj.cache as usize);
        let mut cost = OpCost { cycles: self.costs.shared.fast_cycles, ..OpCost::default() };
        let slab = self.slabs[obj.slab as usize].as_mut().expect("bug: free of an object of a freed slab");
        assert_eq!(slab.state[obj.idx as usize], ObjState::Allocated, "bug: double free of {obj:?}");
        assert_eq!(slab.cache, obj.cache, "bug: free to the wrong cache");
        slab.state[obj.idx as usize] = ObjState::Cached;
        let (pfn, page_node) = (slab.pfn, usize::from(slab.node));
        if self.zones.len() > 1 {
            // cache_free_alien(): page_to_nid() reads the slab's struct page.
            cost.line_ns += self.zones[page_node].touch_page(m, &self.cpu_caches, cpu, pfn);
            if page_node != self.node_of_cpu(cpu) {
                let path = self.cache_free_alien(at, obj, &mut cost);
                return Done { path, cost, slab_owner: None, slab_pfn: pfn };
            }
        }
        let mut path = FreePath::Fast;
        if self.caches[ci].cpu[cpu as usize].room() > 0 {
            self.caches[ci].stats[cpu as usize].freehit += 1;
        } else {
            self.caches[ci].stats[cpu as usize].freemiss += 1;
            path = self.cache_flusharray(at, obj.cache, &mut cost);
        }
        let ac = &mut self.caches[ci].cpu[cpu as usize];
        let top = ac.entry.len();
        cost.line_ns += ac.touch(m, &self.cpu_caches, cpu, top, top + 1);
        ac.push(obj);
        Done { path, cost, slab_owner: None, slab_pfn: pfn }
    }

    /// `cache_flusharray()`: `cpu`'s array of `cache` is full. Under the node's `list_lock`,
    /// its oldest `batchcount` objects go to the shared array (as many as it has room for)
    /// or, with the shared array full, back to their slabs (`free_block`); the detached
    /// surplus slabs are destroyed after the unlock, and the array moves its rest down.
    fn cache_flusharray(&mut self, at: Caller<'_>, cache: u16, cost: &mut OpCost) -> FreePath {
        let Caller { m, cpu, .. } = at;
        let (ci, node) = (cache as usize, self.node_of_cpu(cpu));
        cost.cycles += self.costs.shared.slow_cycles;
        let mut line_ns = self.touch_node(m, cache, node, cpu);
        let c = &mut self.caches[ci];
        let (ac, n) = (&mut c.cpu[cpu as usize], &mut c.nodes[node]);
        let mut batch = ac.batchcount as usize;
        let room = n.shared.as_ref().map_or(0, |s| s.room() as usize);
        let (path, cycles, detached) = if room > 0 {
            batch = batch.min(room);
            let shared = n.shared.as_mut().expect("room implies a shared array");
            let top = shared.entry.len();
            line_ns += shared.touch(m, &self.cpu_caches, cpu, top, top + batch);
            shared.entry.extend(ac.entry.drain(..batch));
            c.stats[cpu as usize].flush_shared += 1;
            (FreePath::FlushShared, self.costs.object_cycles * (batch as u64).div_ceil(POINTERS_PER_LINE), Vec::new())
        } else {
            let objs: Vec<Obj> = ac.entry.drain(..batch).collect();
            c.stats[cpu as usize].flush_slabs += 1;
            let (ns, cycles, detached) = self.free_block(at, (cache, node), &objs);
            line_ns += ns;
            (FreePath::FlushSlabs, cycles, detached)
        };
        let (lc, release) = self.list_lock_over(Self::after(at, cost), (cache, node), (line_ns, cycles));
        cost.add(lc);
        cost.add(self.slabs_destroy(at.at(release), detached));
        // The memmove of the array's remaining entries (its own lines).
        let ac = &mut self.caches[ci].cpu[cpu as usize];
        let avail = ac.entry.len();
        cost.line_ns += ac.touch(m, &self.cpu_caches, cpu, 0, avail);
        path
    }

    /// `__cache_free_alien()`: `obj`, of another node, goes into `cpu`'s node's alien cache
    /// for the object's node, under that alien cache's lock; a full alien cache is first
    /// drained (`__drain_alien_cache`) under the remote node's `list_lock`, with the alien
    /// lock held all along. Detached slabs are destroyed after the alien lock is dropped.
    fn cache_free_alien(&mut self, at: Caller<'_>, obj: Obj, cost: &mut OpCost) -> FreePath {
        let Caller { m, cpu, .. } = at;
        let (ci, node, remote) = (obj.cache as usize, self.node_of_cpu(cpu), self.node_of(obj));
        let k = self.costs;
        cost.cycles += k.shared.slow_cycles + k.lock_cycles;
        let at = Self::after(at, cost);
        let c = &mut self.caches[ci];
        c.stats[cpu as usize].node_frees += 1;
        let a = c.nodes[node].alien[remote].as_mut().expect("bug: no alien cache for another node");
        let (wait, granted) = a.timing.hold(&mut a.lock, m, cpu, at.now_ns, 0);
        c.stats[cpu as usize].alien_lock += 1;
        c.stats[cpu as usize].alien_lock_wait_ns += wait;
        cost.spin_ns += wait;
        // `struct alien_cache { spinlock_t lock; struct array_cache ac; }`: the lock word, the
        // array's header and its first entries share one line, which came with the lock.
        let _ = a.ac.touch(m, &self.cpu_caches, cpu, 0, 0);
        let (mut path, mut end, mut detached) = (FreePath::Alien, granted, Vec::new());
        if a.ac.room() == 0 {
            c.stats[cpu as usize].node_overflow += 1;
            // The drain reads every entry (under the remote list_lock).
            let read = a.ac.touch(m, &self.cpu_caches, cpu, 0, a.ac.entry.len());
            let entries = std::mem::take(&mut a.ac.entry);
            let (dc, release, d) = self.drain_alien_cache(at.at(end), (obj.cache, remote), (entries, read));
            cost.add(dc);
            (path, end, detached) = (FreePath::AlienDrain, release, d);
        }
        let a = self.caches[ci].nodes[node].alien[remote].as_mut().expect("checked above");
        let top = a.ac.entry.len();
        let after = a.ac.touch(m, &self.cpu_caches, cpu, top, top + 1);
        a.ac.push(obj);
        cost.line_ns += after;
        end += after + Self::ns(k.shared.fast_cycles, m);
        a.timing.extend_to(end);
        cost.add(self.slabs_destroy(at.at(end), detached));
        path
    }

    /// `__drain_alien_cache()` of `entries` (an alien cache's, of node `remote`, whose
    /// lines cost `entries_ns` to read) by the caller: under `remote`'s `list_lock`, the top ones to its shared array as far as
    /// it has room (`transfer_objects`), the rest back to their slabs (`free_block`). Returns
    /// (cost, the lock's release time, the detached slabs).
    fn drain_alien_cache(
        &mut self,
        at: Caller<'_>,
        (cache, remote): (u16, usize),
        (mut entries, entries_ns): (Vec<Obj>, u64),
    ) -> (OpCost, u64, Vec<u32>) {
        let Caller { m, cpu, .. } = at;
        let mut line_ns = entries_ns + self.touch_node(m, cache, remote, cpu);
        let mut cycles = 0;
        if let Some(shared) = self.caches[cache as usize].nodes[remote].shared.as_mut() {
            let nr = shared.room().min(entries.len() as u32) as usize;
            if nr > 0 {
                let top = shared.entry.len();
                line_ns += shared.touch(m, &self.cpu_caches, cpu, top, top + nr);
                shared.entry.extend(entries.drain(entries.len() - nr..));
                cycles += self.costs.object_cycles * (nr as u64).div_ceil(POINTERS_PER_LINE);
            }
        }
        let (ns, c, detached) = self.free_block(at, (cache, remote), &entries);
        let (cost, release) = self.list_lock_over(at, (cache, remote), (line_ns + ns, cycles + c));
        (cost, release, detached)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{alloc_here_free_there, machine, slab};
    use super::*;

    #[test]
    fn a_full_array_flushes_a_batch_to_the_shared_array_then_to_the_slabs() {
        let m = machine();
        let mut s = slab();
        // kmalloc-1024: limit 54, batch 27, shared 8 * 27 = 216, 4 objects per slab.
        let c = &s.caches[1];
        assert_eq!((c.limit, c.batchcount, c.objects_per_slab), (54, 27, 4));
        let held: Vec<_> = (0..400).map(|t| s.alloc(Caller::new(&m, 0, t), 1).unwrap().0).collect();
        let mut flushes = Vec::new();
        for (t, o) in held.into_iter().enumerate() {
            let d = s.free(Caller::new(&m, 0, 10_000 + t as u64), o);
            if d.path != FreePath::Fast {
                flushes.push((d.path, s.cpu_avail(1, 0), s.shared_avail(1, 0)));
            }
        }
        // The 55th free finds 54: a batch of 27 goes to the shared array, and so on until
        // it holds 216; then batches go back to the slabs.
        assert_eq!(flushes[0], (FreePath::FlushShared, 28, 27));
        let to_shared = flushes.iter().filter(|f| f.0 == FreePath::FlushShared).count();
        assert_eq!(to_shared, 8);
        assert!(flushes.iter().skip(8).all(|f| f.0 == FreePath::FlushSlabs));
        assert_eq!(s.shared_avail(1, 0), 216);
        s.check_invariants().unwrap();
    }

    #[test]
    fn surplus_free_slabs_go_back_to_the_zone() {
        let m = machine();
        let mut s = slab();
        let held: Vec<_> = (0..600).map(|t| s.alloc(Caller::new(&m, 0, t), 1).unwrap().0).collect();
        let in_use = s.zones[0].in_use_pages;
        for (t, o) in held.into_iter().enumerate() {
            s.free(Caller::new(&m, 0, 10_000 + t as u64), o);
        }
        let t = s.totals(1);
        assert!(t.slabs_destroyed > 0);
        let n = &s.caches[1].nodes[0];
        // free_limit = (1 + 4 CPUs of node 0) * 27 + 4 = 139 free objects in slabs at most.
        assert_eq!(n.free_limit, 139);
        assert!(n.free_objects <= n.free_limit);
        assert!(s.zones[0].in_use_pages < in_use);
        s.check_invariants().unwrap();
    }

    #[test]
    fn remote_frees_fill_the_alien_cache_and_drain_under_the_remote_list_lock() {
        let m = machine();
        let mut s = slab();
        let paths = alloc_here_free_there(&mut s, &m, 13);
        assert!(paths[..12].iter().all(|&p| p == FreePath::Alien));
        assert_eq!(paths[12], FreePath::AlienDrain);
        // The 12 went to node 0's shared array under node 0's list_lock; node 1's array
        // holds nothing; the 13th waits in node 1's alien cache for node 0.
        assert_eq!(s.shared_avail(0, 0), 12);
        assert_eq!(s.alien_avail(0, 1, 0), 1);
        assert_eq!(s.cpu_avail(0, 2), 0);
        // Node 0's list_lock: once for the new slab (cache_grow_end), once for the drain.
        assert_eq!(s.caches[0].nodes[0].list_lock.stats.acquisitions, 2);
        let t = s.totals(0);
        assert_eq!((t.node_frees, t.node_overflow, t.alien_lock), (13, 1, 13));
        s.check_invariants().unwrap();
    }

    #[test]
    fn two_cpus_of_one_node_contend_on_its_alien_lock() {
        let m = machine();
        let mut s = slab();
        let held: Vec<_> = (0..20).map(|t| s.alloc(Caller::new(&m, 0, t), 0).unwrap().0).collect();
        // CPUs 2 and 3 (both node 1) free them 1 ns apart: each waits for the other's hold.
        for (i, o) in held.into_iter().enumerate() {
            s.free(Caller::new(&m, 2 + (i % 2) as u16, 10_000 + i as u64), o);
        }
        assert!(s.totals(0).alien_lock_wait_ns > 0);
        assert!(s.alien_lock(0, 1, 0).unwrap().stats.contentions > 0);
        s.check_invariants().unwrap();
    }
}
