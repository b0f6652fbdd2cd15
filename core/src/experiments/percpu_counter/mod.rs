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
//! Files: `mod.rs` (here: the counter choice, the result columns and the `Experiment` impl),
//! `params.rs` (spec, typed `Input`, validation), `sweep.rs` (the worlds of a sweep, one per
//! counter and core count, and their figures), `ramp.rs` (the second mode, a run that climbs
//! to `tcp_mem[2]` to see how late the kernel notices), `views.rs` (the perf report, the
//! line's travels, the bounds and the error plot), `seed.rs` (seed 003's figures and the
//! comparison), `chains.rs` (the profile call chains), `profile.rs` (the dual-Xeon profile
//! from the catalogue, the workload), `predict.rs` (the table, its error, the bands' inputs,
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
mod sweep;
mod views;
pub mod world;

pub use params::{default_batch, specs, validate, Input, MIN_RESERVE_BYTES};
pub use profile::{costs_on, COSTS_2018, DUAL_XEON_2018, WORKLOAD};
pub use ramp::{ramp_config, ramp_outcome, render_tcp_mem, tcp_mem_pages, RAMP_LEAD_NS, RAMP_SAMPLE_NS};
pub use seed::{reproduce, SEED_ATOMIC_PCT, SEED_PERCPU_PCT};
pub use sweep::{config_on, core_ladder, outcome, point_outcomes, point_outcomes_on, simulate, Outcome};
pub use views::{render_bounds, render_hops};
pub use world::{
    error_bound_pages, CounterCosts, Crossing, Hop, Ramp, Sample, World, WorldConfig, WorldStats, MAX_EVENTS_PER_RUN,
    MAX_UPDATES_PER_RUN,
};

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::experiment::{mark_row, ChartSpec, Cost, Experiment, Meaning, Monotone, Point, ViewSpec, WorkEstimate};
use crate::output::{Cell, Column, Reproduction, Row, RunOutput};
use crate::params::{ParamError, ParamSpec, Params};
use crate::sim::machine::MachineProfile;
use crate::sim::world::Checked;
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

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
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

/// One row: the three counters with `cores` cores online on `m` with `costs`, and the ramp
/// of the selected counter.
pub fn row_on(m: &MachineProfile, costs: CounterCosts, i: &Input, cores: u32, seed: u64) -> Row {
    let nr = cores * i.threads();
    let o = point_outcomes_on(m, costs, i, cores, seed);
    let sel = &o[i.counter as usize];
    let ramp = simulate(ramp_config(m, costs, i, cores, i.counter), seed);
    let (overshoot, late_ms) = ramp_outcome(&ramp);
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
        Cell::Float(round3(sel.cpu_pct)),
        Cell::Float(round3(o[0].cpu_pct)),
        Cell::Float(round3(o[1].cpu_pct)),
        Cell::Float(round3(o[2].cpu_pct)),
        Cell::Float(round3(sel.reduce_share_pct)),
        Cell::Int(sel.max_error_pages),
        Cell::Int(sel.error_bound_pages),
        Cell::Int(i.batch_at(nr)),
        Cell::Int(overshoot),
        Cell::Float(round3(late_ms)),
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

impl Experiment for PercpuCounter {
    fn id(&self) -> &'static str {
        ID
    }

    fn title(&self) -> &'static str {
        "One hot counter: tcp_memory_allocated"
    }

    fn summary(&self) -> &'static str {
        "tcp_memory_allocated as one atomic, a percpu_counter, or 6.0's per-CPU reserves: CPU cost vs counting error on a dual-socket Xeon (seed 003)."
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

    fn columns(&self, _params: &Params) -> Vec<Column> {
        columns()
    }

    /// One point per core count of [`core_ladder`]; x = logical CPUs.
    fn points(&self, params: &Params) -> Vec<Point> {
        let i = Input::from(params);
        core_ladder(&i)
            .iter()
            .enumerate()
            .map(|(k, &c)| Point { index: k as u32, x: i64::from(c * i.threads()) })
            .collect()
    }

    /// The three counters at `point.x` CPUs; `cpu_pct` and the error columns are `counter`'s.
    fn run_point(&self, params: &Params, point: &Point, seed: u64) -> Row {
        let i = Input::from(params);
        row_on(&DUAL_XEON_2018, COSTS_2018, &i, point.x as u32 / i.threads(), seed)
    }

    fn run_point_checked(&self, params: &Params, point: &Point, seed: u64, max_events: u64) -> Result<Checked, String> {
        world::invariants::check_point(params, point, seed, max_events)
    }

    fn finish(&self, params: &Params, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, columns());
        for row in rows {
            out.push_row(row);
        }
        let i = Input::from(params);
        let mut cfg = config_on(&DUAL_XEON_2018, COSTS_2018, &i, i.cpus, i.counter);
        cfg.sample_every_ns = (cfg.duration_ns / 500).max(1);
        let sel = simulate(cfg, seed);
        let ramp = simulate(ramp_config(&DUAL_XEON_2018, COSTS_2018, &i, i.cpus, i.counter), seed);
        out.plots = vec![crossing_plot(&i, &ramp), error_plot(&i, &sel)];
        let (views, flame) = text_views(&i, sel, &ramp, seed);
        out.views = views;
        out.flames = vec![flame];
        out.note_missing(&meanings());
        out
    }

    fn meanings(&self, _params: &Params) -> Vec<Meaning> {
        meanings()
    }

    /// Per point the three counters and the ramp, then two runs for the views: each at most
    /// [`MAX_EVENTS_PER_RUN`] events, plus the work of drawing each touched connection's spare
    /// pages from the steady state (`world/load.rs`, `fw`): raises / timers loop steps on
    /// average, at most one draw per connection and per event, each step about a tenth of an
    /// event's time (1.2 × 10^9 steps took about 15 s natively at the knobs' corner, raises
    /// 1200 and timers 1 per minute, a million connections); a few per cent at the defaults.
    fn estimate(&self, params: &Params) -> WorkEstimate {
        let points = self.points(params).len() as u64;
        let i = Input::from(params);
        let touches = u64::from(i.connections).min(MAX_EVENTS_PER_RUN);
        let draws = touches * u64::from(i.raises_per_min) / u64::from(i.timers_per_min.max(1)) / 10;
        WorkEstimate { points, events: (4 * points + 2) * (MAX_EVENTS_PER_RUN + draws) }
    }

    /// Up to 20 simulated runs (5 CPU counts × 3 counters + a ramp) of at most
    /// [`MAX_UPDATES_PER_RUN`] updates each, and 3 more for the views.
    fn cost(&self, _params: &Params) -> Cost {
        Cost::Heavy
    }

    fn views(&self) -> Vec<ViewSpec> {
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
            ViewSpec::Plot {
                id: "error-time",
                plots: &["error-time"],
                shows: &["max_error_pages", "error_bound_pages"],
            },
            ViewSpec::Flame { id: "flame", flames: &["profile"] },
            ViewSpec::Compare { id: "table" },
            ViewSpec::Text { id: "profile", texts: &["profile"] },
            ViewSpec::Text { id: "line", texts: &["line"] },
            ViewSpec::Text { id: "bound", texts: &["bound"] },
            ViewSpec::Text { id: "tcp-mem", texts: &["tcp_mem"] },
            ViewSpec::Table { id: "results" },
        ]
    }

    /// The defaults with the 2018 atomic selected, so the reduce share is the seed's.
    fn reproduce_params(&self) -> Params {
        let mut p = self.defaults();
        p.set_text("counter", "atomic").expect("atomic is a counter");
        p
    }

    fn tables(&self) -> Vec<TableSpec> {
        vec![predict::table()]
    }

    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck> {
        (table == predict::TABLE).then(|| predict::check(seeds)).flatten()
    }

    fn machines(&self) -> Vec<MachineProfile> {
        vec![DUAL_XEON_2018]
    }

    fn uncertain(&self) -> Vec<(&'static str, crate::sim::catalogue::Quantity)> {
        predict::uncertain()
    }

    fn run_perturbed(&self, params: &Params, seed: u64, values: &[f64]) -> Option<RunOutput> {
        predict::run_perturbed(params, seed, values)
    }

    fn monotone(&self) -> Vec<Monotone> {
        predict::monotone()
    }

    fn seed_output(&self) -> Option<RunOutput> {
        seed::seed_output()
    }

    fn compare(&self, params: &Params, output: &RunOutput) -> Option<Reproduction> {
        seed::compare(params, output)
    }
}
