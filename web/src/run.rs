//! Runs of any experiment as the page sees them: light runs computed right here, heavy ones
//! (core's [`Cost::Heavy`](skblab_core::Cost::Heavy)) spread point by point over the worker
//! pool ([`pool`], the protocol in [`crate::worker`]), finished runs cached, and the hook
//! [`use_run`] through which every view shares them.
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
//! go-ahead when it is estimated above [`plan::CONFIRM_MS`], and so does a background run (a
//! pinned run from a shared link) unless the learner asked for it ([`want_agreed`]); a
//! background run that no component shows any more ([`hold`], [`release`]) is stopped. A long
//! run shows its ETA and a Stop button ([`RunControl`]); [`stop`] terminates the workers of its tasks at once.
//!
//! Every job of the store — a run, and each other kind: custom views' own data (core's
//! `Experiment::view_data`: light data computed on the spot, heavy data from the pool before
//! any run's next point), uncertainty bands (always the pool's: asked for by a button,
//! streamed sample by sample), the "Your machine" page's fits ([`crate::machine::job`]) — moves
//! through one state machine, [`Job`]; the other kinds plug into the pool through one
//! interface, [`kind::JobKind`], so the pool names none of them.
//!
//! Files: `job.rs` (the state machine, pure), [`kind`] (the interface of a kind of job),
//! `runs.rs` (the runs' keys, states and life), [`plan`] (a run's tasks and estimate, pure),
//! `pool.rs` (the workers), `replies.rs` (what they answer), `redraw.rs` (when the page
//! redraws), `view_data.rs` and `bands.rs` (two kinds), and `ui.rs` (the hooks and the progress
//! components).

use crate::store::Topic;
use crate::worker::{Request, RunSpec};
pub use bands::{start_band, stop_band, use_band, use_band_held, BandState, BAND_SAMPLES};
use plan::Task;
use pool::Owner;
use pool::Pool;
use std::cell::RefCell;
use std::rc::Rc;
pub use view_data::{use_view_data, use_view_data_list, ViewLoad};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod bands;
mod job;
pub mod kind;
pub mod plan;
mod pool;
mod redraw;
mod replies;
mod runs;
mod ui;
mod view_data;
pub use job::{Job, Phase};
pub use redraw::Changed;
pub use runs::{confirm, finished, hold, release, restart, state_of, stop, want, want_agreed, RunKey, RunState};
use runs::{ensure_visible, keep_idle, leave_visible, show_visible, unshow_visible, Active, CACHE_LEN};
pub use ui::{use_background_run, use_background_run_of, use_run, use_ticker, waiting_note, RunControl, RunProgress};

/// The pool and what it is doing.
#[derive(Default)]
struct Client {
    pool: Pool,
    next_run: u64,
    /// Runs in the pool, in the order they started.
    runs: Vec<Active>,
    /// The key of the visible run.
    visible: Option<RunKey>,
    /// Stopped runs and runs waiting for a go-ahead, oldest first.
    idle: Vec<Rc<RunState>>,
    /// Keys the learner agreed to run despite their estimate.
    confirmed: Vec<RunKey>,
    /// Keys of background runs shown by components, and how many show each.
    holders: Vec<(RunKey, u32)>,
    /// Keys made visible by components ([`use_run`]), and how many show each.
    shown: Vec<(RunKey, u32)>,
    /// Finished runs, oldest first.
    cache: Vec<Rc<RunState>>,
    /// The store of every other kind of job (custom views' data, bands, machine fits), made on
    /// first use, in priority order.
    kinds: Vec<Box<dyn kind::JobKind>>,
}

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::default();
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

/// The next task for an idle worker: the kinds of jobs before the visible run (views' data, a
/// machine fit: the page's only work when there is one), the visible run, the other kinds
/// (bands), background runs.
fn next_task(c: &mut Client) -> Option<(Request, Owner)> {
    let task = c.pool.task_id();
    if let Some(t) = kind::next_task(c, task, 0..kind::VISIBLE_RUN) {
        return Some(t);
    }
    let visible = c.visible.clone();
    let order: Vec<usize> = {
        let is_visible = |a: &Active| !a.background && visible.as_ref() == Some(&a.state.key);
        let first = c.runs.iter().position(is_visible);
        first.into_iter().chain((0..c.runs.len()).filter(move |i| Some(*i) != first)).collect()
    };
    let mut others_tried = false;
    for i in order {
        if c.runs[i].background && !others_tried {
            others_tried = true;
            if let Some(t) = kind::next_task(c, task, kind::VISIBLE_RUN..u8::MAX) {
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
            return Some((request, Owner::Run { run: a.state.job.id, position }));
        }
    }
    if !others_tried {
        return kind::next_task(c, task, kind::VISIBLE_RUN..u8::MAX);
    }
    None
}

/// Tasks that could start now.
fn work_count(c: &Client) -> usize {
    c.kinds.iter().map(|k| k.available()).sum::<usize>() + c.runs.iter().map(|a| a.sweep.available()).sum::<usize>()
}

/// Gives idle workers tasks, and starts workers for the work left (up to the pool's size).
fn pump(c: &mut Client) -> Changed {
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
    // first visit that doubled the bytes before the first view. Once one is ready, the
    // others get the cached copy (a 304 by its ETag).
    let size = if c.pool.any_ready() { c.pool.size() as usize } else { 1 };
    let mut wanted = work_count(c).saturating_sub(c.pool.starting());
    while wanted > 0 && c.pool.len() < size {
        if let Err(e) = c.pool.spawn(replies::on_reply, replies::on_worker_error) {
            c.pool.broken = Some(e.clone());
            return fail_all(c, &e);
        }
        wanted -= 1;
    }
    Changed::default()
}

/// No worker can run: every job in flight, of every kind, fails with `message`.
fn fail_all(c: &mut Client, message: &str) -> Changed {
    for a in std::mem::take(&mut c.runs) {
        let mut s = (*a.state).clone();
        s.job.fail(message);
        keep_idle(c, Rc::new(s));
    }
    let mut changed = Changed::of(Topic::Runs);
    for k in &mut c.kinds {
        changed |= k.fail_pending(message);
    }
    changed
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

/// FNV-1a 64 of a text (as core/tests/registry.rs hashes outputs: the console line lets the
/// e2e tests compare a run in the pool with core's pinned default run).
pub fn fnv64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
