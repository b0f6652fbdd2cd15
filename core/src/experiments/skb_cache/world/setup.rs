//! Setting up a run of `skb-cache`: the kmalloc class of each head, the frames and frags of
//! a message, the memory a parked skb pins, and the world itself (SLAB over the nodes, or one
//! SLUB per node, sized for the flows, RSS's choice of each flow's IRQ CPU, the clients' first
//! requests). Everything here runs before the first event, or is arithmetic the views share.

use super::super::profile::{Allocator, TxHead};
use super::MAX_EVENTS;
use super::{app_cpu, Config, Ev, Flow, NapiFrag, RunResult, Sim, RX_COPYBREAK, TX_FRAG_BYTES};
use crate::rng::Rng;
use crate::sim::cache::Caches;
use crate::sim::cacheline::CacheLine;
use crate::sim::engine::EventQueue;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::skb::{
    kmalloc_name, kmalloc_size, skb_data_align, FCLONE_BYTES, MAX_TCP_HEADER, PAGE_SIZE, SHINFO_2019_BYTES,
    SKBUFF_HEAD_CACHE_BYTES, TCP_MSS,
};
use crate::sim::slab::Slab;
use crate::sim::slub::{
    calculate_order, cpu_partial_objects, cpu_partial_occupancy, draw, min_partial, CacheSpec, RemoteTraffic, Slub,
    SlubStats,
};
use crate::sim::world::{RunState, Window};
use crate::sim::zone::Zone;
use std::collections::VecDeque;

/// The kmalloc cache a request of `n` bytes lands in: its object size and name.
fn kmalloc(n: u32) -> (u32, &'static str) {
    let size = kmalloc_size(n);
    (size, kmalloc_name(size))
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
    kmalloc(skb_data_align(64 + request.min(RX_COPYBREAK)) + SHINFO_2019_BYTES).0
}

/// The 32 KiB page a NAPI page fragment carves heads from (`PAGE_FRAG_CACHE_MAX_SIZE`,
/// order 3, with an order-0 fallback the model does not take).
pub const NAPI_FRAG_BYTES: u32 = 32 * 1024;

/// A page-fragment rx head (3.19-5.10 `__napi_alloc_skb`): NET_SKB_PAD + NET_IP_ALIGN + the
/// copied bytes, plus the aligned shinfo, aligned: the bytes `page_frag_alloc` takes.
pub fn napi_head_bytes(request: u32) -> u32 {
    skb_data_align(64 + 2 + request.min(RX_COPYBREAK) + SHINFO_2019_BYTES)
}

/// kmalloc'd head of a tx skb: the headers and shinfo (payload goes to page frags).
pub fn tx_head_bytes() -> u32 {
    kmalloc(skb_data_align(MAX_TCP_HEADER) + SHINFO_2019_BYTES).0
}

/// `linear_payload_sz(true)` before 472c2e07eef0 (net/ipv4/tcp.c, 4.9-5.1):
/// `SKB_WITH_OVERHEAD(2048 - MAX_TCP_HEADER)`, the payload room of a write's first skb head.
pub const LINEAR_PAYLOAD_BYTES: u32 = 2048 - SHINFO_2019_BYTES - MAX_TCP_HEADER;

/// kmalloc'd head of a tx skb under `tx_head`: with `linear`, `alloc_skb_fclone()` of the
/// payload room plus `MAX_TCP_HEADER`, then the shinfo: 2,048 bytes.
pub fn tx_head_bytes_of(tx_head: TxHead) -> u32 {
    match tx_head {
        TxHead::Frag => tx_head_bytes(),
        TxHead::Linear => kmalloc(skb_data_align(LINEAR_PAYLOAD_BYTES + MAX_TCP_HEADER) + SHINFO_2019_BYTES).0,
    }
}

/// Page-frag chunks of a response of `bytes` under `tx_head`: with `linear` the first
/// [`LINEAR_PAYLOAD_BYTES`] are copied into the head (`skb_add_data_nocache`), the rest into
/// page frags of the same skb.
pub fn tx_frags_of(tx_head: TxHead, bytes: u32) -> u32 {
    match tx_head {
        TxHead::Frag => tx_frags(bytes),
        TxHead::Linear if bytes <= LINEAR_PAYLOAD_BYTES => 0,
        TxHead::Linear => tx_frags(bytes - LINEAR_PAYLOAD_BYTES),
    }
}

/// Memory one parked skb pins: objects, head, and frag pages (rx: one page per frame; tx:
/// its payload's share of the page frag).
pub fn parked_bytes(rx: bool, request: u32, response: u32) -> u64 {
    if rx {
        u64::from(SKBUFF_HEAD_CACHE_BYTES + rx_head_bytes(request))
            + u64::from(rx_frags(request)) * u64::from(PAGE_SIZE)
    } else {
        u64::from(FCLONE_BYTES + tx_head_bytes()) + u64::from(response)
    }
}

impl Sim {
    pub fn new(cfg: Config, seed: u64) -> Sim {
        let m = cfg.profile.machine(cfg.sockets, cfg.cores, cfg.smt);
        let n = m.n_cpus() as usize;
        // Every CPU takes interrupts and runs a thread or more: clocks as with all busy.
        let all: Vec<CpuId> = (0..n as CpuId).collect();
        let mhz = m.thread_mhz(&all);
        let specs = cache_specs(&cfg);
        let sim_flows = cfg.sim_flows();
        let pages = zone_pages(&cfg, &specs, n);
        let slub_costs = cfg.profile.slub();
        let threads = cfg.threads.max(1);
        let cpu_threads: Vec<Vec<u32>> =
            (0..n as u32).map(|c| (0..threads).filter(|t| t % n as u32 == c).collect()).collect();
        let mut rng = Rng::new(seed, 0x5cb0);
        let (flows, starts) = flows_and_starts(&cfg, n, &mut rng);
        let (mut slub, slab) = match cfg.profile.allocator {
            Allocator::Slub => (node_slubs(&cfg, &m, &specs, n, pages), None),
            Allocator::Slab => (Vec::new(), Some(node_slab(&cfg, &m, &specs, n, pages))),
        };
        if cfg.steady_slub && !slub.is_empty() {
            steady_start(&cfg, &m, &flows, &mut slub, seed);
        }
        let res = empty_result(&cfg, n as u32, sim_flows);
        let cur_node = (0..n as CpuId).map(|c| [m.pos(c).socket; 4]).collect();
        let costs = crate::sim::sched::WakeCosts::from_kernel(&cfg.profile.kernel, mhz.first().copied().unwrap_or(1));
        let mut sim = Sim {
            caches: Caches::new(&m),
            m,
            mhz,
            q: EventQueue::default(),
            run_state: RunState::new(Window { warmup_ns: cfg.warmup_ns, measure_ns: cfg.measure_ns }, MAX_EVENTS),
            rng,
            slub,
            slab,
            cur_node,
            flows,
            driver_q: vec![VecDeque::new(); n],
            stack_q: vec![VecDeque::new(); n],
            thread_q: vec![VecDeque::new(); threads as usize],
            cpu_threads,
            running: vec![None; n],
            batch_left: vec![0; n],
            slub_costs,
            scale: cfg.scale(),
            idle: vec![true; n],
            wait: super::wait::Waiting::new(costs, n, threads as usize),
            frag_line: vec![CacheLine::UNTOUCHED; n],
            napi: vec![NapiFrag::default(); n],
            head_pages: Default::default(),
            heads_per_page: NAPI_FRAG_BYTES / napi_head_bytes(cfg.request_bytes),
            rx_wire_free: 0,
            tx_wire_free: 0,
            warm_flows: 0,
            softirq_since: vec![None; n],
            vruntime: vec![0; threads as usize],
            ksoftirqd: vec![None; n],
            sent_ns: Vec::new(),
            n_before_driver: 0,
            n_rx_held: 0,
            held_since: 0,
            res,
            cfg,
        };
        for (t, f) in starts {
            sim.flows[f as usize].req_sent_ns = t;
            let at = sim.wire(true, t, sim.cfg.request_bytes);
            sim.q.schedule(at, Ev::Request(f));
        }
        sim
    }
}

/// SLUB's steady-state start (sim::slub::steady), from the flows' long-run traffic. A CPU's
/// partial slabs are one list over the nodes (`Sim::slab_alloc`): its length follows the
/// occupancy law of all the CPU's remote frees and allocations together, and each of its slabs
/// lies on a node drawn in proportion to the CPU's remote frees of that node's objects.
fn steady_start(cfg: &Config, m: &MachineProfile, flows: &[Flow], slub: &mut [Slub], seed: u64) {
    let mut srng = Rng::new(seed, 0x5cb5);
    let traffic = remote_traffic(cfg, m, flows);
    let n = m.n_cpus() as usize;
    for cache in 0..4 {
        let per_node: Vec<&RemoteTraffic> = traffic.iter().map(|t| &t[cache]).collect();
        let cpu_partial = slub[0].caches[cache].cpu_partial;
        let nodes = slub.len();
        let per_cpu: Vec<Vec<u32>> = (0..n)
            .map(|cpu| {
                let mut counts = vec![0u32; nodes];
                let alloc: u64 = per_node.iter().map(|t| t.alloc[cpu]).sum();
                let free: u64 = per_node.iter().map(|t| t.free[cpu]).sum();
                if free == 0 || cpu_partial == 0 {
                    return counts;
                }
                let k = draw(&cpu_partial_occupancy(cpu_partial, alloc, free), &mut srng);
                let weights: Vec<f64> = per_node.iter().map(|t| t.free[cpu] as f64).collect();
                for _ in 0..k {
                    counts[draw(&weights, &mut srng)] += 1;
                }
                counts
            })
            .collect();
        for (node, s) in slub.iter_mut().enumerate() {
            let lengths: Vec<u32> = per_cpu.iter().map(|c| c[node]).collect();
            s.fill_steady_lengths(m, cache as u16, &lengths, per_node[node].any()).expect("zone sized for the start");
        }
    }
}

/// The counters of a run before its first event.
fn empty_result(cfg: &Config, n_cpus: u32, sim_flows: u32) -> RunResult {
    RunResult {
        measure_ns: cfg.measure_ns,
        requests: 0,
        responses: 0,
        skbs_freed: 0,
        rx_alloc_failed: 0,
        tx_alloc_failed: 0,
        freed_on_alloc_cpu: 0,
        tx_reused: 0,
        slub: SlubStats::default(),
        slab: Default::default(),
        list_lock: 0,
        list_lock_contended: 0,
        zone_lock_contended: 0,
        profile: Default::default(),
        line_ns: 0,
        busy_ns: 0,
        n_cpus,
        sim_flows,
        mean_latency_ns: 0.0,
        waiting_for_driver: 0.0,
        rx_skbs_held: 0.0,
        off_node_partial_allocs: 0,
        warmup_ns: cfg.warmup_ns,
        wait: Default::default(),
        lanes: Vec::new(),
        events: 0,
        capped: false,
    }
}

/// One SLUB per node, as a 5.2 distribution kernel builds it (CONFIG_SLUB_CPU_PARTIAL=y).
fn node_slubs(cfg: &Config, m: &MachineProfile, specs: &[CacheSpec], n: usize, pages: u32) -> Vec<Slub> {
    (0..cfg.sockets)
        .map(|node| {
            let mut s = Slub::new(m, specs, n, Zone::new(node, pages, n, 186, 31, false), cfg.profile.slub());
            s.enable_cpu_partial();
            s
        })
        .collect()
}

/// SLAB over the nodes, one zone each (the zones as [`node_slubs`] sizes them).
fn node_slab(cfg: &Config, m: &MachineProfile, specs: &[CacheSpec], n: usize, pages: u32) -> Slab {
    let zones = (0..cfg.sockets).map(|node| Zone::new(node, pages, n, 186, 31, false)).collect();
    Slab::new(m, specs, n, zones, cfg.profile.slab())
}

/// The four caches of a node: sk_buffs, fclones, and the kmalloc classes of the two heads.
fn cache_specs(cfg: &Config) -> [CacheSpec; 4] {
    let (rxh, rxh_name) = kmalloc(rx_head_bytes(cfg.request_bytes));
    let (txh, txh_name) = kmalloc(tx_head_bytes_of(cfg.profile.tx_head));
    [
        CacheSpec { name: "skbuff_head_cache", size: SKBUFF_HEAD_CACHE_BYTES },
        CacheSpec { name: "skbuff_fclone_cache", size: FCLONE_BYTES },
        CacheSpec { name: rxh_name, size: rxh },
        CacheSpec { name: if txh == rxh { "kmalloc (tx head)" } else { txh_name }, size: txh },
    ]
}

/// Pages per node: every flow may hold a queued and a parked rx skb with its frames, plus
/// slabs, plus the most the steady-state start can put on the partial lists (every CPU's list
/// full, `cpu_partial + 1` slabs, and `min_partial` on the node's, per cache).
fn zone_pages(cfg: &Config, specs: &[CacheSpec], n_cpus: usize) -> u32 {
    let steady: u64 = if cfg.steady_slub {
        specs
            .iter()
            .map(|s| {
                let slabs = n_cpus as u64 * u64::from(cpu_partial_objects(s.size) + 1) + min_partial(s.size) as u64;
                slabs << calculate_order(s.size, n_cpus as u32)
            })
            .sum()
    } else {
        0
    };
    let per_node = u64::from(cfg.sim_flows()) * (2 * u64::from(rx_frags(cfg.request_bytes)) + 4)
        / u64::from(cfg.sockets)
        + 4 * n_cpus as u64 * 64
        + 16_384
        + steady;
    // The bound only keeps a hostile setting finite: the largest valid one (16,384 simulated
    // flows of 65,536-byte requests, 46 frags each, on one socket) needs about 1.6 M pages, so
    // 2^22 never cuts a valid run short (2^20 did: the driver found the zone empty).
    (per_node.div_ceil(1024) * 1024).min(1 << 22) as u32
}

/// Per node, per cache (the order of [`cache_specs`]): which CPU allocates the objects of
/// each flow and which frees them in the long run, for SLUB's steady-state start
/// ([`RemoteTraffic`]; every flow counted at the same transaction rate, ASSUMPTION: the server
/// is saturated and each flow has one request in flight). The rx skb (sk_buff and head) is
/// allocated by the driver on the IRQ CPU X, on X's node, and freed by recvmsg on the thread's
/// CPU Y, or with the rx cache by the next softirq (X, or Y with RPS); the tx skb (fclone and
/// head) is allocated by sendmsg on Y, on Y's node, and freed by tcp_ack in the softirq (X,
/// or Y with RPS) unless the tx cache reuses it (then it is never freed).
pub(super) fn remote_traffic(cfg: &Config, m: &MachineProfile, flows: &[Flow]) -> Vec<[RemoteTraffic; 4]> {
    let n = m.n_cpus() as usize;
    let mut out: Vec<[RemoteTraffic; 4]> =
        (0..cfg.sockets).map(|_| std::array::from_fn(|_| RemoteTraffic::new(n))).collect();
    let node = |c: CpuId| m.pos(c).socket as usize;
    for fl in flows {
        let (x, y) = (fl.irq_cpu, fl.app_cpu);
        let softirq = if cfg.rps { y } else { x };
        let rx_freer = if cfg.rx_cache { softirq } else { y };
        for c in [0, 2] {
            out[node(x)][c].add(x, rx_freer);
        }
        if !cfg.tx_cache {
            for c in [1, 3] {
                out[node(y)][c].add(y, softirq);
            }
        }
    }
    out
}

/// The flows (RSS picks each one's IRQ CPU from `rng`'s fork 1) and their clients' first
/// requests, in time order (then `rng` itself: random moments of one turnaround).
fn flows_and_starts(cfg: &Config, n_cpus: usize, rng: &mut Rng) -> (Vec<Flow>, Vec<(u64, u32)>) {
    let mut rss = rng.fork(1);
    let threads = cfg.threads.max(1);
    let flows: Vec<Flow> = (0..cfg.sim_flows())
        .map(|f| Flow {
            irq_cpu: super::queue_cpu(rss.below(cfg.queues()), cfg.queues(), n_cpus as u32),
            app_cpu: app_cpu(f, threads, n_cpus as u32),
            ..Flow::default()
        })
        .collect();
    let mut starts: Vec<(u64, u32)> =
        (0..cfg.sim_flows()).map(|f| (rng.range_u64(0, cfg.profile.client_turnaround_ns + 1), f)).collect();
    starts.sort_unstable();
    (flows, starts)
}
