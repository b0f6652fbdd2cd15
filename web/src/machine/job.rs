//! Fits of measurement files (the "Your machine" page) in the run store: one task in the
//! worker pool per file ([`crate::worker::Request::MachineFit`]: core parses and fits it, and
//! reports after every simulator run), never on the main thread. One fit is the page's at a
//! time: starting another terminates the worker of the one in flight, and [`stop_fit`]
//! terminates it at once (a worker cannot be interrupted otherwise). Finished fits are kept by
//! the text's hash, so going back to a file (the reference) costs nothing.

use super::worker::MachineFacts;
use crate::run::{fnv64, page_ms as now_ms, plan, pump, Changed, Job, Owner, CLIENT};
use crate::store::{self, Topic};
use crate::worker::Request;
use skblab_core::machine::fit::MachineReport;
use skblab_core::WorkEstimate;
use std::rc::Rc;
use yew::prelude::*;

/// Finished fits kept (the reference and a few files).
const KEPT: usize = 4;

/// A fit as far as it has come: the fit as a job (simulator runs done of all, its estimate,
/// its times), the file's facts (the worker's first reply) and core's report once done.
#[derive(Debug, Clone, PartialEq)]
pub struct FitState {
    /// What the page calls the file ("the reference measurement", a file name, "pasted text").
    pub label: String,
    /// FNV-1a of the text: the same text is the same fit.
    pub hash: u64,
    pub job: Job,
    pub facts: Option<Rc<MachineFacts>>,
    pub report: Option<Rc<MachineReport>>,
    /// The worker read the file and refused it (not a crash): the file is unusable.
    pub rejected: bool,
}

/// The page's fit and the finished ones.
#[derive(Default)]
pub(crate) struct MachineStore {
    current: Option<Rc<FitState>>,
    /// The text of the current fit (sent when a worker is free; kept for "Fit again").
    text: Option<Rc<String>>,
    waiting: bool,
    finished: Vec<Rc<FitState>>,
    next_id: u64,
}

impl MachineStore {
    pub(crate) fn available(&self) -> usize {
        usize::from(self.waiting)
    }

    pub(crate) fn next_task(&mut self, task: u64) -> Option<(Request, Owner)> {
        if !self.waiting {
            return None;
        }
        let (s, text) = (self.current.as_ref()?, self.text.as_ref()?);
        self.waiting = false;
        Some((Request::MachineFit { task, text: text.to_string() }, Owner::Machine { id: s.job.id }))
    }

    fn update(&mut self, id: u64, change: impl FnOnce(&mut FitState)) -> Changed {
        match &mut self.current {
            Some(s) if s.job.id == id => {
                let mut next = (**s).clone();
                change(&mut next);
                *s = Rc::new(next);
                Changed { machine: true, ..Changed::default() }
            }
            _ => Changed::default(),
        }
    }

    pub(crate) fn started(&mut self, id: u64, facts: MachineFacts, total: u32, events: u64) -> Changed {
        let estimate_ms = plan::estimate_ms(&WorkEstimate { points: u64::from(total), events }, 1);
        self.update(id, |s| {
            s.facts = Some(Rc::new(facts));
            s.job.progress(0, total);
            s.job.estimate_ms = estimate_ms;
        })
    }

    pub(crate) fn progress(&mut self, id: u64, done: u32, total: u32) -> Changed {
        self.update(id, |s| s.job.progress(done, total))
    }

    pub(crate) fn arrived(&mut self, id: u64, report: MachineReport, compute_ms: f64) -> Changed {
        let now = now_ms();
        let changed = self.update(id, |s| {
            s.report = Some(Rc::new(report));
            s.job.finish(now);
            s.job.compute_ms = Some(compute_ms);
            let msg = format!(
                "skblab: machine fit of {} ({} runs) in {:.0} ms, worker compute {compute_ms:.0} ms",
                s.label,
                s.job.total,
                now - s.job.started_ms
            );
            web_sys::console::info_1(&msg.into());
        });
        if let Some(s) = self.current.clone().filter(|s| s.job.id == id) {
            self.finished.retain(|f| f.hash != s.hash);
            self.finished.push(s);
            if self.finished.len() > KEPT {
                self.finished.remove(0);
            }
        }
        changed
    }

    /// Fit `id` failed: `rejected` when the worker refused the file.
    pub(crate) fn failed(&mut self, id: u64, message: &str, rejected: bool) -> Changed {
        if self.current.as_ref().is_some_and(|s| s.job.id == id) {
            self.waiting = false;
        }
        self.update(id, |s| {
            s.job.fail(message);
            s.rejected = rejected;
        })
    }

    /// No worker can run: a fit waiting for one fails.
    pub(crate) fn fail_pending(&mut self, message: &str) {
        if let Some(id) = self.current.as_ref().filter(|s| s.job.is_running()).map(|s| s.job.id) {
            self.failed(id, message, false);
        }
    }
}

/// Fits `text` (called `label` on the page): at once from the finished fits if this text was
/// fitted already; else in the pool, replacing the fit in flight. The fit of this text that is
/// running or shown already is kept.
pub fn start_fit(label: &str, text: Rc<String>) {
    let hash = fnv64(&text);
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let same = c.machine.current.as_ref().is_some_and(|s| s.hash == hash && s.label == label);
        if same && c.machine.current.as_ref().is_some_and(|s| s.job.is_running() || s.report.is_some()) {
            return None;
        }
        if let Some(old) = c.machine.current.as_ref().filter(|s| s.job.is_running()).map(|s| s.job.id) {
            c.pool.terminate(|o| matches!(o, Owner::Machine { id } if *id == old));
        }
        if let Some(done) = c.machine.finished.iter().find(|s| s.hash == hash).cloned() {
            let mut s = (*done).clone();
            s.label = label.to_string();
            c.machine.current = Some(Rc::new(s));
            c.machine.waiting = false;
            c.machine.text = Some(text);
            return Some(Changed { machine: true, ..Changed::default() });
        }
        c.machine.next_id += 1;
        let state = FitState {
            label: label.to_string(),
            hash,
            job: Job::new(c.machine.next_id, 0, now_ms()),
            facts: None,
            report: None,
            rejected: false,
        };
        c.machine.current = Some(Rc::new(state));
        c.machine.text = Some(text);
        c.machine.waiting = true;
        let mut changed = pump(&mut c);
        changed.machine = true;
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// Stops the fit in flight: its worker is terminated at once; the state says where it stopped.
pub fn stop_fit() {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let id = c.machine.current.as_ref().filter(|s| s.job.is_running()).map(|s| s.job.id)?;
        c.pool.terminate(|o| matches!(o, Owner::Machine { id: m } if *m == id));
        c.machine.waiting = false;
        let now = now_ms();
        let mut changed = c.machine.update(id, |s| s.job.stop(now));
        changed |= pump(&mut c);
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// Runs the stopped (or failed) fit again, from the start.
pub fn restart_fit() {
    let again = CLIENT.with(|c| {
        let c = c.borrow();
        let s = c.machine.current.as_ref()?;
        Some((s.label.clone(), c.machine.text.clone()?))
    });
    if let Some((label, text)) = again {
        CLIENT.with(|c| c.borrow_mut().machine.current = None);
        start_fit(&label, text);
    }
}

/// The page's fit now (outside a component).
pub fn current_fit() -> Option<Rc<FitState>> {
    CLIENT.with(|c| c.borrow().machine.current.clone())
}

/// The page's fit (redraws as it comes in).
#[hook]
pub fn use_fit() -> Option<Rc<FitState>> {
    store::use_topic(Topic::Machine, None);
    CLIENT.with(|c| c.borrow().machine.current.clone())
}
