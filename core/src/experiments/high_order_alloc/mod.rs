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
//! module is its [`Model`]: one point per flow count, whose worlds are an order-3 and an
//! order-0 run per seed ([`runs`]), then the profiled run and the text views of `finish`
//! ([`report`]). docs/high-order-alloc.md has every mechanism and constant;
//! docs/calibration.md how the fitted constants were obtained.
//!
//! Files: `mod.rs` (here: the `Model` and its capabilities, columns, rows and meanings),
//! `params.rs` (specs, `Input`, `FragOrder`, cross-parameter checks), `runs.rs` (the machine,
//! a run's configuration, a point's worlds, the expected events, the trace player's run),
//! `report.rs` (the profiled run, the text views, the crossover's wording and the run's
//! notes), `by_params.rs` (the same runs from untyped `Params`, for tests, examples and the
//! machine fit), `seed.rs` (seed 000's table), `calibrate.rs` (the 2019 server's
//! `Calibration`), `validate.rs` (the seed table's bookkeeping, cross-validation and curve
//! baseline), `knobs.rs` (the uncertain catalogue quantities and the knob relations), and the
//! TCP_STREAM world on the sim kernel: `world/mod.rs` + `world/ops.rs` (`StreamSim`, its
//! `Event` enum and `step()`), `world/setup.rs` (building it), `world/zone_ops.rs` (the work
//! under zone->lock), `world/ack.rs` (the receiver's ACKs and the sender's processing of them), `world/constants.rs` (its kernel sizes, socket lines, jitter and work bounds),
//! `world/sched.rs` (a syscall's end, sleep, wake, which thread runs on a CPU),
//! `world/placement.rs` (where netperf/netserver run), `world/invariants.rs` (what
//! `make fuzz-sim` checks after every event), `world/chains.rs` (its profile call chains),
//! `world/trace.rs` (its trace frame) and `world/skb_cache.rs` (the tx skbs' slab objects and
//! the two per-socket skb caches of 5.2–5.15).

mod by_params;
mod calibrate;
mod knobs;
mod params;
mod report;
mod runs;
mod seed;
pub mod validate;
pub mod world;

pub use by_params::{
    bench_sweep_events, config, config_on, expected_events_per_run, profile, reproduce, simulate, sweep_point,
    traced_run,
};
pub use calibrate::{profile_with, score_rows, sweep_on, HoaCalibration, FITTED};
pub use params::{specs, validate, FragOrder, Input};
pub use report::{crossover_text, PointDetail, CROSSOVER_MIN_LEAD_PCT, MIN_STEADY_MEASURE_US};
pub use runs::{RunSummary, SweepPoint, Trace, TRACE_EVENTS, TRACE_FLOWS_MAX};
pub use seed::{crossover, plateau, SEED_000_ROWS};
pub use world::{
    Placement, StreamConfig, StreamSim, StreamStats, TraceFrame, Waiting, MAX_CPUS, MAX_EVENTS_PER_RUN, MAX_FLOWS,
};

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::calibrate::Calibration;
use crate::experiment::{ChartSpec, Cost, Monotone, Point, ViewData, ViewQuery, ViewSpec, WorkEstimate};
use crate::model::{Calibrated, CustomViews, Model, Runner, SeedTables};
use crate::output::{mark_row, Cell, Column, Meaning, Reproduction, Row, RunOutput};
use crate::params::{ParamError, ParamSpec};
use crate::sim::catalogue::Quantity;
use crate::sim::machine::{MachineProfile, SERVER_2019};
use crate::sources;
use report::{missing_cells, views};
use runs::{expected_events, machine, point_runs};

pub const ID: &str = "high-order-alloc";

/// The registry entry.
pub struct HighOrderAlloc;

impl Model for HighOrderAlloc {
    type Input = Input;
    /// Each seed's order-3 and order-0 run.
    type Worlds = Vec<SweepPoint>;

    const ID: &'static str = ID;
    const TITLE: &'static str = "Order-3 page frags and zone->lock";
    const SUMMARY: &'static str = "TCP_STREAM over loopback, 1..30 flows on a 56-core server: order-3 vs order-0 page frags and zone->lock (seed 000).";
    /// 6.0e6 was measured at the defaults, seed after seed, when the copy loop took two events
    /// per page (9,605,780 events in 1.61 s of CPU, release build); since a send's copy runs as
    /// one batch the default sweep handles ×0.545 the events in ×0.87 the CPU time (paired,
    /// docs/performance.md), so an event costs 1.6× as much. Re-measure with
    /// `cargo test --release -p skblab-core --features cli --test estimate -- --ignored --nocapture --test-threads 1 world_speeds`.
    const EVENTS_PER_S: f64 = 3.8e6;

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }

    fn validate(&self, i: &Input) -> Result<(), ParamError> {
        validate(i)
    }

    fn columns(&self, i: &Input) -> Vec<Column> {
        columns_for(i)
    }

    /// One point per flow count, min_threads..=max_threads.
    fn points(&self, i: &Input) -> Vec<Point> {
        (i.min_threads..=i.max_threads).enumerate().map(|(k, x)| Point { index: k as u32, x: i64::from(x) }).collect()
    }

    /// Both frag orders at `point.x` flows, on each seed.
    fn worlds(&self, i: &Input, point: &Point, seed: u64, runner: &mut Runner) -> Vec<SweepPoint> {
        point_runs(&machine(i), i, point.x as u32, seed, runner)
    }

    fn row(&self, i: &Input, point: &Point, runs: Vec<SweepPoint>) -> Row {
        row_of(i, point.x as u32, &runs)
    }

    /// Both orders on every seed, each [`expected_events`].
    fn events(&self, i: &Input, point: &Point) -> u64 {
        2 * u64::from(i.seeds.max(1)) * expected_events(i, point.x as u32)
    }

    /// The profiled run of `finish` (`profile_threads` flows at `profile_order`).
    fn finish_events(&self, i: &Input) -> u64 {
        expected_events(i, i.profile_threads)
    }

    /// The table, then the summary and the perf report, lock stats and /proc views of one more
    /// run (`profile_threads` flows at `profile_order`).
    fn finish(&self, i: &Input, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, columns_for(i));
        for row in rows {
            out.push_row(row);
        }
        let missing = missing_cells(&out);
        let (texts, flame, notes) = views(i, &rows_of_output(&out), &missing, seed);
        out.views = texts;
        out.flames = vec![flame];
        out.note_missing(&meanings(i));
        out.notes.extend(notes);
        out
    }

    fn meanings(&self, i: &Input) -> Vec<Meaning> {
        meanings(i)
    }

    /// Always the worker, as before its cost followed its events: a one-flow run profiled at
    /// one flow (the lesson's second step) is light by its events.
    fn cost(&self, _i: &Input) -> Cost {
        Cost::Heavy
    }

    /// One or two flows on one seed over the default windows: about 10 ms in wasm. Kept by
    /// hand: by its events the first point of the lesson's five-seed step would leave the
    /// worker for the main thread.
    fn point_cost(&self, i: &Input, point: &Point) -> Cost {
        if point.x <= 2 && i.seeds == 1 && i.warmup_us + i.measure_us <= 3_000 {
            Cost::Light
        } else {
            Cost::Heavy
        }
    }

    fn monotone(&self) -> Vec<Monotone> {
        knobs::monotone()
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

    crate::model::capabilities!(seed_tables, calibrated, custom_views);
}

impl SeedTables<HighOrderAlloc> for HighOrderAlloc {
    fn compare(&self, _i: &Input, output: &RunOutput) -> Option<Reproduction> {
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

    /// One table of 60 independent numbers, fitted jointly (`validate.rs`).
    fn tables(&self) -> Vec<TableSpec> {
        vec![TableSpec {
            experiment: ID,
            table: validate::TABLE,
            title: "seed 000: TCP_STREAM over lo, order-3 and order-0 Gbit/s at 1..30 flows",
            targets: 2 * SEED_000_ROWS.len() as u32,
            arithmetic: false,
            fitted: validate::FITTED_NAMES.to_vec(),
        }]
    }

    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck> {
        (table == validate::TABLE).then(|| validate::check(seeds))
    }

    fn check_work(&self, table: &str, seeds: u64) -> Option<WorkEstimate> {
        (table == validate::TABLE).then(|| WorkEstimate::new(1, validate::check_events(seeds)))
    }

    fn seed_output(&self) -> Option<RunOutput> {
        let mut out = RunOutput::new(ID, 0, columns_for(&Input { seeds: 1, ..Input::defaults() }));
        for &(n, o3, o0) in &SEED_000_ROWS {
            out.push_row(vec![Cell::Int(i64::from(n)), Cell::Float(f64::from(o3)), Cell::Float(f64::from(o0))]);
        }
        Some(out)
    }
}

impl Calibrated<HighOrderAlloc> for HighOrderAlloc {
    fn machines(&self) -> Vec<MachineProfile> {
        vec![SERVER_2019]
    }
    fn calibration(&self) -> Option<&'static dyn Calibration> {
        Some(&HoaCalibration)
    }
    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        knobs::uncertain()
    }
    fn run_perturbed(&self, i: &Input, seed: u64, values: &[f64]) -> Option<RunOutput> {
        Some(knobs::run_perturbed(i, seed, values))
    }
}

impl CustomViews<HighOrderAlloc> for HighOrderAlloc {
    /// "trace" (inputs `flows`, `order`): the step-through player's [`Trace`].
    fn view_data(&self, i: &Input, seed: u64, query: &ViewQuery) -> Option<ViewData> {
        runs::trace_data(i, seed, query).map(ViewData::new)
    }

    /// 2000 events of up to 8 flows: 11–43 ms natively (4 flows: about 20 ms), more than a
    /// frame in wasm.
    fn view_cost(&self, _i: &Input, _query: &ViewQuery) -> Cost {
        Cost::Heavy
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
fn columns_for(i: &Input) -> Vec<Column> {
    let c = Column::new;
    let mut cols = vec![c("threads", "flows"), c("order3_mbps", "Mbit/s"), c("order0_mbps", "Mbit/s")];
    if i.seeds > 1 {
        for name in ["order3_mbps_min", "order3_mbps_max", "order0_mbps_min", "order0_mbps_max"] {
            cols.push(c(name, "Mbit/s"));
        }
    }
    cols
}

/// The row of `threads` flows from each seed's runs of both orders ([`point_runs`]).
fn row_of(i: &Input, threads: u32, runs: &[SweepPoint]) -> Row {
    let stat = |f: fn(&SweepPoint) -> f64| {
        let v: Vec<f64> = runs.iter().map(f).collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        (mean.round(), v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(0.0, f64::max))
    };
    let (o3, o0) = (stat(|p| p.order3_mbps), stat(|p| p.order0_mbps));
    let mut row = vec![Cell::Int(i64::from(threads)), Cell::Float(o3.0), Cell::Float(o0.0)];
    if i.seeds > 1 {
        row.extend([o3.1, o3.2, o0.1, o0.2].map(|v| Cell::Float(v.round())));
    }
    // What every seed's run of each order counted: received bytes (the least over the seeds)
    // and runs the event cap did not stop.
    let measure_ns = i.measure_us * 1000;
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
    mark_row(&mut row, &columns_for(i), &meanings(i), &counts);
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
fn meanings(i: &Input) -> Vec<Meaning> {
    let seeds = u64::from(i.seeds.max(1));
    let mut m = vec![Meaning::always("threads", "the sweep's key")];
    for col in columns_for(i).iter().skip(1) {
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
