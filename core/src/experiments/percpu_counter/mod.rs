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
//! compares with the seed. The machine profile and its fitted constants are in [`profile`],
//! their calibration in [`calibrate`]; docs/percpu-counter.md has every mechanism and source.

pub mod calibrate;
pub mod chains;
pub mod profile;
pub mod world;

pub use profile::{COSTS_2018, DUAL_XEON_2018, RATES_2018};
pub use world::{
    error_bound_pages, CounterCosts, Crossing, Hop, Ramp, Sample, World, WorldConfig, WorldStats, MAX_UPDATES_PER_RUN,
};

use crate::experiment::{ChartSpec, Cost, Experiment, Point, ViewSpec};
use crate::output::{
    Cell, Column, Plot, PlotBand, PlotLine, ReproCell, ReproRow, Reproduction, Row, RunOutput, TextView,
};
use crate::params::{Choice, ParamError, ParamSpec, Params};
use crate::sim::machine::{CpuId, MachineProfile, MAX_SOCKETS};
use crate::sources;
use std::fmt::Write as _;

pub const ID: &str = "percpu-counter";

/// Most physical cores a run may have online (× 2 with SMT: 1024 CPUs).
pub const MAX_CORES: u32 = 512;

/// Page size (x86_64): the counter counts pages.
pub const PAGE_BYTES: i64 = 4096;

/// The seed's figures: % CPU in the accounting, 2018 atomic and with the patch.
pub const SEED_ATOMIC_PCT: f64 = 0.70;
pub const SEED_PERCPU_PCT: f64 = 0.36;

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

/// Every parameter of a run, typed: the one place that reads them by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub counter: Counter,
    pub sockets: u32,
    pub cpus: u32,
    pub smt: bool,
    pub connections: u32,
    pub timers_per_min: u32,
    pub raises_per_min: u32,
    pub raise_pages_max: u32,
    pub hz: u32,
    pub skew_tick: bool,
    /// 0: the kernel's default, max(32, 2 × nr_cpus).
    pub batch: i64,
    pub reserve_bytes: i64,
    pub atomic_ns: u64,
    pub measure_us: u64,
    pub ram_gib: u32,
}

impl From<&Params> for Input {
    fn from(p: &Params) -> Input {
        Input {
            counter: p.choice_of("counter"),
            sockets: p.int("sockets") as u32,
            cpus: p.int("cpus") as u32,
            smt: p.bool("smt"),
            connections: p.int("connections") as u32,
            timers_per_min: p.int("timers_per_min") as u32,
            raises_per_min: p.int("raises_per_min") as u32,
            raise_pages_max: p.int("raise_pages_max") as u32,
            hz: p.int("hz") as u32,
            skew_tick: p.bool("skew_tick"),
            batch: p.int("batch"),
            reserve_bytes: p.int("reserve_bytes"),
            atomic_ns: p.int("atomic_ns") as u64,
            measure_us: p.int("measure_us") as u64,
            ram_gib: p.int("ram_gib") as u32,
        }
    }
}

impl Input {
    fn threads(&self) -> u32 {
        if self.smt {
            2
        } else {
            1
        }
    }

    /// Logical CPUs with all `cpus` cores online.
    pub fn nr_cpus(&self) -> u32 {
        self.cpus * self.threads()
    }

    /// percpu_counter's batch at `nr_cpus`: the parameter, or lib/percpu_counter.c's
    /// `compute_batch_value()`: max(32, 2 × num_online_cpus).
    pub fn batch_at(&self, nr_cpus: u32) -> i64 {
        if self.batch > 0 {
            self.batch
        } else {
            default_batch(nr_cpus)
        }
    }

    pub fn reserve_pages(&self) -> i64 {
        (self.reserve_bytes / PAGE_BYTES).max(1)
    }
}

/// `tcp_init_mem()` (net/ipv4/tcp.c, 4.x to 6.x): limit = max(nr_free_buffer_pages() / 16,
/// 128), tcp_mem = [limit / 4 × 3, limit, 2 × tcp_mem[0]] pages (4.7, 6.25 and 9.4 % of the
/// buffer pages). ASSUMPTION: `nr_free_buffer_pages()` at boot ≈ all of RAM (the kernel takes
/// off its own pages and the high watermarks, a few %).
pub fn tcp_mem_pages(ram_gib: u32) -> [i64; 3] {
    let buffer_pages = i64::from(ram_gib) * (1 << 30) / PAGE_BYTES;
    let limit = (buffer_pages / 16).max(128);
    [limit / 4 * 3, limit, limit / 4 * 3 * 2]
}

/// How long the ramp runs before the true sum is expected to reach `tcp_mem[2]` (ns): the
/// window opens this far below the limit at the expected growth, so the plot shows the
/// approach. The crossing itself, and when the kernel sees it, come from the simulation.
pub const RAMP_LEAD_NS: u64 = 1_000_000;

/// First sample interval of the ramp plot (ns; doubled as the run grows, see `World`).
pub const RAMP_SAMPLE_NS: u64 = 5_000;

/// The ramp of `counter` with `cores` cores online: the steady load's world, started
/// [`RAMP_LEAD_NS`] of expected growth below `tcp_mem[2]`, timers returning nothing, for the
/// lead plus `measure_us` at most (and the update cap); it stops soon after the kernel sees
/// the limit.
pub fn ramp_config(m: &MachineProfile, costs: CounterCosts, i: &Input, cores: u32, counter: Counter) -> WorldConfig {
    let mut cfg = config_on(m, costs, i, cores, counter);
    let limit = tcp_mem_pages(i.ram_gib)[2];
    // Expected pages charged per second: raises × mean pages per raise (uniform 1..=max).
    let per_s = u64::from(cfg.connections) * u64::from(i.raises_per_min) / 60 * u64::from(1 + i.raise_pages_max) / 2;
    let lead = (per_s * RAMP_LEAD_NS / 1_000_000_000) as i64;
    cfg.ramp = Some(Ramp { base_pages: (limit - lead).max(0), limit_pages: limit });
    cfg.sample_every_ns = RAMP_SAMPLE_NS;
    let rate = u64::from(cfg.connections) * u64::from(i.raises_per_min + i.timers_per_min) / 60;
    cfg.duration_ns = (RAMP_LEAD_NS + i.measure_us * 1000).min(MAX_UPDATES_PER_RUN * 1_000_000_000 / rate.max(1));
    cfg
}

/// The ramp's figures: pages charged past `tcp_mem[2]` before the kernel saw it, and how
/// late it saw it (ms). If the window ended first, both are what had piled up by its end.
pub fn ramp_outcome(w: &World) -> (i64, f64) {
    let c = &w.crossing;
    let Some(true_at) = c.true_at_ns else { return (0, 0.0) };
    match (c.overshoot_pages(), c.late_ns()) {
        (Some(pages), Some(ns)) => (pages, ns as f64 / 1e6),
        _ => (w.true_pages - c.true_pages_at_cross, w.cfg.duration_ns.saturating_sub(true_at) as f64 / 1e6),
    }
}

/// `compute_batch_value()` (lib/percpu_counter.c): max(32, 2 × nr_cpus).
pub fn default_batch(nr_cpus: u32) -> i64 {
    (2 * i64::from(nr_cpus)).max(32)
}

/// Cores online split evenly over the sockets.
pub fn validate(params: &Params) -> Result<(), ParamError> {
    let i = Input::from(params);
    if i.cpus % i.sockets != 0 {
        return Err(ParamError::BadValue {
            name: "cpus".into(),
            value: i.cpus.to_string(),
            allowed: format!("a multiple of sockets ({}): the cores split evenly over the sockets", i.sockets),
        });
    }
    Ok(())
}

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
        batch: i.batch_at(nr),
        reserve_pages: i.reserve_pages(),
        costs: CounterCosts { atomic_ns: i.atomic_ns, ..costs },
        duration_ns: (i.measure_us * 1000).min(cap_ns),
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
    pub stats: WorldStats,
}

/// Runs `cfg` to its end.
pub fn simulate(cfg: WorldConfig, seed: u64) -> World {
    let mut w = World::new(cfg, seed);
    w.run();
    w
}

pub fn outcome(w: &World) -> Outcome {
    let s = &w.stats;
    let total = w.cfg.duration_ns as f64 * f64::from(w.cfg.nr_cpus());
    let acct = (s.raise_ns + s.reduce_ns) as f64;
    Outcome {
        cpu_pct: acct * 100.0 / total.max(1.0),
        reduce_share_pct: if acct > 0.0 { s.reduce_ns as f64 * 100.0 / acct } else { 0.0 },
        max_error_pages: s.max_error_pages,
        error_bound_pages: w.cfg.error_bound_pages(),
        stats: s.clone(),
    }
}

/// Every counter at `cores` cores with the committed profile and the parameters' knobs.
pub fn point_outcomes(i: &Input, cores: u32, seed: u64) -> [Outcome; 3] {
    let run = |c| outcome(&simulate(config_on(&DUAL_XEON_2018, COSTS_2018, i, cores, c), seed));
    [run(Counter::Atomic), run(Counter::PercpuCounter), run(Counter::PcpuReserve)]
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
        let nr = point.x as u32;
        let cores = nr / i.threads();
        let o = point_outcomes(&i, cores, seed);
        let sel = &o[i.counter as usize];
        let ramp = simulate(ramp_config(&DUAL_XEON_2018, COSTS_2018, &i, cores, i.counter), seed);
        let (overshoot, late_ms) = ramp_outcome(&ramp);
        vec![
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
        ]
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
        out
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

    fn calibration(&self) -> Option<&'static dyn crate::calibrate::Calibration> {
        Some(&calibrate::PercpuCalibration)
    }

    fn seed_output(&self) -> Option<RunOutput> {
        let mut out = RunOutput::new(ID, 0, columns());
        let none = || Cell::Text(String::new());
        let nr = DUAL_XEON_2018.n_cpus();
        out.push_row(vec![
            Cell::Int(i64::from(nr)),
            Cell::Int(i64::from(nr / 2)),
            none(),
            Cell::Float(SEED_ATOMIC_PCT),
            Cell::Float(SEED_PERCPU_PCT),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
        ]);
        Some(out)
    }

    fn compare(&self, params: &Params, output: &RunOutput) -> Option<Reproduction> {
        let i = Input::from(params);
        let key = ("nr_cpus", f64::from(i.nr_cpus()));
        let atomic = output.metric("atomic_cpu_pct", Some(key))?;
        let percpu = output.metric("percpu_counter_cpu_pct", Some(key))?;
        let row = |label: &str, measured, simulated| ReproRow {
            label: label.to_string(),
            cells: vec![ReproCell { metric: "cpu_pct", measured, simulated, spread: None }],
        };
        let mut notes = vec![
            format!(
                "machine: {}, {} CPUs online, {} connections; seed {}",
                DUAL_XEON_2018.name,
                i.nr_cpus(),
                i.connections,
                output.seed
            ),
            "seed 003 names three percpu functions (.18 + .11 + .07 %) without saying which; the perf report view shows the model's split".to_string(),
        ];
        if let Some(share) = output.metric("reduce_share_pct", Some(key)) {
            notes.push(format!(
                "share of the accounting in reduce ({}): {share:.0} % (seed: \"most of those in reduce\")",
                i.counter.name()
            ));
        }
        Some(Reproduction {
            experiment: ID,
            citation: sources::SEED_003,
            key_name: "counter",
            rows: vec![
                row("atomic (2018)", SEED_ATOMIC_PCT, atomic),
                row("percpu_counter (patch)", SEED_PERCPU_PCT, percpu),
            ],
            notes,
        })
    }
}

/// The perf report of `counter` (and its flame graph), the line's travels under the atomic,
/// the bound table and the ramp's `tcp_mem` crossing, from the run `sel` of `counter` at
/// `cpus` cores and its `ramp`.
fn text_views(i: &Input, sel: World, ramp: &World, seed: u64) -> (Vec<TextView>, crate::sim::profile::FlameGraph) {
    let o = outcome(&sel);
    let title = format!(
        "perf report: {} connections on {} CPUs, counter {}, {:.3} % of CPU in the accounting",
        i.connections,
        i.nr_cpus(),
        i.counter.name(),
        o.cpu_pct
    );
    let report = sel.profile.report(title.clone());
    // The accounting alone: "[everything else]" (99 % of the CPU) would leave it a sliver.
    let mut flame = report.flame(
        "profile",
        format!(
            "{} on {} CPUs: the {:.3} % of CPU time in the accounting (everything else left out)",
            i.counter.name(),
            i.nr_cpus(),
            o.cpu_pct
        ),
    );
    let other = crate::sim::profile::CallChains::symbol(chains::Stack::Other);
    flame.stacks.retain(|s| s.frames.last().map(String::as_str) != Some(other));
    let atomic = if i.counter == Counter::Atomic {
        sel
    } else {
        simulate(config_on(&DUAL_XEON_2018, COSTS_2018, i, i.cpus, Counter::Atomic), seed)
    };
    let texts = vec![
        TextView::new("profile", title, report.text),
        TextView::new(
            "line",
            format!("tcp_memory_allocated's cache line under the atomic, from the second tick ({} CPUs)", i.nr_cpus()),
            render_hops(&atomic.hops, &atomic.cfg.machine),
        ),
        TextView::new(
            "bound",
            "error bounds: batch x CPUs (percpu_counter) and reserve x CPUs (6.0)",
            render_bounds(i),
        ),
        TextView::new("tcp_mem", "net.ipv4.tcp_mem and the ramp towards it", render_tcp_mem(i, ramp)),
    ];
    (texts, flame)
}

/// tcp_mem from RAM, and what the ramp saw.
pub fn render_tcp_mem(i: &Input, ramp: &World) -> String {
    let [low, pressure, high] = tcp_mem_pages(i.ram_gib);
    let gib = |pages: i64| pages as f64 * PAGE_BYTES as f64 / (1u64 << 30) as f64;
    let mut s = format!(
        "RAM {} GiB -> tcp_init_mem(): limit = buffer pages / 16\n\
         tcp_mem[0] {low:>10} pages ({:.1} GiB)  below: no pressure\n\
         tcp_mem[1] {pressure:>10} pages ({:.1} GiB)  over: sk_enter_memory_pressure()\n\
         tcp_mem[2] {high:>10} pages ({:.1} GiB)  over: __sk_mem_raise_allocated() suppresses the charge\n\n",
        i.ram_gib,
        gib(low),
        gib(pressure),
        gib(high)
    );
    let c = &ramp.crossing;
    let ms = |ns: u64| ns as f64 / 1e6;
    let _ = writeln!(
        s,
        "ramp: {} CPUs, counter {}, starts at {} pages, timers return nothing",
        ramp.cfg.nr_cpus(),
        ramp.cfg.counter.name(),
        ramp.cfg.ramp.map_or(0, |r| r.base_pages)
    );
    match (c.true_at_ns, c.seen_at_ns) {
        (None, _) => s.push_str("the true sum did not reach tcp_mem[2] in the window\n"),
        (Some(t), Some(seen)) => {
            let _ = writeln!(s, "true sum over tcp_mem[2] at {:.3} ms", ms(t));
            let _ = writeln!(
                s,
                "the raise path's check first sees it at {:.3} ms: {:.3} ms late, {} pages charged past the limit meanwhile",
                ms(seen),
                ms(seen - t),
                c.true_pages_at_seen - c.true_pages_at_cross
            );
        }
        (Some(t), None) => {
            let _ = writeln!(
                s,
                "true sum over tcp_mem[2] at {:.3} ms; the check had not seen it when the window ended at {:.3} ms",
                ms(t),
                ms(ramp.cfg.duration_ns)
            );
        }
    }
    s
}

/// The ramp: the true sum and what the raise path's check reads, against `tcp_mem[2]`, with
/// the two moments marked. Pages over ms.
fn crossing_plot(i: &Input, ramp: &World) -> Plot {
    let ms = |ns: u64| ns as f64 / 1e6;
    let line = |name: &str, f: fn(&Sample) -> i64, dashed| PlotLine {
        name: name.to_string(),
        points: ramp.samples.iter().map(|s| (ms(s.at_ns), f(s) as f64)).collect(),
        dashed,
    };
    let mut marks = Vec::new();
    if let Some(t) = ramp.crossing.true_at_ns {
        marks.push(("true sum crosses".to_string(), ms(t)));
    }
    if let Some(t) = ramp.crossing.seen_at_ns {
        marks.push(("kernel sees it".to_string(), ms(t)));
    }
    let limit = ramp.cfg.ramp.map_or(0, |r| r.limit_pages);
    Plot {
        id: "crossing".to_string(),
        title: format!(
            "Ramp to tcp_mem[2], {} on {} CPUs: true sum vs what the check reads",
            i.counter.name(),
            i.nr_cpus()
        ),
        x_label: "time (ms)".to_string(),
        y_label: "pages (4 KiB)".to_string(),
        lines: vec![line("true sum", |s| s.true_pages, false), line("what the check reads", |s| s.shared_pages, true)],
        bands: Vec::new(),
        hlines: vec![("tcp_mem[2] limit".to_string(), limit as f64)],
        marks,
        y_from_zero: false,
    }
}

/// The steady load: shared value − true sum over time, inside the ± bound band.
fn error_plot(i: &Input, sel: &World) -> Plot {
    let ms = |ns: u64| ns as f64 / 1e6;
    let bound = sel.cfg.error_bound_pages() as f64;
    let points: Vec<(f64, f64)> =
        sel.samples.iter().map(|s| (ms(s.at_ns), (s.shared_pages - s.true_pages) as f64)).collect();
    let band = PlotBand {
        name: format!("bound: ±{bound:.0} pages"),
        points: points.iter().map(|&(x, _)| (x, -bound, bound)).collect(),
    };
    Plot {
        id: "error-time".to_string(),
        title: format!("Shared value − true sum over time, {} on {} CPUs (steady load)", i.counter.name(), i.nr_cpus()),
        x_label: "time (ms)".to_string(),
        y_label: "pages (4 KiB)".to_string(),
        lines: vec![PlotLine { name: "shared − true (sim)".to_string(), points, dashed: false }],
        bands: vec![band],
        hlines: Vec::new(),
        marks: Vec::new(),
        y_from_zero: false,
    }
}

/// One line per locked RMW: when, which CPU, where the line came from, wait and cost.
pub fn render_hops(hops: &[Hop], m: &MachineProfile) -> String {
    let mut s = String::from("   time_us  cpu  path    line came from        wait_ns  cost_ns\n");
    for h in hops {
        let from = match h.from {
            None => "memory/L3".to_string(),
            Some(f) if f == h.cpu => "own cache".to_string(),
            Some(f) if m.pos(f).socket != m.pos(h.cpu).socket => format!("cpu {f} (other socket)"),
            Some(f) if m.pos(f).core == m.pos(h.cpu).core => format!("cpu {f} (SMT sibling)"),
            Some(f) => format!("cpu {f} (same socket)"),
        };
        let path = match h.path {
            chains::Path::Raise => "raise ",
            chains::Path::Reduce => "reduce",
        };
        let _ = writeln!(
            s,
            "{:>10.3}  {:>3}  {path}  {from:<20} {:>8} {:>8}",
            h.at_ns as f64 / 1000.0,
            h.cpu,
            h.wait_ns,
            h.work_ns
        );
    }
    s
}

/// The bound at a few CPU counts, with this run's batch and reserve.
pub fn render_bounds(i: &Input) -> String {
    let mut s = String::from("  CPUs  batch  batch x CPUs (pages)  = MiB   reserve x CPUs (pages)  = MiB\n");
    let mib = |pages: i64| pages as f64 * PAGE_BYTES as f64 / (1 << 20) as f64;
    let mut counts = vec![16, 56, 64, 128, 256, 512, i.nr_cpus()];
    counts.sort_unstable();
    counts.dedup();
    for n in counts {
        let b = i.batch_at(n);
        let pc = error_bound_pages(Counter::PercpuCounter, b, i.reserve_pages(), n);
        let rs = error_bound_pages(Counter::PcpuReserve, b, i.reserve_pages(), n);
        let _ = writeln!(s, "{n:>6}  {b:>5}  {pc:>20}  {:>5.0}   {rs:>20}  {:>5.0}", mib(pc), mib(rs));
    }
    s.push_str("With the default batch the bound grows as 2 x CPUs^2: 256 CPUs, batch 512 -> 131072 pages = 512 MiB\n(Mathieu Desnoyers' arithmetic, 2024, mm RSS counter thread).\n");
    s
}

/// Seed 003 beside the simulation of `params`.
pub fn reproduce(params: &Params, seed: u64) -> Reproduction {
    let e = &PercpuCounter;
    e.compare(params, &e.run(params, seed)).expect("percpu-counter has a seed table")
}

/// The parameter spec.
pub fn specs() -> Vec<ParamSpec> {
    let r = RATES_2018;
    vec![
        ParamSpec::choice_of("counter", Counter::PercpuCounter)
            .help("Which counter cpu_pct, the error columns and the perf report show: atomic (2018), percpu_counter (the patch), pcpu_reserve (6.0). The chart always shows all three.")
            .kernel("tcp_memory_allocated"),
        ParamSpec::int("sockets", "sockets", 2, (1, MAX_SOCKETS as i64, 1))
            .help("CPU packages; a line from the other socket costs a UPI/QPI transfer.")
            .kernel("/sys/devices/system/node"),
        ParamSpec::int("cpus", "cores", 28, (1, MAX_CORES as i64, 1))
            .help("Physical cores online (a multiple of sockets). The sweep runs 1/4, 1/2, 1, 2 and 4 times this.")
            .kernel("/sys/devices/system/cpu/online"),
        ParamSpec::boolean("smt", true)
            .help("Both hardware threads of every core online (Hyper-Threading): twice the CPUs.")
            .kernel("CONFIG_SCHED_SMT"),
        ParamSpec::int("connections", "connections", 175_000, (1_000, 1_000_000, 1_000))
            .help("TCP connections, spread evenly over the CPUs (seed: ~150-200k).")
            .kernel("ss -s"),
        ParamSpec::int("timers_per_min", "/min", i64::from(r.timers_per_min), (1, 1200, 1))
            .help("tcp_write_timer firings per connection per minute; each returns the socket's spare forward alloc (reduce). Fitted (see docs).")
            .kernel("icsk_retransmit_timer"),
        ParamSpec::int("raises_per_min", "/min", i64::from(r.raises_per_min), (0, 1200, 1))
            .help("Sends per connection per minute that need pages beyond the forward alloc (raise). Default: as many as timers.")
            .kernel("__sk_mem_raise_allocated"),
        ParamSpec::int("raise_pages_max", "pages", i64::from(r.raise_pages_max), (1, 64, 1))
            .help("A raise charges 1..this many pages (uniform): 8 = up to 32 KiB per send.")
            .kernel("sk_mem_pages()"),
        ParamSpec::int("hz", "Hz", 1000, (100, 1000, 50))
            .help("Timer ticks per second: expired timers run in bursts at each tick.")
            .kernel("CONFIG_HZ"),
        ParamSpec::boolean("skew_tick", false)
            .help("Offset each CPU's tick (boot option skew_tick=1) so the CPUs do not all reclaim at once.")
            .kernel("sched_skew_tick"),
        ParamSpec::int("batch", "pages", 0, (0, 1 << 20, 1))
            .help("percpu_counter batch; 0 = the kernel default max(32, 2 x nr_cpus). The error bound is batch x nr_cpus.")
            .kernel("percpu_counter_batch"),
        ParamSpec::int("reserve_bytes", "bytes", 1 << 20, (4096, 64 << 20, 4096))
            .help("Linux 6.0 per-CPU reserve before the shared atomic is touched (1 MiB = SK_MEMORY_PCPU_RESERVE; tunable since 6.9).")
            .kernel("net.core.mem_pcpu_rsv"),
        ParamSpec::int("atomic_ns", "ns", COSTS_2018.atomic_ns as i64, (1, 500, 1))
            .help("One locked RMW on a line the CPU already owns: raise it for a platform with dearer atomics.")
            .kernel("lock xadd"),
        ParamSpec::int("ram_gib", "GiB", 256, (1, 4096, 1))
            .help("RAM of the server; tcp_mem is computed from it at boot as the kernel does (tcp_init_mem). 256 GiB is an assumption.")
            .kernel("net.ipv4.tcp_mem"),
        ParamSpec::int("measure_us", "us", 10_000, (100, 200_000, 100))
            .help("Simulated time per run; the tcp_mem ramp runs 1 ms more at most (each cut so that a run makes at most 100,000 counter updates; hard stop at 400,000 events).")
            .kernel(""),
    ]
}
