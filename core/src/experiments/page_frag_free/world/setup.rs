//! Building the forwarding box: the logical CPUs a run uses, which CPU polls the TX
//! completions of each RX CPU (XPS and the egress NIC's interrupt binding, [`TxIrq`]), the
//! CPUs with a duty and their random streams, the zones and the RX queues' arrival phases.

use super::super::machines::TxIrq;
use super::{
    Cpu, ForwardConfig, ForwardSim, ForwardStats, Next, RxQueue, MAX_EVENTS_PER_RUN, RX_BUDGET, TAIL_MAX_NS, TX_BUDGET,
};
use crate::rng::Rng;
use crate::sim::cache::Caches;
use crate::sim::engine::EventQueue;
use crate::sim::machine::CpuId;
use crate::sim::profile::Profile;
use crate::sim::world::{RunState, Window};
use crate::sim::zone::Zone;
use std::collections::VecDeque;

impl ForwardSim {
    /// The box of `cfg` at time 0, every RX CPU about to poll, the others idle.
    pub fn new(cfg: ForwardConfig, seed: u64) -> ForwardSim {
        let online = online_cpus(&cfg);
        assert!(
            cfg.rx_queues >= 1 && cfg.offered_pps > 0 && !online.is_empty(),
            "bug: unvalidated config: {} rx queues on {} cpus",
            cfg.rx_queues,
            online.len()
        );
        // The forks in this order: zones (1000 + node), then the busy CPUs (1 + index).
        let mut root = Rng::new(seed, 0);
        let m = &cfg.machine.cpu;
        let zones = (0..m.sockets)
            .map(|node| {
                let mut rng = root.fork(1000 + u64::from(node));
                let pcp = (cfg.pcp_high, cfg.pcp_batch);
                Zone::fragmented(node, cfg.zone_pages, m.n_cpus() as usize, pcp, false, &mut rng)
            })
            .collect();
        let cpus = build_cpus(&cfg, &online, &mut root);
        let sockets = m.sockets as usize;
        let period_ns = 1_000_000_000 * u64::from(cfg.rx_queues) / cfg.offered_pps.max(1);
        let rxq = (0..cfg.rx_queues)
            .map(|q| RxQueue { phase_ns: period_ns * u64::from(q) / u64::from(cfg.rx_queues), ..RxQueue::default() })
            .collect();
        // The loop's window adds the tail in which the window's packets are resolved.
        let window = Window { warmup_ns: cfg.warmup_ns, measure_ns: cfg.measure_ns + TAIL_MAX_NS };
        let mut sim = ForwardSim {
            caches: Caches::new(&cfg.machine.cpu),
            cfg,
            now_ns: 0,
            queue: EventQueue::default(),
            run_state: RunState::new(window, MAX_EVENTS_PER_RUN),
            zones,
            cpus,
            rxq,
            profile: Profile::default(),
            stats: ForwardStats::default(),
            unresolved: 0,
            lock_socket: vec![None; sockets],
        };
        let (start, end) = (sim.cfg.warmup_ns, sim.window_end_ns());
        for q in 0..sim.rxq.len() {
            let win = (sim.arrived(q, start), sim.arrived(q, end));
            sim.rxq[q].win = win;
            sim.stats.offered += win.1 - win.0;
        }
        for i in 0..sim.cpus.len() {
            if !sim.cpus[i].rx_queues.is_empty() {
                sim.schedule_resume(i, 0);
            } else {
                sim.cpus[i].idle = true;
            }
        }
        sim
    }
}

/// The logical CPUs a run uses, in Linux numbering order: first threads of every online core
/// (socket-major), then their SMT siblings.
fn online_cpus(cfg: &ForwardConfig) -> Vec<CpuId> {
    let m = &cfg.machine.cpu;
    let per_socket = cfg.cores / m.sockets;
    let threads = if cfg.smt { m.threads_per_core } else { 1 };
    let mut out = Vec::new();
    for t in 0..threads {
        for s in 0..m.sockets {
            for c in 0..per_socket {
                out.push(m.cpu_id(s, c, t));
            }
        }
    }
    out
}

/// The CPU that polls the TX completions of packets received on `c`.
fn tx_cpu_of(cfg: &ForwardConfig, c: CpuId) -> CpuId {
    let m = &cfg.machine.cpu;
    let p = m.pos(c);
    match cfg.tx_irq {
        TxIrq::Same => c,
        TxIrq::Remote if m.sockets > 1 => m.cpu_id((p.socket + 1) % m.sockets, p.core, p.smt),
        TxIrq::Remote => {
            let per_socket = (cfg.cores / m.sockets).max(1);
            m.cpu_id(p.socket, (p.core + per_socket / 2) % per_socket, p.smt)
        }
    }
}

/// The CPUs with a duty (the RX CPUs and the CPUs that poll their completions), busy CPU i
/// with `root`'s fork i + 1.
fn build_cpus(cfg: &ForwardConfig, online: &[CpuId], root: &mut Rng) -> Vec<Cpu> {
    let m = &cfg.machine.cpu;
    let rx_cpus: Vec<CpuId> = online.iter().copied().cycle().take(cfg.rx_queues as usize).collect();
    let mut busy: Vec<CpuId> = Vec::new();
    for &c in &rx_cpus {
        for x in [c, tx_cpu_of(cfg, c)] {
            if !busy.contains(&x) {
                busy.push(x);
            }
        }
    }
    let mhz = m.thread_mhz(&busy);
    let mut cpus: Vec<Cpu> = busy
        .iter()
        .enumerate()
        .map(|(i, &id)| Cpu {
            id,
            mhz: mhz[i],
            node: m.pos(id).socket,
            rx_queues: (0..rx_cpus.len()).filter(|&q| rx_cpus[q] == id).collect(),
            rx_next: 0,
            tx_cpu: 0,
            tx_pending: VecDeque::new(),
            outbox: None,
            sq_used: 0,
            cursor_ns: 0,
            next: Next::Poll,
            idle: false,
            gen: 0,
            rng: root.fork(i as u64 + 1),
            jitter_permille: 1000,
            tx_quota: TX_BUDGET,
            rx_quota: RX_BUDGET,
            spin_since_ns: None,
            op: None,
            rx_q: 0,
            rx_counted: false,
        })
        .collect();
    // A CPU that only polls completions transmits nothing: its own index.
    for (i, c) in cpus.iter_mut().enumerate() {
        let t = tx_cpu_of(cfg, c.id);
        c.tx_cpu = if c.rx_queues.is_empty() {
            i
        } else {
            busy.iter().position(|&b| b == t).expect("an RX CPU's completion CPU is busy")
        };
    }
    cpus
}
