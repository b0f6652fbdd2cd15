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
//! page allocation on CPU A, `recvmsg()` + free on CPU B; every frame needs a fresh page from
//! the page allocator (page recycling failing). `defer_free` models
//! `skb_attempt_defer_free()` (68822bdf76f1, v5.19): B puts the skb on A's per-CPU defer list
//! and A frees it in its next `net_rx_action()` (an IPI only if the list reaches 128).
//!
//! Timing: every piece of work (one packet on one CPU) is computed at its start time, and the
//! CPU is busy until it ends; a CPU shared by softirq and a process (consumer=same) runs them
//! one after the other. Work per run is bounded by the simulated window and `MAX_EVENTS`.

use super::profile::HostProfile;
use crate::rng::Rng;
use crate::sim::engine::EventQueue;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::slub::{AllocPath, CacheSpec, FreePath, Obj, OpCost, Slub, SlubStats};
use crate::sim::zone::Zone;
use serde::Serialize;
use std::collections::VecDeque;

/// Events a run may process at most (each run stops there; the default windows need far fewer).
pub const MAX_EVENTS: u64 = 2_000_000;
/// Most alloc/free arrows the lane view records.
pub const MAX_LANE_EVENTS: usize = 36;
/// Bytes of skb_shared_info in 2011 (3.1/3.2, 18 frags of 16 bytes): 344, aligned to 384.
pub const SHINFO_2011_BYTES: u32 = 384;
/// `sizeof(struct sk_buff)` rounded by the cache's HWCACHE alignment.
pub const SKB_HEAD_CACHE_BYTES: u32 = 256;
/// kmalloc size classes (mm/slab_common.c).
pub const KMALLOC_CLASSES: [u32; 13] = [8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192];
/// netfront's rx head: RX_COPY_THRESHOLD (256) + NET_IP_ALIGN (2) + NET_SKB_PAD (64).
pub const NETFRONT_RX_HEAD_BYTES: u32 = 256 + 2 + 64;
/// TCP payload per 1500-byte frame with timestamps.
pub const TCP_MSS: u32 = 1448;
/// Frames GRO merges into one skb (one page frag each, MAX_SKB_FRAGS = 17).
pub const GRO_FRAMES: u32 = 17;
/// skbs the receiver's window lets be in flight (about 3 MB of tcp_rmem).
pub const TCP_WINDOW_SKBS: usize = 128;
/// Driver work per received frame (descriptor, DMA sync, napi_gro_receive). ASSUMPTION.
pub const DRIVER_FRAME_CYCLES: u64 = 300;
/// `skb_attempt_defer_free()` kicks the allocating CPU with an IPI at this list length (v5.19).
pub const DEFER_KICK: u32 = 128;
/// Cost of sending (on the sender) and taking (on the target) one IPI.
pub const IPI_CYCLES: u64 = 2000;
/// netfront RX ring slots (NET_RX_RING_SIZE for a one-page ring).
pub const RX_RING: usize = 256;
/// UDP receive buffer (iperf's "UDP buffer size: 224 KByte (default)" in the seed).
pub const UDP_RCVBUF_BYTES: u64 = 224 * 1024;
/// Ethernet + IP + UDP bytes on the wire around a datagram (incl. preamble and gap).
pub const UDP_WIRE_OVERHEAD: u64 = 8 + 20 + 14 + 4 + 20;

/// `SKB_DATA_ALIGN`: up to a 64-byte line.
pub fn align64(n: u32) -> u32 {
    n.div_ceil(64) * 64
}

/// The kmalloc class a request of `n` bytes lands in.
pub fn kmalloc_class(n: u32) -> u32 {
    KMALLOC_CLASSES.iter().copied().find(|&c| c >= n).unwrap_or(8192)
}

/// Head bytes of a UDP transmit skb: link header room (16) + IP/UDP (28) + data + 15 slop,
/// aligned, plus the shared info unless it comes from its own cache.
pub fn tx_head_bytes(datagram: u32, split: bool) -> u32 {
    align64(16 + 28 + datagram + 15) + if split { 0 } else { SHINFO_2011_BYTES }
}

/// Head bytes of a netfront receive skb (data past 256 bytes goes to a page frag).
pub fn rx_head_bytes(split: bool) -> u32 {
    align64(NETFRONT_RX_HEAD_BYTES) + if split { 0 } else { SHINFO_2011_BYTES }
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
        /// Seed 001: UDP iperf between two 2011 Xen guests.
        UdpIperf = "udp-iperf",
        /// One TCP_STREAM flow into a 100 Gbit/s NIC, RX and reader on two CPUs.
        Tcp100g = "tcp-100g",
    }
}

/// Where time goes: the terms of the per-packet cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Term {
    Syscall,
    Stack,
    Skb,
    SlabFast,
    SlabSlow,
    LockSpin,
    PageAlloc,
    Copy,
    Xen,
    Wakeup,
    Defer,
    Driver,
    App,
}

/// Every term, in report order, with the kernel functions it stands for.
pub const TERMS: [(Term, &str); 13] = [
    (Term::Syscall, "syscall (sendto/recvfrom + protocol)"),
    (Term::Stack, "softirq protocol receive (ip_rcv, udp_rcv/tcp_v4_rcv)"),
    (Term::Skb, "skb init/release (__alloc_skb, skb_release_data)"),
    (Term::SlabFast, "SLUB fast path (slab_alloc/slab_free)"),
    (Term::SlabSlow, "SLUB slow path (__slab_free, ___slab_alloc, line transfers)"),
    (Term::LockSpin, "spinning (list_lock, zone->lock)"),
    (Term::PageAlloc, "page allocator (rmqueue, free_unref_page)"),
    (Term::Copy, "copy_from_user/copy_to_user"),
    (Term::Xen, "netfront + hypervisor (grants, event channel)"),
    (Term::Wakeup, "try_to_wake_up + IPI"),
    (Term::Defer, "skb_attempt_defer_free / defer list flush"),
    (Term::Driver, "NIC driver + GRO per frame"),
    (Term::App, "the reader's own work per datagram (application)"),
];

/// ns per term per CPU of one host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CpuTime {
    pub ns: Vec<[u64; 13]>,
    /// Of that, ns spent freeing skbs (slab, pages, defer handoff and flush).
    pub free_ns: Vec<u64>,
}

impl CpuTime {
    fn new(cpus: usize) -> Self {
        CpuTime { ns: vec![[0; 13]; cpus], free_ns: vec![0; cpus] }
    }
    fn add(&mut self, cpu: CpuId, t: Term, ns: u64) {
        self.ns[cpu as usize][t as usize] += ns;
    }
    /// Busy ns of `cpu`.
    pub fn busy(&self, cpu: usize) -> u64 {
        self.ns[cpu].iter().sum()
    }
    /// Free work (slab, pages, defer handoff and flush) done on `cpu`.
    pub fn free_side(&self, cpu: usize) -> u64 {
        self.free_ns[cpu]
    }
}

/// One allocation or free the lane view draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LaneEvent {
    pub t_ns: u64,
    pub cpu: CpuId,
    /// Which skb (in allocation order from the start of the recording).
    pub skb: u32,
    pub free: bool,
    /// Index into [`RunResult::caches`].
    pub cache: u16,
    /// Fast path?
    pub fast: bool,
    /// Short name of the path (fast, refill, new slab, frozen, add partial, ...).
    pub path: &'static str,
    pub slab_pfn: u32,
    /// Whose active slab the object's slab was (None: nobody's).
    pub slab_owner: Option<CpuId>,
    /// The CPU that allocated the object (for frees).
    pub alloc_cpu: CpuId,
}

fn alloc_path_name(p: AllocPath) -> &'static str {
    match p {
        AllocPath::Fast => "fast",
        AllocPath::Refill => "refill",
        AllocPath::Partial => "from partial",
        AllocPath::NewSlab => "new slab",
    }
}

fn free_path_name(p: FreePath) -> &'static str {
    match p {
        FreePath::Fast => "fast",
        FreePath::Frozen => "slow: frozen",
        FreePath::Partial => "slow: partial",
        FreePath::AddPartial => "slow: add partial",
        FreePath::Discard => "slow: discard",
        FreePath::KeepEmpty => "slow: keep empty",
    }
}

/// What one run measured (over the measurement window, after the warm-up).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    pub workload: Workload,
    /// Simulated ns measured.
    pub measure_ns: u64,
    /// Datagrams (udp) or frames (tcp) sent in the window.
    pub sent: u64,
    /// Datagrams or frames read by the receiver(s) in the window.
    pub received: u64,
    /// Datagrams dropped on a full socket buffer in the window.
    pub dropped: u64,
    /// Payload bytes read in the window.
    pub bytes_read: u64,
    /// skbs freed on the receiving host in the window, and the slow-path frees among them.
    pub rx_skbs_freed: u64,
    pub rx_free_slowpath: u64,
    pub rx_free_fastpath: u64,
    /// Receiving host: SLUB statistics per CPU (all caches).
    pub rx_slub: Vec<SlubStats>,
    /// Receiving host: `list_lock` acquisitions and contentions (all caches), zone->lock too.
    pub list_lock_acquisitions: u64,
    pub list_lock_contentions: u64,
    pub list_lock_wait_ns: u64,
    pub zone_lock_contentions: u64,
    /// Receiving host CPU time per term.
    pub rx_time: CpuTime,
    /// Sending host CPU time per term (udp only).
    pub tx_time: CpuTime,
    /// Receiver CPU roles, in lane order: (cpu, role).
    pub rx_cpus: Vec<(CpuId, &'static str)>,
    /// Names of the receiver's caches with object size and slab order.
    pub caches: Vec<(&'static str, u32, u32)>,
    /// `/sys/kernel/slab/*/` statistics of the receiver, text.
    pub sysfs: String,
    pub lanes: Vec<LaneEvent>,
    pub events: u64,
    /// True if the run stopped at [`MAX_EVENTS`].
    pub capped: bool,
}

/// A run of either world.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    pub workload: Workload,
    pub profile: HostProfile,
    pub consumer: Consumer,
    /// Readers in dispatcher mode (1 otherwise).
    pub consumers: u32,
    pub shinfo_split: bool,
    pub datagram_bytes: u32,
    pub defer_free: bool,
    /// Application work per datagram in each reader (0: iperf, which only counts them).
    pub reader_work_ns: u64,
    pub warmup_ns: u64,
    pub measure_ns: u64,
    /// Record lane events (the first skbs after the warm-up).
    pub lanes: bool,
}

#[derive(Debug, Clone, Copy)]
struct Skb {
    id: u32,
    flow: u16,
    alloc_cpu: CpuId,
    objs: [Option<Obj>; 3],
    /// Page frames of its frags (tcp: one per frame).
    pages: u32,
    first_page: usize,
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// A client builds its next datagram.
    Send(u16),
    /// A packet reaches the receiving host's NIC.
    Arrive { flow: u16 },
    /// The IRQ CPU takes the next packet of its backlog.
    Irq,
    /// The IRQ CPU has processed a packet: queue it on the socket.
    Deliver(Skb),
    /// A reader runs.
    Read(u16),
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
    fn new(p: &HostProfile, cpus: usize, specs: &[CacheSpec], pcp_high: u32) -> Host {
        let m = p.machine(cpus as u32);
        let zone = Zone::new(0, 1 << 16, cpus, pcp_high, pcp_high.div_ceil(6).max(1), false);
        let slub = Slub::new(&m, specs, cpus, zone, p.slub);
        let caches = [0, 1, 2].map(|i| (i < specs.len()).then_some(i as u16));
        Host { m, slub, free_at: vec![0; cpus], time: CpuTime::new(cpus), caches }
    }

    /// Time of an op on `cpu`, charged to the profile: cycles at the clock + lines + spin.
    fn charge(&mut self, p: &HostProfile, cpu: CpuId, term: Term, c: OpCost) -> u64 {
        let work = p.ns(c.cycles) + c.line_ns;
        self.time.add(cpu, term, work);
        self.time.add(cpu, Term::LockSpin, c.spin_ns);
        work + c.spin_ns
    }

    fn work(&mut self, p: &HostProfile, cpu: CpuId, term: Term, cycles: u64) -> u64 {
        let ns = p.ns(cycles);
        self.time.add(cpu, term, ns);
        ns
    }

    fn raw(&mut self, cpu: CpuId, term: Term, ns: u64) -> u64 {
        self.time.add(cpu, term, ns);
        ns
    }
}

/// The simulation of one configuration.
pub struct Sim {
    cfg: Config,
    q: EventQueue<Ev>,
    rng: Rng,
    tx: Host,
    rx: Host,
    /// Per client: in-flight tx skbs with their completion times.
    tx_inflight: Vec<VecDeque<(u64, Skb)>>,
    wire_free_at: u64,
    backlog: VecDeque<u16>,
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
    next_arrival_ns: u64,
    pages: Vec<u32>,
    next_skb: u32,
    measuring: bool,
    res: RunResult,
    lane_first_skb: Option<u32>,
}

impl Sim {
    pub fn new(cfg: Config, seed: u64) -> Sim {
        let p = cfg.profile;
        let n = cfg.consumers.max(1) as usize;
        let (tx_specs, rx_specs, rx_cpus): (Vec<CacheSpec>, Vec<CacheSpec>, usize) = match cfg.workload {
            Workload::UdpIperf => {
                let mut tx = vec![CacheSpec { name: "skbuff_head_cache", size: SKB_HEAD_CACHE_BYTES }];
                let mut rx = tx.clone();
                let txh = kmalloc_class(tx_head_bytes(cfg.datagram_bytes, cfg.shinfo_split));
                let rxh = kmalloc_class(rx_head_bytes(cfg.shinfo_split));
                tx.push(CacheSpec { name: kmalloc_name(txh), size: txh });
                rx.push(CacheSpec { name: kmalloc_name(rxh), size: rxh });
                if cfg.shinfo_split {
                    let s = CacheSpec { name: "skb_shinfo_cache", size: SHINFO_2011_BYTES };
                    tx.push(s);
                    rx.push(s);
                }
                let rx_cpus = if cfg.consumer == Consumer::Dispatcher { 1 + n } else { 2 };
                (tx, rx, rx_cpus)
            }
            Workload::Tcp100g => {
                let rx = vec![
                    CacheSpec { name: "skbuff_head_cache", size: SKB_HEAD_CACHE_BYTES },
                    CacheSpec { name: "skbuff_small_head", size: 640 },
                ];
                (rx.clone(), rx, 2)
            }
        };
        let clients = if cfg.consumer == Consumer::Dispatcher { n } else { 1 };
        let tx = Host::new(&p, clients.max(2), &tx_specs, 378);
        // tcp-100g: a 6.x pcp->high for a large zone (Mel Gorman's 5.14 sizing gives hundreds).
        let rx = Host::new(&p, rx_cpus, &rx_specs, 378);
        let readers = if cfg.consumer == Consumer::Dispatcher && cfg.workload == Workload::UdpIperf { n } else { 1 };
        let mut rx_roles: Vec<(CpuId, &'static str)> = vec![(0, "IRQ CPU: NIC RX, allocates")];
        match (cfg.workload, cfg.consumer) {
            (Workload::Tcp100g, _) => rx_roles = vec![(0, "CPU A: NIC RX, allocates"), (1, "CPU B: recvmsg, frees")],
            (_, Consumer::Same) => rx_roles[0].1 = "IRQ CPU + iperf server",
            (_, Consumer::Other) => rx_roles.push((1, "iperf server")),
            (_, Consumer::Dispatcher) => {
                for i in 0..n {
                    rx_roles.push(((i + 1) as CpuId, "reader"));
                }
            }
        }
        let res = RunResult {
            workload: cfg.workload,
            measure_ns: cfg.measure_ns,
            sent: 0,
            received: 0,
            dropped: 0,
            bytes_read: 0,
            rx_skbs_freed: 0,
            rx_free_slowpath: 0,
            rx_free_fastpath: 0,
            rx_slub: Vec::new(),
            list_lock_acquisitions: 0,
            list_lock_contentions: 0,
            list_lock_wait_ns: 0,
            zone_lock_contentions: 0,
            rx_time: CpuTime::new(rx_cpus),
            tx_time: CpuTime::new(clients.max(2)),
            rx_cpus: rx_roles,
            caches: rx.slub.caches.iter().map(|c| (c.name, c.size, c.order)).collect(),
            sysfs: String::new(),
            lanes: Vec::new(),
            events: 0,
            capped: false,
        };
        let mut sim = Sim {
            q: EventQueue::default(),
            rng: Rng::new(seed, 0xc0c0),
            tx,
            rx,
            tx_inflight: vec![VecDeque::new(); clients],
            wire_free_at: 0,
            backlog: VecDeque::new(),
            irq_busy: false,
            sockq: vec![VecDeque::new(); readers],
            sock_bytes: vec![0; readers],
            sleeping: vec![true; readers],
            defer_list: Vec::new(),
            defer_line: Default::default(),
            a_blocked: false,
            next_arrival_ns: 0,
            pages: Vec::new(),
            next_skb: 0,
            measuring: false,
            res,
            lane_first_skb: None,
            cfg,
        };
        match sim.cfg.workload {
            Workload::UdpIperf => {
                for c in 0..clients {
                    // Clients start a few hundred ns apart (iperf threads do not start in lockstep).
                    let at = u64::from(sim.rng.below(500)) + c as u64 * 97;
                    sim.q.schedule(at, Ev::Send(c as u16));
                }
            }
            Workload::Tcp100g => sim.q.schedule(0, Ev::Irq),
        }
        sim
    }

    fn reader_cpu(&self, reader: u16) -> CpuId {
        match (self.cfg.workload, self.cfg.consumer) {
            (Workload::UdpIperf, Consumer::Same) => 0,
            _ => reader + 1,
        }
    }

    /// Runs to the end of the window; returns the result.
    pub fn run(mut self) -> RunResult {
        let end = self.cfg.warmup_ns + self.cfg.measure_ns;
        while let Some((t, ev)) = self.q.pop() {
            if t >= end {
                break;
            }
            if !self.measuring && t >= self.cfg.warmup_ns {
                self.start_measuring();
            }
            self.res.events += 1;
            if self.res.events >= MAX_EVENTS {
                self.res.capped = true;
                break;
            }
            match ev {
                Ev::Send(c) => self.send(t, c),
                Ev::Arrive { flow } => self.arrive(t, flow),
                Ev::Irq => match self.cfg.workload {
                    Workload::UdpIperf => self.irq_udp(t),
                    Workload::Tcp100g => self.irq_tcp(t),
                },
                Ev::Deliver(skb) => self.deliver(t, skb),
                Ev::Read(r) => self.read(t, r),
            }
        }
        self.finish()
    }

    fn start_measuring(&mut self) {
        self.measuring = true;
        self.rx.slub.reset_stats();
        self.tx.slub.reset_stats();
        self.rx.time = CpuTime::new(self.rx.free_at.len());
        self.tx.time = CpuTime::new(self.tx.free_at.len());
    }

    fn finish(mut self) -> RunResult {
        let r = &mut self.res;
        r.rx_slub = self.rx.slub.per_cpu();
        for c in &self.rx.slub.caches {
            r.list_lock_acquisitions += c.list_lock.stats.acquisitions;
            r.list_lock_contentions += c.list_lock.stats.contentions;
            r.list_lock_wait_ns += c.list_lock.stats.wait_ns_total;
        }
        r.zone_lock_contentions = self.rx.slub.zone.lock.stats.contentions;
        r.rx_free_slowpath = r.rx_slub.iter().map(|s| s.free_slowpath).sum();
        r.rx_free_fastpath = r.rx_slub.iter().map(|s| s.free_fastpath).sum();
        let cpus: Vec<CpuId> = (0..self.rx.free_at.len() as CpuId).collect();
        r.sysfs = (0..self.rx.slub.caches.len() as u16).map(|c| self.rx.slub.sysfs_stats(c, &cpus)).collect();
        r.rx_time = self.rx.time.clone();
        r.tx_time = self.tx.time.clone();
        debug_assert_eq!(self.rx.slub.check_invariants(), Ok(()));
        self.res
    }

    fn lane(&mut self, ev: LaneEvent) {
        if !self.cfg.lanes || !self.measuring || self.res.lanes.len() >= MAX_LANE_EVENTS {
            return;
        }
        let first = *self.lane_first_skb.get_or_insert(ev.skb);
        if ev.skb < first {
            return;
        }
        self.res.lanes.push(LaneEvent { skb: ev.skb - first, ..ev });
    }

    /// Allocates the objects of one skb on `cpu` of the receiver (`rx`) or sender.
    fn alloc_skb(&mut self, rx: bool, cpu: CpuId, now: u64, flow: u16) -> (Skb, u64) {
        let p = self.cfg.profile;
        let id = self.next_skb;
        self.next_skb += 1;
        let mut skb = Skb { id, flow, alloc_cpu: cpu, objs: [None; 3], pages: 0, first_page: 0 };
        let mut ns = 0;
        let host = if rx { &mut self.rx } else { &mut self.tx };
        let mut lanes = Vec::new();
        let caches = host.caches;
        for (i, cache) in caches.iter().enumerate() {
            let Some(cache) = *cache else { continue };
            let (obj, d) = host.slub.alloc(&host.m, cpu, cache, now + ns).expect("zone sized for the window");
            let term = if d.path == AllocPath::Fast { Term::SlabFast } else { Term::SlabSlow };
            ns += host.charge(&p, cpu, term, d.cost);
            skb.objs[i] = Some(obj);
            if rx {
                lanes.push(LaneEvent {
                    t_ns: now + ns,
                    cpu,
                    skb: id,
                    free: false,
                    cache,
                    fast: d.path == AllocPath::Fast,
                    path: alloc_path_name(d.path),
                    slab_pfn: d.slab_pfn,
                    slab_owner: d.slab_owner,
                    alloc_cpu: cpu,
                });
            }
        }
        ns += host.work(&p, cpu, Term::Skb, p.skb_cycles / 2);
        for l in lanes {
            self.lane(l);
        }
        (skb, ns)
    }

    /// Frees the objects (and pages) of `skb` on `cpu`.
    fn free_skb(&mut self, rx: bool, cpu: CpuId, now: u64, skb: &Skb) -> u64 {
        let p = self.cfg.profile;
        let host = if rx { &mut self.rx } else { &mut self.tx };
        let mut ns = host.work(&p, cpu, Term::Skb, p.skb_cycles / 2);
        let mut lanes = Vec::new();
        for obj in skb.objs.iter().flatten() {
            let d = host.slub.free(&host.m, cpu, *obj, now + ns);
            let term = if d.path.is_slow() { Term::SlabSlow } else { Term::SlabFast };
            ns += host.charge(&p, cpu, term, d.cost);
            if rx {
                lanes.push(LaneEvent {
                    t_ns: now + ns,
                    cpu,
                    skb: skb.id,
                    free: true,
                    cache: obj.cache,
                    fast: !d.path.is_slow(),
                    path: free_path_name(d.path),
                    slab_pfn: d.slab_pfn,
                    slab_owner: d.slab_owner,
                    alloc_cpu: skb.alloc_cpu,
                });
            }
        }
        for k in 0..skb.pages as usize {
            let pfn = self.pages[skb.first_page + k];
            let host = if rx { &mut self.rx } else { &mut self.tx };
            let c = host.slub.free_pages(&host.m, cpu, now + ns, pfn, 0);
            ns += host.charge(&p, cpu, Term::PageAlloc, c);
        }
        if rx && self.measuring {
            self.res.rx_skbs_freed += 1;
        }
        let host = if rx { &mut self.rx } else { &mut self.tx };
        host.time.free_ns[cpu as usize] += ns;
        for l in lanes {
            self.lane(l);
        }
        ns
    }

    // ---- udp-iperf ----

    fn send(&mut self, t: u64, c: u16) {
        let cpu = c as CpuId;
        if self.tx.free_at[cpu as usize] > t {
            let at = self.tx.free_at[cpu as usize];
            self.q.schedule(at, Ev::Send(c));
            return;
        }
        let p = self.cfg.profile;
        let mut ns = 0;
        // xennet_start_xmit() → xennet_tx_buf_gc(): free what the backend has completed.
        while let Some(&(done, skb)) = self.tx_inflight[c as usize].front() {
            if done > t {
                break;
            }
            self.tx_inflight[c as usize].pop_front();
            ns += self.free_skb(false, cpu, t + ns, &skb);
        }
        if self.tx_inflight[c as usize].len() >= p.tx_ring as usize {
            // Ring full: the queue is stopped until the next completion.
            let at = self.tx_inflight[c as usize].front().map_or(t + 1000, |x| x.0).max(t + ns);
            self.tx.free_at[cpu as usize] = t + ns;
            self.q.schedule(at, Ev::Send(c));
            return;
        }
        ns += self.tx.work(&p, cpu, Term::Syscall, p.syscall_cycles);
        let (skb, a) = self.alloc_skb(false, cpu, t + ns, c);
        ns += a;
        ns += self.tx.work(&p, cpu, Term::Copy, p.copy_cycles(u64::from(self.cfg.datagram_bytes)));
        // Hypervisor noise: ±10 % per packet (ASSUMPTION), mean xen_tx_ns.
        let jitter = self.rng.range_u64(0, p.xen_tx_ns / 5 + 1);
        ns += self.tx.raw(cpu, Term::Xen, p.xen_tx_ns - p.xen_tx_ns / 10 + jitter);
        let end = t + ns;
        self.tx.free_at[cpu as usize] = end;
        let wire_bits = (u64::from(self.cfg.datagram_bytes) + UDP_WIRE_OVERHEAD) * 8;
        let ser = (wire_bits * 1000).div_ceil(p.link_mbps.max(1));
        let start = end.max(self.wire_free_at);
        self.wire_free_at = start + ser;
        self.tx_inflight[c as usize].push_back((self.wire_free_at, skb));
        self.q.schedule(self.wire_free_at + p.wire_latency_ns, Ev::Arrive { flow: c });
        if self.measuring {
            self.res.sent += 1;
        }
        self.q.schedule(end, Ev::Send(c));
    }

    fn arrive(&mut self, t: u64, flow: u16) {
        if self.backlog.len() >= RX_RING {
            // netfront's RX ring is full: the backend drops the packet.
            if self.measuring {
                self.res.dropped += 1;
            }
            return;
        }
        self.backlog.push_back(flow);
        if !self.irq_busy {
            self.irq_busy = true;
            self.q.schedule(t, Ev::Irq);
        }
    }

    /// Flushes the allocating CPU's defer list (net_rx_action → skb_defer_free_flush).
    fn flush_defer(&mut self, cpu: CpuId, t: u64) -> u64 {
        let mut ns = 0;
        if self.defer_list.is_empty() {
            return 0;
        }
        let p = self.cfg.profile;
        ns += self.rx.work(&p, cpu, Term::Defer, 100);
        ns += self.rx.raw(cpu, Term::Defer, self.defer_line.touch(&self.rx.m, self.rx.slub.cpu_caches(), cpu));
        self.rx.time.free_ns[cpu as usize] += ns;
        let list = std::mem::take(&mut self.defer_list);
        for skb in &list {
            ns += self.free_skb(true, cpu, t + ns, skb);
        }
        ns
    }

    fn irq_udp(&mut self, t: u64) {
        let cpu: CpuId = 0;
        if self.rx.free_at[0] > t {
            let at = self.rx.free_at[0];
            self.q.schedule(at, Ev::Irq);
            return;
        }
        let Some(flow) = self.backlog.pop_front() else {
            self.irq_busy = false;
            return;
        };
        let p = self.cfg.profile;
        let mut ns = self.flush_defer(cpu, t);
        ns += self.rx.raw(cpu, Term::Xen, p.xen_tx_ns * p.xen_rx_pct / 100);
        let (skb, a) = self.alloc_skb(true, cpu, t + ns, flow);
        ns += a;
        ns += self.rx.work(&p, cpu, Term::Stack, p.stack_rx_cycles);
        self.rx.free_at[0] = t + ns;
        self.q.schedule(t + ns, Ev::Deliver(skb));
    }

    fn deliver(&mut self, t: u64, skb: Skb) {
        let p = self.cfg.profile;
        let reader = match (self.cfg.workload, self.cfg.consumer) {
            (Workload::UdpIperf, Consumer::Dispatcher) => (skb.flow as usize) % self.sockq.len(),
            _ => 0,
        };
        let truesize = u64::from(self.cfg.datagram_bytes) + 768;
        let mut ns = 0;
        if self.cfg.workload == Workload::UdpIperf && self.sock_bytes[reader] + truesize > UDP_RCVBUF_BYTES {
            // sock_queue_rcv_skb fails: dropped and freed on the IRQ CPU.
            if self.measuring {
                self.res.dropped += 1;
            }
            ns += self.free_skb(true, 0, t, &skb);
        } else {
            self.sock_bytes[reader] += truesize;
            self.sockq[reader].push_back(skb);
            if self.sleeping[reader] {
                self.sleeping[reader] = false;
                ns += self.rx.work(&p, 0, Term::Wakeup, p.wakeup_cycles);
                let latency = if self.reader_cpu(reader as u16) == 0 { 0 } else { p.wake_latency_ns };
                self.q.schedule(t + ns + latency, Ev::Read(reader as u16));
            }
        }
        self.rx.free_at[0] = self.rx.free_at[0].max(t) + ns;
        let next = self.rx.free_at[0];
        match self.cfg.workload {
            Workload::UdpIperf => {
                if self.backlog.is_empty() {
                    self.irq_busy = false;
                } else {
                    self.q.schedule(next, Ev::Irq);
                }
            }
            Workload::Tcp100g => {
                if self.sockq[0].len() >= TCP_WINDOW_SKBS {
                    self.a_blocked = true;
                } else {
                    self.q.schedule(next, Ev::Irq);
                }
            }
        }
    }

    fn read(&mut self, t: u64, r: u16) {
        let cpu = self.reader_cpu(r);
        if self.rx.free_at[cpu as usize] > t {
            let at = self.rx.free_at[cpu as usize];
            self.q.schedule(at, Ev::Read(r));
            return;
        }
        let Some(skb) = self.sockq[r as usize].pop_front() else {
            self.sleeping[r as usize] = true;
            return;
        };
        let p = self.cfg.profile;
        let (payload, frames) = match self.cfg.workload {
            Workload::UdpIperf => (u64::from(self.cfg.datagram_bytes), 1),
            Workload::Tcp100g => (u64::from(TCP_MSS * GRO_FRAMES), u64::from(GRO_FRAMES)),
        };
        if self.cfg.workload == Workload::UdpIperf {
            self.sock_bytes[r as usize] -= u64::from(self.cfg.datagram_bytes) + 768;
        }
        let mut ns = self.rx.work(&p, cpu, Term::Syscall, p.syscall_cycles);
        ns += self.rx.work(&p, cpu, Term::Copy, p.copy_cycles(payload));
        ns += self.rx.raw(cpu, Term::App, self.cfg.reader_work_ns);
        if self.cfg.defer_free && skb.alloc_cpu != cpu {
            // skb_attempt_defer_free(): onto the allocating CPU's list under its defer_lock.
            let mut d = self.rx.work(&p, cpu, Term::Defer, 150);
            d += self.rx.raw(cpu, Term::Defer, self.defer_line.touch(&self.rx.m, self.rx.slub.cpu_caches(), cpu));
            self.rx.time.free_ns[cpu as usize] += d;
            ns += d;
            self.defer_list.push(skb);
            if self.defer_list.len() as u32 == DEFER_KICK {
                ns += self.rx.work(&p, cpu, Term::Defer, IPI_CYCLES);
                let a = skb.alloc_cpu;
                let at = self.rx.free_at[a as usize].max(t + ns);
                self.rx.free_at[a as usize] = at + self.rx.work(&p, a, Term::Defer, IPI_CYCLES);
                let f = self.flush_defer(a, at);
                self.rx.free_at[a as usize] += f;
            }
        } else {
            ns += self.free_skb(true, cpu, t + ns, &skb);
        }
        if self.measuring {
            self.res.received += frames;
            self.res.bytes_read += payload;
        }
        self.rx.free_at[cpu as usize] = t + ns;
        self.q.schedule(t + ns, Ev::Read(r));
        if self.a_blocked && self.sockq[0].len() < TCP_WINDOW_SKBS {
            self.a_blocked = false;
            let at = self.rx.free_at[0].max(t + ns);
            self.q.schedule(at, Ev::Irq);
        }
    }

    // ---- tcp-100g ----

    fn irq_tcp(&mut self, t: u64) {
        let cpu: CpuId = 0;
        if self.rx.free_at[0] > t {
            let at = self.rx.free_at[0];
            self.q.schedule(at, Ev::Irq);
            return;
        }
        let p = self.cfg.profile;
        // The skb's frames arrive at line rate (the sender keeps the window full).
        let frame_bits = u64::from(TCP_MSS + 52 + 38) * 8;
        let skb_wire_ns = (frame_bits * u64::from(GRO_FRAMES) * 1000).div_ceil(p.link_mbps.max(1));
        self.next_arrival_ns = (self.next_arrival_ns + skb_wire_ns).max(t.saturating_sub(skb_wire_ns));
        let start = t.max(self.next_arrival_ns);
        let mut ns = self.flush_defer(cpu, start);
        let first_page = self.pages.len();
        for _ in 0..GRO_FRAMES {
            ns += self.rx.work(&p, cpu, Term::Driver, DRIVER_FRAME_CYCLES);
            let (pfn, c) = self.rx.slub.alloc_pages(&self.rx.m, cpu, start + ns, 0);
            ns += self.rx.charge(&p, cpu, Term::PageAlloc, c);
            self.pages.push(pfn.expect("zone sized for the window"));
        }
        let (mut skb, a) = self.alloc_skb(true, cpu, start + ns, 0);
        skb.pages = GRO_FRAMES;
        skb.first_page = first_page;
        ns += a;
        ns += self.rx.work(&p, cpu, Term::Stack, p.stack_rx_cycles);
        self.rx.free_at[0] = start + ns;
        if self.measuring {
            self.res.sent += u64::from(GRO_FRAMES);
        }
        self.q.schedule(start + ns, Ev::Deliver(skb));
    }
}

/// The kmalloc cache name of a class.
pub fn kmalloc_name(class: u32) -> &'static str {
    match class {
        8 => "kmalloc-8",
        16 => "kmalloc-16",
        32 => "kmalloc-32",
        64 => "kmalloc-64",
        96 => "kmalloc-96",
        128 => "kmalloc-128",
        192 => "kmalloc-192",
        256 => "kmalloc-256",
        512 => "kmalloc-512",
        1024 => "kmalloc-1024",
        2048 => "kmalloc-2048",
        4096 => "kmalloc-4096",
        _ => "kmalloc-8192",
    }
}
