//! The world of `skb-cache`: tcp_rr on a many-core server, every skb allocated and freed on
//! the sim kernel's slab allocator with the CPU that does it: SLAB ([`crate::sim::slab`], over
//! every NUMA node, alien caches for other nodes' objects), as the seed's 2019 server ran, or
//! SLUB ([`crate::sim::slub`], one per NUMA node), as the profile's
//! [`Allocator`](super::profile::Allocator) says (the `allocator` parameter).
//!
//! A request reaches the NIC; RSS hashes its flow to an RX queue whose interrupt runs on CPU
//! X. There the driver allocates the rx skb (sk_buff + head, and one page per frame when the
//! request spans frames: GRO merges up to 45), and the softirq runs the TCP receive path: the
//! ACK inside the request frees the previous response's tx skb (`tcp_ack` →
//! `sk_wmem_free_skb`), the skb goes on the socket and the application thread's CPU Y is
//! woken. Y's thread (epoll) reads it (`recvmsg`: copy, then `__kfree_skb`), allocates the
//! response's tx skb in `sendmsg` and transmits it. The client answers after a fixed
//! turnaround, so each flow has one transaction in flight (tcp_rr).
//!
//! The caches (472c2e07eef0, 8b27dae5a2e8, v5.2): with `tcp_rx_skb_cache`, recvmsg parks the
//! consumed skb in the socket instead of freeing it, and the next softirq of that socket frees
//! it — on X, the CPU that allocated it. With `tcp_tx_skb_cache`, tcp_ack parks the acked
//! skb and the next sendmsg reuses it: neither a free nor an allocation. With RPS/RFS the
//! driver still allocates on X but the TCP receive path runs on Y, so a parked rx skb is freed
//! on Y: still not on the CPU that allocated it.
//!
//! Timing: each CPU runs softirq work first, then its threads' work; every piece is computed
//! at its start time and the CPU is busy until it ends. A run simulates every CPU and at most
//! [`MAX_SIM_FLOWS`] flows (beyond a few flows per thread the server is saturated: more flows
//! only wait longer) over a window; work is bounded by the window and [`MAX_EVENTS`].
//!
//! Map of this folder: `mod.rs` (here) holds the constants, the configuration, the world's
//! state (flows, skbs, the `Sim`, its event enum) and `handle()`, the dispatch of each event
//! (the run loop is [`crate::sim::world`]'s); `setup`
//! sizes the skbs and caches from the configuration and builds the nodes and flows;
//! `expected` is the events a run is expected to take (the estimate's and the cost's number);
//! `handlers` is the work of a CPU (driver, TCP receive, the application's recvmsg and
//! sendmsg) and the link; `skb` is an skb's allocation and free on its node's SLUB and the
//! lines it pulls; `chains` names the call chains CPU time is charged to; `report` is what a run reports
//! (the profile, lanes, `RunResult`); `invariants` is what `make fuzz-sim` checks after every
//! event.

mod chains;
mod expected;
mod handlers;
mod invariants;
mod report;
mod setup;
mod skb;
mod wait;

pub use chains::Stack;
pub use expected::expected_events;
pub use report::{Lane, RunResult};
pub use setup::{
    parked_bytes, rx_frags, rx_head_bytes, tx_frags, tx_frags_of, tx_head_bytes, tx_head_bytes_of, LINEAR_PAYLOAD_BYTES,
};
pub use wait::WaitStats;

use super::profile::RrProfile;
use crate::model::Runner;
use crate::rng::Rng;
use crate::sim::cache::{Caches, PageData, Scale};
use crate::sim::cacheline::CacheLine;
use crate::sim::engine::EventQueue;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::slab::Slab;
use crate::sim::slub::{Obj, Slub};
use crate::sim::world::{RunState, Window, World};
use serde::Serialize;
use std::collections::VecDeque;

/// Events a run may process at most (a run stops there, [`RunResult::capped`], and reports
/// the part of the window it covered).
pub const MAX_EVENTS: u64 = 3_000_000;
/// Flows a run simulates at most (the rest are not simulated; see the module doc).
pub const MAX_SIM_FLOWS: u32 = 16_384;
/// Requests up to this size are copied into the skb head by the driver (rx copybreak).
pub const RX_COPYBREAK: u32 = 256;
/// sendmsg copies payload into the task's page frag: order-3 (32 KB) pages (SKB_FRAG_PAGE_ORDER).
pub const TX_FRAG_BYTES: u32 = 32_768;
/// Bytes on the wire per frame beside the TCP payload: TCP/IP headers with timestamps (52),
/// Ethernet header, FCS, preamble and gap (38).
pub const WIRE_OVERHEAD: u64 = 52 + 38;
/// Most lane rows recorded.
pub const MAX_LANES: usize = 16;
/// `MAX_SOFTIRQ_TIME` (kernel/softirq.c, 2.6–6.x: `msecs_to_jiffies(2)`): once softirq work
/// has run this long with work still pending, `__do_softirq` hands it to ksoftirqd, a normal
/// task that CFS runs alongside the CPU's threads (and, since 4cd13c21b207 "softirq: Let
/// ksoftirqd do its job", v4.9, Eric Dumazet, 2016-08-31, interrupts no longer run softirqs
/// inline while it is runnable).
pub const MAX_SOFTIRQ_NS: u64 = 2_000_000;
/// The warm-up lasts at least `warmup_ns` and until every simulated flow has completed this
/// many round trips: a closed loop whose cycle is longer than the warm-up (one thread for
/// every flow, a saturated link) is then past its first cycle, in which the requests sent
/// together at time 0 wait less than they do later (ASSUMPTION: the second cycle is steady).
pub const WARM_ROUND_TRIPS: u32 = 2;
/// The warm-up stops waiting for [`WARM_ROUND_TRIPS`] after this much simulated time or half
/// of [`MAX_EVENTS`], whichever comes first.
pub const MAX_WARMUP_NS: u64 = 1_000_000_000;

/// One run's configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    pub profile: RrProfile,
    pub sockets: u32,
    pub cores: u32,
    pub smt: bool,
    pub flows: u32,
    pub threads: u32,
    pub rx_cache: bool,
    pub tx_cache: bool,
    pub rps: bool,
    /// NIC receive queues (at most one per CPU: [`Config::queues`]).
    pub rx_queues: u32,
    pub request_bytes: u32,
    pub response_bytes: u32,
    pub warmup_ns: u64,
    pub measure_ns: u64,
    /// SLUB's steady-state start ([`crate::sim::slub::RemoteTraffic`]): the partial lists filled
    /// to their long-run occupancy before the first event (false: a cold start, every list
    /// empty, whose lists take tens of ms to fill). Only with
    /// [`Allocator::Slub`](super::profile::Allocator::Slub): SLAB's arrays fill within the
    /// warm-up.
    pub steady_slub: bool,
}

/// A CPU's NAPI page fragment.
#[derive(Debug, Clone, Copy, Default)]
struct NapiFrag {
    page: Option<(u32, u32)>,
    left: u32,
}

/// A NAPI fragment page: heads not yet freed, whether it is still its CPU's current page
/// (whose bias keeps its refcount above zero), and its `struct page` line.
#[derive(Debug, Clone, Copy)]
struct HeadPage {
    refs: u32,
    current: bool,
    line: CacheLine,
}

impl Config {
    /// Logical CPUs.
    pub fn n_cpus(&self) -> u32 {
        self.sockets * self.cores * if self.smt { 2 } else { 1 }
    }
    /// RX queues in use: `rx_queues`, at most one per logical CPU.
    pub fn queues(&self) -> u32 {
        self.rx_queues.clamp(1, self.n_cpus())
    }
    /// Flows simulated.
    pub fn sim_flows(&self) -> u32 {
        self.flows.min(MAX_SIM_FLOWS)
    }
    /// Real sockets each simulated flow stands for: `flows / sim_flows` exactly (1 up to
    /// [`MAX_SIM_FLOWS`]).
    pub fn scale(&self) -> Scale {
        Scale::of(u64::from(self.flows), u64::from(self.sim_flows()))
    }
}

/// An skb in flight: its objects, pages and frags, and where it was allocated.
#[derive(Debug, Clone)]
pub struct Skb {
    alloc_cpu: CpuId,
    /// The node of each object's slab (a CPU may allocate from another node's slab: its
    /// per-CPU partial list holds the slabs it froze by remote frees, whatever their node).
    nodes: [u32; 2],
    objs: [Obj; 2],
    /// rx: (node, pfn) of each frame's page.
    pages: Vec<(u32, u32)>,
    /// tx: frag chunks referenced on the allocating CPU's page frag.
    tx_frags: u32,
    /// rx with page-fragment heads ([`RxHead::Frag`](super::profile::RxHead::Frag)): the
    /// (node, pfn) of the NAPI fragment page its head is carved from; `objs[1]` is unused.
    head: Option<(u32, u32)>,
    line: CacheLine,
    /// Row of the lane view, if recorded.
    lane: Option<usize>,
}

#[derive(Debug, Clone, Default)]
struct Flow {
    irq_cpu: CpuId,
    app_cpu: CpuId,
    rx_queued: Option<Skb>,
    rx_parked: Option<Skb>,
    tx_inflight: Option<Skb>,
    tx_parked: Option<Skb>,
    sock: CacheLine,
    /// The socket state only the softirq uses, and only the process (sampled: one record for
    /// [`Config::scale`] real sockets, [`Caches::access_sampled`]).
    sock_rx: PageData,
    sock_app: PageData,
    /// When the client handed the request now in flight to the link.
    req_sent_ns: u64,
    /// Round trips completed (up to [`WARM_ROUND_TRIPS`]; the warm-up waits for them).
    done: u32,
}

/// Everything that can happen in this world.
#[derive(Debug, Clone, Copy)]
pub enum Ev {
    /// A request of the flow reaches the NIC.
    Request(u32),
    /// A CPU looks for its next piece of work.
    Cpu(CpuId),
}

/// The simulation of one configuration.
pub struct Sim {
    cfg: Config,
    m: MachineProfile,
    /// L2/L3 fill counts for line ages (this world streams no data through them, so a line
    /// stays with its last writer).
    caches: Caches,
    mhz: Vec<u64>,
    q: EventQueue<Ev>,
    run_state: RunState,
    rng: Rng,
    /// One SLUB per node when the profile's kernel runs SLUB (empty under SLAB).
    slub: Vec<Slub>,
    /// SLAB over every node when the profile's kernel runs SLAB.
    slab: Option<Slab>,
    /// Per CPU, per cache: the node whose SLUB holds the CPU's active slab (the kernel's
    /// `kmem_cache_cpu` is one per cache, over every node's slabs; [`Sim::slab_alloc`]).
    cur_node: Vec<[u32; 4]>,
    flows: Vec<Flow>,
    /// Per CPU: requests waiting for the driver (RSS queue) and for the TCP receive path (RPS
    /// backlog); per thread, the flows ready for its epoll_wait.
    driver_q: Vec<VecDeque<u32>>,
    stack_q: Vec<VecDeque<(u32, Skb)>>,
    thread_q: Vec<VecDeque<u32>>,
    /// Per CPU: its threads, the one running (None after the CPU idled) and the flows left in
    /// its current epoll batch.
    cpu_threads: Vec<Vec<u32>>,
    running: Vec<Option<u32>>,
    batch_left: Vec<u64>,
    idle: Vec<bool>,
    /// When each CPU idled, which threads were woken ([`wait`]).
    wait: wait::Waiting,
    slub_costs: crate::sim::slub::SlubCosts,
    scale: Scale,
    /// The `struct page` line of each CPU's current tx page frag.
    frag_line: Vec<CacheLine>,
    /// Per CPU: its NAPI page fragment (`napi_alloc_cache`): the page, and the heads it still
    /// has room for before `page_frag_alloc` must settle it.
    napi: Vec<NapiFrag>,
    /// Every NAPI fragment page with heads outstanding or still a CPU's current one.
    head_pages: std::collections::BTreeMap<(u32, u32), HeadPage>,
    /// Heads of this run's size one 32 KiB fragment page holds.
    heads_per_page: u32,
    rx_wire_free: u64,
    tx_wire_free: u64,
    /// Flows that have completed [`WARM_ROUND_TRIPS`] round trips.
    warm_flows: u32,
    /// Per CPU: when its current run of softirq work began (None: it last ran a thread or
    /// idled), and, once that run passed [`MAX_SOFTIRQ_NS`] with a thread waiting, the CPU
    /// time ksoftirqd and the threads have had since (CFS shares the CPU between them).
    softirq_since: Vec<Option<u64>>,
    /// Per thread: CPU time it has had (CFS's vruntime at nice 0).
    vruntime: Vec<u64>,
    ksoftirqd: Vec<Option<(u64, u64)>>,
    /// Each response of the window: when it had crossed the link (received by the client) and
    /// its round trip from the request's send (counted at the end, up to where the run got:
    /// [`RunResult::measure_ns`]).
    sent_ns: Vec<(u64, u64)>,
    /// Requests waiting for the driver (no sk_buff yet: the NIC ring) and rx skbs the driver
    /// has allocated that recvmsg has not consumed yet, now; and when they last changed
    /// (their time integrals over the window go to [`RunResult::waiting_for_driver`] and
    /// [`RunResult::rx_skbs_held`]).
    n_before_driver: u64,
    n_rx_held: u64,
    held_since: u64,
    res: RunResult,
}

impl Sim {
    /// Runs the warm-up (at least `warmup_ns`, and until every flow has completed
    /// [`WARM_ROUND_TRIPS`] round trips) by steps, then the window, through `runner` (`what`
    /// names the run in a broken invariant's message); returns the result.
    pub fn run(mut self, runner: &mut Runner, what: &str) -> RunResult {
        let warmup = self.cfg.warmup_ns;
        let warm_cap = MAX_EVENTS / 2;
        self.run_state = RunState::new(Window { warmup_ns: MAX_WARMUP_NS, measure_ns: 0 }, warm_cap);
        let mut warmed_at = None;
        while let Some(next) = self.next_event_ns() {
            if warmed_at.is_none() && self.warm_flows >= self.cfg.sim_flows() {
                warmed_at = Some(next);
            }
            if next >= warmup && warmed_at.is_some() {
                break;
            }
            if !runner.step(what, &mut self) {
                break;
            }
        }
        let start = warmup.max(warmed_at.unwrap_or_else(|| self.next_event_ns().unwrap_or(warmup)));
        let used = self.run_state.events();
        self.res.warmup_ns = start;
        self.run_state = RunState::new(Window { warmup_ns: start, measure_ns: self.cfg.measure_ns }, MAX_EVENTS - used);
        let outcome = runner.run(what, &mut self);
        self.res.events = used + outcome.events;
        self.res.capped = outcome.truncated;
        if outcome.truncated {
            self.res.measure_ns = outcome.measured_ns.max(1);
        }
        self.finish(runner.is_checking())
    }
}

impl World for Sim {
    type Event = Ev;

    crate::sim::world::world_fields!(run_state, q, start_measuring);

    fn handle(&mut self, t: u64, ev: Ev) {
        self.account_held(t);
        match ev {
            Ev::Request(f) => self.request(t, f),
            Ev::Cpu(c) => self.cpu(t, c),
        }
    }
}

/// The thread serving flow `f`: `f mod threads`.
pub fn thread_of(f: u32, threads: u32) -> u32 {
    f % threads.max(1)
}

/// The CPU of the thread serving flow `f`: thread `f mod threads`, pinned to CPU `t mod CPUs`.
pub fn app_cpu(f: u32, threads: u32, n_cpus: u32) -> CpuId {
    (thread_of(f, threads) % n_cpus.max(1)) as CpuId
}

/// The CPU that takes RX queue `q`'s interrupt: the queues spread evenly over the CPUs
/// (ASSUMPTION: the driver's affinity hints, one queue per CPU at `queues == n_cpus`).
pub fn queue_cpu(q: u32, queues: u32, n_cpus: u32) -> CpuId {
    (u64::from(q) * u64::from(n_cpus) / u64::from(queues.max(1))) as CpuId
}

/// Runs one configuration.
pub fn simulate(cfg: &Config, seed: u64) -> RunResult {
    Sim::new(cfg.clone(), seed).run(&mut Runner::plain(), "")
}
