//! The Web Workers that run experiments off the main thread, and their protocol.
//!
//! The page keeps a pool of identical workers (`min(navigator.hardwareConcurrency, 8)`,
//! [`crate::run`]) and hands each one **task** at a time: a [`Request`] carrying its task
//! number, answered by exactly one [`Reply`] with the same number. A task is small and
//! independent of every other one, so the page can spread a run over the pool and put the
//! answers together in order:
//!
//! - [`Request::Point`]: one point of a run (core's `run_point`), answered by [`Reply::Row`];
//! - [`Request::Finish`]: core's `finish()` of a run's rows (the text views, a profiled run),
//!   answered by [`Reply::Done`]; a one-point run is [`Request::Whole`], the experiment's whole
//!   `run` in one task (an experiment may share work between its row and its views there);
//! - [`Request::View`]: a custom view's heavy data (`Experiment::view_data`), [`Reply::View`]
//!   carrying it as JSON (embedded raw, not as an escaped string);
//! - [`Request::BandSample`]: one sample of an uncertainty band (core's Latin hypercube over
//!   `Experiment::uncertain`, one `run_perturbed` of the reproduction's parameters), answered by
//!   [`Reply::Band`] with that sample's band; the page folds the samples in index order
//!   ([`fold_bands`]), which gives core's `bands_with` bit for bit;
//! - [`Request::MachineFit`]: a measurement file of the "Your machine" page, parsed by core's
//!   `measure::parse` and fitted by core's `MachineFit` ([`crate::worker::machine::fit`]): the
//!   one task that posts more than one reply — [`Reply::MachineStart`] (the file's facts), one
//!   [`Reply::MachineProgress`] per simulator run, then [`Reply::Machine`] (core's report, bit for
//!   bit the CLI's) or [`Reply::Failed`] (the file's problem, one line).
//!
//! Points are independent and deterministic, so the rows are the same whichever worker
//! computes them, and the run the page assembles is core's `run` bit for bit (rows and outputs
//! cross the boundary as JSON with `float_roundtrip`). A worker computes its task inside the
//! message handler: the page stops a task by terminating its worker. [`Request::compute`] is
//! pure and unit-tested natively; [`serve`] is the browser glue, called by the `worker` binary
//! (`src/bin/worker.rs`).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use skblab_core::calibrate::{start_points, Constant};
use skblab_core::output::Reproduction;
use skblab_core::validate::{BandCell, BandQuantity, Bands, MAX_BANDS};
use skblab_core::{Experiment, Params, ParamsWire, Row, RunOutput, ViewQuery};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use machine::MachineFacts;
use skblab_core::machine::fit::MachineReport;

/// The workers' entry script (`static/sweep-worker.js`, copied by Trunk). Trunk builds the
/// `worker` binary as a classic script (`worker.js`, name without hash) that only defines
/// `wasm_bindgen`; the entry script imports it and starts the wasm. Spawn it as a classic
/// worker (the default of `new Worker`), never as a module worker.
pub const WORKER_URL: &str = "./sweep-worker.js";

/// Which run a task belongs to: experiment, typed parameters (validated again by the worker
/// against the spec) and seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    pub experiment: String,
    pub params: ParamsWire,
    pub seed: u64,
}

impl RunSpec {
    pub fn new(experiment: &dyn Experiment, params: &Params, seed: u64) -> RunSpec {
        RunSpec { experiment: experiment.id().to_string(), params: params.to_wire(), seed }
    }

    /// The experiment and its parameters, checked.
    fn resolve(&self) -> Result<(&'static dyn Experiment, Params), String> {
        let e = skblab_core::find(&self.experiment).map_err(|e| e.to_string())?;
        let params = e.params_from_wire(&self.params).map_err(|e| e.to_string())?;
        Ok((e, params))
    }
}

/// A task for one worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// The row of the point at `position` in `points()` of the run.
    Point { task: u64, run: RunSpec, position: u32 },
    /// `finish()` of the run's rows, in point order.
    Finish { task: u64, run: RunSpec, rows: Vec<Row> },
    /// The whole `run()` (a run of one point).
    Whole { task: u64, run: RunSpec },
    /// A custom view's data.
    View { task: u64, run: RunSpec, query: ViewQuery },
    /// Sample `index` of `samples` of `experiment`'s uncertainty band on `seed`.
    BandSample { task: u64, experiment: String, seed: u64, samples: u32, index: u32 },
    /// Parse and fit a measurement file (its text as the reader gave it).
    MachineFit { task: u64, text: String },
}

/// What a worker posts back: one reply per task (and [`Reply::Ready`] once).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// The worker's handler is installed: messages posted before this are lost (the wasm loads
    /// asynchronously after the worker starts), so the page gives it a task only then.
    Ready,
    Row {
        task: u64,
        row: Row,
        compute_ms: f64,
    },
    Done {
        task: u64,
        output: RunOutput,
        compute_ms: f64,
    },
    /// A view's data, as JSON.
    View {
        task: u64,
        data: Box<RawValue>,
        compute_ms: f64,
    },
    /// The band of one sample (`None`: its run or comparison failed, it adds nothing).
    Band {
        task: u64,
        bands: Option<Bands>,
        compute_ms: f64,
    },
    /// A measurement file parsed: its facts, the fit's simulator runs and their expected events.
    MachineStart {
        task: u64,
        facts: MachineFacts,
        total: u32,
        events: u64,
    },
    /// `done` of `total` runs of the fit (not the task's answer: more replies follow).
    MachineProgress {
        task: u64,
        done: u32,
        total: u32,
    },
    /// The fit's report.
    Machine {
        task: u64,
        report: Box<MachineReport>,
        compute_ms: f64,
    },
    Failed {
        task: u64,
        message: String,
    },
}

// `RawValue` has no `PartialEq`: replies compare by their JSON text (tests).
impl PartialEq for Reply {
    fn eq(&self, other: &Self) -> bool {
        serde_json::to_string(self).ok() == serde_json::to_string(other).ok()
    }
}

impl Reply {
    /// The task it answers or reports on ([`Reply::Ready`] has none).
    pub fn task(&self) -> Option<u64> {
        match self {
            Reply::Ready => None,
            Reply::Row { task, .. }
            | Reply::Done { task, .. }
            | Reply::View { task, .. }
            | Reply::Band { task, .. }
            | Reply::MachineStart { task, .. }
            | Reply::MachineProgress { task, .. }
            | Reply::Machine { task, .. }
            | Reply::Failed { task, .. } => Some(*task),
        }
    }

    /// Whether it is its task's answer (the worker is free again), not a report of how far
    /// the task has come (more replies follow).
    pub fn answers(&self) -> bool {
        !matches!(self, Reply::Ready | Reply::MachineStart { .. } | Reply::MachineProgress { .. })
    }
}

impl Request {
    pub fn task(&self) -> u64 {
        match self {
            Request::Point { task, .. }
            | Request::Finish { task, .. }
            | Request::Whole { task, .. }
            | Request::View { task, .. }
            | Request::BandSample { task, .. }
            | Request::MachineFit { task, .. } => *task,
        }
    }

    /// Computes the task: its reply, with `compute_ms` set to 0 (the glue times it).
    pub fn compute(&self) -> Reply {
        let task = self.task();
        let failed = |message: String| Reply::Failed { task, message };
        match self {
            Request::Point { run, position, .. } => match run.resolve() {
                Ok((e, params)) => match e.points(&params).get(*position as usize) {
                    Some(point) => Reply::Row { task, row: e.run_point(&params, point, run.seed), compute_ms: 0.0 },
                    None => failed(format!("{} has no point {position}", run.experiment)),
                },
                Err(m) => failed(m),
            },
            Request::Finish { run, rows, .. } => match run.resolve() {
                Ok((e, params)) if rows.len() == e.points(&params).len() => {
                    Reply::Done { task, output: e.finish(&params, run.seed, rows.clone()), compute_ms: 0.0 }
                }
                Ok(_) => failed("the rows do not fit the run".to_string()),
                Err(m) => failed(m),
            },
            Request::Whole { run, .. } => match run.resolve() {
                Ok((e, params)) => Reply::Done { task, output: e.run(&params, run.seed), compute_ms: 0.0 },
                Err(m) => failed(m),
            },
            Request::View { run, query, .. } => match view_json(run, query) {
                Ok(data) => Reply::View { task, data, compute_ms: 0.0 },
                Err(m) => failed(m),
            },
            Request::BandSample { experiment, seed, samples, index, .. } => {
                match band_sample(experiment, *seed, *samples, *index) {
                    Ok(bands) => Reply::Band { task, bands, compute_ms: 0.0 },
                    Err(m) => failed(m),
                }
            }
            Request::MachineFit { text, .. } => machine::fit(task, text, &mut |_| {}),
        }
    }
}

fn view_json(run: &RunSpec, query: &ViewQuery) -> Result<Box<RawValue>, String> {
    let (e, params) = run.resolve()?;
    let data = skblab_core::experiment::view_data_of(e, &params, run.seed, query);
    let data = data.ok_or_else(|| format!("{} has no view data {:?}", run.experiment, query))?;
    RawValue::from_string(data.to_json()).map_err(|e| e.to_string())
}

/// The band of `e`'s reproduction before any sample: what core's `BandJob` starts from.
pub fn empty_bands(e: &dyn Experiment, seed: u64, samples: u32) -> Bands {
    let quantities = e
        .uncertain()
        .iter()
        .map(|(name, q)| BandQuantity { name: name.to_string(), min: q.min, max: q.max, unit: q.unit.to_string() })
        .collect();
    Bands {
        experiment: e.id().to_string(),
        samples: samples.min(MAX_BANDS),
        ran: 0,
        seed,
        quantities,
        cells: Vec::new(),
    }
}

/// Sample `index` of `samples` of the band of `experiment` on `seed`: the same Latin-hypercube
/// point core's `BandJob` runs at that index (`start_points` over the uncertain quantities),
/// one `run_perturbed` of the reproduction's parameters, as a band of that sample alone.
pub fn band_sample(experiment: &str, seed: u64, samples: u32, index: u32) -> Result<Option<Bands>, String> {
    let e = skblab_core::find(experiment).map_err(|e| e.to_string())?;
    let uncertain = e.uncertain();
    if uncertain.is_empty() {
        return Err(format!("{experiment} declares no uncertain quantities"));
    }
    let n = samples.min(MAX_BANDS);
    let constants: Vec<Constant> = uncertain
        .iter()
        .map(|(name, q)| Constant { name, unit: q.unit, min: q.min, max: q.max, source: q.source })
        .collect();
    let points = start_points(&constants, n);
    let values = points.get(index as usize).ok_or_else(|| format!("a band of {n} samples has no sample {index}"))?;
    let params = e.reproduce_params();
    let Some(r) = e.run_perturbed(&params, seed, values).and_then(|out| e.compare(&params, &out)) else {
        return Ok(None);
    };
    let mut bands = empty_bands(e, seed, samples);
    absorb(&mut bands, &r);
    Ok(Some(bands))
}

/// Widens `bands` by the simulated cells of `r` (one more sample that ran).
fn absorb(bands: &mut Bands, r: &Reproduction) {
    bands.ran += 1;
    for row in &r.rows {
        for c in &row.cells {
            widen(&mut bands.cells, &row.label, c.metric, [c.simulated; 2]);
        }
    }
}

fn widen(cells: &mut Vec<BandCell>, label: &str, metric: &str, band: [f64; 2]) {
    match cells.iter_mut().find(|b| b.label == label && b.metric == metric) {
        Some(b) => b.band = [b.band[0].min(band[0]), b.band[1].max(band[1])],
        None => cells.push(BandCell { label: label.to_string(), metric: metric.to_string(), band }),
    }
}

/// The band of the samples so far, folded in sample order onto `empty` (each `None` a sample
/// that ran and added nothing): core's band of those samples, whatever order they arrived in.
pub fn fold_bands<'a>(empty: &Bands, samples: impl IntoIterator<Item = Option<&'a Bands>>) -> Bands {
    let mut out = empty.clone();
    for b in samples.into_iter().flatten() {
        out.ran += b.ran;
        for c in &b.cells {
            widen(&mut out.cells, &c.label, &c.metric, c.band);
        }
    }
    out
}

/// Installs the worker's message handler; called once by the worker binary's `main`. Each
/// message is one task, computed at once; its reply carries the compute time.
pub fn serve() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let on_request = {
        let scope = scope.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let text = e.data().as_string().unwrap_or_default();
            let now = || scope.performance().map_or(0.0, |p| p.now());
            let t0 = now();
            let mut reply = match serde_json::from_str::<Request>(&text) {
                // The one task that reports as it goes (progress after every simulator run).
                Ok(Request::MachineFit { task, text }) => machine::fit(task, &text, &mut |r| post(&scope, &r)),
                Ok(request) => request.compute(),
                Err(e) => Reply::Failed { task: 0, message: format!("bad request: {e}") },
            };
            let ms = now() - t0;
            match &mut reply {
                Reply::Row { compute_ms, .. }
                | Reply::Done { compute_ms, .. }
                | Reply::View { compute_ms, .. }
                | Reply::Band { compute_ms, .. }
                | Reply::Machine { compute_ms, .. } => *compute_ms = ms,
                Reply::Ready | Reply::Failed { .. } | Reply::MachineStart { .. } | Reply::MachineProgress { .. } => {}
            }
            post(&scope, &reply);
        })
    };
    scope.set_onmessage(Some(on_request.as_ref().unchecked_ref()));
    on_request.forget();
    post(&scope, &Reply::Ready);
}

fn post(scope: &DedicatedWorkerGlobalScope, reply: &Reply) {
    let text = serde_json::to_string(reply).expect("replies serialize");
    let _ = scope.post_message(&JsValue::from_str(&text));
}

pub mod machine;
#[cfg(test)]
mod tests;
