//! Uncertainty bands in the run store: core's band of an experiment's reproduction (its
//! `reproduce_params`, the default seed), computed in the worker pool only — `n` samples, one
//! task each, spread over the workers, never on the main thread — and only when the learner
//! asks ([`start_band`]). The samples are folded in sample order as they arrive
//! ([`crate::worker::fold_bands`]: the band so far, which widens as samples come in; once all
//! are in, core's `bands_with` bit for bit). Finished bands stay, one per experiment (asking
//! again with another number of samples replaces it); [`stop_band`] terminates its workers.
//! A band runs only while a page of its experiment is shown ([`use_band_held`]): once none is,
//! a band still running is stopped as Stop would (the samples so far stay, "Run again" on
//! return).

use super::job::Job;
use super::kind::{self, JobKind};
use super::plan;
use super::{now_ms, Changed};
use crate::store::{self, Topic};
use crate::worker::{empty_bands, fold_bands, Reply, Request};
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
    /// Pages that show each experiment's band (see [`use_band_held`]).
    shown: Vec<(&'static str, u32)>,
}

impl JobKind for BandStore {
    /// After the visible run, before background runs: the learner asked for it.
    fn priority(&self) -> u8 {
        kind::VISIBLE_RUN + 1
    }

    /// Samples waiting for a worker.
    fn available(&self) -> usize {
        self.work.iter().map(|w| w.results.len().saturating_sub(w.next as usize)).sum()
    }

    /// The next sample of the oldest band in flight (the part is the sample's index).
    fn next_task(&mut self, task: u64) -> Option<(Request, u64, u32)> {
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
        Some((request, w.id, index))
    }

    fn reply(&mut self, id: u64, index: u32, reply: Reply) -> Changed {
        match reply {
            Reply::Band { bands, .. } => self.arrived(id, index, Ok(bands)),
            _ => Changed::default(),
        }
    }

    fn failed(&mut self, id: u64, _: u32, message: &str, _: bool) -> Changed {
        self.fail(id, message)
    }

    /// No worker can run: no pending band will come.
    fn fail_pending(&mut self, message: &str) -> Changed {
        for id in self.work.iter().map(|w| w.id).collect::<Vec<_>>() {
            self.fail(id, message);
        }
        Changed::of(Topic::Bands)
    }
}

impl BandStore {
    fn update(&mut self, id: u64, change: impl FnOnce(&mut BandState)) -> Changed {
        if let Some(entry) = self.entries.iter_mut().find(|s| s.job.id == id) {
            let mut next = (**entry).clone();
            change(&mut next);
            *entry = Rc::new(next);
        }
        Changed::of(Topic::Bands)
    }

    /// Sample `index` of band `id` answered: the band so far, folded in sample order.
    fn arrived(&mut self, id: u64, index: u32, sample: Result<Option<Bands>, String>) -> Changed {
        let Some(wi) = self.work.iter().position(|w| w.id == id) else { return Changed::default() };
        let sample = match sample {
            Ok(b) => b,
            Err(message) => return self.fail(id, &message),
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
    fn fail(&mut self, id: u64, message: &str) -> Changed {
        self.work.retain(|w| w.id != id);
        self.update(id, |s| s.job.fail(message))
    }
}

/// Starts a band of `samples` samples of `e`'s reproduction in the pool (replacing one of
/// another size, or a stopped one; a running or finished band of this size is kept).
pub fn start_band(e: &'static dyn Experiment, samples: u32) {
    kind::change::<BandStore, ()>(|bands, pool| {
        let keep = |s: &BandState| {
            s.experiment == e.id() && s.job.total == samples && s.job.error().is_none() && !s.job.is_stopped()
        };
        if bands.entries.iter().any(|s| keep(s)) {
            return None;
        }
        bands.next_id += 1;
        let id = bands.next_id;
        let workers = pool.pool_size().min(samples.max(1));
        let one = plan::run_estimate_ms(e, &e.reproduce_params(), 1);
        let mut job = Job::new(id, samples, now_ms());
        job.estimate_ms = one * f64::from(samples) / f64::from(workers);
        job.workers = workers;
        let state = BandState { experiment: e.id(), job, bands: None };
        let old: Vec<u64> = bands.entries.iter().filter(|s| s.experiment == e.id()).map(|s| s.job.id).collect();
        old.iter().for_each(|&id| pool.stop(id));
        bands.work.retain(|w| !old.contains(&w.id));
        bands.entries.retain(|s| s.experiment != e.id());
        bands.entries.push(Rc::new(state));
        bands.work.push(Work {
            id,
            e,
            next: 0,
            results: vec![None; samples as usize],
            empty: empty_bands(e, DEFAULT_SEED, samples),
        });
        Some(((), Changed::of(Topic::Bands)))
    });
}

/// Stops the band of `e`: its workers are terminated at once; the band so far stays.
pub fn stop_band(e: &'static dyn Experiment) {
    kind::change::<BandStore, ()>(|bands, pool| {
        let id = bands.entries.iter().find(|s| s.experiment == e.id() && s.job.is_running()).map(|s| s.job.id)?;
        pool.stop(id);
        bands.work.retain(|w| w.id != id);
        let now = now_ms();
        Some(((), bands.update(id, |s| s.job.stop(now))))
    });
}

/// Holds `e`'s band while the calling page is shown. When the last page of `e` goes, a band
/// still running is stopped, after the current task: a page replaced by another page of the
/// same experiment (a lesson and its playground) holds it again first and keeps it running.
#[hook]
pub fn use_band_held(e: &'static dyn Experiment) {
    use_effect_with(e.id(), move |_| {
        show(e, true);
        move || {
            show(e, false);
            yew::platform::spawn_local(async move {
                yew::platform::time::sleep(std::time::Duration::ZERO).await;
                let unseen = kind::read::<BandStore, _>(|b| !b.shown.iter().any(|(id, _)| *id == e.id()));
                if unseen.unwrap_or(true) {
                    stop_band(e);
                }
            });
        }
    });
}

/// One page more (`more`) or less shows `e`'s band.
fn show(e: &'static dyn Experiment, more: bool) {
    kind::with::<BandStore, _>(|b| {
        let i = b.shown.iter().position(|(id, _)| *id == e.id()).unwrap_or_else(|| {
            b.shown.push((e.id(), 0));
            b.shown.len() - 1
        });
        let n = &mut b.shown[i].1;
        *n = if more { *n + 1 } else { n.saturating_sub(1) };
        if *n == 0 {
            b.shown.remove(i);
        }
    });
}

/// The band of `e`'s reproduction, if the learner asked for one (redraws as samples arrive).
#[hook]
pub fn use_band(e: &'static dyn Experiment) -> Option<Rc<BandState>> {
    store::use_topic(Topic::Bands, None);
    kind::read::<BandStore, _>(|b| b.entries.iter().find(|s| s.experiment == e.id()).cloned()).flatten()
}
