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
//! router's carried load, the only constant fitted to the seed. Every run
//! simulates the setting before and after the fix, so the page can show both flame graphs
//! and the gain. docs/page-frag-free.md has every mechanism, constant and source.
//!
//! Files: `mod.rs` (here: parameters, columns, the `Experiment` impl and the views), `specs.rs`
//! (the parameter specs),
//! `world.rs` (the forwarding world: RX refill, TX completion through `__free_pages_ok` or
//! `free_unref_page`, the send queues), `world/zone_ops.rs` (its work under `zone->lock`),
//! `world/invariants.rs` (what `make fuzz-sim` checks after every event,
//! and the worlds of a point), `chains.rs` (its profile call chains), `machines.rs` (the three machines
//! as data, from the catalogue), `calibrate.rs` (the router's one fitted constant), `seed.rs`
//! (the seed's figures and the reproduce table) and `validate.rs` (tables, bands, knob
//! relations).

pub mod calibrate;
pub mod chains;
pub mod machines;
mod seed;
mod specs;
pub use specs::specs;
pub mod validate;
pub mod world;

pub use seed::{
    gain_target, machine_defaults, reproduce, reproduce_figures, A53_ROW, FIGURES, SEED_FRAMES, SEED_GAIN_A53_PCT,
    SEED_GAIN_X86_PCT, SEED_PAGE_FRAG_FREE_SELF_PCT, SEED_RAW_SPIN_LOCK_PCT, SEED_SHARES,
    SEED_SKB_RELEASE_DATA_SELF_PCT, X86_ROW,
};
use seed::{repro_row, reproduction, table};

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::calibrate::Calibration;
use crate::experiment::{mark_row, Cost, Experiment, Meaning, Monotone, Point, ViewSpec, WorkEstimate};
use crate::output::{Cell, Column, Reproduction, Row, RunOutput, TextView};
use crate::params::{Choice, ParamError, ParamSpec, Params, Value};
use crate::sim::catalogue::Quantity;
use crate::sim::machine::MachineProfile;
use crate::sim::profile::FlameGraph;
use crate::sim::qspinlock::{LockStats, LOCK_STAT_HEADER};
use crate::sim::world::World as _;
use machines::{machine, ForwardingBox, MachineKind, TxIrq};
use serde::Serialize;
use world::{ForwardConfig, ForwardSim};

/// Events one run handles per packet offered, at most: measured up to 11.8 (the most over 81
/// random valid settings of `core/tests/estimate.rs`, 7.5–8.1 at the router's defaults), with
/// a margin.
const EVENTS_PER_PACKET: u64 = 16;
/// Events per logical CPU per simulated µs that come with no packet (polls, ticks, drains),
/// at most: measured up to 0.1 over the same settings; one event per 8 µs per CPU.
const IDLE_US_PER_EVENT: u64 = 8;
/// Events one run handles per logical CPU (plus two: the NIC's arrivals and drops) per
/// simulated µs when the box is overloaded, at most: measured up to 2.9 (one CPU, 8.6 per µs)
/// and 0.3–2.1 per logical CPU on bigger boxes, with a margin.
const EVENTS_PER_CPU_US: u64 = 6;

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
    /// reads them as given; [`Input::new`] applies the machine's defaults first.
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
        Input::from(&resolve(params))
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

/// The rules the ranges of single parameters cannot say.
pub fn validate(params: &Params) -> Result<(), ParamError> {
    let i = Input::new(params);
    let bad = |name: &str, value: u32, allowed: String| {
        Err(ParamError::BadValue { name: name.into(), value: value.to_string(), allowed })
    };
    if i.cpus % i.sockets != 0 {
        return bad("cpus", i.cpus, format!("a multiple of sockets ({}): the cores split evenly", i.sockets));
    }
    if i.pcp_batch > i.pcp_high {
        return bad(
            "pcp_batch",
            i.pcp_batch,
            format!("at most pcp_high ({}): a drain frees batch pages of a full list", i.pcp_high),
        );
    }
    Ok(())
}

/// The run configuration of `params` with the fix `fix`, on `b` (calibration varies `b`).
pub fn config_on(b: &ForwardingBox, params: &Params, fix: Fix) -> ForwardConfig {
    let i = Input::new(params);
    let sockets = i.sockets.min(i.cpus).max(1);
    let mut machine = b.clone();
    machine.cpu = b.cpu.with_topology(sockets, i.cpus.div_ceil(sockets));
    ForwardConfig {
        machine,
        cores: i.cpus,
        smt: i.smt,
        rx_queues: i.rx_queues,
        tx_irq: i.tx_irq,
        fix: fix == Fix::After,
        offered_pps: i.offered_pps(),
        recycle_pct: i.recycle_pct,
        pcp_batch: i.pcp_batch,
        pcp_high: i.pcp_high,
        zone_pages: ZONE_PAGES,
        warmup_ns: i.warmup_us_run() * 1000,
        measure_ns: i.measure_us * 1000,
    }
}

/// Runs one setting to its end.
pub fn simulate_on(b: &ForwardingBox, params: &Params, fix: Fix, seed: u64) -> ForwardSim {
    let mut sim = ForwardSim::new(config_on(b, params, fix), seed);
    sim.run();
    sim
}

/// What one simulated run gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    pub mpps: f64,
    pub stats: world::ForwardStats,
    pub lock: LockStats,
    pub flame: FlameGraph,
    pub perf_text: String,
    pub zoneinfo: String,
    /// Events handled and whether the event cap stopped the run.
    pub outcome: crate::sim::world::Outcome,
}

/// Shares (in % of all CPU time) the seed reports, from a run's profile.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Shares {
    pub napi_consume_skb: f64,
    pub free_pages_ok: f64,
    pub free_one_page: f64,
    /// free_one_page's own time: holding zone->lock (buddy merges, zone and page lines).
    pub free_one_page_self: f64,
    /// queued_spin_lock_slowpath under napi_consume_skb (the free path).
    pub spin_free: f64,
    /// queued_spin_lock_slowpath anywhere (the free path and rmqueue_bulk).
    pub spin_all: f64,
    /// _raw_spin_lock's own time under the free path (the uncontended acquire and its line).
    pub raw_spin_lock_free: f64,
    pub page_frag_free_self: f64,
    pub skb_release_data_self: f64,
    pub free_pcppages_bulk: f64,
    pub rmqueue_bulk: f64,
}

impl Shares {
    pub fn of(f: &FlameGraph) -> Shares {
        Shares {
            napi_consume_skb: f.share_pct("napi_consume_skb"),
            free_pages_ok: f.share_pct("__free_pages_ok"),
            free_one_page: f.share_pct("free_one_page"),
            free_one_page_self: f.self_pct("free_one_page"),
            spin_free: f.share_under_pct(&["napi_consume_skb"], "queued_spin_lock_slowpath"),
            spin_all: f.share_pct("queued_spin_lock_slowpath"),
            raw_spin_lock_free: (f.share_under_pct(&["napi_consume_skb"], "_raw_spin_lock")
                - f.share_under_pct(&["napi_consume_skb"], "queued_spin_lock_slowpath"))
            .max(0.0),
            page_frag_free_self: f.self_pct("page_frag_free"),
            skb_release_data_self: f.self_pct("skb_release_data"),
            free_pcppages_bulk: f.share_pct("free_pcppages_bulk"),
            rmqueue_bulk: f.share_pct("rmqueue_bulk"),
        }
    }
}

fn summed_lock_stats(sim: &ForwardSim) -> LockStats {
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

/// One setting on `b`, summarized.
pub fn summary_on(b: &ForwardingBox, params: &Params, fix: Fix, seed: u64) -> RunSummary {
    let sim = simulate_on(b, params, fix, seed);
    let mpps = sim.throughput_pps() / 1e6;
    let title = format!("perf report, {}, {} the fix: {mpps:.2} Mpps", b.kind.name(), fix_name(fix));
    let report = sim.profile.report(title.clone());
    let shown: Vec<u16> = sim.busy_cpus().into_iter().take(2).collect();
    RunSummary {
        mpps,
        stats: sim.stats.clone(),
        lock: summed_lock_stats(&sim),
        flame: report.flame(fix_name(fix), title),
        perf_text: report.text,
        zoneinfo: sim.zones.iter().map(|z| z.zoneinfo_pagesets(&shown)).collect(),
        outcome: sim.outcome(),
    }
}

/// Packets offered in the measured window but not forwarded, % (RX ring overflow).
pub fn drop_pct(i: &Input, s: &RunSummary) -> f64 {
    let offered = i.offered_pps() as f64 * (i.measure_us as f64 / 1e6);
    (1.0 - s.stats.forwarded as f64 / offered.max(1.0)).max(0.0) * 100.0
}

fn fix_name(fix: Fix) -> &'static str {
    fix.name()
}

/// Both fixes of one setting, and the gain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pair {
    pub before: RunSummary,
    pub after: RunSummary,
    pub gain_pct: f64,
}

/// The setting of `params` before and after the fix on `b`.
pub fn pair_on(b: &ForwardingBox, params: &Params, seed: u64) -> Pair {
    let before = summary_on(b, params, Fix::Before, seed);
    let after = summary_on(b, params, Fix::After, seed);
    let gain_pct = (after.mpps / before.mpps.max(1e-9) - 1.0) * 100.0;
    Pair { before, after, gain_pct }
}

/// [`pair_on`] on the machine `params` chooses.
pub fn pair(params: &Params, seed: u64) -> Pair {
    pair_on(machine(Input::new(params).machine), params, seed)
}

const COLUMNS: [(&str, &str); 15] = [
    ("mpps", "Mpps"),
    ("gbps", "Gbit/s"),
    ("mpps_before", "Mpps"),
    ("mpps_after", "Mpps"),
    ("gain_pct", "%"),
    ("napi_consume_skb_pct", "%"),
    ("free_pages_ok_pct", "%"),
    ("free_one_page_pct", "%"),
    ("free_one_page_self_pct", "%"),
    ("spin_free_pct", "%"),
    ("spin_pct", "%"),
    ("free_pcppages_bulk_pct", "%"),
    ("rmqueue_bulk_pct", "%"),
    ("zone_lock_per_kpkt", "acquisitions"),
    ("drop_pct", "%"),
];

fn columns() -> Vec<Column> {
    let mut c = vec![Column::new("fix", "")];
    c.extend(COLUMNS.iter().map(|(n, u)| {
        match *n {
            "gain_pct" => Column::new(n, u)
                .signed("after vs before the fix: slightly negative when the allocator does not matter (jitter)"),
            _ => Column::new(n, u),
        }
    }));
    c
}

fn round2(v: f64) -> Cell {
    Cell::Float((v * 100.0).round() / 100.0)
}

/// What the bases of [`meanings`] count.
const FORWARDED: &str = "packets forwarded in the measured window";
const FORWARDED_BOTH: &str = "packets forwarded in the window by each kernel (before and after the fix)";
const OFFERED: &str = "packets offered in the window";
const STEADY: &str = "pages freed per freeing CPU since the start (pcp_high: a per-CPU list's steady state)";
const UNCAPPED: &str = "runs, before and after, that reached the end of their window (a cap of 20,000,000 events)";

/// When each column means something: throughput and shares need packets counted, the
/// before/after columns in both runs, the drop share offered packets; all of them the
/// per-CPU lists in their steady state and runs the event cap did not stop.
fn meanings(i: &Input) -> Vec<Meaning> {
    let n = Meaning::MIN_COUNTED;
    let mut m = vec![Meaning::always("fix", "a parameter")];
    for (name, _) in COLUMNS {
        let what = match name {
            "mpps_before" | "mpps_after" | "gain_pct" => FORWARDED_BOTH,
            "drop_pct" => OFFERED,
            _ => FORWARDED,
        };
        m.push(Meaning::at_least(name, n, what));
        m.push(Meaning::at_least(name, u64::from(i.pcp_high), STEADY));
        m.push(Meaning::at_least(name, 2, UNCAPPED));
    }
    m
}

/// What one pair counted, for [`meanings`].
fn counts(i: &Input, p: &Pair) -> [(&'static str, u64); 5] {
    let chosen = if i.fix == Fix::Before { &p.before } else { &p.after };
    let both = p.before.stats.forwarded.min(p.after.stats.forwarded);
    let offered = (i.offered_pps() as f64 * i.measure_us as f64 / 1e6) as u64;
    // Pages each TX-completing CPU freed since the start: the window's rate over the whole run.
    let freeing_cpus = u64::from(i.rx_queues.min(i.logical_cpus()).max(1));
    let steady = both.saturating_mul(i.warmup_us_run() + i.measure_us) / i.measure_us.max(1) / freeing_cpus;
    let uncapped = [&p.before, &p.after].iter().filter(|r| !r.outcome.truncated).count() as u64;
    [
        (FORWARDED, chosen.stats.forwarded),
        (FORWARDED_BOTH, both),
        (OFFERED, offered),
        (STEADY, steady),
        (UNCAPPED, uncapped),
    ]
}

fn row_of(i: &Input, p: &Pair) -> Row {
    let mut row = row_values(i, p);
    mark_row(&mut row, &columns(), &meanings(i), &counts(i, p));
    row
}

fn row_values(i: &Input, p: &Pair) -> Row {
    let chosen = if i.fix == Fix::Before { &p.before } else { &p.after };
    let s = Shares::of(&chosen.flame);
    let pkts = chosen.stats.forwarded.max(1) as f64;
    let wire_bits = (f64::from(i.packet_bytes) + WIRE_OVERHEAD_BYTES as f64) * 8.0;
    vec![
        Cell::Text(fix_name(i.fix).to_string()),
        Cell::Float((chosen.mpps * 1000.0).round() / 1000.0),
        round2(chosen.mpps * wire_bits / 1000.0),
        Cell::Float((p.before.mpps * 1000.0).round() / 1000.0),
        Cell::Float((p.after.mpps * 1000.0).round() / 1000.0),
        round2(p.gain_pct),
        round2(s.napi_consume_skb),
        round2(s.free_pages_ok),
        round2(s.free_one_page),
        round2(s.free_one_page_self),
        round2(s.spin_free),
        round2(s.spin_all),
        round2(s.free_pcppages_bulk),
        round2(s.rmqueue_bulk),
        round2(chosen.stats.zone_lock_calls() as f64 * 1000.0 / pkts),
        round2(drop_pct(i, chosen)),
    ]
}

impl Experiment for PageFragFree {
    fn id(&self) -> &'static str {
        ID
    }

    fn title(&self) -> &'static str {
        "Freeing pages the cheap way"
    }

    fn summary(&self) -> &'static str {
        "A forwarding box frees every transmitted page at TX completion: under zone->lock before Linux 5.0, through the per-CPU lists after (seed 002)."
    }

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }
    fn input_names(&self) -> Option<&'static [&'static str]> {
        Some(Input::NAMES)
    }

    fn resolve(&self, params: &Params) -> Params {
        resolve(params)
    }

    fn validate(&self, params: &Params) -> Result<(), ParamError> {
        validate(params)
    }

    fn columns(&self, _params: &Params) -> Vec<Column> {
        columns()
    }

    /// One row: the chosen fix's throughput and profile, both fixes' throughput and the gain.
    fn run_point(&self, params: &Params, _point: &Point, seed: u64) -> Row {
        row_of(&Input::new(params), &pair(params, seed))
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

    /// The row, the flame graphs before and after, and the text views (perf report, lock
    /// stats, pagesets) of the chosen fix. Simulates the pair once for all of them.
    fn run(&self, params: &Params, seed: u64) -> RunOutput {
        run_on(machine(Input::new(params).machine), params, seed)
    }

    fn finish(&self, params: &Params, seed: u64, rows: Vec<Row>) -> RunOutput {
        let p = pair(params, seed);
        let mut out = RunOutput::new(ID, seed, columns());
        for row in rows {
            out.push_row(row);
        }
        decorate(&mut out, params, &p);
        out
    }

    fn meanings(&self, params: &Params) -> Vec<Meaning> {
        meanings(&Input::new(params))
    }

    /// `run` simulates two runs (before and after the fix), each capped at
    /// [`world::MAX_EVENTS_PER_RUN`] events. A run handles at most [`EVENTS_PER_PACKET`] events
    /// per packet offered in its warm-up and window plus one per [`IDLE_US_PER_EVENT`] µs per
    /// logical CPU, and, when the box is overloaded, at most [`EVENTS_PER_CPU_US`] per logical
    /// CPU (plus two) per simulated µs; the smaller, under the cap, is the estimate
    /// (`core/tests/estimate.rs` holds it above the events counted). (The page's `run_point` +
    /// `finish` simulate the pair twice.)
    fn estimate(&self, params: &Params) -> WorkEstimate {
        let i = Input::new(params);
        let (window_us, cpus) = (i.warmup_us_run() + i.measure_us, u64::from(i.logical_cpus()));
        let packets = i.offered_pps().saturating_mul(window_us) / 1_000_000;
        let by_load = packets.saturating_mul(EVENTS_PER_PACKET).saturating_add(window_us * cpus / IDLE_US_PER_EVENT);
        let by_cpus = window_us.saturating_mul(cpus + 2).saturating_mul(EVENTS_PER_CPU_US);
        WorkEstimate { points: 1, events: 2 * by_load.min(by_cpus).min(world::MAX_EVENTS_PER_RUN) }
    }

    /// Two simulated runs (the before/after pair, shared by the row and the views: the worker
    /// calls `run` for a one-point run) of a few ms each.
    fn cost(&self, _params: &Params) -> Cost {
        Cost::Heavy
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

    /// The rows this output can show: the seed's shares on the router before the fix, the
    /// gain on the x86 micro-benchmark host or the Cortex-A53 (64 B).
    fn compare(&self, params: &Params, output: &RunOutput) -> Option<Reproduction> {
        let i = Input::new(params);
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

    /// The full table: the router's shares before the fix and both gains, each from its own
    /// machine's default run.
    fn reproduce(&self, seed: u64) -> Option<Reproduction> {
        Some(reproduce(seed))
    }

    fn reproduce_figures_cost(&self) -> Option<Cost> {
        Some(Cost::Heavy)
    }

    /// The router's frames before the fix and both gains ([`reproduce_figures`]).
    fn reproduce_figures(&self, seed: u64) -> Option<Vec<f64>> {
        Some(reproduce_figures(seed))
    }

    /// The full table on the mean over `seeds` of each figure, each cell with its [min, max].
    fn reproduce_from_figures(&self, seeds: &[u64], figures: &[Vec<f64>]) -> Option<Reproduction> {
        if figures.is_empty() || figures.iter().any(|f| f.len() != FIGURES) {
            return None;
        }
        let n = figures.len() as f64;
        let mean: Vec<f64> = (0..FIGURES).map(|k| figures.iter().map(|f| f[k]).sum::<f64>() / n).collect();
        let tables: Vec<Reproduction> = figures.iter().zip(seeds).map(|(f, &s)| table(f, s)).collect();
        Some(table(&mean, seeds.first().copied().unwrap_or(0)).with_spread(&tables, seeds))
    }

    /// The router's one fitted constant (the two other machines fit nothing).
    fn calibration(&self) -> Option<&'static dyn Calibration> {
        Some(&calibrate::ROUTER_CALIBRATION)
    }

    fn tables(&self) -> Vec<TableSpec> {
        validate::tables()
    }

    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck> {
        validate::check_table(table, seeds)
    }

    fn machines(&self) -> Vec<MachineProfile> {
        validate::machines()
    }

    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        validate::uncertain()
    }

    fn run_perturbed(&self, params: &Params, seed: u64, values: &[f64]) -> Option<RunOutput> {
        Some(run_on(&validate::perturbed_box(params, values), params, seed))
    }

    fn monotone(&self) -> Vec<Monotone> {
        validate::monotone()
    }
}

/// A run on `b` (the machine of `params`, possibly with perturbed constants).
pub fn run_on(b: &ForwardingBox, params: &Params, seed: u64) -> RunOutput {
    let p = pair_on(b, params, seed);
    let mut out = RunOutput::new(ID, seed, columns());
    out.push_row(row_of(&Input::new(params), &p));
    decorate(&mut out, params, &p);
    out
}

fn decorate(out: &mut RunOutput, params: &Params, p: &Pair) {
    let i = Input::new(params);
    let chosen = if i.fix == Fix::Before { &p.before } else { &p.after };
    let l = &chosen.lock;
    let lock_stat = format!(
        "{LOCK_STAT_HEADER}\n{:>24}: {:>10} {:>10} {:>12.2} {:>14.2} {:>10} {:>12.2} {:>14.2}\n",
        "&zone->lock (all nodes)",
        l.contentions,
        l.acq_bounces,
        l.wait_ns_max as f64 / 1000.0,
        l.wait_ns_total as f64 / 1000.0,
        l.acquisitions,
        l.hold_ns_max as f64 / 1000.0,
        l.hold_ns_total as f64 / 1000.0,
    );
    let fx = fix_name(i.fix);
    out.views = vec![
        TextView::new("perf", format!("perf report, {fx} the fix: {:.2} Mpps", chosen.mpps), chosen.perf_text.clone()),
        TextView::new(
            "lock_stat",
            format!("/proc/lock_stat, zone->lock, {fx} the fix, whole run with warmup (times in us)"),
            lock_stat,
        ),
        TextView::new(
            "zoneinfo",
            format!("/proc/zoneinfo pagesets (first two busy CPUs), {fx} the fix"),
            chosen.zoneinfo.clone(),
        ),
    ];
    out.flames = vec![p.before.flame.clone(), p.after.flame.clone(), chosen.flame.clone()];
    out.flames[0].title = format!("before the fix: {:.2} Mpps", p.before.mpps);
    out.flames[1].title = format!("after the fix: {:.2} Mpps", p.after.mpps);
    // The chosen kernel's profile again, as the one graph that follows the `fix` knob.
    out.flames[2].id = "current".to_string();
    out.flames[2].title = format!("{fx} the fix: {:.2} Mpps", chosen.mpps);
    out.note_missing(&meanings(&i));
    if let Some(note) = overload_note(&i, chosen) {
        out.notes.push(note);
    }
}

/// Drops above this share of the offered load are said in a note: the box carries a small
/// fraction of what the link offers (a valid setting, but one a reader should not take for a
/// forwarding measurement).
pub const OVERLOAD_DROP_PCT: f64 = 90.0;

/// The note of a run that drops most of its offered load, if it does.
fn overload_note(i: &Input, s: &RunSummary) -> Option<String> {
    let drop = drop_pct(i, s);
    (drop >= OVERLOAD_DROP_PCT && s.stats.forwarded > 0).then(|| {
        format!(
            "drop_pct = {drop:.1} %: the box forwards {:.3} Mpps of the {:.3} Mpps offered (the RX rings overflow; the offered load is far above what it can carry)",
            s.mpps,
            i.offered_pps() as f64 / 1e6
        )
    })
}
