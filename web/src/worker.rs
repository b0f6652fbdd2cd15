//! The Web Worker that runs `high-order-alloc`'s sweep off the main thread, and its protocol.
//!
//! The full sweep is 60 simulated runs (every flow count, both frag orders): about half a second
//! natively, longer in wasm, far too long to block the page. The main thread posts a
//! [`SweepRequest`] (parameters as `name=value` text, seed, a generation number); the worker
//! answers with one [`Reply::Point`] per flow count as soon as it is computed, then
//! [`Reply::Done`]. A newer request replaces the running one between two points, and every
//! reply carries its request's generation so the page can drop stale ones.
//!
//! The worker computes one point per task (scheduled through a `MessageChannel`, which unlike
//! `setTimeout` is not clamped), so a new request is read after at most one point.
//! Messages are JSON text. [`SweepJob`] is pure and unit-tested natively; [`serve`] is the
//! browser glue, called by the `worker` binary (`src/bin/worker.rs`).

use serde::{Deserialize, Serialize};
use skblab_core::experiments::high_order_alloc::{self as hoa, SweepPoint};
use skblab_core::{Experiment, Params};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent, MessagePort};

/// The worker's entry script (`static/sweep-worker.js`, copied by Trunk). Trunk builds the
/// `worker` binary as a classic script (`worker.js`, name without hash) that only defines
/// `wasm_bindgen`; the entry script imports it and starts the wasm. Spawn it as a classic
/// worker (the default of `new Worker`), never as a module worker.
pub const WORKER_URL: &str = "./sweep-worker.js";

/// Start (or restart) a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRequest {
    pub generation: u64,
    pub experiment: String,
    /// Every parameter as `name=value`, as in a URL.
    pub settings: Vec<String>,
    pub seed: u64,
}

impl SweepRequest {
    /// The request for `params` (all values, so the worker needs no defaults of its own).
    pub fn new(generation: u64, experiment: &str, params: &Params, seed: u64) -> SweepRequest {
        let settings = params.iter().map(|(name, value)| format!("{name}={value}")).collect();
        SweepRequest { generation, experiment: experiment.to_string(), settings, seed }
    }
}

/// What the page posts to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Start a sweep, replacing the running one.
    Sweep(SweepRequest),
    /// Stop the running sweep (the page showed a cached one instead).
    Cancel,
}

/// One point of the sweep as it crosses the worker boundary (core's [`SweepPoint`] is larger
/// and serialize-only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointMsg {
    pub threads: u32,
    pub order3_mbps: f64,
    pub order0_mbps: f64,
    /// Share of CPU time spent spinning on zone->lock, per order.
    pub order3_spin_pct: f64,
    pub order0_spin_pct: f64,
}

impl From<&SweepPoint> for PointMsg {
    fn from(p: &SweepPoint) -> PointMsg {
        PointMsg {
            threads: p.threads,
            order3_mbps: p.order3_mbps,
            order0_mbps: p.order0_mbps,
            order3_spin_pct: p.order3.spin_pct,
            order0_spin_pct: p.order0.spin_pct,
        }
    }
}

/// What the worker posts back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    /// The worker's handler is installed: messages posted before this are lost (the wasm loads
    /// asynchronously after the worker starts), so the page holds its request until then.
    Ready,
    Point {
        generation: u64,
        n_points: u32,
        point: PointMsg,
        compute_ms: f64,
    },
    Done {
        generation: u64,
        compute_ms: f64,
    },
    Failed {
        generation: u64,
        message: String,
    },
}

/// A sweep in progress: the next flow count to compute, up to `max_threads`.
#[derive(Debug, Clone)]
pub struct SweepJob {
    pub generation: u64,
    params: Params,
    seed: u64,
    next_threads: u32,
    pub max_threads: u32,
}

impl SweepJob {
    /// Validates the request (only `high-order-alloc` sweeps here; parameters as in a URL).
    pub fn new(request: &SweepRequest) -> Result<SweepJob, String> {
        if request.experiment != hoa::ID {
            return Err(format!("the worker sweeps only {}, not '{}'", hoa::ID, request.experiment));
        }
        let params = hoa::HighOrderAlloc.params_from(&request.settings).map_err(|e| e.to_string())?;
        let max_threads = params.int("max_threads").max(1) as u32;
        Ok(SweepJob { generation: request.generation, params, seed: request.seed, next_threads: 1, max_threads })
    }

    pub fn is_done(&self) -> bool {
        self.next_threads > self.max_threads
    }

    /// Computes the next point (`None` once every point is done).
    pub fn step(&mut self) -> Option<PointMsg> {
        if self.is_done() {
            return None;
        }
        let point = hoa::sweep_point(&self.params, self.next_threads, self.seed);
        self.next_threads += 1;
        Some(PointMsg::from(&point))
    }
}

/// The worker's state between tasks.
#[derive(Default)]
struct WorkerState {
    job: Option<SweepJob>,
    /// Compute time of the current job so far.
    compute_ms: f64,
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
                Ok(Request::Cancel) => *state.borrow_mut() = WorkerState::default(),
                Ok(Request::Sweep(request)) => match SweepJob::new(&request) {
                    Ok(job) => {
                        *state.borrow_mut() = WorkerState { job: Some(job), compute_ms: 0.0 };
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

/// One task: computes one point of the current job and queues the next task.
fn tick(scope: &DedicatedWorkerGlobalScope, state: &Rc<RefCell<WorkerState>>, kick: &KickPort) {
    kick.busy.set(false);
    let now = || scope.performance().map_or(0.0, |p| p.now());
    let t0 = now();
    let mut s = state.borrow_mut();
    let Some(job) = s.job.as_mut() else { return };
    let (generation, n_points) = (job.generation, job.max_threads);
    let point = job.step();
    let done = job.is_done();
    let compute_ms = now() - t0;
    s.compute_ms += compute_ms;
    let total_ms = s.compute_ms;
    if done {
        s.job = None;
    }
    drop(s);
    if let Some(point) = point {
        post(scope, &Reply::Point { generation, n_points, point, compute_ms });
    }
    if done {
        post(scope, &Reply::Done { generation, compute_ms: total_ms });
    } else {
        kick.queue();
    }
}

fn post(scope: &DedicatedWorkerGlobalScope, reply: &Reply) {
    let text = serde_json::to_string(reply).expect("replies serialize");
    let _ = scope.post_message(&JsValue::from_str(&text));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(settings: &[&str]) -> SweepRequest {
        let mut params = Params::defaults(&hoa::specs());
        let e = &hoa::HighOrderAlloc;
        for s in settings {
            let (n, v) = s.split_once('=').unwrap();
            params.set_text(e.id(), &e.specs(), n, v).unwrap();
        }
        SweepRequest::new(7, hoa::ID, &params, 1)
    }

    #[test]
    fn request_round_trips_as_json() {
        let r = request(&["max_threads=3"]);
        let text = serde_json::to_string(&Request::Sweep(r.clone())).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&text).unwrap(), Request::Sweep(r.clone()));
        assert!(r.settings.iter().any(|s| s == "max_threads=3"), "{:?}", r.settings);
    }

    #[test]
    fn job_gives_the_points_of_core_sweep_in_order() {
        let r = request(&["max_threads=2", "measure_us=200", "warmup_us=100"]);
        let mut job = SweepJob::new(&r).unwrap();
        let params = hoa::HighOrderAlloc.params_from(&r.settings).unwrap();
        let expected: Vec<PointMsg> = hoa::sweep(&params, 1).iter().map(PointMsg::from).collect();
        let got: Vec<PointMsg> = std::iter::from_fn(|| job.step()).collect();
        assert_eq!(got, expected);
        assert!(job.is_done());
        let reply = Reply::Point { generation: 7, n_points: 2, point: got[0].clone(), compute_ms: 1.5 };
        assert_eq!(serde_json::from_str::<Reply>(&serde_json::to_string(&reply).unwrap()).unwrap(), reply);
    }

    #[test]
    fn bad_requests_are_errors_with_a_reason() {
        let mut r = request(&[]);
        r.experiment = "skb-layout".into();
        assert!(SweepJob::new(&r).unwrap_err().contains("skb-layout"));
        let mut r = request(&[]);
        r.settings.push("max_threads=999".into());
        assert!(SweepJob::new(&r).unwrap_err().contains("max_threads"));
    }
}
