//! The socket-memory world's invariants after every event (`make fuzz-sim`, issue #27): the
//! counter's own checker (`check`: per-CPU parts, true sum, forward alloc, `fbc->lock`), the
//! counting error within [`WorldConfig::error_bound_pages`], and every waiter on the fold
//! lock with a fold pending (the holder with its fold applied); and [`check_point`], the worlds `run_point` runs.

use super::super::{config_on, ramp_config, Counter, Input, COSTS_2018, DUAL_XEON_2018};
use super::{World, WorldConfig};
use crate::experiment::Point;
use crate::params::Params;
use crate::sim::world::{Checked, World as _};

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
        if let Some(h) = self.lock.holder() {
            if self.pending.get(h.thread as usize).is_some_and(Option::is_some) {
                return Err(format!("cpu {} holds fbc->lock with its fold still pending", h.thread));
            }
        }
        if let Some(c) = (0..self.deferred.len()).find(|&c| !self.deferred[c].is_empty() && self.pending[c].is_none()) {
            return Err(format!("cpu {c} defers events but has no fold pending"));
        }
        if self.stats.lock_contentions > self.stats.folds + self.cfg.nr_cpus() as u64 {
            return Err(format!("{} contentions but {} folds", self.stats.lock_contentions, self.stats.folds));
        }
        Ok(())
    }
}

/// The worlds [`super::super::row_on`] runs for `point` on the default machine, each run with
/// its invariants checked after every event: the three counters and the ramp.
pub fn check_point(params: &Params, point: &Point, seed: u64, max_events: u64) -> Result<Checked, String> {
    let i = Input::from(params);
    let cores = point.x as u32 / i.threads();
    let (m, costs) = (&DUAL_XEON_2018, COSTS_2018);
    let mut configs: Vec<(String, WorldConfig)> = [Counter::Atomic, Counter::PercpuCounter, Counter::PcpuReserve]
        .into_iter()
        .map(|c| (format!("{c:?} at {cores} cores"), config_on(m, costs, &i, cores, c)))
        .collect();
    configs.push((format!("ramp of {:?} at {cores} cores", i.counter), ramp_config(m, costs, &i, cores, i.counter)));
    let mut done = Checked::default();
    for (what, cfg) in configs {
        let mut w = World::new(cfg, seed);
        done.add(w.run_checked(max_events).map_err(|e| format!("{what}: {e}"))?);
    }
    Ok(done)
}
