//! The Web Worker that runs any experiment's sweep off the main thread, and its protocol.
//!
//! A heavy run (core's [`Cost::Heavy`](skblab_core::Cost)) would block the page, so the main
//! thread posts a [`RunRequest`] (experiment id, typed parameters, seed, a generation number);
//! the worker computes core's points one by one and answers with one [`Reply::Row`] per point
//! (core's own row type) as soon as it is computed, then [`Reply::Done`] with core's
//! `finish()` of all rows. A newer request replaces the running one between two points, and
//! every reply carries its request's generation so the page can drop stale ones. A light
//! first point the page computed itself comes with the request ([`RunRequest::first_row`]) and
//! is not computed again.
//!
//! A custom view's heavy data (core's `Experiment::view_data`) is a [`ViewRequest`]: it waits
//! in a queue beside the run and goes before the run's next point, without replacing the run;
//! [`Reply::View`] carries the data as JSON (embedded raw, not as an escaped string).
//!
//! An uncertainty band (core's [`BandJob`]: Latin-hypercube samples of the catalogue constants,
//! one `run_perturbed` of the reproduction's parameters each) is a [`BandsRequest`]: one
//! sample per task, before the run's next point, each answered by a [`Reply::Band`] with the
//! band so far (the page draws it as it widens); a newer band request replaces the running one.
//!
//! The worker computes one point per task (scheduled through a `MessageChannel`, which unlike
//! `setTimeout` is not clamped), so a new request is read after at most one point.
//! Messages are JSON text. [`RunJob`] is pure and unit-tested natively; [`serve`] is the
//! browser glue, called by the `worker` binary (`src/bin/worker.rs`).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use skblab_core::validate::{BandJob, Bands};
use skblab_core::{Experiment, Params, ParamsWire, Point, Row, RunOutput, ViewQuery};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

/// The worker's entry script (`static/sweep-worker.js`, copied by Trunk). Trunk builds the
/// `worker` binary as a classic script (`worker.js`, name without hash) that only defines
/// `wasm_bindgen`; the entry script imports it and starts the wasm. Spawn it as a classic
/// worker (the default of `new Worker`), never as a module worker.
pub const WORKER_URL: &str = "./sweep-worker.js";

/// Start (or restart) a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    pub generation: u64,
    pub experiment: String,
    /// Every parameter, typed (validated again by the worker against the spec).
    pub params: ParamsWire,
    pub seed: u64,
    /// The row of the first point, if the page computed it (a light first point): the worker
    /// starts with it instead of computing it again.
    #[serde(default)]
    pub first_row: Option<Row>,
}

impl RunRequest {
    pub fn new(generation: u64, experiment: &dyn Experiment, params: &Params, seed: u64) -> RunRequest {
        RunRequest {
            generation,
            experiment: experiment.id().to_string(),
            params: params.to_wire(),
            seed,
            first_row: None,
        }
    }
}

/// Compute a custom view's data (core's `Experiment::view_data`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewRequest {
    /// The page's number for it, echoed in the reply.
    pub id: u64,
    pub experiment: String,
    pub params: ParamsWire,
    pub seed: u64,
    pub query: ViewQuery,
}

impl ViewRequest {
    /// The data's JSON text, or why there is none.
    pub fn compute(&self) -> Result<String, String> {
        let experiment = skblab_core::find(&self.experiment).map_err(|e| e.to_string())?;
        let params = experiment.params_from_wire(&self.params).map_err(|e| e.to_string())?;
        let data = experiment.view_data(&params, self.seed, &self.query);
        let data = data.ok_or_else(|| format!("{} has no view data {:?}", self.experiment, self.query))?;
        Ok(data.to_json())
    }
}

/// Compute an uncertainty band of an experiment's reproduction (its `reproduce_params`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BandsRequest {
    /// The page's number for it, echoed in every reply.
    pub id: u64,
    pub experiment: String,
    pub seed: u64,
    pub samples: u32,
}

impl BandsRequest {
    /// The job, or why there is none.
    pub fn job(&self) -> Result<BandJob<'static>, String> {
        let e = skblab_core::find(&self.experiment).map_err(|e| e.to_string())?;
        BandJob::new(e, &e.reproduce_params(), self.seed, self.samples)
            .ok_or_else(|| format!("{} declares no uncertain quantities", self.experiment))
    }
}

/// What the page posts to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Start a run, replacing the running one.
    Run(RunRequest),
    /// Stop the running run (the page showed a cached one instead); queued views stay.
    Cancel,
    /// Compute a view's data before the run's next point.
    View(ViewRequest),
    /// Compute an uncertainty band, one sample per task before the run's next point.
    Bands(BandsRequest),
}

/// What the worker posts back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Reply {
    /// The worker's handler is installed: messages posted before this are lost (the wasm loads
    /// asynchronously after the worker starts), so the page holds its request until then.
    Ready,
    Row {
        generation: u64,
        /// Index of the point ([`Point::index`]) and how many points the run has.
        index: u32,
        n_points: u32,
        row: Row,
        compute_ms: f64,
    },
    Done {
        generation: u64,
        output: RunOutput,
        compute_ms: f64,
    },
    Failed {
        generation: u64,
        message: String,
    },
    /// A view's data, as JSON.
    View {
        id: u64,
        data: Box<RawValue>,
        compute_ms: f64,
    },
    ViewFailed {
        id: u64,
        message: String,
    },
    /// The band of request `id` after another sample (`done` after the last).
    Band {
        id: u64,
        bands: Bands,
        done: bool,
        compute_ms: f64,
    },
    BandFailed {
        id: u64,
        message: String,
    },
}

// `RawValue` has no `PartialEq`: replies compare by their JSON text (tests).
impl PartialEq for Reply {
    fn eq(&self, other: &Self) -> bool {
        serde_json::to_string(self).ok() == serde_json::to_string(other).ok()
    }
}

/// A run in progress: its points, the rows so far, then `finish`.
pub struct RunJob {
    pub generation: u64,
    experiment: &'static dyn Experiment,
    params: Params,
    seed: u64,
    points: Vec<Point>,
    rows: Vec<Row>,
}

/// What one step of a job produced.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Row { index: u32, row: Row },
    Done(RunOutput),
}

impl RunJob {
    /// Validates the request: a known experiment and parameters inside its spec.
    pub fn new(request: &RunRequest) -> Result<RunJob, String> {
        let experiment = skblab_core::find(&request.experiment).map_err(|e| e.to_string())?;
        let params = experiment.params_from_wire(&request.params).map_err(|e| e.to_string())?;
        let points = experiment.points(&params);
        let mut rows = Vec::new();
        if let Some(row) = &request.first_row {
            if points.len() < 2 || row.len() != experiment.columns(&params).len() {
                return Err("the page's first row does not fit the run".to_string());
            }
            rows.push(row.clone());
        }
        Ok(RunJob { generation: request.generation, experiment, params, seed: request.seed, points, rows })
    }

    pub fn n_points(&self) -> u32 {
        self.points.len() as u32
    }

    /// Computes the next point, or finishes the run once every point is done. A run of one
    /// point is the experiment's whole `run` in one step: an experiment may share work between
    /// its row and its views there (page-frag-free simulates its before/after pair once).
    pub fn step(&mut self) -> Step {
        if self.points.len() == 1 && self.rows.is_empty() {
            self.points.clear();
            return Step::Done(self.experiment.run(&self.params, self.seed));
        }
        match self.points.get(self.rows.len()) {
            Some(point) => {
                let row = self.experiment.run_point(&self.params, point, self.seed);
                self.rows.push(row.clone());
                Step::Row { index: point.index, row }
            }
            None => Step::Done(self.experiment.finish(&self.params, self.seed, std::mem::take(&mut self.rows))),
        }
    }
}

/// The worker's state between tasks.
#[derive(Default)]
struct WorkerState {
    job: Option<RunJob>,
    /// View requests, oldest first: each goes before the job's next point.
    views: VecDeque<ViewRequest>,
    /// Compute time of the current job so far.
    compute_ms: f64,
    /// The band in progress and its request's id.
    band: Option<(u64, BandJob<'static>)>,
}

/// Installs the worker's message handler; called once by the worker binary's `main`.
pub fn serve() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let channel = MessageChannel::new().expect("MessageChannel exists in workers");
    let state = Rc::new(RefCell::new(WorkerState::default()));
    let kick = Rc::new(KickPort { port: channel.port2(), busy: Cell::new(false) });
    let on_tick = {
        let (scope, state, kick) = (scope.clone(), state.clone(), kick.clone());
        Closure::<dyn FnMut(MessageEvent)>::new(move |_: MessageEvent| tick(&scope, &state, &kick))
    };
    channel.port1().set_onmessage(Some(on_tick.as_ref().unchecked_ref()));
    on_tick.forget();
    let on_request = {
        let scope2 = scope.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let text = e.data().as_string().unwrap_or_default();
            match serde_json::from_str::<Request>(&text) {
                Ok(Request::Cancel) => state.borrow_mut().job = None,
                Ok(Request::View(request)) => {
                    state.borrow_mut().views.push_back(request);
                    kick.queue();
                }
                Ok(Request::Bands(request)) => match request.job() {
                    Ok(job) => {
                        state.borrow_mut().band = Some((request.id, job));
                        kick.queue();
                    }
                    Err(message) => post(&scope2, &Reply::BandFailed { id: request.id, message }),
                },
                Ok(Request::Run(request)) => match RunJob::new(&request) {
                    Ok(job) => {
                        let mut s = state.borrow_mut();
                        (s.job, s.compute_ms) = (Some(job), 0.0);
                        drop(s);
                        kick.queue();
                    }
                    Err(message) => post(&scope2, &Reply::Failed { generation: request.generation, message }),
                },
                Err(e) => post(&scope2, &Reply::Failed { generation: 0, message: format!("bad request: {e}") }),
            }
        })
    };
    scope.set_onmessage(Some(on_request.as_ref().unchecked_ref()));
    on_request.forget();
    post(&scope, &Reply::Ready);
}

/// The port that queues the next tick, with a flag so that at most one tick is queued (two
/// queued ticks would each queue another, and the worker would compute two jobs' worth).
struct KickPort {
    port: MessagePort,
    busy: Cell<bool>,
}

impl KickPort {
    fn queue(&self) {
        if !self.busy.replace(true) {
            let _ = self.port.post_message(&JsValue::NULL);
        }
    }
}

/// One task: computes the oldest view request, or one point (or the finish) of the current
/// job, and queues the next task.
fn tick(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<WorkerState>>, kick: &KickPort) {
    kick.busy.set(false);
    let now = || scope.performance().map_or(0.0, |p| p.now());
    let t0 = now();
    let view = state.borrow_mut().views.pop_front();
    if let Some(request) = view {
        let reply = match request.compute().and_then(|json| RawValue::from_string(json).map_err(|e| e.to_string())) {
            Ok(data) => Reply::View { id: request.id, data, compute_ms: now() - t0 },
            Err(message) => Reply::ViewFailed { id: request.id, message },
        };
        post(scope, &reply);
        kick.queue();
        return;
    }
    if let Some(reply) = band_step(state, &now, t0) {
        post(scope, &reply);
        kick.queue();
        return;
    }
    let mut s = state.borrow_mut();
    let Some(job) = s.job.as_mut() else { return };
    let (generation, n_points) = (job.generation, job.n_points());
    let step = job.step();
    let compute_ms = now() - t0;
    s.compute_ms += compute_ms;
    let total_ms = s.compute_ms;
    let done = matches!(step, Step::Done(_));
    if done {
        s.job = None;
    }
    drop(s);
    match step {
        Step::Row { index, row } => {
            post(scope, &Reply::Row { generation, index, n_points, row, compute_ms });
            kick.queue();
        }
        Step::Done(output) => post(scope, &Reply::Done { generation, output, compute_ms: total_ms }),
    }
}

/// One sample of the band in progress, if there is one: its reply (the band so far).
fn band_step(state: &Rc<RefCell<WorkerState>>, now: &dyn Fn() -> f64, t0: f64) -> Option<Reply> {
    let mut s = state.borrow_mut();
    let (id, job) = s.band.as_mut()?;
    job.step();
    let (id, done, bands) = (*id, job.is_done(), job.bands().clone());
    if done {
        s.band = None;
    }
    Some(Reply::Band { id, bands, done, compute_ms: now() - t0 })
}

fn post(scope: &DedicatedWorkerGlobalScope, reply: &Reply) {
    let text = serde_json::to_string(reply).expect("replies serialize");
    let _ = scope.post_message(&JsValue::from_str(&text));
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::high_order_alloc as hoa;

    fn request(settings: &[&str]) -> RunRequest {
        let e = skblab_core::find(hoa::ID).unwrap();
        let settings: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
        RunRequest::new(7, e, &e.params_from(&settings).unwrap(), 1)
    }

    #[test]
    fn request_round_trips_as_json() {
        let r = request(&["max_threads=3"]);
        let text = serde_json::to_string(&Request::Run(r.clone())).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&text).unwrap(), Request::Run(r));
    }

    #[test]
    fn job_gives_the_rows_and_output_of_core_run() {
        let r = request(&["max_threads=2", "measure_us=200", "warmup_us=100", "profile_threads=2"]);
        let mut job = RunJob::new(&r).unwrap();
        let e = skblab_core::find(hoa::ID).unwrap();
        let params = e.params_from_wire(&r.params).unwrap();
        let expected = e.run(&params, 1);
        let mut rows = Vec::new();
        let output = loop {
            match job.step() {
                Step::Row { index, row } => rows.push((index, row)),
                Step::Done(out) => break out,
            }
        };
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(rows.into_iter().map(|r| r.1).collect::<Vec<_>>(), expected.rows);
        assert_eq!(output, expected);
        // Rows and outputs cross the boundary as JSON, bit for bit.
        let reply = Reply::Done { generation: 7, output: output.clone(), compute_ms: 1.5 };
        assert_eq!(serde_json::from_str::<Reply>(&serde_json::to_string(&reply).unwrap()).unwrap(), reply);
    }

    #[test]
    fn a_first_row_from_the_page_is_not_computed_again() {
        let r = request(&["max_threads=3", "measure_us=200", "warmup_us=100", "profile_threads=2"]);
        let e = skblab_core::find(hoa::ID).unwrap();
        let params = e.params_from_wire(&r.params).unwrap();
        let first = e.run_point(&params, &e.points(&params)[0], 1);
        let mut job = RunJob::new(&RunRequest { first_row: Some(first), ..r.clone() }).unwrap();
        let mut indexes = Vec::new();
        let output = loop {
            match job.step() {
                Step::Row { index, .. } => indexes.push(index),
                Step::Done(out) => break out,
            }
        };
        assert_eq!(indexes, vec![1, 2], "point 0 came with the request");
        assert_eq!(output, e.run(&params, 1));
        let bad = RunRequest { first_row: Some(vec![skblab_core::Cell::Int(1)]), ..r };
        assert!(RunJob::new(&bad).is_err());
    }

    #[test]
    fn a_view_request_gives_core_view_data_as_json() {
        let e = skblab_core::find(hoa::ID).unwrap();
        let p = e.defaults();
        let query = skblab_core::ViewQuery::new("trace").with("flows", 1).with("order", 0);
        let v = ViewRequest { id: 3, experiment: hoa::ID.into(), params: p.to_wire(), seed: 1, query: query.clone() };
        let json = v.compute().unwrap();
        assert_eq!(json, e.view_data(&p, 1, &query).unwrap().to_json());
        let reply = Reply::View { id: 3, data: RawValue::from_string(json).unwrap(), compute_ms: 1.0 };
        let text = serde_json::to_string(&reply).unwrap();
        assert_eq!(serde_json::from_str::<Reply>(&text).unwrap(), reply);
        let bad = ViewRequest { query: skblab_core::ViewQuery::new("trace"), ..v };
        assert!(bad.compute().unwrap_err().contains("no view data"));
    }

    #[test]
    fn a_band_request_is_core_band_job_and_its_reply_round_trips() {
        let r = BandsRequest { id: 4, experiment: "cross-cpu-free".into(), seed: 1, samples: 3 };
        let text = serde_json::to_string(&Request::Bands(r.clone())).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&text).unwrap(), Request::Bands(r.clone()));
        let mut job = r.job().unwrap();
        while job.step() {}
        let e = skblab_core::find("cross-cpu-free").unwrap();
        let expected = skblab_core::validate::bands_with(e, &e.reproduce_params(), 1, 3, &mut |_| {}).unwrap();
        assert_eq!(job.bands(), &expected);
        let reply = Reply::Band { id: 4, bands: expected, done: true, compute_ms: 2.0 };
        assert_eq!(serde_json::from_str::<Reply>(&serde_json::to_string(&reply).unwrap()).unwrap(), reply);
        let none = BandsRequest { experiment: "skb-layout".into(), ..r };
        assert!(none.job().err().unwrap().contains("no uncertain"));
    }

    #[test]
    fn bad_requests_are_errors_with_a_reason() {
        let mut r = request(&[]);
        r.experiment = "nope".into();
        assert!(RunJob::new(&r).err().unwrap().contains("nope"));
        let mut r = request(&[]);
        r.params.values.insert("max_threads".into(), skblab_core::Value::Int(999));
        assert!(RunJob::new(&r).err().unwrap().contains("max_threads"));
    }

    #[test]
    fn every_experiment_runs_in_the_job() {
        for e in skblab_core::experiments() {
            let p = e.defaults();
            if e.cost(&p) == skblab_core::Cost::Light {
                let mut job = RunJob::new(&RunRequest::new(1, *e, &p, 1)).unwrap();
                let out = loop {
                    if let Step::Done(out) = job.step() {
                        break out;
                    }
                };
                assert_eq!(out, e.run(&p, 1), "{}", e.id());
            }
        }
    }

    #[test]
    fn a_one_point_run_is_the_whole_run_in_one_step() {
        let e = skblab_core::find("page-frag-free").unwrap();
        let mut p = e.defaults();
        p.set("machine", skblab_core::Value::Choice("cortex-a53".into())).unwrap();
        assert_eq!(e.points(&p).len(), 1);
        let mut job = RunJob::new(&RunRequest::new(1, e, &p, 3)).unwrap();
        assert_eq!(job.step(), Step::Done(e.run(&p, 3)));
    }
}
