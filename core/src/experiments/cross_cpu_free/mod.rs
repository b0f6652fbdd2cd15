//! `cross-cpu-free`: what a free on the wrong CPU costs in SLUB, and Ian Campbell's split of
//! skb_shared_info into its own cache (seed 001).
//!
//! What Linux does: an skb is an `sk_buff` from `skbuff_head_cache` plus a kmalloc'd head
//! that ends in `skb_shared_info`. Freed on the CPU that allocated it, both objects usually
//! go back to that CPU's active slab (SLUB's lockless fast path); freed on another CPU, each
//! one takes `__slab_free` (a cmpxchg on a `struct page` line the allocating CPU keeps
//! pulling back; since 3.2 a slab it turns from full to partial goes onto the freeing CPU's
//! per-CPU partial list, before 3.2 onto the node's under `list_lock`). Ian's patch (2011) gave the shared info
//! its own cache, a third object per skb: Eric Dumazet answered that a producer/consumer pair
//! on two CPUs would then hit the slow path three times per skb instead of two.
//! `skb_attempt_defer_free()` (68822bdf76f1, v5.19) later sent such frees back to the
//! allocating CPU.
//!
//! The model: the worlds in [`world`] on the SLUB of [`crate::sim::slub`]; the machines in
//! [`profile`], built from the machine catalogue (nothing fitted: seed 001's two numbers are a
//! prediction, [`tables`]). A run simulates a window of `measure_us`, counts the datagrams whose
//! wire time lies in it that the receiver's reader took (iperf's server report; read after a
//! drain if need be, so nothing queued before the window counts and goodput stays under the
//! link) and scales that to iperf's 60 s.
//! docs/cross-cpu-free.md has the mechanisms, constants, sources, error and sensitivity.
//!
//! Files: `mod.rs` (here: parameters, columns, the worlds of a point and its row, the `Model`
//! impl and its capabilities), `views.rs` (the text views and the flame graph), `lanes.rs`
//! (the lane view's short run), `profile.rs` (the 2011 and 100G machine profiles), `tables.rs`
//! (seed 001's table for `skblab validate`, the band quantities, the knob relations),
//! `seed.rs` (seed 001's runs and the comparison), `repro.rs` (`skblab reproduce`: seed 001's
//! rows from four runs per seed and their mean over seeds), and the worlds on `sim::slub`:
//! `world/mod.rs` (constants, config, state, the event loop), `world/setup.rs` (cache sizes,
//! hosts, CPU roles), `world/expected.rs` (the events a run is expected to take),
//! `world/handlers.rs` (one handler per event, skb alloc and free),
//! `world/invariants.rs` (what `make fuzz-sim` checks after every event), `world/chains.rs` (the
//! call chains every CPU's time is charged to, for `sim::profile`) and `world/report.rs` (perf
//! reports and flame graphs per CPU, lane events, `RunResult`).

mod lanes;
pub mod profile;
mod repro;
pub use repro::reproduce_on;
pub mod seed;
pub mod tables;
mod views;
pub mod world;

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::experiment::{Cost, Experiment as _, Monotone, Point, ViewData, ViewQuery, ViewSpec, WorkEstimate};
use crate::model::{cost_of, Calibrated, CustomViews, Model, Runner, SeedTables, WithBaseline};
use crate::output::{mark_row, round, Cell, Column, Meaning, ReproCell, ReproRow, Reproduction, Row, RunOutput};
use crate::params::ParamSpec;
use crate::sim::catalogue::Quantity;
use crate::sim::machine::MachineProfile;
use crate::sources;
pub use lanes::{lanes, Lanes, LANES_MEASURE_US, LANES_WARMUP_US};
use profile::{HostProfile, SERVER_100G, XEN_GUEST_2011};
use serde::Serialize;
pub use world::{Config, Consumer, Input, LaneEvent, RunResult, Sim, Stack, Workload, MAX_EVENTS};

pub const ID: &str = "cross-cpu-free";

/// Most dispatcher readers.
pub const MAX_CONSUMERS: i64 = 15;

/// The registry entry.
pub struct CrossCpuFree;

impl Input {
    /// Every parameter at its default.
    pub fn defaults() -> Input {
        Input::from(&crate::params::Params::new(ID, specs()))
    }

    /// The world's configuration on `profile`.
    pub fn config(&self, profile: HostProfile, lanes: bool) -> Config {
        let tcp = self.workload == Workload::Tcp100g;
        let input = Input {
            consumer: if tcp { Consumer::Other } else { self.consumer },
            consumers: if self.consumer == Consumer::Dispatcher && !tcp { self.consumers } else { 1 },
            shinfo_split: self.shinfo_split && !tcp,
            rfs: self.rfs && tcp,
            reader_work_ns: if tcp { 0 } else { self.reader_work_ns },
            ..*self
        };
        Config { input, profile: if tcp { SERVER_100G } else { profile }, lanes }
    }
}

/// What one configuration gives, in the units of the result table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Datagrams (udp) or frames (tcp) the receiver's reader(s) took, scaled to 60 s: iperf's
    /// server report, which for a run without loss is the client's "Sent" count.
    pub datagrams: f64,
    /// Goodput at the receiver in Mbit/s (payload read), as iperf's server report.
    pub mbps: f64,
    pub slowpath_frees_per_skb: f64,
    /// Sender: SLUB slow-path frees per datagram sent (netfront's interrupt on another vCPU
    /// frees the client's skbs there).
    pub tx_slowpath_frees_per_skb: f64,
    pub lost_pct: f64,
    pub slowpath_frees_per_ms: f64,
    pub list_lock_per_ms: f64,
    pub list_lock_contended_pct: f64,
    /// Busy share of the allocating (IRQ) CPU and of the busiest freeing CPU.
    pub alloc_cpu_busy_pct: f64,
    pub free_cpu_busy_pct: f64,
    /// Of the receiver's free work (SLUB slow path, lock spin, defer), the share done on the
    /// allocating CPU.
    pub free_work_on_alloc_cpu_pct: f64,
}

/// Scales a window's count to iperf's 60 s.
fn per_60s(count: u64, measure_ns: u64) -> f64 {
    count as f64 * (seed::SEED_SECONDS as f64 * 1e9) / measure_ns.max(1) as f64
}

/// The summary of a run result.
pub fn summarize(r: &RunResult) -> Summary {
    let ms = r.measure_ns as f64 / 1e6;
    let datagrams = per_60s(r.received, r.measure_ns);
    let mbps = r.bytes_read as f64 * 8.0 / (r.measure_ns.max(1) as f64 / 1e9) / 1e6;
    let tx_slow: u64 = r.tx_slub.iter().map(|s| s.free_slowpath).sum();
    let busy = |c: usize| r.rx_time.busy(c) as f64 / r.measure_ns as f64 * 100.0;
    let n = r.rx_time.cpus.len();
    let free_cpu = (1..n).map(busy).fold(0.0, f64::max);
    let free_total: u64 = (0..n).map(|c| r.rx_time.free_side(c)).sum();
    Summary {
        datagrams,
        mbps,
        slowpath_frees_per_skb: r.rx_free_slowpath as f64 / r.rx_skbs_freed.max(1) as f64,
        tx_slowpath_frees_per_skb: tx_slow as f64 / r.sent.max(1) as f64,
        lost_pct: if r.workload == Workload::Tcp100g {
            0.0
        } else {
            r.dropped as f64 / (r.received + r.dropped).max(1) as f64 * 100.0
        },
        slowpath_frees_per_ms: r.rx_free_slowpath as f64 / ms,
        list_lock_per_ms: r.list_lock_acquisitions as f64 / ms,
        list_lock_contended_pct: r.list_lock_contentions as f64 / r.list_lock_acquisitions.max(1) as f64 * 100.0,
        alloc_cpu_busy_pct: busy(0).min(100.0),
        free_cpu_busy_pct: free_cpu.min(100.0),
        free_work_on_alloc_cpu_pct: r.rx_time.free_side(0) as f64 / free_total.max(1) as f64 * 100.0,
    }
}

/// The run of `input` on `profile` (`lanes`: with its lane events) and its summary.
pub fn run_input(input: &Input, profile: HostProfile, seed: u64, lanes: bool) -> (Config, RunResult, Summary) {
    let cfg = input.config(profile, lanes);
    let r = Sim::new(cfg.clone(), seed).run(&mut Runner::plain(), "");
    let s = summarize(&r);
    (cfg, r, s)
}

/// The baseline a run's `change_pct` compares with: udp without the split, tcp without
/// deferral; `None` if the run is its own baseline.
pub fn baseline(input: &Input) -> Option<Input> {
    match input.workload {
        Workload::UdpIperf if input.shinfo_split => Some(Input { shinfo_split: false, ..*input }),
        Workload::Tcp100g if input.defer_free => Some(Input { defer_free: false, ..*input }),
        _ => None,
    }
}

/// What a point's worlds leave: the run and, for a split or deferral run, its baseline.
pub type Runs = WithBaseline<RunResult>;

/// The run of `input` on `profile` and its baseline, through `runner`.
pub fn runs_on(input: &Input, profile: HostProfile, seed: u64, runner: &mut Runner) -> Runs {
    Runs::of(input, baseline(input), |what, i| Sim::new(i.config(profile, false), seed).run(runner, what))
}

impl Runs {
    /// Datagrams (udp) or Mbit/s (tcp) against the baseline, in % (0 without one).
    fn change_pct(&self) -> f64 {
        let Some(base) = &self.base else { return 0.0 };
        let (s, bs) = (summarize(&self.run), summarize(base));
        let (x, y) = match self.run.workload {
            Workload::UdpIperf => (s.datagrams, bs.datagrams),
            Workload::Tcp100g => (s.mbps, bs.mbps),
        };
        (x - y) / y.max(1e-9) * 100.0
    }
}

fn columns() -> Vec<Column> {
    let c = Column::new;
    vec![
        c("datagrams", "datagrams in 60 s"),
        c("mbps", "Mbit/s"),
        c("slowpath_frees_per_skb", "frees/skb"),
        c("tx_slowpath_frees_per_skb", "frees/skb"),
        c("change_pct", "%").signed("the run against its baseline: negative when the split or deferral loses"),
        c("lost_pct", "%"),
        c("slowpath_frees_per_ms", "frees/ms"),
        c("list_lock_per_ms", "locks/ms"),
        c("list_lock_contended_pct", "%"),
        c("alloc_cpu_busy_pct", "%"),
        c("free_cpu_busy_pct", "%"),
        c("free_work_on_alloc_cpu_pct", "%"),
    ]
}

/// What the bases of [`meanings`] count.
const RECEIVED: &str = "datagrams or frames received in the measured window";
const RECEIVED_BOTH: &str = "datagrams or frames received in the measured window by this run and its baseline";
const OFFERED: &str = "datagrams offered (received or dropped) in the measured window";
const SENT: &str = "skbs sent in the measured window";
const FREED: &str = "receiver skbs freed in the measured window";
const UNCAPPED: &str = "runs (this one and its baseline) that reached the end of their window (event cap: MAX_EVENTS)";

/// When each column means something: rates, shares and per-skb figures need what they are
/// over counted in the window; counts per ms and busy shares are measured in simulated time.
fn meanings() -> Vec<Meaning> {
    let n = Meaning::MIN_COUNTED;
    let mut m = vec![
        Meaning::at_least("datagrams", n, RECEIVED),
        Meaning::at_least("mbps", n, RECEIVED),
        Meaning::at_least("slowpath_frees_per_skb", n, FREED),
        Meaning::at_least("tx_slowpath_frees_per_skb", n, SENT),
        Meaning::at_least("change_pct", n, RECEIVED_BOTH),
        Meaning::at_least("lost_pct", n, OFFERED),
        Meaning::always("slowpath_frees_per_ms", "a count over the simulated window"),
        Meaning::always("list_lock_per_ms", "a count over the simulated window"),
        // 0 without any acquisition reads right: no acquisition waited.
        Meaning::always(
            "list_lock_contended_pct",
            "a share of list_lock acquisitions: 0 when none waited or none was taken",
        ),
        Meaning::always("alloc_cpu_busy_pct", "a share of the window's simulated CPU time"),
        Meaning::always("free_cpu_busy_pct", "a share of the window's simulated CPU time"),
        Meaning::at_least("free_work_on_alloc_cpu_pct", 1, FREED),
    ];
    for c in columns() {
        let name: &'static str = m.iter().find(|x| x.column == c.name).map(|x| x.column).expect("every column");
        m.push(Meaning::at_least(name, 2, UNCAPPED));
    }
    m
}

/// The row of `w`, marked where its runs counted too few ([`meanings`]).
fn measured_row(w: &Runs) -> Row {
    let r = &w.run;
    let (both, uncapped) = (w.both(|x| x.received), w.uncapped(|x| x.capped));
    let offered = if r.workload == Workload::Tcp100g { r.received } else { r.received + r.dropped };
    let counts = [
        (RECEIVED, r.received),
        (RECEIVED_BOTH, both),
        (OFFERED, offered),
        (SENT, r.sent),
        (FREED, r.rx_skbs_freed),
        (UNCAPPED, uncapped),
    ];
    let mut row = row(&summarize(r), w.change_pct());
    mark_row(&mut row, &columns(), &meanings(), &counts);
    row
}

fn row(s: &Summary, change: f64) -> Row {
    vec![
        Cell::Int(s.datagrams.round() as i64),
        Cell::Float(round(s.mbps, 1)),
        Cell::Float(round(s.slowpath_frees_per_skb, 2)),
        Cell::Float(round(s.tx_slowpath_frees_per_skb, 2)),
        Cell::Float(round(change, 2)),
        Cell::Float(round(s.lost_pct, 2)),
        Cell::Float(round(s.slowpath_frees_per_ms, 1)),
        Cell::Float(round(s.list_lock_per_ms, 2)),
        Cell::Float(round(s.list_lock_contended_pct, 1)),
        Cell::Float(round(s.alloc_cpu_busy_pct, 1)),
        Cell::Float(round(s.free_cpu_busy_pct, 1)),
        Cell::Float(round(s.free_work_on_alloc_cpu_pct, 1)),
    ]
}

/// The seed's two figures of a 64-byte run beside the simulated ones.
fn seed_row(label: &str, datagrams: f64, mbps: f64, seed: (u64, f64)) -> ReproRow {
    ReproRow {
        label: label.to_string(),
        cells: vec![
            ReproCell { metric: "datagrams", measured: seed.0 as f64, simulated: datagrams, spread: None },
            ReproCell { metric: "mbps", measured: seed.1, simulated: mbps, spread: None },
        ],
    }
}

/// The expected events of the run of `input` (`lanes`: with its lane events, the same run).
fn run_events(input: &Input) -> u64 {
    world::expected_events(&input.config(XEN_GUEST_2011, false))
}

/// The time a tcp-100g event takes, in udp-iperf events' (the worlds
/// [`CrossCpuFree::EVENTS_PER_S`] was measured on): a GRO skb of 16 frames takes and frees
/// its pages through the pcp lists and the buddy allocator, where a datagram has two slab
/// objects. Measured at the deferral table's settings, one core, release build: without
/// deferral 5.2 and 6.9 udp events' time per expected event, with deferral 3.5 and 4.1 (two
/// runs of `cargo test --release -p skblab-core --features cli --test estimate -- --ignored
/// --nocapture --test-threads 1 world_speeds`).
pub const TCP_EVENT_WORK: u64 = 5;

impl Model for CrossCpuFree {
    type Input = Input;
    type Worlds = Runs;
    const ID: &'static str = ID;
    const TITLE: &'static str = "Freeing on the wrong CPU";
    const SUMMARY: &'static str = "SLUB's fast and slow free paths, Ian Campbell's separate shinfo cache and Eric Dumazet's objection, on UDP iperf between two 2011 hosts (Xen guests assumed) and a 100 Gbit/s TCP flow (seed 001).";
    /// Measured at the defaults, seed after seed (8,437,774 events in 1.01 s of CPU, release build):
    /// `cargo test --release -p skblab-core --features cli --test estimate -- --ignored --nocapture --test-threads 1 world_speeds`.
    const EVENTS_PER_S: f64 = 8.4e6;

    fn specs(&self) -> Vec<ParamSpec> {
        specs()
    }

    fn columns(&self, _input: &Input) -> Vec<Column> {
        columns()
    }

    fn worlds(&self, input: &Input, _point: &Point, seed: u64, runner: &mut Runner) -> Runs {
        runs_on(input, XEN_GUEST_2011, seed, runner)
    }

    fn row(&self, _input: &Input, _point: &Point, worlds: Runs) -> Row {
        measured_row(&worlds)
    }

    /// The run and, for a split or deferral run, its baseline ([`world::expected_events`]).
    fn events(&self, input: &Input, _point: &Point) -> u64 {
        run_events(input) + baseline(input).map_or(0, |b| run_events(&b))
    }

    /// `finish` runs the configuration again with its lane events for the views.
    fn finish_events(&self, input: &Input) -> u64 {
        run_events(input)
    }

    /// tcp-100g's events are heavier than the udp ones the speed is of ([`TCP_EVENT_WORK`]).
    fn extra_work(&self, input: &Input) -> u64 {
        if input.workload != Workload::Tcp100g {
            return 0;
        }
        let events = Model::events(self, input, &Point { index: 0, x: 0 }) + Model::finish_events(self, input);
        events.saturating_mul(TCP_EVENT_WORK - 1)
    }

    fn meanings(&self, _input: &Input) -> Vec<Meaning> {
        meanings()
    }

    fn views(&self) -> Vec<ViewSpec> {
        vec![
            ViewSpec::Custom { id: "lanes" },
            ViewSpec::Text { id: "counters", texts: &["counters"] },
            ViewSpec::Compare { id: "table" },
            ViewSpec::Text { id: "iperf", texts: &["iperf"] },
            ViewSpec::Text { id: "profile", texts: &["profile"] },
            ViewSpec::Flame { id: "flame", flames: &["flame"] },
            ViewSpec::Table { id: "results" },
        ]
    }

    fn finish(&self, input: &Input, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, columns());
        for r in rows {
            out.push_row(r);
        }
        let (_, r, s) = run_input(input, XEN_GUEST_2011, seed, true);
        let (texts, flame) = views::of(input, &r, &s);
        out.views = texts;
        out.flames = vec![flame];
        out.note_missing(&meanings());
        out
    }

    /// Kept from before the expected events (which put the default split run, about 150,000
    /// events, on the worker): short windows with few readers stay on the page's main thread.
    fn cost(&self, i: &Input) -> Cost {
        let readers = if i.consumer == Consumer::Dispatcher { i.consumers } else { 1 };
        if i.measure_us + i.warmup_us <= 30_000 && readers <= 4 {
            Cost::Light
        } else {
            Cost::Heavy
        }
    }

    fn monotone(&self) -> Vec<Monotone> {
        tables::monotone()
    }

    crate::model::capabilities!(seed_tables, calibrated, custom_views);
}

impl SeedTables<CrossCpuFree> for CrossCpuFree {
    fn compare(&self, i: &Input, output: &RunOutput) -> Option<Reproduction> {
        if i.workload != Workload::UdpIperf || i.consumer == Consumer::Dispatcher || i.datagram_bytes != 64 {
            return None;
        }
        let d = output.metric("datagrams", None)?;
        let m = output.metric("mbps", None)?;
        let row = if i.shinfo_split {
            seed_row("64 B after", d, m, (seed::AFTER_DATAGRAMS, seed::AFTER_MBPS))
        } else {
            seed_row("64 B before", d, m, (seed::BEFORE_DATAGRAMS, seed::BEFORE_MBPS))
        };
        Some(Reproduction {
            experiment: ID,
            citation: sources::SEED_001,
            key_name: "run",
            rows: vec![row],
            notes: vec![format!(
                "simulated {} ms and scaled to iperf's 60 s, counted at the receiver; Xen guests on Westmere assumed, nothing fitted (a prediction)",
                i.measure_us / 1000
            )],
        })
    }

    fn tables(&self) -> Vec<TableSpec> {
        tables::tables()
    }

    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck> {
        tables::check_table(table, seeds)
    }

    fn reproduce(&self, seed: u64) -> Option<Reproduction> {
        Some(reproduce_on(XEN_GUEST_2011, seed))
    }

    /// 64- and 1200-byte datagrams, each before and after the split ([`repro::figures_on`]).
    fn figures_events(&self) -> Option<u64> {
        let base = Input::defaults();
        let run = |bytes: u32, split: bool| run_events(&Input { datagram_bytes: bytes, shinfo_split: split, ..base });
        Some(run(64, false) + run(64, true) + run(1200, false) + run(1200, true))
    }

    /// The deferral table runs tcp-100g without and with deferral, a run per seed each.
    fn check_work(&self, table: &str, seeds: u64) -> Option<WorkEstimate> {
        let run = |defer| self.estimate(&tables::defer_params(defer));
        (table == tables::DEFER_TABLE).then(|| run(false).plus(run(true)).times(seeds))
    }

    /// Datagrams and Mbit/s of the four runs ([`repro::figures_on`]).
    fn figures(&self, seed: u64) -> Option<Vec<f64>> {
        Some(repro::figures_on(XEN_GUEST_2011, seed))
    }

    fn mean_of_figures(&self, seeds: &[u64], figures: &[Vec<f64>]) -> Option<Reproduction> {
        repro::mean_of(XEN_GUEST_2011, seeds, figures)
    }
}

impl Calibrated<CrossCpuFree> for CrossCpuFree {
    fn machines(&self) -> Vec<MachineProfile> {
        vec![XEN_GUEST_2011.machine(2), SERVER_100G.machine(2)]
    }

    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        tables::uncertain()
    }

    fn run_perturbed(&self, input: &Input, seed: u64, values: &[f64]) -> Option<RunOutput> {
        let runs = runs_on(input, tables::perturbed(values)?, seed, &mut Runner::plain());
        let mut out = RunOutput::new(ID, seed, columns());
        out.push_row(row(&summarize(&runs.run), runs.change_pct()));
        Some(out)
    }
}

impl CustomViews<CrossCpuFree> for CrossCpuFree {
    /// "lanes": the lane view's [`Lanes`] of a short window of the same configuration.
    fn view_data(&self, input: &Input, seed: u64, query: &ViewQuery) -> Option<ViewData> {
        (query.name == "lanes").then(|| ViewData::new(lanes(input, seed)))
    }

    /// The lanes' window is short whatever the page's windows: a few ms natively.
    fn view_cost(&self, input: &Input, _query: &ViewQuery) -> Cost {
        cost_of(run_events(&lanes::input(input)))
    }
}

/// The parameter spec.
pub fn specs() -> Vec<ParamSpec> {
    vec![
        ParamSpec::choice_of("workload", Workload::UdpIperf)
            .help("udp-iperf: seed 001, iperf -u between two 2011 hosts (Xen guests: our assumption); tcp-100g: one TCP flow into a 100 Gbit/s NIC, the driver allocating on CPU A, the TCP receive (with RFS) and recvmsg on CPU B, page recycling failing (68822bdf76f1's test).")
            .kernel("iperf -u / netperf TCP_STREAM"),
        ParamSpec::choice_of("consumer", Consumer::Other)
            .help("Where the iperf server runs: same CPU as the NIC's interrupts, another CPU, or a dispatcher CPU feeding `consumers` readers (one client each). udp-iperf only.")
            .kernel("taskset / smp_affinity"),
        ParamSpec::int("consumers", "readers", 4, (1, MAX_CONSUMERS, 1))
            .help("Readers (and clients) when consumer = dispatcher: one IRQ CPU feeds them all.")
            .kernel("iperf -s on N CPUs"),
        ParamSpec::boolean("shinfo_split", false)
            .help("Ian Campbell's 2011 patch: skb_shared_info from its own cache, a third object per skb (udp-iperf only).")
            .kernel("skb paged fragment destructors, 2011"),
        ParamSpec::int("datagram_bytes", "bytes", 64, (16, 1472, 1))
            .help("UDP payload per datagram (iperf -l); 1472 fills a 1500-byte frame.")
            .kernel("iperf -l"),
        ParamSpec::boolean("defer_free", false)
            .help("skb_attempt_defer_free() (68822bdf76f1, v5.19; TCP receive only in 5.19, the model applies it to udp-iperf too): the reading CPU hands the skb back to the CPU that allocated it, which frees it in its next net_rx_action.")
            .kernel("skb_attempt_defer_free(); sysctl net.core.skb_defer_max (0 = off, default 64)"),
        ParamSpec::boolean("cpu_partial", true)
            .help("SLUB's per-CPU partial slabs (49e2258586b4, Linux 3.2, in the kernels of both workloads): a free that turns a full slab partial puts it on the freeing CPU's own list without list_lock; the lock is taken when that list overflows or a CPU refills from the node. false: SLUB as before 3.2, every such move under list_lock.")
            .kernel("CONFIG_SLUB_CPU_PARTIAL"),
        ParamSpec::boolean("rfs", true)
            .help("tcp-100g only. Receive Flow Steering, on in 68822bdf76f1's test: CPU A's net_rx_action steers each GRO skb to the backlog of CPU B, where the reader last ran recvmsg, and B runs the TCP receive (tcp_v4_rcv, the ACK, the reader's wakeup). false: RSS alone, the TCP receive on A and a cross-CPU wakeup of B.")
            .kernel("RFS: net.core.rps_sock_flow_entries + rx-N/rps_flow_cnt"),
        ParamSpec::int("reader_work_ns", "ns", 0, (0, 100_000, 500))
            .help("Application work per datagram in each reader (0 = iperf, which only counts). Slow readers let skbs pile up in the socket, so the IRQ CPU's slabs run dry and refill from the node's partial list under list_lock (Eric's IRQ-dispatcher workloads).")
            .kernel(""),
        ParamSpec::int("warmup_us", "us", 5000, (0, 10_000, 100))
            .help("Simulated time before measuring (slabs and queues reach steady state).")
            .kernel(""),
        ParamSpec::int("measure_us", "us", 20_000, (1000, 100_000, 1000))
            .help("Simulated time measured, scaled to iperf's 60 s. Work per run is bounded by this window and a cap of 2,000,000 events.")
            .kernel("iperf -t"),
    ]
}
