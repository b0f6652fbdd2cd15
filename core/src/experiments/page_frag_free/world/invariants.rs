//! The forwarding world's invariants, checked after every event by `make fuzz-sim`: every
//! zone (`Zone::check_invariants`: buddy lists, pagesets, pages conserved, zone->lock's
//! queue), the pages of packets in flight still referenced, every send queue's count equal to
//! the packets on it and within `TX_SQ`, a page being freed under the lock unreferenced, and
//! every `zone->lock` holder and waiter a CPU with an operation on that zone (and every such
//! CPU on the lock).

use super::{ForwardSim, ZoneOp};

impl ForwardSim {
    /// What [`crate::sim::world::World::check`] checks for this world.
    pub(super) fn invariants(&self) -> Result<(), String> {
        self.check_invariants()?;
        for (i, c) in self.cpus.iter().enumerate() {
            for p in c.tx_pending.iter().chain(&c.outbox) {
                if let Some(pg) = p.page {
                    if self.zones[pg.node as usize].page_ref(pg.pfn) == 0 {
                        return Err(format!("cpu {i}: a packet in flight holds freed page {}", pg.pfn));
                    }
                }
            }
            // Before the grant the page waits for the lock, after it the page is free: never
            // referenced.
            if let Some(ZoneOp::FreeOne { page }) = c.op {
                if self.zones[page.node as usize].page_ref(page.pfn) != 0 {
                    return Err(format!("cpu {i} frees page {} that is still referenced", page.pfn));
                }
            }
            if let Some(op) = c.op {
                let lock = &self.zones[op.node() as usize].lock;
                let on = lock.holder().is_some_and(|h| h.thread as usize == i)
                    || lock.waiters().any(|w| w.thread as usize == i);
                if !on {
                    return Err(format!("cpu {i} has {op:?} but is not on node {}'s zone->lock", op.node()));
                }
            }
        }
        // Every packet on a send queue is counted by the CPU that sent it, within TX_SQ.
        let mut queued = vec![0u32; self.cpus.len()];
        for p in self.cpus.iter().flat_map(|c| &c.tx_pending) {
            queued[p.rx_index as usize] += 1;
        }
        for (i, c) in self.cpus.iter().enumerate() {
            if c.sq_used != queued[i] || c.sq_used > super::TX_SQ {
                return Err(format!(
                    "cpu {i}: send queue count {} but {} queued (at most {})",
                    c.sq_used,
                    queued[i],
                    super::TX_SQ
                ));
            }
        }
        for (n, z) in self.zones.iter().enumerate() {
            for w in z.lock.waiters().chain(z.lock.holder().as_ref()) {
                let op = self.cpus.get(w.thread as usize).and_then(|c| c.op);
                if op.is_none_or(|op| op.node() as usize != n) {
                    return Err(format!("cpu {} on node {n}'s zone->lock without an operation there", w.thread));
                }
            }
        }
        Ok(())
    }
}
