//! Fits of measurement files (the "Your machine" page), a kind of job of the run store
//! ([`JobKind`]): one task in the worker pool per file ([`crate::worker::Request::MachineFit`]: core parses and fits it, and
//! reports after every simulator run), never on the main thread. One fit is the page's at a
//! time: starting another terminates the worker of the one in flight, and [`stop_fit`]
//! terminates it at once (a worker cannot be interrupted otherwise). Finished fits are kept by
//! the text's hash, so going back to a file (the reference) costs nothing.

use crate::run::kind::{self, JobKind, VISIBLE_RUN};
use crate::run::{fnv64, page_ms as now_ms, plan, Changed, Job};
use crate::store::{self, Topic};
use crate::worker::machine::MachineFacts;
use crate::worker::{Reply, Request};
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
pub struct MachineStore {
    current: Option<Rc<FitState>>,
    /// The text of the current fit (sent when a worker is free; kept for "Fit again").
    text: Option<Rc<String>>,
    waiting: bool,
    finished: Vec<Rc<FitState>>,
    next_id: u64,
}

impl JobKind for MachineStore {
    /// Before the visible run: on its page, the fit is the only work.
    fn priority(&self) -> u8 {
        VISIBLE_RUN - 1
    }

    fn available(&self) -> usize {
        usize::from(self.waiting)
    }

    fn next_task(&mut self, task: u64) -> Option<(Request, u64, u32)> {
        if !self.waiting {
            return None;
        }
        let (s, text) = (self.current.as_ref()?, self.text.as_ref()?);
        self.waiting = false;
        Some((Request::MachineFit { task, text: text.to_string() }, s.job.id, 0))
    }

    /// The file's facts, a report after every simulator run, then core's report.
    fn reply(&mut self, id: u64, _: u32, reply: Reply) -> Changed {
        match reply {
            Reply::MachineStart { facts, total, events, .. } => self.started(id, facts, total, events),
            Reply::MachineProgress { done, total, .. } => self.update(id, |s| s.job.progress(done, total)),
            Reply::Machine { report, compute_ms, .. } => self.arrived(id, *report, compute_ms),
            _ => Changed::default(),
        }
    }

    /// A refusal is the file's problem (`rejected`: the page drops a kept file); a crash is not.
    fn failed(&mut self, id: u64, _: u32, message: &str, refused: bool) -> Changed {
        if self.current.as_ref().is_some_and(|s| s.job.id == id) {
            self.waiting = false;
        }
        self.update(id, |s| {
            s.job.fail(message);
            s.rejected = refused;
        })
    }

    /// No worker can run: a fit waiting for one fails.
    fn fail_pending(&mut self, message: &str) -> Changed {
        match self.current.as_ref().filter(|s| s.job.is_running()).map(|s| s.job.id) {
            Some(id) => self.failed(id, 0, message, false),
            None => Changed::default(),
        }
    }
}

impl MachineStore {
    fn update(&mut self, id: u64, change: impl FnOnce(&mut FitState)) -> Changed {
        match &mut self.current {
            Some(s) if s.job.id == id => {
                let mut next = (**s).clone();
                change(&mut next);
                *s = Rc::new(next);
                Changed::of(Topic::Machine)
            }
            _ => Changed::default(),
        }
    }

    fn started(&mut self, id: u64, facts: MachineFacts, total: u32, events: u64) -> Changed {
        // Converted as the CLI converts the fit's work.
        let work = WorkEstimate::new(u64::from(total), events);
        let estimate_ms = plan::wall_ms(skblab_core::machine::fit::native_seconds_of(&work), work.points, 1);
        self.update(id, |s| {
            s.facts = Some(Rc::new(facts));
            s.job.progress(0, total);
            s.job.estimate_ms = estimate_ms;
        })
    }

    fn arrived(&mut self, id: u64, report: MachineReport, compute_ms: f64) -> Changed {
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
}

/// Fits `text` (called `label` on the page): at once from the finished fits if this text was
/// fitted already; else in the pool, replacing the fit in flight. The fit of this text that is
/// running or shown already is kept.
pub fn start_fit(label: &str, text: Rc<String>) {
    let hash = fnv64(&text);
    kind::change::<MachineStore, ()>(|m, pool| {
        let same = m.current.as_ref().is_some_and(|s| s.hash == hash && s.label == label);
        if same && m.current.as_ref().is_some_and(|s| s.job.is_running() || s.report.is_some()) {
            return None;
        }
        if let Some(old) = m.current.as_ref().filter(|s| s.job.is_running()).map(|s| s.job.id) {
            pool.stop(old);
        }
        m.text = Some(text);
        if let Some(done) = m.finished.iter().find(|s| s.hash == hash).cloned() {
            let mut s = (*done).clone();
            s.label = label.to_string();
            m.current = Some(Rc::new(s));
            m.waiting = false;
            return Some(((), Changed::of(Topic::Machine)));
        }
        m.next_id += 1;
        let job = Job::new(m.next_id, 0, now_ms());
        let state = FitState { label: label.to_string(), hash, job, facts: None, report: None, rejected: false };
        m.current = Some(Rc::new(state));
        m.waiting = true;
        Some(((), Changed::of(Topic::Machine)))
    });
}

/// Stops the fit in flight: its worker is terminated at once; the state says where it stopped.
pub fn stop_fit() {
    kind::change::<MachineStore, ()>(|m, pool| {
        let id = m.current.as_ref().filter(|s| s.job.is_running()).map(|s| s.job.id)?;
        pool.stop(id);
        m.waiting = false;
        let now = now_ms();
        Some(((), m.update(id, |s| s.job.stop(now))))
    });
}

/// Runs the stopped (or failed) fit again, from the start.
pub fn restart_fit() {
    let again = kind::with::<MachineStore, _>(|m| {
        let label = m.current.as_ref()?.label.clone();
        let text = m.text.clone()?;
        m.current = None;
        Some((label, text))
    });
    if let Some((label, text)) = again {
        start_fit(&label, text);
    }
}

/// The page's fit now (outside a component).
pub fn current_fit() -> Option<Rc<FitState>> {
    kind::read::<MachineStore, _>(|m| m.current.clone()).flatten()
}

/// The page's fit (redraws as it comes in).
#[hook]
pub fn use_fit() -> Option<Rc<FitState>> {
    store::use_topic(Topic::Machine, None);
    current_fit()
}
