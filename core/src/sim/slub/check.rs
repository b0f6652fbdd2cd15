//! [`Slub::check_invariants`]: the checker of the SLUB model, kept apart from the model (as
//! TigerBeetle keeps its invariant checkers apart): every object on exactly one freelist or
//! allocated, per-slab counts, partial-list membership and frozen slabs, the CPUs' slabs,
//! `list_lock`'s queue and the slab pages' conservation in the zone. Its property test
//! drives random allocations and frees through the paths and checks after every step.

use super::{KmemCache, ObjState, Slab, Slub};
use crate::sim::machine::CpuId;

impl Slub {
    /// Every object is on exactly one freelist (its page's or its frozen CPU's) or allocated;
    /// every CPU freelist holds only objects of its active slab; `inuse` and the partial list
    /// agree with the objects; frozen slabs are some CPU's active slab or on its partial list
    /// (3.2+), never on the node's.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (ci, c) in self.caches.iter().enumerate() {
            let mut slabs = 0;
            for (sid, s) in self.slabs.iter().enumerate() {
                let Some(s) = s else { continue };
                if s.cache as usize != ci {
                    continue;
                }
                slabs += 1;
                check_slab(c, sid, s)?;
            }
            if slabs != c.nr_slabs {
                return Err(format!("{}: {slabs} slabs but nr_slabs {}", c.name, c.nr_slabs));
            }
            for (cpu, cs) in c.cpu.iter().enumerate() {
                if cs.slab.is_none() && !cs.freelist.is_empty() {
                    return Err(format!("{}: cpu {cpu} has a freelist but no slab", c.name));
                }
                check_cpu_slabs(self, c, cpu, cs)?;
            }
            // list_lock is taken through a SerialLock: nobody is ever left queued on it.
            c.list_lock.check_invariants()?;
            if c.list_lock.queue_len() != 0 {
                return Err(format!("{}: {} waiters left on list_lock", c.name, c.list_lock.queue_len()));
            }
        }
        self.check_pages()?;
        self.zone.check_invariants()
    }

    /// Object conservation against what a world holds: every object of `held` is allocated
    /// (on a live slab of its cache) and held once; with `all`, the world holds every
    /// allocated object (pass `all = false` when some sit where the world cannot list them,
    /// e.g. inside pending events). Sorts `held`.
    pub fn check_held(&self, held: &mut [super::Obj], all: bool) -> Result<(), String> {
        let allocated = |o: &super::Obj| {
            let live = self.slabs.get(o.slab as usize).and_then(Option::as_ref);
            live.is_some_and(|s| s.cache == o.cache && s.state.get(o.idx as usize) == Some(&ObjState::Allocated))
        };
        let names: Vec<&str> = self.caches.iter().map(|c| c.name).collect();
        check_held_objects(held, all, allocated, &names, |c| self.allocated(c))
    }

    /// Slab pages are conserved: every slab's first page is referenced in the zone, no two
    /// slabs share one, free slots are empty, and the slabs' pages fit in the zone's in-use
    /// pages (which may also hold the world's other pages).
    fn check_pages(&self) -> Result<(), String> {
        let mut pages = 0u64;
        let mut pfns: Vec<u32> = Vec::new();
        for (sid, s) in self.slabs.iter().enumerate() {
            let Some(s) = s else { continue };
            let c = &self.caches[s.cache as usize];
            if s.objects() != c.objects_per_slab {
                return Err(format!("{}: slab {sid} has {} objects, not {}", c.name, s.objects(), c.objects_per_slab));
            }
            if self.zone.page_ref(s.pfn) == 0 {
                return Err(format!("{}: slab {sid}'s page {} is free in the zone", c.name, s.pfn));
            }
            pfns.push(s.pfn);
            pages += 1 << c.order;
        }
        pfns.sort_unstable();
        if let Some(w) = pfns.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("two slabs on page {}", w[0]));
        }
        if let Some(&f) = self.free_slots.iter().find(|&&f| self.slabs.get(f as usize).is_none_or(Option::is_some)) {
            return Err(format!("free slab slot {f} is in use or out of range"));
        }
        if pages > self.zone.in_use_pages {
            return Err(format!("{pages} slab pages but the zone has {} in use", self.zone.in_use_pages));
        }
        Ok(())
    }
}

/// What `check_held` checks, for either slab allocator (`Slub`, `sim::slab`): no object of
/// `held` twice, each one `allocated`, and with `all` as many held per cache (named `names`)
/// as `count` says are allocated. Sorts `held`.
pub(crate) fn check_held_objects(
    held: &mut [super::Obj],
    all: bool,
    allocated: impl Fn(&super::Obj) -> bool,
    names: &[&str],
    count: impl Fn(u16) -> u64,
) -> Result<(), String> {
    held.sort_unstable();
    if let Some(w) = held.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("object {:?} held twice", w[0]));
    }
    if let Some(o) = held.iter().find(|o| !allocated(o)) {
        return Err(format!("held object {o:?} is not allocated"));
    }
    if all {
        for (cache, name) in names.iter().enumerate() {
            let n = held.iter().filter(|o| usize::from(o.cache) == cache).count() as u64;
            let want = count(cache as u16);
            if n != want {
                return Err(format!("{name}: {want} allocated but {n} held"));
            }
        }
    }
    Ok(())
}

/// CPU `cpu`'s active slab and its partial slabs (3.2+) exist, belong to cache `c` and are
/// frozen to `cpu`; its freelist holds no object twice.
fn check_cpu_slabs(slub: &Slub, c: &KmemCache, cpu: usize, cs: &super::CpuSlab) -> Result<(), String> {
    let ids = cs.slab.into_iter().chain(cs.partial.iter().map(|&(p, _)| p));
    for id in ids {
        let Some(Some(s)) = slub.slabs.get(id as usize) else {
            return Err(format!("{}: cpu {cpu} holds slab {id}, which does not exist", c.name));
        };
        if !std::ptr::eq(&slub.caches[s.cache as usize], c) || s.frozen != Some(cpu as CpuId) {
            return Err(format!("{}: cpu {cpu} holds slab {id} of another cache or not frozen to it", c.name));
        }
    }
    let mut f = cs.freelist.clone();
    f.sort_unstable();
    if let Some(w) = f.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("{}: cpu {cpu}'s freelist holds object {} twice", c.name, w[0]));
    }
    Ok(())
}

/// Slab `sid` of cache `c`: its page freelist holds only page-free objects, it is frozen to a
/// CPU (that CPU's active slab, on no list) or listed on the partial list as `on_partial`
/// says, and every object not allocated is on exactly one freelist.
fn check_slab(c: &KmemCache, sid: usize, s: &Slab) -> Result<(), String> {
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
        Some(cpu) => check_frozen(c, sid, s, cpu, &mut seen)?,
        None => check_unfrozen(c, sid, s)?,
    }
    for (i, (&n, st)) in seen.iter().zip(&s.state).enumerate() {
        let want = u8::from(*st != ObjState::Allocated);
        if n != want {
            return Err(format!("{}: slab {sid} object {i} is {st:?} but on {n} freelists", c.name));
        }
    }
    Ok(())
}

/// Slab `sid` frozen to `cpu`: that CPU's active slab, not on the partial list, and the CPU's
/// freelist holds only CPU-free objects (counted into `seen`).
fn check_frozen(c: &KmemCache, sid: usize, s: &Slab, cpu: CpuId, seen: &mut [u8]) -> Result<(), String> {
    let cs = &c.cpu[cpu as usize];
    if s.on_partial {
        return Err(format!("{}: frozen slab {sid} on the partial list", c.name));
    }
    let on_cpu_partial = cs.partial.iter().filter(|&&(p, _)| p as usize == sid).count();
    if cs.slab != Some(sid as u32) {
        // 3.2+: a frozen slab that is not the active one is on the CPU's partial list once,
        // with its free objects on the page freelist.
        if on_cpu_partial != 1 || s.freelist.is_empty() {
            return Err(format!(
                "{}: slab {sid} frozen to cpu {cpu}: not active, on its partial list {on_cpu_partial} times",
                c.name
            ));
        }
        return Ok(());
    }
    if on_cpu_partial != 0 {
        return Err(format!("{}: cpu {cpu}'s active slab {sid} also on its partial list", c.name));
    }
    for &i in &cs.freelist {
        seen[i as usize] += 1;
        if s.state[i as usize] != ObjState::CpuFree {
            return Err(format!("{}: cpu {cpu} freelist holds object {i} that is {:?}", c.name, s.state[i as usize]));
        }
    }
    Ok(())
}

/// Slab `sid` frozen to no CPU: no object on a CPU freelist, listed on the partial list once
/// if `on_partial` (and then not full), else not at all.
fn check_unfrozen(c: &KmemCache, sid: usize, s: &Slab) -> Result<(), String> {
    if s.state.contains(&ObjState::CpuFree) {
        return Err(format!("{}: unfrozen slab {sid} has objects on a CPU freelist", c.name));
    }
    let listed = c.partial.iter().filter(|&&p| p as usize == sid).count();
    if listed != usize::from(s.on_partial) {
        return Err(format!("{}: slab {sid} on_partial {} but listed {listed} times", c.name, s.on_partial));
    }
    if s.on_partial && s.freelist.is_empty() {
        return Err(format!("{}: full slab {sid} on the partial list", c.name));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::slub;
    use super::super::{Obj, Slub};
    use crate::sim::machine::SERVER_2019;
    use crate::sim::slab_common::random_ops;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any sequence of allocations and frees on any CPUs keeps every object free or
        /// allocated exactly once, and the allocated count equals what the caller holds;
        /// freeing all on one CPU leaves nothing allocated.
        #[test]
        fn every_object_free_or_allocated_once(ops in random_ops::ops(3, 400), cpu_partial in any::<bool>()) {
            let mut s = slub(3);
            if cpu_partial {
                s.enable_cpu_partial();
            }
            let held = |s: &Slub, h: &[Obj]| {
                for cache in 0..2u16 {
                    prop_assert_eq!(s.allocated(cache), h.iter().filter(|o| o.cache == cache).count() as u64);
                }
                Ok(())
            };
            random_ops::run(&mut s, &SERVER_2019, ops, |_, _, _| true, held, 2)?;
        }
    }
}
