//! `page-frag-free`: TX completion freeing order-0 pages under zone->lock, and the fix that
//! sends them through the per-CPU lists (seed 002, commit 65895b67ad27, Linux 5.0).
//!
//! What Linux did: on a forwarding box whose driver could not recycle its RX pages, every
//! transmitted packet's page was freed at TX completion by `page_frag_free()`, which called
//! `__free_pages_ok()` → `free_one_page()` and took `zone->lock` once per page; all CPUs
//! freeing pages of one NUMA node queued on one lock (the seed's perf graph: 10.10 % of all
//! CPU time in `queued_spin_lock_slowpath` under `napi_consume_skb`). Aaron Lu's fix frees
//! order-0 pages with `free_unref_page()`: onto the CPU's list, and to the buddy allocator
//! only `batch` at a time. When the pages are allocated on one CPU and freed on another, the
//! freeing CPU's list still overflows and drains and the allocating CPU's list still refills,
//! both under the lock, but once per batch instead of once per page.
//!
//! The model is the forwarding world in [`world`] on the sim kernel ([`crate::sim`]); the
//! three machines are data in [`machines`], built from the catalogue; [`calibrate`] fits the
//! router's carried load, the only constant fitted to the seed. A run is one point whose
//! worlds are the setting before and after the fix ([`runs`]), so the page can show both
//! flame graphs and the gain. docs/page-frag-free.md has every mechanism, constant and source.
//!
//! Files: `mod.rs` (here: the parameters as typed input, the `Model` and its capabilities),
//! `specs.rs` (the parameter specs), `runs.rs` (a run's configuration and summary, the pair of a
//! point, its expected events), `table.rs` (columns, meanings, the row and the views),
//! `by_params.rs` (the same runs from untyped `Params`, for tests and examples), `world/mod.rs`
//! (the forwarding world: RX refill, TX completion through `__free_pages_ok` or `free_unref_page`,
//! the send queues), `world/setup.rs` (building it: CPUs, zones, RX queues), `world/zone_ops.rs`
//! (its work under `zone->lock`), `world/invariants.rs` (what `make fuzz-sim` checks after every
//! event), `chains.rs` (its profile call chains), `machines.rs` (the three machines as data, from
//! the catalogue), `calibrate.rs` (the router's one fitted constant), `seed.rs` (the seed's figures
//! and the reproduce table) and `validate.rs` (tables, bands, knob relations).

mod by_params;
pub mod calibrate;
pub mod chains;
pub mod machines;
mod runs;
mod seed;
mod specs;
mod table;
pub mod validate;
pub mod world;

pub use by_params::{config_on, pair, simulate_on, summary_on};
pub use runs::{drop_pct, Pair, RunSummary, Shares};
pub use seed::{
    machine_defaults, reproduce, reproduce_figures, SEED_FRAMES, SEED_GAIN_A53_PCT, SEED_GAIN_X86_PCT, SEED_SHARES,
};
pub use specs::specs;

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::calibrate::Calibration;
use crate::experiment::{Cost, Monotone, Point, ViewSpec, WorkEstimate};
use crate::model::{Calibrated, Model, ModelInput, Runner, SeedTables};
use crate::output::{Column, Meaning, Reproduction, Row, RunOutput};
use crate::params::{at_most, cores_split_evenly, Choice, ParamError, ParamSpec, Params, Value};
use crate::sim::catalogue::Quantity;
use crate::sim::machine::MachineProfile;
use machines::{machine, MachineKind, TxIrq};
use runs::{expected_events, keep_pair, pair_worlds, take_pair};
use seed::{repro_row, reproduction, table, A53_ROW, FIGURES, X86_ROW};
use std::ops::Deref;
use table::{columns, decorate, meanings, row_of, run_on};

pub const ID: &str = "page-frag-free";

/// The registry entry.
pub struct PageFragFree;

crate::choice_enum! {
    /// Which kernel frees the TX pages.
    pub enum Fix {
        /// Linux < 5.0: `page_frag_free` → `__free_pages_ok` → `free_one_page` (zone->lock per page).
        Before = "before",
        /// Linux ≥ 5.0 (65895b67ad27): order-0 pages → `free_unref_page` (per-CPU list).
        After = "after",
    }
}

/// Bytes on the wire per packet besides the frame: preamble + SFD (8) and the inter-frame gap (12).
pub const WIRE_OVERHEAD_BYTES: u64 = 20;

/// Most sockets of a forwarding box (4-socket routers exist; the lesson's boxes have 1 or 2).
pub const MAX_BOX_SOCKETS: i64 = 4;

/// Pages per node: 256 MiB, far more than the rings, lists and TX queues hold.
pub const ZONE_PAGES: u32 = 1 << 16;

crate::params_input! {
    /// Every parameter of a run, typed: the one place that reads them by name. `Input::from`
    /// reads them as given; [`Resolved`] (and [`Input::new`]) applies the machine's defaults
    /// first.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Input {
        pub machine: MachineKind,
        pub fix: Fix,
        pub sockets: u32,
        pub cpus: u32,
        pub smt: bool,
        pub rx_queues: u32,
        pub tx_irq: TxIrq,
        pub packet_bytes: u32,
        pub line_gbps: u32,
        pub offered_kpps: u32,
        pub recycle_pct: u32,
        pub pcp_batch: u32,
        pub pcp_high: u32,
        pub warmup_us: u64,
        pub measure_us: u64,
    }
}

impl Input {
    /// The parameters with the chosen machine's defaults applied ([`resolve`]), typed.
    pub fn new(params: &Params) -> Input {
        Resolved::from(params).0
    }

    /// Logical CPUs online.
    pub fn logical_cpus(&self) -> u32 {
        let threads = if self.smt { machine(self.machine).cpu.threads_per_core } else { 1 };
        self.cpus * threads
    }

    /// Packets per second offered: `offered_kpps`, or the line rate for the packet size.
    pub fn offered_pps(&self) -> u64 {
        if self.offered_kpps > 0 {
            u64::from(self.offered_kpps) * 1000
        } else {
            u64::from(self.line_gbps) * 1_000_000_000 / ((u64::from(self.packet_bytes) + WIRE_OVERHEAD_BYTES) * 8)
        }
    }
}

/// The parameters not set explicitly, filled from the chosen machine's defaults.
pub fn resolve(params: &Params) -> Params {
    let mut out = params.clone();
    let b = machine(Input::from(params).machine);
    let defaults: [(&str, Value); 9] = [
        ("offered_kpps", Value::Int(i64::from(b.offered_kpps))),
        ("recycle_pct", Value::Int(i64::from(b.recycle_pct))),
        ("sockets", Value::Int(i64::from(b.cpu.sockets))),
        ("cpus", Value::Int(i64::from(b.cores))),
        ("smt", Value::Bool(b.smt)),
        ("rx_queues", Value::Int(i64::from(b.rx_queues))),
        ("tx_irq", Value::Choice(b.tx_irq.name().to_string())),
        ("line_gbps", Value::Int(i64::from(b.line_gbps))),
        ("packet_bytes", Value::Int(i64::from(b.packet_bytes))),
    ];
    for (name, value) in defaults {
        if !params.is_explicit(name) {
            out.set(name, value).expect("machine defaults are inside the spec");
            out.clear_explicit(name);
        }
    }
    // One RX queue per CPU by default: fewer CPUs online mean fewer queues.
    if !params.is_explicit("rx_queues") {
        let i = Input::from(&out);
        let threads = if i.smt { b.cpu.threads_per_core } else { 1 };
        let logical = i64::from(i.cpus) * i64::from(threads);
        out.set("rx_queues", Value::Int(i64::from(b.rx_queues).min(logical))).expect("in range");
        out.clear_explicit("rx_queues");
    }
    out
}

/// The input a run really uses: the parameters with the chosen machine's defaults applied
/// ([`resolve`]), read once; it reads as the [`Input`] it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved(pub Input);

impl From<&Params> for Resolved {
    fn from(params: &Params) -> Resolved {
        Resolved(Input::from(&resolve(params)))
    }
}

impl ModelInput for Resolved {
    fn names() -> &'static [&'static str] {
        Input::NAMES
    }
}

impl Deref for Resolved {
    type Target = Input;
    fn deref(&self) -> &Input {
        &self.0
    }
}

/// The rules the ranges of single parameters cannot say.
pub fn validate(i: &Input) -> Result<(), ParamError> {
    cores_split_evenly(i.cpus, i.sockets)?;
    at_most("pcp_batch", i.pcp_batch, "pcp_high", i.pcp_high, "a drain frees batch pages of a full list")
}

impl Model for PageFragFree {
    type Input = Resolved;
    /// The setting before and after the fix.
    type Worlds = Pair;

    const ID: &'static str = ID;
    const TITLE: &'static str = "Freeing pages the cheap way";
    const SUMMARY: &'static str = "A forwarding box frees every transmitted page at TX completion: under zone->lock before Linux 5.0, through the per-CPU lists after (seed 002).";
    /// Measured at the defaults, seed after seed (11,875,582 events in 1.03 s of CPU, release build):
    /// `cargo test --release -p skblab-core --features cli --test estimate -- --ignored --nocapture --test-threads 1 world_speeds`.
    const EVENTS_PER_S: f64 = 11.5e6;

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }

    fn resolve(&self, params: &Params) -> Params {
        resolve(params)
    }

    fn validate(&self, i: &Resolved) -> Result<(), ParamError> {
        validate(i)
    }

    fn columns(&self, _i: &Resolved) -> Vec<Column> {
        columns()
    }

    /// The setting before and after the fix on the input's machine.
    fn worlds(&self, i: &Resolved, _point: &Point, seed: u64, runner: &mut Runner) -> Pair {
        let pair = pair_worlds(machine(i.machine), i, seed, runner);
        if !runner.is_checking() {
            keep_pair(i, seed, &pair);
        }
        pair
    }

    /// The chosen fix's throughput and profile, both fixes' throughput and the gain.
    fn row(&self, i: &Resolved, _point: &Point, pair: Pair) -> Row {
        row_of(i, &pair)
    }

    /// Both runs of the pair ([`expected_events`]).
    fn events(&self, i: &Resolved, _point: &Point) -> u64 {
        expected_events(machine(i.machine), i)
    }

    /// The row, the flame graphs before and after, and the text views (perf report, lock
    /// stats, pagesets) of the chosen fix, from the pair its point left (`finish_events` is
    /// 0: a run finishes its one point in the same process).
    fn finish(&self, i: &Resolved, seed: u64, rows: Vec<Row>) -> RunOutput {
        let p = take_pair(i, seed).unwrap_or_else(|| pair_worlds(machine(i.machine), i, seed, &mut Runner::plain()));
        let mut out = RunOutput::new(ID, seed, columns());
        for row in rows {
            out.push_row(row);
        }
        decorate(&mut out, i, &p);
        out
    }

    fn meanings(&self, i: &Resolved) -> Vec<Meaning> {
        meanings(i)
    }

    /// Always the worker, as before its cost followed its events: the lesson's Cortex-A53
    /// steps (about 31,000 events at 1 Gbit/s) are light by their events.
    fn cost(&self, _i: &Resolved) -> Cost {
        Cost::Heavy
    }

    fn monotone(&self) -> Vec<Monotone> {
        validate::monotone()
    }

    fn views(&self) -> Vec<ViewSpec> {
        vec![
            ViewSpec::Flame { id: "flame", flames: &["before", "after"] },
            ViewSpec::Flame { id: "flame-current", flames: &["current"] },
            ViewSpec::Text { id: "profile", texts: &["perf", "lock_stat"] },
            ViewSpec::Table { id: "table" },
            ViewSpec::Compare { id: "compare" },
            ViewSpec::Text { id: "pagesets", texts: &["zoneinfo"] },
        ]
    }

    crate::model::capabilities!(seed_tables, calibrated);
}

impl SeedTables<PageFragFree> for PageFragFree {
    /// The rows this output can show: the seed's shares on the router before the fix, the
    /// gain on the x86 micro-benchmark host or the Cortex-A53 (64 B).
    fn compare(&self, i: &Resolved, output: &RunOutput) -> Option<Reproduction> {
        let metric = |name| output.metric(name, None);
        let mut rows = Vec::new();
        if i.machine == MachineKind::Router && i.fix == Fix::Before {
            for (label, col, seed) in SEED_SHARES {
                rows.push(repro_row(label, "share_pct", seed, metric(col)?));
            }
        }
        match i.machine {
            MachineKind::X86Bench => rows.push(repro_row(X86_ROW, "gain_pct", SEED_GAIN_X86_PCT, metric("gain_pct")?)),
            MachineKind::CortexA53 => rows.push(repro_row(A53_ROW, "gain_pct", SEED_GAIN_A53_PCT, metric("gain_pct")?)),
            MachineKind::Router => {}
        }
        Some(reproduction(rows, output.seed))
    }

    fn tables(&self) -> Vec<TableSpec> {
        validate::tables()
    }

    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck> {
        validate::check_table(table, seeds)
    }

    /// The full table: the router's shares before the fix and both gains, each from its own
    /// machine's default run.
    fn reproduce(&self, seed: u64) -> Option<Reproduction> {
        Some(reproduce(seed))
    }

    /// The router's frames before the fix and both gains ([`reproduce_figures`]).
    fn figures(&self, seed: u64) -> Option<Vec<f64>> {
        Some(reproduce_figures(seed))
    }

    /// The full table on the mean over `seeds` of each figure, each cell with its [min, max].
    /// The router before the fix (half its pair), then the x86 and Cortex-A53 pairs.
    fn figures_events(&self) -> Option<u64> {
        let pair = |kind| expected_events(machine(kind), &Input::new(&machine_defaults(kind)));
        Some(pair(MachineKind::Router) / 2 + pair(MachineKind::X86Bench) + pair(MachineKind::CortexA53))
    }

    /// `xdp-fwd-x86` runs the x86 host before the fix on 1..=6 cores, per seed; the others
    /// are one reproduction each.
    fn check_work(&self, table: &str, seeds: u64) -> Option<WorkEstimate> {
        (table == "xdp-fwd-x86").then(|| WorkEstimate::new(1, validate::xdp_fwd_events() * seeds))
    }

    fn mean_of_figures(&self, seeds: &[u64], figures: &[Vec<f64>]) -> Option<Reproduction> {
        if figures.is_empty() || figures.iter().any(|f| f.len() != FIGURES) {
            return None;
        }
        let n = figures.len() as f64;
        let mean: Vec<f64> = (0..FIGURES).map(|k| figures.iter().map(|f| f[k]).sum::<f64>() / n).collect();
        let tables: Vec<Reproduction> = figures.iter().zip(seeds).map(|(f, &s)| table(f, s)).collect();
        Some(table(&mean, seeds.first().copied().unwrap_or(0)).with_spread(&tables, seeds))
    }
}

impl Calibrated<PageFragFree> for PageFragFree {
    fn machines(&self) -> Vec<MachineProfile> {
        validate::machines()
    }

    /// The router's one fitted constant (the two other machines fit nothing).
    fn calibration(&self) -> Option<&'static dyn Calibration> {
        Some(&calibrate::ROUTER_CALIBRATION)
    }

    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        validate::uncertain()
    }

    fn run_perturbed(&self, i: &Resolved, seed: u64, values: &[f64]) -> Option<RunOutput> {
        Some(run_on(&validate::perturbed_box(i.machine, values), i, seed))
    }
}
