//! TCP_STREAM over loopback: the world of seed 000 and its `handle()` (run by `crate::sim::world`).
//!
//! A world of the sim kernel (`crate::sim`): it owns its event enum, its threads and flows,
//! where they run (`placement`), the call chains it charges time to (`chains`) and its trace
//! frame (`trace`); `setup` builds it, `ops` runs the syscalls' actions, `zone_ops` the work
//! under zone->lock, `sched` sleeping and waking, `ack` the receiver's ACKs and `skb_cache` the
//! sk_buffs; the mechanisms (zones, locks, lines, queue) come from `crate::sim`.
//!
//! What Linux does: each netperf/netserver pair is one TCP connection over `lo`. netperf's
//! `sendmsg()` copies user data into the task's page frag (`skb_page_frag_refill`, order 3 or
//! order 0) and pushes the skb; `loopback_xmit()` hands it to the softirq on the *same* CPU,
//! which runs `tcp_v4_rcv()` and queues it on the receiving socket, waking netserver.
//! netserver's `recvmsg()` copies the data out and frees its clone of the skb. The receiver
//! acks as Linux 5.x does: on arrival when more than one `rcv_mss` came since the last ACK
//! (`__tcp_ack_snd_check`), after a read when more than one `rcv_mss` is unacknowledged or the
//! read emptied the queue and a short segment of a new length marked the ACK pushed
//! (`tcp_cleanup_rbuf`, `tcp_measure_rcv_mss`), else after the delayed-ACK timer. The ACK's
//! softirq calls `tcp_v4_rcv()` for netperf's socket: owned while netperf is inside
//! `tcp_sendmsg`, so the ACK goes to the backlog and netperf processes it at `release_sock`;
//! there `snd_una` moves and `tcp_clean_rtx_queue` frees the acked skbs (the last reference of
//! the frag pages of those already read). Only an ACK that finds netperf outside its socket
//! (asleep) is processed on netserver's CPU. The lines of the two sockets, and those of a
//! wakeup, move between the two CPUs as line transfers.
//!
//! `tcp_sendmsg()` appends to the tail skb up to the size goal (64 KiB on loopback), so
//! small sends coalesce; `tcp_push()` sends a partial tail unless Nagle (Minshall) holds it
//! while a short segment is unacknowledged. Costs are per syscall (`syscall_cycles`), per
//! segment (`skb_tx_cycles`), per skb read (`skb_rx_cycles`), per frag and page
//! (`frag_cycles`, `page_op_cycles`), per byte (the copy) and per line moved between cores.
//!
//! What we simplify: the ACK's own work stays in the fitted per-segment constant; the receive
//! window and the receiver's own backlog are not modelled (a segment is queued at once);
//! netperf owns its socket from `tcp_sendmsg`'s start to its end (the user-space gap between
//! two calls is not modelled); the socket buffer is one byte
//! limit (`sndbuf_bytes`) shared by the queue; the sender sleeps when it is full and is woken
//! when half of it is free (a third with waiting, as `sk_stream_write_space`: `sched`), the
//! receiver sleeps when the queue is empty; a wakeup costs its instructions and lines, and
//! with waiting (`StreamConfig::waiting`, the machine comparison only) an idle CPU's IPI and
//! exit from idle. Threads stay on
//! their CPU; a CPU with several threads serves them in FIFO order, one syscall at a time.
//! A thread interprets its syscall as a list of `Action`s; private work only advances its
//! own clock, while actions on shared state (locks, page refcounts, the socket queue) wait
//! for the global clock, so every lock request and every `put_page` happens in time order. See docs/high-order-alloc.md.
//! Its invariants, checked after every event by `make fuzz-sim`, are in `invariants`.

mod ack;
mod chains;
mod constants;
mod invariants;
mod ops;
mod placement;
mod sched;
mod setup;
mod skb_cache;
mod trace;
mod zone_ops;

pub use chains::Stack;
pub use constants::*;
pub use placement::{place, Placement};
pub use sched::Waiting;
pub use skb_cache::SkbCacheStats;
pub use trace::{RefillMarker, TraceFrame};

use super::Input;
use crate::rng::Rng;
use crate::sim::cache::{Caches, SOURCES};
use crate::sim::engine::{EventQueue, ThreadId};
use crate::sim::machine::{cycles_to_ns, CpuId, MachineProfile};
use crate::sim::page_frag::{first_order, PageFrag, PageRef, Refill};
use crate::sim::profile::Profile;
use crate::sim::qspinlock::LockEvents;
use crate::sim::world::{RunState, World};
use crate::sim::zone::Zone;
use serde::Serialize;
use std::collections::VecDeque;

/// Everything that can happen in this world. One closed enum, dispatched in one `match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Event {
    /// The thread's work has reached a point where it touches shared state.
    Resume { thread: ThreadId },
    /// `zone->lock` of `node` now belongs to `thread` (after the line moved to its CPU).
    LockGranted { node: u32, thread: ThreadId },
    /// `thread` leaves its critical section and releases `zone->lock` of `node`.
    LockRelease { node: u32, thread: ThreadId },
    /// The delayed-ACK timer of netserver's socket of `flow` (`tcp_delack_timer`).
    DelAck { flow: u32 },
}

/// Everything one run needs, typed and validated: the parameters ([`Input`]; the world does
/// not read the sweep's bounds nor the profile's settings) beside what only a run adds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamConfig {
    /// Topology (sockets, die size) and constants; one zone per socket.
    pub machine: MachineProfile,
    /// The parameters, typed.
    pub input: Input,
    /// netperf/netserver pairs, 1..=[`MAX_FLOWS`].
    pub flows: u32,
    /// net.core.high_order_alloc_disable.
    pub high_order_alloc_disable: bool,
    pub zone_pages: u32,
    /// Waking a task on another, idle CPU costs its IPI and that CPU's exit from idle
    /// ([`Waiting`]); `None`: a wakeup costs only its instructions and lines (the seed runs).
    pub waiting: Option<Waiting>,
}

impl StreamConfig {
    /// Simulated time before measuring, ns.
    pub fn warmup_ns(&self) -> u64 {
        self.input.warmup_us * 1000
    }

    /// Simulated time measured, ns.
    pub fn measure_ns(&self) -> u64 {
        self.input.measure_us * 1000
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Role {
    Netperf,
    Netserver,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
enum ThreadState {
    Running,
    Spinning,
    Blocked,
    Runnable,
}

/// A frag of an skb: a range of a page the skb holds one reference to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frag {
    page: PageRef,
    start_bytes: u32,
    end_bytes: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Skb {
    frags: Vec<Frag>,
    len_bytes: u32,
    /// Its sk_buff pair and head (`skb_cache`), once `sk_stream_alloc_skb` ran.
    heads: Option<skb_cache::Heads>,
    /// `end_seq`: bytes of the flow up to and including this skb (set when it is sent).
    end_seq: u64,
    /// netperf's socket processed an ACK covering it while netserver had not read it yet:
    /// the original is gone, so the read frees the data (the clone holds the last dataref).
    acked: bool,
}

/// Operations done under `zone->lock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZoneOp {
    Rmqueue {
        node: u32,
        order: usize,
    },
    RmqueueBulk {
        node: u32,
        order: usize,
    },
    FreeOnePage {
        page: PageRef,
    },
    FreePcpBulk {
        node: u32,
    },
    /// `drain_all_pages()` after an order-0 allocation found the zone empty.
    DrainAll {
        node: u32,
    },
}

/// One step of a syscall, interpreted by [`StreamSim::interpret`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Work {
        cycles: u64,
        stack: Stack,
    },
    LineNs {
        ns: u64,
        stack: Stack,
    },
    BeginSend,
    FillFrags {
        remaining_bytes: u32,
    },
    AllocFrag {
        order: usize,
    },
    /// `zone_watermark_fast()` before an order > 0 allocation takes zone->lock.
    Watermark {
        node: u32,
        order: usize,
    },
    Locked(ZoneOp),
    TcpPush,
    Push,
    BeginRecv,
    /// `tcp_recvmsg()`'s loop: the next queued skb, `copied_bytes` into this call.
    RecvSkb {
        copied_bytes: u32,
    },
    ReleaseSkb,
    FreePage {
        page: PageRef,
    },
    Consumed {
        bytes: u32,
    },
    EndOp,
}

impl LockEvents for Event {
    fn granted(node: u32, thread: ThreadId) -> Event {
        Event::LockGranted { node, thread }
    }

    fn release(node: u32, thread: ThreadId) -> Event {
        Event::LockRelease { node, thread }
    }
}

impl Action {
    /// Touches state other threads see: must run when the global clock reaches the thread.
    fn is_sync(&self) -> bool {
        matches!(
            self,
            Action::BeginSend
                | Action::BeginRecv
                | Action::RecvSkb { .. }
                | Action::FillFrags { .. }
                | Action::Watermark { .. }
                | Action::Locked(_)
                | Action::TcpPush
                | Action::Push
                | Action::ReleaseSkb
                | Action::Consumed { .. }
                | Action::EndOp
        )
    }
}

#[derive(Debug, Clone)]
struct Thread {
    role: Role,
    flow: u32,
    cpu: CpuId,
    /// Clock of this thread's core, after the SMT slowdown.
    mhz: u64,
    /// The actions still to run, as a stack: the next one is last (`push` = run next).
    prog: Vec<Action>,
    cursor_ns: u64,
    state: ThreadState,
    pfrag: PageFrag,
    skb: Skb,
    rng: Rng,
    /// Per-mille scale of this syscall's work (small jitter so threads do not run in lockstep).
    jitter_permille: u64,
    spin_since_ns: u64,
    locked_op: Option<ZoneOp>,
    doing: Stack,
}

#[derive(Debug, Clone, Default)]
struct Flow {
    sender: ThreadId,
    receiver: ThreadId,
    /// netserver's receive queue (sent, not yet read).
    queue: VecDeque<Skb>,
    /// Read skbs whose original still sits in netperf's retransmit queue: the ACK that
    /// covers them frees them (`tcp_clean_rtx_queue`), on the CPU that processes it.
    rtx: VecDeque<Skb>,
    /// The newest ACK (cumulative, bytes) in netperf's socket backlog: it came while netperf
    /// owned its socket and is processed at `release_sock`.
    backlog_ack: Option<u64>,
    /// Bytes `tcp_sendmsg` accepted and no ACK processed by netperf's socket released yet
    /// (`sk_wmem_queued` against `sk_sndbuf`).
    inflight_bytes: u64,
    measured_bytes: u64,
    /// `snd_nxt` (= netserver's `rcv_nxt`: a segment arrives in the sender's own softirq),
    /// `snd_una` and Minshall's `snd_sml` (the end of the last segment sent shorter than the
    /// size goal), bytes since the start.
    sent_bytes: u64,
    acked_bytes: u64,
    small_end_bytes: u64,
    /// The receiver's ACK state (`struct inet_connection_sock::icsk_ack`, `tcp_sock`).
    ack: RcvAck,
    /// Who last wrote netserver's and netperf's socket lines (`SockLines`).
    rx_sock: SockLines,
    tx_sock: SockLines,
}

/// The cache lines of one socket that both of a flow's CPUs write: the CPU that wrote them
/// last and how many it dirtied. The next CPU to touch them pulls that many, one after the
/// other (a lock first, then what it guards: dependent misses, model assumption).
#[derive(Debug, Clone, Copy, Default)]
struct SockLines {
    cpu: Option<CpuId>,
    dirty: u32,
}

impl SockLines {
    /// `cpu` touches `lines` of the socket: the lines it must pull and from where.
    fn touch(&mut self, cpu: CpuId, lines: u32) -> Option<(CpuId, u32)> {
        let pulled = match self.cpu {
            Some(from) if from != cpu => Some((from, self.dirty)),
            _ => None,
        };
        if pulled.is_some() || self.cpu.is_none() {
            self.dirty = lines;
        } else {
            self.dirty = self.dirty.max(lines);
        }
        self.cpu = Some(cpu);
        pulled
    }
}

/// What netserver's socket knows for its ACK decisions (Linux 5.2 `icsk_ack`, `rcv_wup`).
#[derive(Debug, Clone, Copy, Default)]
struct RcvAck {
    /// `rcv_wup`: `rcv_nxt` when the last ACK was sent.
    wup_bytes: u64,
    /// `icsk_ack.rcv_mss`: the receiver's estimate of the sender's segment size.
    rcv_mss: u32,
    /// `icsk_ack.last_seg_size`.
    last_seg_size: u32,
    /// `ICSK_ACK_PUSHED` (a short segment of a new length came since the last ACK; the
    /// stream is not interactive, so `ICSK_ACK_PUSHED2` adds nothing here).
    pushed: bool,
    /// `inet_csk_ack_scheduled()`: data came since the last ACK.
    scheduled: bool,
    /// When the armed delayed-ACK timer fires.
    delack_at_ns: Option<u64>,
    /// The time of this flow's one `DelAck` event in the queue, if any (model bookkeeping,
    /// not a kernel field): the timer has one slot, as `mod_timer` keeps one `timer_list`. A
    /// re-arm while an earlier event is queued does not add a second one; that event, when it
    /// comes, moves itself to the new deadline. A deadline at or after the run's end is never
    /// queued (it could not fire), so an ACK sent early leaves nothing behind in the heap.
    delack_queued_ns: Option<u64>,
}

#[derive(Debug, Clone, Default)]
struct CpuSlot {
    owner: Option<ThreadId>,
    runq: VecDeque<ThreadId>,
    /// Since when nothing has run here (the idle task: `do_idle`), if nothing runs now.
    idle_since_ns: Option<u64>,
    /// Idle time inside the measurement window, ns (idle periods already ended).
    idle_ns: u64,
}

/// Counters of one run (events and truncation: [`World::outcome`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct StreamStats {
    pub order3_allocs: u64,
    pub order0_allocs: u64,
    /// Order-3 tries that fell back to order 0.
    pub fallbacks: u64,
    /// Order-0 allocations that found the zone empty even after draining every per-CPU list
    /// (the thread backs off and retries).
    pub alloc_failures: u64,
    /// `drain_all_pages()` calls: an order-0 allocation found the buddy empty while per-CPU
    /// lists held pages, so the lists went back to the buddy before the retry.
    pub pcp_drains: u64,
    /// Page frag refills served without allocating (the task held the last reference).
    pub frag_reuses: u64,
    /// Last `put_page` of a frag page, by role of the CPU that dropped it.
    pub last_put_by_sender: u64,
    pub last_put_by_receiver: u64,
    /// ACKs that found netperf's socket owned and went to its backlog (their skbs are freed
    /// on the sender's CPU at `release_sock`; measurement window).
    pub acks_backlogged: u64,
    /// ACKs netserver's socket sent, by what sent them: `__tcp_ack_snd_check` on arrival (more
    /// than one `rcv_mss` unacknowledged), `tcp_cleanup_rbuf` after a read, the delayed-ACK
    /// timer (measurement window).
    pub acks_on_arrival: u64,
    pub acks_on_read: u64,
    pub acks_by_timer: u64,
    /// Segments sent (measurement window).
    pub segments: u64,
    /// Bytes `tcp_sendmsg` copied into page frags (measurement window).
    pub copy_bytes: u64,
    /// Lines the senders' copies into frags found in each [`Source`](crate::sim::cache::Source)
    /// (own L2, another core's L2 on the socket, on the other socket, L3, remote L3, DRAM,
    /// remote DRAM; measurement window).
    pub tx_lines_from: [u64; SOURCES],
    /// The same for the receivers' copies out of the frags.
    pub rx_lines_from: [u64; SOURCES],
    /// zone->lock holds by operation ([`LOCK_OPS`] order: `__rmqueue_smallest`, `rmqueue_bulk`,
    /// `free_one_page`, `free_pcppages_bulk`, `drain_all_pages`), and their summed hold
    /// times in ns (measurement window).
    pub lock_ops: [u64; 5],
    pub lock_hold_ns: [u64; 5],
    /// sk_buff allocations and frees and the two skb caches (`skb_cache`).
    pub skb: SkbCacheStats,
}

/// The simulated machine running `flows` TCP_STREAM pairs.
pub struct StreamSim {
    pub cfg: StreamConfig,
    /// The time of the event being handled.
    now_ns: u64,
    queue: EventQueue<Event>,
    run_state: RunState,
    pub zones: Vec<Zone>,
    /// Every core's L2 and every socket's L3, by capacity.
    pub caches: Caches,
    threads: Vec<Thread>,
    flows: Vec<Flow>,
    cpus: Vec<CpuSlot>,
    pub profile: Profile<Stack>,
    pub stats: StreamStats,
    trace: Option<trace::StreamTrace>,
    /// Emptied frag lists of released skbs, reused by the next `tcp_sendmsg`.
    spare_frags: Vec<Vec<Frag>>,
    /// Reused buffer for the actions `skb_release_data` queues.
    scratch: Vec<Action>,
    /// The sk_buffs' slab caches and each socket's skb cache slots.
    skbs: skb_cache::SkbSide,
    /// Wakeup IPIs sent to an idle CPU in the measurement window (with waiting only).
    ipis: u64,
}

impl World for StreamSim {
    type Event = Event;

    crate::sim::world::world_fields!(run_state, queue);

    fn handle(&mut self, at_ns: u64, event: Event) {
        self.now_ns = at_ns;
        match event {
            Event::Resume { thread } => self.on_resume(thread),
            Event::LockGranted { node, thread } => self.on_lock_granted(node, thread),
            Event::LockRelease { node, thread } => self.on_lock_release(node, thread),
            Event::DelAck { flow } => self.on_delack(flow as usize),
        }
        if self.trace.is_some() {
            self.record_frame(event);
        }
    }
}

impl StreamSim {
    /// Records a [`TraceFrame`] after every event from now on (for the step-through player).
    pub fn enable_trace(&mut self) {
        self.trace = Some(trace::StreamTrace::default());
    }

    pub fn take_trace(&mut self) -> Vec<TraceFrame> {
        self.trace.take().map(|t| t.recorder.frames).unwrap_or_default()
    }

    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    pub fn end_ns(&self) -> u64 {
        self.run_state.end_ns()
    }

    /// Throughput of every flow together over the measurement window, Mbit/s.
    pub fn throughput_mbps(&self) -> f64 {
        let bytes: u64 = self.flows.iter().map(|f| f.measured_bytes).sum();
        bytes as f64 * 8.0 * 1000.0 / self.cfg.measure_ns() as f64
    }

    /// Each flow's bytes in flight now: accepted by `tcp_sendmsg` and not yet released by an
    /// ACK netperf's socket processed (`sk_wmem_queued`, what `sndbuf_bytes` limits).
    pub fn inflight_bytes(&self) -> Vec<u64> {
        self.flows.iter().map(|f| f.inflight_bytes).collect()
    }

    /// The CPUs the threads run on, in thread order (netperf 0, netserver 0, netperf 1, ...).
    pub fn thread_cpus(&self) -> Vec<CpuId> {
        self.threads.iter().map(|t| t.cpu).collect()
    }

    /// Zones, pagesets and lock queues are consistent.
    pub fn check_invariants(&self) -> Result<(), String> {
        for z in &self.zones {
            z.check_invariants()?;
        }
        for (i, c) in self.cpus.iter().enumerate() {
            if c.owner.is_some_and(|o| c.runq.contains(&o)) {
                return Err(format!("cpu {i}: owner also in its run queue"));
            }
        }
        Ok(())
    }

    fn on_resume(&mut self, t: ThreadId) {
        let th = &mut self.threads[t as usize];
        th.cursor_ns = th.cursor_ns.max(self.now_ns);
        th.state = ThreadState::Running;
        self.interpret(t);
    }

    fn charge(&mut self, role: usize, stack: Stack, ns: u64) {
        if self.now_ns >= self.cfg.warmup_ns() {
            self.profile.add(role, stack, ns);
        }
    }

    fn note(&mut self, text: impl FnOnce() -> String) {
        if let Some(tr) = &mut self.trace {
            tr.recorder.notes.push(text());
        }
    }

    /// Runs `t`'s actions until it must wait for the global clock, a lock, or a wakeup.
    fn interpret(&mut self, t: ThreadId) {
        loop {
            let th = &self.threads[t as usize];
            // Only the next action's kind is read before it is known to run now.
            let Some(&next) = th.prog.last() else { panic!("bug: thread {t} has an empty program") };
            let at = th.cursor_ns;
            if next.is_sync() && at > self.now_ns && !self.runs_ahead(t, next) {
                // It stays on top of the stack: the `Resume` runs it.
                self.queue.schedule(at, Event::Resume { thread: t });
                return;
            }
            let action = self.threads[t as usize].prog.pop().expect("checked");
            if !self.exec(t, action) {
                return;
            }
        }
    }

    /// Executes one action; false if the thread stops (spins, sleeps, yields).
    fn exec(&mut self, t: ThreadId, action: Action) -> bool {
        match action {
            Action::Work { cycles, stack } => self.work(t, cycles, stack),
            Action::LineNs { ns, stack } => self.advance(t, ns, stack),
            Action::BeginSend => return self.begin_send(t),
            Action::FillFrags { remaining_bytes } => self.fill_frags(t, remaining_bytes),
            Action::AllocFrag { order } => self.alloc_frag(t, order),
            Action::Watermark { node, order } => self.watermark_check(t, node, order),
            Action::Locked(op) => return self.request_lock(t, op),
            Action::TcpPush => self.tcp_push(t),
            Action::Push => {
                self.push(t);
                self.skb_softirq(t);
            }
            Action::BeginRecv => return self.begin_recv(t),
            Action::RecvSkb { copied_bytes } => self.recv_skb(t, copied_bytes),
            Action::ReleaseSkb => self.release_skb(t),
            Action::FreePage { page } => self.free_page(t, page),
            Action::Consumed { bytes } => self.consumed(t, bytes),
            Action::EndOp => return self.end_op(t),
        }
        true
    }

    fn work(&mut self, t: ThreadId, cycles: u64, stack: Stack) {
        let th = &self.threads[t as usize];
        let ns = cycles_to_ns(cycles * th.jitter_permille / 1000, th.mhz);
        self.advance(t, ns, stack);
    }

    fn advance(&mut self, t: ThreadId, ns: u64, stack: Stack) {
        let th = &mut self.threads[t as usize];
        th.cursor_ns += ns;
        th.doing = stack;
        let role = th.role as usize;
        self.charge(role, stack, ns);
    }

    fn run_next(&mut self, t: ThreadId, actions: &[Action]) {
        // The first of `actions` runs next, so it goes on top of the stack.
        let prog = &mut self.threads[t as usize].prog;
        prog.reserve(actions.len());
        for &action in actions.iter().rev() {
            prog.push(action);
        }
    }

    fn copy_cycles(&self, bytes: u32) -> u64 {
        u64::from(bytes) * 1000 / self.cfg.machine.copy_bytes_per_kcycle
    }
}
