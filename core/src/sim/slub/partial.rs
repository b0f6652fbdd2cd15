//! Per-CPU partial slabs (CONFIG_SLUB_CPU_PARTIAL, 3.2+, as in 5.x mm/slub.c): the slabs a
//! CPU keeps beside its active one, so that most slab moves need no `list_lock`.
//!
//! What Linux does: a free to a *full* slab (on no list) freezes it to the freeing CPU and
//! puts it on that CPU's partial list (`put_cpu_partial`, `CPU_PARTIAL_FREE`); the list's
//! head remembers how many free objects the list had when each slab was added (`pobjects`);
//! once that exceeds `s->cpu_partial`, the whole list is drained to the node's partial list
//! under `list_lock` (`unfreeze_partials`, `CPU_PARTIAL_DRAIN`): a `cmpxchg_double` on every
//! slab's `struct page` line — lines the CPUs that freed into those slabs own — with the lock
//! held; empty slabs beyond `min_partial` are discarded after it. A CPU whose active slab runs
//! dry takes the head of its partial list without a lock (`CPU_PARTIAL_ALLOC`), and only then
//! `get_partial_node`: under `list_lock`, one slab becomes active and more go to the CPU's
//! partial list until more than `s->cpu_partial / 2` objects are available, each
//! `acquire_slab` another cmpxchg on a page line inside the lock.
//!
//! What we simplify: the drain takes the node's lock once (one node per `Slub`); `pobjects`
//! is the count at the add, as the kernel keeps it (it goes stale as remote frees land).

use super::{slab_in, Caller, OpCost, Slub};
use crate::sim::machine::{CpuId, PAGE_SIZE};

/// `s->cpu_partial` as 5.x `set_cpu_partial()` sizes it: 2 objects for caches of a page or
/// more, 6 from 1 KiB, 13 from 256 bytes, 30 below.
pub fn cpu_partial_objects(size: u32) -> u32 {
    match size {
        s if s >= PAGE_SIZE => 2,
        s if s >= 1024 => 6,
        s if s >= 256 => 13,
        _ => 30,
    }
}

impl Slub {
    /// Turns per-CPU partial slabs on for every cache (the model of 3.2+ kernels built with
    /// CONFIG_SLUB_CPU_PARTIAL, the distribution default). Call before the first allocation.
    pub fn enable_cpu_partial(&mut self) {
        for c in &mut self.caches {
            c.cpu_partial = cpu_partial_objects(c.size);
        }
    }

    /// Slabs on `cpu`'s partial list of `cache` now.
    pub fn cpu_partial_slabs(&self, cache: u16, cpu: CpuId) -> usize {
        self.caches[cache as usize].cpu[cpu as usize].partial.len()
    }

    /// `list_lock` of `cache` taken by the caller and held over `line_ns` of page-line
    /// transfers and `cycles` of work: the wait, the work and the lines, as one cost.
    pub(super) fn list_lock_over(&mut self, at: Caller<'_>, cache: u16, work: (u64, u64)) -> OpCost {
        let Caller { m, cpu, now_ns } = at;
        let (line_ns, cycles) = work;
        let c = &mut self.caches[cache as usize];
        let hold_ns = line_ns + Self::ns(cycles, m.turbo_max_mhz);
        let (wait, _) = c.list_timing.hold(&mut c.list_lock, m, cpu, now_ns, hold_ns);
        let s = &mut c.stats[cpu as usize];
        s.list_lock += 1;
        s.list_lock_wait_ns += wait;
        OpCost { cycles, line_ns, spin_ns: wait }
    }

    /// `put_cpu_partial(s, page, 1)`: slab `sid`, just frozen to `cpu` by a free to a full
    /// slab, goes at the head of `cpu`'s partial list, after draining the list if it already
    /// counts more than `s->cpu_partial` objects.
    pub(super) fn put_cpu_partial(&mut self, at: Caller<'_>, cache: u16, sid: u32) -> OpCost {
        let (ci, cpu) = (cache as usize, at.cpu);
        let mut cost = OpCost::default();
        let pobjects = self.caches[ci].cpu[cpu as usize].partial.last().map_or(0, |&(_, n)| n);
        let peers = self.caches[ci].peer_pobjects[cpu as usize];
        let pobjects = if pobjects + peers > self.caches[ci].cpu_partial {
            cost.add(self.unfreeze_partials(at, cache));
            self.caches[ci].stats[cpu as usize].cpu_partial_drain += 1;
            0
        } else {
            pobjects
        };
        let slab = slab_in(&mut self.slabs, sid);
        slab.frozen = Some(cpu);
        let free = slab.objects() - slab.inuse();
        self.caches[ci].cpu[cpu as usize].partial.push((sid, pobjects + free));
        self.caches[ci].stats[cpu as usize].cpu_partial_free += 1;
        cost
    }

    /// `pobjects` at the head of `cpu`'s partial list of `cache` on this node (0: empty).
    pub fn cpu_partial_pobjects(&self, cache: u16, cpu: CpuId) -> u32 {
        self.caches[cache as usize].cpu[cpu as usize].partial.last().map_or(0, |&(_, n)| n)
    }

    /// What `cpu`'s partial lists of `cache` on other nodes count (see `peer_pobjects`).
    pub fn set_peer_pobjects(&mut self, cache: u16, cpu: CpuId, pobjects: u32) {
        self.caches[cache as usize].peer_pobjects[cpu as usize] = pobjects;
    }

    /// `cpu`'s drains of `cache` on this node so far (`CPU_PARTIAL_DRAIN`).
    pub fn cpu_partial_drains(&self, cache: u16, cpu: CpuId) -> u64 {
        self.caches[cache as usize].stats[cpu as usize].cpu_partial_drain
    }

    /// The part on this node of a drain of `cpu`'s one partial list over several nodes, which
    /// another node's `put_cpu_partial` started: `unfreeze_partials` moves these slabs to this
    /// node's list under its `list_lock` (the kernel takes each node's lock in turn). Nothing
    /// when the list here is empty.
    pub fn drain_cpu_partial(&mut self, at: Caller<'_>, cache: u16) -> OpCost {
        if self.caches[cache as usize].cpu[at.cpu as usize].partial.is_empty() {
            return OpCost::default();
        }
        self.unfreeze_partials(at, cache)
    }

    /// `unfreeze_partials()`: every slab of `cpu`'s partial list is unfrozen (a cmpxchg on its
    /// page line) and added to the node's partial list under `list_lock`; empty ones beyond
    /// `min_partial` go back to the page allocator after the lock is dropped.
    fn unfreeze_partials(&mut self, at: Caller<'_>, cache: u16) -> OpCost {
        let Caller { m, cpu, now_ns } = at;
        let ci = cache as usize;
        let k = self.costs;
        let list = std::mem::take(&mut self.caches[ci].cpu[cpu as usize].partial);
        let (mut line_ns, mut cycles) = (0, k.list_cycles);
        let mut discard = Vec::new();
        for (sid, _) in list {
            let slab = slab_in(&mut self.slabs, sid);
            line_ns += slab.line.touch(m, &self.cpu_caches, cpu);
            cycles += k.shared.slow_cycles;
            slab.frozen = None;
            let empty = slab.inuse() == 0;
            let c = &mut self.caches[ci];
            if empty && c.partial.len() >= c.min_partial {
                discard.push(sid);
            } else {
                c.partial.push_back(sid);
                slab_in(&mut self.slabs, sid).on_partial = true;
            }
        }
        let mut cost = self.list_lock_over(at, cache, (line_ns, cycles));
        for sid in discard {
            self.caches[ci].stats[cpu as usize].free_slab += 1;
            let after = now_ns + cost.spin_ns + cost.line_ns;
            cost.add(self.discard(at.at(after), sid));
        }
        cost
    }

    /// `CPU_PARTIAL_ALLOC`: the head of `cpu`'s partial list becomes its active slab (no
    /// lock; `get_freelist` is a cmpxchg on the page line). False if the list is empty.
    pub(super) fn take_cpu_partial(&mut self, at: Caller<'_>, cache: u16, cost: &mut OpCost) -> bool {
        let (Caller { m, cpu, .. }, ci) = (at, cache as usize);
        let Some((sid, _)) = self.caches[ci].cpu[cpu as usize].partial.pop() else { return false };
        let slab = slab_in(&mut self.slabs, sid);
        cost.line_ns += slab.line.touch(m, &self.cpu_caches, cpu);
        self.freeze(cpu, cache, sid);
        self.caches[ci].stats[cpu as usize].cpu_partial_alloc += 1;
        true
    }

    /// `get_partial_node()` with per-CPU partials: under `list_lock`, the node's first partial
    /// slab becomes `cpu`'s active slab and more go to its partial list until more than
    /// `s->cpu_partial / 2` objects are available; every `acquire_slab` is a cmpxchg on a
    /// page line inside the lock. False if the node has no partial slab.
    pub(super) fn get_partial_node(&mut self, at: Caller<'_>, cache: u16, cost: &mut OpCost) -> bool {
        let (Caller { m, cpu, .. }, ci) = (at, cache as usize);
        if self.caches[ci].partial.is_empty() {
            return false;
        }
        let k = self.costs;
        let (mut line_ns, mut cycles) = (0, k.list_cycles);
        let (mut first, mut available) = (None, 0);
        while let Some(sid) = self.caches[ci].partial.pop_front() {
            let slab = slab_in(&mut self.slabs, sid);
            slab.on_partial = false;
            line_ns += slab.line.touch(m, &self.cpu_caches, cpu);
            cycles += k.shared.slow_cycles;
            let free = slab.objects() - slab.inuse();
            available += free;
            if first.is_none() {
                first = Some(sid);
            } else {
                slab.frozen = Some(cpu);
                let c = &mut self.caches[ci].cpu[cpu as usize];
                let before = c.partial.last().map_or(0, |&(_, n)| n);
                c.partial.push((sid, before + free));
            }
            if available > self.caches[ci].cpu_partial / 2 {
                break;
            }
        }
        cost.add(self.list_lock_over(at, cache, (line_ns, cycles)));
        self.freeze(cpu, cache, first.expect("checked non-empty"));
        self.caches[ci].stats[cpu as usize].alloc_from_partial += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::slub;
    use super::super::{AllocPath, Caller, FreePath};
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn a_remote_free_to_a_full_slab_goes_to_the_freeing_cpus_partial_list() {
        let m = SERVER_2019;
        let mut s = slub(2);
        s.enable_cpu_partial();
        let per = s.caches[0].objects_per_slab as usize;
        // CPU 0 fills one slab and starts another: the first is full and on no list.
        let objs: Vec<_> = (0..=per).map(|i| s.alloc(Caller::new(&m, 0, i as u64), 0).unwrap().0).collect();
        let f = s.free(Caller::new(&m, 1, 1000), objs[0]);
        assert_eq!(f.path, FreePath::CpuPartial);
        assert_eq!(s.cpu_partial_slabs(0, 1), 1);
        // Another remote free to it is a frozen free; CPU 1's first allocation takes the slab
        // from its partial list, without list_lock.
        assert_eq!(s.free(Caller::new(&m, 0, 1010), objs[1]).path, FreePath::Frozen);
        s.check_invariants().unwrap();
        let (_, d) = s.alloc(Caller::new(&m, 1, 1020), 0).unwrap();
        assert_eq!(d.path, AllocPath::Partial);
        assert_eq!(s.totals(0).list_lock, 0);
        assert_eq!(s.totals(0).cpu_partial_alloc, 1);
        s.check_invariants().unwrap();
    }
}
