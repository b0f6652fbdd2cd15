//! Runs of any experiment as the page sees them: light runs computed right here, heavy ones
//! (core's [`Cost::Heavy`]) spread point by point over the worker pool ([`pool`], the
//! protocol in [`crate::worker`]), finished runs cached, and the hook [`use_run`] through
//! which every view shares them.
//!
//! A run is identified by its [`RunKey`] (experiment, parameters, seed). The page shows one run
//! at a time ([`use_run`] makes it the *visible* run; the previous one, unfinished, is dropped
//! and the replies of its tasks ignored). Other components may ask for runs in the
//! *background* ([`want`]: a question graded under other parameters, the Reproduce page's
//! tables); they share the pool after the visible run. Each run's points are independent: idle
//! workers take the next point ([`plan::Sweep`]), and once every row is in, one worker runs
//! core's `finish()`; the rows are put back in point order, so the output is core's `run` bit
//! for bit whatever the number of workers.
//!
//! Before a heavy run starts, the page has its estimate (core's `Experiment::estimate`, scaled
//! to wasm and the pool, [`plan::estimate_ms`]); the visible run waits for the learner's
//! go-ahead when it is estimated above [`plan::CONFIRM_MS`]. A long run shows its ETA and a
//! Stop button ([`RunControl`]); [`stop`] terminates the workers of its tasks at once.
//!
//! Custom views' own data (core's `Experiment::view_data`) lives here too, beside the runs:
//! [`view_data`] computes light data on the spot and asks the pool for heavy data, before any
//! run's next point. Uncertainty bands ([`bands`]) are always the pool's: asked for by a
//! button, streamed sample by sample. Measurement files of the "Your machine" page are
//! fitted here too ([`machine`]: one task per file, progress after every simulator run).

use crate::store::{self, Topic};
use crate::worker::{Request, RunSpec};
pub use bands::{start_band, stop_band, use_band, BandState, BAND_SAMPLES};
use plan::{Sweep, Task};
pub(crate) use pool::Owner;
use pool::Pool;
use skblab_core::{Cost, Experiment, Params, Row, RunOutput};
use std::cell::RefCell;
use std::rc::Rc;
pub use view_data::{use_view_data, use_view_data_list, ViewLoad};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod bands;
pub mod plan;
mod pool;
mod replies;
mod ui;
mod view_data;
pub use ui::{use_background_run, use_background_run_of, use_run, use_ticker, waiting_note, RunControl, RunProgress};

/// Finished heavy runs kept, so that going back to a step or a setting costs nothing.
const CACHE_LEN: usize = 8;
/// Stopped and unconfirmed runs kept (their state, for the page to show).
const IDLE_LEN: usize = 8;

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
    /// Time the workers spent computing (sum over tasks).
    pub compute_ms: Option<f64>,
    /// True if this run also waited for workers to load.
    pub cold_start: bool,
    /// True if the run went to the worker pool.
    pub in_worker: bool,
    pub error: Option<String>,
    /// The estimate before it started, in ms of wall time on `workers` workers.
    pub estimate_ms: f64,
    pub workers: u32,
    /// The page clock when it started (for the ETA).
    pub started_ms: f64,
    /// Estimated above [`plan::CONFIRM_MS`]: waits for the learner's go-ahead ([`confirm`]).
    pub awaiting: bool,
    /// Stopped by the learner ([`stop`]); [`restart`] runs it again.
    pub stopped: bool,
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
            estimate_ms: 0.0,
            workers: 1,
            started_ms: 0.0,
            awaiting: false,
            stopped: false,
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

    /// Where the run is, as the views column's `data-run` says it (for index.html's loader, which
    /// keeps a pre-rendered first view until "done", and for scripts): "done", "running",
    /// "failed", "stopped" or "awaiting" (a go-ahead).
    pub fn phase(&self) -> &'static str {
        if self.is_done() {
            "done"
        } else if self.error.is_some() {
            "failed"
        } else if self.stopped {
            "stopped"
        } else if self.awaiting {
            "awaiting"
        } else {
            "running"
        }
    }

    /// Running (not done, failed, stopped or waiting for a go-ahead).
    pub fn is_running(&self) -> bool {
        !self.is_done() && self.error.is_none() && !self.stopped && !self.awaiting
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

/// A run in the pool.
struct Active {
    id: u64,
    state: Rc<RunState>,
    sweep: Sweep,
    background: bool,
    compute_ms: f64,
}

/// The pool and what it is doing.
#[derive(Default)]
pub(crate) struct Client {
    pub(crate) pool: Pool,
    next_run: u64,
    /// Runs in the pool, in the order they started.
    runs: Vec<Active>,
    /// The key of the visible run.
    visible: Option<RunKey>,
    /// Stopped runs and runs waiting for a go-ahead, oldest first.
    idle: Vec<Rc<RunState>>,
    /// Keys the learner agreed to run despite their estimate.
    confirmed: Vec<RunKey>,
    /// Finished runs, oldest first.
    cache: Vec<Rc<RunState>>,
    /// Custom views' data, asked for and finished, oldest first.
    views: view_data::Views,
    /// Uncertainty bands, one per experiment.
    bands: bands::BandStore,
    /// Fits of measurement files (the "Your machine" page).
    pub(crate) machine: crate::machine::job::MachineStore,
}

thread_local! {
    pub(crate) static CLIENT: RefCell<Client> = RefCell::default();
}

/// Which shared states changed (notified once the client is no longer borrowed).
#[derive(Default, Clone, Copy)]
pub(crate) struct Changed {
    pub(crate) runs: bool,
    pub(crate) views: bool,
    pub(crate) bands: bool,
    pub(crate) machine: bool,
    /// Only streamed results changed (a run's next row, a band's next sample): the redraw may
    /// wait up to [`STREAM_REDRAW_MS`] (see [`Changed::notify`]).
    pub(crate) streamed: bool,
}

/// Streamed results redraw the page at most this often. Redrawing the charts after every row
/// kept the main thread busy for about as long as the sweep ran (1.06 s of tasks in a 1.08 s
/// sweep on 2 workers, CDP `Performance.getMetrics`), on the cores the workers compute on.
const STREAM_REDRAW_MS: f64 = 500.0;

/// The streamed redraws held back, and when the page last redrew.
#[derive(Default)]
struct Redraw {
    last_ms: f64,
    pending: Changed,
    timer: bool,
}

thread_local! {
    static REDRAW: RefCell<Redraw> = RefCell::default();
}

impl std::ops::BitOrAssign for Changed {
    /// What either changed (streamed only if every change was).
    fn bitor_assign(&mut self, more: Changed) {
        self.streamed = match (self.any(), more.any()) {
            (false, _) => more.streamed,
            (_, false) => self.streamed,
            _ => self.streamed && more.streamed,
        };
        self.runs |= more.runs;
        self.views |= more.views;
        self.bands |= more.bands;
        self.machine |= more.machine;
    }
}

impl Changed {
    fn any(self) -> bool {
        self.runs || self.views || self.bands || self.machine
    }

    /// The same change, marked as streamed (its redraw may wait).
    pub(crate) fn streamed(mut self) -> Changed {
        self.streamed = true;
        self
    }

    /// Redraws what changed: at once, with any streamed redraw held back; a streamed change
    /// within [`STREAM_REDRAW_MS`] of the last redraw waits for a timer instead.
    pub(crate) fn notify(self) {
        if !self.any() {
            return;
        }
        let now = now_ms();
        let due = REDRAW.with(|r| {
            let mut r = r.borrow_mut();
            if self.streamed && now - r.last_ms < STREAM_REDRAW_MS {
                r.pending |= self;
                if !r.timer {
                    r.timer = true;
                    let wait = (r.last_ms + STREAM_REDRAW_MS - now).max(0.0);
                    yew::platform::spawn_local(async move {
                        yew::platform::time::sleep(std::time::Duration::from_micros((wait * 1000.0) as u64)).await;
                        let held = REDRAW.with(|r| {
                            let mut r = r.borrow_mut();
                            r.timer = false;
                            std::mem::take(&mut r.pending)
                        });
                        held.now();
                    });
                }
                return None;
            }
            let mut all = std::mem::take(&mut r.pending);
            all |= self;
            Some(all)
        });
        if let Some(all) = due {
            all.now();
        }
    }

    /// Redraws every subscriber of what changed, now.
    fn now(self) {
        if !self.any() {
            return;
        }
        REDRAW.with(|r| r.borrow_mut().last_ms = now_ms());
        let topics = [
            (self.runs, Topic::Runs),
            (self.views, Topic::Views),
            (self.bands, Topic::Bands),
            (self.machine, Topic::Machine),
        ];
        for (changed, topic) in topics {
            if changed {
                store::notify(topic);
            }
        }
    }
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// The page clock (`performance.now()`, ms), the one run states' times are on.
pub fn page_ms() -> f64 {
    now_ms()
}

/// The pool's size (for estimates shown before anything runs).
pub fn pool_size() -> u32 {
    CLIENT.with(|c| c.borrow_mut().pool.size())
}

/// The next task for an idle worker: views first, then a machine fit (the page's only work when
/// there is one), the visible run, bands, background runs.
fn next_task(c: &mut Client) -> Option<(Request, Owner)> {
    let task = c.pool.task_id();
    if let Some(t) = c.views.next_task(task) {
        return Some(t);
    }
    if let Some(t) = c.machine.next_task(task) {
        return Some(t);
    }
    let visible = c.visible.clone();
    let order: Vec<usize> = {
        let is_visible = |a: &Active| !a.background && visible.as_ref() == Some(&a.state.key);
        let first = c.runs.iter().position(is_visible);
        first.into_iter().chain((0..c.runs.len()).filter(move |i| Some(*i) != first)).collect()
    };
    let mut bands_tried = false;
    for i in order {
        if c.runs[i].background && !bands_tried {
            bands_tried = true;
            if let Some(t) = c.bands.next_task(task) {
                return Some(t);
            }
        }
        let a = &mut c.runs[i];
        if let Some(t) = a.sweep.next_task() {
            let key = &a.state.key;
            let run = RunSpec::new(key.experiment, &key.params, key.seed);
            let (request, position) = match t {
                Task::Point(position) => (Request::Point { task, run, position }, Some(position)),
                Task::Finish(rows) => (Request::Finish { task, run, rows }, None),
                Task::Whole => (Request::Whole { task, run }, None),
            };
            return Some((request, Owner::Run { run: a.id, position }));
        }
    }
    if !bands_tried {
        return c.bands.next_task(task);
    }
    None
}

/// Tasks that could start now.
fn work_count(c: &Client) -> usize {
    c.views.available()
        + c.bands.available()
        + c.machine.available()
        + c.runs.iter().map(|a| a.sweep.available()).sum::<usize>()
}

/// Gives idle workers tasks, and starts workers for the work left (up to the pool's size).
pub(crate) fn pump(c: &mut Client) -> Changed {
    if let Some(message) = c.pool.broken.clone() {
        return fail_all(c, &message);
    }
    while c.pool.has_idle() {
        let Some((request, owner)) = next_task(c) else { break };
        if let Err(e) = c.pool.dispatch(request, owner) {
            return fail_all(c, &e);
        }
    }
    // One worker first; the rest once one is ready. Started together, every worker would fetch
    // the worker's wasm over the network (no copy is cached until one download ends): on a
    // first visit that doubled the bytes before the first view (#25). Once one is ready, the
    // others get the cached copy (a 304 by its ETag).
    let size = if c.pool.any_ready() { c.pool.size() as usize } else { 1 };
    let mut wanted = work_count(c).saturating_sub(c.pool.starting());
    while wanted > 0 && c.pool.len() < size {
        if let Err(e) = c.pool.spawn() {
            c.pool.broken = Some(e.clone());
            return fail_all(c, &e);
        }
        wanted -= 1;
    }
    Changed::default()
}

/// No worker can run: every run, view and band in flight fails with `message`.
fn fail_all(c: &mut Client, message: &str) -> Changed {
    for a in std::mem::take(&mut c.runs) {
        let mut s = (*a.state).clone();
        s.error = Some(message.to_string());
        keep_idle(c, Rc::new(s));
    }
    c.views.fail_pending(message);
    c.bands.fail_pending(message);
    c.machine.fail_pending(message);
    Changed { runs: true, views: true, bands: true, machine: true, streamed: false }
}

fn keep_idle(c: &mut Client, state: Rc<RunState>) {
    c.idle.retain(|s| s.key != state.key);
    c.idle.push(state);
    if c.idle.len() > IDLE_LEN {
        c.idle.remove(0);
    }
}

fn cached(c: &Client, key: &RunKey) -> Option<Rc<RunState>> {
    c.cache.iter().find(|s| s.key == *key).cloned()
}

fn find_state(c: &Client, key: &RunKey) -> Option<Rc<RunState>> {
    let active = c.runs.iter().find(|a| a.state.key == *key).map(|a| a.state.clone());
    active.or_else(|| cached(c, key)).or_else(|| c.idle.iter().find(|s| s.key == *key).cloned())
}

/// Starts `key` in the pool (unless cached): validated, estimated, its first point computed
/// here if core says it is light; a visible run estimated too long waits for a go-ahead.
fn start(c: &mut Client, key: &RunKey, background: bool) {
    let stopped = c.idle.iter().any(|s| s.key == *key && s.stopped);
    if stopped || cached(c, key).is_some() || c.runs.iter().any(|a| a.state.key == *key) {
        return;
    }
    c.idle.retain(|s| s.key != *key);
    let mut state = RunState::new(key.clone());
    let e = key.experiment;
    state.in_worker = true;
    state.cold_start = c.pool.len() == 0;
    state.started_ms = now_ms();
    state.workers = c.pool.size().min(state.n_points.max(1));
    state.estimate_ms = plan::run_estimate_ms(e, &key.params, state.workers);
    if let Err(err) = e.validate(&key.params) {
        state.error = Some(err.to_string());
        return keep_idle(c, Rc::new(state));
    }
    if !background && state.estimate_ms > plan::CONFIRM_MS && !c.confirmed.contains(key) {
        state.awaiting = true;
        return keep_idle(c, Rc::new(state));
    }
    let points = e.points(&key.params);
    let work: Vec<Option<u64>> = points.iter().map(|p| e.point_events(&key.params, p)).collect();
    let mut sweep = Sweep::heaviest_first(&work);
    // A light first point (core says which) is computed right here, so the first view does
    // not wait for the workers to load (a one-point run is the worker's whole `run`).
    if let Some(first) = points.first().filter(|p| points.len() > 1 && e.point_cost(&key.params, p) == Cost::Light) {
        let row = e.run_point(&key.params, first, key.seed);
        state.rows.push((first.index, row.clone()));
        state.first_row_ms = Some(now_ms() - state.started_ms);
        sweep.arrived(0, row);
    }
    c.next_run += 1;
    c.runs.push(Active { id: c.next_run, state: Rc::new(state), sweep, background, compute_ms: 0.0 });
}

/// Makes `key` the visible run (the previous one, unfinished, is dropped).
fn ensure_visible(key: &RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.visible.as_ref() == Some(key) {
            return None;
        }
        let old = c.visible.replace(key.clone());
        c.runs.retain(|a| a.background || Some(&a.state.key) != old.as_ref());
        // A background run of this key becomes the visible one.
        if let Some(a) = c.runs.iter_mut().find(|a| a.state.key == *key) {
            a.background = false;
        }
        start(&mut c, key, false);
        // Cold, with a first row computed here: the workers start after the first view is
        // painted, so a shared link's first view downloads no worker (issue #25).
        let first_here = c.runs.iter().any(|a| a.state.key == *key && !a.state.rows.is_empty());
        if c.pool.len() == 0 && first_here {
            pump_after_paint();
            return Some(Changed { runs: true, ..Changed::default() });
        }
        let mut changed = pump(&mut c);
        changed.runs = true;
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// Pumps once the next frame is painted (a timeout after the animation frame), or after
/// 100 ms if no frame comes (a hidden tab paints none).
fn pump_after_paint() {
    let later = || {
        yew::platform::spawn_local(async {
            yew::platform::time::sleep(std::time::Duration::ZERO).await;
            pump_now();
        })
    };
    let frame = Closure::once_into_js(later);
    if web_sys::window()
        .and_then(|w| w.request_animation_frame(frame.unchecked_ref::<js_sys::Function>()).ok())
        .is_none()
    {
        later();
    }
    yew::platform::spawn_local(async {
        yew::platform::time::sleep(std::time::Duration::from_millis(100)).await;
        pump_now();
    });
}

fn pump_now() {
    CLIENT.with(|c| pump(&mut c.borrow_mut())).notify();
}

/// Asks for `key` in the background: started in the pool after the visible run, unless it is
/// running, cached, stopped or waiting already. Light runs need no worker: use [`finished`].
pub fn want(key: RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if find_state(&c, &key).is_some() {
            return None;
        }
        start(&mut c, &key, true);
        let mut changed = pump(&mut c);
        changed.runs = true;
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// The learner agreed to `key` despite its estimate: it starts (as a restart does).
pub fn confirm(key: &RunKey) {
    restart(key);
}

/// Runs a stopped (or failed) `key` again; its estimate counts as agreed to.
pub fn restart(key: &RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if !c.confirmed.contains(key) {
            c.confirmed.push(key.clone());
        }
        restart_in(&mut c, key)
    });
    changed.notify();
}

fn restart_in(c: &mut Client, key: &RunKey) -> Changed {
    let background = c.visible.as_ref() != Some(key);
    c.idle.retain(|s| s.key != *key);
    start(c, key, background);
    let mut changed = pump(c);
    changed.runs = true;
    changed
}

/// Stops `key`: its workers are terminated at once (the page starts fresh ones for what is
/// left to do), and its state says where it stopped.
pub fn stop(key: &RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let i = c.runs.iter().position(|a| a.state.key == *key)?;
        let a = c.runs.remove(i);
        let id = a.id;
        c.pool.terminate(|o| matches!(o, Owner::Run { run, .. } if *run == id));
        let mut s = (*a.state).clone();
        s.stopped = true;
        s.total_ms = Some(now_ms() - s.started_ms);
        keep_idle(&mut c, Rc::new(s));
        let mut changed = pump(&mut c);
        changed.runs = true;
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// The finished output of `key`: computed here for a light run, from the cache for a heavy one
/// (`None` until it is done).
pub fn finished(key: &RunKey) -> Option<Rc<RunOutput>> {
    if key.experiment.cost(&key.params) == Cost::Light {
        return RunState::computed(key.clone()).output;
    }
    CLIENT.with(|c| cached(&c.borrow(), key).and_then(|s| s.output.clone()))
}

/// The state of `key` if it is running, cached, stopped or waiting (for progress lines).
pub fn state_of(key: &RunKey) -> Option<Rc<RunState>> {
    CLIENT.with(|c| find_state(&c.borrow(), key))
}

/// FNV-1a 64 of a text (as core/tests/registry.rs hashes outputs: the console line lets the
/// e2e tests compare a run in the pool with core's pinned default run).
pub fn fnv64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
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
        assert!(s.is_running());
        s.stopped = true;
        assert!(!s.is_running());
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
