//! The fit loop of `skblab calibrate high-order-alloc --machine FILE`: the model held against
//! a real machine. From a measurement file ([`super::file`]) it builds the machine's profile
//! from the catalogue (the family the file names, else the one its CPU maps to: `zen5-guest`,
//! `milan-guest`, `genoa-guest`, `emr-guest` for this project's 2-vCPU guests; [`family_for`]), predicts every cell the experiments can simulate for it from the catalogue alone,
//! then fits [`FIT`] — one constant, inside its sourced range — on one part of the measurement
//! (the 64 KiB stream cells: both orders, every flow count measured, at least
//! [`MIN_FIT_CELLS`] of them, the fitting budget of one constant per three independent numbers)
//! and predicts the rest again.
//!
//! What is predicted: `stream` (the TCP_STREAM world of high-order-alloc on one socket of
//! `machine.cpus` cores, the measured per-CPU list `high`/`batch` when the state suite has
//! them, order-3 vs order-0 from the cell's sysctl, with waiting: a wakeup of a task on
//! another, idle CPU costs the IPI and that CPU's exit from idle, from the family's
//! `ipi_send_ns` (the file's own when its sched suite has the wake cells: [`kernel_for`]),
//! `wake_latency_ns` and `idle_exit_ns`; how a cell becomes a run is `stream.rs`), `idle` (the CPUs' idle share of
//! that world's run of the cell the state suite's `perf record -a` repeats, 1 flow of 64 KiB
//! at order 3, beside the share of the recorded samples in the idle task), `layout` (skb-layout's 6.x preset) and
//! `rr` (loopback ping-pong, [`super::rr`]: the same per-segment costs, the wakeup from
//! `sim::sched`; after the fit with the fitted `tcp_skb_cycles`, no run of its own).
//! What is not, and why, is [`MachineReport::not_predicted`]: UDP (cross-cpu-free models two
//! hosts over a wire, not loopback inside one guest), the sched suite (the source of the
//! guests' wake latency and of a file's own waker-side cost, not a prediction) and the state texts (kept for reading, no model
//! number). Each point, its error and verdict: `compare.rs`.
//!
//! The work is a list of simulator runs done one per [`MachineFit::step`], so the page can run
//! it in slices with progress; [`fit`] runs them all.

pub use super::compare::{error_pct, Fitted, MachinePoint, MachineReport, MEASURED_ZERO};
use super::compare::{layout_points, not_predicted, point, rr_points, RR_MAX_CPUS};
use super::file::{Cell, Measurement};
pub use super::profile::{family_for, kernel_for, measured_ipi_send_ns, profile};
use super::stream::{flows_of, is_idle_run, simulate, stream_params, StreamRun};
pub use super::stream::{measured_idle_pct, IDLE_CELL, SEED};
use crate::experiments::high_order_alloc::{expected_events_per_run, MAX_CPUS};
use crate::output::count;
use crate::params::Choice as _;
use crate::sim::catalogue::{self, FamilyId, KernelCosts, Quantity, ZEN5_GUEST_2026};
use crate::{Experiment, Params, WorkEstimate};

/// The commands that measure a machine and compare it, as the "Your machine" page shows and
/// copies them.
pub const COMMANDS: &str = "git clone <this repository> skblab && cd skblab\n\
# every suite, about 6 minutes on a quiet machine (root: one sysctl is switched and restored)\n\
cargo run --release -q -p skblab-core --features cli --bin skblab -- measure all --out my-machine.json\n\
# see first what it would run, touching nothing\n\
cargo run --release -q -p skblab-core --features cli --bin skblab -- measure all --dry-run\n\
# the same comparison in the terminal\n\
cargo run --release -q -p skblab-core --features cli --bin skblab -- calibrate high-order-alloc --machine my-machine.json";

/// The constant fitted, with its catalogue entry (`ZEN5_GUEST_2026.tcp_skb_cycles`): the TCP
/// work per segment has no published figure for this family (the catalogue carries seed 000's
/// fit on Skylake-SP), and at 64 KiB sends it is most of a segment's cost, so the 64 KiB cells
/// pin it.
pub const FIT: (&str, Quantity) = ("tcp_skb_cycles", ZEN5_GUEST_2026.tcp_skb_cycles);
/// The cells the fit may see (`used_for_fit`): 64 KiB sends, any flow count, both orders, a
/// measured median above zero ([`MEASURED_ZERO`]: a zero says nothing about the constant).
pub fn used_for_fit(c: &Cell) -> bool {
    c.get("msg_bytes") == Some(65536.0) && c.median >= MEASURED_ZERO
}
/// The fitting budget: one constant needs at least three independent measured numbers; with
/// fewer 64 KiB cells nothing is fitted and every prediction stays the catalogue's.
pub const MIN_FIT_CELLS: usize = 3;
/// Golden-section steps of the fit (the bracket shrinks 0.618× per step).
pub const FIT_STEPS: usize = 14;

/// A fit in progress: the runs still to do, done one per [`MachineFit::step`].
pub struct MachineFit {
    pub(super) m: Measurement,
    /// The catalogue family the file is predicted with ([`family_for`]).
    pub(super) family: FamilyId,
    /// Its 6.x kernel costs, with the file's own `ipi_send_ns` if it has one ([`kernel_for`]).
    kernel: KernelCosts,
    params: Params,
    pub(super) cells: Vec<Cell>,
    /// Per stream cell: Mbit/s and the idle share, from the catalogue and after the fit.
    pub(super) catalogue: Vec<StreamRun>,
    pub(super) fitted: Vec<StreamRun>,
    /// Golden-section bracket in ln(value), and the two inner points' objective.
    bracket: (f64, f64),
    inner: [Option<f64>; 2],
    fit_step: usize,
    best: f64,
    done: usize,
    notes: Vec<String>,
}

const PHI: f64 = 0.618_033_988_749_895;

/// Seconds of one core natively for a fit's `work`: high-order-alloc's runs at its own speed
/// ([`Experiment::native_seconds`]), the CLI's and the page's one conversion.
pub fn native_seconds_of(work: &WorkEstimate) -> f64 {
    crate::experiments::high_order_alloc::HighOrderAlloc.native_seconds(work)
}

impl MachineFit {
    /// Checks that the file has something to predict and sets up the runs.
    pub fn new(m: &Measurement) -> Result<MachineFit, String> {
        let cells: Vec<Cell> = m.cells("stream").to_vec();
        let mut notes = Vec::new();
        let family = family_for(m, &mut notes)?;
        let kernel = kernel_for(m, family, &mut notes);
        let params = stream_params(m, &mut notes)?;
        if m.machine.cpus > RR_MAX_CPUS {
            notes.push(format!(
                "the machine has {} CPUs, more than the model simulates (high-order-alloc at most {MAX_CPUS}, the rr cells at most {RR_MAX_CPUS}): its stream cells are predicted on {} cores and its rr cells on {RR_MAX_CPUS}, one socket of {} (`{}`)",
                m.machine.cpus,
                m.machine.cpus.min(MAX_CPUS),
                catalogue::family(family).name,
                family.name()
            ));
        }
        let (lo, hi) = (FIT.1.min.ln(), FIT.1.max.ln());
        Ok(MachineFit {
            m: m.clone(),
            family,
            kernel,
            params,
            cells,
            catalogue: Vec::new(),
            fitted: Vec::new(),
            bracket: (lo, hi),
            inner: [None, None],
            fit_step: 0,
            best: FIT.1.value,
            done: 0,
            notes,
        })
    }

    /// Simulator runs in all (progress is [`MachineFit::done`] of this).
    pub fn total(&self) -> usize {
        let fit_runs = if self.fitting() { (FIT_STEPS + 1) * self.fit_cells() } else { 0 };
        2 * self.cells.len() + fit_runs
    }
    fn fit_cells(&self) -> usize {
        self.cells.iter().filter(|c| used_for_fit(c)).count()
    }
    /// Whether the fit runs: enough 64 KiB cells for the budget ([`MIN_FIT_CELLS`]).
    pub(super) fn fitting(&self) -> bool {
        self.fit_cells() >= MIN_FIT_CELLS
    }
    pub fn done(&self) -> usize {
        self.done
    }
    /// The cores every run simulates: the file's CPUs, at most high-order-alloc's [`MAX_CPUS`].
    pub fn simulated_cpus(&self) -> u32 {
        self.m.machine.cpus.clamp(1, MAX_CPUS)
    }
    /// The expected work of all [`MachineFit::total`] runs, as high-order-alloc estimates its
    /// own (`expected_events_per_run` of each cell's flows on the simulated cores: only as
    /// many threads run at once as there are cores): the CLI's estimate before the first run
    /// and the page's before the first runs are timed.
    pub fn estimate(&self) -> WorkEstimate {
        let run = |c: &Cell| expected_events_per_run(&self.params, flows_of(c));
        let all: u64 = self.cells.iter().map(run).sum();
        let fit: u64 = if self.fitting() { self.cells.iter().filter(|c| used_for_fit(c)).map(run).sum() } else { 0 };
        WorkEstimate::new(self.total() as u64, 2 * all + (FIT_STEPS as u64 + 1) * fit)
    }
    /// Seconds of one core natively for [`MachineFit::estimate`] ([`native_seconds_of`]).
    pub fn native_seconds(&self) -> f64 {
        native_seconds_of(&self.estimate())
    }
    pub fn finished(&self) -> bool {
        self.fitted.len() == self.cells.len() && self.catalogue.len() == self.cells.len() && self.fit_done()
    }
    fn fit_done(&self) -> bool {
        self.fit_step > FIT_STEPS || !self.fitting()
    }

    /// One slice of work (a few simulator runs); call until [`MachineFit::finished`].
    pub fn step(&mut self) {
        if self.catalogue.len() < self.cells.len() {
            let v = self.predict(self.catalogue.len(), FIT.1.value);
            self.catalogue.push(v);
        } else if !self.fit_done() {
            self.fit_one();
        } else if self.fitted.len() < self.cells.len() {
            let v = self.predict(self.fitted.len(), self.best);
            self.fitted.push(v);
        }
    }

    fn predict(&mut self, k: usize, tcp_skb_cycles: f64) -> StreamRun {
        self.done += 1;
        simulate(&self.params, &self.cells[k], self.m.machine.cpus, (self.family, &self.kernel), tcp_skb_cycles)
    }

    /// Sum of squared log errors over the fit cells at ln(value) = `x`.
    fn objective(&mut self, x: f64) -> f64 {
        let fit: Vec<Cell> = self.cells.iter().filter(|c| used_for_fit(c)).cloned().collect();
        fit.iter()
            .map(|c| {
                self.done += 1;
                let p =
                    simulate(&self.params, c, self.m.machine.cpus, (self.family, &self.kernel), x.exp()).mbps.max(1e-9);
                (p / c.median.max(1e-9)).ln().powi(2)
            })
            .sum()
    }

    /// One golden-section step (the first evaluates both inner points).
    fn fit_one(&mut self) {
        let (a, b) = self.bracket;
        let c = b - PHI * (b - a);
        let d = a + PHI * (b - a);
        let fc = match self.inner[0] {
            Some(f) => f,
            None => self.objective(c),
        };
        let fd = match self.inner[1] {
            Some(f) => f,
            None => self.objective(d),
        };
        if fc <= fd {
            self.bracket = (a, d);
            self.inner = [None, Some(fc)];
        } else {
            self.bracket = (c, b);
            self.inner = [Some(fd), None];
        }
        self.fit_step += if self.fit_step == 0 { 2 } else { 1 };
        let (a, b) = self.bracket;
        self.best = ((a + b) / 2.0).exp().clamp(FIT.1.min, FIT.1.max).round();
    }

    /// The comparison (call when finished; cells not yet run count as 0).
    pub fn report(&self) -> MachineReport {
        let mut points: Vec<MachinePoint> = layout_points(&self.m);
        for (k, c) in self.cells.iter().enumerate() {
            let cat = self.catalogue.get(k).map_or(0.0, |r| r.mbps);
            let fit = self.fitted.get(k).map_or(0.0, |r| r.mbps);
            points.push(point("stream", c, fit, cat, self.fitting() && used_for_fit(c)));
        }
        points.extend(self.idle_point());
        let tcp = if self.fitting() { self.best } else { FIT.1.value };
        points.extend(rr_points(&self.m, self.family, &self.kernel, (FIT.1.value, tcp)));
        let fitted = if self.fitting() {
            vec![Fitted {
                name: FIT.0.to_string(),
                value: self.best,
                range: [FIT.1.min, FIT.1.max],
                unit: FIT.1.unit.to_string(),
                catalogue: FIT.1.value,
            }]
        } else {
            vec![]
        };
        let mut notes = self.notes.clone();
        notes.extend(self.idle_note());
        if fitted.iter().any(Fitted::at_bound) {
            notes.push(format!(
                "{} ended at its range's bound: inside its sourced range the model cannot reach the fit cells (a busy machine, or a mechanism the model lacks)",
                FIT.0
            ));
        }
        if self.family == FamilyId::MilanGuest && !self.m.cells("rr").is_empty() {
            notes.push("milan-guest's wake_latency_ns was estimated from a 1-flow rr cell of such a guest (2026-12-02): that cell's prediction is not independent of it".to_string());
        }
        if fitted.is_empty() {
            notes.push(format!(
                "64 KiB stream cells measured above zero: {}, fewer than the {MIN_FIT_CELLS} one fitted constant needs: nothing fitted, every prediction is the catalogue's",
                match self.fit_cells() {
                    0 => "none".to_string(),
                    n => n.to_string(),
                }
            ));
        }
        MachineReport {
            machine: format!("{} ({}{})", self.m.machine.model, count(self.m.machine.cpus, "CPU"), hv(&self.m)),
            kernel: self.m.kernel.release.clone(),
            profile: format!(
                "{} (`{}`) with Linux 6.x's kernel costs, 1 socket × {}",
                catalogue::family(self.family).name,
                self.family.name(),
                count(self.simulated_cpus(), "core")
            ),
            fitted,
            points,
            not_predicted: not_predicted(&self.m),
            notes,
        }
    }
}

impl MachineFit {
    /// The state suite's idle share (percent of both CPUs' samples in the idle task) beside
    /// the model's of the stream cell the state run repeats (1 flow, 64 KiB, order 3), when
    /// both exist.
    fn idle_point(&self) -> Option<MachinePoint> {
        let measured = measured_idle_pct(&self.m)?;
        let k = self.cells.iter().position(is_idle_run)?;
        let pct = |v: &[StreamRun]| v.get(k).map_or(0.0, |r| r.idle * 100.0);
        let setting = [("flows", 1.0), ("msg_bytes", 65536.0), ("order", 3.0)];
        let samples =
            vec![super::file::Sample { value: measured, foreign_cpu_pct: 0.0, contaminated: false, attempts: 1 }];
        let cell = Cell::new(IDLE_CELL, "idle", "%", &setting, samples);
        Some(point("idle", &cell, pct(&self.fitted), pct(&self.catalogue), false))
    }

    /// Each CPU's idle share in the model's run of the idle point's cell (the measurement has
    /// both CPUs together: the folded stacks keep no CPU).
    fn idle_note(&self) -> Option<String> {
        self.idle_point()?;
        let k = self.cells.iter().position(is_idle_run)?;
        let per_cpu = |r: &StreamRun| {
            r.idle_cpus
                .iter()
                .enumerate()
                .map(|(i, v)| format!("cpu{i} {:.1} %", v * 100.0))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let cat = per_cpu(self.catalogue.get(k)?);
        let fit = self.fitted.get(k).filter(|_| self.fitting()).map(|r| format!("; after the fit {}", per_cpu(r)));
        Some(format!(
            "idle per CPU at 1 flow, 64 KiB, order 3, in the model (the sender's CPU first): from the catalogue {cat}{}; the state suite measures both CPUs together",
            fit.unwrap_or_default()
        ))
    }
}

/// Fits and predicts in one go (the CLI).
pub fn fit(m: &Measurement, progress: &mut dyn FnMut(usize, usize)) -> Result<MachineReport, String> {
    let mut f = MachineFit::new(m)?;
    while !f.finished() {
        f.step();
        progress(f.done(), f.total());
    }
    Ok(f.report())
}

fn hv(m: &Measurement) -> String {
    if m.machine.hypervisor.is_empty() {
        String::new()
    } else {
        format!(", {} guest", m.machine.hypervisor)
    }
}
