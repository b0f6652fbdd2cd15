//! The forwarding world's work under `zone->lock`: a CPU asks for the lock of the zone its
//! operation needs (`free_one_page`, `free_pcppages_bulk` or `rmqueue_bulk`), spins while it
//! is queued, does the operation's buddy work when granted, and goes back to its NAPI loop on
//! release. The lock itself (qspinlock, handoffs by line transfer) is `crate::sim::qspinlock`.

use super::super::chains::Stack;
use super::{Event, ForwardSim, Next, ZoneOp, KSOFTIRQD};
use crate::sim::machine::cycles_to_ns;
use crate::sim::qspinlock::{Acquire, LockEvents};
use crate::sim::zone::Cost;

impl ForwardSim {
    pub(super) fn request_lock(&mut self, i: usize, op: ZoneOp) {
        let now = self.now_ns;
        let node = op.node();
        let cpu = self.cpus[i].id;
        self.cpus[i].op = Some(op);
        match self.zones[node as usize].lock.request(&self.cfg.machine.cpu, &mut self.queue, node, now, i as u32, cpu) {
            Acquire::Taken { cost_ns } => {
                self.cpus[i].spin_since_ns = None;
                self.charge(KSOFTIRQD, op.stacks().0, now, cost_ns);
            }
            Acquire::Queued => {
                // The failed fast-path atomic is part of the wait.
                self.cpus[i].spin_since_ns = Some(now);
            }
        }
    }

    pub(super) fn lock_granted(&mut self, node: u32, i: usize) {
        let now = self.now_ns;
        let op = self.cpus[i].op.expect("bug: granted without an op");
        let (lock_stack, spin_stack, hold_stack) = op.stacks();
        let _ = lock_stack;
        if let Some(since) = self.cpus[i].spin_since_ns.take() {
            self.charge(KSOFTIRQD, spin_stack, since, now - since);
        }
        let m = &self.cfg.machine.cpu;
        let cpu = self.cpus[i].id;
        let measuring = self.measuring(now);
        // A handoff between sockets costs the lock's line two cross-socket transfers.
        let socket = m.pos(cpu).socket;
        let last = self.lock_socket[node as usize].replace(socket);
        self.stats.cross_socket_passes += u64::from(measuring && last.is_some_and(|s| s != socket));
        let zone = &mut self.zones[node as usize];
        let cost: Cost = match op {
            ZoneOp::FreeOne { page } => {
                self.stats.free_one_page_calls += u64::from(measuring);
                zone.free_one_page(m, &self.caches, cpu, page.pfn, 0)
            }
            ZoneOp::Drain { .. } => {
                self.stats.pcp_drains += u64::from(measuring);
                zone.free_pcppages_bulk(m, &self.caches, cpu)
            }
            ZoneOp::Refill { .. } => {
                self.stats.pcp_refills += u64::from(measuring);
                zone.rmqueue_bulk(m, &self.caches, cpu, 0).1
            }
        };
        let hold_ns = cycles_to_ns(cost.cycles, self.cpus[i].mhz) + cost.line_ns;
        self.charge(KSOFTIRQD, hold_stack, now, hold_ns);
        self.queue.schedule(now + hold_ns, Event::release(node, i as u32));
    }

    pub(super) fn lock_release(&mut self, node: u32, i: usize) {
        let now = self.now_ns;
        self.zones[node as usize].lock.release(&self.cfg.machine.cpu, &mut self.queue, node, now);
        let op = self.cpus[i].op.take().expect("bug: release without an op");
        self.cpus[i].cursor_ns = now;
        let next = if matches!(op, ZoneOp::Refill { .. }) { Next::AfterRefill } else { Next::Poll };
        self.continue_at_cursor(i, next);
    }
}

impl ZoneOp {
    pub(super) fn node(self) -> u32 {
        match self {
            ZoneOp::FreeOne { page } => page.node,
            ZoneOp::Drain { node } | ZoneOp::Refill { node } => node,
        }
    }

    /// (uncontended acquire, spinning, held) stacks.
    fn stacks(self) -> (Stack, Stack, Stack) {
        match self {
            ZoneOp::FreeOne { .. } => (Stack::FreeOnePageLock, Stack::FreeOnePageSpin, Stack::FreeOnePage),
            ZoneOp::Drain { .. } => (Stack::FreePcpBulkLock, Stack::FreePcpBulkSpin, Stack::FreePcpBulk),
            ZoneOp::Refill { .. } => (Stack::RmqueueBulkLock, Stack::RmqueueBulkSpin, Stack::RmqueueBulk),
        }
    }
}
