//! Runs of experiments in the run store: what identifies a run ([`RunKey`]), how far it has
//! come ([`RunState`]), and the run's life — started in the pool (validated, estimated, a light
//! first point computed here), made the visible run, asked for in the background, confirmed,
//! stopped, restarted — and the cache of finished runs.

use super::job::Job;
use super::plan::{self, Sweep};
use super::pool::Owner;
use super::{now_ms, pump, pump_after_paint, Changed, Client, CLIENT};
use crate::store::Topic;
use skblab_core::{Cost, Experiment, Params, Row, RunOutput};
use std::rc::Rc;

/// Finished heavy runs kept, so that going back to a step or a setting costs nothing.
pub(super) const CACHE_LEN: usize = 8;
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

/// A run as far as it has come: the run as a job (its phase, points done of all, times and
/// estimate) and what it computed so far.
#[derive(Debug, Clone, PartialEq)]
pub struct RunState {
    pub key: RunKey,
    pub job: Job,
    /// Rows so far, by point index.
    pub rows: Vec<(u32, Row)>,
    /// Core's `finish()` of all rows, once the run is done.
    pub output: Option<Rc<RunOutput>>,
    /// Wall time from the request to the first row, on the main thread.
    pub first_row_ms: Option<f64>,
    /// True if this run also waited for workers to load.
    pub cold_start: bool,
    /// True if the run went to the worker pool.
    pub in_worker: bool,
}

impl RunState {
    /// A run of `key` not started yet (a job of id 0: the store numbers those it starts).
    pub(super) fn new(key: RunKey) -> RunState {
        let n_points = key.experiment.points(&key.params).len() as u32;
        RunState {
            key,
            job: Job::new(0, n_points, 0.0),
            rows: Vec::new(),
            output: None,
            first_row_ms: None,
            cold_start: false,
            in_worker: false,
        }
    }

    /// A light run, computed at once.
    pub(super) fn computed(key: RunKey) -> RunState {
        let mut s = RunState::new(key);
        match s.key.experiment.validate(&s.key.params) {
            Ok(()) => {
                let out = s.key.experiment.run(&s.key.params, s.key.seed);
                s.rows = out.rows.iter().cloned().enumerate().map(|(i, r)| (i as u32, r)).collect();
                s.output = Some(Rc::new(out));
                s.job.finish(0.0);
            }
            Err(e) => s.job.fail(&e.to_string()),
        }
        s
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
pub(super) struct Active {
    pub(super) state: Rc<RunState>,
    pub(super) sweep: Sweep,
    pub(super) background: bool,
    pub(super) compute_ms: f64,
}

pub(super) fn keep_idle(c: &mut Client, state: Rc<RunState>) {
    c.idle.retain(|s| s.key != state.key);
    c.idle.push(state);
    if c.idle.len() > IDLE_LEN {
        c.idle.remove(0);
    }
}

pub(super) fn cached(c: &Client, key: &RunKey) -> Option<Rc<RunState>> {
    c.cache.iter().find(|s| s.key == *key).cloned()
}

pub(super) fn find_state(c: &Client, key: &RunKey) -> Option<Rc<RunState>> {
    let active = c.runs.iter().find(|a| a.state.key == *key).map(|a| a.state.clone());
    active.or_else(|| cached(c, key)).or_else(|| c.idle.iter().find(|s| s.key == *key).cloned())
}

/// Starts `key` in the pool (unless cached): validated, estimated, its first point computed
/// here if core says it is light; a run estimated too long, visible or not (a pin from a
/// shared link), waits for a go-ahead unless it was agreed to.
pub(super) fn start(c: &mut Client, key: &RunKey, background: bool) {
    let stopped = c.idle.iter().any(|s| s.key == *key && s.job.is_stopped());
    if stopped || cached(c, key).is_some() || c.runs.iter().any(|a| a.state.key == *key) {
        return;
    }
    c.idle.retain(|s| s.key != *key);
    let mut state = RunState::new(key.clone());
    let e = key.experiment;
    c.next_run += 1;
    state.job = Job::new(c.next_run, state.job.total, now_ms());
    state.in_worker = true;
    state.cold_start = c.pool.len() == 0;
    state.job.workers = c.pool.size().min(state.job.total.max(1));
    state.job.estimate_ms = plan::run_estimate_ms(e, &key.params, state.job.workers);
    if let Err(err) = e.validate(&key.params) {
        state.job.fail(&err.to_string());
        return keep_idle(c, Rc::new(state));
    }
    if state.job.estimate_ms > plan::CONFIRM_MS && !c.confirmed.contains(key) {
        state.job.wait_for_go_ahead();
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
        state.job.progress(1, state.job.total);
        state.first_row_ms = Some(now_ms() - state.job.started_ms);
        sweep.arrived(0, row);
    }
    c.runs.push(Active { state: Rc::new(state), sweep, background, compute_ms: 0.0 });
}

/// Makes `key` the visible run (the previous one, unfinished, is dropped).
pub(super) fn ensure_visible(key: &RunKey) {
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
        // painted, so a shared link's first view downloads no worker.
        let first_here = c.runs.iter().any(|a| a.state.key == *key && !a.state.rows.is_empty());
        if c.pool.len() == 0 && first_here {
            pump_after_paint();
            return Some(Changed::of(Topic::Runs));
        }
        let mut changed = pump(&mut c);
        changed |= Changed::of(Topic::Runs);
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// One more component shows the visible run `key` ([`super::use_run`]).
pub(super) fn show_visible(key: &RunKey) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        match c.shown.iter_mut().find(|(k, _)| k == key) {
            Some((_, n)) => *n += 1,
            None => c.shown.push((key.clone(), 1)),
        }
    });
}

/// One component less shows the visible run `key` (see [`leave_visible`]).
pub(super) fn unshow_visible(key: &RunKey) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(i) = c.shown.iter().position(|(k, _)| k == key) {
            c.shown[i].1 -= 1;
            if c.shown[i].1 == 0 {
                c.shown.remove(i);
            }
        }
    });
}

/// Called once the components of a render have made their runs visible: if `key` is still the
/// visible run and no component shows it (its page was left, not moved to other settings, whose
/// run would have replaced it), its unfinished run is stopped — its workers terminated — and
/// forgotten, as a pinned run's is by [`release`]: nothing runs for a view no one sees.
pub(super) fn leave_visible(key: &RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.visible.as_ref() != Some(key) || c.shown.iter().any(|(k, _)| k == key) {
            return None;
        }
        c.visible = None;
        forget_unneeded(&mut c, key, false)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// Stops and forgets the unfinished run of `key` (the visible one, or a `background` one) that
/// nothing shows any more; a go-ahead was for that occasion, so shown again, it asks again.
fn forget_unneeded(c: &mut Client, key: &RunKey, background: bool) -> Option<Changed> {
    c.confirmed.retain(|k| k != key);
    c.idle.retain(|s| s.key != *key || !s.job.is_awaiting());
    let i = c.runs.iter().position(|a| a.background == background && a.state.key == *key)?;
    let id = c.runs.remove(i).state.job.id;
    c.pool.terminate(|o| matches!(o, Owner::Run { run, .. } if *run == id));
    let mut changed = pump(c);
    changed |= Changed::of(Topic::Runs);
    Some(changed)
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
        changed |= Changed::of(Topic::Runs);
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// [`want`] of a run the learner asked for by an action of their own (a question's Check
/// under the step's own settings): its estimate counts as agreed to.
pub fn want_agreed(key: RunKey) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if !c.confirmed.contains(&key) {
            c.confirmed.push(key.clone());
        }
    });
    want(key)
}

/// One more component shows `key` (see [`release`]).
pub fn hold(key: &RunKey) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        match c.holders.iter_mut().find(|(k, _)| k == key) {
            Some((_, n)) => *n += 1,
            None => c.holders.push((key.clone(), 1)),
        }
    });
}

/// One component less shows `key`; when none is left, a background run of it that is not
/// done (running, queued or waiting for its go-ahead) is stopped and forgotten: nothing needs
/// it any more (an Unpin, leaving the page).
pub fn release(key: &RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let i = c.holders.iter().position(|(k, _)| k == key)?;
        c.holders[i].1 -= 1;
        if c.holders[i].1 > 0 {
            return None;
        }
        c.holders.remove(i);
        forget_unneeded(&mut c, key, true)
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
    changed |= Changed::of(Topic::Runs);
    changed
}

/// Stops `key`: its workers are terminated at once (the page starts fresh ones for what is
/// left to do), and its state says where it stopped.
pub fn stop(key: &RunKey) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let i = c.runs.iter().position(|a| a.state.key == *key)?;
        let a = c.runs.remove(i);
        let id = a.state.job.id;
        c.pool.terminate(|o| matches!(o, Owner::Run { run, .. } if *run == id));
        let mut s = (*a.state).clone();
        s.job.stop(now_ms());
        keep_idle(&mut c, Rc::new(s));
        let mut changed = pump(&mut c);
        changed |= Changed::of(Topic::Runs);
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
        assert_eq!((s.job.total, s.job.percent()), (4, 0));
        let row = |n: i64| vec![Cell::Int(n), Cell::Float(1.0), Cell::Float(2.0)];
        s.rows = vec![(0, row(1)), (1, row(2))];
        s.job.progress(2, 4);
        assert_eq!(s.job.percent(), 50);
        let t = s.table();
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.column_f64("threads"), vec![Some(1.0), Some(2.0)]);
        assert!(s.job.is_running());
        s.job.stop(1.0);
        assert!(!s.job.is_running() && s.job.percent() == 50);
    }

    #[test]
    fn light_runs_are_computed_at_once() {
        let e = skblab_core::find("skb-layout").unwrap();
        let k = RunKey { experiment: e, params: e.defaults(), seed: 1 };
        let s = RunState::computed(k.clone());
        assert!(s.job.is_done() && s.job.percent() == 100);
        assert_eq!(*s.output.unwrap(), e.run(&k.params, 1));
    }
}
