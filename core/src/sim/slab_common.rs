//! What SLAB ([`super::slab`]) and SLUB ([`super::slub`]) count the same way: per-CPU
//! counters of each cache summed over CPUs or over caches, and the objects a cache has
//! allocated now; and (in tests) the property test of random allocations and frees both
//! models pass. The two allocators' mechanisms (arrays and alien caches, per-CPU slabs and
//! partial lists) stay in their own modules; only this accounting is shared.

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
                    self.alloc(m, cpu, cache, now_ns).expect("the test's zones hold enough pages").0
                }
                fn free_obj(&mut self, m: &MachineProfile, cpu: CpuId, obj: Obj, now_ns: u64) {
                    self.free(m, cpu, obj, now_ns);
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
