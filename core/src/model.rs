//! What an experiment writes: the typed [`Model`] trait, its optional capabilities, and the
//! one adapter to the object-safe [`Experiment`] the platform calls.
//!
//! A model reads its parameters once per call into its typed [`Model::Input`], lists the
//! [`Model::points`] of its sweep, and computes a row per point in two halves:
//! [`Model::worlds`] builds and runs the simulated worlds of a point through a [`Runner`], and
//! [`Model::row`] turns what they left into the row. The same `worlds` serves the plain run
//! (a [`Runner::plain`] runs every world to its end) and the checked run of `make fuzz-sim`
//! (a [`Runner::checked`] checks every world's invariants after every event), so no
//! experiment lists its worlds twice. One number, [`Model::events`] (the simulated events a
//! point is expected to take), gives the run's [`WorkEstimate`], where the page may run it
//! ([`Cost`]) and the order in which the page's worker pool hands points out.
//!
//! What only some experiments have is a capability, reached through an accessor that returns
//! `None` by default: the seed post's tables and their reproduction ([`SeedTables`]), the
//! machines, fitted constants and catalogue ranges it runs on ([`Calibrated`]), and the data
//! of custom views beyond the run's output ([`CustomViews`]).
//!
//! Required: [`Model::specs`], [`Model::columns`], [`Model::worlds`], [`Model::row`],
//! [`Model::events`], [`Model::meanings`], [`Model::views`] (seven), with the associated
//! constants [`Model::ID`], [`Model::TITLE`], [`Model::SUMMARY`].

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::calibrate::Calibration;
use crate::experiment::{Cost, Experiment, Monotone, Point, ViewData, ViewQuery, ViewSpec, WorkEstimate};
use crate::output::{Column, Meaning, Reproduction, Row, RunOutput};
pub use crate::params::ModelInput;
use crate::params::{ParamError, ParamSpec, Params};
use crate::sim::catalogue::Quantity;
use crate::sim::machine::MachineProfile;
use crate::sim::world::{Checked, Outcome, World};

/// Runs a point's worlds: plainly ([`Runner::plain`], what a run does), or with every world's
/// invariants checked before the first event and after every event, over at most so many
/// events per world ([`Runner::checked`], `make fuzz-sim`). A checked runner stops every world
/// after the first broken invariant, which [`Runner::finish`] returns.
#[derive(Debug, Default)]
pub struct Runner {
    /// `Some(max events per world)` when checking.
    check: Option<u64>,
    checked: Checked,
    broken: Option<String>,
}

impl Runner {
    /// Runs every world to its end, unchecked.
    pub fn plain() -> Runner {
        Runner::default()
    }

    /// Checks every world after every event, for at most `max_events` events per world.
    pub fn checked(max_events: u64) -> Runner {
        Runner { check: Some(max_events), ..Runner::default() }
    }

    /// True when checking (a model may skip work that only its row needs).
    pub fn is_checking(&self) -> bool {
        self.check.is_some()
    }

    /// Runs `world` to its end (or its cap), `what` naming it in a broken invariant's message.
    /// Plain: [`World::run`]. Checked: [`World::run_checked`]; after a broken invariant, this
    /// and every later world of the point return at once.
    pub fn run<W: World>(&mut self, what: &str, world: &mut W) -> Outcome {
        let Some(max_events) = self.check else { return world.run() };
        if self.broken.is_some() {
            return world.outcome();
        }
        match world.run_checked(max_events) {
            Ok(outcome) => {
                self.checked.add(outcome);
                outcome
            }
            Err(e) => {
                self.broken = Some(if what.is_empty() { e } else { format!("{what}: {e}") });
                world.outcome()
            }
        }
    }

    /// One event of `world` ([`World::step`]), checked after it when checking; false once the
    /// run is over, the checked budget is spent or an invariant broke.
    pub fn step<W: World>(&mut self, what: &str, world: &mut W) -> bool {
        let Some(max_events) = self.check else { return world.step() };
        if self.broken.is_some() || world.run_state().events() >= max_events {
            return false;
        }
        if world.run_state().events() == 0 {
            if let Err(e) = world.check() {
                self.broken = Some(format!("{what}: before the first event: {e}"));
                return false;
            }
        }
        let at_ns = world.next_event_ns().unwrap_or(0);
        if !world.step() {
            return false;
        }
        self.checked.events += 1;
        if let Err(e) = world.check() {
            let n = world.run_state().events();
            self.broken = Some(format!("{what}: after event {n} (at {at_ns} ns): {e}"));
            return false;
        }
        true
    }

    /// What the checked runs covered, or the first broken invariant.
    pub fn finish(self) -> Result<Checked, String> {
        match self.broken {
            Some(e) => Err(e),
            None => Ok(self.checked),
        }
    }
}

/// What a point's worlds leave when it compares with a baseline: its run and, where it has
/// one, the same run with the mechanism under study off (cross-cpu-free, skb-cache).
pub struct WithBaseline<R> {
    pub run: R,
    pub base: Option<R>,
}

impl<R> WithBaseline<R> {
    /// `run(what, input)` of `input` ("run"), then of its `baseline` if any ("baseline").
    pub fn of<I>(input: &I, baseline: Option<I>, mut run: impl FnMut(&'static str, &I) -> R) -> Self {
        WithBaseline { run: run("run", input), base: baseline.map(|b| run("baseline", &b)) }
    }

    /// The least of `count` over the run and its baseline (the run's without one).
    pub fn both(&self, count: impl Fn(&R) -> u64) -> u64 {
        self.base.as_ref().map_or(count(&self.run), |b| count(&self.run).min(count(b)))
    }

    /// The runs that reached the end of their window (`capped`: an event cap stopped it),
    /// a missing baseline counting as one: 2 when no run was cut short.
    pub fn uncapped(&self, capped: impl Fn(&R) -> bool) -> u64 {
        u64::from(!capped(&self.run)) + self.base.as_ref().map_or(1, |b| u64::from(!capped(b)))
    }
}

/// Below this many expected events a run (or one point) is [`Cost::Light`]: about 15 ms in
/// wasm at the engine's speed there (`make bench`: about 6–7 M events/s), one frame.
pub const LIGHT_EVENTS: u64 = 100_000;

/// The cost of work expected to take `events` simulated events.
pub fn cost_of(events: u64) -> Cost {
    if events <= LIGHT_EVENTS {
        Cost::Light
    } else {
        Cost::Heavy
    }
}

/// An experiment, as its author writes it (see the module doc). Every method takes the typed
/// input read once from validated parameters; `&self` is a unit struct.
pub trait Model: Sync + Sized + 'static {
    /// The typed parameters: a struct declared with [`params_input!`](crate::params_input),
    /// which reads each field from its parameter once and lists the names the registry test
    /// holds to [`Model::specs`].
    type Input: ModelInput;
    /// What a point's worlds leave for its row (their reports, counters, outcomes).
    type Worlds;

    /// Permanent id, used by the CLI, URLs and lesson files (kebab-case).
    const ID: &'static str;
    const TITLE: &'static str;
    /// One sentence: what the experiment reproduces.
    const SUMMARY: &'static str;
    /// The engine's speed on this model's worlds, native, one core, events per second
    /// ([`Experiment::events_per_s`]; measured per model).
    const EVENTS_PER_S: f64 = WorkEstimate::NATIVE_EVENTS_PER_S;

    /// The parameter spec.
    fn specs(&self) -> Vec<ParamSpec>;
    /// The columns of the result table.
    fn columns(&self, input: &Self::Input) -> Vec<Column>;
    /// Builds and runs the worlds of `point` through `runner` (the only way a model runs a
    /// world), and returns what [`Model::row`] needs. A model without worlds (a closed form)
    /// computes its figures here and never calls the runner.
    fn worlds(&self, input: &Self::Input, point: &Point, seed: u64, runner: &mut Runner) -> Self::Worlds;
    /// The row of `point` from what its worlds left.
    fn row(&self, input: &Self::Input, point: &Point, worlds: Self::Worlds) -> Row;
    /// The simulated events `point` is expected to take (all its worlds, every seed): the one
    /// number the estimate, the cost and the pool's point order follow from. An expectation,
    /// not a cap: each world's own event cap bounds the work if it misjudges.
    fn events(&self, input: &Self::Input, point: &Point) -> u64;
    /// Per output column, when its value is meaningful (every column has at least one).
    fn meanings(&self, input: &Self::Input) -> Vec<Meaning>;
    /// The views of a run, in display order.
    fn views(&self) -> Vec<ViewSpec>;

    /// The points of the sweep, in row order (one point by default).
    fn points(&self, _input: &Self::Input) -> Vec<Point> {
        vec![Point { index: 0, x: 0 }]
    }
    /// The values a run will really use: experiments with presets fill every parameter the
    /// user did not set from the chosen preset.
    fn resolve(&self, params: &Params) -> Params {
        params.clone()
    }
    /// What the ranges of single parameters cannot check (e.g. `min_threads <= max_threads`).
    fn validate(&self, _input: &Self::Input) -> Result<(), ParamError> {
        Ok(())
    }
    /// The result table of `rows` (one per point, in order), with a note per cell that fell
    /// short of its meaning; experiments add their text views, flames and plots.
    fn finish(&self, input: &Self::Input, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(Self::ID, seed, self.columns(input));
        for row in rows {
            out.push_row(row);
        }
        out.note_missing(&self.meanings(input));
        out
    }
    /// Simulated events [`Model::finish`] takes beyond the points' (a profile run, lanes).
    fn finish_events(&self, _input: &Self::Input) -> u64 {
        0
    }
    /// The whole run's work beyond its events, in events' worth ([`WorkEstimate::extra`]):
    /// events that each cost several average ones. None by default.
    fn extra_work(&self, _input: &Self::Input) -> u64 {
        0
    }
    /// Where the page may run the whole run; by default from the expected events.
    fn cost(&self, input: &Self::Input) -> Cost {
        cost_of(total_events(self, input))
    }
    /// Where the page may run one point of a heavy run; by default from its expected events.
    fn point_cost(&self, input: &Self::Input, point: &Point) -> Cost {
        cost_of(self.events(input, point))
    }
    /// Knobs whose effect on a column the real system fixes in sign (`core/tests/monotone.rs`).
    fn monotone(&self) -> Vec<Monotone> {
        Vec::new()
    }

    /// The seed post's tables, if the experiment has any.
    fn seed_tables(&self) -> Option<&dyn SeedTables<Self>> {
        None
    }
    /// Its machines, fitted constants and uncertain catalogue quantities, if any.
    fn calibrated(&self) -> Option<&dyn Calibrated<Self>> {
        None
    }
    /// Its custom views' data, if any view needs more than the run's output.
    fn custom_views(&self) -> Option<&dyn CustomViews<Self>> {
        None
    }
}

/// Inside an `impl Model`, the accessors of the capability traits the model implements on
/// itself: `capabilities!(seed_tables, calibrated)` writes
/// `fn seed_tables(&self) -> Option<&dyn SeedTables<Self>> { Some(self) }` and its
/// `calibrated` twin (the trait's defaults return `None`: without specialization Rust
/// cannot tell from the trait whether `Self` implements a capability).
macro_rules! capabilities {
    ($($capability:ident),+ $(,)?) => {
        $($crate::model::capabilities!(@ $capability);)+
    };
    (@ seed_tables) => {
        fn seed_tables(&self) -> Option<&dyn $crate::model::SeedTables<Self>> {
            Some(self)
        }
    };
    (@ calibrated) => {
        fn calibrated(&self) -> Option<&dyn $crate::model::Calibrated<Self>> {
            Some(self)
        }
    };
    (@ custom_views) => {
        fn custom_views(&self) -> Option<&dyn $crate::model::CustomViews<Self>> {
            Some(self)
        }
    };
}
pub(crate) use capabilities;

fn total_events<M: Model>(m: &M, input: &M::Input) -> u64 {
    let points = m.points(input);
    points.iter().fold(m.finish_events(input), |sum, p| sum.saturating_add(m.events(input, p)))
}

/// The seed post's tables: the comparison of a run with them, the reproduction, and the
/// tables `skblab validate` scores.
pub trait SeedTables<M: Model>: Sync {
    /// The seed post's figures beside a run's output, if the run's settings are the seed's.
    /// Pure arithmetic on `output`: cheap enough for the page's main thread.
    fn compare(&self, input: &M::Input, output: &RunOutput) -> Option<Reproduction>;
    /// The tables this experiment is scored on (independent numbers, fitted constants).
    fn tables(&self) -> Vec<TableSpec>;
    /// `skblab validate`'s figures for `table` on the mean over `seeds`.
    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck>;

    /// The seed post's table in the experiment's columns (chart overlays).
    fn seed_output(&self) -> Option<RunOutput> {
        None
    }
    /// The parameters `reproduce` runs with (`None`: the defaults).
    fn reproduce_params(&self) -> Option<Params> {
        None
    }
    /// The reproduction of one seed, when it is not one run compared (`None`: a run of
    /// [`SeedTables::reproduce_params`], then [`SeedTables::compare`]).
    fn reproduce(&self, _seed: u64) -> Option<Reproduction> {
        None
    }
    /// For a reproduction gathered from several runs: where one seed's figures may run, from
    /// their [`SeedTables::figures_events`] (`None`: the reproduction is one run per seed).
    fn figures_cost(&self) -> Option<Cost> {
        self.figures_events().map(cost_of)
    }
    /// One seed's simulated figures (see [`SeedTables::figures_cost`]).
    fn figures(&self, _seed: u64) -> Option<Vec<f64>> {
        None
    }
    /// The reproduction of the mean of each seed's figures (in the order of `seeds`).
    fn mean_of_figures(&self, _seeds: &[u64], _figures: &[Vec<f64>]) -> Option<Reproduction> {
        None
    }
    /// The simulated events of one seed's [`SeedTables::figures`] (`None`: one run of
    /// [`SeedTables::reproduce_params`]).
    fn figures_events(&self) -> Option<u64> {
        None
    }
    /// The work of [`SeedTables::check_table`] of `table` over `seeds` seeds (`None`: one
    /// reproduction over them).
    fn check_work(&self, _table: &str, _seeds: u64) -> Option<WorkEstimate> {
        None
    }
}

/// The machines an experiment runs on, the constants fitted to them, and the catalogue
/// quantities its reproduction depends on (`skblab calibrate`, `reproduce --bands`).
pub trait Calibrated<M: Model>: Sync {
    /// Every machine profile it can run (`core/tests/catalogue.rs`).
    fn machines(&self) -> Vec<MachineProfile>;
    /// The fitted constants and their score against the seed (`skblab calibrate`).
    fn calibration(&self) -> Option<&'static dyn Calibration> {
        None
    }
    /// The catalogue quantities (name, sourced range) `reproduce --bands` samples.
    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        Vec::new()
    }
    /// A run with the quantities of [`Calibrated::uncertain`] set to `values` (same order).
    fn run_perturbed(&self, _input: &M::Input, _seed: u64, _values: &[f64]) -> Option<RunOutput> {
        None
    }
}

/// Custom views whose data is more than the run's output (a short run's lanes, a trace).
pub trait CustomViews<M: Model>: Sync {
    /// The data `query` names under the input and seed; `None` for an unknown name or an
    /// input out of its bound. Deterministic, bounded like a run.
    fn view_data(&self, input: &M::Input, seed: u64, query: &ViewQuery) -> Option<ViewData>;
    /// Where the page may compute it.
    fn view_cost(&self, input: &M::Input, query: &ViewQuery) -> Cost;
}

/// The one adapter: every [`Model`] is an [`Experiment`], its input read once per call.
impl<M: Model> Experiment for M {
    // What it is and the parameters it takes.
    fn id(&self) -> &'static str {
        M::ID
    }
    fn title(&self) -> &'static str {
        M::TITLE
    }
    fn summary(&self) -> &'static str {
        M::SUMMARY
    }
    fn specs(&self) -> Vec<ParamSpec> {
        Model::specs(self)
    }
    fn input_names(&self) -> Option<&'static [&'static str]> {
        Some(M::Input::names())
    }
    fn resolve(&self, params: &Params) -> Params {
        Model::resolve(self, params)
    }
    fn validate(&self, params: &Params) -> Result<(), ParamError> {
        Model::validate(self, &M::Input::from(params))
    }

    // A run: its columns, its points, a row per point, the output.
    fn columns(&self, params: &Params) -> Vec<Column> {
        Model::columns(self, &M::Input::from(params))
    }
    fn meanings(&self, params: &Params) -> Vec<Meaning> {
        Model::meanings(self, &M::Input::from(params))
    }
    fn points(&self, params: &Params) -> Vec<Point> {
        Model::points(self, &M::Input::from(params))
    }
    fn run_point(&self, params: &Params, point: &Point, seed: u64) -> Row {
        let input = M::Input::from(params);
        let worlds = self.worlds(&input, point, seed, &mut Runner::plain());
        self.row(&input, point, worlds)
    }
    fn finish(&self, params: &Params, seed: u64, rows: Vec<Row>) -> RunOutput {
        Model::finish(self, &M::Input::from(params), seed, rows)
    }
    fn run_point_checked(&self, params: &Params, point: &Point, seed: u64, max_events: u64) -> Result<Checked, String> {
        let mut runner = Runner::checked(max_events);
        self.worlds(&M::Input::from(params), point, seed, &mut runner);
        runner.finish()
    }
    fn run(&self, params: &Params, seed: u64) -> RunOutput {
        let input = M::Input::from(params);
        let rows = crate::calibrate::par_map(&Model::points(self, &input), |p| {
            let worlds = self.worlds(&input, p, seed, &mut Runner::plain());
            self.row(&input, p, worlds)
        });
        Model::finish(self, &input, seed, rows)
    }
    fn monotone(&self) -> Vec<Monotone> {
        Model::monotone(self)
    }

    // How heavy a run is, before it starts (`WorkEstimate`, `Cost`).
    fn estimate(&self, params: &Params) -> WorkEstimate {
        let input = M::Input::from(params);
        let points = Model::points(self, &input).len() as u64;
        WorkEstimate { extra: Model::extra_work(self, &input), ..WorkEstimate::new(points, total_events(self, &input)) }
    }
    fn events_per_s(&self) -> f64 {
        M::EVENTS_PER_S
    }
    fn reproduce_estimate(&self, seeds: u64) -> WorkEstimate {
        let run = Experiment::estimate(self, &Experiment::reproduce_params(self));
        match self.seed_tables().and_then(|t| t.figures_events()) {
            Some(events) => WorkEstimate::new(1, events).times(seeds),
            None => run.times(seeds),
        }
    }
    fn validate_estimate(&self, seeds: u64) -> WorkEstimate {
        let Some(t) = self.seed_tables() else { return WorkEstimate::new(0, 0) };
        let one = Experiment::reproduce_estimate(self, seeds);
        let tables = t.tables();
        let checks = tables
            .iter()
            .fold(WorkEstimate::new(0, 0), |sum, spec| sum.plus(t.check_work(spec.table, seeds).unwrap_or(one)));
        // A fitted table's experiment also moves each uncertain quantity ±10 % from its base
        // run, one perturbed run each (`validate::sensitivity`).
        let fitted = tables.iter().any(|spec| spec.verdict() == crate::calibrate::tables::Verdict::Fit);
        let moved = if fitted { 1 + 2 * Experiment::uncertain(self).len() as u64 } else { 0 };
        checks.plus(Experiment::bands_estimate(self, moved))
    }
    fn cost(&self, params: &Params) -> Cost {
        Model::cost(self, &M::Input::from(params))
    }
    fn point_cost(&self, params: &Params, point: &Point) -> Cost {
        Model::point_cost(self, &M::Input::from(params), point)
    }
    fn point_events(&self, params: &Params, point: &Point) -> Option<u64> {
        Some(self.events(&M::Input::from(params), point))
    }

    // The views of a run, and a custom view's own data.
    fn views(&self) -> Vec<ViewSpec> {
        Model::views(self)
    }
    fn view_data(&self, params: &Params, seed: u64, query: &ViewQuery) -> Option<ViewData> {
        self.custom_views()?.view_data(&M::Input::from(params), seed, query)
    }
    fn view_cost(&self, params: &Params, query: &ViewQuery) -> Cost {
        match self.custom_views() {
            Some(v) => v.view_cost(&M::Input::from(params), query),
            None => Model::cost(self, &M::Input::from(params)),
        }
    }

    // The seed post's tables: the reproduction, its mean over seeds, `validate`'s checks.
    fn seed_output(&self) -> Option<RunOutput> {
        self.seed_tables()?.seed_output()
    }
    fn compare(&self, params: &Params, output: &RunOutput) -> Option<Reproduction> {
        self.seed_tables()?.compare(&M::Input::from(params), output)
    }
    fn reproduce_params(&self) -> Params {
        self.seed_tables().and_then(|s| s.reproduce_params()).unwrap_or_else(|| self.defaults())
    }
    fn reproduce(&self, seed: u64) -> Option<Reproduction> {
        let tables = self.seed_tables()?;
        if let Some(r) = tables.reproduce(seed) {
            return Some(r);
        }
        let params = Experiment::reproduce_params(self);
        tables.compare(&M::Input::from(&params), &Experiment::run(self, &params, seed))
    }
    fn reproduce_figures_cost(&self) -> Option<Cost> {
        self.seed_tables()?.figures_cost()
    }
    fn reproduce_figures(&self, seed: u64) -> Option<Vec<f64>> {
        self.seed_tables()?.figures(seed)
    }
    fn reproduce_from_figures(&self, seeds: &[u64], figures: &[Vec<f64>]) -> Option<Reproduction> {
        self.seed_tables()?.mean_of_figures(seeds, figures)
    }
    fn tables(&self) -> Vec<TableSpec> {
        self.seed_tables().map(|s| s.tables()).unwrap_or_default()
    }
    fn check_table(&self, table: &str, seeds: &[u64]) -> Option<TableCheck> {
        self.seed_tables()?.check_table(table, seeds)
    }

    // The machines, the fitted constants and the uncertain quantities.
    fn calibration(&self) -> Option<&'static dyn Calibration> {
        self.calibrated()?.calibration()
    }
    fn machines(&self) -> Vec<MachineProfile> {
        self.calibrated().map(|c| c.machines()).unwrap_or_default()
    }
    fn uncertain(&self) -> Vec<(&'static str, Quantity)> {
        self.calibrated().map(|c| c.uncertain()).unwrap_or_default()
    }
    fn run_perturbed(&self, params: &Params, seed: u64, values: &[f64]) -> Option<RunOutput> {
        self.calibrated()?.run_perturbed(&M::Input::from(params), seed, values)
    }
}
