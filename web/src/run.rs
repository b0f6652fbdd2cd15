//! Runs of any experiment as the page sees them: light runs computed right here, heavy ones
//! (core's [`Cost::Heavy`]) streamed from the one sweep worker ([`crate::worker`]), finished
//! runs cached, and the hook [`use_run`] through which every view shares them.
//!
//! A run is identified by its [`RunKey`] (experiment, parameters, seed). The page shows one run
//! at a time ([`use_run`] makes it the *visible* run: a new key bumps the generation and
//! posts a request; the worker drops the old job, and replies of older generations are
//! ignored here). Other components may ask for runs in the *background* ([`want`]: a question
//! graded under other parameters); those wait in a queue until the worker is free.
//! Subscribers of [`Topic::Runs`] redraw when a row arrives.
//!
//! Custom views' own data (core's `Experiment::view_data`) lives here too, beside the runs:
//! [`view_data`] computes light data on the spot and asks the same worker for heavy data.
//! Uncertainty bands ([`bands`]) are always the worker's: asked for by a button, streamed
//! sample by sample.

use crate::store::{self, Topic};
use crate::worker::{Reply, Request, RunRequest, WORKER_URL};
pub use bands::{start_band, use_band, BandState, BAND_SAMPLES};
use skblab_core::{Cost, Experiment, Params, Row, RunOutput};
use std::cell::RefCell;
use std::rc::Rc;
pub use view_data::{use_view_data, ViewLoad};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};
use yew::prelude::*;

mod bands;
mod view_data;

/// Finished heavy runs kept, so that going back to a step or a setting costs nothing.
const CACHE_LEN: usize = 8;

/// What identifies a run.
#[derive(Clone)]
pub struct RunKey {
    pub experiment: &'static dyn Experiment,
    pub params: Params,
    pub seed: u64,
}

/// Keys are equal when a run would be: same experiment, seed and parameter *values* (pass
/// resolved parameters; which of them were set explicitly does not change a resolved run).
impl PartialEq for RunKey {
    fn eq(&self, other: &Self) -> bool {
        self.experiment.id() == other.experiment.id()
            && self.seed == other.seed
            && self.params.iter().eq(other.params.iter())
    }
}

impl std::fmt::Debug for RunKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RunKey({}, seed {})", self.experiment.id(), self.seed)
    }
}

/// A run as far as it has come.
#[derive(Debug, Clone, PartialEq)]
pub struct RunState {
    pub key: RunKey,
    pub n_points: u32,
    /// Rows so far, by point index.
    pub rows: Vec<(u32, Row)>,
    /// Core's `finish()` of all rows, once the run is done.
    pub output: Option<Rc<RunOutput>>,
    /// Wall time from the request to the first row and to the output, on the main thread.
    pub first_row_ms: Option<f64>,
    pub total_ms: Option<f64>,
    /// Time the worker spent computing (sum over points).
    pub compute_ms: Option<f64>,
    /// True if this run also waited for the worker to load.
    pub cold_start: bool,
    /// True if the run went to the worker.
    pub in_worker: bool,
    pub error: Option<String>,
}

impl RunState {
    fn new(key: RunKey) -> RunState {
        let n_points = key.experiment.points(&key.params).len() as u32;
        RunState {
            key,
            n_points,
            rows: Vec::new(),
            output: None,
            first_row_ms: None,
            total_ms: None,
            compute_ms: None,
            cold_start: false,
            in_worker: false,
            error: None,
        }
    }

    /// A light run, computed at once.
    fn computed(key: RunKey) -> RunState {
        let mut s = RunState::new(key);
        match s.key.experiment.validate(&s.key.params) {
            Ok(()) => {
                let out = s.key.experiment.run(&s.key.params, s.key.seed);
                s.rows = out.rows.iter().cloned().enumerate().map(|(i, r)| (i as u32, r)).collect();
                s.output = Some(Rc::new(out));
                s.total_ms = Some(0.0);
            }
            Err(e) => s.error = Some(e.to_string()),
        }
        s
    }

    pub fn is_done(&self) -> bool {
        self.output.is_some()
    }

    /// Progress in percent (0..=100).
    pub fn percent(&self) -> u32 {
        if self.is_done() {
            return 100;
        }
        (self.rows.len() as u32 * 100).checked_div(self.n_points).unwrap_or(0).min(99)
    }

    /// The result table so far: the finished output, or the rows that have arrived (no views).
    pub fn table(&self) -> Rc<RunOutput> {
        if let Some(out) = &self.output {
            return out.clone();
        }
        let e = self.key.experiment;
        let mut out = RunOutput::new(e.id(), self.key.seed, e.columns(&self.key.params));
        for (_, row) in &self.rows {
            if row.len() == out.columns.len() {
                out.push_row(row.clone());
            }
        }
        Rc::new(out)
    }
}

/// The one worker and what it is doing.
#[derive(Default)]
struct Client {
    worker: Option<Worker>,
    /// The worker said [`Reply::Ready`]; until then requests wait in `pending` (the latest run
    /// request only, every view request).
    ready: bool,
    pending: Vec<Request>,
    generation: u64,
    started_ms: f64,
    /// The run in the worker (or shown from the cache).
    current: Option<Rc<RunState>>,
    /// Runs asked for in the background, oldest first.
    queue: Vec<RunKey>,
    /// Finished runs, oldest first.
    cache: Vec<Rc<RunState>>,
    /// Custom views' data, asked for and finished, oldest first.
    views: view_data::Views,
    /// Uncertainty bands, one per experiment.
    bands: bands::BandStore,
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::default();
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
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
        let message = format!("the sweep worker ({WORKER_URL}) failed to load or crashed");
        view_data::fail_pending(&message);
        bands::fail_pending(&message);
        update_current(None, |s| s.error = Some(message));
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    Ok(worker)
}

fn post(worker: &Worker, request: &Request) -> Result<(), String> {
    let text = serde_json::to_string(request).expect("requests serialize");
    worker.post_message(&JsValue::from_str(&text)).map_err(|e| format!("cannot post to the sweep worker: {e:?}"))
}

/// Posts `request` now, or keeps it until the worker is ready (a run request or cancel
/// replaces an older one; view and band requests all wait).
fn send(c: &mut Client, request: Request) -> Result<(), String> {
    match (&c.worker, c.ready) {
        (Some(w), true) => post(w, &request),
        (Some(_), false) => {
            if !matches!(request, Request::View(_) | Request::Bands(_)) {
                c.pending.retain(|r| matches!(r, Request::View(_) | Request::Bands(_)));
            }
            c.pending.push(request);
            Ok(())
        }
        (None, _) => Err("the sweep worker is not running".to_string()),
    }
}

fn on_ready() {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.ready = true;
        let pending = std::mem::take(&mut c.pending);
        if let Some(w) = &c.worker {
            for request in &pending {
                let _ = post(w, request);
            }
        }
    });
}

fn cached(c: &Client, key: &RunKey) -> Option<Rc<RunState>> {
    c.cache.iter().find(|s| s.key == *key).cloned()
}

/// Starts `key` in the worker (or shows it from the cache), replacing the run in flight.
fn start(c: &mut Client, key: &RunKey) {
    // Replies of the run in flight are stale from here on.
    c.generation += 1;
    c.queue.retain(|k| k != key);
    if let Some(hit) = cached(c, key) {
        if c.current.as_ref().is_some_and(|s| !s.is_done() && s.error.is_none()) {
            let _ = send(c, Request::Cancel);
        }
        c.current = Some(hit);
        return;
    }
    let mut state = RunState::new(key.clone());
    state.in_worker = true;
    state.cold_start = c.worker.is_none();
    c.started_ms = now_ms();
    if let Err(e) = key.experiment.validate(&key.params) {
        state.error = Some(e.to_string());
        c.current = Some(Rc::new(state));
        return;
    }
    if let Err(e) = ensure_worker(c) {
        state.error = Some(e);
    }
    // A light first point (core says which) is computed right here, so the first view does
    // not wait for the worker to load; it goes to the worker with the request, which starts
    // at the second point (a one-point run is the worker's whole `run`: computed there only).
    let mut request = RunRequest::new(c.generation, key.experiment, &key.params, key.seed);
    let e = key.experiment;
    let points = e.points(&key.params);
    if let Some(first) = points.first().filter(|p| points.len() > 1 && e.point_cost(&key.params, p) == Cost::Light) {
        let row = e.run_point(&key.params, first, key.seed);
        state.rows.push((first.index, row.clone()));
        state.first_row_ms = Some(now_ms() - c.started_ms);
        request.first_row = Some(row);
    }
    if let Err(e) = send(c, Request::Run(request)) {
        state.error = Some(e);
    }
    c.current = Some(Rc::new(state));
}

/// Starts the worker unless it runs.
fn ensure_worker(c: &mut Client) -> Result<(), String> {
    if c.worker.is_none() {
        c.worker = Some(spawn_worker()?);
    }
    Ok(())
}

/// Makes `key` the visible run.
fn ensure_visible(key: &RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.current.as_ref().is_some_and(|s| s.key == *key) {
            return false;
        }
        start(&mut c, key);
        true
    });
    if changed {
        store::notify(Topic::Runs);
    }
}

/// Asks for `key` in the background: started when the worker is free, unless it is running,
/// queued or cached already. Light runs need no worker: use [`finished`] right away.
pub fn want(key: RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if cached(&c, &key).is_some() || c.current.as_ref().is_some_and(|s| s.key == key) || c.queue.contains(&key) {
            return false;
        }
        c.queue.push(key);
        let idle = c.current.as_ref().is_none_or(|s| s.is_done() || s.error.is_some());
        if idle {
            let next = c.queue.remove(0);
            start(&mut c, &next);
        }
        true
    });
    if changed {
        store::notify(Topic::Runs);
    }
}

/// The finished output of `key`: computed here for a light run, from the worker's cache for a
/// heavy one (`None` until it is done).
pub fn finished(key: &RunKey) -> Option<Rc<RunOutput>> {
    if key.experiment.cost(&key.params) == Cost::Light {
        return RunState::computed(key.clone()).output;
    }
    CLIENT.with(|c| {
        let c = c.borrow();
        c.current.iter().chain(c.cache.iter()).find(|s| s.key == *key).and_then(|s| s.output.clone())
    })
}

/// The state of `key` if it is running, cached or queued (for progress lines).
pub fn state_of(key: &RunKey) -> Option<Rc<RunState>> {
    CLIENT.with(|c| {
        let c = c.borrow();
        c.current.iter().chain(c.cache.iter()).find(|s| s.key == *key).cloned()
    })
}

/// Applies `change` to the run in flight if it is of `generation` (any generation if `None`);
/// a finished run goes to the cache and the next queued run starts.
fn update_current(generation: Option<u64>, change: impl FnOnce(&mut RunState)) {
    let updated = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if generation.is_some_and(|g| g != c.generation) {
            return false;
        }
        let Some(current) = c.current.as_ref() else { return false };
        let mut next = (**current).clone();
        change(&mut next);
        let next = Rc::new(next);
        let finished = next.is_done() || next.error.is_some();
        if next.is_done() {
            c.cache.retain(|s| s.key != next.key);
            c.cache.push(next.clone());
            if c.cache.len() > CACHE_LEN {
                c.cache.remove(0);
            }
        }
        c.current = Some(next);
        if finished && !c.queue.is_empty() {
            let key = c.queue.remove(0);
            start(&mut c, &key);
        }
        true
    });
    if updated {
        store::notify(Topic::Runs);
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
        Reply::Row { generation, index, n_points, row, .. } => update_current(Some(generation), |s| {
            s.n_points = n_points;
            s.first_row_ms.get_or_insert(elapsed);
            s.rows.retain(|(i, _)| *i != index);
            s.rows.push((index, row));
            s.rows.sort_by_key(|(i, _)| *i);
        }),
        Reply::Done { generation, output, compute_ms } => update_current(Some(generation), |s| {
            s.total_ms = Some(elapsed);
            s.compute_ms = Some(compute_ms);
            s.output = Some(Rc::new(output));
            let msg = format!(
                "skblab: ran {} points of {} in {elapsed:.0} ms (first point {:.0} ms, worker compute {compute_ms:.0} ms{})",
                s.rows.len(),
                s.key.experiment.id(),
                s.first_row_ms.unwrap_or(0.0),
                if s.cold_start { ", including worker start" } else { "" }
            );
            web_sys::console::info_1(&JsValue::from_str(&msg));
        }),
        Reply::Failed { generation, message } => update_current(Some(generation), |s| s.error = Some(message)),
        Reply::View { id, data, .. } => view_data::arrived(id, Ok(data.get().to_string())),
        Reply::ViewFailed { id, message } => view_data::arrived(id, Err(message)),
        Reply::Band { id, bands, done, .. } => bands::arrived(id, bands, done),
        Reply::BandFailed { id, message } => bands::failed(id, message),
    }
}

/// The run of `experiment` under `params` and `seed`, made the visible one: a light run is
/// computed here once per key; a heavy one starts in the worker unless it is running or
/// cached, and the caller re-renders as rows arrive.
#[hook]
pub fn use_run(experiment: &'static dyn Experiment, params: &Params, seed: u64) -> Rc<RunState> {
    store::use_topic(Topic::Runs, None);
    let key = RunKey { experiment, params: params.clone(), seed };
    let heavy = experiment.cost(params) == Cost::Heavy;
    let light = use_memo(key.clone(), move |key| (!heavy).then(|| Rc::new(RunState::computed(key.clone()))));
    {
        let key = key.clone();
        use_effect_with(key, move |key| {
            if heavy {
                ensure_visible(key)
            }
        });
    }
    if let Some(state) = (*light).clone() {
        return state;
    }
    state_of(&key).unwrap_or_else(|| Rc::new(RunState::new(key)))
}

/// The run of `key` asked for in the background ([`want`]): it waits for the worker to be
/// free, so several components can each ask for one (the reproduce page). `None` until it
/// starts.
#[hook]
pub fn use_background_run(key: RunKey) -> Option<Rc<RunState>> {
    store::use_topic(Topic::Runs, None);
    let heavy = key.experiment.cost(&key.params) == Cost::Heavy;
    // A light run is computed here, once per key; only heavy ones go to the worker.
    let light = use_memo(key.clone(), move |key| (!heavy).then(|| Rc::new(RunState::computed(key.clone()))));
    {
        let key = key.clone();
        // Every render: a no-op once the run is running, queued or cached.
        use_effect(move || {
            if heavy {
                want(key)
            }
        });
    }
    (*light).clone().or_else(|| state_of(&key))
}

/// What a view shows until its run is done: how far it is, or why it failed (a failed run never
/// finishes, so "waiting" would be a promise the page cannot keep).
pub fn waiting_note(s: &RunState) -> Html {
    match &s.error {
        // Not an alert: the panel announces the refusal once (one line per view would repeat it).
        Some(e) => html! { <p class="run-error">{ format!("No run: {e}") }</p> },
        None => html! { <p class="muted">{ format!("waiting for the run ({} %)…", s.percent()) }</p> },
    }
}

/// The progress bar of a run, with the "ran N points in X ms" line once it is done.
#[derive(Properties, PartialEq)]
pub struct ProgressProps {
    pub state: Rc<RunState>,
}

#[function_component(RunProgress)]
pub fn run_progress(props: &ProgressProps) -> Html {
    let s = &props.state;
    if !s.in_worker && s.error.is_none() {
        return html! {};
    }
    let pct = s.percent();
    let label = format!("{} of {} points simulated", s.rows.len(), s.n_points);
    let timing = s.total_ms.map(|total| {
        let first = s.first_row_ms.unwrap_or(0.0);
        let cold = if s.cold_start { " (including the worker's start)" } else { "" };
        format!("ran {} points in {total:.0} ms; first point after {first:.0} ms{cold}", s.rows.len())
    });
    html! {
        <div class="run-progress">
            <div class="run-bar" role="progressbar" aria-label="Run progress" aria-valuemin="0" aria-valuemax="100"
                aria-valuenow={pct.to_string()} aria-valuetext={label.clone()} data-testid="sweep-progress">
                <div class="run-bar-fill" style={format!("width: {pct}%")}></div>
            </div>
            <span class="run-progress-text">{ if s.is_done() { "done".to_string() } else { label } }</span>
            if let Some(t) = timing {
                <span class="run-time" data-testid="sweep-time">{ t }</span>
            }
            // Not an alert: the page announces a failed or refused run once (the player's run
            // error, the panel's refusal), not once per view.
            if let Some(e) = &s.error {
                <span class="run-error">{ e }</span>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::high_order_alloc as hoa;
    use skblab_core::Cell;

    fn key(settings: &[&str]) -> RunKey {
        let e = skblab_core::find(hoa::ID).unwrap();
        let settings: Vec<String> = settings.iter().map(|s| s.to_string()).collect();
        RunKey { experiment: e, params: e.params_from(&settings).unwrap(), seed: 1 }
    }

    #[test]
    fn progress_and_partial_table() {
        let mut s = RunState::new(key(&["max_threads=4"]));
        assert_eq!((s.n_points, s.percent()), (4, 0));
        let row = |n: i64| vec![Cell::Int(n), Cell::Float(1.0), Cell::Float(2.0)];
        s.rows = vec![(0, row(1)), (1, row(2))];
        assert_eq!(s.percent(), 50);
        let t = s.table();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.column_f64("threads"), vec![Some(1.0), Some(2.0)]);
        s.output = Some(t);
        assert_eq!(s.percent(), 100);
    }

    #[test]
    fn light_runs_are_computed_at_once() {
        let e = skblab_core::find("skb-layout").unwrap();
        let k = RunKey { experiment: e, params: e.defaults(), seed: 1 };
        let s = RunState::computed(k.clone());
        assert!(s.is_done());
        assert_eq!(*s.output.unwrap(), e.run(&k.params, 1));
    }
}
