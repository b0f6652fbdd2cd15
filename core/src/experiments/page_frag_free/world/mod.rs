//! The forwarding box of seed 002 and its `handle()`: a world of the sim kernel (run by
//! `crate::sim::world`).
//!
//! What Linux does: the NIC spreads received packets over RX queues (RSS), one per CPU; the
//! CPU's NAPI poll takes each packet from the ring and refills the ring slot with a fresh
//! order-0 page from the page allocator (`rmqueue_pcplist`, which takes `zone->lock` once per
//! `batch` pages in `rmqueue_bulk`) unless the driver's own page cache can recycle one. The
//! packet is routed and transmitted on an egress queue; when the NIC is done with it, the CPU
//! that polls that queue's completions frees it: `napi_consume_skb` → `skb_release_data` →
//! `page_frag_free`. Before 65895b67ad27 that called `__free_pages_ok` → `free_one_page`,
//! which takes `zone->lock` for every page; after it, order-0 pages go to this CPU's per-CPU
//! list (`free_unref_page`), and only when the list reaches `high` does `free_pcppages_bulk`
//! return `batch` pages under the lock.
//!
//! What we simplify: each CPU runs one NAPI loop (TX completions first, up to 128, then up to
//! 64 received packets, as mlx5e_napi_poll does); a page holds `pkts_per_page` packets, as the
//! driver lays its ring out (mlx5: two 2 KiB strides per 4 KiB page, see `machines.rs`): the
//! ring's first fragment of a page allocates it, each further one takes a reference
//! (`page_ref_inc`), the driver's own reference passes to the page's last packet, and the last
//! `put_page` frees it; packets arrive evenly at the offered rate on each RX queue (a 1024-slot
//! ring; when it is full the NIC drops, counted in `rx_dropped`: mlx5's `rx_out_of_buffer`);
//! a packet counts as carried if it arrived in the measured window and was transmitted, so the
//! run goes on after the window until every such packet is forwarded or dropped (at most
//! [`TAIL_MAX_NS`]), and the carried load never exceeds the offered one; the NIC completes a packet as soon as it was queued for transmit, and a packet
//! stays on its send queue (1024 descriptors) until its completion is polled: a full queue
//! drops the next packet, freed by the CPU that received it (no qdisc backlog); the freeing
//! CPU pays one line transfer each for the sk_buff, the shinfo and the struct page the
//! receiving CPU wrote (by distance: nothing when both are one CPU); a recycled
//! page never reaches the allocator. Pages come from the zone of the receiving CPU's node
//! and go back to the zone they came from. Per-packet work is jittered by ±10 % (not fitted)
//! so CPUs do not run in lockstep. See docs/page-frag-free.md. Its invariants, checked after
//! every event by `make fuzz-sim`, are in `invariants.rs`; how the box is built (CPUs, zones,
//! RX queues) in `setup.rs`; its work under `zone->lock` in `zone_ops.rs`.

use super::chains::Stack;
use super::machines::{ForwardingBox, TxIrq};
use crate::rng::Rng;
use crate::sim::cache::Caches;
use crate::sim::engine::EventQueue;
use crate::sim::machine::{cycles_to_ns, CpuId};
use crate::sim::page_frag::PageRef;
use crate::sim::profile::Profile;
use crate::sim::qspinlock::LockEvents;
use crate::sim::world::{RunState, World};
use crate::sim::zone::Zone;
use serde::Serialize;
use std::collections::VecDeque;

mod invariants;
mod setup;
mod zone_ops;

/// Slots of an RX ring (mlx5's default ring size).
pub const RX_RING: u64 = 1024;
/// Descriptors of a TX send queue (mlx5: `MLX5E_PARAMS_DEFAULT_LOG_SQ_SIZE` 0xa, en.h): a
/// packet stays on it until its completion is polled. A full queue stops the transmit; the
/// qdisc in front of it is not modelled, so the packet is dropped at once and freed by the CPU
/// that received it (`kfree_skb` → `skb_release_data` → `page_frag_free`, the same page free).
pub const TX_SQ: u32 = 1024;
/// NAPI budgets: TX completions (MLX5E_TX_CQ_POLL_BUDGET) and RX packets per poll.
pub const TX_BUDGET: u32 = 128;
pub const RX_BUDGET: u32 = 64;
/// At most this many events in a run (about 1 s of native time); a run that reaches it
/// stops early, truncated ([`World::outcome`]).
pub const MAX_EVENTS_PER_RUN: u64 = 20_000_000;
/// The longest a run goes on after its window for the packets that arrived in it (a model
/// bound: a full ring of the slowest default queue drains in about 4 ms); the profile and the
/// lock counters stop at the window's end.
pub const TAIL_MAX_NS: u64 = 20_000_000;

const KSOFTIRQD: usize = 0;
const SWAPPER: usize = 1;

/// Everything one run needs, typed and validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForwardConfig {
    /// The box, with `cpu` already cut to the run's topology.
    pub machine: ForwardingBox,
    /// Physical cores online (split evenly over the sockets).
    pub cores: u32,
    pub smt: bool,
    pub rx_queues: u32,
    pub tx_irq: TxIrq,
    /// true = Linux ≥ 5.0 (65895b67ad27): order-0 pages freed through the per-CPU lists.
    pub fix: bool,
    pub offered_pps: u64,
    pub recycle_pct: u32,
    pub pcp_batch: u32,
    pub pcp_high: u32,
    pub zone_pages: u32,
    pub warmup_ns: u64,
    pub measure_ns: u64,
}

/// Everything that can happen in this world. One closed enum, dispatched in one `match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The CPU's loop continues (ignored unless `gen` is the CPU's current one).
    Resume {
        cpu: u16,
        gen: u32,
    },
    LockGranted {
        node: u32,
        cpu: u16,
    },
    LockRelease {
        node: u32,
        cpu: u16,
    },
}

impl LockEvents for Event {
    fn granted(node: u32, cpu: u32) -> Event {
        Event::LockGranted { node, cpu: cpu as u16 }
    }

    fn release(node: u32, cpu: u32) -> Event {
        Event::LockRelease { node, cpu: cpu as u16 }
    }
}

/// A packet in flight: its page (`None` if the driver recycled one, which never reaches the
/// allocator).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pkt {
    page: Option<PageRef>,
    /// The CPU that received it: it wrote the sk_buff and the shinfo lines last.
    rx_cpu: CpuId,
    /// Its index in `ForwardSim::cpus` (whose send queue holds the packet).
    rx_index: u16,
    /// It arrived in the measured window: it counts as forwarded or dropped.
    counted: bool,
}

/// The page a ring is filling: its fragments not yet handed to a packet (`page` is `None`
/// for a page the driver recycled, which never reaches the allocator).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frag {
    page: Option<PageRef>,
    left: u32,
}

/// Work under `zone->lock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZoneOp {
    /// `__free_pages_ok` → `free_one_page` (before the fix).
    FreeOne { page: PageRef },
    /// `free_pcppages_bulk` (after the fix, the list reached `high`).
    Drain { node: u32 },
    /// `rmqueue_bulk` (the receiving CPU's list is empty).
    Refill { node: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    Poll,
    Lock(ZoneOp),
    AfterRefill,
}

#[derive(Debug, Clone)]
struct Cpu {
    id: CpuId,
    mhz: u64,
    node: u32,
    /// The RX queues this CPU polls (queue q runs on online CPU q mod n).
    rx_queues: Vec<usize>,
    /// Which of them to poll next (round robin).
    rx_next: usize,
    /// Index (in `ForwardSim::cpus`) of the CPU that polls this CPU's TX completions.
    tx_cpu: usize,
    tx_pending: VecDeque<Pkt>,
    outbox: Option<Pkt>,
    /// Packets this CPU transmitted whose completion is not polled yet (at most [`TX_SQ`]).
    sq_used: u32,
    cursor_ns: u64,
    next: Next,
    idle: bool,
    gen: u32,
    rng: Rng,
    jitter_permille: u64,
    tx_quota: u32,
    rx_quota: u32,
    spin_since_ns: Option<u64>,
    op: Option<ZoneOp>,
    /// The queue of the packet being received and whether it arrived in the window.
    rx_q: usize,
    rx_counted: bool,
}

#[derive(Debug, Clone, Default)]
struct RxQueue {
    /// Arrival offset so the queues do not receive in lockstep.
    phase_ns: u64,
    consumed: u64,
    dropped: u64,
    /// Packets arrived by the window's start and by its end: those between arrived in it.
    win: (u64, u64),
    frag: Option<Frag>,
}

/// Counters of one run (inside the measured window unless said otherwise; events and
/// truncation: [`World::outcome`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ForwardStats {
    /// Packets the generator sent in the window (arrived at the NIC).
    pub offered: u64,
    /// Of those, packets whose TX completion ran (forwarded).
    pub forwarded: u64,
    /// Of those, packets the NIC dropped on a full RX ring.
    pub rx_dropped: u64,
    /// Of those, packets dropped because their send queue was full (freed by the receiving CPU).
    pub tx_dropped: u64,
    pub free_one_page_calls: u64,
    pub pcp_drains: u64,
    pub pcp_refills: u64,
    pub recycled: u64,
    pub alloc_failures: u64,
    /// zone->lock passes to a CPU of another socket than the previous holder's.
    pub cross_socket_passes: u64,
}

impl ForwardStats {
    /// Acquisitions of zone->lock in the measured window.
    pub fn zone_lock_calls(&self) -> u64 {
        self.free_one_page_calls + self.pcp_drains + self.pcp_refills
    }
}

/// The simulated forwarding box.
pub struct ForwardSim {
    pub cfg: ForwardConfig,
    /// The time of the event being handled.
    now_ns: u64,
    queue: EventQueue<Event>,
    run_state: RunState,
    pub zones: Vec<Zone>,
    /// Which core's L2 holds what (see `machines.rs`: no traffic advances it here).
    caches: Caches,
    cpus: Vec<Cpu>,
    rxq: Vec<RxQueue>,
    pub profile: Profile<Stack>,
    pub stats: ForwardStats,
    /// Packets of the window taken off a ring and neither forwarded nor dropped yet.
    unresolved: u64,
    /// The socket of each zone->lock's last holder.
    lock_socket: Vec<Option<u32>>,
}

impl World for ForwardSim {
    type Event = Event;

    crate::sim::world::world_fields!(run_state, queue);

    fn handle(&mut self, at_ns: u64, event: Event) {
        self.now_ns = at_ns;
        match event {
            Event::Resume { cpu, gen } => {
                if self.cpus[cpu as usize].gen == gen {
                    self.resume(cpu as usize);
                }
            }
            Event::LockGranted { node, cpu } => self.lock_granted(node, cpu as usize),
            Event::LockRelease { node, cpu } => self.lock_release(node, cpu as usize),
        }
        if at_ns >= self.window_end_ns() && self.window_resolved() {
            self.run_state.end_at_most(at_ns + 1);
        }
    }
}

impl ForwardSim {
    /// Forwarded packets per second in the measured window.
    pub fn throughput_pps(&self) -> f64 {
        self.stats.forwarded as f64 * 1e9 / self.cfg.measure_ns as f64
    }

    /// CPUs that have a duty, as Linux numbers them.
    pub fn busy_cpus(&self) -> Vec<CpuId> {
        self.cpus.iter().map(|c| c.id).collect()
    }

    fn window_end_ns(&self) -> u64 {
        self.cfg.warmup_ns + self.cfg.measure_ns
    }

    /// Whether `at_ns` lies in the measured window (the run's own window adds the tail).
    fn measuring(&self, at_ns: u64) -> bool {
        at_ns >= self.cfg.warmup_ns && at_ns < self.window_end_ns()
    }

    /// Every packet that arrived in the window is forwarded or dropped.
    fn window_resolved(&self) -> bool {
        self.unresolved == 0 && self.rxq.iter().all(|r| r.consumed >= r.win.1)
    }

    /// A packet of the window leaves the box: forwarded, or dropped at its send queue.
    fn resolve(&mut self, pkt: &Pkt) {
        if pkt.counted {
            self.unresolved = self.unresolved.checked_sub(1).expect("bug: a packet resolved twice");
        }
    }

    fn charge(&mut self, command: usize, stack: Stack, at_ns: u64, ns: u64) {
        if self.measuring(at_ns) {
            self.profile.add(command, stack, ns);
        }
    }

    /// Private work of `cycles` (jittered) on CPU `i`: only its own clock moves.
    fn work(&mut self, i: usize, cycles: u64, stack: Stack) {
        let c = &self.cpus[i];
        let ns = cycles_to_ns(cycles * c.jitter_permille / 1000, c.mhz);
        self.advance(i, ns, stack);
    }

    fn advance(&mut self, i: usize, ns: u64, stack: Stack) {
        let at = self.cpus[i].cursor_ns;
        self.charge(KSOFTIRQD, stack, at, ns);
        self.cpus[i].cursor_ns += ns;
    }

    fn schedule_resume(&mut self, i: usize, at_ns: u64) {
        let c = &mut self.cpus[i];
        c.gen = c.gen.wrapping_add(1);
        self.queue.schedule(at_ns, Event::Resume { cpu: i as u16, gen: c.gen });
    }

    fn resume(&mut self, i: usize) {
        let now = self.now_ns;
        if self.cpus[i].idle {
            let since = self.cpus[i].cursor_ns;
            self.charge(SWAPPER, Stack::Idle, since, now - since);
            self.cpus[i].idle = false;
        }
        self.cpus[i].cursor_ns = self.cpus[i].cursor_ns.max(now);
        match self.cpus[i].next {
            Next::Poll => self.poll(i),
            Next::Lock(op) => self.request_lock(i, op),
            Next::AfterRefill => self.rx_alloc(i),
        }
    }

    /// Packets that arrived on queue `q` by `t_ns` (evenly spaced at the offered rate).
    fn arrived(&self, q: usize, t_ns: u64) -> u64 {
        let n = self.cfg.rx_queues as u128;
        ((u128::from(t_ns + self.rxq[q].phase_ns) * u128::from(self.cfg.offered_pps)) / (1_000_000_000 * n)) as u64
    }

    /// Packets waiting in the ring of queue `q` now (the excess over the ring is dropped).
    fn rx_available(&mut self, q: usize) -> u64 {
        let arrived = self.arrived(q, self.now_ns);
        let r = &mut self.rxq[q];
        let waiting = arrived - r.consumed;
        if waiting > RX_RING {
            // The ring holds the last RX_RING arrivals (the model drops the oldest; a NIC drops
            // the newest, the same count).
            let lost = waiting - RX_RING;
            let (lo, hi) = r.win;
            let in_window = (r.consumed + lost).min(hi).saturating_sub(r.consumed.max(lo));
            r.consumed += lost;
            r.dropped += lost;
            self.stats.rx_dropped += in_window;
        }
        arrived - self.rxq[q].consumed
    }

    /// When the next packet arrives on queue `q`.
    fn next_arrival_ns(&self, q: usize) -> u64 {
        let n = u128::from(self.cfg.rx_queues);
        let want = u128::from(self.rxq[q].consumed + 1) * 1_000_000_000 * n;
        let t = want.div_ceil(u128::from(self.cfg.offered_pps)) as u64;
        t.saturating_sub(self.rxq[q].phase_ns).max(self.now_ns + 1)
    }

    /// The NAPI loop: hand the last packet to its TX queue, then TX completions, then RX.
    fn poll(&mut self, i: usize) {
        if let Some(pkt) = self.cpus[i].outbox.take() {
            if self.cpus[i].sq_used >= TX_SQ {
                self.stats.tx_dropped += u64::from(pkt.counted);
                self.resolve(&pkt);
                return self.free_skb(i, pkt, false);
            }
            self.cpus[i].sq_used += 1;
            let t = self.cpus[i].tx_cpu;
            self.cpus[t].tx_pending.push_back(pkt);
            if t != i && self.cpus[t].idle {
                let now = self.now_ns;
                self.schedule_resume(t, now);
            }
        }
        loop {
            let has_tx = !self.cpus[i].tx_pending.is_empty();
            let rx = self.ready_queue(i);
            let has_rx = rx.is_some();
            let c = &mut self.cpus[i];
            c.jitter_permille = 900 + u64::from(c.rng.below(201));
            if has_tx && c.tx_quota > 0 {
                c.tx_quota -= 1;
                let pkt = c.tx_pending.pop_front().expect("has_tx");
                return self.tx_complete(i, pkt);
            }
            if has_rx && c.rx_quota > 0 {
                c.rx_quota -= 1;
                return self.rx_packet(i, rx.expect("has_rx"));
            }
            if has_tx || has_rx {
                // Budgets spent: the next NAPI poll round.
                c.tx_quota = TX_BUDGET;
                c.rx_quota = RX_BUDGET;
                continue;
            }
            c.idle = true;
            c.tx_quota = TX_BUDGET;
            c.rx_quota = RX_BUDGET;
            let next = self.cpus[i].rx_queues.iter().map(|&q| self.next_arrival_ns(q)).min();
            if let Some(at) = next {
                self.schedule_resume(i, at);
            }
            return;
        }
    }

    /// The next of CPU `i`'s queues (round robin) with a packet waiting.
    fn ready_queue(&mut self, i: usize) -> Option<usize> {
        let n = self.cpus[i].rx_queues.len();
        for k in 0..n {
            let slot = (self.cpus[i].rx_next + k) % n;
            let q = self.cpus[i].rx_queues[slot];
            if self.rx_available(q) > 0 {
                self.cpus[i].rx_next = (slot + 1) % n;
                return Some(q);
            }
        }
        None
    }

    fn continue_at_cursor(&mut self, i: usize, next: Next) {
        self.cpus[i].next = next;
        let at = self.cpus[i].cursor_ns;
        self.schedule_resume(i, at);
    }

    /// `mlx5e_poll_tx_cq` → `napi_consume_skb` → `skb_release_data` → `page_frag_free`.
    fn tx_complete(&mut self, i: usize, pkt: Pkt) {
        let from = &mut self.cpus[pkt.rx_index as usize];
        from.sq_used = from.sq_used.checked_sub(1).expect("bug: a completion without a queued packet");
        self.work(i, self.cfg.machine.tx_cq_cycles, Stack::TxCq);
        self.free_skb(i, pkt, true);
    }

    /// The sk_buff and its page freed on CPU `i`: after a TX completion (`napi_consume_skb`,
    /// counted as forwarded when `completed`) or on a full send queue (`kfree_skb`, the same
    /// release work, modelled with the same cycles).
    fn free_skb(&mut self, i: usize, pkt: Pkt, completed: bool) {
        let b = &self.cfg.machine;
        let (napi, rel, pff, fpo, pcp) = (
            b.napi_consume_cycles,
            b.release_data_cycles,
            b.page_frag_free_cycles,
            b.free_pages_ok_cycles(),
            b.cpu.page_op_cycles,
        );
        // The sk_buff (skb->users) and the shinfo (dataref) lines were last written by the
        // receiving CPU (__build_skb): each costs a transfer by distance to the freeing CPU.
        let line_ns = self.cfg.machine.cpu.transfer_ns(pkt.rx_cpu, self.cpus[i].id);
        self.work(i, napi, Stack::NapiConsume);
        self.advance(i, line_ns, Stack::NapiConsume);
        self.work(i, rel, Stack::ReleaseData);
        self.advance(i, line_ns, Stack::ReleaseData);
        self.work(i, pff, Stack::PageFragFree);
        if completed {
            self.stats.forwarded += u64::from(pkt.counted);
            self.resolve(&pkt);
        }
        let Some(page) = pkt.page else {
            return self.continue_at_cursor(i, Next::Poll);
        };
        let cpu = self.cpus[i].id;
        let zone = &mut self.zones[page.node as usize];
        // put_page_testzero(): the refcount lives in the struct page the RX CPU wrote.
        let line_ns = zone.touch_page(&self.cfg.machine.cpu, &self.caches, cpu, page.pfn);
        let last = zone.put_page_testzero(page.pfn);
        self.advance(i, line_ns, Stack::PageFragFree);
        if !last {
            // The page's other packet still holds it: only the reference goes.
            return self.continue_at_cursor(i, Next::Poll);
        }
        if !self.cfg.fix {
            self.work(i, fpo, Stack::FreePagesOk);
            return self.continue_at_cursor(i, Next::Lock(ZoneOp::FreeOne { page }));
        }
        let due = self.zones[page.node as usize].pcp_free(cpu, page.pfn, 0);
        self.work(i, pcp, Stack::FreeUnref);
        let next = if due { Next::Lock(ZoneOp::Drain { node: page.node }) } else { Next::Poll };
        self.continue_at_cursor(i, next)
    }

    /// One received packet: the next fragment of its ring's page (a fresh page when the
    /// last one is used up), then the stack's work.
    fn rx_packet(&mut self, i: usize, q: usize) {
        let r = &mut self.rxq[q];
        r.consumed += 1;
        let counted = r.consumed > r.win.0 && r.consumed <= r.win.1;
        self.unresolved += u64::from(counted);
        (self.cpus[i].rx_q, self.cpus[i].rx_counted) = (q, counted);
        if let Some(f) = self.rxq[q].frag.take() {
            return self.rx_frag(i, f);
        }
        let recycled = self.cpus[i].rng.below(100) < self.cfg.recycle_pct;
        if recycled {
            if self.measuring(self.cpus[i].cursor_ns) {
                self.stats.recycled += 1;
            }
            self.work(i, self.cfg.machine.rx_cache_cycles, Stack::RxCache);
            let left = self.cfg.machine.pkts_per_page;
            return self.rx_frag(i, Frag { page: None, left });
        }
        self.rx_alloc(i);
    }

    /// A packet takes the next fragment of `f`: a reference of its own (`page_ref_inc` on the
    /// `struct page` this CPU wrote), or, as the page's last, the driver's.
    fn rx_frag(&mut self, i: usize, mut f: Frag) {
        f.left -= 1;
        if f.left > 0 {
            if let Some(page) = f.page {
                let cpu = self.cpus[i].id;
                let zone = &mut self.zones[page.node as usize];
                zone.get_page(page.pfn);
                let line_ns = zone.touch_page(&self.cfg.machine.cpu, &self.caches, cpu, page.pfn);
                self.advance(i, line_ns, Stack::RxDriver);
            }
            self.rxq[self.cpus[i].rx_q].frag = Some(f);
        }
        let c = &self.cpus[i];
        self.rx_work(i, Pkt { page: f.page, rx_cpu: c.id, rx_index: i as u16, counted: c.rx_counted });
    }

    /// `rmqueue_pcplist()`: a page from this CPU's list, refilled under the lock when empty.
    fn rx_alloc(&mut self, i: usize) {
        let (cpu, node) = (self.cpus[i].id, self.cpus[i].node);
        let refilled = self.cpus[i].next == Next::AfterRefill;
        let m = &self.cfg.machine.cpu;
        let zone = &mut self.zones[node as usize];
        match zone.pcp_alloc(cpu, 0) {
            Some(pfn) => {
                let line_ns = zone.touch_page(m, &self.caches, cpu, pfn);
                let cycles = m.page_op_cycles;
                self.work(i, cycles, Stack::PcpAlloc);
                self.advance(i, line_ns, Stack::PcpAlloc);
                let left = self.cfg.machine.pkts_per_page;
                self.rx_frag(i, Frag { page: Some(PageRef { node, pfn, order: 0 }), left });
            }
            None if refilled => {
                // The zone is empty: the packet is dropped (a model bound, never reached by
                // validated runs: pages in flight stay far below the zone).
                self.stats.alloc_failures += 1;
                let counted = self.cpus[i].rx_counted;
                self.unresolved -= u64::from(counted);
                self.continue_at_cursor(i, Next::Poll);
            }
            None => self.continue_at_cursor(i, Next::Lock(ZoneOp::Refill { node })),
        }
    }

    fn rx_work(&mut self, i: usize, pkt: Pkt) {
        let rx = self.cfg.machine.rx_pkt_cycles;
        self.work(i, rx / 3, Stack::RxDriver);
        self.work(i, rx / 3, Stack::RxForward);
        self.work(i, rx - 2 * (rx / 3), Stack::RxXmit);
        self.cpus[i].outbox = Some(pkt);
        self.continue_at_cursor(i, Next::Poll);
    }

    /// Every zone's invariants (pages conserved, lists, lock queue).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.zones.iter().try_for_each(Zone::check_invariants)
    }
}
