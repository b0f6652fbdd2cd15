//! The main-thread side of the sweep worker: one worker, one sweep in flight, a few finished
//! sweeps cached, and the hook [`use_sweep`] through which views (chart, table, the reproduce
//! page) share them.
//!
//! A sweep is identified by its [`SweepKey`] (every parameter as text, and the seed). Asking
//! for a new key bumps the generation and posts a request; the worker drops the old job, and
//! replies of older generations that were already on their way are ignored here. Views
//! re-render when a point arrives (they subscribe a force-update callback).

use crate::worker::{PointMsg, Reply, Request, SweepRequest, WORKER_URL};
use skblab_core::experiments::high_order_alloc::{self as hoa, ID};
use skblab_core::Params;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};
use yew::prelude::*;

/// Finished sweeps kept, so that going back to a step or a setting costs nothing.
const CACHE_LEN: usize = 8;

/// What identifies a sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepKey {
    pub settings: Vec<String>,
    pub seed: u64,
}

impl SweepKey {
    pub fn of(params: &Params, seed: u64) -> SweepKey {
        SweepKey { settings: SweepRequest::new(0, ID, params, seed).settings, seed }
    }
}

/// A sweep as far as it has come.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepState {
    pub key: SweepKey,
    /// Points the sweep will have (flow counts 1..=max_threads).
    pub n_points: u32,
    pub points: Vec<PointMsg>,
    /// Wall time from the request to the first point and to the last, on the main thread.
    pub first_point_ms: Option<f64>,
    pub total_ms: Option<f64>,
    /// Time the worker spent computing (sum over points).
    pub compute_ms: Option<f64>,
    /// True if this sweep also waited for the worker to load.
    pub cold_start: bool,
    pub error: Option<String>,
}

impl SweepState {
    fn new(key: SweepKey, n_points: u32) -> SweepState {
        SweepState {
            key,
            n_points,
            points: Vec::new(),
            first_point_ms: None,
            total_ms: None,
            compute_ms: None,
            cold_start: false,
            error: None,
        }
    }

    pub fn is_done(&self) -> bool {
        self.total_ms.is_some()
    }

    /// Progress in percent (0..=100).
    pub fn percent(&self) -> u32 {
        if self.is_done() {
            return 100;
        }
        (self.points.len() as u32 * 100).checked_div(self.n_points).unwrap_or(0).min(99)
    }

    /// `(flows, order3 Mbit/s, order0 Mbit/s)` per point so far.
    pub fn rows_mbps(&self) -> Vec<(u32, f64, f64)> {
        self.points.iter().map(|p| (p.threads, p.order3_mbps, p.order0_mbps)).collect()
    }

    /// The sweep as CSV: the CLI's columns (`skblab run high-order-alloc --format csv`), then
    /// the zone->lock spin share of each order.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("threads,order3_mbps,order0_mbps,order3_spin_pct,order0_spin_pct\n");
        for p in &self.points {
            s.push_str(&format!(
                "{},{:.0},{:.0},{:.2},{:.2}\n",
                p.threads, p.order3_mbps, p.order0_mbps, p.order3_spin_pct, p.order0_spin_pct
            ));
        }
        s
    }
}

/// The one worker and what it is doing.
#[derive(Default)]
struct Client {
    worker: Option<Worker>,
    /// The worker said [`Reply::Ready`]; until then the latest request waits in `pending`.
    ready: bool,
    pending: Option<Request>,
    generation: u64,
    started_ms: f64,
    current: Option<Rc<SweepState>>,
    /// Finished sweeps, oldest first.
    cache: Vec<Rc<SweepState>>,
    subscribers: Vec<(u64, Callback<()>)>,
    next_id: u64,
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::default();
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

fn notify_all() {
    let callbacks: Vec<Callback<()>> =
        CLIENT.with(|c| c.borrow().subscribers.iter().map(|(_, cb)| cb.clone()).collect());
    for cb in callbacks {
        cb.emit(());
    }
}

/// Spawns the worker (classic script: see TOOLCHAIN.md, the worker trap) with its handlers.
fn spawn_worker() -> Result<Worker, String> {
    let worker = Worker::new(WORKER_URL).map_err(|e| format!("cannot start the sweep worker: {e:?}"))?;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
        if let Some(text) = e.data().as_string() {
            on_reply(&text);
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(|_: web_sys::Event| {
        update_current(None, |s| s.error = Some(format!("the sweep worker ({WORKER_URL}) failed to load or crashed")));
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Ok(worker)
}

fn post(worker: &Worker, request: &Request) -> Result<(), String> {
    let text = serde_json::to_string(request).expect("requests serialize");
    worker.post_message(&JsValue::from_str(&text)).map_err(|e| format!("cannot post to the sweep worker: {e:?}"))
}

/// Posts `request` now, or keeps it (replacing any older one) until the worker is ready.
fn send(c: &mut Client, request: Request) -> Result<(), String> {
    match (&c.worker, c.ready) {
        (Some(w), true) => post(w, &request),
        (Some(_), false) => {
            c.pending = Some(request);
            Ok(())
        }
        (None, _) => Err("the sweep worker is not running".to_string()),
    }
}

fn on_ready() {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.ready = true;
        let pending = c.pending.take();
        if let (Some(w), Some(request)) = (&c.worker, pending) {
            let _ = post(w, &request);
        }
    });
}

/// Makes `key` the sweep in flight (or shows it from the cache).
fn ensure(key: &SweepKey, n_points: u32) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.current.as_ref().is_some_and(|s| s.key == *key) {
            return false;
        }
        // Replies of the sweep in flight are stale from here on.
        c.generation += 1;
        if let Some(hit) = c.cache.iter().find(|s| s.key == *key).cloned() {
            let running = c.current.as_ref().is_some_and(|s| !s.is_done() && s.error.is_none());
            if running {
                let _ = send(&mut c, Request::Cancel);
            }
            c.current = Some(hit);
            return true;
        }
        let mut state = SweepState::new(key.clone(), n_points);
        state.cold_start = c.worker.is_none();
        c.started_ms = now_ms();
        // The first point (one flow: a few ms of simulation) is computed right here, so the
        // chart starts at once even while the worker is still loading; the worker's copy of
        // it (the same bits: one deterministic core) replaces it when it arrives.
        if let Some(first) = first_point(key) {
            state.points.push(first);
            state.first_point_ms = Some(now_ms() - c.started_ms);
        }
        if c.worker.is_none() {
            match spawn_worker() {
                Ok(w) => c.worker = Some(w),
                Err(e) => state.error = Some(e),
            }
        }
        let request = SweepRequest {
            generation: c.generation,
            experiment: ID.to_string(),
            settings: key.settings.clone(),
            seed: key.seed,
        };
        if let Err(e) = send(&mut c, Request::Sweep(request)) {
            state.error = Some(e);
        }
        c.current = Some(Rc::new(state));
        true
    });
    if changed {
        notify_all();
    }
}

/// A finished sweep of `key`, if one is in flight-and-done or cached.
pub fn finished(key: &SweepKey) -> Option<Rc<SweepState>> {
    CLIENT.with(|c| {
        let c = c.borrow();
        c.current.iter().chain(c.cache.iter()).find(|s| s.key == *key && s.is_done() && s.error.is_none()).cloned()
    })
}

/// A column of `skblab run high-order-alloc` (`order3_mbps` / `order0_mbps` at a `threads`
/// row) read from a finished sweep of the same parameters and seed, rounded as `run()` rounds
/// it; `None` if there is no such sweep (the caller then runs the model itself).
pub fn metric(params: &Params, seed: u64, metric: &str, row: Option<&(String, f64)>) -> Option<f64> {
    let threads = match row {
        Some((key, value)) if key == "threads" => *value as u32,
        _ => return None,
    };
    let state = finished(&SweepKey::of(params, seed))?;
    let p = state.points.iter().find(|p| p.threads == threads)?;
    match metric {
        "order3_mbps" => Some(p.order3_mbps.round()),
        "order0_mbps" => Some(p.order0_mbps.round()),
        _ => None,
    }
}

/// The one-flow point of `key`'s sweep, simulated on the main thread.
fn first_point(key: &SweepKey) -> Option<PointMsg> {
    let exp = skblab_core::find(ID).ok()?;
    let params = exp.params_from(&key.settings).ok()?;
    Some(PointMsg::from(&hoa::sweep_point(&params, 1, key.seed)))
}

/// Applies `change` to the sweep in flight if it is of `generation` (any generation if `None`).
fn update_current(generation: Option<u64>, change: impl FnOnce(&mut SweepState)) {
    let updated = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if generation.is_some_and(|g| g != c.generation) {
            return false;
        }
        let Some(current) = c.current.as_ref() else { return false };
        let mut next = (**current).clone();
        change(&mut next);
        let next = Rc::new(next);
        if next.is_done() && next.error.is_none() {
            c.cache.retain(|s| s.key != next.key);
            c.cache.push(next.clone());
            if c.cache.len() > CACHE_LEN {
                c.cache.remove(0);
            }
        }
        c.current = Some(next);
        true
    });
    if updated {
        notify_all();
    }
}

fn on_reply(text: &str) {
    let reply = match serde_json::from_str::<Reply>(text) {
        Ok(r) => r,
        Err(e) => return update_current(None, |s| s.error = Some(format!("unreadable reply from the worker: {e}"))),
    };
    let elapsed = now_ms() - CLIENT.with(|c| c.borrow().started_ms);
    match reply {
        Reply::Ready => on_ready(),
        Reply::Point { generation, n_points, point, .. } => update_current(Some(generation), |s| {
            s.n_points = n_points;
            s.first_point_ms.get_or_insert(elapsed);
            s.points.retain(|p| p.threads != point.threads);
            s.points.push(point);
            s.points.sort_by_key(|p| p.threads);
        }),
        Reply::Done { generation, compute_ms } => update_current(Some(generation), |s| {
            s.total_ms = Some(elapsed);
            s.compute_ms = Some(compute_ms);
            let msg = format!(
                "skblab: swept {} runs in {elapsed:.0} ms (first point {:.0} ms, worker compute {compute_ms:.0} ms{})",
                s.points.len() * 2,
                s.first_point_ms.unwrap_or(0.0),
                if s.cold_start { ", including worker start" } else { "" }
            );
            web_sys::console::info_1(&JsValue::from_str(&msg));
        }),
        Reply::Failed { generation, message } => update_current(Some(generation), |s| s.error = Some(message)),
    }
}

/// The sweep of `params` and `seed`, started in the worker if it is neither running nor cached;
/// the view re-renders as points arrive.
#[hook]
pub fn use_sweep(params: &Params, seed: u64) -> Rc<SweepState> {
    let id = *use_state(|| {
        CLIENT.with(|c| {
            let mut c = c.borrow_mut();
            c.next_id += 1;
            c.next_id
        })
    });
    let update = use_force_update();
    use_effect_with(id, move |&id| {
        let redraw = Callback::from(move |_| update.force_update());
        CLIENT.with(|c| c.borrow_mut().subscribers.push((id, redraw)));
        move || CLIENT.with(|c| c.borrow_mut().subscribers.retain(|(i, _)| *i != id))
    });
    let key = SweepKey::of(params, seed);
    let n_points = params.int("max_threads").max(1) as u32;
    use_effect_with(key.clone(), move |key| ensure(key, n_points));
    let current = CLIENT.with(|c| c.borrow().current.clone()).filter(|s| s.key == key);
    current.unwrap_or_else(|| Rc::new(SweepState::new(key, n_points)))
}

/// The progress bar of a sweep, with the "swept N runs in X ms" line once it is done.
#[derive(Properties, PartialEq)]
pub struct ProgressProps {
    pub state: Rc<SweepState>,
}

#[function_component(SweepProgress)]
pub fn sweep_progress(props: &ProgressProps) -> Html {
    let s = &props.state;
    let pct = s.percent();
    let label = format!("{} of {} flow counts simulated", s.points.len(), s.n_points);
    let timing = s.total_ms.map(|total| {
        let first = s.first_point_ms.unwrap_or(0.0);
        let cold = if s.cold_start { " (including the worker's start)" } else { "" };
        format!("swept {} runs in {total:.0} ms; first point after {first:.0} ms{cold}", s.points.len() * 2)
    });
    html! {
        <div class="hoa-progress">
            <div class="hoa-bar" role="progressbar" aria-label="Sweep progress" aria-valuemin="0" aria-valuemax="100"
                aria-valuenow={pct.to_string()} aria-valuetext={label.clone()} data-testid="sweep-progress">
                <div class="hoa-bar-fill" style={format!("width: {pct}%")}></div>
            </div>
            <span class="hoa-progress-text">{ if s.is_done() { "done".to_string() } else { label } }</span>
            if let Some(t) = timing {
                <span class="hoa-time" data-testid="sweep-time">{ t }</span>
            }
            if let Some(e) = &s.error {
                <span class="hoa-error" role="alert">{ e }</span>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(threads: u32) -> PointMsg {
        PointMsg { threads, order3_mbps: 1000.4, order0_mbps: 900.6, order3_spin_pct: 1.0, order0_spin_pct: 0.5 }
    }

    #[test]
    fn progress_and_csv() {
        let key = SweepKey { settings: vec!["max_threads=4".into()], seed: 1 };
        let mut s = SweepState::new(key, 4);
        assert_eq!(s.percent(), 0);
        s.points = vec![point(1), point(2)];
        assert_eq!(s.percent(), 50);
        assert_eq!(s.to_csv(), "threads,order3_mbps,order0_mbps,order3_spin_pct,order0_spin_pct\n1,1000,901,1.00,0.50\n2,1000,901,1.00,0.50\n");
        s.total_ms = Some(10.0);
        assert_eq!(s.percent(), 100);
        assert_eq!(s.rows_mbps()[1], (2, 1000.4, 900.6));
    }
}
