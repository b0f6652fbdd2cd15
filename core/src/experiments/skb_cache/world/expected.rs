//! The events a run of `skb-cache` is expected to take, from its configuration alone: the
//! transaction rate of the slowest stage (the busiest CPU with its RX queues' softirq work and
//! its threads' work, the link, or the flows' closed loop) from the profile's per-transaction
//! cycles and lines, times the events each transaction makes and the simulated time: the
//! warm-up, until the slowest flows have completed their round trips, then the window. An
//! expectation for the estimate and the page's cost, not a bound: [`MAX_EVENTS`] bounds the
//! work. Where RX queue 0's CPU also runs threads near its saturation, the warm-up is all or
//! nothing (an RPS backlog behind a driver queue that never empties, ksoftirqd's 2 ms), and
//! this lies up to 6× off at about one setting in 800 (`core/tests/estimate.rs`).

use super::super::profile::Allocator;
use super::setup::{rx_frags, tx_frags_of};
use super::{queue_cpu, Config, MAX_EVENTS, MAX_SOFTIRQ_NS, MAX_WARMUP_NS, WARM_ROUND_TRIPS, WIRE_OVERHEAD};
use crate::sim::machine::{cycles_to_ns, CpuId};
use crate::sim::skb::TCP_MSS;

/// Events per transaction when every CPU is busy: the request, the driver's piece and the
/// thread's piece (epoll batches are long).
const BUSY_EVENTS: f64 = 3.4;
/// ... when the CPUs are mostly idle: they go idle between pieces (an event each) and epoll
/// batches are short. In between, in proportion to the CPUs' mean busy share.
const IDLE_EVENTS: f64 = 5.5;

/// The expected events of one run of `cfg`.
pub fn expected_events(cfg: &Config) -> u64 {
    let c = Costs::of(cfg);
    let (rate, busy) = c.pace(cfg);
    let per_tx = IDLE_EVENTS - (IDLE_EVENTS - BUSY_EVENTS) * busy + f64::from(u8::from(cfg.rps));
    let per_ns = rate * per_tx;
    let warm_ns = c.slowest_round_trips_ns(cfg, rate).max(cfg.warmup_ns as f64);
    let warm = (warm_ns.min(MAX_WARMUP_NS as f64) * per_ns).min((MAX_EVENTS / 2) as f64);
    (warm + cfg.measure_ns as f64 * per_ns).min(MAX_EVENTS as f64).ceil() as u64
}

/// The ns of a transaction's pieces at the clock of a busy machine.
struct Costs {
    cpus: u32,
    /// The driver's piece (with RPS, what stays on the RX queue's CPU).
    driver: f64,
    /// The TCP receive path, its lines and the wakeup.
    stack: f64,
    /// The thread's recvmsg and sendmsg.
    app: f64,
    /// The request's and the response's time on the link.
    rx_wire: f64,
    tx_wire: f64,
}

impl Costs {
    fn of(cfg: &Config) -> Costs {
        let p = cfg.profile;
        let k = &p.kernel;
        let m = p.machine(cfg.sockets, cfg.cores, cfg.smt);
        let cpus = m.n_cpus();
        let all: Vec<CpuId> = (0..cpus as CpuId).collect();
        let mhz = m.thread_mhz(&all).first().copied().unwrap_or(1).max(1);
        let ns = |cycles: u64| cycles_to_ns(cycles, mhz) as f64;
        // A line comes from another socket as often as a random CPU is on one.
        let remote = f64::from(cfg.sockets.max(1) - 1) / f64::from(cfg.sockets.max(1));
        let line =
            m.line_same_socket_ns as f64 + remote * m.line_cross_socket_ns.saturating_sub(m.line_same_socket_ns) as f64;
        let frags = u64::from(rx_frags(cfg.request_bytes) + tx_frags_of(cfg.profile.tx_head, cfg.response_bytes));
        let copy = u64::from(cfg.request_bytes + cfg.response_bytes) * 1000 / m.copy_bytes_per_kcycle.max(1);
        // Two objects allocated and two freed per skb, two skbs per transaction, on the array
        // or the active slab; SLUB: a free in four more on the slow path; SLAB: each of the
        // four frees an alien free (its work and an uncontended lock) as often as the freeing
        // CPU is on another socket. A page (or frag reference) taken and put per frag.
        let extra = match p.allocator {
            Allocator::Slub => 2 * k.slub_slow_cycles.int(),
            Allocator::Slab => (4.0 * remote * (k.slub_slow_cycles.int() + k.spin_lock_cycles.int()) as f64) as u64,
        };
        let slub = 8 * k.slub_fast_cycles.int() + extra + 2 * frags * k.pcp_op_cycles.int();
        let rps = if cfg.rps { k.rps_enqueue_cycles.int() } else { 0 };
        let lines = |n: u64| n as f64 * line;
        let wire = |bytes: u32| {
            let frames = u64::from(bytes.div_ceil(TCP_MSS).max(1));
            ((u64::from(bytes) + frames * WIRE_OVERHEAD) * 8 * 1000).div_ceil(p.link_mbps.max(1)) as f64
        };
        Costs {
            cpus,
            driver: ns(p.nic_rx_cycles() + rps + slub / 2),
            stack: ns(p.tcp_rx_cycles() + p.rx_timer_cycles() + m.wakeup_cycles)
                + lines(p.sock_lines + p.sock_private_lines),
            app: ns(p.app_cycles() + p.epoll_ctl_cycles() + p.tx_timer_cycles() + copy + slub / 2)
                + lines(p.sock_lines + p.sock_private_lines + p.skb_lines),
            rx_wire: wire(cfg.request_bytes),
            tx_wire: wire(cfg.response_bytes),
        }
    }

    /// The RX queue CPU's share of a transaction: the driver, and without RPS the TCP receive.
    fn softirq(&self, cfg: &Config) -> f64 {
        if cfg.rps {
            self.driver
        } else {
            self.driver + self.stack
        }
    }

    /// Transactions per ns of the slowest stage, and the CPUs' mean busy share at that pace.
    /// Flows spread over the CPUs that take RX queues (RSS) and the CPUs that run threads
    /// (flow f on thread f mod threads; a CPU's threads share it, so its flows are served at
    /// its pace, not each thread's), so the busiest CPU, with its softirq work and its threads'
    /// work, paces them all; or the link; or the flows' closed loop.
    fn pace(&self, cfg: &Config) -> (f64, f64) {
        let n = self.cpus.max(1);
        let (queues, threads) = (cfg.queues(), cfg.threads.max(1).min(cfg.sim_flows().max(1)));
        let mut load = vec![0.0; n as usize];
        let queue_cpus: Vec<CpuId> = (0..queues).map(|q| queue_cpu(q, queues, n)).collect();
        let spread = |k: u32| f64::from(k.min(n));
        for c in 0..n {
            if queue_cpus.contains(&(c as CpuId)) {
                load[c as usize] += self.softirq(cfg) / spread(queues);
            }
            if c < threads {
                load[c as usize] += self.own(cfg) / spread(threads);
            }
        }
        let busiest = load.iter().copied().fold(0.0, f64::max);
        let mean = load.iter().sum::<f64>() / f64::from(n);
        let link = 1.0 / self.rx_wire.max(self.tx_wire).max(1.0);
        let round_trip =
            cfg.profile.client_turnaround_ns as f64 + self.rx_wire + self.tx_wire + self.driver + self.stack + self.app;
        let flows = f64::from(cfg.sim_flows()) / round_trip;
        let mut rate = (1.0 / busiest.max(1.0)).min(link).min(flows);
        // With RPS, a queue's CPU gives its own threads' flows only what its driver work
        // leaves (their TCP receive waits for an empty driver queue): the other CPUs' flows set
        // the pace, up to what the drivers take.
        let others =
            (0..n).filter(|&c| !queue_cpus.contains(&(c as CpuId))).map(|c| load[c as usize]).fold(0.0, f64::max);
        if cfg.rps && others > 0.0 {
            let driver_cap = f64::from(queues) / f64::from(queues.div_ceil(n)) / self.driver.max(1.0);
            rate = (1.0 / others).min(driver_cap).min(link).min(flows);
        }
        (rate, (rate * mean).min(1.0))
    }

    /// A flow's work on its thread's CPU: the thread's, and with RPS the TCP receive.
    fn own(&self, cfg: &Config) -> f64 {
        if cfg.rps {
            self.app + self.stack
        } else {
            self.app
        }
    }

    /// How long the slowest flows take for their warm-up round trips: at the closed loop's
    /// pace (Little's law: flows / rate per round trip), or the flows of CPU 0's threads, a CPU
    /// that also serves RX queue 0 and so gives them only what its softirq work leaves (with
    /// RPS their TCP receive also waits until its driver queue is empty: without end at a
    /// saturated queue, where the warm-up runs to its caps).
    fn slowest_round_trips_ns(&self, cfg: &Config, rate: f64) -> f64 {
        let all = f64::from(WARM_ROUND_TRIPS * cfg.sim_flows()) / rate;
        let busy_threads = cfg.threads.max(1).min(cfg.sim_flows().max(1));
        let share = f64::from(busy_threads.div_ceil(self.cpus.max(1))) / f64::from(busy_threads);
        let queues = cfg.queues();
        let busy =
            (rate * self.softirq(cfg) * f64::from(queues.div_ceil(self.cpus.max(1))) / f64::from(queues)).min(1.0);
        // With RPS, what the driver leaves; without, at least half once the softirq has run
        // MAX_SOFTIRQ_NS on end (then in ksoftirqd, which CFS shares with the threads), as it
        // does when it nearly fills the CPU.
        let softirq_on_end = busy >= 0.85;
        let (wait, left) = match (cfg.rps, softirq_on_end) {
            // A low-priority queue behind the driver's: the wait grows as 1 / (1 - busy)^1.5
            // (fitted to the warm-ups of RPS runs with one to eight RX queues).
            (true, _) => (0.0, (1.0 - busy).max(0.0).powf(1.5)),
            (false, true) => (MAX_SOFTIRQ_NS as f64, 0.5),
            (false, false) => (0.0, 1.0 - busy),
        };
        let cpu0 =
            wait + f64::from(WARM_ROUND_TRIPS) * f64::from(cfg.sim_flows()) * share * self.own(cfg) / left.max(1e-9);
        all.max(cpu0)
    }
}
