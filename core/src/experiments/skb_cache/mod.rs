//! `skb-cache`: one cached skb per socket for rx and tx, tcp_rr from 8 to 9 Mpps (seed 004),
//! the RPS exception, and the memory bill that made the caches opt-in (and later removed).
//!
//! What Linux did: in v5.2 Eric Dumazet kept the last consumed rx skb in the socket so the
//! next softirq frees it on the CPU that allocated it (8b27dae5a2e8), and the last acked tx
//! skb so the next sendmsg reuses it (472c2e07eef0). In June 2019 both became sysctls,
//! default off (`tcp_rx_skb_cache`, `tcp_tx_skb_cache`): millions of idle sockets each
//! pinning an skb cost too much memory. 5.16 removed them (d8b81175e412); deferred freeing on
//! the allocating CPU replaced them (f35f821935d8, 68822bdf76f1).
//!
//! The model: [`world`] runs tcp_rr on every CPU of the server with SLUB per node
//! ([`crate::sim::slub`], per-CPU partial slabs on); [`profile`] holds the constants, every
//! one from the catalogue or a marked workload assumption: seed 004 is a prediction
//! ([`validate`]: its table, bands and knob relations). A run simulates at most
//! [`world::MAX_SIM_FLOWS`] flows, each standing for `flows / simulated` sockets in the
//! capacity cache model, over a window of `measure_us`; Mpps is measured on the whole machine.
//! docs/skb-cache.md has the mechanisms, constants, sources, error and sensitivity.
//!
//! Files: `mod.rs` (here: parameters, columns, the `Experiment` impl and the views),
//! `specs.rs` (the parameter specs), `profile.rs` (the constants), `validate.rs` (the seed table, bands and knob relations),
//! `seed.rs` (the patch's figures and the comparison), `repro.rs` (`skblab reproduce`: the seed's numbers from the caches-off and -on runs of each seed, and their mean), and the tcp_rr world on per-node `sim::slub`: `world/mod.rs`
//! (constants, config, state, the event loop), `world/setup.rs` (head and frag sizes, nodes,
//! flows), `world/handlers.rs` (a CPU's softirq and thread work, the link),
//! `world/invariants.rs` (what `make fuzz-sim` checks after every event), `world/skb.rs` (an
//! skb's alloc and free and the lines it pulls), `world/chains.rs` (the call chains CPU time
//! is charged to, for `sim::profile`) and `world/report.rs` (the perf report and flame graph,
//! lanes, `RunResult`).

pub mod profile;
mod repro;
pub use repro::{reproduce_on, seed_pair};
pub mod seed;
mod specs;
pub use specs::specs;
pub mod validate;
pub mod world;

use crate::experiment::{
    mark_row, ChartSpec, Cost, Experiment, Meaning, Point, ViewData, ViewQuery, ViewSpec, WorkEstimate,
};
use crate::output::{Cell, Column, ReproCell, ReproRow, Reproduction, Row, RunOutput, TextView};
use crate::params::{ParamError, ParamSpec, Params};
use crate::sim::profile::{FlameGraph, SPIN_SYMBOL};
use profile::{RrProfile, SERVER_2019_RR};
use serde::Serialize;
use std::fmt::Write as _;
pub use world::{Config, RunResult, Stack};

pub const ID: &str = "skb-cache";

/// Socket counts of the memory chart.
pub const SOCKET_POINTS: [i64; 7] = [1_000, 10_000, 100_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000];

/// Kernel memory of one established, idle TCP socket without parked skbs. ASSUMPTION: the
/// slab objects of a 5.2 x86_64 kernel (TCP ≈ 2.2 KB, sock_inode_cache 640, filp 256, dentry
/// 192, eventpoll epitem + pwq ≈ 200).
pub const SOCKET_BYTES: u64 = 3_500;

/// The registry entry.
pub struct SkbCache;

crate::params_input! {
    /// Every parameter of a run, typed.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    pub struct Input {
        pub flows: u32,
        pub threads: u32,
        pub tcp_rx_skb_cache: bool,
        pub tcp_tx_skb_cache: bool,
        pub rps: bool,
        pub rx_queues: u32,
        pub request_bytes: u32,
        pub response_bytes: u32,
        pub sockets: u32,
        pub cpus: u32,
        pub smt: bool,
        pub warmup_us: u64,
        pub measure_us: u64,
    }
}

impl Input {
    /// The world's configuration on `profile`.
    pub fn config(&self, profile: RrProfile) -> Config {
        Config {
            profile,
            sockets: self.sockets,
            cores: self.cpus,
            smt: self.smt,
            flows: self.flows,
            threads: self.threads,
            rx_cache: self.tcp_rx_skb_cache,
            tx_cache: self.tcp_tx_skb_cache,
            rps: self.rps,
            rx_queues: self.rx_queues,
            request_bytes: self.request_bytes,
            response_bytes: self.response_bytes,
            warmup_ns: self.warmup_us * 1000,
            measure_ns: self.measure_us * 1000,
            steady_slub: true,
        }
    }

    /// Bytes both caches (as set) pin per socket.
    pub fn cache_bytes(&self) -> u64 {
        let rx =
            if self.tcp_rx_skb_cache { world::parked_bytes(true, self.request_bytes, self.response_bytes) } else { 0 };
        let tx =
            if self.tcp_tx_skb_cache { world::parked_bytes(false, self.request_bytes, self.response_bytes) } else { 0 };
        rx + tx
    }

    /// Bytes both caches pin per socket when both are on.
    pub fn both_cache_bytes(&self) -> u64 {
        Input { tcp_rx_skb_cache: true, tcp_tx_skb_cache: true, ..*self }.cache_bytes()
    }
}

/// What one configuration gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// skbs per second, rx + tx, in millions (a request and a response per transaction).
    pub mpps: f64,
    pub slowpath_frees_per_request: f64,
    pub freed_on_alloc_cpu_pct: f64,
    /// Share of all CPU time spent spinning on list_lock / zone->lock.
    pub spin_pct: f64,
    /// ns per transaction in the SLUB slow path and spinning.
    pub slab_ns_per_request: f64,
    /// ns per transaction of socket/skb/page cache-line transfers.
    pub line_ns_per_request: f64,
    pub busy_pct: f64,
    pub latency_us: f64,
}

/// The summary of a run.
pub fn summarize(r: &RunResult) -> Summary {
    let secs = r.measure_ns as f64 / 1e9;
    let tr = r.requests.max(1) as f64;
    let spin = r.profile.leaf_ns(SPIN_SYMBOL) as f64;
    Summary {
        mpps: (r.requests + r.responses) as f64 / secs / 1e6,
        slowpath_frees_per_request: r.slub.free_slowpath as f64 / tr,
        freed_on_alloc_cpu_pct: r.freed_on_alloc_cpu as f64 / r.skbs_freed.max(1) as f64 * 100.0,
        spin_pct: spin / r.busy_ns.max(1) as f64 * 100.0,
        slab_ns_per_request: r.profile.ns_of(&Stack::SLOW_AND_SPIN) as f64 / tr,
        line_ns_per_request: r.line_ns as f64 / tr,
        busy_pct: r.busy_ns as f64 / (r.measure_ns as f64 * f64::from(r.n_cpus)) * 100.0,
        latency_us: r.mean_latency_ns / 1000.0,
    }
}

/// A run of `input` on `profile`.
pub fn run_input(input: &Input, profile: RrProfile, seed: u64) -> (RunResult, Summary) {
    let r = world::simulate(&input.config(profile), seed);
    let s = summarize(&r);
    (r, s)
}

/// The same configuration with both caches off (the gain's baseline), if this one has one on.
pub fn baseline(input: &Input) -> Option<Input> {
    (input.tcp_rx_skb_cache || input.tcp_tx_skb_cache).then_some(Input {
        tcp_rx_skb_cache: false,
        tcp_tx_skb_cache: false,
        ..*input
    })
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

fn columns() -> Vec<Column> {
    let c = Column::new;
    vec![
        c("mpps", "Mpps"),
        c("gain_pct", "%")
            .signed("Mpps against the caches-off run: negative when the caches lose (e.g. link-bound noise)"),
        c("slowpath_frees_per_request", "frees/request"),
        c("freed_on_alloc_cpu_pct", "%"),
        c("spin_pct", "%"),
        c("slab_ns_per_request", "ns"),
        c("line_ns_per_request", "ns"),
        c("busy_pct", "%"),
        c("latency_us", "µs"),
        c("cache_bytes_per_socket", "bytes"),
        c("sockets", "sockets"),
        c("mem_off_gib", "GiB"),
        c("mem_on_gib", "GiB"),
    ]
}

fn gib(bytes: f64) -> f64 {
    round(bytes / (1u64 << 30) as f64, 3)
}

/// Memory of `sockets` idle sockets without and with both caches, GiB.
pub fn memory_gib(input: &Input, sockets: u64) -> (f64, f64) {
    let off = sockets as f64 * SOCKET_BYTES as f64;
    (gib(off), gib(off + sockets as f64 * input.both_cache_bytes() as f64))
}

/// The simulated row.
fn sim_row(input: &Input, s: &Summary, gain: f64) -> Row {
    let blank = || Cell::Text(String::new());
    vec![
        Cell::Float(round(s.mpps, 3)),
        Cell::Float(round(gain, 2)),
        Cell::Float(round(s.slowpath_frees_per_request, 3)),
        Cell::Float(round(s.freed_on_alloc_cpu_pct, 1)),
        Cell::Float(round(s.spin_pct, 2)),
        Cell::Float(round(s.slab_ns_per_request, 1)),
        Cell::Float(round(s.line_ns_per_request, 1)),
        Cell::Float(round(s.busy_pct, 1)),
        Cell::Float(round(s.latency_us, 1)),
        Cell::Int(input.cache_bytes() as i64),
        blank(),
        blank(),
        blank(),
    ]
}

fn memory_row(input: &Input, sockets: i64) -> Row {
    let blank = || Cell::Text(String::new());
    let (off, on) = memory_gib(input, sockets as u64);
    let mut row: Row = (0..9).map(|_| blank()).collect();
    row.extend([Cell::Int(input.both_cache_bytes() as i64), Cell::Int(sockets), Cell::Float(off), Cell::Float(on)]);
    row
}

/// What the bases of [`meanings`] count.
const REQUESTS: &str = "requests completed in the measured window";
const REQUESTS_BOTH: &str = "requests completed in the measured window by this run and its caches-off baseline";
const FREED: &str = "skbs freed in the measured window";
const UNCAPPED: &str = "runs (this one and its caches-off baseline) that reached the end of their window (event cap)";

/// When each column means something: every per-request figure, rate and share of busy time
/// needs requests counted in the window (the gain in both runs), the same-CPU share skbs
/// freed; the busy share is a share of simulated time, the memory columns arithmetic.
fn meanings() -> Vec<Meaning> {
    let n = Meaning::MIN_COUNTED;
    let mut m = Vec::new();
    for col in
        ["mpps", "slowpath_frees_per_request", "spin_pct", "slab_ns_per_request", "line_ns_per_request", "latency_us"]
    {
        m.push(Meaning::at_least(col, n, REQUESTS));
        m.push(Meaning::at_least(col, 2, UNCAPPED));
    }
    m.push(Meaning::at_least("gain_pct", n, REQUESTS_BOTH));
    m.push(Meaning::at_least("gain_pct", 2, UNCAPPED));
    m.push(Meaning::at_least("freed_on_alloc_cpu_pct", n, FREED));
    m.push(Meaning::at_least("freed_on_alloc_cpu_pct", 2, UNCAPPED));
    m.push(Meaning::always("busy_pct", "a share of the window's simulated CPU time"));
    for col in ["cache_bytes_per_socket", "sockets", "mem_off_gib", "mem_on_gib"] {
        m.push(Meaning::always(col, "arithmetic on the parameters"));
    }
    m
}

/// The simulated row of `input`, marked where its runs counted too few ([`meanings`]).
fn measured_row(input: &Input, seed: u64) -> Row {
    let (r, s) = run_input(input, SERVER_2019_RR, seed);
    let base = baseline(input).map(|b| run_input(&b, SERVER_2019_RR, seed));
    // The same arithmetic as gain_pct, on the baseline run kept for its counts.
    let gain = base.as_ref().map_or(0.0, |(_, bs)| (s.mpps / bs.mpps.max(1e-9) - 1.0) * 100.0);
    let both = base.as_ref().map_or(r.requests, |(br, _)| r.requests.min(br.requests));
    let uncapped = [Some(&r), base.as_ref().map(|(br, _)| br)].iter().flatten().filter(|x| !x.capped).count() as u64
        + u64::from(base.is_none());
    let mut row = sim_row(input, &s, gain);
    let counts = [(REQUESTS, r.requests), (REQUESTS_BOTH, both), (FREED, r.skbs_freed), (UNCAPPED, uncapped)];
    mark_row(&mut row, &columns(), &meanings(), &counts);
    row
}

/// Gain in Mpps of `s` over the caches-off run of the same configuration, in %.
pub fn gain_pct(input: &Input, s: &Summary, profile: RrProfile, seed: u64) -> f64 {
    let Some(b) = baseline(input) else { return 0.0 };
    let (_, bs) = run_input(&b, profile, seed);
    (s.mpps / bs.mpps.max(1e-9) - 1.0) * 100.0
}

/// The title of a run's profile: the configuration and its Mpps.
fn profile_title(input: &Input, r: &RunResult, s: &Summary) -> String {
    format!(
        "tcp_rr, {} flows ({} simulated), {} threads, {} CPUs; rx cache {}, tx cache {}, rps {}: {:.2} Mpps",
        input.flows,
        r.sim_flows,
        input.threads,
        r.n_cpus,
        on_off(input.tcp_rx_skb_cache),
        on_off(input.tcp_tx_skb_cache),
        on_off(input.rps),
        s.mpps
    )
}

/// The run's flame graph (all CPUs, id `flame`).
pub fn flame(input: &Input, r: &RunResult, s: &Summary) -> FlameGraph {
    let title = profile_title(input, r, s);
    r.profile.report(title.clone()).flame("flame", title)
}

/// Where the CPU time goes over the whole machine: a perf report of every CPU's time, then
/// the per-request figures and SLUB's counters.
pub fn profile_text(input: &Input, r: &RunResult, s: &Summary) -> String {
    let mut out = format!("all CPUs {:.1} % busy; the report is in % of busy time\n\n", s.busy_pct);
    out.push_str(&r.profile.report(profile_title(input, r, s)).text);
    let tr = r.requests.max(1) as f64;
    if r.requests < Meaning::MIN_COUNTED {
        let _ = writeln!(
            out,
            "\nper request: not shown: {} requests completed in the window (a per-request cost needs {})",
            r.requests,
            Meaning::MIN_COUNTED
        );
    } else {
        let _ = writeln!(
            out,
            "\nper request: {:.2} slab frees on the slow path,\n  {:.0} ns in the slow path and spinning,\n  {:.0} ns of line transfers",
            s.slowpath_frees_per_request, s.slab_ns_per_request, s.line_ns_per_request
        );
    }
    let _ = writeln!(
        out,
        "SLUB in the window: {} fast frees, {} slow frees,\n  {} list_lock ({} contended), zone->lock contended {},\n  tx skbs reused {}",
        r.slub.free_fastpath,
        r.slub.free_slowpath,
        r.list_lock,
        r.list_lock_contended,
        r.zone_lock_contended,
        r.tx_reused
    );
    let slab_spin = r.profile.ns_of(&[Stack::SlabAllocSpin, Stack::SlabFreeSpin]) as f64;
    let _ = writeln!(
        out,
        "lock_stat, &n->list_lock: {} contentions, {:.1} us waited; {:.3} % of busy time\n  in queued_spin_lock_slowpath under ___slab_alloc / __slab_free",
        r.list_lock_contended,
        r.slub.list_lock_wait_ns as f64 / 1e3,
        slab_spin / r.busy_ns.max(1) as f64 * 100.0
    );
    let frags = world::rx_frags(input.request_bytes);
    if frags > 0 {
        let _ = writeln!(out, "each request skb carries {frags} page frags: {frags} page frees per request");
    }
    let _ = writeln!(
        out,
        "\n(simulated {:.1} ms after {:.1} ms warm-up; {} events{}; {:.0} transactions/s/flow)",
        r.measure_ns as f64 / 1e6,
        r.warmup_ns as f64 / 1e6,
        r.events,
        if r.capped { ", STOPPED AT THE EVENT CAP" } else { "" },
        tr / (r.measure_ns as f64 / 1e9) / f64::from(r.sim_flows.max(1))
    );
    out
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// Where sampled skbs were allocated and freed, as lanes (narrow: fits a phone).
pub fn lanes_text(r: &RunResult) -> String {
    let mut out = String::from("sampled skbs after the warm-up:\nCPU that allocated -> CPU that freed\n\n");
    let _ = writeln!(out, "{:<6} {:<3} {:>11}  {:<19} SLUB free", "flow", "skb", "CPUs", "freed by");
    for l in &r.lanes {
        let cpus = match l.free_cpu {
            Some(c) => format!("{:>3} -> {:<3}", l.alloc_cpu, c),
            None => format!("{:>3} -> -  ", l.alloc_cpu),
        };
        let same = match l.free_cpu {
            Some(c) if c == l.alloc_cpu => "same CPU",
            Some(_) => "other CPU",
            None => "",
        };
        let path = if l.path.is_empty() { "-" } else { l.path };
        let _ = writeln!(
            out,
            "{:<6} {:<3} {:>11}  {:<19} {path}, {same}",
            l.flow,
            if l.rx { "rx" } else { "tx" },
            cpus,
            l.where_freed
        );
    }
    out
}

impl Experiment for SkbCache {
    fn id(&self) -> &'static str {
        ID
    }

    fn title(&self) -> &'static str {
        "One cached skb per socket"
    }

    fn summary(&self) -> &'static str {
        "tcp_rr on a 112-thread server: rx skbs allocated on the IRQ CPU and freed on the application CPU, the per-socket rx/tx skb caches of v5.2 (8 to 9 Mpps), RPS, and the memory the caches pin (seed 004)."
    }

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }
    fn input_names(&self) -> Option<&'static [&'static str]> {
        Some(Input::NAMES)
    }

    fn validate(&self, params: &Params) -> Result<(), ParamError> {
        let i = Input::from(params);
        let cpus = i.sockets * i.cpus * if i.smt { 2 } else { 1 };
        if i.threads > 4 * cpus {
            return Err(ParamError::Invalid {
                message: format!("threads = {} is more than 4 per logical CPU (at most {} here)", i.threads, 4 * cpus),
            });
        }
        Ok(())
    }

    fn columns(&self, _params: &Params) -> Vec<Column> {
        columns()
    }

    fn points(&self, _params: &Params) -> Vec<Point> {
        std::iter::once(0).chain(SOCKET_POINTS).enumerate().map(|(k, x)| Point { index: k as u32, x }).collect()
    }

    fn run_point(&self, params: &Params, point: &Point, seed: u64) -> Row {
        let input = Input::from(params);
        if point.index == 0 {
            measured_row(&input, seed)
        } else {
            memory_row(&input, point.x)
        }
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

    fn finish(&self, params: &Params, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, columns());
        for r in rows {
            out.push_row(r);
        }
        let input = Input::from(params);
        let (r, s) = run_input(&input, SERVER_2019_RR, seed);
        out.views = vec![
            TextView::new("lanes", "where each skb is allocated and freed (CPU lanes)", lanes_text(&r)),
            TextView::new("profile", "where the time goes (perf-style, all CPUs)", profile_text(&input, &r, &s)),
        ];
        out.flames = vec![flame(&input, &r, &s)];
        out.note_missing(&meanings());
        if r.rx_alloc_failed > 0 {
            out.notes.push(format!(
                "the driver dropped {} requests because the zone had no free page or slab for their skb",
                r.rx_alloc_failed
            ));
        }
        if r.tx_alloc_failed > 0 {
            out.notes.push(format!(
                "{} responses were not sent because the zone had no free slab for their skb",
                r.tx_alloc_failed
            ));
        }
        out
    }

    fn meanings(&self, _params: &Params) -> Vec<Meaning> {
        meanings()
    }

    /// The simulated row runs the server once, twice with a cache on (its baseline), and
    /// `finish` once more for the views: each run at most [`world::MAX_EVENTS`] events.
    fn estimate(&self, params: &Params) -> WorkEstimate {
        let runs = if baseline(&Input::from(params)).is_some() { 3 } else { 2 };
        WorkEstimate { points: self.points(params).len() as u64, events: runs * world::MAX_EVENTS }
    }

    /// The simulated row runs the server twice (with the caches and without): tens of ms
    /// natively, more in wasm, so heavy; the memory rows are arithmetic.
    fn cost(&self, _params: &Params) -> Cost {
        Cost::Heavy
    }

    fn point_cost(&self, _params: &Params, point: &Point) -> Cost {
        if point.index == 0 {
            Cost::Heavy
        } else {
            Cost::Light
        }
    }

    /// "lanes": the CPU-lane diagram's [`LaneDiagram`] (two short runs).
    fn view_data(&self, params: &Params, seed: u64, query: &ViewQuery) -> Option<ViewData> {
        (query.name == "lanes").then(|| ViewData::new(lane_diagram(params, seed)))
    }

    /// The lane diagram's two runs are short whatever the page's windows (about 3.5 ms
    /// natively at the defaults): the page draws them at once, without waiting for the sweep.
    fn view_cost(&self, _params: &Params, _query: &ViewQuery) -> Cost {
        Cost::Light
    }

    fn views(&self) -> Vec<ViewSpec> {
        vec![
            ViewSpec::Compare { id: "seed" },
            ViewSpec::Custom { id: "lanes" },
            ViewSpec::Text { id: "profile", texts: &["profile"] },
            ViewSpec::Flame { id: "flame", flames: &["flame"] },
            ViewSpec::Chart {
                id: "memory",
                chart: ChartSpec {
                    title: "kernel memory of idle TCP sockets",
                    x: "sockets",
                    ys: &[("mem_off_gib", "caches off"), ("mem_on_gib", "both caches on")],
                    y_label: "GiB",
                    y_divisor: 1.0,
                    x_label: "sockets",
                    seed_overlay: false,
                },
            },
            ViewSpec::Table { id: "results" },
        ]
    }

    fn compare(&self, params: &Params, output: &RunOutput) -> Option<Reproduction> {
        let i = Input::from(params);
        let d = Input::from(&self.defaults());
        let same = Input {
            tcp_rx_skb_cache: d.tcp_rx_skb_cache,
            tcp_tx_skb_cache: d.tcp_tx_skb_cache,
            warmup_us: d.warmup_us,
            measure_us: d.measure_us,
            ..i
        } == d;
        if !same || i.tcp_rx_skb_cache != i.tcp_tx_skb_cache {
            return None;
        }
        let mpps = output.metric("mpps", None)?;
        let (label, seed) = if i.tcp_rx_skb_cache { (ON_LABEL, seed::ON_MPPS) } else { (OFF_LABEL, seed::OFF_MPPS) };
        Some(Reproduction {
            experiment: ID,
            citation: seed::TCP_RX_SKB_CACHE,
            key_name: "run",
            rows: vec![ReproRow {
                label: label.into(),
                cells: vec![ReproCell { metric: "mpps", measured: seed, simulated: round(mpps, 3), spread: None }],
            }],
            notes: vec![format!("machine: {}", SERVER_2019_RR.name)],
        })
    }

    fn reproduce(&self, seed: u64) -> Option<Reproduction> {
        Some(reproduce_on(SERVER_2019_RR, seed))
    }

    fn reproduce_figures_cost(&self) -> Option<Cost> {
        Some(Cost::Heavy)
    }

    /// Mpps with the caches off and on.
    fn reproduce_figures(&self, seed: u64) -> Option<Vec<f64>> {
        let (off, on) = seed_pair(SERVER_2019_RR, seed);
        Some(vec![off, on])
    }

    fn reproduce_from_figures(&self, seeds: &[u64], figures: &[Vec<f64>]) -> Option<Reproduction> {
        repro::mean_of(SERVER_2019_RR, seeds, figures)
    }

    /// Seed 004's table: two numbers, nothing fitted to them (a prediction).
    fn tables(&self) -> Vec<crate::calibrate::tables::TableSpec> {
        validate::tables()
    }

    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<crate::calibrate::tables::TableCheck> {
        (table == validate::TABLE).then(|| validate::check(seeds))
    }

    fn machines(&self) -> Vec<crate::sim::machine::MachineProfile> {
        self.machine_profiles()
    }

    fn uncertain(&self) -> Vec<(&'static str, crate::sim::catalogue::Quantity)> {
        validate::uncertain()
    }

    fn run_perturbed(&self, params: &Params, seed: u64, values: &[f64]) -> Option<RunOutput> {
        Some(validate::run_perturbed(params, seed, values))
    }

    fn monotone(&self) -> Vec<crate::experiment::Monotone> {
        validate::monotone()
    }
}

/// Row labels of `skblab reproduce skb-cache`.
pub const OFF_LABEL: &str = "tcp_rr 10000 flows 112 threads caches off";
pub const ON_LABEL: &str = "tcp_rr 10000 flows 112 threads caches on";

/// Flows of the short runs behind the lane diagram: at most this many (one per thread is
/// enough to place flow 0 where the full run places it).
pub const LANE_FLOWS: u32 = 64;

/// Flow 0's first skbs under one setting of the caches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneSet {
    pub rx_cache: bool,
    pub tx_cache: bool,
    /// The CPU that takes flow 0's interrupts (RSS) and the CPU of its thread.
    pub irq_cpu: Option<crate::sim::machine::CpuId>,
    pub app_cpu: Option<crate::sim::machine::CpuId>,
    /// Allocations and frees in time order of allocation (rx and tx interleaved).
    pub lanes: Vec<world::Lane>,
}

/// The data of the CPU-lane diagram: flow 0's skbs with both caches off and both on, the
/// page's other parameters kept (RPS included).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaneDiagram {
    pub rps: bool,
    /// Flows and window of the short runs (the caption says so).
    pub flows: u32,
    pub measure_us: u64,
    pub off: LaneSet,
    pub on: LaneSet,
}

/// Two short runs of `params` (at most [`LANE_FLOWS`] flows, 0.5 ms warm-up, 0.3 ms window)
/// with the caches off and on: where flow 0's skbs are allocated and freed. Light (a few ms
/// natively), so the page draws it on the main thread.
pub fn lane_diagram(params: &Params, seed: u64) -> LaneDiagram {
    let base = Input::from(params);
    let small = Input { flows: base.flows.min(LANE_FLOWS), warmup_us: 500, measure_us: 300, ..base };
    let set = |on: bool| {
        let input = Input { tcp_rx_skb_cache: on, tcp_tx_skb_cache: on, ..small };
        let (r, _) = run_input(&input, SERVER_2019_RR, seed);
        let lanes: Vec<world::Lane> = r.lanes.into_iter().filter(|l| l.flow == 0).collect();
        LaneSet {
            rx_cache: on,
            tx_cache: on,
            irq_cpu: lanes.iter().find(|l| l.rx).map(|l| l.alloc_cpu),
            app_cpu: Some(world::app_cpu(0, input.threads, input.config(SERVER_2019_RR).n_cpus())),
            lanes,
        }
    };
    LaneDiagram { rps: base.rps, flows: small.flows, measure_us: small.measure_us, off: set(false), on: set(true) }
}
