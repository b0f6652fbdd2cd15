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

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::calibrate::Calibration;
use crate::output::Meaning;
use crate::output::{Column, Reproduction, Row, RunOutput};
use crate::params::{ParamError, ParamSpec, Params};
use crate::sim::machine::MachineProfile;
use crate::sim::world::Checked;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

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

/// The default seed of every run (printed first by the CLI so any run can be replayed).
pub const DEFAULT_SEED: u64 = 1;

/// One point of an experiment's sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// Position in [`Experiment::points`] (0-based).
    pub index: u32,
    /// The swept knob's value at this point (flows, ...); 0 for single-point experiments.
    pub x: i64,
}

/// How heavy a run is: the page runs [`Cost::Light`] runs on its main thread, and sends
/// [`Cost::Heavy`] ones to the sweep worker, which streams rows back point by point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Cost {
    /// The whole run takes at most a few milliseconds, even in wasm.
    Light,
    /// A run may take longer than one frame (16 ms): never on the main thread.
    Heavy,
}

/// The work a run will take, known before it starts (every run and sweep has a bounded,
/// estimated amount of work): its points, the simulated events it is expected to take (each
/// world also caps every run, which bounds the work if the estimate misjudges it) and the
/// work its events do beyond an average event's, in events' worth. Experiments override
/// [`Experiment::estimate`]; the default assumes [`WorkEstimate::DEFAULT_EVENTS_PER_POINT`]
/// per point. Seconds come from [`Experiment::native_seconds`] (the experiment's own speed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkEstimate {
    pub points: u64,
    /// Simulated events, as the worlds count them ([`crate::sim::world::events_handled`]).
    pub events: u64,
    /// Work beyond the events, in events' worth at the experiment's speed: heavier events
    /// (cross-cpu-free's tcp-100g skbs of many pages) or loop steps that are no events
    /// (percpu-counter's draws are counted in `events` instead). Mostly 0.
    pub extra: u64,
}

impl WorkEstimate {
    /// The default's events per point (an assumption until an experiment says better).
    pub const DEFAULT_EVENTS_PER_POINT: u64 = 1_000_000;
    /// The engine's speed on this project's reference machine, native, one core, in events
    /// per second (measured by `make bench`; docs/performance.md): the speed of an
    /// experiment that does not measure its own ([`Experiment::events_per_s`]).
    pub const NATIVE_EVENTS_PER_S: f64 = 8.0e6;
    /// What a command costs before and beside its events, in seconds: the process's start,
    /// the thread pool's, building the worlds and printing. A tiny run measures 6 ms of CPU and
    /// 22 ms of wall time on the project's 2-core machine (`perf stat -r 10 -e task-clock
    /// target/release/skblab run high-order-alloc --set warmup_us=0 --set measure_us=100 --set
    /// max_threads=1`; `run skb-layout`, no world at all: 1.7 ms of CPU, 5 ms of wall time).
    pub const OVERHEAD_S: f64 = 0.02;
    /// `points` points of `events` events and no extra work.
    pub const fn new(points: u64, events: u64) -> WorkEstimate {
        WorkEstimate { points, events, extra: 0 }
    }
    /// The events and the extra work, in events' worth.
    pub fn work(&self) -> u64 {
        self.events.saturating_add(self.extra)
    }
    /// `n` times this work.
    pub fn times(self, n: u64) -> WorkEstimate {
        WorkEstimate {
            points: self.points.saturating_mul(n),
            events: self.events.saturating_mul(n),
            extra: self.extra.saturating_mul(n),
        }
    }
    /// This work and `other`'s.
    pub fn plus(self, other: WorkEstimate) -> WorkEstimate {
        WorkEstimate {
            points: self.points.saturating_add(other.points),
            events: self.events.saturating_add(other.events),
            extra: self.extra.saturating_add(other.extra),
        }
    }
}

/// A line chart of result columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartSpec {
    pub title: &'static str,
    /// The x column.
    pub x: &'static str,
    /// The y columns, one line each, with their legend labels.
    pub ys: &'static [(&'static str, &'static str)],
    /// Axis label of y (with its unit) and the divisor from the column's unit to it
    /// (e.g. Mbit/s columns drawn in Gbit/s: 1000).
    pub y_label: &'static str,
    pub y_divisor: f64,
    pub x_label: &'static str,
    /// Draw the seed post's points of the same columns as markers.
    pub seed_overlay: bool,
}

/// A view of a run, as data: the web app draws every kind but `Custom` from the
/// [`RunOutput`] alone. Lesson steps name views by [`ViewSpec::id`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ViewSpec {
    /// Every column of the result table, with CSV/JSON export.
    Table { id: &'static str },
    /// The seed post's numbers beside the simulation's ([`Experiment::compare`]).
    Compare { id: &'static str },
    /// Text views of the output (by [`crate::TextView::id`]), one under the other.
    Text { id: &'static str, texts: &'static [&'static str] },
    /// A line chart of columns.
    Chart { id: &'static str, chart: ChartSpec },
    /// A diagram no chart can draw: the web app's custom view (experiment id, `id`).
    Custom { id: &'static str },
    /// Flame graphs of simulated profiles ([`crate::RunOutput::flames`] by id), side by side
    /// (e.g. before and after a fix), each with zoom, search and an SVG export; the folded
    /// stacks are its text alternative.
    Flame { id: &'static str, flames: &'static [&'static str] },
    /// Plots of series that are not the result table's columns ([`crate::RunOutput::plots`]
    /// by id), one under the other. `shows` lists the result columns a plot lets the reader
    /// work out (a marked delay, ...), so a lesson question on one of them must veil it.
    Plot { id: &'static str, plots: &'static [&'static str], shows: &'static [&'static str] },
}

impl ViewSpec {
    pub fn id(&self) -> &'static str {
        match self {
            ViewSpec::Table { id }
            | ViewSpec::Compare { id }
            | ViewSpec::Text { id, .. }
            | ViewSpec::Chart { id, .. }
            | ViewSpec::Custom { id }
            | ViewSpec::Flame { id, .. }
            | ViewSpec::Plot { id, .. } => id,
        }
    }
}

/// Which data a custom view asks for: a name the experiment knows (a view's id, or the name of
/// data several views share) and the view's own inputs beyond the run's parameters (the trace
/// player's flow count), each checked by the experiment against a bound.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ViewQuery {
    pub name: String,
    pub args: BTreeMap<String, i64>,
}

impl ViewQuery {
    pub fn new(name: &str) -> ViewQuery {
        ViewQuery { name: name.to_string(), args: BTreeMap::new() }
    }

    /// The query with the input `name` set to `value`.
    pub fn with(mut self, name: &str, value: i64) -> ViewQuery {
        self.args.insert(name.to_string(), value);
        self
    }

    /// The input `name` if it was given and lies in `lo..=hi`.
    pub fn arg_in(&self, name: &str, lo: i64, hi: i64) -> Option<i64> {
        self.args.get(name).copied().filter(|v| (lo..=hi).contains(v))
    }
}

type AnyValue = dyn Any + Send + Sync;

/// A custom view's data: the typed value core computed (on the page's main thread for light
/// data), or its JSON text (as it came back from the sweep worker). [`ViewData::decode`] gives
/// the value as the view's own type: by a downcast when it is the type core made, else by
/// reading the JSON (a view may read core's payload into a struct of its own). Equal only to
/// itself (a cheap identity for props).
#[derive(Clone)]
pub struct ViewData(Inner);

#[derive(Clone)]
enum Inner {
    Value { value: Arc<AnyValue>, to_json: fn(&AnyValue) -> String },
    Json(Arc<str>),
}

fn json_of<T: Serialize + 'static>(value: &AnyValue) -> String {
    let value = value.downcast_ref::<T>().expect("ViewData pairs a value with the encoder of its type");
    serde_json::to_string(value).expect("view data serializes")
}

impl ViewData {
    /// Data computed here.
    pub fn new<T: Serialize + Send + Sync + 'static>(value: T) -> ViewData {
        ViewData::from_arc(Arc::new(value))
    }

    pub fn from_arc<T: Serialize + Send + Sync + 'static>(value: Arc<T>) -> ViewData {
        ViewData(Inner::Value { value, to_json: json_of::<T> })
    }

    /// Data as JSON text (from the worker).
    pub fn from_json(text: impl Into<Arc<str>>) -> ViewData {
        ViewData(Inner::Json(text.into()))
    }

    /// The JSON text of the data (what crosses the worker boundary).
    pub fn to_json(&self) -> String {
        match &self.0 {
            Inner::Value { value, to_json } => to_json(value.as_ref()),
            Inner::Json(text) => text.to_string(),
        }
    }

    /// The value itself, if it was computed here as a `T`.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        match &self.0 {
            Inner::Value { value, .. } => value.clone().downcast::<T>().ok(),
            Inner::Json(_) => None,
        }
    }

    /// The data as `T`: the value itself if it is a `T`, else `T` read from the JSON.
    pub fn decode<T: DeserializeOwned + Send + Sync + 'static>(&self) -> Result<Arc<T>, String> {
        if let Some(v) = self.get::<T>() {
            return Ok(v);
        }
        serde_json::from_str(&self.to_json()).map(Arc::new).map_err(|e| format!("unreadable view data: {e}"))
    }
}

impl PartialEq for ViewData {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Inner::Value { value: a, .. }, Inner::Value { value: b, .. }) => Arc::ptr_eq(a, b),
            (Inner::Json(a), Inner::Json(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl std::fmt::Debug for ViewData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Inner::Value { .. } => f.write_str("ViewData(value)"),
            Inner::Json(text) => write!(f, "ViewData({} bytes of JSON)", text.len()),
        }
    }
}

/// The view-data query of one seed's [`Experiment::reproduce_figures`]: the page's workers
/// compute a seed's share of a reproduction as they compute a heavy view's data.
pub const REPRODUCE_FIGURES: &str = "reproduce-figures";

/// [`Experiment::view_data`], or one seed's [`Experiment::reproduce_figures`] for a query named
/// [`REPRODUCE_FIGURES`] (the seed is the run's).
pub fn view_data_of(e: &dyn Experiment, params: &Params, seed: u64, query: &ViewQuery) -> Option<ViewData> {
    if query.name == REPRODUCE_FIGURES {
        return e.reproduce_figures(seed).map(ViewData::new);
    }
    e.view_data(params, seed, query)
}

/// Where [`view_data_of`] may run: [`Experiment::view_cost`], or the figures' own cost.
pub fn view_cost_of(e: &dyn Experiment, params: &Params, query: &ViewQuery) -> Cost {
    if query.name == REPRODUCE_FIGURES {
        return e.reproduce_figures_cost().unwrap_or(Cost::Light);
    }
    e.view_cost(params, query)
}

pub trait Experiment: Sync {
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

    /// The columns of the result table.
    fn columns(&self, params: &Params) -> Vec<Column>;
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
    /// Per output column, when its value is meaningful (every column has at least one; the
    /// registry test checks it). Cells that fall short are [`crate::Cell::Missing`] with a
    /// note ([`crate::output::mark_row`], [`RunOutput::note_missing`]).
    fn meanings(&self, _params: &Params) -> Vec<Meaning> {
        Vec::new()
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

    /// The seed post's table in this experiment's columns (for chart overlays), if any.
    fn seed_output(&self) -> Option<RunOutput> {
        None
    }
    /// The seed post's figures beside a run's output, if the experiment has a seed table.
    /// Pure arithmetic on `output`: cheap enough for the page's main thread.
    fn compare(&self, _params: &Params, _output: &RunOutput) -> Option<Reproduction> {
        None
    }
    /// Every parameter at its default, bound to this experiment's spec.
    fn defaults(&self) -> Params {
        Params::new(self.id(), self.specs())
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

    /// The machine profile's fitted constants and how to score them against the seed, for
    /// `skblab calibrate` (see [`crate::calibrate`]); `None` if the experiment fits nothing.
    fn calibration(&self) -> Option<&'static dyn Calibration> {
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
    /// Knobs whose effect on a column the real system fixes in sign (checked over random valid
    /// settings by `core/tests/monotone.rs`).
    fn monotone(&self) -> Vec<Monotone> {
        Vec::new()
    }

    /// Defaults overridden by `name=value` settings, then [`Experiment::validate`]d.
    fn params_from(&self, settings: &[String]) -> Result<Params, ParamError> {
        let params = Params::from_settings(self.id(), self.specs(), settings)?;
        self.validate(&params)?;
        Ok(params)
    }

    /// Parameters as they crossed a boundary ([`crate::ParamsWire`]), checked against the spec
    /// and [`Experiment::validate`]d.
    fn params_from_wire(&self, wire: &crate::ParamsWire) -> Result<Params, ParamError> {
        let params = Params::from_wire(self.id(), self.specs(), wire)?;
        self.validate(&params)?;
        Ok(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_data_downcasts_to_its_own_type_and_reads_json_into_another() {
        #[derive(Debug, PartialEq, Serialize)]
        struct Mine {
            a: u32,
            name: &'static str,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct Theirs {
            name: String,
        }
        let d = ViewData::new(Mine { a: 3, name: "x" });
        assert_eq!(d.get::<Mine>().unwrap().a, 3);
        assert_eq!(d.decode::<Theirs>().unwrap().name, "x");
        let json = ViewData::from_json(d.to_json());
        assert_eq!(*json.decode::<Theirs>().unwrap(), Theirs { name: "x".into() });
        assert!(json.decode::<Vec<u8>>().unwrap_err().starts_with("unreadable view data"));
        assert_eq!(d, d.clone());
        assert_ne!(d, ViewData::new(Mine { a: 3, name: "x" }));
    }

    #[test]
    fn view_query_args_are_bounded() {
        let q = ViewQuery::new("trace").with("flows", 4);
        assert_eq!(q.arg_in("flows", 1, 8), Some(4));
        assert_eq!(q.arg_in("flows", 1, 3), None);
        assert_eq!(q.arg_in("order", 0, 3), None);
    }
}
