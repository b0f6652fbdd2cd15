//! Uncertainty bands in the run store: core's band of an experiment's reproduction (its
//! `reproduce_params`, the default seed), computed in the worker pool only — `n` samples, one
//! task each, spread over the workers, never on the main thread — and only when the learner
//! asks ([`start_band`]). The samples are folded in sample order as they arrive
//! ([`crate::worker::fold_bands`]: the band so far, which widens as samples come in; once all
//! are in, core's `bands_with` bit for bit). Finished bands stay, one per experiment (asking
//! again with another number of samples replaces it); [`stop_band`] terminates its workers.

use super::job::Job;
use super::plan;
use super::pool::Owner;
use super::{now_ms, pump, Changed, CLIENT};
use crate::store::{self, Topic};
use crate::worker::{empty_bands, fold_bands, Request};
use skblab_core::validate::Bands;
use skblab_core::{Experiment, DEFAULT_SEED};
use std::rc::Rc;
use yew::prelude::*;

/// Samples of a band the page runs (bounded work: one run of the reproduction each; 32 sampled
/// profiles of high-order-alloc's 30 points take a few seconds on two cores).
pub const BAND_SAMPLES: u32 = 32;

/// A band as far as it has come: the band as a job (samples answered of all; a failed sample
/// counts, it adds nothing to the band) and the band of the samples so far (`None` before the
/// first).
#[derive(Debug, Clone, PartialEq)]
pub struct BandState {
    pub experiment: &'static str,
    pub job: Job,
    pub bands: Option<Rc<Bands>>,
}

/// The samples of a band in flight.
struct Work {
    id: u64,
    e: &'static dyn Experiment,
    /// Samples handed out.
    next: u32,
    /// Each sample's band once answered (`Some(None)`: it ran and added nothing).
    results: Vec<Option<Option<Bands>>>,
    empty: Bands,
}

/// Every band asked for, one per experiment.
#[derive(Default)]
pub(super) struct BandStore {
    entries: Vec<Rc<BandState>>,
    work: Vec<Work>,
    next_id: u64,
}

impl BandStore {
    /// Samples waiting for a worker.
    pub(super) fn available(&self) -> usize {
        self.work.iter().map(|w| w.results.len().saturating_sub(w.next as usize)).sum()
    }

    /// The next sample of the oldest band in flight, as task `task`.
    pub(super) fn next_task(&mut self, task: u64) -> Option<(Request, Owner)> {
        let w = self.work.iter_mut().find(|w| (w.next as usize) < w.results.len())?;
        let index = w.next;
        w.next += 1;
        let request = Request::BandSample {
            task,
            experiment: w.e.id().to_string(),
            seed: w.empty.seed,
            samples: w.results.len() as u32,
            index,
        };
        Some((request, Owner::Band { id: w.id, index }))
    }

    fn update(&mut self, id: u64, change: impl FnOnce(&mut BandState)) -> Changed {
        if let Some(entry) = self.entries.iter_mut().find(|s| s.job.id == id) {
            let mut next = (**entry).clone();
            change(&mut next);
            *entry = Rc::new(next);
        }
        Changed { bands: true, ..Changed::default() }
    }

    /// Sample `index` of band `id` answered: the band so far, folded in sample order.
    pub(super) fn arrived(&mut self, id: u64, index: u32, sample: Result<Option<Bands>, String>) -> Changed {
        let Some(wi) = self.work.iter().position(|w| w.id == id) else { return Changed::default() };
        let sample = match sample {
            Ok(b) => b,
            Err(message) => return self.failed(id, message),
        };
        let w = &mut self.work[wi];
        if let Some(slot) = w.results.get_mut(index as usize) {
            *slot = Some(sample);
        }
        let answered = w.results.iter().filter(|r| r.is_some()).count() as u32;
        let done = answered as usize == w.results.len();
        let folded = fold_bands(&w.empty, w.results.iter().map(|r| r.as_ref().and_then(Option::as_ref)));
        if done {
            self.work.remove(wi);
        }
        let now = now_ms();
        let changed = self.update(id, |s| {
            s.job.progress(answered, s.job.total);
            s.bands = Some(Rc::new(folded));
            if done {
                s.job.finish(now);
                let msg = format!(
                    "skblab: band of {} samples of {} in {:.0} ms on {} workers",
                    s.job.total,
                    s.experiment,
                    now - s.job.started_ms,
                    s.job.workers
                );
                web_sys::console::info_1(&msg.into());
            }
        });
        // A sample on the way redraws when the page next may; the last one at once.
        if done {
            changed
        } else {
            changed.streamed()
        }
    }

    /// Band `id` failed: its other samples are not wanted.
    pub(super) fn failed(&mut self, id: u64, message: String) -> Changed {
        self.work.retain(|w| w.id != id);
        self.update(id, |s| s.job.fail(&message))
    }

    /// No worker can run: no pending band will come.
    pub(super) fn fail_pending(&mut self, message: &str) {
        for id in self.work.iter().map(|w| w.id).collect::<Vec<_>>() {
            self.failed(id, message.to_string());
        }
    }
}

/// Starts a band of `samples` samples of `e`'s reproduction in the pool (replacing one of
/// another size, or a stopped one; a running or finished band of this size is kept).
pub fn start_band(e: &'static dyn Experiment, samples: u32) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let keep = |s: &BandState| {
            s.experiment == e.id() && s.job.total == samples && s.job.error().is_none() && !s.job.is_stopped()
        };
        if c.bands.entries.iter().any(|s| keep(s)) {
            return None;
        }
        c.bands.next_id += 1;
        let id = c.bands.next_id;
        let workers = c.pool.size().min(samples.max(1));
        let one = plan::run_estimate_ms(e, &e.reproduce_params(), 1);
        let mut job = Job::new(id, samples, now_ms());
        job.estimate_ms = one * f64::from(samples) / f64::from(workers);
        job.workers = workers;
        let state = BandState { experiment: e.id(), job, bands: None };
        let old: Vec<u64> = c.bands.entries.iter().filter(|s| s.experiment == e.id()).map(|s| s.job.id).collect();
        c.pool.terminate(|o| matches!(o, Owner::Band { id, .. } if old.contains(id)));
        c.bands.work.retain(|w| !old.contains(&w.id));
        c.bands.entries.retain(|s| s.experiment != e.id());
        c.bands.entries.push(Rc::new(state));
        c.bands.work.push(Work {
            id,
            e,
            next: 0,
            results: vec![None; samples as usize],
            empty: empty_bands(e, DEFAULT_SEED, samples),
        });
        let mut changed = pump(&mut c);
        changed.bands = true;
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// Stops the band of `e`: its workers are terminated at once; the band so far stays.
pub fn stop_band(e: &'static dyn Experiment) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let id = c.bands.entries.iter().find(|s| s.experiment == e.id() && s.job.is_running()).map(|s| s.job.id)?;
        c.pool.terminate(|o| matches!(o, Owner::Band { id: b, .. } if *b == id));
        c.bands.work.retain(|w| w.id != id);
        let now = now_ms();
        let mut changed = c.bands.update(id, |s| s.job.stop(now));
        changed |= pump(&mut c);
        Some(changed)
    });
    if let Some(changed) = changed {
        changed.notify();
    }
}

/// The band of `e`'s reproduction, if the learner asked for one (redraws as samples arrive).
#[hook]
pub fn use_band(e: &'static dyn Experiment) -> Option<Rc<BandState>> {
    store::use_topic(Topic::Bands, None);
    CLIENT.with(|c| c.borrow().bands.entries.iter().find(|s| s.experiment == e.id()).cloned())
}
