//! The object-safe face of every experiment: the trait the platform (the CLI, the web app's
//! main thread and sweep worker, the lessons checker) calls. Nobody implements it by hand: an
//! experiment implements [`crate::model::Model`] (a typed input, seven required methods) and
//! the blanket adapter in `model.rs` gives it this trait.
//!
//! An experiment is a pure function of (validated parameters, seed). It exports as data its
//! parameter spec, the points of its sweep, its result columns and the views a page draws of
//! them; a new one is its folder in `core/src/experiments/`, one line in
//! [`crate::experiments::REGISTRY`], and the rows ARCHITECTURE.md's "Adding a lesson" lists.
//!
//! A run is a sweep: [`Experiment::points`] lists the points, [`Experiment::run_point`] computes
//! one row per point (the unit of work a Web Worker streams back with progress), and
//! [`Experiment::finish`] turns the rows into a [`RunOutput`] (table + text views).
//! [`Experiment::run`] is just that loop. `reproduce` is the same rows compared with the seed
//! post's table by [`Experiment::compare`].
//!
//! No silent nonsense: every experiment declares, per output column, when its value means
//! something ([`Experiment::meanings`], [`crate::output::Meaning`]); the registry tests hold
//! every experiment to it (`core/tests/meaningful.rs`).
//!
//! Bounded work: [`Experiment::estimate`] is the run's expected simulated events, from the
//! model's own `Model::events` (an expectation, not a cap: each world also caps its run);
//! the CLI prints it and refuses a run above 60 s of one core without `--allow-long`.
//!
//! A custom view that needs more than the [`RunOutput`] (a lane diagram of a short run, the
//! frames of a step-through player) asks for its own data: [`Experiment::view_data`] of a
//! [`ViewQuery`], computed where its [`Experiment::view_cost`] says (the page's main thread or
//! the sweep worker) and cached beside the run, never inside the run's output.
//!
//! Files: `mod.rs` (here: the trait, its methods in groups, a sweep's [`Point`], knob
//! relations), `work.rs` (how heavy a run is: [`Cost`], [`WorkEstimate`]), `views.rs` (views
//! as data and a custom view's own data).

mod views;
mod work;

pub use views::{view_cost_of, view_data_of, ChartSpec, ViewData, ViewQuery, ViewSpec, REPRODUCE_FIGURES};
pub use work::{Cost, WorkEstimate};

pub use crate::rng::DEFAULT_SEED;

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::calibrate::Calibration;
use crate::output::{Column, Meaning, Reproduction, Row, RunOutput};
use crate::params::{ParamError, ParamSpec, Params};
use crate::sim::machine::MachineProfile;
use crate::sim::world::Checked;
use serde::{Deserialize, Serialize};

/// Raising `param` (with everything else fixed) never lowers (`rises`) or never raises
/// (`!rises`) `column` of any row, beyond `tolerance_pct` percent of noise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Monotone {
    pub param: &'static str,
    pub column: &'static str,
    pub rises: bool,
    pub tolerance_pct: f64,
    /// Why the real system moves so, one line (with a source where there is one).
    pub why: &'static str,
    /// Settings (parameter, value as in a URL) under which the relation does not hold, because
    /// another mechanism takes over there (each one explained in the experiment's docs); the
    /// property test never draws them.
    pub unless: &'static [(&'static str, &'static str)],
}

/// One point of an experiment's sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// Position in [`Experiment::points`] (0-based).
    pub index: u32,
    /// The swept knob's value at this point (flows, ...); 0 for single-point experiments.
    pub x: i64,
}

pub trait Experiment: Sync {
    // What it is and the parameters it takes.
    /// Permanent id, used by the CLI, URLs and lesson files (kebab-case).
    fn id(&self) -> &'static str;
    fn title(&self) -> &'static str;
    /// One sentence: what the experiment reproduces.
    fn summary(&self) -> &'static str;
    fn specs(&self) -> Vec<ParamSpec>;
    /// The parameter names its typed `Input` reads (`Input::NAMES` of
    /// [`params_input!`](crate::params_input)), if it has one: the registry test checks that
    /// they are exactly the names of [`Experiment::specs`].
    fn input_names(&self) -> Option<&'static [&'static str]> {
        None
    }
    /// Every parameter at its default, bound to this experiment's spec.
    fn defaults(&self) -> Params {
        Params::new(self.id(), self.specs())
    }
    /// The values a run will really use. Experiments with presets fill every parameter the
    /// user did not set explicitly from the chosen preset; others return `params` unchanged.
    fn resolve(&self, params: &Params) -> Params {
        params.clone()
    }
    /// Checks what the ranges of single parameters cannot (e.g. `min_threads <= max_threads`);
    /// the CLI and the page call it once, before any run.
    fn validate(&self, _params: &Params) -> Result<(), ParamError> {
        Ok(())
    }
    /// Defaults overridden by `name=value` settings, then [`Experiment::validate`]d.
    fn params_from(&self, settings: &[String]) -> Result<Params, ParamError> {
        let params = Params::from_settings(self.id(), self.specs(), settings)?;
        self.validate(&params)?;
        Ok(params)
    }
    /// Parameters as they crossed a boundary ([`crate::params::ParamsWire`]), checked against
    /// the spec and [`Experiment::validate`]d.
    fn params_from_wire(&self, wire: &crate::params::ParamsWire) -> Result<Params, ParamError> {
        let params = Params::from_wire(self.id(), self.specs(), wire)?;
        self.validate(&params)?;
        Ok(params)
    }

    // A run: its columns, its points, a row per point, the output.
    /// The columns of the result table.
    fn columns(&self, params: &Params) -> Vec<Column>;
    /// Per output column, when its value is meaningful (every column has at least one; the
    /// registry test checks it). Cells that fall short are [`crate::Cell::Missing`] with a
    /// note ([`crate::output::mark_row`], [`RunOutput::note_missing`]).
    fn meanings(&self, _params: &Params) -> Vec<Meaning> {
        Vec::new()
    }
    /// The points of the sweep, in row order (one point by default).
    fn points(&self, _params: &Params) -> Vec<Point> {
        vec![Point { index: 0, x: 0 }]
    }
    /// One row of the result table. `params` must come from this experiment's spec and pass
    /// [`Experiment::validate`]; the ranges of the spec bound the work.
    fn run_point(&self, params: &Params, point: &Point, seed: u64) -> Row;
    /// The result table of `rows` (one per point, in order) and the text views.
    fn finish(&self, params: &Params, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(self.id(), seed, self.columns(params));
        for row in rows {
            out.push_row(row);
        }
        out
    }
    /// The simulated worlds [`Experiment::run_point`] runs for `point`, each with its
    /// invariants checked before the first event and after every event, over at most
    /// `max_events` events per world ([`crate::sim::world::World::run_checked`]; `make
    /// fuzz-sim`); the row is not computed. The first broken invariant is the error, one line.
    /// The default is for experiments that run no world (closed-form models): nothing to check.
    fn run_point_checked(
        &self,
        _params: &Params,
        _point: &Point,
        _seed: u64,
        _max_events: u64,
    ) -> Result<Checked, String> {
        Ok(Checked::default())
    }
    /// The whole run: every point, then [`Experiment::finish`].
    fn run(&self, params: &Params, seed: u64) -> RunOutput {
        let rows = crate::calibrate::par_map(&self.points(params), |p| self.run_point(params, p, seed));
        self.finish(params, seed, rows)
    }
    /// Knobs whose effect on a column the real system fixes in sign (checked over random valid
    /// settings by `core/tests/monotone.rs`).
    fn monotone(&self) -> Vec<Monotone> {
        Vec::new()
    }

    // How heavy a run is, before it starts (`WorkEstimate`, `Cost`).
    /// The work of `run(params, _)`, before it starts (see [`WorkEstimate`]).
    fn estimate(&self, params: &Params) -> WorkEstimate {
        let points = self.points(params).len() as u64;
        WorkEstimate::new(points, points.saturating_mul(WorkEstimate::DEFAULT_EVENTS_PER_POINT))
    }
    /// The engine's speed on this experiment's worlds, native, one core, events per second
    /// (each experiment's measured; the engine's reference by default).
    fn events_per_s(&self) -> f64 {
        WorkEstimate::NATIVE_EVENTS_PER_S
    }
    /// Seconds of one core natively that `e` (work of this experiment) takes: its work at
    /// [`Experiment::events_per_s`] and [`WorkEstimate::OVERHEAD_S`]. The one conversion of
    /// events to time, the CLI's and (scaled to wasm) the page's.
    fn native_seconds(&self, e: &WorkEstimate) -> f64 {
        WorkEstimate::OVERHEAD_S + e.work() as f64 / self.events_per_s()
    }
    /// The work of [`Experiment::reproduce_mean`] over `seeds` seeds: one run of
    /// [`Experiment::reproduce_params`] per seed (experiments whose reproduction gathers
    /// several runs say theirs).
    fn reproduce_estimate(&self, seeds: u64) -> WorkEstimate {
        self.estimate(&self.reproduce_params()).times(seeds)
    }
    /// The work of `reproduce --bands n`: one run of [`Experiment::reproduce_params`] with
    /// perturbed constants per sample (none without uncertain quantities).
    fn bands_estimate(&self, n: u64) -> WorkEstimate {
        let n = if self.uncertain().is_empty() { 0 } else { n };
        self.estimate(&self.reproduce_params()).times(n)
    }
    /// The work of `validate`'s [`Experiment::check_table`] of every table over `seeds` seeds
    /// (by default each table is one reproduction; tables that run fits say theirs).
    fn validate_estimate(&self, seeds: u64) -> WorkEstimate {
        self.reproduce_estimate(seeds).times(self.tables().len() as u64)
    }
    /// Where the page may run it (see [`Cost`]).
    fn cost(&self, _params: &Params) -> Cost {
        Cost::Light
    }
    /// Where the page may run one point of a heavy run: a `Light` first point is computed on
    /// the main thread while the worker starts, so the first view does not wait for it (the
    /// page hands that row to the worker, which does not compute it again).
    fn point_cost(&self, params: &Params, _point: &Point) -> Cost {
        self.cost(params)
    }
    /// The expected simulated events of `run_point(params, point, _)`, when they differ from
    /// point to point (`None`: about equal). The page's pool hands the heaviest points out
    /// first, so its workers finish together (longest processing time first); the output does
    /// not depend on it.
    fn point_events(&self, _params: &Params, _point: &Point) -> Option<u64> {
        None
    }

    // The views of a run, and a custom view's own data.
    /// The views of a run, in display order.
    fn views(&self) -> Vec<ViewSpec>;
    /// The data of a custom view under `params` and `seed` beside the run's output (a short
    /// run's lanes, a trace), or `None` if the experiment has no data of that name or an
    /// input of the query is missing or out of its bound. Deterministic, bounded like a run.
    fn view_data(&self, _params: &Params, _seed: u64, _query: &ViewQuery) -> Option<ViewData> {
        None
    }
    /// Where the page may compute [`Experiment::view_data`] (by default where the run goes).
    fn view_cost(&self, params: &Params, _query: &ViewQuery) -> Cost {
        self.cost(params)
    }

    // The seed post's tables: the reproduction, its mean over seeds, `validate`'s checks.
    /// The seed post's table in this experiment's columns (for chart overlays), if any.
    fn seed_output(&self) -> Option<RunOutput> {
        None
    }
    /// The seed post's figures beside a run's output, if the experiment has a seed table.
    /// Pure arithmetic on `output`: cheap enough for the page's main thread.
    fn compare(&self, _params: &Params, _output: &RunOutput) -> Option<Reproduction> {
        None
    }
    /// The parameters `reproduce` runs with (the defaults).
    fn reproduce_params(&self) -> Params {
        self.defaults()
    }
    /// The seed post's figures beside the model's, if the experiment has a seed table.
    fn reproduce(&self, seed: u64) -> Option<Reproduction> {
        let params = self.reproduce_params();
        self.compare(&params, &self.run(&params, seed))
    }
    /// The seed post's figures beside the MEAN of the model over `seeds` (each simulated cell
    /// with its [min, max] over the seeds): the figure a fidelity claim should rest on, not
    /// one lucky seed. Notes (crossover, plateau...) are computed on the mean run. Each seed's
    /// share is independent (the page spreads them over its workers): a run of
    /// [`Experiment::reproduce_params`], or [`Experiment::reproduce_figures`] where the table
    /// gathers several runs; the mean is [`Experiment::reproduce_from_runs`] or
    /// [`Experiment::reproduce_from_figures`] of them, here and in the page alike.
    fn reproduce_mean(&self, seeds: &[u64]) -> Option<Reproduction> {
        if self.reproduce_figures_cost().is_some() {
            let figures: Option<Vec<Vec<f64>>> =
                crate::calibrate::par_map(seeds, |&s| self.reproduce_figures(s)).into_iter().collect();
            return self.reproduce_from_figures(seeds, &figures?);
        }
        let params = self.reproduce_params();
        let runs: Vec<RunOutput> = crate::calibrate::par_map(seeds, |&s| self.run(&params, s));
        self.reproduce_from_runs(seeds, &runs)
    }
    /// [`Experiment::reproduce_mean`] of one run of [`Experiment::reproduce_params`] per seed
    /// (`runs` in the order of `seeds`).
    fn reproduce_from_runs(&self, seeds: &[u64], runs: &[RunOutput]) -> Option<Reproduction> {
        let params = self.reproduce_params();
        let mean = RunOutput::mean_of(runs)?;
        let per_seed: Vec<Reproduction> = runs.iter().filter_map(|r| self.compare(&params, r)).collect();
        Some(self.compare(&params, &mean)?.with_spread(&per_seed, seeds))
    }
    /// Where one seed's [`Experiment::reproduce_figures`] may run, if the experiment's
    /// reproduction is made of figures rather than of one run per seed (`None`: runs).
    fn reproduce_figures_cost(&self) -> Option<Cost> {
        None
    }
    /// The simulated figures of one seed's reproduction, for an experiment whose table
    /// gathers several runs (`None` for the others).
    fn reproduce_figures(&self, _seed: u64) -> Option<Vec<f64>> {
        None
    }
    /// [`Experiment::reproduce_mean`] of each seed's [`Experiment::reproduce_figures`]
    /// (`figures` in the order of `seeds`).
    fn reproduce_from_figures(&self, _seeds: &[u64], _figures: &[Vec<f64>]) -> Option<Reproduction> {
        None
    }
    /// The seed tables this experiment is scored on: independent numbers and the constants
    /// fitted to each ([`crate::calibrate::tables`]); a table's verdict is computed from them.
    fn tables(&self) -> Vec<TableSpec> {
        Vec::new()
    }
    /// `skblab validate`'s figures for the table named `table` (one of
    /// [`Experiment::tables`]), on the mean over `seeds`; `None` for a name it does not have.
    fn check_table(&self, _table: &str, _seeds: &[u64]) -> Option<TableCheck> {
        None
    }

    // The machines, the fitted constants and the uncertain quantities.
    /// The machine profile's fitted constants and how to score them against the seed, for
    /// `skblab calibrate` (see [`crate::calibrate`]); `None` if the experiment fits nothing.
    fn calibration(&self) -> Option<&'static dyn Calibration> {
        None
    }
    /// Every machine profile this experiment can run, built from `crate::sim::catalogue`
    /// (`core/tests/catalogue.rs` checks that two profiles of one family never disagree).
    fn machines(&self) -> Vec<MachineProfile> {
        Vec::new()
    }
    /// The catalogue quantities this experiment's reproduction depends on (name, quantity with
    /// its sourced range): `skblab reproduce --bands N` samples them inside their ranges.
    fn uncertain(&self) -> Vec<(&'static str, crate::sim::catalogue::Quantity)> {
        Vec::new()
    }
    /// A run with the quantities of [`Experiment::uncertain`] set to `values` (same order);
    /// `None` if the experiment has none.
    fn run_perturbed(&self, _params: &Params, _seed: u64, _values: &[f64]) -> Option<RunOutput> {
        None
    }
}
