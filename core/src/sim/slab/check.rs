//! [`Slab::check_invariants`]: the checker of the SLAB model, kept apart from the model:
//! every object free in its slab, in exactly one array, or allocated; each slab's `active`,
//! freelist and list agree; each node's counters (`total_slabs`, `free_slabs`,
//! `free_objects`) agree with its slabs; arrays within their limits and holding only their
//! node's objects (a CPU's and a shared array their own node's, an alien cache its target
//! node's); no waiter left on a lock; slab pages referenced in their node's zone. Its
//! property test drives random allocations and frees on CPUs of both nodes.

use super::array::ArrayCache;
use super::{KmemCache, ObjState, Slab, SlabList, SlabPage};
use crate::sim::slub::{check_held_objects, Obj};

impl Slab {
    /// See the module doc.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen: Vec<Vec<u8>> =
            self.slabs.iter().map(|s| s.as_ref().map_or(Vec::new(), |s| vec![0; s.state.len()])).collect();
        for (ci, c) in self.caches.iter().enumerate() {
            for (cpu, ac) in c.cpu.iter().enumerate() {
                let node = usize::from(self.cpu_node[cpu]);
                self.check_array(c, ci, ac, node, &format!("cpu {cpu}'s array"), &mut seen)?;
            }
            for (node, n) in c.nodes.iter().enumerate() {
                if let Some(sh) = &n.shared {
                    self.check_array(c, ci, sh, node, &format!("node {node}'s shared array"), &mut seen)?;
                }
                for (of, a) in n.alien.iter().enumerate() {
                    let Some(a) = a else { continue };
                    self.check_array(c, ci, &a.ac, of, &format!("node {node}'s alien cache for {of}"), &mut seen)?;
                    a.lock.check_invariants()?;
                    if a.lock.queue_len() != 0 {
                        return Err(format!("{}: waiters left on node {node}'s alien lock", c.name));
                    }
                }
                self.check_node(c, ci, node)?;
            }
        }
        for (sid, s) in self.slabs.iter().enumerate() {
            let Some(s) = s else { continue };
            check_slab(&self.caches[s.cache as usize], sid, s, &seen[sid])?;
        }
        self.check_pages()?;
        self.zones.iter().try_for_each(|z| z.check_invariants())
    }

    /// Array `ac` (named `what`) of cache `c` holds at most `limit` objects, all cached
    /// objects of `c` on `node`; each is counted into `seen`.
    fn check_array(
        &self,
        c: &KmemCache,
        ci: usize,
        ac: &ArrayCache,
        node: usize,
        what: &str,
        seen: &mut [Vec<u8>],
    ) -> Result<(), String> {
        if ac.avail() > ac.limit {
            return Err(format!("{}: {what} holds {} over its limit {}", c.name, ac.avail(), ac.limit));
        }
        for o in &ac.entry {
            let Some(Some(s)) = self.slabs.get(o.slab as usize) else {
                return Err(format!("{}: {what} holds {o:?} of a freed slab", c.name));
            };
            let ok = usize::from(o.cache) == ci
                && s.cache == o.cache
                && usize::from(s.node) == node
                && s.state.get(o.idx as usize) == Some(&ObjState::Cached);
            if !ok {
                return Err(format!("{}: {what} holds {o:?}, not a cached object of node {node}", c.name));
            }
            seen[o.slab as usize][o.idx as usize] += 1;
        }
        Ok(())
    }

    /// Node `node` of cache `c`: its lists hold its own slabs once each, and its counters
    /// agree with them; nobody is left queued on its `list_lock`.
    fn check_node(&self, c: &KmemCache, ci: usize, node: usize) -> Result<(), String> {
        let n = &c.nodes[node];
        let mine = || self.slabs.iter().flatten().filter(|s| usize::from(s.cache) == ci && usize::from(s.node) == node);
        let (mut total, mut free_objects, mut on) = (0u32, 0u32, [0usize; 3]);
        for s in mine() {
            total += 1;
            free_objects += s.objects() - s.active;
            match s.list {
                SlabList::Full => on[0] += 1,
                SlabList::Partial => on[1] += 1,
                SlabList::Free => on[2] += 1,
                SlabList::Off => return Err(format!("{}: node {node} has a slab on no list", c.name)),
            }
        }
        let listed = |q: &std::collections::VecDeque<u32>, want: SlabList| {
            let mut ids: Vec<u32> = q.iter().copied().collect();
            ids.sort_unstable();
            ids.dedup();
            ids.len() == q.len() && q.iter().all(|&id| self.slabs[id as usize].as_ref().is_some_and(|s| s.list == want))
        };
        let ok = total == n.total_slabs
            && free_objects == n.free_objects
            && on[1] == n.slabs_partial.len()
            && on[2] == n.slabs_free.len()
            && n.free_slabs as usize == n.slabs_free.len()
            && listed(&n.slabs_partial, SlabList::Partial)
            && listed(&n.slabs_free, SlabList::Free);
        if !ok {
            return Err(format!(
                "{}: node {node}: {total} slabs ({on:?} full/partial/free), {free_objects} free objects; \
                 counters {} slabs, {} free slabs, {} free objects, lists {}/{}",
                c.name,
                n.total_slabs,
                n.free_slabs,
                n.free_objects,
                n.slabs_partial.len(),
                n.slabs_free.len()
            ));
        }
        n.list_lock.check_invariants()?;
        if n.list_lock.queue_len() != 0 {
            return Err(format!("{}: waiters left on node {node}'s list_lock", c.name));
        }
        Ok(())
    }

    /// Slab pages are conserved: every slab's first page is referenced in its node's zone,
    /// no two slabs share one, free slots are empty.
    fn check_pages(&self) -> Result<(), String> {
        let mut pfns: Vec<(u16, u32)> = Vec::new();
        for s in self.slabs.iter().flatten() {
            if self.zones[usize::from(s.node)].page_ref(s.pfn) == 0 {
                return Err(format!("slab on node {} page {} is free in the zone", s.node, s.pfn));
            }
            pfns.push((s.node, s.pfn));
        }
        pfns.sort_unstable();
        if let Some(w) = pfns.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("two slabs on node {} page {}", w[0].0, w[0].1));
        }
        if let Some(&f) = self.free_slots.iter().find(|&&f| self.slabs.get(f as usize).is_none_or(Option::is_some)) {
            return Err(format!("free slab slot {f} is in use or out of range"));
        }
        Ok(())
    }

    /// Object conservation against what a world holds: every object of `held` is allocated
    /// and held once; with `all`, the world holds every allocated object. Sorts `held`.
    pub fn check_held(&self, held: &mut [Obj], all: bool) -> Result<(), String> {
        let allocated = |o: &Obj| {
            let live = self.slabs.get(o.slab as usize).and_then(Option::as_ref);
            live.is_some_and(|s| s.cache == o.cache && s.state.get(o.idx as usize) == Some(&ObjState::Allocated))
        };
        let names: Vec<&str> = self.caches.iter().map(|c| c.name).collect();
        check_held_objects(held, all, allocated, &names, |c| self.allocated(c))
    }
}

/// Slab `sid` of cache `c`: its freelist is a permutation of its objects whose tail from
/// `active` holds exactly the slab-free ones; every cached object is in one array (`seen`),
/// no other object in any; its list matches `active`.
fn check_slab(c: &KmemCache, sid: usize, s: &SlabPage, seen: &[u8]) -> Result<(), String> {
    if s.objects() != c.objects_per_slab {
        return Err(format!("{}: slab {sid} has {} objects, not {}", c.name, s.objects(), c.objects_per_slab));
    }
    // `slab_put_obj` writes the freed index at `freelist[--active]`: the entries below
    // `active` are stale (objects need not come back in the order they left), the tail from
    // `active` holds each slab-free object exactly once.
    if s.freelist.len() != s.state.len() || s.active > s.objects() {
        return Err(format!("{}: slab {sid}'s freelist has {} entries, active {}", c.name, s.freelist.len(), s.active));
    }
    let mut tail = s.freelist[s.active as usize..].to_vec();
    tail.sort_unstable();
    let distinct = tail.windows(2).all(|w| w[0] != w[1]);
    if let Some(&idx) = tail.iter().find(|&&i| s.state.get(usize::from(i)) != Some(&ObjState::SlabFree)) {
        return Err(format!(
            "{}: slab {sid}'s free tail (from active {}) holds object {idx}, not slab-free",
            c.name, s.active
        ));
    }
    let free = s.state.iter().filter(|&&st| st == ObjState::SlabFree).count();
    if !distinct || free != tail.len() {
        return Err(format!(
            "{}: slab {sid} has {free} slab-free objects, its free tail {} (repeats: {})",
            c.name,
            tail.len(),
            !distinct
        ));
    }
    for (i, (&st, &n)) in s.state.iter().zip(seen).enumerate() {
        if n != u8::from(st == ObjState::Cached) {
            return Err(format!("{}: slab {sid} object {i} is {st:?} but in {n} arrays", c.name));
        }
    }
    let want = match s.active {
        0 => SlabList::Free,
        a if a == s.objects() => SlabList::Full,
        _ => SlabList::Partial,
    };
    if s.list != want {
        return Err(format!("{}: slab {sid} with {} of {} out is on {:?}", c.name, s.active, s.objects(), s.list));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::{machine, slab};
    use super::super::Slab;
    use crate::sim::slab_common::random_ops;
    use crate::sim::slub::Obj;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any sequence of allocations and frees on CPUs of both nodes (CPUs 0, 1 on node 0;
        /// 2, 3 on node 1) keeps every object free, cached once or allocated, each allocated
        /// on its CPU's node, and the allocated objects what the caller holds; freeing all on
        /// node 1's CPU 3 leaves nothing allocated.
        #[test]
        fn every_object_free_cached_once_or_allocated(ops in random_ops::ops(4, 600)) {
            let on_node = |s: &Slab, cpu, obj| s.node_of(obj) == s.node_of_cpu(cpu);
            let held = |s: &Slab, h: &[Obj]| {
                prop_assert_eq!(s.check_held(&mut h.to_vec(), true), Ok(()));
                Ok(())
            };
            random_ops::run(&mut slab(), &machine(), ops, on_node, held, 3)?;
        }
    }
}
