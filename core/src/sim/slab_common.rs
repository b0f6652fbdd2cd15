//! What SLAB ([`super::slab`]) and SLUB ([`super::slub`]) count the same way: per-CPU
//! counters of each cache summed over CPUs or over caches, and the objects a cache has
//! allocated now. The two allocators' mechanisms (arrays and alien caches, per-CPU slabs and
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
