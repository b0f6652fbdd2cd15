//! The sweep of `percpu-counter`: which core counts a run visits, the world each (counter,
//! core count) pair becomes (topology, Linux CPU numbering, connections scaled with the
//! cores, the update cap), and the figures one finished world yields.

use super::world::{wheel_granularity, TIMER_TIMEOUT_MS};
use super::{
    Counter, CounterCosts, Input, World, WorldConfig, WorldStats, COSTS_2018, DUAL_XEON_2018, MAX_CORES,
    MAX_UPDATES_PER_RUN,
};
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::world as skeleton;

/// The core counts of the sweep: ¼, ½, 1, 2 and 4 × `cpus`, rounded up to whole sockets.
pub fn core_ladder(i: &Input) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for (num, den) in [(1, 4), (1, 2), (1, 1), (2, 1), (4, 1)] {
        let c = (i.cpus * num).div_ceil(den).div_ceil(i.sockets) * i.sockets;
        let c = c.clamp(i.sockets, MAX_CORES / i.sockets * i.sockets);
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out.sort_unstable();
    out
}

/// The world of `counter` with `cores` cores online, on machine `m` with `costs`; the
/// connections scale with the cores (`connections` is the count at `cpus` cores).
pub fn config_on(m: &MachineProfile, costs: CounterCosts, i: &Input, cores: u32, counter: Counter) -> WorldConfig {
    let per_socket = cores / i.sockets;
    let machine = m.with_topology(i.sockets, per_socket);
    // Linux numbering over the online cores: first threads of every core, then the siblings.
    let cpu_ids: Vec<CpuId> = (0..i.threads())
        .flat_map(|smt| {
            let machine = &machine;
            (0..cores).map(move |k| machine.cpu_id(k / per_socket, k % per_socket, smt))
        })
        .collect();
    let nr = cpu_ids.len() as u32;
    // The same load per core: a bigger machine serves proportionally more connections.
    let connections = (u64::from(i.connections) * u64::from(cores) / u64::from(i.cpus)).clamp(1, 4_000_000) as u32;
    let rate = u64::from(connections) * u64::from(i.raises_per_min + i.timers_per_min) / 60;
    let cap_ns = MAX_UPDATES_PER_RUN * 1_000_000_000 / rate.max(1);
    let gran = wheel_granularity(TIMER_TIMEOUT_MS * u64::from(i.hz) / 1000);
    // Whole periods of the wheel's bursts (at least one), so every run sees the true rate.
    let period_ns = gran * 1_000_000_000 / u64::from(i.hz);
    let duration_ns = ((i.measure_us * 1000).min(cap_ns) / period_ns).max(1) * period_ns;
    WorldConfig {
        machine,
        cpu_ids,
        counter,
        connections,
        raises_per_min: i.raises_per_min,
        timers_per_min: i.timers_per_min,
        raise_pages_max: i.raise_pages_max,
        hz: i.hz,
        skew_tick: i.skew_tick,
        wheel_gran_ticks: gran,
        batch: i.batch_at(nr),
        reserve_pages: i.reserve_pages(),
        costs: CounterCosts { atomic_ns: i.atomic_ns, ..costs },
        traffic_bytes_per_us: i.traffic_mb_s,
        duration_ns,
        ramp: None,
        sample_every_ns: 0,
    }
}

/// One simulated run's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub cpu_pct: f64,
    /// Share of the accounting time spent in the reduce path (%).
    pub reduce_share_pct: f64,
    pub max_error_pages: i64,
    pub error_bound_pages: i64,
    /// The event cap stopped the run before the end of its window: it measured only part of
    /// a burst period, so its shares are not the steady figure (the row marks them missing).
    pub truncated: bool,
    pub stats: WorldStats,
}

/// Runs `cfg` to its end.
pub fn simulate(cfg: WorldConfig, seed: u64) -> World {
    let mut w = World::new(cfg, seed);
    skeleton::World::run(&mut w);
    w.finish();
    w
}

/// The figures of the finished run `w`.
pub fn outcome(w: &World) -> Outcome {
    let s = &w.stats;
    let total = w.cfg.duration_ns as f64 * f64::from(w.cfg.nr_cpus());
    let acct = (s.raise_ns + s.reduce_ns) as f64;
    Outcome {
        cpu_pct: acct * 100.0 / total.max(1.0),
        reduce_share_pct: if acct > 0.0 { s.reduce_ns as f64 * 100.0 / acct } else { 0.0 },
        max_error_pages: s.max_error_pages,
        error_bound_pages: w.cfg.error_bound_pages(),
        truncated: skeleton::World::run_state(w).truncated(),
        stats: s.clone(),
    }
}

/// Every counter at `cores` cores with the committed profile and the parameters' knobs.
pub fn point_outcomes(i: &Input, cores: u32, seed: u64) -> [Outcome; 3] {
    point_outcomes_on(&DUAL_XEON_2018, COSTS_2018, i, cores, seed)
}

/// Every counter at `cores` cores on machine `m` with `costs` (a band sample's).
pub fn point_outcomes_on(m: &MachineProfile, costs: CounterCosts, i: &Input, cores: u32, seed: u64) -> [Outcome; 3] {
    let run = |c| outcome(&simulate(config_on(m, costs, i, cores, c), seed));
    [run(Counter::Atomic), run(Counter::PercpuCounter), run(Counter::PcpuReserve)]
}
