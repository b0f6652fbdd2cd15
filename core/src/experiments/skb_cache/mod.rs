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
//! Files: `mod.rs` (here: parameters, columns, the worlds of a point and its row, the `Model`
//! impl and its capabilities), `specs.rs` (the parameter specs), `views.rs` (the text views
//! and the flame graph), `lanes.rs` (the lane diagram's two short runs), `profile.rs` (the
//! constants), `validate.rs` (the seed table, bands and knob relations), `seed.rs` (the
//! patch's figures and the comparison), `repro.rs` (`skblab reproduce`: the seed's numbers
//! from the caches-off and -on runs of each seed, and their mean), and the tcp_rr world on
//! per-node `sim::slub`: `world/mod.rs` (constants, config, state, the event loop),
//! `world/setup.rs` (head and frag sizes, nodes, flows), `world/expected.rs` (the events a run
//! is expected to take), `world/handlers.rs` (a CPU's softirq and thread work, the link),
//! `world/invariants.rs` (what `make fuzz-sim` checks after every event), `world/skb.rs` (an
//! skb's alloc and free and the lines it pulls), `world/chains.rs` (the call chains CPU time
//! is charged to, for `sim::profile`), `world/wait.rs` (threads asleep in epoll_wait, their
//! wakeups, CPUs' idle periods and exits) and `world/report.rs` (the perf report and flame
//! graph, lanes, `RunResult`).

mod lanes;
pub mod profile;
mod repro;
pub use repro::{reproduce_on, seed_inputs, seed_pair};
pub mod seed;
mod specs;
pub use specs::specs;
pub mod validate;
mod views;
pub mod world;

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::experiment::{ChartSpec, Cost, Monotone, Point, ViewData, ViewQuery, ViewSpec};
use crate::model::{cost_of, Calibrated, CustomViews, Model, Runner, SeedTables, WithBaseline};
use crate::output::{mark_row, round, Cell, Column, Meaning, ReproCell, ReproRow, Reproduction, Row, RunOutput};
use crate::params::{ParamError, ParamSpec};
use crate::sim::catalogue::Quantity;
use crate::sim::machine::MachineProfile;
use crate::sim::profile::SPIN_SYMBOL;
pub use lanes::{lane_diagram, LaneDiagram, LaneSet, LANE_FLOWS};
pub use profile::{Allocator, RxHead, TxHead};
use profile::{RrProfile, SERVER_2019_RR};
use serde::Serialize;
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
        pub allocator: Allocator,
        pub rx_head: RxHead,
        pub tx_head: TxHead,
        pub warmup_us: u64,
        pub measure_us: u64,
    }
}

impl Input {
    /// Every parameter at its default.
    pub fn defaults() -> Input {
        Input::from(&crate::params::Params::new(ID, specs()))
    }

    /// The world's configuration on `profile`.
    pub fn config(&self, profile: RrProfile) -> Config {
        Config {
            profile: RrProfile { allocator: self.allocator, rx_head: self.rx_head, tx_head: self.tx_head, ..profile },
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
        // A share of the window's CPU time: at most 100 %. An operation is charged whole when
        // it starts inside the window, so on saturated CPUs the last ones run past its end and
        // the sum can exceed the window by a few of them (0.1-0.2 %); that excess is not busy
        // time of the window.
        busy_pct: (r.busy_ns as f64 / (r.measure_ns as f64 * f64::from(r.n_cpus)) * 100.0).min(100.0),
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

/// What the simulated row's worlds leave: the run and, with a cache on, its caches-off
/// baseline.
pub type Runs = WithBaseline<RunResult>;

/// The run of `input` on `profile` and its baseline, through `runner`.
pub fn runs_on(input: &Input, profile: RrProfile, seed: u64, runner: &mut Runner) -> Runs {
    Runs::of(input, baseline(input), |what, i| world::Sim::new(i.config(profile), seed).run(runner, what))
}

impl Runs {
    /// Mpps against the caches-off baseline, in % (0 without one).
    fn gain_pct(&self) -> f64 {
        let Some(base) = &self.base else { return 0.0 };
        (summarize(&self.run).mpps / summarize(base).mpps.max(1e-9) - 1.0) * 100.0
    }
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

/// The simulated row of `w`, marked where its runs counted too few ([`meanings`]).
fn measured_row(input: &Input, w: &Runs) -> Row {
    let r = &w.run;
    let (both, uncapped) = (w.both(|x| x.requests), w.uncapped(|x| x.capped));
    let mut row = sim_row(input, &summarize(r), w.gain_pct());
    let counts = [(REQUESTS, r.requests), (REQUESTS_BOTH, both), (FREED, r.skbs_freed), (UNCAPPED, uncapped)];
    mark_row(&mut row, &columns(), &meanings(), &counts);
    row
}

/// The expected events of the run of `input` ([`world::expected_events`]).
fn run_events(input: &Input) -> u64 {
    world::expected_events(&input.config(SERVER_2019_RR))
}

impl Model for SkbCache {
    type Input = Input;
    /// The simulated row's runs (point 0); the memory rows run nothing.
    type Worlds = Option<Runs>;
    const ID: &'static str = ID;
    const TITLE: &'static str = "One cached skb per socket";
    const SUMMARY: &'static str = "tcp_rr on a 112-thread server: rx skbs allocated on the IRQ CPU and freed on the application CPU, the per-socket rx/tx skb caches of v5.2 (8 to 9 Mpps), RPS, and the memory the caches pin (seed 004).";
    /// Measured at the defaults, whole runs seed after seed, every world's events counted
    /// (1,832,228 events in 1.00 s of CPU, release build, on a loaded host where
    /// cross-cpu-free measured 6.3 M of its 8.4 M and high-order-alloc 5.6 M of its 6.0 M):
    /// `cargo test --release -p skblab-core --features cli --test estimate -- --ignored --nocapture --test-threads 1 world_speeds`.
    const EVENTS_PER_S: f64 = 2.2e6;

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }

    fn validate(&self, i: &Input) -> Result<(), ParamError> {
        let cpus = i.sockets * i.cpus * if i.smt { 2 } else { 1 };
        if i.threads > 4 * cpus {
            return Err(ParamError::Invalid {
                message: format!("threads = {} is more than 4 per logical CPU (at most {} here)", i.threads, 4 * cpus),
            });
        }
        if i.tx_head == TxHead::Linear && i.tcp_tx_skb_cache {
            return Err(ParamError::Invalid {
                message: "tx_head = linear is the kernel before 472c2e07eef0, which brought tcp_tx_skb_cache: set tcp_tx_skb_cache = false or tx_head = frag".into(),
            });
        }
        Ok(())
    }

    fn columns(&self, _input: &Input) -> Vec<Column> {
        columns()
    }

    /// The simulated row, then one memory row per socket count of [`SOCKET_POINTS`].
    fn points(&self, _input: &Input) -> Vec<Point> {
        std::iter::once(0).chain(SOCKET_POINTS).enumerate().map(|(k, x)| Point { index: k as u32, x }).collect()
    }

    fn worlds(&self, input: &Input, point: &Point, seed: u64, runner: &mut Runner) -> Option<Runs> {
        (point.index == 0).then(|| runs_on(input, SERVER_2019_RR, seed, runner))
    }

    fn row(&self, input: &Input, point: &Point, worlds: Option<Runs>) -> Row {
        match worlds {
            Some(w) => measured_row(input, &w),
            None => memory_row(input, point.x),
        }
    }

    /// The simulated row's run and baseline ([`world::expected_events`]); the memory rows
    /// are arithmetic.
    fn events(&self, input: &Input, point: &Point) -> u64 {
        if point.index != 0 {
            return 0;
        }
        run_events(input) + baseline(input).map_or(0, |b| run_events(&b))
    }

    /// `finish` runs the configuration again for the views.
    fn finish_events(&self, input: &Input) -> u64 {
        run_events(input)
    }

    /// Kept from before the expected events: this world's events cost about three times the
    /// engine's average (a default run, about 100,000 events, takes some 40 ms natively), and
    /// the derived rule would put the simulated row of the "fewer flows per thread" step
    /// (90,000 events) on the page's main thread. The memory rows are arithmetic.
    fn point_cost(&self, _input: &Input, point: &Point) -> Cost {
        if point.index == 0 {
            Cost::Heavy
        } else {
            Cost::Light
        }
    }

    fn meanings(&self, _input: &Input) -> Vec<Meaning> {
        meanings()
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

    fn finish(&self, input: &Input, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, columns());
        for r in rows {
            out.push_row(r);
        }
        let (r, s) = run_input(input, SERVER_2019_RR, seed);
        let (texts, flame) = views::of(input, &r, &s);
        out.views = texts;
        out.flames = vec![flame];
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

    fn monotone(&self) -> Vec<Monotone> {
        validate::monotone()
    }

    crate::model::capabilities!(seed_tables, calibrated, custom_views);
}

impl SeedTables<SkbCache> for SkbCache {
    /// The seed's row at its configuration (either cache setting, both caches alike). Without
    /// the caches either tx layout is compared: the reproduction runs the seed's baseline
    /// kernel (`tx_head = linear`, [`repro::seed_inputs`]), the lesson's default run 5.2 with
    /// the sysctls off (`frag`).
    fn compare(&self, i: &Input, output: &RunOutput) -> Option<Reproduction> {
        let off = !i.tcp_rx_skb_cache && !i.tcp_tx_skb_cache;
        let tx_head = if off { TxHead::Linear } else { i.tx_head };
        let d = Input::defaults();
        let same =
            repro::seed_inputs().contains(&Input { warmup_us: d.warmup_us, measure_us: d.measure_us, tx_head, ..*i });
        if !same {
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

    /// Seed 004's table: two numbers, nothing fitted to them (a prediction).
    fn tables(&self) -> Vec<TableSpec> {
        validate::tables()
    }

    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck> {
        (table == validate::TABLE).then(|| validate::check(seeds))
    }

    fn reproduce(&self, seed: u64) -> Option<Reproduction> {
        Some(reproduce_on(SERVER_2019_RR, seed))
    }

    /// The defaults with the caches off, then on ([`repro::seed_pair`]).
    fn figures_events(&self) -> Option<u64> {
        Some(repro::seed_inputs().iter().map(run_events).sum())
    }

    /// Mpps with the caches off and on, and the spin share without them.
    fn figures(&self, seed: u64) -> Option<Vec<f64>> {
        Some(repro::seed_figures(SERVER_2019_RR, seed).to_vec())
    }

    fn mean_of_figures(&self, seeds: &[u64], figures: &[Vec<f64>]) -> Option<Reproduction> {
        repro::mean_of(SERVER_2019_RR, seeds, figures)
    }
}

impl Calibrated<SkbCache> for SkbCache {
    /// The server at the default topology.
    fn machines(&self) -> Vec<MachineProfile> {
        let d = Input::defaults();
        vec![SERVER_2019_RR.machine(d.sockets, d.cpus, d.smt)]
    }

    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        validate::uncertain()
    }

    /// The simulated row only (Mpps and gain) on the perturbed server.
    fn run_perturbed(&self, input: &Input, seed: u64, values: &[f64]) -> Option<RunOutput> {
        let runs = runs_on(input, validate::perturbed(values), seed, &mut Runner::plain());
        let mut out = RunOutput::new(ID, seed, columns());
        out.push_row(sim_row(input, &summarize(&runs.run), runs.gain_pct()));
        Some(out)
    }
}

impl CustomViews<SkbCache> for SkbCache {
    /// "lanes": the CPU-lane diagram's [`LaneDiagram`] (two short runs).
    fn view_data(&self, input: &Input, seed: u64, query: &ViewQuery) -> Option<ViewData> {
        (query.name == "lanes").then(|| ViewData::new(lane_diagram(input, seed)))
    }

    /// The lane diagram's two short runs.
    fn view_cost(&self, input: &Input, _query: &ViewQuery) -> Cost {
        cost_of([false, true].iter().map(|&on| run_events(&lanes::lane_input(input, on))).sum())
    }
}

/// Row labels of `skblab reproduce skb-cache`.
pub const OFF_LABEL: &str = "tcp_rr 10000 flows 112 threads caches off";
pub const ON_LABEL: &str = "tcp_rr 10000 flows 112 threads caches on";
