//! What SLAB ([`super::slab`]) and SLUB ([`super::slub`]) count the same way: per-CPU
//! counters of each cache summed over CPUs or over caches, the objects a cache has
//! allocated now, the costs both take from the catalogue; and (in tests) the property test of random allocations and frees both
//! models pass. The two allocators' mechanisms (arrays and alien caches, per-CPU slabs and
//! partial lists) stay in their own modules; only this accounting is shared.

use super::catalogue::KernelCosts;
use super::machine::{CpuId, MachineProfile};
use serde::Serialize;

/// Who calls an allocator path, and when: the machine (its clock and line latencies), the CPU
/// the call runs on (the kernel's `smp_processor_id()`) and the simulated time the work starts.
/// Every path of SLAB and SLUB, and the page side under them, takes these three together.
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    pub m: &'a MachineProfile,
    pub cpu: CpuId,
    pub now_ns: u64,
}

impl<'a> Caller<'a> {
    pub fn new(m: &'a MachineProfile, cpu: CpuId, now_ns: u64) -> Caller<'a> {
        Caller { m, cpu, now_ns }
    }

    /// The same CPU on the same machine at `now_ns`.
    pub fn at(self, now_ns: u64) -> Caller<'a> {
        Caller { now_ns, ..self }
    }
}

/// The CPU-cycle costs SLAB and SLUB take alike from the catalogue (which has no SLAB figure:
/// SLAB's IRQ-off array pop or push costs SLUB's per-CPU fast path, its refill's, flush's or
/// alien free's own work SLUB's slow-path extra). Line transfers and lock waits come on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AllocatorCosts {
    /// The fast path: SLAB's `____cache_alloc` / `___cache_free` on the CPU's array (IRQ
    /// save/restore, one entry); SLUB's `slab_alloc` / `slab_free` (read kmem_cache_cpu,
    /// cmpxchg_double, tid).
    pub fast_cycles: u64,
    /// Extra work of a slow path: SLAB's refill, flush or alien free; SLUB's `___slab_alloc`
    /// / `__slab_free` (page counters, retry loop, frozen checks).
    pub slow_cycles: u64,
    /// Per object when a new slab is set up (SLAB's `cache_init_objs`, SLUB's
    /// `allocate_slab` / `shuffle`).
    pub init_object_cycles: u64,
    /// One page-allocator operation without lock (a PCP list add/del, page refcount).
    pub page_op_cycles: u64,
    /// Buddy work per block moved under zone->lock.
    pub buddy_cycles: u64,
}

impl AllocatorCosts {
    /// From a catalogue entry: the fast path `slub_fast_cycles`, the slow path's extra work
    /// on fetched lines `slub_slow_cycles`, a new slab's per-object setup half a fast path
    /// (ASSUMPTION: one store and the loop; no figure found), the page allocator's
    /// `pcp_op_cycles` and `buddy_step_cycles`.
    pub const fn from_catalogue(k: &KernelCosts) -> AllocatorCosts {
        AllocatorCosts {
            fast_cycles: k.slub_fast_cycles.int(),
            slow_cycles: k.slub_slow_cycles.int(),
            init_object_cycles: k.slub_fast_cycles.int() / 2,
            page_op_cycles: k.pcp_op_cycles.int(),
            buddy_cycles: k.buddy_step_cycles.int(),
        }
    }
}

/// The shared costs of the small allocators of SLAB's and SLUB's unit tests.
#[cfg(test)]
pub(crate) const TEST_COSTS: AllocatorCosts =
    AllocatorCosts { fast_cycles: 50, slow_cycles: 150, init_object_cycles: 20, page_op_cycles: 100, buddy_cycles: 30 };

/// Per-CPU counters of one cache that add field by field.
pub trait Counters: Copy + Default {
    /// Adds `o`'s counts to these.
    fn add(&mut self, o: &Self);
}

/// Declares a struct of `u64` counters (attributes and doc comments as written) and
/// implements [`Counters`] for it: `add` (also inherent, for callers without the trait)
/// sums every field.
macro_rules! counters {
    ($(#[$sm:meta])* pub struct $t:ident { $($(#[$fm:meta])* pub $f:ident: u64,)* }) => {
        $(#[$sm])*
        pub struct $t {
            $($(#[$fm])* pub $f: u64,)*
        }

        impl $t {
            /// Adds `o`'s counts to these.
            pub fn add(&mut self, o: &Self) {
                $(self.$f += o.$f;)*
            }
        }

        impl $crate::sim::slab_common::Counters for $t {
            fn add(&mut self, o: &Self) {
                $t::add(self, o)
            }
        }
    };
}
pub(crate) use counters;

/// `stats` (one entry per CPU) summed over CPUs.
pub fn totals<S: Counters>(stats: &[S]) -> S {
    let mut t = S::default();
    for s in stats {
        t.add(s);
    }
    t
}

/// Each cache's `stats` (one entry per CPU) summed over caches, for `n_cpus` CPUs.
pub fn per_cpu<'a, S: Counters + 'a>(n_cpus: usize, caches: impl Iterator<Item = &'a [S]>) -> Vec<S> {
    let mut out = vec![S::default(); n_cpus];
    for stats in caches {
        for (o, s) in out.iter_mut().zip(stats) {
            o.add(s);
        }
    }
    out
}

/// Objects allocated now in `cache`: over `slabs` (each its cache and its objects' states),
/// those in state `allocated`.
pub fn allocated<'a, T: PartialEq + 'a>(slabs: impl Iterator<Item = (u16, &'a [T])>, cache: u16, allocated: &T) -> u64 {
    slabs.filter(|&(c, _)| c == cache).map(|(_, state)| state.iter().filter(|&x| x == allocated).count() as u64).sum()
}

/// The property test SLAB and SLUB share: random allocations and frees on random CPUs.
#[cfg(test)]
pub(crate) mod random_ops {
    use super::Caller;
    use crate::sim::machine::{CpuId, MachineProfile};
    use crate::sim::slub::Obj;
    use proptest::prelude::*;

    /// What the test asks of an allocator.
    pub trait Allocator {
        /// Allocates an object of `cache` on `cpu` (the test's caches never run out of pages).
        fn alloc_obj(&mut self, m: &MachineProfile, cpu: CpuId, cache: u16, now_ns: u64) -> Obj;
        fn free_obj(&mut self, m: &MachineProfile, cpu: CpuId, obj: Obj, now_ns: u64);
        fn invariants(&self) -> Result<(), String>;
        fn allocated_in(&self, cache: u16) -> u64;
    }

    /// SLAB and SLUB have the same entry points under the same names.
    macro_rules! allocator {
        ($($t:ty),*) => {$(
            impl Allocator for $t {
                fn alloc_obj(&mut self, m: &MachineProfile, cpu: CpuId, cache: u16, now_ns: u64) -> Obj {
                    self.alloc(Caller::new(m, cpu, now_ns), cache).expect("the test's zones hold enough pages").0
                }
                fn free_obj(&mut self, m: &MachineProfile, cpu: CpuId, obj: Obj, now_ns: u64) {
                    self.free(Caller::new(m, cpu, now_ns), obj);
                }
                fn invariants(&self) -> Result<(), String> {
                    self.check_invariants()
                }
                fn allocated_in(&self, cache: u16) -> u64 {
                    self.allocated(cache)
                }
            }
        )*};
    }
    allocator!(crate::sim::slab::Slab, crate::sim::slub::Slub);

    #[derive(Debug, Clone)]
    pub enum Op {
        Alloc { cpu: CpuId, cache: u16 },
        Free { pick: usize, cpu: CpuId },
    }

    /// 1 to `len` operations on CPUs `0..cpus` and caches 0 and 1.
    pub fn ops(cpus: CpuId, len: usize) -> impl Strategy<Value = Vec<Op>> {
        let op = prop_oneof![
            (0..cpus, 0u16..2).prop_map(|(cpu, cache)| Op::Alloc { cpu, cache }),
            (any::<usize>(), 0..cpus).prop_map(|(pick, cpu)| Op::Free { pick, cpu }),
        ];
        prop::collection::vec(op, 1..len)
    }

    /// Runs `ops` on `a`: no object handed out twice, `on_alloc` true of each allocation,
    /// the invariants after every operation, `held` true of the objects held at the end; then
    /// frees them all on `last_cpu`: nothing stays allocated, the invariants hold.
    pub fn run<A: Allocator>(
        a: &mut A,
        m: &MachineProfile,
        ops: Vec<Op>,
        on_alloc: impl Fn(&A, CpuId, Obj) -> bool,
        held_ok: impl Fn(&A, &[Obj]) -> Result<(), TestCaseError>,
        last_cpu: CpuId,
    ) -> Result<(), TestCaseError> {
        let mut held: Vec<Obj> = Vec::new();
        for (t, o) in ops.into_iter().enumerate() {
            let now = t as u64 * 100;
            match o {
                Op::Alloc { cpu, cache } => {
                    let obj = a.alloc_obj(m, cpu, cache, now);
                    prop_assert!(!held.contains(&obj), "object handed out twice");
                    prop_assert!(on_alloc(a, cpu, obj), "{obj:?} allocated on cpu {cpu}");
                    held.push(obj);
                }
                Op::Free { pick, cpu } if !held.is_empty() => {
                    let obj = held.swap_remove(pick % held.len());
                    a.free_obj(m, cpu, obj, now);
                }
                Op::Free { .. } => {}
            }
            prop_assert_eq!(a.invariants(), Ok(()));
        }
        held_ok(a, &held)?;
        for obj in held.drain(..) {
            a.free_obj(m, last_cpu, obj, 1 << 30);
        }
        prop_assert_eq!(a.invariants(), Ok(()));
        prop_assert_eq!(a.allocated_in(0) + a.allocated_in(1), 0);
        Ok(())
    }
}
