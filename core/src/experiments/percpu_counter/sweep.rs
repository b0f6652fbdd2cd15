//! The sweep of `percpu-counter`: which core counts a run visits, the world each (counter,
//! core count) pair becomes (topology, Linux CPU numbering, connections scaled with the
//! cores, the update cap), the worlds of a point, the events a world is expected to take, and
//! the figures one finished world yields.

use super::stream::stream;
use super::world::wheel_granularity;
use super::{
    ramp_config, Counter, CounterCosts, Input, World, WorldConfig, WorldStats, COSTS_2018, DUAL_XEON_2018, MAX_CORES,
    MAX_EVENTS_PER_RUN, MAX_UPDATES_PER_RUN, RAMP_LEAD_NS,
};
use crate::model::Runner;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::world as skeleton;

/// The core counts of the sweep: ¼, ½, 1, 2 and 4 × `cpus`, rounded up to whole sockets.
pub fn core_ladder(i: &Input) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for c in ladder_wanted(i) {
        let c = c.clamp(i.sockets, max_cores(i));
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out.sort_unstable();
    out
}

/// The core counts the ladder asks for: 1/4, 1/2, 1, 2 and 4 times `cpus`, each rounded up to
/// a multiple of the sockets.
fn ladder_wanted(i: &Input) -> impl Iterator<Item = u32> + '_ {
    [(1, 4), (1, 2), (1, 1), (2, 1), (4, 1)]
        .into_iter()
        .map(|(num, den)| (i.cpus * num).div_ceil(den).div_ceil(i.sockets) * i.sockets)
}

/// The most cores a point may have: [`MAX_CORES`], a multiple of the sockets.
fn max_cores(i: &Input) -> u32 {
    MAX_CORES / i.sockets * i.sockets
}

/// The note of a ladder cut at the model's limit (its rows are not silently missing).
pub fn ladder_note(i: &Input) -> Option<String> {
    let cut: Vec<String> = ladder_wanted(i).filter(|&c| c > max_cores(i)).map(|c| c.to_string()).collect();
    (!cut.is_empty()).then(|| {
        format!(
            "the sweep stops at {} cores, the model's limit: the points at {} cores are not run",
            max_cores(i),
            cut.join(" and ")
        )
    })
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
    let st = stream(i.sends_per_min, i.send_bytes, i.srtt_us, i.hz);
    let rate = u64::from(connections) * u64::from(st.raises_per_hour + st.timers_per_hour) / 3600;
    let cap_ns = MAX_UPDATES_PER_RUN * 1_000_000_000 / rate.max(1);
    let gran = wheel_granularity(st.timeout_jiffies);
    // Whole periods of the wheel's bursts (at least one), so every run sees the true rate.
    let period_ns = gran * 1_000_000_000 / u64::from(i.hz);
    let duration_ns = ((i.measure_us * 1000).min(cap_ns) / period_ns).max(1) * period_ns;
    WorldConfig {
        machine,
        cpu_ids,
        counter,
        connections,
        raises_per_hour: st.raises_per_hour,
        timers_per_hour: st.timers_per_hour,
        raise_pages_max: st.raise_pages_max,
        forced_ppm: st.forced_ppm,
        forced_pages: st.forced_pages,
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
    run_through(cfg, seed, "", &mut Runner::plain())
}

/// Builds `cfg`'s world and runs it through `runner` (`what` names it in a broken invariant).
fn run_through(cfg: WorldConfig, seed: u64, what: &str, runner: &mut Runner) -> World {
    let mut w = World::new(cfg, seed);
    runner.run(what, &mut w);
    w.finish();
    w
}

/// What the worlds of one point leave for its row: the three counters' figures and the
/// selected counter's ramp.
pub struct PointWorlds {
    pub counters: [Outcome; 3],
    pub ramp: World,
}

/// The worlds of the point at `cores` cores on machine `m` with `costs`, through `runner`:
/// the three counters, then the selected counter's ramp.
pub fn point_worlds_on(
    m: &MachineProfile,
    costs: CounterCosts,
    i: &Input,
    cores: u32,
    seed: u64,
    runner: &mut Runner,
) -> PointWorlds {
    let mut run = |c: Counter| {
        let w = run_through(config_on(m, costs, i, cores, c), seed, &format!("{c:?} at {cores} cores"), runner);
        outcome(&w)
    };
    let counters = [run(Counter::Atomic), run(Counter::PercpuCounter), run(Counter::PcpuReserve)];
    let what = format!("ramp of {:?} at {cores} cores", i.counter);
    let ramp = run_through(ramp_config(m, costs, i, cores, i.counter), seed, &what, runner);
    PointWorlds { counters, ramp }
}

/// Steady-state draw steps (`WorldStats::draw_steps`) that take about one event's time
/// (measured with the stream's earlier, chosen rates — 1,200 raises and 1 timer per
/// connection a minute, a million connections: about 4 × 10^9 steps and 2 × 10^6 events took
/// 12.0 s of one core in a release build, about 57 steps per event at 6.1 M events/s; the
/// draw loop is the same under the derived stream, and `core/tests/estimate.rs` checks the
/// estimate against the events runs handle).
pub const DRAW_STEPS_PER_EVENT: u64 = 50;

/// The events `cfg`'s world is expected to take, its draws' steps counted in events: a tick
/// per CPU per tick begun, a timer per connection's expiry (a burst of the wheel's period on
/// every gran-th tick that fires), a raise per send beyond the forward alloc, two per
/// percpu_counter fold or sum (lock, release), over the window, or the ramp's (until the kernel sees the limit, a quarter more, at least a
/// tick); and each connection the run first touches draws its forward alloc in raises /
/// timers + 1 steps.
pub fn expected_events(cfg: &WorldConfig) -> u64 {
    let tick_ns = 1_000_000_000 / u64::from(cfg.hz);
    let period_ns = cfg.wheel_gran_ticks.max(1) * tick_ns;
    let pages_per_raise = u64::from(1 + cfg.raise_pages_max) / 2;
    let per_window = |per_hour: u32, ns: u64| {
        (u128::from(cfg.connections) * u128::from(per_hour) * u128::from(ns) / 3_600_000_000_000) as u64
    };
    let pages_per_s = per_window(cfg.raises_per_hour, 1_000_000_000) * pages_per_raise;
    let end_ns = match cfg.ramp {
        Some(_) if pages_per_s > 0 => {
            let late_ns = cfg.error_bound_pages().max(0) as u64 / 2 * 1_000_000_000 / pages_per_s;
            let seen_ns = RAMP_LEAD_NS + late_ns;
            cfg.duration_ns.min(seen_ns + (seen_ns / 4).max(tick_ns))
        }
        _ => cfg.duration_ns,
    };
    let ticks = u64::from(cfg.nr_cpus()) * end_ns.div_ceil(tick_ns);
    // Ticks k = 1, 2, … fire by the end; every gran-th from the first expires a burst.
    let bursts = (end_ns / tick_ns).checked_sub(1).map_or(0, |k| k / cfg.wheel_gran_ticks.max(1) + 1);
    let timers = per_window(cfg.timers_per_hour, bursts * period_ns);
    let raises = per_window(cfg.raises_per_hour, end_ns);
    let batch = cfg.batch.max(1) as u64;
    let folds = match (cfg.counter, cfg.ramp) {
        (Counter::PercpuCounter, None) => {
            (timers + raises) * pages_per_raise.pow(2) / batch.pow(2).max(pages_per_raise.pow(2))
        }
        (Counter::PercpuCounter, Some(_)) => (raises * pages_per_raise / batch).min(raises),
        _ => 0,
    };
    // Every percpu_counter charge sums under fbc->lock: a lock and a release event each.
    let sums = if cfg.counter == Counter::PercpuCounter { raises } else { 0 };
    let events = (ticks + timers + raises + 2 * folds + 2 * sums).min(MAX_EVENTS_PER_RUN);
    let draws = match cfg.ramp {
        Some(_) => 0,
        None => {
            let (updates, conns) = (timers + raises, u64::from(cfg.connections));
            let touched = updates * conns / (updates + conns).max(1);
            touched * u64::from(cfg.raises_per_hour + cfg.timers_per_hour) / u64::from(cfg.timers_per_hour.max(1))
        }
    };
    events + draws / DRAW_STEPS_PER_EVENT
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
