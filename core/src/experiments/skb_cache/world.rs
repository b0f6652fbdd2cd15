//! The world of `skb-cache`: tcp_rr on a many-core server, every skb allocated and freed on
//! the sim kernel's SLUB ([`crate::sim::slub`], one per NUMA node) with the CPU that does it.
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

use super::profile::RrProfile;
use crate::rng::Rng;
use crate::sim::cache::Caches;
use crate::sim::cacheline::CacheLine;
use crate::sim::engine::EventQueue;
use crate::sim::machine::{cycles_to_ns, CpuId, MachineProfile};
use crate::sim::slub::{AllocPath, CacheSpec, FreePath, Obj, OpCost, Slub, SlubStats};
use crate::sim::zone::Zone;
use serde::Serialize;
use std::collections::VecDeque;

/// Events a run may process at most.
pub const MAX_EVENTS: u64 = 3_000_000;
/// Flows a run simulates at most (the rest are not simulated; see the module doc).
pub const MAX_SIM_FLOWS: u32 = 1024;
/// TCP payload per 1500-byte frame with timestamps.
pub const TCP_MSS: u32 = 1448;
/// Requests up to this size are copied into the skb head by the driver (rx copybreak).
pub const RX_COPYBREAK: u32 = 256;
/// `sizeof(struct skb_shared_info)` in 5.2 with 17 frags, aligned.
pub const SHINFO_BYTES: u32 = 320;
/// `skbuff_head_cache` object (sizeof(struct sk_buff) = 224, HWCACHE aligned).
pub const SKB_BYTES: u32 = 256;
/// `skbuff_fclone_cache` object: two sk_buffs and the fclone refcount.
pub const FCLONE_BYTES: u32 = 512;
/// MAX_TCP_HEADER (x86_64, 2019): the tx skb's linear part holds only headers.
pub const MAX_TCP_HEADER: u32 = 320;
/// sendmsg copies payload into the task's page frag: order-3 (32 KB) pages (SKB_FRAG_PAGE_ORDER).
pub const TX_FRAG_BYTES: u32 = 32_768;
/// Bytes on the wire per frame beside the TCP payload: TCP/IP headers with timestamps (52),
/// Ethernet header, FCS, preamble and gap (38).
pub const WIRE_OVERHEAD: u64 = 52 + 38;
/// Most lane rows recorded.
pub const MAX_LANES: usize = 16;

/// kmalloc size classes (mm/slab_common.c).
const KMALLOC: [(u32, &str); 6] = [
    (256, "kmalloc-256"),
    (512, "kmalloc-512"),
    (1024, "kmalloc-1024"),
    (2048, "kmalloc-2048"),
    (4096, "kmalloc-4096"),
    (8192, "kmalloc-8192"),
];

fn kmalloc(n: u32) -> (u32, &'static str) {
    KMALLOC.iter().copied().find(|&(c, _)| c >= n).unwrap_or(KMALLOC[5])
}

fn align64(n: u32) -> u32 {
    n.div_ceil(64) * 64
}

/// Frames (and so page frags) of a request of `bytes` (0 if it fits the copybreak head).
pub fn rx_frags(bytes: u32) -> u32 {
    if bytes <= RX_COPYBREAK {
        0
    } else {
        bytes.div_ceil(TCP_MSS)
    }
}

/// Page-frag chunks of a response of `bytes`.
pub fn tx_frags(bytes: u32) -> u32 {
    bytes.div_ceil(TX_FRAG_BYTES).max(1)
}

/// kmalloc'd head of an rx skb: NET_SKB_PAD + the copied bytes + shinfo (model assumption:
/// from kmalloc; drivers differ, some carve heads out of page frags).
pub fn rx_head_bytes(request: u32) -> u32 {
    kmalloc(align64(64 + request.min(RX_COPYBREAK)) + SHINFO_BYTES).0
}

/// kmalloc'd head of a tx skb: the headers and shinfo (payload goes to page frags).
pub fn tx_head_bytes() -> u32 {
    kmalloc(align64(MAX_TCP_HEADER) + SHINFO_BYTES).0
}

/// Memory one parked skb pins: objects, head, and frag pages (rx: one page per frame; tx:
/// its payload's share of the page frag).
pub fn parked_bytes(rx: bool, request: u32, response: u32) -> u64 {
    if rx {
        u64::from(SKB_BYTES + rx_head_bytes(request)) + u64::from(rx_frags(request)) * 4096
    } else {
        u64::from(FCLONE_BYTES + tx_head_bytes()) + u64::from(response)
    }
}

/// Where time goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Term {
    Softirq,
    App,
    Copy,
    Skb,
    SlabFast,
    SlabSlow,
    Spin,
    Pages,
    Lines,
    Wakeup,
    Rps,
}

/// Every term, in report order, with the kernel functions it stands for.
pub const TERMS: [(Term, &str); 11] = [
    (Term::Softirq, "softirq rx (napi, GRO, ip_rcv, tcp_v4_rcv, tcp_ack)"),
    (Term::App, "syscalls + tcp_recvmsg/tcp_sendmsg/xmit (epoll loop)"),
    (Term::Copy, "copy_to_user/copy_from_user"),
    (Term::Skb, "skb init/release (__alloc_skb, skb_release_head_state)"),
    (Term::SlabFast, "SLUB fast path (kmem_cache_alloc/free)"),
    (Term::SlabSlow, "SLUB slow path (__slab_free, ___slab_alloc)"),
    (Term::Spin, "spinning on list_lock / zone->lock"),
    (Term::Pages, "page frags (alloc_pages, put_page, free_unref_page)"),
    (Term::Lines, "cache-line transfers of socket and skb lines"),
    (Term::Wakeup, "try_to_wake_up of the reader"),
    (Term::Rps, "RPS enqueue + IPI"),
];

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
    pub request_bytes: u32,
    pub response_bytes: u32,
    pub warmup_ns: u64,
    pub measure_ns: u64,
}

impl Config {
    /// Logical CPUs.
    pub fn n_cpus(&self) -> u32 {
        self.sockets * self.cores * if self.smt { 2 } else { 1 }
    }
    /// Flows simulated.
    pub fn sim_flows(&self) -> u32 {
        self.flows.min(MAX_SIM_FLOWS)
    }
}

/// One alloc → free of the lane view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lane {
    pub rx: bool,
    pub flow: u32,
    pub alloc_cpu: CpuId,
    pub free_cpu: Option<CpuId>,
    /// Where the free ran (softirq, recvmsg, ack) and SLUB's path for the sk_buff.
    pub where_freed: &'static str,
    pub path: &'static str,
}

/// What one run measured (in the window after the warm-up).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    pub measure_ns: u64,
    pub requests: u64,
    pub responses: u64,
    pub skbs_freed: u64,
    /// skbs freed on the CPU that allocated them.
    pub freed_on_alloc_cpu: u64,
    pub tx_reused: u64,
    pub slub: SlubStats,
    pub list_lock: u64,
    pub list_lock_contended: u64,
    pub zone_lock_contended: u64,
    /// ns per term, summed over CPUs.
    pub time: [u64; 11],
    pub busy_ns: u64,
    pub n_cpus: u32,
    pub sim_flows: u32,
    /// Mean request → response latency seen by the server (arrival to send), ns.
    pub mean_latency_ns: f64,
    pub lanes: Vec<Lane>,
    pub events: u64,
    pub capped: bool,
}

#[derive(Debug, Clone)]
struct Skb {
    alloc_cpu: CpuId,
    node: u32,
    objs: [Obj; 2],
    /// rx: (node, pfn) of each frame's page.
    pages: Vec<(u32, u32)>,
    /// tx: frag chunks referenced on the allocating CPU's page frag.
    tx_frags: u32,
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
    arrived_ns: u64,
}

#[derive(Debug, Clone, Copy)]
enum Ev {
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
    rng: Rng,
    slub: Vec<Slub>,
    flows: Vec<Flow>,
    /// Per CPU: requests waiting for the driver (RSS queue), for the TCP receive path (RPS
    /// backlog), and flows ready for this CPU's threads.
    driver_q: Vec<VecDeque<u32>>,
    stack_q: Vec<VecDeque<(u32, Skb)>>,
    app_q: Vec<VecDeque<u32>>,
    idle: Vec<bool>,
    /// The `struct page` line of each CPU's current tx page frag.
    frag_line: Vec<CacheLine>,
    rx_wire_free: u64,
    tx_wire_free: u64,
    measuring: bool,
    lat_sum: u64,
    lat_n: u64,
    res: RunResult,
}

fn free_name(p: FreePath) -> &'static str {
    match p {
        FreePath::Fast => "fast",
        FreePath::Frozen => "slow: frozen",
        FreePath::Partial => "slow: partial",
        FreePath::AddPartial => "slow: add partial",
        FreePath::Discard => "slow: discard",
        FreePath::KeepEmpty => "slow: keep empty",
    }
}

impl Sim {
    pub fn new(cfg: Config, seed: u64) -> Sim {
        let m = cfg.profile.machine(cfg.sockets, cfg.cores, cfg.smt);
        let n = m.n_cpus() as usize;
        // Every CPU takes interrupts and runs a thread or more: clocks as with all busy.
        let all: Vec<CpuId> = (0..n as CpuId).collect();
        let mhz = m.thread_mhz(&all);
        let (rxh, rxh_name) = kmalloc(rx_head_bytes(cfg.request_bytes));
        let (txh, txh_name) = kmalloc(tx_head_bytes());
        let specs = [
            CacheSpec { name: "skbuff_head_cache", size: SKB_BYTES },
            CacheSpec { name: "skbuff_fclone_cache", size: FCLONE_BYTES },
            CacheSpec { name: rxh_name, size: rxh },
            CacheSpec { name: if txh == rxh { "kmalloc (tx head)" } else { txh_name }, size: txh },
        ];
        let sim_flows = cfg.sim_flows();
        // Pages: every flow may hold a queued and a parked rx skb with its frames, plus slabs.
        let per_node = u64::from(sim_flows) * (2 * u64::from(rx_frags(cfg.request_bytes)) + 4) / u64::from(cfg.sockets)
            + 4 * n as u64 * 64
            + 16_384;
        let pages = (per_node.div_ceil(1024) * 1024).min(1 << 20) as u32;
        let slub: Vec<Slub> = (0..cfg.sockets)
            .map(|node| Slub::new(&m, &specs, n, Zone::new(node, pages, n, 186, 31, false), cfg.profile.slub))
            .collect();
        let mut rng = Rng::new(seed, 0x5cb0);
        let mut rss = rng.fork(1);
        let threads = cfg.threads.max(1);
        let flows: Vec<Flow> = (0..sim_flows)
            .map(|f| Flow {
                irq_cpu: rss.below(n as u32) as CpuId,
                app_cpu: app_cpu(f, threads, n as u32),
                ..Flow::default()
            })
            .collect();
        // Clients start at random moments of one turnaround (then queue on the link).
        let mut starts: Vec<(u64, u32)> =
            (0..sim_flows).map(|f| (rng.range_u64(0, cfg.profile.client_turnaround_ns + 1), f)).collect();
        starts.sort_unstable();
        let res = RunResult {
            measure_ns: cfg.measure_ns,
            requests: 0,
            responses: 0,
            skbs_freed: 0,
            freed_on_alloc_cpu: 0,
            tx_reused: 0,
            slub: SlubStats::default(),
            list_lock: 0,
            list_lock_contended: 0,
            zone_lock_contended: 0,
            time: [0; 11],
            busy_ns: 0,
            n_cpus: n as u32,
            sim_flows,
            mean_latency_ns: 0.0,
            lanes: Vec::new(),
            events: 0,
            capped: false,
        };
        let mut sim = Sim {
            caches: Caches::new(&m),
            m,
            mhz,
            q: EventQueue::default(),
            rng,
            slub,
            flows,
            driver_q: vec![VecDeque::new(); n],
            stack_q: vec![VecDeque::new(); n],
            app_q: vec![VecDeque::new(); n],
            idle: vec![true; n],
            frag_line: vec![CacheLine::UNTOUCHED; n],
            rx_wire_free: 0,
            tx_wire_free: 0,
            measuring: false,
            lat_sum: 0,
            lat_n: 0,
            res,
            cfg,
        };
        for (t, f) in starts {
            let at = sim.wire(true, t, sim.cfg.request_bytes);
            sim.q.schedule(at, Ev::Request(f));
        }
        sim
    }

    /// Runs the warm-up and the window.
    pub fn run(mut self) -> RunResult {
        let end = self.cfg.warmup_ns + self.cfg.measure_ns;
        let mut started = self.cfg.warmup_ns == 0;
        if started {
            self.start_measuring();
        }
        while let Some((t, ev)) = self.q.pop() {
            if t >= end {
                break;
            }
            if !started && t >= self.cfg.warmup_ns {
                started = true;
                self.start_measuring();
            }
            self.res.events += 1;
            if self.res.events >= MAX_EVENTS {
                self.res.capped = true;
                self.res.measure_ns = t.saturating_sub(self.cfg.warmup_ns).max(1);
                break;
            }
            match ev {
                Ev::Request(f) => self.request(t, f),
                Ev::Cpu(c) => self.cpu(t, c),
            }
        }
        self.finish()
    }

    fn start_measuring(&mut self) {
        self.measuring = true;
        for s in &mut self.slub {
            s.reset_stats();
        }
    }

    fn finish(mut self) -> RunResult {
        for s in &self.slub {
            for x in s.per_cpu() {
                self.res.slub.add(&x);
            }
            for c in &s.caches {
                self.res.list_lock += c.list_lock.stats.acquisitions;
                self.res.list_lock_contended += c.list_lock.stats.contentions;
            }
            self.res.zone_lock_contended += s.zone.lock.stats.contentions;
            debug_assert_eq!(s.check_invariants(), Ok(()));
        }
        self.res.busy_ns = self.res.time.iter().sum();
        self.res.mean_latency_ns = self.lat_sum as f64 / self.lat_n.max(1) as f64;
        self.res
    }

    fn node(&self, cpu: CpuId) -> u32 {
        self.m.pos(cpu).socket
    }

    fn add(&mut self, term: Term, ns: u64) -> u64 {
        if self.measuring {
            self.res.time[term as usize] += ns;
        }
        ns
    }

    fn work(&mut self, cpu: CpuId, term: Term, cycles: u64) -> u64 {
        let ns = cycles_to_ns(cycles, self.mhz[cpu as usize]);
        self.add(term, ns)
    }

    fn charge(&mut self, cpu: CpuId, term: Term, c: OpCost) -> u64 {
        let w = cycles_to_ns(c.cycles, self.mhz[cpu as usize]) + c.line_ns;
        self.add(term, w);
        self.add(Term::Spin, c.spin_ns);
        w + c.spin_ns
    }

    fn kick(&mut self, cpu: CpuId, t: u64) {
        if self.idle[cpu as usize] {
            self.idle[cpu as usize] = false;
            self.q.schedule(t, Ev::Cpu(cpu));
        }
    }

    fn request(&mut self, t: u64, f: u32) {
        self.flows[f as usize].arrived_ns = t;
        let x = self.flows[f as usize].irq_cpu;
        self.driver_q[x as usize].push_back(f);
        self.kick(x, t);
    }

    /// One piece of work on `cpu`: softirq first (driver, then RPS backlog), then threads.
    fn cpu(&mut self, t: u64, cpu: CpuId) {
        let c = cpu as usize;
        let ns = if let Some(f) = self.driver_q[c].pop_front() {
            self.driver(t, cpu, f)
        } else if let Some((f, skb)) = self.stack_q[c].pop_front() {
            self.stack(t, cpu, f, skb)
        } else if let Some(f) = self.app_q[c].pop_front() {
            self.app(t, cpu, f)
        } else {
            self.idle[c] = true;
            return;
        };
        self.q.schedule(t + ns.max(1), Ev::Cpu(cpu));
    }

    fn driver(&mut self, t: u64, cpu: CpuId, f: u32) -> u64 {
        let p = self.cfg.profile;
        let mut ns = self.work(cpu, Term::Softirq, p.bh_cycles * p.driver_pct / 100);
        let node = self.node(cpu);
        let mut pages = Vec::new();
        for _ in 0..rx_frags(self.cfg.request_bytes) {
            let (pfn, c) = self.slub[node as usize].alloc_pages(&self.m, cpu, t + ns, 0);
            ns += self.charge(cpu, Term::Pages, c);
            pages.push((node, pfn.expect("zone sized for the flows")));
        }
        let (mut skb, a) = self.alloc_skb(t + ns, cpu, true, f);
        ns += a;
        skb.pages = pages;
        if self.cfg.rps {
            let y = self.flows[f as usize].app_cpu;
            ns += self.work(cpu, Term::Rps, p.rps_cycles);
            self.stack_q[y as usize].push_back((f, skb));
            self.kick(y, t + ns);
            ns
        } else {
            ns + self.stack(t + ns, cpu, f, skb)
        }
    }

    /// tcp_v4_rcv and what it frees, on `cpu` (the IRQ CPU, or the RPS target).
    fn stack(&mut self, t: u64, cpu: CpuId, f: u32, skb: Skb) -> u64 {
        let p = self.cfg.profile;
        let mut ns = self.work(cpu, Term::Softirq, p.bh_cycles - p.bh_cycles * p.driver_pct / 100);
        ns += self.sock_lines(t + ns, cpu, f);
        // The previously parked rx skb: freed by this softirq (8b27dae5a2e8).
        if let Some(old) = self.flows[f as usize].rx_parked.take() {
            ns += self.free_skb(t + ns, cpu, old, "softirq (rx cache)");
        }
        // The request ACKs the last response: tcp_ack → sk_wmem_free_skb.
        if let Some(tx) = self.flows[f as usize].tx_inflight.take() {
            if self.cfg.tx_cache && self.flows[f as usize].tx_parked.is_none() {
                self.flows[f as usize].tx_parked = Some(tx);
            } else {
                ns += self.free_skb(t + ns, cpu, tx, "tcp_ack");
            }
        }
        self.flows[f as usize].rx_queued = Some(skb);
        let y = self.flows[f as usize].app_cpu;
        self.app_q[y as usize].push_back(f);
        if self.idle[y as usize] && y != cpu {
            ns += self.work(cpu, Term::Wakeup, self.m.wakeup_cycles);
        }
        self.kick(y, t + ns);
        ns
    }

    /// recvmsg + sendmsg of one transaction on the thread's CPU.
    fn app(&mut self, t: u64, cpu: CpuId, f: u32) -> u64 {
        let p = self.cfg.profile;
        let mut ns = self.work(cpu, Term::App, p.app_cycles);
        ns += self.sock_lines(t + ns, cpu, f);
        let Some(mut skb) = self.flows[f as usize].rx_queued.take() else { return ns };
        // Reading the skb pulls its lines from the CPU that built it.
        ns += self.skb_lines(t + ns, cpu, &mut skb);
        let copy = u64::from(self.cfg.request_bytes) * 1000 / self.m.copy_bytes_per_kcycle.max(1);
        ns += self.work(cpu, Term::Copy, copy);
        if self.cfg.rx_cache && self.flows[f as usize].rx_parked.is_none() {
            self.flows[f as usize].rx_parked = Some(skb);
        } else {
            ns += self.free_skb(t + ns, cpu, skb, "recvmsg");
        }
        // sendmsg: reuse the parked tx skb (472c2e07eef0) or allocate one.
        let mut tx = if let Some(mut old) = self.flows[f as usize].tx_parked.take() {
            ns += self.skb_lines(t + ns, cpu, &mut old);
            // pskb_trim drops the old payload's frag references (on this CPU's page frag).
            for _ in 0..old.tx_frags {
                ns += self.frag_put(t + ns, cpu, old.alloc_cpu);
            }
            if self.measuring {
                self.res.tx_reused += 1;
            }
            self.lane_free(&old, cpu, "sendmsg (tx cache)", "none");
            if old.lane.is_none() {
                // A reuse of an skb allocated before the lanes started is a row of its own.
                self.lane_reuse(f, old.alloc_cpu, cpu);
            }
            old.lane = None;
            old
        } else {
            let (s, a) = self.alloc_skb(t + ns, cpu, false, f);
            ns += a;
            s
        };
        tx.tx_frags = tx_frags(self.cfg.response_bytes);
        tx.alloc_cpu = cpu;
        for _ in 0..tx.tx_frags {
            ns += self.frag_put(t + ns, cpu, cpu);
        }
        let copy = u64::from(self.cfg.response_bytes) * 1000 / self.m.copy_bytes_per_kcycle.max(1);
        ns += self.work(cpu, Term::Copy, copy);
        self.flows[f as usize].tx_inflight = Some(tx);
        let done = t + ns;
        if self.measuring {
            self.res.requests += 1;
            self.res.responses += 1;
            self.lat_sum += done.saturating_sub(self.flows[f as usize].arrived_ns);
            self.lat_n += 1;
        }
        // The response and the next request each take their turn on the NIC's link.
        let sent = self.wire(false, done, self.cfg.response_bytes);
        let turn = p.client_turnaround_ns;
        let jitter = self.rng.range_u64(0, turn / 5 + 1);
        let at = self.wire(true, sent + turn - turn / 10 + jitter, self.cfg.request_bytes);
        self.q.schedule(at, Ev::Request(f));
        ns
    }

    /// When a message of `bytes` ready at `t` has crossed the link (rx or tx direction).
    fn wire(&mut self, rx: bool, t: u64, bytes: u32) -> u64 {
        let frames = u64::from(bytes.div_ceil(TCP_MSS).max(1));
        let bits = (u64::from(bytes) + frames * WIRE_OVERHEAD) * 8;
        let ser = (bits * 1000).div_ceil(self.cfg.profile.link_mbps.max(1));
        let free = if rx { &mut self.rx_wire_free } else { &mut self.tx_wire_free };
        let end = t.max(*free) + ser;
        *free = end;
        end
    }

    fn sock_lines(&mut self, _now: u64, cpu: CpuId, f: u32) -> u64 {
        let lines = self.cfg.profile.sock_lines;
        let one = self.flows[f as usize].sock.touch(&self.m, &self.caches, cpu);
        self.add(Term::Lines, one * lines)
    }

    fn skb_lines(&mut self, _now: u64, cpu: CpuId, skb: &mut Skb) -> u64 {
        let lines = self.cfg.profile.skb_lines;
        let one = skb.line.touch(&self.m, &self.caches, cpu);
        self.add(Term::Lines, one * lines)
    }

    /// A get_page/put_page on the `struct page` of `owner`'s current tx page frag.
    fn frag_put(&mut self, _now: u64, cpu: CpuId, owner: CpuId) -> u64 {
        let line = self.frag_line[owner as usize].touch(&self.m, &self.caches, cpu);
        let w = cycles_to_ns(self.cfg.profile.slub.page_op_cycles, self.mhz[cpu as usize]);
        self.add(Term::Pages, w);
        w + self.add(Term::Lines, line)
    }

    fn alloc_skb(&mut self, t: u64, cpu: CpuId, rx: bool, f: u32) -> (Skb, u64) {
        let node = self.node(cpu);
        let caches: [u16; 2] = if rx { [0, 2] } else { [1, 3] };
        let mut ns = 0;
        let mut objs = [Obj { cache: 0, slab: 0, idx: 0 }; 2];
        for (i, &c) in caches.iter().enumerate() {
            let (obj, d) = self.slub[node as usize].alloc(&self.m, cpu, c, t + ns).expect("zone sized for the flows");
            let term = if d.path == AllocPath::Fast { Term::SlabFast } else { Term::SlabSlow };
            ns += self.charge(cpu, term, d.cost);
            objs[i] = obj;
        }
        ns += self.work(cpu, Term::Skb, self.cfg.profile.skb_cycles / 2);
        let mut line = CacheLine::UNTOUCHED;
        line.touch(&self.m, &self.caches, cpu);
        let mut skb = Skb { alloc_cpu: cpu, node, objs, pages: Vec::new(), tx_frags: 0, line, lane: None };
        if self.measuring && self.res.lanes.len() < MAX_LANES && f % 97 == 0 {
            skb.lane = Some(self.res.lanes.len());
            self.res.lanes.push(Lane {
                rx,
                flow: f,
                alloc_cpu: cpu,
                free_cpu: None,
                where_freed: if rx { "not yet" } else { "in flight" },
                path: "",
            });
        }
        (skb, ns)
    }

    fn free_skb(&mut self, t: u64, cpu: CpuId, mut skb: Skb, where_freed: &'static str) -> u64 {
        let mut ns = self.skb_lines(t, cpu, &mut skb);
        ns += self.work(cpu, Term::Skb, self.cfg.profile.skb_cycles / 2);
        for &(node, pfn) in &skb.pages {
            let c = self.slub[node as usize].free_pages(&self.m, cpu, t + ns, pfn, 0);
            ns += self.charge(cpu, Term::Pages, c);
        }
        for _ in 0..skb.tx_frags {
            ns += self.frag_put(t + ns, cpu, skb.alloc_cpu);
        }
        let mut path = "fast";
        for (i, obj) in skb.objs.iter().enumerate() {
            let d = self.slub[skb.node as usize].free(&self.m, cpu, *obj, t + ns);
            let term = if d.path.is_slow() { Term::SlabSlow } else { Term::SlabFast };
            ns += self.charge(cpu, term, d.cost);
            if i == 0 {
                path = free_name(d.path);
            }
        }
        if self.measuring {
            self.res.skbs_freed += 1;
            if cpu == skb.alloc_cpu {
                self.res.freed_on_alloc_cpu += 1;
            }
        }
        self.lane_free(&skb, cpu, where_freed, path);
        ns
    }

    fn lane_reuse(&mut self, f: u32, alloc_cpu: CpuId, cpu: CpuId) {
        if self.measuring && self.res.lanes.len() < MAX_LANES && f % 97 == 0 {
            self.res.lanes.push(Lane {
                rx: false,
                flow: f,
                alloc_cpu,
                free_cpu: Some(cpu),
                where_freed: "sendmsg (tx cache)",
                path: "none",
            });
        }
    }

    fn lane_free(&mut self, skb: &Skb, cpu: CpuId, where_freed: &'static str, path: &'static str) {
        if let Some(l) = skb.lane.and_then(|i| self.res.lanes.get_mut(i)) {
            l.free_cpu = Some(cpu);
            l.where_freed = where_freed;
            l.path = path;
        }
    }
}

/// The CPU of the thread serving flow `f`: thread `f mod threads`, pinned to CPU `t mod CPUs`.
pub fn app_cpu(f: u32, threads: u32, n_cpus: u32) -> CpuId {
    ((f % threads.max(1)) % n_cpus.max(1)) as CpuId
}

/// Runs one configuration.
pub fn simulate(cfg: &Config, seed: u64) -> RunResult {
    Sim::new(cfg.clone(), seed).run()
}
