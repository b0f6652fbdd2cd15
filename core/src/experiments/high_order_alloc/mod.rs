//! `high-order-alloc`: order-3 vs order-0 page frags for TCP over loopback, 1..30 flows (seed 000).
//!
//! What Linux does: since 3.7 (5640f7685831) `tcp_sendmsg()` fills skbs from a per-task
//! 32 KiB (order-3) page frag; before 5.14 (44042b449872) only order-0 pages had per-CPU
//! lists, so every order-3 allocation (`rmqueue` → `__rmqueue_smallest`) and every order-3
//! free (`__free_pages_ok` → `free_one_page`) takes `zone->lock`. With few flows the big
//! pages win (8× fewer pages to allocate, reference and free per byte); with many flows the
//! zone lock queue caps order-3 throughput, while order-0 pages go through the per-CPU lists
//! and take the lock once per `batch` pages. ce27ec60648d added
//! `net.core.high_order_alloc_disable` so admins could pick order 0.
//!
//! The model is the TCP_STREAM world in [`world`] on the sim kernel in [`crate::sim`]; this
//! module turns parameters into a [`StreamConfig`], runs the sweep, and renders the views. docs/high-order-alloc.md has every
//! mechanism and constant; docs/calibration.md how the fitted constants were obtained.
//!
//! API for the web app (all results `serde::Serialize`):
//! - [`sweep_point`]`(&Params, threads, seed) -> SweepPoint`: one point of the chart (both
//!   orders), so a Web Worker can fill the chart point by point with progress.
//! - [`traced_run`]`(&Params, threads, order, seed, max_events) -> Trace`: frames for the
//!   step-through player (lanes per CPU, refills, PCP counts, zone.lock queue, buddyinfo).
//! - [`profile`]`(&Params, threads, order, seed) -> PointDetail`: perf report (data + text),
//!   lock stats, /proc/buddyinfo and /proc/zoneinfo pagesets text.
//! - [`seed_table`]`() -> SeedTable`: the seed's numbers with citation, for overlays.
//!
//! Files: `mod.rs` (here: the sweep, the `Experiment` impl and the views), `params.rs`
//! (specs, `Input`, `FragOrder`, cross-parameter checks), `seed.rs` (seed 000's table),
//! `report.rs` (the text views, the crossover's wording and the run's notes),
//! `calibrate.rs` (the 2019 server's `Calibration`), `validate.rs` (the seed table's
//! bookkeeping, cross-validation and curve baseline), `knobs.rs` (the uncertain catalogue
//! quantities and the knob relations), and the TCP_STREAM world on the sim
//! kernel: `world/mod.rs` + `world/ops.rs` (`StreamSim`, its `Event` enum and `step()`),
//! `world/ack.rs` (the receiver's ACKs and the sender's processing of them),
//! `world/constants.rs` (its kernel sizes, socket lines, jitter and work bounds),
//! `world/sched.rs` (a syscall's end, sleep, wake, which thread runs on a CPU),
//! `world/placement.rs` (where netperf/netserver run), `world/invariants.rs` (what
//! `make fuzz-sim` checks after every event), `world/chains.rs` (its profile call
//! chains), `world/trace.rs` (its trace frame) and `world/skb_cache.rs` (the tx skbs' slab
//! objects and the two per-socket skb caches of 5.2–5.15).

mod calibrate;
mod knobs;
mod params;
mod report;
mod seed;
pub mod validate;
pub mod world;

pub use calibrate::{profile_with, score_rows, sweep_on, HoaCalibration, FITTED};
pub use params::{specs, validate, FragOrder, Input};
pub use report::{crossover_text, CROSSOVER_MIN_LEAD_PCT, MIN_STEADY_MEASURE_US};
use report::{missing_cells, views};
pub use seed::{crossover, plateau, seed_table, SeedRow, SeedTable, SEED_000_ROWS};

use crate::experiment::{
    mark_row, ChartSpec, Cost, Experiment, Meaning, Point, ViewData, ViewQuery, ViewSpec, WorkEstimate,
};
use crate::output::{Cell, Column, Reproduction, Row, RunOutput};
use crate::params::{ParamError, ParamSpec, Params};
use crate::sim::machine::{MachineProfile, SERVER_2019};
use crate::sim::profile::ProfileReport;
use crate::sim::qspinlock::{LockStats, LOCK_STAT_HEADER};
use crate::sim::world::{Outcome, World};
use crate::sources;
use serde::Serialize;
pub use world::{Placement, StreamConfig, StreamSim, StreamStats, TraceFrame, MAX_CPUS, MAX_EVENTS_PER_RUN, MAX_FLOWS};

pub const ID: &str = "high-order-alloc";

/// The registry entry.
pub struct HighOrderAlloc;

/// The machine profile with the parameters that override its constants applied.
pub fn machine(params: &Params) -> MachineProfile {
    machine_from(SERVER_2019, params)
}

/// `base` with the parameters that override its constants applied. An L3 hit crosses the
/// same mesh as a core-to-core transfer (core to the line's L3 slice and back; a transfer
/// adds the snoop of the owning core), so `line_transfer_ns` scales `line_llc_ns` in
/// proportion (model assumption; at the catalogue's mesh nothing changes). Without it a
/// slower mesh made a lagging receiver faster: its queue grew, the payload left the sender's
/// L2 for the L3, and an L3 hit stayed at 26 ns while a transfer cost 97 (one order-3 flow
/// +17 % from 85 to 97 ns; docs/high-order-alloc.md, "One flow against the mesh").
pub fn machine_from(base: MachineProfile, params: &Params) -> MachineProfile {
    let i = Input::from(params);
    let mesh = base.line_same_socket_ns.max(1);
    let llc = (base.line_llc_ns * i.line_transfer_ns + mesh / 2) / mesh;
    MachineProfile {
        line_same_socket_ns: i.line_transfer_ns,
        line_cross_socket_ns: i.cross_socket_ns,
        line_llc_ns: llc.max(1),
        ..base
    }
}

/// The run configuration for `flows` flows at `order`.
pub fn config(params: &Params, flows: u32, order: FragOrder) -> StreamConfig {
    config_on(machine(params), params, flows, order)
}

/// The run configuration on an explicit machine profile (calibration varies the profile).
/// The topology (sockets, cores online per socket) comes from `params`.
pub fn config_on(machine: MachineProfile, params: &Params, flows: u32, order: FragOrder) -> StreamConfig {
    let i = Input::from(params);
    // validate() rejects fewer cores than sockets; the clamp only keeps an unvalidated call
    // from building a socket without cores.
    let sockets = i.sockets.min(i.cpus);
    StreamConfig {
        machine: machine.with_topology(sockets, i.cpus.div_ceil(sockets)),
        cpus: i.cpus,
        smt: i.smt,
        flows,
        high_order_alloc_disable: order.disable(),
        pcp_high_order: i.pcp_high_order,
        pcp_high: i.pcp_high,
        pcp_batch: i.pcp_batch,
        msg_bytes: i.msg_bytes,
        sndbuf_bytes: i.sndbuf_bytes,
        placement: i.placement,
        tcp_rx_skb_cache: i.tcp_rx_skb_cache,
        tcp_tx_skb_cache: i.tcp_tx_skb_cache,
        zone_pages: ZONE_PAGES,
        warmup_ns: i.warmup_us * 1000,
        measure_ns: i.measure_us * 1000,
    }
}

/// Pages per node: 512 MiB, far more than the flows keep in flight (bounded by sndbuf and
/// pcp_high), small enough for the browser.
pub const ZONE_PAGES: u32 = 1 << 17;

/// Summary of one simulated run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub mbps: f64,
    pub stats: StreamStats,
    /// Events handled, and whether the event bound truncated the run.
    pub outcome: Outcome,
    /// zone->lock statistics summed over the nodes.
    pub lock: LockStats,
    pub spin_pct: f64,
}

/// One point of the sweep: both orders at `threads` flows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepPoint {
    pub threads: u32,
    pub order3_mbps: f64,
    pub order0_mbps: f64,
    pub order3: RunSummary,
    pub order0: RunSummary,
}

fn summed_lock_stats(sim: &StreamSim) -> LockStats {
    let mut s = LockStats::default();
    for z in &sim.zones {
        let l = &z.lock.stats;
        s.acquisitions += l.acquisitions;
        s.contentions += l.contentions;
        s.acq_bounces += l.acq_bounces;
        s.wait_ns_total += l.wait_ns_total;
        s.wait_ns_max = s.wait_ns_max.max(l.wait_ns_max);
        s.hold_ns_total += l.hold_ns_total;
        s.hold_ns_max = s.hold_ns_max.max(l.hold_ns_max);
        s.queue_len_max = s.queue_len_max.max(l.queue_len_max);
    }
    s
}

/// Runs one configuration to its end.
pub fn simulate(params: &Params, threads: u32, order: FragOrder, seed: u64) -> StreamSim {
    simulate_on(machine(params), params, threads, order, seed)
}

/// [`simulate`] on an explicit machine profile.
pub fn simulate_on(m: MachineProfile, params: &Params, threads: u32, order: FragOrder, seed: u64) -> StreamSim {
    let mut sim = StreamSim::new(config_on(m, params, threads, order), seed);
    sim.run();
    sim
}

fn summarize(sim: &StreamSim) -> RunSummary {
    RunSummary {
        mbps: sim.throughput_mbps(),
        stats: sim.stats.clone(),
        outcome: sim.outcome(),
        lock: summed_lock_stats(sim),
        spin_pct: sim.profile.report(String::new()).spin_pct,
    }
}

/// One chart point: both orders at `threads` flows (the unit of work of the Web Worker).
pub fn sweep_point(params: &Params, threads: u32, seed: u64) -> SweepPoint {
    sweep_point_on(&machine(params), params, threads, seed)
}

/// [`sweep_point`] on an explicit machine profile.
pub fn sweep_point_on(m: &MachineProfile, params: &Params, threads: u32, seed: u64) -> SweepPoint {
    let o3 = summarize(&simulate_on(m.clone(), params, threads, FragOrder::Order3, seed));
    let o0 = summarize(&simulate_on(m.clone(), params, threads, FragOrder::Order0, seed));
    SweepPoint { threads, order3_mbps: o3.mbps, order0_mbps: o0.mbps, order3: o3, order0: o0 }
}

/// Every point min_threads..=max_threads (none if min > max, which `validate` rejects).
pub fn sweep(params: &Params, seed: u64) -> Vec<SweepPoint> {
    let i = Input::from(params);
    (i.min_threads..=i.max_threads).map(|n| sweep_point(params, n, seed)).collect()
}

/// The benchmark workload (native `examples/bench_sim.rs`, wasm `web/tests/bench.rs`): the
/// sweep of `params` for flows 1..=30, calling `after_point(flows)` after each point so the
/// caller (which owns the clock) can time it; returns the simulated events of both orders.
pub fn bench_sweep_events(params: &Params, seed: u64, mut after_point: impl FnMut(u32)) -> u64 {
    let mut events = 0;
    for n in 1..=30 {
        let p = sweep_point(params, n, seed);
        events += p.order3.outcome.events + p.order0.outcome.events;
        after_point(n);
    }
    events
}

/// The step-through player's data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trace {
    pub threads: u32,
    pub order: u32,
    pub seed: u64,
    /// CPU of every thread, in lane order.
    pub cpus: Vec<u16>,
    pub frames: Vec<TraceFrame>,
    /// True if the run ended (end time) before `max_events`.
    pub complete: bool,
}

/// Events the trace player records: every frame copies every lane, so keep it bounded.
pub const TRACE_EVENTS: u64 = 2000;
/// Most flows of the trace player's small run (each flow is two threads, two lanes).
pub const TRACE_FLOWS_MAX: i64 = 8;

/// The trace player's data for `query` ("trace" with `flows` in 1..=[`TRACE_FLOWS_MAX`] and
/// `order` 0 or 3): the first [`TRACE_EVENTS`] events of that small run.
fn trace_data(params: &Params, seed: u64, query: &ViewQuery) -> Option<Trace> {
    let flows = query.arg_in("flows", 1, TRACE_FLOWS_MAX)?;
    let order = match query.arg_in("order", 0, 3)? {
        0 => FragOrder::Order0,
        3 => FragOrder::Order3,
        _ => return None,
    };
    (query.name == "trace").then(|| traced_run(params, flows as u32, order, seed, TRACE_EVENTS))
}

/// The first `max_events` events of a run, one frame each (keep `threads` and `max_events`
/// small: every frame copies every lane).
pub fn traced_run(params: &Params, threads: u32, order: FragOrder, seed: u64, max_events: u64) -> Trace {
    let mut sim = StreamSim::new(config(params, threads, order), seed);
    sim.enable_trace();
    let complete = !sim.run_for(max_events);
    Trace {
        threads,
        order: if order == FragOrder::Order3 { 3 } else { 0 },
        seed,
        cpus: sim.thread_cpus(),
        frames: sim.take_trace(),
        complete,
    }
}

/// Everything the detail views show for one setting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointDetail {
    pub summary: RunSummary,
    pub profile: ProfileReport,
    pub buddyinfo: String,
    pub zoneinfo_pagesets: String,
    pub lock_stat: String,
}

/// Perf report, lock stats and /proc views of one run.
pub fn profile(params: &Params, threads: u32, order: FragOrder, seed: u64) -> PointDetail {
    let sim = simulate(params, threads, order, seed);
    let o = if order == FragOrder::Order3 { 3 } else { 0 };
    let title = format!(
        "perf report: {threads} TCP_STREAM flows over lo, order-{o} frags, {:.0} Mbit/s",
        sim.throughput_mbps()
    );
    let buddyinfo: String = sim.zones.iter().map(|z| z.free_area.buddyinfo_line(z.node, "Normal") + "\n").collect();
    let cpus = sim.thread_cpus();
    // The first four distinct CPUs the threads run on (on a small machine threads share CPUs).
    let mut shown: Vec<u16> = Vec::new();
    for c in cpus {
        if shown.len() < 4 && !shown.contains(&c) {
            shown.push(c);
        }
    }
    let zoneinfo_pagesets = sim.zones.iter().map(|z| z.zoneinfo_pagesets(&shown)).collect::<Vec<_>>().join("");
    let mut lock_stat = format!("{LOCK_STAT_HEADER}\n");
    for z in &sim.zones {
        lock_stat.push_str(&format!("node {} {}\n", z.node, z.lock.lock_stat_line().trim_start()));
    }
    // Hold time per operation: the lines and list steps each does under the lock
    // (docs/high-order-alloc.md, "Lock hold times").
    lock_stat.push_str("\nholdtime by caller (both nodes):      holds   avg (ns)\n");
    for (k, name) in world::LOCK_OPS.iter().enumerate() {
        let n = sim.stats.lock_ops[k];
        if n > 0 {
            let avg = sim.stats.lock_hold_ns[k] as f64 / n as f64;
            lock_stat.push_str(&format!("  {name:<32} {n:>8} {avg:>10.0}\n"));
        }
    }
    PointDetail {
        summary: summarize(&sim),
        profile: sim.profile.report(title),
        buddyinfo,
        zoneinfo_pagesets,
        lock_stat,
    }
}

/// `(threads, order3 Mbit/s, order0 Mbit/s)` of every row of a run's table.
fn rows_of_output(out: &RunOutput) -> Vec<(u32, f64, f64)> {
    let col = |name| out.column_f64(name);
    let (t, o3, o0) = (col("threads"), col("order3_mbps"), col("order0_mbps"));
    (0..out.rows.len()).filter_map(|i| Some((t[i]? as u32, o3[i]?, o0[i]?))).collect()
}

/// The CLI contract (DESIGN.md): `threads,order3_mbps,order0_mbps`; with `seeds` > 1 the two
/// throughputs are means over the seeds and four columns follow with each one's min and max
/// (the chart draws them as a band: any `<column>_min` / `<column>_max` pair is one).
pub(crate) fn columns_for(i: &Input) -> Vec<Column> {
    let c = Column::new;
    let mut cols = vec![c("threads", "flows"), c("order3_mbps", "Mbit/s"), c("order0_mbps", "Mbit/s")];
    if i.seeds > 1 {
        for name in ["order3_mbps_min", "order3_mbps_max", "order0_mbps_min", "order0_mbps_max"] {
            cols.push(c(name, "Mbit/s"));
        }
    }
    cols
}

fn columns() -> Vec<Column> {
    columns_for(&Input { seeds: 1, ..Input::from(&HighOrderAlloc.defaults()) })
}

/// One row: `seeds` runs of both orders at `threads` flows, from `seed` on.
fn row_at(params: &Params, threads: u32, seed: u64) -> Row {
    row_on(&machine(params), params, threads, seed)
}

/// [`row_at`] on an explicit machine profile.
pub(crate) fn row_on(m: &MachineProfile, params: &Params, threads: u32, seed: u64) -> Row {
    let n = Input::from(params).seeds.max(1);
    let runs: Vec<SweepPoint> =
        (0..u64::from(n)).map(|k| sweep_point_on(m, params, threads, seed.wrapping_add(k))).collect();
    let stat = |f: fn(&SweepPoint) -> f64| {
        let v: Vec<f64> = runs.iter().map(f).collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        (mean.round(), v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(0.0, f64::max))
    };
    let (o3, o0) = (stat(|p| p.order3_mbps), stat(|p| p.order0_mbps));
    let mut row = vec![Cell::Int(i64::from(threads)), Cell::Float(o3.0), Cell::Float(o0.0)];
    if n > 1 {
        row.extend([o3.1, o3.2, o0.1, o0.2].map(|v| Cell::Float(v.round())));
    }
    // What every seed's run of each order counted: received bytes (the least over the seeds)
    // and runs the event cap did not stop.
    let measure_ns = Input::from(params).measure_us * 1000;
    let bytes = |f: fn(&SweepPoint) -> &RunSummary| {
        runs.iter().map(|p| (f(p).mbps * measure_ns as f64 / 8000.0) as u64).min().unwrap_or(0)
    };
    let uncapped = |f: fn(&SweepPoint) -> &RunSummary| runs.iter().filter(|p| !f(p).outcome.truncated).count() as u64;
    let counts = [
        (RECEIVED3, bytes(|p| &p.order3)),
        (RECEIVED0, bytes(|p| &p.order0)),
        (UNCAPPED3, uncapped(|p| &p.order3)),
        (UNCAPPED0, uncapped(|p| &p.order0)),
    ];
    mark_row(&mut row, &columns_for(&Input::from(params)), &meanings(params), &counts);
    row
}

/// What the bases of [`meanings`] count.
const RECEIVED3: &str = "byte received in the measured window by every seed's order-3 run";
const RECEIVED0: &str = "byte received in the measured window by every seed's order-0 run";
const UNCAPPED3: &str =
    "order-3 runs (one per seed) that reached the end of their window (event cap: MAX_EVENTS_PER_RUN)";
const UNCAPPED0: &str =
    "order-0 runs (one per seed) that reached the end of their window (event cap: MAX_EVENTS_PER_RUN)";

/// When each column means something: a throughput needs bytes received in the window in
/// every seed's run, and every run to reach the end of its window (a run the event cap
/// stopped counted only part of it); the flow count is the sweep's key.
fn meanings(params: &Params) -> Vec<Meaning> {
    let seeds = u64::from(Input::from(params).seeds.max(1));
    let mut m = vec![Meaning::always("threads", "the sweep's key")];
    for col in columns_for(&Input::from(params)).iter().skip(1) {
        let (received, uncapped) =
            if col.name.starts_with("order3") { (RECEIVED3, UNCAPPED3) } else { (RECEIVED0, UNCAPPED0) };
        let name: &'static str = match col.name.as_str() {
            "order3_mbps" => "order3_mbps",
            "order0_mbps" => "order0_mbps",
            "order3_mbps_min" => "order3_mbps_min",
            "order3_mbps_max" => "order3_mbps_max",
            "order0_mbps_min" => "order0_mbps_min",
            _ => "order0_mbps_max",
        };
        m.push(Meaning::at_least(name, 1, received));
        m.push(Meaning::at_least(name, seeds, uncapped));
    }
    m
}

/// Events one run of `flows` flows is expected to handle: [`world::EXPECTED_EVENTS_PER_THREAD_US`]
/// per thread (two per flow) per simulated µs of warm-up and window, at most
/// [`MAX_EVENTS_PER_RUN`] (the world's own cap, [`world::EVENTS_PER_THREAD_US`], is ten times more).
pub fn expected_events_per_run(params: &Params, flows: u32) -> u64 {
    let i = Input::from(params);
    let end_us = i.warmup_us + i.measure_us + 1;
    (world::EXPECTED_EVENTS_PER_THREAD_US * 2 * u64::from(flows) * end_us).min(MAX_EVENTS_PER_RUN)
}

impl Experiment for HighOrderAlloc {
    fn id(&self) -> &'static str {
        ID
    }

    fn title(&self) -> &'static str {
        "Why order-3 page frags stop scaling"
    }

    fn summary(&self) -> &'static str {
        "TCP_STREAM over loopback, 1..30 flows on a 56-core server: order-3 vs order-0 page frags and zone->lock (seed 000)."
    }

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }
    fn input_names(&self) -> Option<&'static [&'static str]> {
        Some(Input::NAMES)
    }

    fn validate(&self, params: &Params) -> Result<(), ParamError> {
        validate(params)
    }

    fn columns(&self, params: &Params) -> Vec<Column> {
        columns_for(&Input::from(params))
    }

    /// One point per flow count, min_threads..=max_threads.
    fn points(&self, params: &Params) -> Vec<Point> {
        let i = Input::from(params);
        (i.min_threads..=i.max_threads).enumerate().map(|(k, x)| Point { index: k as u32, x: i64::from(x) }).collect()
    }

    /// Both frag orders at `point.x` flows.
    fn run_point(&self, params: &Params, point: &Point, seed: u64) -> Row {
        row_at(params, point.x as u32, seed)
    }

    fn run_point_checked(
        &self,
        params: &Params,
        point: &Point,
        seed: u64,
        max_events: u64,
    ) -> Result<crate::sim::world::Checked, String> {
        world::invariants::check_point(params, point, seed, max_events)
    }

    /// The table, then the summary and the perf report, lock stats and /proc views of one more
    /// run (`profile_threads` flows at `profile_order`).
    fn finish(&self, params: &Params, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, columns_for(&Input::from(params)));
        for row in rows {
            out.push_row(row);
        }
        let missing = missing_cells(&out);
        let (views, flame, notes) = views(params, &rows_of_output(&out), &missing, seed);
        out.views = views;
        out.flames = vec![flame];
        out.note_missing(&self.meanings(params));
        out.notes.extend(notes);
        out
    }

    fn meanings(&self, params: &Params) -> Vec<Meaning> {
        meanings(params)
    }

    /// Both orders at every flow count on every seed, then the profiled run of `finish`:
    /// each run about [`expected_events_per_run`].
    fn estimate(&self, params: &Params) -> WorkEstimate {
        let i = Input::from(params);
        let per_point: u64 = (i.min_threads..=i.max_threads).map(|n| 2 * expected_events_per_run(params, n)).sum();
        let events = per_point * u64::from(i.seeds.max(1)) + expected_events_per_run(params, i.profile_threads);
        WorkEstimate { points: self.points(params).len() as u64, events }
    }

    /// Both orders at `point.x` flows on every seed (the same terms as [`Experiment::estimate`]).
    fn point_events(&self, params: &Params, point: &Point) -> Option<u64> {
        let seeds = u64::from(Input::from(params).seeds.max(1));
        Some(2 * expected_events_per_run(params, point.x as u32) * seeds)
    }

    /// Up to 256 flow counts of two simulated runs each: seconds in wasm.
    fn cost(&self, _params: &Params) -> Cost {
        Cost::Heavy
    }

    /// One or two flows over the default windows: about 10 ms in wasm. Longer windows are
    /// heavy whatever the flow count.
    fn point_cost(&self, params: &Params, point: &Point) -> Cost {
        let i = Input::from(params);
        if point.x <= 2 && i.seeds == 1 && i.warmup_us + i.measure_us <= 3_000 {
            Cost::Light
        } else {
            Cost::Heavy
        }
    }

    /// "trace" (inputs `flows`, `order`): the step-through player's [`Trace`].
    fn view_data(&self, params: &Params, seed: u64, query: &ViewQuery) -> Option<ViewData> {
        trace_data(params, seed, query).map(ViewData::new)
    }

    /// 2000 events of up to 8 flows: 11–43 ms natively (4 flows: about 20 ms), more than a
    /// frame in wasm.
    fn view_cost(&self, _params: &Params, _query: &ViewQuery) -> Cost {
        Cost::Heavy
    }

    fn views(&self) -> Vec<ViewSpec> {
        vec![
            ViewSpec::Chart {
                id: "chart",
                chart: ChartSpec {
                    title: "Throughput vs flows: order-3 vs order-0 frags, seed 000 overlaid",
                    x: "threads",
                    ys: &[("order3_mbps", "order-3 frags (sim)"), ("order0_mbps", "order-0 frags (sim)")],
                    y_label: "Gbit/s",
                    y_divisor: 1000.0,
                    x_label: "flows (netperf pairs)",
                    seed_overlay: true,
                },
            },
            ViewSpec::Compare { id: "table" },
            ViewSpec::Custom { id: "trace" },
            ViewSpec::Text { id: "profile", texts: &["profile", "lock_stat"] },
            ViewSpec::Flame { id: "flame", flames: &["profile"] },
            ViewSpec::Text { id: "buddyinfo", texts: &["buddyinfo", "zoneinfo"] },
        ]
    }

    fn seed_output(&self) -> Option<RunOutput> {
        let mut out = RunOutput::new(ID, 0, columns());
        for &(n, o3, o0) in &SEED_000_ROWS {
            out.push_row(vec![Cell::Int(i64::from(n)), Cell::Float(f64::from(o3)), Cell::Float(f64::from(o0))]);
        }
        Some(out)
    }

    fn calibration(&self) -> Option<&'static dyn crate::calibrate::Calibration> {
        Some(&HoaCalibration)
    }

    /// One table of 60 independent numbers, fitted jointly (`validate.rs`).
    fn tables(&self) -> Vec<crate::calibrate::tables::TableSpec> {
        vec![crate::calibrate::tables::TableSpec {
            experiment: ID,
            table: validate::TABLE,
            title: "seed 000: TCP_STREAM over lo, order-3 and order-0 Gbit/s at 1..30 flows",
            targets: 2 * SEED_000_ROWS.len() as u32,
            arithmetic: false,
            fitted: validate::FITTED_NAMES.to_vec(),
        }]
    }
    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<crate::calibrate::tables::TableCheck> {
        (table == validate::TABLE).then(|| validate::check(seeds))
    }
    fn machines(&self) -> Vec<MachineProfile> {
        vec![SERVER_2019]
    }
    fn uncertain(&self) -> Vec<(&'static str, crate::sim::catalogue::Quantity)> {
        knobs::uncertain()
    }
    fn run_perturbed(&self, params: &Params, seed: u64, values: &[f64]) -> Option<RunOutput> {
        Some(knobs::run_perturbed(params, seed, values))
    }
    fn monotone(&self) -> Vec<crate::experiment::Monotone> {
        knobs::monotone()
    }

    fn compare(&self, _params: &Params, output: &RunOutput) -> Option<Reproduction> {
        let seed = self.seed_output()?;
        let mut r =
            Reproduction::keyed(ID, sources::SEED_000, "threads", &["order3_mbps", "order0_mbps"], &seed, output);
        let seed_rows = rows_of_output(&seed);
        let sim_rows = rows_of_output(output);
        let fmt_x = |r: &[(u32, f64, f64)]| crossover_text(r);
        let fmt_p = |r: &[(u32, f64, f64)]| {
            plateau(r).map_or("n/a".to_string(), |(n, v)| format!("{v:.0} Mbit/s at {n} flows"))
        };
        r.notes = vec![
            format!("crossover (order-0 ahead from here on): seed {}, sim {}", fmt_x(&seed_rows), fmt_x(&sim_rows)),
            format!("order-3 peak over 20..30 flows: seed {}, sim {}", fmt_p(&seed_rows), fmt_p(&sim_rows)),
            format!("machine: {}", SERVER_2019.name),
        ];
        Some(r)
    }
}

/// Seed 000 beside the simulation of `params`.
pub fn reproduce(params: &Params, seed: u64) -> Reproduction {
    let e = &HighOrderAlloc;
    e.compare(params, &e.run(params, seed)).expect("high-order-alloc has a seed table")
}
