//! The socket-memory world's invariant checker, kept apart from the model it checks: the
//! per-CPU parts sum up and stay below their threshold, and the true sum, the shared value,
//! the per-CPU parts, the pending folds and the forward allocs agree.

use super::World;
use crate::experiments::percpu_counter::Counter;

impl World {
    /// Invariants: the per-CPU parts sum up, each below its threshold, forward alloc adds up.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.local_pages.iter().sum::<i64>() != self.sum_local_pages {
            return Err("per-CPU sum out of step".into());
        }
        let limit = match self.cfg.counter {
            Counter::Atomic => 1,
            Counter::PercpuCounter => self.cfg.batch,
            Counter::PcpuReserve => self.cfg.reserve_pages,
        };
        if let Some(c) = self.local_pages.iter().position(|l| l.abs() >= limit) {
            return Err(format!("CPU {c} holds {} pages back, limit {limit}", self.local_pages[c]));
        }
        let fw: i64 = self.fw_pages.iter().map(|&p| i64::from(p.saturating_sub(1))).sum();
        let base = self.cfg.ramp.map_or(0, |r| r.base_pages);
        let pending: i64 = self.pending.iter().flatten().map(|p| p.delta).sum();
        if self.true_pages != self.shared_pages + self.sum_local_pages + pending {
            return Err(format!(
                "true sum {} != shared {} + per-CPU {} + pending {pending}",
                self.true_pages, self.shared_pages, self.sum_local_pages
            ));
        }
        if fw + base != self.shared_pages + self.sum_local_pages + pending {
            return Err(format!(
                "forward alloc {fw} != shared {} + per-CPU {} + pending {pending}",
                self.shared_pages, self.sum_local_pages
            ));
        }
        self.lock.check_invariants()
    }
}
