//! Independent simulations side by side: the one map every multi-run report goes through.
//!
//! Seeds of a mean, points of a sweep, starts of a multi-start fit, rows of a sensitivity table
//! and samples of a band do not depend on each other. [`par_map`] runs `f` over them and
//! returns the results **in input order**, so whatever is computed from them afterwards (a
//! mean, a min/max, the best start) is the same sum in the same order, bit for bit, on one
//! thread or many. Nothing is reduced in parallel: floating-point addition is not associative.
//!
//! With the feature `parallel` (the CLI turns it on; rayon is a native-only dependency) the
//! items run on rayon's pool, sized by the caller: `skblab --jobs N` builds it, else rayon uses
//! the available parallelism. Without it (the web app's wasm, plain `cargo test`) the map is a
//! loop on the calling thread: the browser spreads work over its own pool of workers.

/// `f` over `items`, results in the order of `items` (in parallel with feature `parallel`).
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        // One item per task: the items are few and long (whole runs) and uneven.
        items.par_iter().with_max_len(1).map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// How many simulations [`par_map`] runs at once (1 without feature `parallel`).
pub fn jobs() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order() {
        let items: Vec<u64> = (0..100).collect();
        let out = par_map(&items, |&i| {
            // Uneven work, so a parallel run finishes items out of order.
            (0..(100 - i) * 1000).fold(i, |a, k| a.wrapping_mul(31).wrapping_add(k))
        });
        let expected: Vec<u64> =
            items.iter().map(|&i| (0..(100 - i) * 1000).fold(i, |a, k| a.wrapping_mul(31).wrapping_add(k))).collect();
        assert_eq!(out, expected);
        assert!(jobs() >= 1);
    }
}
