//! `percpu-counter`: `tcp_memory_allocated` as one shared atomic, as a percpu_counter, or as
//! Linux 6.0's per-CPU reserves, on a dual-socket Xeon with ~175k TCP connections (seed 003).
//!
//! What the seed says (Olof Johansson, 2018-09-06): about 0.7 % of CPU went into the inlined
//! atomics of `__sk_mem_{raise,reduce}_allocated`, most of it in reduce, called from
//! `tcp_write_timer` in the timer softirq; with his percpu_counter patch, .18 + .11 + .07 =
//! .36 % in percpu functions. The model is the socket-memory world in [`world`] on the sim
//! kernel's [`AtomicLine`](crate::sim::atomic_line::AtomicLine) and
//! [`QSpinLock`](crate::sim::qspinlock::QSpinLock); this module reads the parameters, runs the
//! sweep over CPU counts (one row per count, all three counters each), renders the views and
//! compares with the seed. The machine profile (the catalogue's Broadwell-EP, nothing fitted)
//! and the workload assumptions are in [`profile`]; seed 003 is a prediction ([`predict`]);
//! docs/percpu-counter.md has every mechanism and source.
//!
//! Files: `mod.rs` (here: the counter choice, the result columns and the `Model` impl),
//! `params.rs` (spec, typed `Input`, validation), `sweep.rs` (the worlds of a sweep, one per
//! counter and core count, their expected events and their figures), `ramp.rs` (the second mode, a run that climbs
//! to `tcp_mem[2]` to see how late the kernel notices), `views.rs` (the perf report, the
//! line's travels, the bounds and the error plot), `seed.rs` (seed 003's figures and the
//! comparison), `chains.rs` (the profile call chains), `profile.rs` (the dual-Xeon profile
//! from the catalogue, the workload), `stream.rs` (the charges and reclaims 4.x's socket-memory
//! rules make of the workload), `predict.rs` (the table, its error, the bands' inputs,
//! the knob relations), and the world: `world/mod.rs` (state, config,
//! `step()`), `world/load.rs` (connections, tick bursts of write timers, raises),
//! `world/counter.rs` (the three counters' update paths), `world/ramp.rs` (the ramp mode and
//! its samples), `world/check.rs` (invariants) and `world/invariants.rs` (what `make fuzz-sim`
//! checks after every event).

pub mod chains;
mod params;
pub mod predict;
pub mod profile;
mod ramp;
mod seed;
pub mod stream;
mod sweep;
mod views;
pub mod world;

pub use params::{default_batch, specs, validate, Input, MIN_RESERVE_BYTES};
pub use profile::{costs_on, COSTS_2018, DUAL_XEON_2018, WORKLOAD};
pub use ramp::{ramp_config, ramp_outcome, render_tcp_mem, tcp_mem_pages, RAMP_LEAD_NS, RAMP_SAMPLE_NS};
pub use seed::{reproduce, SEED_ATOMIC_PCT, SEED_PERCPU_PCT};
pub use sweep::{
    config_on, core_ladder, expected_events, ladder_note, outcome, point_outcomes, point_outcomes_on, point_worlds_on,
    simulate, Outcome, PointWorlds, DRAW_STEPS_PER_EVENT,
};
pub use world::{
    error_bound_pages, CounterCosts, Crossing, Hop, Ramp, Sample, World, WorldConfig, WorldStats, MAX_EVENTS_PER_RUN,
    MAX_UPDATES_PER_RUN,
};

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::experiment::{ChartSpec, Cost, Monotone, Point, ViewSpec};
use crate::model::{Calibrated, Model, Runner, SeedTables};
use crate::output::{mark_row, round, Cell, Column, Meaning, Reproduction, Row, RunOutput};
use crate::params::{ParamError, ParamSpec, Params};
use crate::sim::catalogue::Quantity;
use crate::sim::machine::MachineProfile;
use ramp::crossing_plot;
use views::{error_plot, text_views};

pub const ID: &str = "percpu-counter";

/// Most physical cores a run may have online (× 2 with SMT: 1024 CPUs).
pub const MAX_CORES: u32 = 512;

/// Page size (x86_64): the counter counts pages.
pub const PAGE_BYTES: i64 = 4096;

/// The registry entry.
pub struct PercpuCounter;

crate::choice_enum! {
    /// How `tcp_memory_allocated` is kept.
    pub enum Counter {
        /// One `atomic_long_t` (2018, and every kernel before 6.0).
        Atomic = "atomic",
        /// Olof Johansson's 2018 patch: a `struct percpu_counter` (not merged).
        PercpuCounter = "percpu_counter",
        /// Linux 6.0 (3cd3399dd7a8): per-CPU reserves in front of the atomic.
        PcpuReserve = "pcpu_reserve",
    }
}

fn columns() -> Vec<Column> {
    let c = Column::new;
    vec![
        c("nr_cpus", "CPUs"),
        c("cpus", "cores"),
        c("cpu_pct", "%"),
        c("atomic_cpu_pct", "%"),
        c("percpu_counter_cpu_pct", "%"),
        c("pcpu_reserve_cpu_pct", "%"),
        c("reduce_share_pct", "%"),
        c("max_error_pages", "pages"),
        c("error_bound_pages", "pages"),
        c("batch_pages", "pages"),
        c("limit_overshoot_pages", "pages"),
        c("late_ms", "ms"),
    ]
}

/// The row of the point at `cores` cores from its worlds: the three counters, and the ramp of
/// the selected counter.
fn row_of(i: &Input, cores: u32, worlds: PointWorlds) -> Row {
    let nr = cores * i.threads();
    let (o, ramp) = (&worlds.counters, &worlds.ramp);
    let sel = &o[i.counter as usize];
    let (overshoot, late_ms) = ramp_outcome(ramp);
    let updates = |o: &Outcome| o.stats.raises + o.stats.reduces;
    let whole = |o: &Outcome| u64::from(!o.truncated);
    let counts = [
        (UPDATES_SEL, updates(sel)),
        (UPDATES[0], updates(&o[0])),
        (UPDATES[1], updates(&o[1])),
        (UPDATES[2], updates(&o[2])),
        (WHOLE_SEL, whole(sel)),
        (WHOLE[0], whole(&o[0])),
        (WHOLE[1], whole(&o[1])),
        (WHOLE[2], whole(&o[2])),
        (CROSSED, u64::from(ramp.crossing.true_at_ns.is_some())),
    ];
    let mut row = vec![
        Cell::Int(i64::from(nr)),
        Cell::Int(i64::from(cores)),
        Cell::Float(round(sel.cpu_pct, 3)),
        Cell::Float(round(o[0].cpu_pct, 3)),
        Cell::Float(round(o[1].cpu_pct, 3)),
        Cell::Float(round(o[2].cpu_pct, 3)),
        Cell::Float(round(sel.reduce_share_pct, 3)),
        Cell::Int(sel.max_error_pages),
        Cell::Int(sel.error_bound_pages),
        Cell::Int(i.batch_at(nr)),
        Cell::Int(overshoot),
        Cell::Float(round(late_ms, 3)),
    ];
    mark_row(&mut row, &columns(), &meanings(), &counts);
    row
}

/// What the bases of [`meanings`] count.
const UPDATES_SEL: &str = "counter updates (raises and reduces) by the selected counter's run";
const UPDATES: [&str; 3] = [
    "counter updates (raises and reduces) by the atomic's run",
    "counter updates (raises and reduces) by the percpu_counter's run",
    "counter updates (raises and reduces) by the per-CPU reserve's run",
];
/// A run lasts whole burst periods of the write timers (`sweep::config_on`), at least one
/// even past the update cap; when one period holds more events than [`MAX_EVENTS_PER_RUN`] the
/// run stops inside it, and its CPU shares (time charged so far over the whole window) would
/// depend on where it stopped, not on the model: such a figure is missing, not low.
const WHOLE_SEL: &str = "selected counter's run reaching the end of its window (whole burst periods)";
const WHOLE: [&str; 3] = [
    "atomic run reaching the end of its window (whole burst periods)",
    "percpu_counter run reaching the end of its window (whole burst periods)",
    "per-CPU reserve run reaching the end of its window (whole burst periods)",
];
const CROSSED: &str = "ramps in which the true value crossed tcp_mem[2] (the ramp's end is capped)";

/// When each column means something: a CPU share or the reduce share over updates counted
/// in the run, and only if the run measured its whole window (whole burst periods); the overshoot and the delay only if the ramp's true value crossed the limit
/// (else 0 would read as "no overshoot"); the bounds and batch are arithmetic, the largest
/// error seen is a count itself.
fn meanings() -> Vec<Meaning> {
    let n = Meaning::MIN_COUNTED;
    vec![
        Meaning::always("nr_cpus", "the sweep's key"),
        Meaning::always("cpus", "the sweep's key"),
        Meaning::at_least("cpu_pct", n, UPDATES_SEL),
        Meaning::at_least("atomic_cpu_pct", n, UPDATES[0]),
        Meaning::at_least("percpu_counter_cpu_pct", n, UPDATES[1]),
        Meaning::at_least("pcpu_reserve_cpu_pct", n, UPDATES[2]),
        Meaning::at_least("reduce_share_pct", n, UPDATES_SEL),
        Meaning::at_least("cpu_pct", 1, WHOLE_SEL),
        Meaning::at_least("atomic_cpu_pct", 1, WHOLE[0]),
        Meaning::at_least("percpu_counter_cpu_pct", 1, WHOLE[1]),
        Meaning::at_least("pcpu_reserve_cpu_pct", 1, WHOLE[2]),
        Meaning::at_least("reduce_share_pct", 1, WHOLE_SEL),
        Meaning::always("max_error_pages", "the largest error seen: a count itself"),
        Meaning::always("error_bound_pages", "arithmetic on the parameters"),
        Meaning::always("batch_pages", "arithmetic on the parameters"),
        Meaning::at_least("limit_overshoot_pages", 1, CROSSED),
        Meaning::at_least("late_ms", 1, CROSSED),
    ]
}

/// The core count of `point` (x = logical CPUs).
fn cores_at(i: &Input, point: &Point) -> u32 {
    point.x as u32 / i.threads()
}

impl Model for PercpuCounter {
    type Input = Input;
    type Worlds = PointWorlds;

    const ID: &'static str = ID;
    const TITLE: &'static str = "One hot counter";
    const SUMMARY: &'static str = "tcp_memory_allocated as one atomic, a percpu_counter, or 6.0's per-CPU reserves: CPU cost vs counting error on a dual-socket Xeon (seed 003).";
    /// Measured at the defaults, seed after seed (6,102,653 events in 1.00 s of CPU, release build):
    /// `cargo test --release -p skblab-core --features cli --test estimate -- --ignored --nocapture --test-threads 1 world_speeds`.
    const EVENTS_PER_S: f64 = 6.1e6;

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }

    fn validate(&self, i: &Input) -> Result<(), ParamError> {
        validate(i)
    }

    fn columns(&self, _i: &Input) -> Vec<Column> {
        columns()
    }

    /// One point per core count of [`core_ladder`]; x = logical CPUs.
    fn points(&self, i: &Input) -> Vec<Point> {
        core_ladder(i)
            .iter()
            .enumerate()
            .map(|(k, &c)| Point { index: k as u32, x: i64::from(c * i.threads()) })
            .collect()
    }

    /// The three counters at `point.x` CPUs and the selected counter's ramp.
    fn worlds(&self, i: &Input, point: &Point, seed: u64, runner: &mut Runner) -> PointWorlds {
        point_worlds_on(&DUAL_XEON_2018, COSTS_2018, i, cores_at(i, point), seed, runner)
    }

    /// `cpu_pct` and the error columns are the selected counter's.
    fn row(&self, i: &Input, point: &Point, worlds: PointWorlds) -> Row {
        row_of(i, cores_at(i, point), worlds)
    }

    /// The expected events of the point's four worlds ([`expected_events`]).
    fn events(&self, i: &Input, point: &Point) -> u64 {
        let (m, costs, cores) = (&DUAL_XEON_2018, COSTS_2018, cores_at(i, point));
        let counters = [Counter::Atomic, Counter::PercpuCounter, Counter::PcpuReserve];
        let steady: u64 = counters.iter().map(|&c| expected_events(&config_on(m, costs, i, cores, c))).sum();
        steady + expected_events(&ramp_config(m, costs, i, cores, i.counter))
    }

    fn meanings(&self, _i: &Input) -> Vec<Meaning> {
        meanings()
    }

    fn views(&self) -> Vec<ViewSpec> {
        views()
    }

    /// The table, and the views of two more runs at `cpus` cores: the selected counter
    /// sampled for the error plot, and its ramp.
    fn finish(&self, i: &Input, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, columns());
        for row in rows {
            out.push_row(row);
        }
        let sel = simulate(sampled_config(i), seed);
        let ramp = simulate(ramp_config(&DUAL_XEON_2018, COSTS_2018, i, i.cpus, i.counter), seed);
        out.plots = vec![crossing_plot(i, &ramp), error_plot(i, &sel)];
        let (views, flame) = text_views(i, sel, &ramp, seed);
        out.views = views;
        out.flames = vec![flame];
        out.note_missing(&meanings());
        out.notes.extend(sweep::ladder_note(i));
        out
    }

    fn finish_events(&self, i: &Input) -> u64 {
        expected_events(&sampled_config(i))
            + expected_events(&ramp_config(&DUAL_XEON_2018, COSTS_2018, i, i.cpus, i.counter))
    }

    /// Heavy whatever the events say: every event walks the cache model, about 5 times the
    /// engine's average time per event, so even the smallest lesson step is no frame's work.
    fn cost(&self, _i: &Input) -> Cost {
        Cost::Heavy
    }

    /// The same: a point at `measure_us = 200000` takes ~75,000 events, 50 ms natively.
    fn point_cost(&self, _i: &Input, _point: &Point) -> Cost {
        Cost::Heavy
    }

    fn monotone(&self) -> Vec<Monotone> {
        predict::monotone()
    }

    crate::model::capabilities!(seed_tables, calibrated);
}

/// The selected counter's run at `cpus` cores, sampled for the error plot (500 samples).
fn sampled_config(i: &Input) -> WorldConfig {
    let mut cfg = config_on(&DUAL_XEON_2018, COSTS_2018, i, i.cpus, i.counter);
    cfg.sample_every_ns = (cfg.duration_ns / 500).max(1);
    cfg
}

impl SeedTables<PercpuCounter> for PercpuCounter {
    fn compare(&self, i: &Input, output: &RunOutput) -> Option<Reproduction> {
        seed::compare(i, output)
    }

    fn tables(&self) -> Vec<TableSpec> {
        vec![predict::table()]
    }

    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck> {
        (table == predict::TABLE).then(|| predict::check(seeds)).flatten()
    }

    fn seed_output(&self) -> Option<RunOutput> {
        seed::seed_output()
    }

    /// The defaults with the 2018 atomic selected, so the reduce share is the seed's.
    fn reproduce_params(&self) -> Option<Params> {
        let mut p = Params::new(ID, specs());
        p.set_text("counter", "atomic").expect("atomic is a counter");
        Some(p)
    }
}

impl Calibrated<PercpuCounter> for PercpuCounter {
    fn machines(&self) -> Vec<MachineProfile> {
        vec![DUAL_XEON_2018]
    }

    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        predict::uncertain()
    }

    fn run_perturbed(&self, i: &Input, seed: u64, values: &[f64]) -> Option<RunOutput> {
        predict::run_perturbed(i, seed, values)
    }
}

fn views() -> Vec<ViewSpec> {
    vec![
        ViewSpec::Chart {
            id: "cpu",
            chart: ChartSpec {
                title: "CPU time in the accounting vs CPUs online (seed 003 marked)",
                x: "nr_cpus",
                ys: &[
                    ("atomic_cpu_pct", "atomic (sim)"),
                    ("percpu_counter_cpu_pct", "percpu_counter (sim)"),
                    ("pcpu_reserve_cpu_pct", "6.0 per-CPU reserve (sim)"),
                ],
                y_label: "% of all CPU time",
                y_divisor: 1.0,
                x_label: "CPUs online",
                seed_overlay: true,
            },
        },
        ViewSpec::Chart {
            id: "error",
            chart: ChartSpec {
                title: "How far the shared value is off: largest error seen vs the bound",
                x: "nr_cpus",
                ys: &[("max_error_pages", "largest error seen (sim)"), ("error_bound_pages", "bound")],
                y_label: "pages (4 KiB)",
                y_divisor: 1.0,
                x_label: "CPUs online",
                seed_overlay: false,
            },
        },
        ViewSpec::Plot { id: "crossing", plots: &["crossing"], shows: &["late_ms", "limit_overshoot_pages"] },
        ViewSpec::Plot { id: "error-time", plots: &["error-time"], shows: &["max_error_pages", "error_bound_pages"] },
        ViewSpec::Flame { id: "flame", flames: &["profile"] },
        ViewSpec::Compare { id: "table" },
        ViewSpec::Text { id: "profile", texts: &["profile"] },
        ViewSpec::Text { id: "line", texts: &["line"] },
        ViewSpec::Text { id: "bound", texts: &["bound"] },
        ViewSpec::Text { id: "tcp-mem", texts: &["tcp_mem"] },
        ViewSpec::Table { id: "results" },
    ]
}
