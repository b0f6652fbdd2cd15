//! The worlds of `cross-cpu-free`: where skbs are allocated, where they are freed, and what
//! each CPU spends per packet, on the sim kernel's SLUB ([`crate::sim::slub`]).
//!
//! **udp-iperf** (seed 001): `iperf -c -u -l N`: client threads on the sending guest
//! (sendto → skb → netfront TX → wire), then the receiving guest: netfront RX on the IRQ CPU
//! allocates the skb, the softirq queues it on the socket, the iperf server on the consumer
//! CPU copies it out and frees it. Transmit skbs are freed by the sender's own
//! `xennet_tx_buf_gc()`, which `xennet_start_xmit()` calls, so on the sending CPU.
//!
//! **tcp-100g**: one TCP_STREAM flow into a 100 Gbit/s NIC with RFS: NIC RX + GRO + skb and
//! page allocation on CPU A, which steers the skb to the backlog of CPU B (`get_rps_cpu` →
//! `enqueue_to_backlog`, an IPI when that backlog was empty); B runs the TCP receive
//! (`tcp_v4_rcv`), wakes the reader on its own CPU, and `recvmsg()` copies and frees
//! (68822bdf76f1's message: under RFS the skbs are "picked from the cpu on which user thread
//! is running"). `rfs=false` is RSS alone: the TCP receive on A, a cross-CPU wakeup of B.
//! Every frame needs a fresh page from the page allocator (page recycling failing). `defer_free` models
//! `skb_attempt_defer_free()` (68822bdf76f1, v5.19): B puts the skb on A's per-CPU defer list
//! and A frees it in its next `net_rx_action()` (an IPI only if the list reaches 128).
//!
//! Timing: every piece of work (one packet on one CPU) is computed at its start time, and the
//! CPU is busy until it ends; a CPU shared by softirq and a process (consumer=same) runs them
//! one after the other. Work per run is bounded by the simulated window and `MAX_EVENTS`.

//!
//! Map of this folder: `mod.rs` (here) holds the constants, the parameters (`Input`, typed
//! once) and the configuration, the world's
//! state (hosts, the `Sim`, its event enum) and `handle()`, the dispatch of each event (the
//! run loop is [`crate::sim::world`]'s);
//! `setup` sizes the caches from the configuration and builds the hosts and roles;
//! `expected` is the events a run is expected to take (the estimate's and the cost's number);
//! `handlers` holds one handler per event (udp-iperf, tcp-100g and the shared receive side)
//! and the skb's allocation and free through SLUB; `chains` names the call chains CPU time is charged to;
//! `report` holds what a run reports (time per chain and CPU, lane events, the `RunResult`) and the measurement window's start and end;
//! `invariants` holds what `make fuzz-sim` checks after every event.

mod chains;
mod expected;
mod handlers;
mod invariants;
mod report;
mod setup;

pub use chains::Stack;
pub use expected::expected_events;
pub use report::{CpuTime, LaneEvent, RunResult};
pub use setup::{rx_head_bytes, tx_head_bytes};

use super::profile::HostProfile;
use crate::model::Runner;
use crate::rng::Rng;
use crate::sim::ddio::Ddio;
use crate::sim::engine::EventQueue;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::slub::{CacheSpec, Obj, OpCost, Slub};
use crate::sim::world::{RunState, World};
use crate::sim::zone::Zone;
use serde::Serialize;
use std::collections::VecDeque;

/// Events a run may process at most (a run stops there, [`RunResult::capped`]; the default
/// windows need far fewer).
pub const MAX_EVENTS: u64 = 2_000_000;
/// Longest the run goes on after the measured window (the loop's window is the measured one
/// plus this) for the datagrams sent in it to be read or dropped (the drain). It ends as soon as none is left; a datagram still queued at this
/// bound is not counted. 100 ms covers a full socket buffer (224 KiB of 16-byte datagrams, 290
/// skbs) read at the slowest `reader_work_ns` (100 µs each), 29 ms.
pub const DRAIN_MAX_NS: u64 = 100_000_000;
/// Most alloc/free arrows the lane view records.
pub const MAX_LANE_EVENTS: usize = 36;
/// netfront's rx head: RX_COPY_THRESHOLD (256) + NET_IP_ALIGN (2) + NET_SKB_PAD (64).
pub const NETFRONT_RX_HEAD_BYTES: u32 = 256 + 2 + 64;
/// Frames GRO merges into one skb (one page frag each, MAX_SKB_FRAGS = 17).
pub const GRO_FRAMES: u32 = 17;
/// skbs the receiver's window lets be in flight (about 3 MB of tcp_rmem).
pub const TCP_WINDOW_SKBS: usize = 128;
/// Where the NIC writes a frame in its page: mlx5e's RX headroom without XDP, NET_SKB_PAD
/// (64) + NET_IP_ALIGN (0 on x86) (`mlx5e_get_rq_headroom`, drivers/net/ethernet/mellanox/mlx5,
/// 5.19).
pub const RX_HEADROOM_BYTES: u32 = 64;
/// Headers before a tcp-100g frame's payload: Ethernet (14), IPv4 (20), TCP with timestamps (32).
pub const TCP_FRAME_HEADER_BYTES: u32 = 66;
/// `net.core.skb_defer_max` (39564c3fdc66, v5.19; default 64): `skb_attempt_defer_free()`
/// kicks the allocating CPU with an IPI when its list reaches half of it, and a CPU that
/// finds the list this long frees the skb itself. (68822bdf76f1 as posted kicked at 128 and
/// had no limit; both patches are in 5.19.)
pub const SKB_DEFER_MAX: u32 = 64;
/// Cost of sending (on the sender) and taking (on the target) one IPI.
pub const IPI_CYCLES: u64 = 2000;
/// netfront RX ring slots (NET_RX_RING_SIZE for a one-page ring).
pub const RX_RING: usize = 256;
/// UDP receive buffer (iperf's "UDP buffer size: 224 KByte (default)" in the seed).
pub const UDP_RCVBUF_BYTES: u64 = 224 * 1024;
/// The sending guest's vCPU that takes netfront's event-channel interrupt (vCPU 0, where
/// Linux binds an event channel unless told otherwise): its `xennet_interrupt` runs
/// `xennet_tx_buf_gc` and frees the transmitted skbs there.
pub const TX_IRQ_CPU: CpuId = 0;

/// Bytes a UDP datagram of `payload` bytes occupies on Ethernet: UDP (8) + IPv4 (20) +
/// Ethernet header (14) + FCS (4), padded to the 64-byte minimum frame, + preamble and SFD (8)
/// + the inter-frame gap (12). Untagged frames, no IP options, no fragmentation (payload ≤ 1472).
pub fn udp_wire_bytes(payload: u32) -> u64 {
    (u64::from(payload) + 8 + 20 + 14 + 4).max(64) + 8 + 12
}

/// The most UDP goodput (payload Mbit/s, as iperf counts it) a link of `link_mbps` carries.
pub fn goodput_ceiling_mbps(payload: u32, link_mbps: u64) -> f64 {
    link_mbps as f64 * f64::from(payload) / udp_wire_bytes(payload) as f64
}

crate::choice_enum! {
    /// Where the reader of the socket runs, relative to the CPU taking the NIC's interrupts.
    pub enum Consumer {
        /// The iperf server runs on the IRQ CPU.
        Same = "same",
        /// The iperf server runs on another CPU.
        Other = "other",
        /// One CPU takes every interrupt and feeds `consumers` readers on other CPUs.
        Dispatcher = "dispatcher",
    }
}

crate::choice_enum! {
    /// Which workload runs.
    pub enum Workload {
        /// Seed 001: UDP iperf between two 2011 hosts (Xen guests: our assumption).
        UdpIperf = "udp-iperf",
        /// One TCP_STREAM flow into a 100 Gbit/s NIC, RX and reader on two CPUs.
        Tcp100g = "tcp-100g",
    }
}

crate::params_input! {
    /// Every parameter of a run, typed: the one place that reads them by name. In a
    /// [`Config`], the values the world runs with (`Input::config` applies the workload's).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    pub struct Input {
        pub workload: Workload,
        pub consumer: Consumer,
        /// Readers in dispatcher mode (1 otherwise).
        pub consumers: u32,
        pub shinfo_split: bool,
        pub datagram_bytes: u32,
        pub defer_free: bool,
        /// SLUB's per-CPU partial slabs (49e2258586b4, Linux 3.2; the kernels of both workloads
        /// have them): [`Slub::enable_cpu_partial`] on both hosts. Off: SLUB as before 3.2.
        pub cpu_partial: bool,
        /// tcp-100g: Receive Flow Steering (`rps_sock_flow_entries` and the queue's
        /// `rps_flow_cnt` set, as in 68822bdf76f1's test): `get_rps_cpu()` steers the GRO skb
        /// from A's `net_rx_action` to the backlog of B, the CPU whose `recvmsg()` last touched
        /// the flow, and B runs `tcp_v4_rcv`. Off: RSS alone, the TCP receive on A.
        pub rfs: bool,
        /// Application work per datagram in each reader (0: iperf, which only counts them).
        pub reader_work_ns: u64,
        pub warmup_us: u64,
        pub measure_us: u64,
    }
}

/// A run of either world: its parameters as the world runs them, on a host profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    pub input: Input,
    pub profile: HostProfile,
    /// Record lane events (the first skbs after the warm-up).
    pub lanes: bool,
}

impl Config {
    pub fn warmup_ns(&self) -> u64 {
        self.input.warmup_us * 1000
    }

    pub fn measure_ns(&self) -> u64 {
        self.input.measure_us * 1000
    }
}

/// An skb in flight: its objects, pages and where it was allocated.
#[derive(Debug, Clone, Copy)]
pub struct Skb {
    id: u32,
    flow: u16,
    alloc_cpu: CpuId,
    objs: [Option<Obj>; 3],
    /// Page frames of its frags (tcp: one per frame).
    pages: u32,
    first_page: usize,
    /// udp: its datagram was on the wire entirely inside the measured window, so its fate
    /// (read or dropped) is what the window counts ([`Sim::settle`]).
    counted: bool,
}

/// Everything that can happen in this world.
#[derive(Debug, Clone, Copy)]
pub enum Ev {
    /// A client builds its next datagram.
    Send(u16),
    /// A packet reaches the receiving host's NIC (`counted`: see [`Skb::counted`]).
    Arrive { flow: u16, counted: bool },
    /// The IRQ CPU takes the next packet of its backlog.
    Irq,
    /// The IRQ CPU has processed a packet: queue it on the socket.
    Deliver(Skb),
    /// A reader runs.
    Read(u16),
    /// netfront's event-channel interrupt on the sender (transmit responses of a client's
    /// ring reached `rsp_event`); the sequence number drops superseded requests.
    TxIrq { client: u16, seq: u64 },
    /// The measured window ends: its statistics are read out; the run goes on (the drain)
    /// only until every datagram the window counts has been read or dropped.
    WindowEnd,
}

/// One host: its SLUB, CPUs and time accounting.
struct Host {
    m: MachineProfile,
    slub: Slub,
    free_at: Vec<u64>,
    time: CpuTime,
    caches: [Option<u16>; 3],
}

impl Host {
    fn new(p: &HostProfile, cpus: usize, specs: &[CacheSpec], pcp_high: u32, cpu_partial: bool) -> Host {
        let m = p.machine(cpus as u32);
        let zone = Zone::new(0, 1 << 16, cpus, pcp_high, pcp_high.div_ceil(6).max(1), false);
        let mut slub = Slub::new(&m, specs, cpus, zone, p.slub());
        if cpu_partial {
            slub.enable_cpu_partial();
        }
        let caches = [0, 1, 2].map(|i| (i < specs.len()).then_some(i as u16));
        Host { m, slub, free_at: vec![0; cpus], time: CpuTime::new(cpus), caches }
    }

    /// Time of an op on `cpu`, charged to the profile: cycles at the clock + lines to
    /// `stack`, the lock wait to `stack.spin()`.
    fn charge(&mut self, p: &HostProfile, cpu: CpuId, stack: Stack, c: OpCost) -> u64 {
        let work = p.ns(c.cycles) + c.line_ns;
        self.time.add(cpu, stack, work);
        self.time.add(cpu, stack.spin(), c.spin_ns);
        work + c.spin_ns
    }

    fn work(&mut self, p: &HostProfile, cpu: CpuId, stack: Stack, cycles: u64) -> u64 {
        let ns = p.ns(cycles);
        self.time.add(cpu, stack, ns);
        ns
    }

    fn raw(&mut self, cpu: CpuId, stack: Stack, ns: u64) -> u64 {
        self.time.add(cpu, stack, ns);
        ns
    }
}

/// The simulation of one configuration.
pub struct Sim {
    cfg: Config,
    q: EventQueue<Ev>,
    run_state: RunState,
    rng: Rng,
    tx: Host,
    rx: Host,
    /// Per client: in-flight tx skbs with their completion times.
    tx_inflight: Vec<VecDeque<(u64, Skb)>>,
    /// Per client's ring: absolute index of the oldest in-flight request (`rsp_cons`), the
    /// `rsp_event` netfront last set, and the sequence number of the interrupt requested.
    tx_cons: Vec<u64>,
    tx_rsp_event: Vec<u64>,
    tx_irq_seq: Vec<u64>,
    /// The receiver's next interrupt pays an upcall (the IRQ CPU was idle).
    rx_upcall_due: bool,
    wire_free_at: u64,
    /// Packets on netfront's RX ring: flow, and whether the window counts it.
    backlog: VecDeque<(u16, bool)>,
    irq_busy: bool,
    /// Per reader: socket queue, queued bytes, sleeping?
    sockq: Vec<VecDeque<Skb>>,
    sock_bytes: Vec<u64>,
    sleeping: Vec<bool>,
    /// Deferred skbs waiting on the allocating CPU's list (tcp and udp alike).
    defer_list: Vec<Skb>,
    defer_line: crate::sim::cacheline::CacheLine,
    /// tcp: A is blocked on a full window; when the next skb's frames are all in.
    a_blocked: bool,
    /// tcp with RFS: when B's softirq ends the TCP receive of the last skb steered to it; a
    /// backlog that is empty before the next one comes needs A's IPI to schedule it again.
    rps_done_at: u64,
    next_arrival_ns: u64,
    pages: Vec<u32>,
    /// tcp-100g: the LLC ways the NIC's DMA fills (`None` for udp-iperf).
    ddio: Option<Ddio>,
    next_skb: u32,
    res: RunResult,
    lane_first_skb: Option<u32>,
    /// Datagrams the window counts whose fate (read or dropped) is still open.
    pending: u64,
    /// The measured window has ended (its statistics are in `res`).
    closed: bool,
}

impl Sim {
    /// The sending vCPU of client `c`: the interrupt's vCPU when consumer = same (iperf on
    /// the IRQ vCPU of both guests), another vCPU otherwise.
    fn client_cpu(&self, c: u16) -> CpuId {
        match (self.cfg.input.workload, self.cfg.input.consumer) {
            (Workload::UdpIperf, Consumer::Same) => TX_IRQ_CPU,
            _ => c + 1,
        }
    }

    /// Inside the measured window: after the warm-up, before [`Ev::WindowEnd`].
    fn in_window(&self) -> bool {
        self.run_state.measuring() && !self.closed
    }

    fn reader_cpu(&self, reader: u16) -> CpuId {
        match (self.cfg.input.workload, self.cfg.input.consumer) {
            (Workload::UdpIperf, Consumer::Same) => 0,
            _ => reader + 1,
        }
    }

    /// Runs to the end of the window through `runner` (`what` names the run in a broken
    /// invariant's message); returns the result.
    pub fn run(mut self, runner: &mut Runner, what: &str) -> RunResult {
        let outcome = runner.run(what, &mut self);
        self.res.events = outcome.events;
        self.res.capped = outcome.truncated;
        self.finish(runner.is_checking())
    }
}

impl World for Sim {
    type Event = Ev;

    crate::sim::world::world_fields!(run_state, q, start_measuring);

    fn handle(&mut self, t: u64, ev: Ev) {
        match ev {
            Ev::Send(c) => self.send(t, c),
            Ev::Arrive { flow, counted } => self.arrive(t, flow, counted),
            Ev::Irq => match self.cfg.input.workload {
                Workload::UdpIperf => self.irq_udp(t),
                Workload::Tcp100g => self.irq_tcp(t),
            },
            Ev::Deliver(skb) => self.deliver(t, skb),
            Ev::Read(r) => self.read(t, r),
            Ev::TxIrq { client, seq } => self.tx_irq(t, client, seq),
            Ev::WindowEnd => self.window_end(t),
        }
    }
}
