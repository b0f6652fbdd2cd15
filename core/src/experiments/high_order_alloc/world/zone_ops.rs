//! The TCP_STREAM world's work under `zone->lock` (the event-driven lock idiom of
//! `crate::sim::qspinlock`): a thread asks for the lock of the zone its operation needs
//! (`rmqueue`, `rmqueue_bulk`, `free_one_page`, `free_pcppages_bulk`, `drain_all_pages`) and
//! spins while it is queued (an order > 0 `rmqueue` reads the zone's watermark first); when
//! granted, the operation's buddy work runs and its hold is charged; on release the thread
//! goes on with its syscall.

use super::Stack;
use super::{Event, StreamSim, ThreadState, ZoneOp};
use crate::sim::engine::ThreadId;
use crate::sim::machine::{cycles_to_ns, CpuId};
use crate::sim::page_frag::PageRef;
use crate::sim::qspinlock::{Acquire, LockEvents};
use crate::sim::zone::Cost;

impl StreamSim {
    /// [`Event::LockGranted`]: the operation runs under the lock, whose hold it charges;
    /// the release is scheduled at its end. A grant that arrivals during the handoff have
    /// moved later comes back then.
    pub(super) fn on_lock_granted(&mut self, node: u32, t: ThreadId) {
        let now = self.now_ns;
        let at = self.zones[node as usize].lock.granted_ns();
        if at > now {
            self.queue.schedule(at, Event::granted(node, t));
            return;
        }
        let th = &mut self.threads[t as usize];
        let (role, cpu, mhz) = (th.role as usize, th.cpu, th.mhz);
        let op = th.locked_op.expect("bug: lock granted without an operation");
        let spin_ns = now - th.spin_since_ns;
        th.state = ThreadState::Running;
        let (cost, stack, spin_stack) = self.zone_op(t, op);
        self.charge(role, spin_stack, spin_ns);
        let hold_ns = cycles_to_ns(cost.cycles, mhz) + cost.line_ns;
        self.charge(role, stack, hold_ns);
        if now >= self.cfg.warmup_ns() {
            let k = op.index();
            self.stats.lock_ops[k] += 1;
            self.stats.lock_hold_ns[k] += hold_ns;
        }
        self.threads[t as usize].doing = stack;
        self.note(|| format!("cpu {cpu} takes node {node} zone->lock after {spin_ns} ns, holds {hold_ns} ns ({op:?})"));
        self.queue.schedule(now + hold_ns, Event::release(node, t));
    }

    /// [`Event::LockRelease`]: the next waiter gets the lock; the thread goes on.
    pub(super) fn on_lock_release(&mut self, node: u32, t: ThreadId) {
        let now = self.now_ns;
        self.zones[node as usize].lock.release(&self.cfg.machine, &mut self.queue, node, now);
        let th = &mut self.threads[t as usize];
        th.locked_op = None;
        th.cursor_ns = now;
        let cpu = th.cpu;
        self.note(|| format!("cpu {cpu} releases node {node} zone->lock"));
        self.interpret(t);
    }

    /// `zone_watermark_fast()` of an order > 0 allocation on `node`'s zone, at the global
    /// clock (the reads take shared copies of the `free_area` lines the lock holders write:
    /// `Zone::watermark_check`); the lock is asked for after it.
    pub(super) fn watermark_check(&mut self, t: ThreadId, node: u32, order: usize) {
        let cpu = self.threads[t as usize].cpu;
        let ns = self.zones[node as usize].watermark_check(&self.cfg.machine, &self.caches, cpu, order);
        if ns > 0 {
            self.advance(t, ns, Stack::Watermark);
        }
    }

    /// Asks for the zone->lock of `op`'s node; the thread spins until
    /// [`StreamSim::on_lock_granted`].
    pub(super) fn request_lock(&mut self, t: ThreadId, op: ZoneOp) -> bool {
        let now = self.now_ns;
        let node = op.node();
        let th = &mut self.threads[t as usize];
        th.locked_op = Some(op);
        th.spin_since_ns = now;
        th.state = ThreadState::Spinning;
        th.doing = op.spin_stack();
        let cpu = th.cpu;
        let lock = &mut self.zones[node as usize].lock;
        if lock.request(&self.cfg.machine, &mut self.queue, node, now, t, cpu) == Acquire::Queued {
            let waiting = lock.queue_len();
            self.note(|| format!("cpu {cpu} spins on node {node} zone->lock ({waiting} waiting)"));
        }
        false
    }

    /// Runs `op` under the lock; returns its cost and the stacks to charge hold and spin to.
    pub(super) fn zone_op(&mut self, t: ThreadId, op: ZoneOp) -> (Cost, Stack, Stack) {
        let m = &self.cfg.machine;
        let cpu = self.threads[t as usize].cpu;
        match op {
            ZoneOp::Rmqueue { node, order } => {
                let (pfn, mut cost) = self.zones[node as usize].rmqueue_locked(m, &self.caches, cpu, order);
                if let Some(pfn) = pfn {
                    cost.line_ns += self.check_new_pages(cpu, PageRef { node, pfn, order });
                }
                match pfn {
                    Some(pfn) => self.installed(t, PageRef { node, pfn, order }, "buddy (zone->lock)"),
                    None => self.alloc_failed(t, order),
                }
                (cost, Stack::Rmqueue, Stack::RmqueueSpin)
            }
            ZoneOp::RmqueueBulk { node, order } => {
                let (got, cost) = self.zones[node as usize].rmqueue_bulk(m, &self.caches, cpu, order);
                if got == 0 {
                    self.threads[t as usize].prog.pop();
                    self.alloc_failed(t, order);
                }
                (cost, Stack::RmqueueBulk, Stack::RmqueueBulkSpin)
            }
            ZoneOp::FreeOnePage { page } => {
                let cost = self.zones[page.node as usize].free_one_page(m, &self.caches, cpu, page.pfn, page.order);
                (cost, Stack::FreeOnePage, Stack::FreeOnePageSpin)
            }
            ZoneOp::FreePcpBulk { node } => {
                let cost = self.zones[node as usize].free_pcppages_bulk(m, &self.caches, cpu);
                (cost, Stack::FreePcpBulk, Stack::FreePcpBulkSpin)
            }
            ZoneOp::DrainAll { node } => {
                let (_, cost) = self.zones[node as usize].drain_all_pcp(m, &self.caches, cpu);
                (cost, Stack::DrainAll, Stack::DrainAllSpin)
            }
        }
    }

    /// `check_new_pages()`, still under zone->lock in `rmqueue()` (`while (page &&
    /// check_new_pages(page, order))`, 4.x-5.x): `check_new_page()` reads every subpage's
    /// struct page, last written by the CPU that freed the block (`free_pages_prepare`). The
    /// loads are independent, so they overlap up to the core's misses in flight
    /// (`copy_mlp`; model assumption): the cost is the slowest line or the sum ÷ `copy_mlp`,
    /// whichever is more. The lines are then this CPU's: `prep_compound_page` after the
    /// lock finds them in cache.
    fn check_new_pages(&mut self, cpu: CpuId, page: PageRef) -> u64 {
        let m = &self.cfg.machine;
        let zone = &mut self.zones[page.node as usize];
        let (mut sum, mut worst) = (0, 0);
        for p in page.pfn..page.pfn + (1 << page.order) {
            let ns = zone.touch_page(m, &self.caches, cpu, p);
            sum += ns;
            worst = worst.max(ns);
        }
        worst.max(sum / m.copy_mlp.max(1))
    }
}

impl ZoneOp {
    fn spin_stack(self) -> Stack {
        match self {
            ZoneOp::Rmqueue { .. } => Stack::RmqueueSpin,
            ZoneOp::RmqueueBulk { .. } => Stack::RmqueueBulkSpin,
            ZoneOp::FreeOnePage { .. } => Stack::FreeOnePageSpin,
            ZoneOp::FreePcpBulk { .. } => Stack::FreePcpBulkSpin,
            ZoneOp::DrainAll { .. } => Stack::DrainAllSpin,
        }
    }

    /// Index in [`LOCK_OPS`](super::LOCK_OPS).
    pub(super) fn index(self) -> usize {
        match self {
            ZoneOp::Rmqueue { .. } => 0,
            ZoneOp::RmqueueBulk { .. } => 1,
            ZoneOp::FreeOnePage { .. } => 2,
            ZoneOp::FreePcpBulk { .. } => 3,
            ZoneOp::DrainAll { .. } => 4,
        }
    }

    /// The node whose zone the operation works on.
    pub(super) fn node(self) -> u32 {
        match self {
            ZoneOp::Rmqueue { node, .. }
            | ZoneOp::RmqueueBulk { node, .. }
            | ZoneOp::FreePcpBulk { node }
            | ZoneOp::DrainAll { node } => node,
            ZoneOp::FreeOnePage { page } => page.node,
        }
    }
}
