//! Setting up a run of `cross-cpu-free`: the head sizes of 2011's skbs and the kmalloc class
//! they land in, which caches each host has, how many CPUs and what role each plays, and the
//! first events. Everything here runs once, before the first event.

use super::{Config, Consumer, CpuTime, Ev, Host, RunResult, Sim, Workload, NETFRONT_RX_HEAD_BYTES};
use super::{DRAIN_MAX_NS, MAX_EVENTS};
use crate::rng::Rng;
use crate::sim::engine::EventQueue;
use crate::sim::machine::CpuId;
use crate::sim::skb::{kmalloc_name, kmalloc_size, skb_data_align, SHINFO_2011_BYTES, SKBUFF_HEAD_CACHE_BYTES};
use crate::sim::slub::CacheSpec;
use crate::sim::world::{RunState, Window};
use std::collections::VecDeque;

/// Head bytes of a UDP transmit skb: link header room (16) + IP/UDP (28) + data + 15 slop,
/// aligned, plus the shared info unless it comes from its own cache.
pub fn tx_head_bytes(datagram: u32, split: bool) -> u32 {
    skb_data_align(16 + 28 + datagram + 15) + if split { 0 } else { SHINFO_2011_BYTES }
}

/// Head bytes of a netfront receive skb (data past 256 bytes goes to a page frag).
pub fn rx_head_bytes(split: bool) -> u32 {
    skb_data_align(NETFRONT_RX_HEAD_BYTES) + if split { 0 } else { SHINFO_2011_BYTES }
}

impl Sim {
    pub fn new(cfg: Config, seed: u64) -> Sim {
        let p = cfg.profile;
        let n = cfg.input.consumers.max(1) as usize;
        let (tx_specs, rx_specs, rx_cpus) = cache_specs(&cfg, n);
        let clients = if cfg.input.consumer == Consumer::Dispatcher { n } else { 1 };
        let tx = Host::new(&p, clients + 1, &tx_specs, 378, cfg.input.cpu_partial);
        // tcp-100g: a 6.x pcp->high for a large zone (Mel Gorman's 5.14 sizing gives hundreds).
        let rx = Host::new(&p, rx_cpus, &rx_specs, 378, cfg.input.cpu_partial);
        let readers = if cfg.input.workload == Workload::UdpIperf { clients } else { 1 };
        let rx_roles = rx_roles(&cfg, n);
        let res = RunResult {
            workload: cfg.input.workload,
            measure_ns: cfg.measure_ns(),
            sent: 0,
            received: 0,
            dropped: 0,
            bytes_read: 0,
            rx_skbs_freed: 0,
            rx_free_slowpath: 0,
            rx_free_fastpath: 0,
            rx_slub: Vec::new(),
            tx_slub: Vec::new(),
            list_lock_acquisitions: 0,
            list_lock_contentions: 0,
            list_lock_wait_ns: 0,
            zone_lock_contentions: 0,
            rx_time: CpuTime::new(rx_cpus),
            tx_time: CpuTime::new(clients + 1),
            rx_cpus: rx_roles,
            caches: rx.slub.caches.iter().map(|c| (c.name, c.size, c.order)).collect(),
            sysfs: String::new(),
            lanes: Vec::new(),
            events: 0,
            capped: false,
        };
        let window = Window { warmup_ns: cfg.warmup_ns(), measure_ns: cfg.measure_ns() + DRAIN_MAX_NS };
        let mut sim = Sim {
            q: EventQueue::default(),
            run_state: RunState::new(window, MAX_EVENTS),
            rng: Rng::new(seed, 0xc0c0),
            tx,
            rx,
            tx_inflight: vec![VecDeque::new(); clients],
            tx_cons: vec![0; clients],
            tx_rsp_event: vec![1; clients],
            tx_irq_seq: vec![0; clients],
            rx_upcall_due: false,
            wire_free_at: 0,
            backlog: VecDeque::new(),
            irq_busy: false,
            sockq: vec![VecDeque::new(); readers],
            sock_bytes: vec![0; readers],
            sleeping: vec![true; readers],
            defer_list: Vec::new(),
            defer_line: Default::default(),
            a_blocked: false,
            rps_done_at: 0,
            next_arrival_ns: 0,
            pages: Vec::new(),
            ddio: if cfg.input.workload == Workload::Tcp100g { p.ddio() } else { None },
            next_skb: 0,
            res,
            lane_first_skb: None,
            pending: 0,
            closed: false,
            cfg,
        };
        sim.schedule_first_events(clients);
        sim
    }

    /// The window's end, then udp: every client's first send; tcp: the first interrupt.
    fn schedule_first_events(&mut self, clients: usize) {
        self.q.schedule(self.cfg.warmup_ns() + self.cfg.measure_ns(), Ev::WindowEnd);
        match self.cfg.input.workload {
            Workload::UdpIperf => {
                for c in 0..clients {
                    // Clients start a few hundred ns apart (iperf threads do not start in lockstep).
                    let at = u64::from(self.rng.below(500)) + c as u64 * 97;
                    self.q.schedule(at, Ev::Send(c as u16));
                }
            }
            Workload::Tcp100g => self.q.schedule(0, Ev::Irq),
        }
    }
}

/// The caches of the sending and the receiving host, and the receiver's CPUs.
fn cache_specs(cfg: &Config, n: usize) -> (Vec<CacheSpec>, Vec<CacheSpec>, usize) {
    match cfg.input.workload {
        Workload::UdpIperf => {
            let mut tx = vec![CacheSpec { name: "skbuff_head_cache", size: SKBUFF_HEAD_CACHE_BYTES }];
            let mut rx = tx.clone();
            let txh = kmalloc_size(tx_head_bytes(cfg.input.datagram_bytes, cfg.input.shinfo_split));
            let rxh = kmalloc_size(rx_head_bytes(cfg.input.shinfo_split));
            tx.push(CacheSpec { name: kmalloc_name(txh), size: txh });
            rx.push(CacheSpec { name: kmalloc_name(rxh), size: rxh });
            if cfg.input.shinfo_split {
                let s = CacheSpec { name: "skb_shinfo_cache", size: SHINFO_2011_BYTES };
                tx.push(s);
                rx.push(s);
            }
            let rx_cpus = if cfg.input.consumer == Consumer::Dispatcher { 1 + n } else { 2 };
            (tx, rx, rx_cpus)
        }
        Workload::Tcp100g => {
            let rx = vec![
                CacheSpec { name: "skbuff_head_cache", size: SKBUFF_HEAD_CACHE_BYTES },
                CacheSpec { name: "kmalloc-1024", size: 1024 },
            ];
            (rx.clone(), rx, 2)
        }
    }
}

/// The receiver's CPUs in lane order, with the role each plays.
fn rx_roles(cfg: &Config, n: usize) -> Vec<(CpuId, &'static str)> {
    let mut rx_roles: Vec<(CpuId, &'static str)> = vec![(0, "IRQ CPU: NIC RX, allocates")];
    match (cfg.input.workload, cfg.input.consumer) {
        (Workload::Tcp100g, _) if cfg.input.rfs => {
            rx_roles = vec![(0, "CPU A: NIC RX, allocates"), (1, "CPU B: TCP receive (RFS), recvmsg, frees")]
        }
        (Workload::Tcp100g, _) => {
            rx_roles = vec![(0, "CPU A: NIC RX, TCP receive, allocates"), (1, "CPU B: recvmsg, frees")]
        }
        (_, Consumer::Same) => rx_roles[0].1 = "IRQ CPU + iperf server",
        (_, Consumer::Other) => rx_roles.push((1, "iperf server")),
        (_, Consumer::Dispatcher) => {
            for i in 0..n {
                rx_roles.push(((i + 1) as CpuId, "reader"));
            }
        }
    }
    rx_roles
}
