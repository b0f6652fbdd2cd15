//! The ramp, the world's second mode (see the folder's module doc): its configuration, the
//! window's start with the per-CPU parts in their steady state, the raise path's check
//! against `tcp_mem[2]` and the crossing it records; and the samples of the true sum and the
//! shared value over time that both modes' plots draw.

use super::World;
use crate::experiments::percpu_counter::chains::Path;
use crate::experiments::percpu_counter::Counter;
use crate::rng::Rng;
use serde::Serialize;

/// The ramp towards `tcp_mem[2]` (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Ramp {
    /// Pages the server holds when the window opens (charged, folded into the shared value
    /// except what the per-CPU parts hold back).
    pub base_pages: i64,
    /// `tcp_mem[2]` (pages): over it, `__sk_mem_raise_allocated()` suppresses the allocation.
    pub limit_pages: i64,
}

/// When the true sum went over the ramp's limit and when a raise's check first saw it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Crossing {
    /// The charge that took the true sum over the limit: its time and the sum after it.
    pub true_at_ns: Option<u64>,
    pub true_pages_at_cross: i64,
    /// The first charge whose check read a value over the limit, and the true sum then.
    pub seen_at_ns: Option<u64>,
    pub true_pages_at_seen: i64,
}

impl Crossing {
    /// Pages charged past the limit before the kernel noticed (0 if it noticed at once).
    pub fn overshoot_pages(&self) -> Option<i64> {
        self.seen_at_ns.map(|_| self.true_pages_at_seen - self.true_pages_at_cross)
    }

    /// How long after the true crossing the kernel noticed (ns).
    pub fn late_ns(&self) -> Option<u64> {
        Some(self.seen_at_ns?.saturating_sub(self.true_at_ns?))
    }
}

/// The state at one moment, for the plots over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Sample {
    pub at_ns: u64,
    /// What the sockets really hold (pages).
    pub true_pages: i64,
    /// The shared value a reader sees (`tcp_memory_allocated`, `fbc->count`).
    pub shared_pages: i64,
}

/// Most samples a run records.
pub const MAX_SAMPLES: usize = 1_000;

impl World {
    /// The window opens with `base_pages` held and every per-CPU part at a value drawn from
    /// the steady state of a growing counter (uniform below its threshold: each part climbs
    /// to it and starts again from 0), so the window does not start with a synchronised fold.
    pub(super) fn start_ramp(&mut self, ramp: Ramp, root: &mut Rng) {
        let threshold = match self.cfg.counter {
            Counter::Atomic => 0,
            Counter::PercpuCounter => self.cfg.batch,
            Counter::PcpuReserve => self.cfg.reserve_pages,
        };
        let mut rng = root.fork(0xba5e);
        for part in &mut self.local_pages {
            *part = if threshold > 0 { i64::from(rng.below(threshold.min(i64::from(u32::MAX)) as u32)) } else { 0 };
        }
        self.sum_local_pages = self.local_pages.iter().sum();
        self.true_pages = ramp.base_pages;
        self.shared_pages = ramp.base_pages - self.sum_local_pages;
    }

    /// Records the state at every sample time up to `t` (the state after the last event
    /// before each).
    /// A run longer than [`MAX_SAMPLES`] intervals keeps every other sample and doubles the
    /// interval, so a ramp of unknown length stays bounded.
    pub(super) fn sample_until(&mut self, t: u64) {
        if self.sample_ns == 0 {
            return;
        }
        loop {
            let at = self.samples.last().map_or(0, |s| s.at_ns + self.sample_ns);
            if at > t {
                return;
            }
            if self.samples.len() == MAX_SAMPLES {
                self.samples = self.samples.iter().step_by(2).copied().collect();
                self.sample_ns *= 2;
                continue;
            }
            self.samples.push(Sample { at_ns: at, true_pages: self.true_pages, shared_pages: self.shared_pages });
        }
    }

    /// The raise path's limit check of a charge made at `charged_ns`: the value it reads
    /// (`read_pages`) against `tcp_mem[2]`. The first check over it ends the ramp soon.
    pub(super) fn check_limit(&mut self, charged_ns: u64, path: Path, read_pages: i64) {
        let Some(ramp) = self.cfg.ramp else { return };
        if path != Path::Raise || self.crossing.seen_at_ns.is_some() || read_pages <= ramp.limit_pages {
            return;
        }
        self.crossing.seen_at_ns = Some(charged_ns);
        self.crossing.true_pages_at_seen = self.true_pages;
        // Run on for a quarter of the time so far (at least a tick): the plot shows the after.
        let end_ns = self.now_ns + (self.now_ns / 4).max(self.tick_ns());
        self.run_state.end_at_most(end_ns);
    }

    /// The true sum moved by `delta`: note when it first goes over the ramp's limit.
    pub(super) fn note_true(&mut self, delta: i64) {
        self.true_pages += delta;
        if let Some(ramp) = self.cfg.ramp {
            if self.crossing.true_at_ns.is_none() && self.true_pages > ramp.limit_pages {
                self.crossing.true_at_ns = Some(self.now_ns);
                self.crossing.true_pages_at_cross = self.true_pages;
            }
        }
    }
}
