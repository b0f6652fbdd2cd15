//! The socket-memory world's invariants after every event (`make fuzz-sim`): the counter's
//! own checker (`check`: per-CPU parts, true sum, forward alloc, `fbc->lock`), the counting
//! error within [`WorldConfig::error_bound_pages`](super::WorldConfig::error_bound_pages), and
//! every waiter on the fold lock with a fold or sum pending (the holder with its fold applied).

use super::World;

impl World {
    /// What [`crate::sim::world::World::check`] checks for this world.
    pub(super) fn invariants(&self) -> Result<(), String> {
        self.check_invariants()?;
        let bound = self.cfg.error_bound_pages();
        if self.stats.max_error_pages > bound || self.sum_local_pages.abs() > bound {
            return Err(format!(
                "error {} (max {}) pages beyond the bound {bound}",
                self.sum_local_pages, self.stats.max_error_pages
            ));
        }
        // A waiter's fold is pending; the holder's was applied when it was granted the lock.
        for w in self.lock.waiters() {
            if self.pending.get(w.thread as usize).is_none_or(Option::is_none) {
                return Err(format!("cpu {} waits on fbc->lock without a fold pending", w.thread));
            }
        }
        // The holder's own fold was applied when it was granted the lock; what it may have
        // pending is the sum that follows a charge's fold (no delta: it takes the lock again
        // after this hold's release).
        if let Some(h) = self.lock.holder() {
            if self.pending.get(h.thread as usize).is_some_and(|p| p.is_some_and(|p| !p.sum || p.delta != 0)) {
                return Err(format!("cpu {} holds fbc->lock with its fold still pending", h.thread));
            }
        }
        if let Some(c) = (0..self.deferred.len()).find(|&c| !self.deferred[c].is_empty() && self.pending[c].is_none()) {
            return Err(format!("cpu {c} defers events but has no fold pending"));
        }
        // Each acquisition (a fold or a sum) queues at most once.
        if self.stats.lock_contentions > self.stats.folds + self.stats.sums + self.cfg.nr_cpus() as u64 {
            return Err(format!(
                "{} contentions but {} folds and {} sums",
                self.stats.lock_contentions, self.stats.folds, self.stats.sums
            ));
        }
        Ok(())
    }
}
