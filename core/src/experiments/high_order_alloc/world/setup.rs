//! Building the TCP_STREAM world from its configuration: one fragmented zone per socket,
//! netperf and netserver of every flow placed on their CPUs, the skb side, and the threads'
//! start offsets. The RNG forks in this order: zones (1000 + node), threads (1 + index),
//! start offsets (0).

use super::{
    place, skb_cache, Action, CpuSlot, Flow, RcvAck, Role, Skb, Stack, StreamConfig, StreamSim, StreamStats, Thread,
    ThreadState, EVENTS_PER_THREAD_US, MAX_CPUS, MAX_EVENTS_PER_RUN, MAX_FLOWS, TCP_MSS_DEFAULT,
};
use crate::rng::Rng;
use crate::sim::cache::Caches;
use crate::sim::engine::{EventQueue, ThreadId};
use crate::sim::page_frag::PageFrag;
use crate::sim::profile::Profile;
use crate::sim::world::{RunState, Window};
use crate::sim::zone::Zone;

/// One zone per socket, each fragmented by its own fork of `root` (1000 + node).
fn build_zones(cfg: &StreamConfig, root: &mut Rng) -> Vec<Zone> {
    let n_cpus = cfg.machine.n_cpus() as usize;
    (0..cfg.machine.sockets)
        .map(|node| {
            let mut rng = root.fork(1000 + u64::from(node));
            let pcp = (cfg.input.pcp_high, cfg.input.pcp_batch);
            let mut zone = Zone::fragmented(node, cfg.zone_pages, n_cpus, pcp, cfg.input.pcp_high_order, &mut rng);
            zone.holder_work = super::constants::HOLDER_WORK;
            zone.lock.arrivals_in_handoff = super::constants::ARRIVALS_IN_HANDOFF;
            zone.lock.claim_cmpxchg = super::constants::CLAIM_CMPXCHG;
            zone
        })
        .collect()
}

/// netperf and netserver of every flow, placed on their CPUs; thread i's RNG is `root`'s
/// fork i + 1.
fn build_threads(cfg: &StreamConfig, root: &mut Rng) -> (Vec<Thread>, Vec<Flow>) {
    let cpu_of = place(&cfg.machine, cfg.input.cpus, cfg.input.smt, cfg.flows, cfg.input.placement);
    let mhz = cfg.machine.thread_mhz(&cpu_of);
    let mut threads = Vec::new();
    let mut flows = Vec::new();
    for f in 0..cfg.flows {
        for role in [Role::Netperf, Role::Netserver] {
            let i = threads.len();
            let begin = if role == Role::Netperf { Action::BeginSend } else { Action::BeginRecv };
            threads.push(Thread {
                role,
                flow: f,
                cpu: cpu_of[i],
                mhz: mhz[i],
                prog: vec![begin],
                cursor_ns: 0,
                state: ThreadState::Runnable,
                pfrag: PageFrag::default(),
                skb: Skb::default(),
                rng: root.fork(i as u64 + 1),
                jitter_permille: 1000,
                spin_since_ns: 0,
                locked_op: None,
                doing: Stack::Schedule,
            });
        }
        let ack = RcvAck { rcv_mss: TCP_MSS_DEFAULT, ..RcvAck::default() };
        flows.push(Flow { sender: 2 * f, receiver: 2 * f + 1, ack, ..Flow::default() });
    }
    (threads, flows)
}

impl StreamSim {
    pub fn new(cfg: StreamConfig, seed: u64) -> StreamSim {
        assert!(
            cfg.flows <= MAX_FLOWS && (cfg.machine.sockets..=MAX_CPUS).contains(&cfg.input.cpus),
            "bug: unvalidated config: {} flows, {} cpus on {} sockets",
            cfg.flows,
            cfg.input.cpus,
            cfg.machine.sockets
        );
        // The forks in this order: zones (1000 + node), threads (1 + index), start offsets (0).
        let mut root = Rng::new(seed, 0);
        let n_cpus = cfg.machine.n_cpus() as usize;
        let zones = build_zones(&cfg, &mut root);
        let (threads, flows) = build_threads(&cfg, &mut root);
        let end_us = (cfg.warmup_ns() + cfg.measure_ns()) / 1000 + 1;
        let max_events = (EVENTS_PER_THREAD_US * threads.len() as u64 * end_us).min(MAX_EVENTS_PER_RUN);
        let window = Window { warmup_ns: cfg.warmup_ns(), measure_ns: cfg.measure_ns() };
        let mut sim = StreamSim {
            caches: Caches::new(&cfg.machine),
            skbs: skb_cache::SkbSide::new(&cfg, n_cpus),
            cfg,
            now_ns: 0,
            queue: EventQueue::default(),
            run_state: RunState::new(window, max_events),
            zones,
            threads,
            flows,
            cpus: vec![CpuSlot { idle_since_ns: Some(0), ..CpuSlot::default() }; n_cpus],
            profile: Profile::default(),
            stats: StreamStats::default(),
            trace: None,
            spare_frags: Vec::new(),
            scratch: Vec::new(),
            ipis: 0,
        };
        // Threads start up to 2 µs apart, so they do not run in lockstep.
        let mut start = root.fork(0);
        for t in 0..sim.threads.len() as ThreadId {
            let offset_ns = start.range_u64(0, 2000);
            sim.threads[t as usize].cursor_ns = offset_ns;
            sim.claim_cpu(t, offset_ns);
        }
        sim
    }
}
