//! Uncertainty bands in the run store: core's band of an experiment's reproduction (its
//! `reproduce_params`, the default seed), computed in the sweep worker only — `n` runs, one per
//! worker task, never on the main thread — and only when the learner asks ([`start_band`]).
//! Each sample's reply widens the band the views draw ([`use_band`]); finished bands stay, one
//! per experiment (asking again with another number of samples replaces it).

use super::{ensure_worker, send, CLIENT};
use crate::store::{self, Topic};
use crate::worker::{BandsRequest, Request};
use skblab_core::validate::Bands;
use skblab_core::{Experiment, DEFAULT_SEED};
use std::rc::Rc;
use yew::prelude::*;

/// Samples of a band the page runs (bounded work: one run of the reproduction each).
pub const BAND_SAMPLES: u32 = 12;

/// A band as far as it has come.
#[derive(Debug, Clone, PartialEq)]
pub struct BandState {
    pub experiment: &'static str,
    /// The number the worker echoes.
    pub id: u64,
    pub samples: u32,
    /// Samples answered so far (a failed sample counts: it adds nothing to the band).
    pub answered: u32,
    /// The band of the samples so far (`None` before the first).
    pub bands: Option<Rc<Bands>>,
    pub done: bool,
    pub error: Option<String>,
}

impl BandState {
    /// Progress in percent (0..=100).
    pub fn percent(&self) -> u32 {
        if self.done {
            return 100;
        }
        (self.answered * 100).checked_div(self.samples).unwrap_or(0).min(99)
    }
}

/// Every band asked for, one per experiment.
#[derive(Default)]
pub(super) struct BandStore {
    entries: Vec<Rc<BandState>>,
    next_id: u64,
}

/// Starts a band of `samples` samples of `e`'s reproduction in the worker (replacing one of
/// another size; a running or finished band of this size is kept).
pub fn start_band(e: &'static dyn Experiment, samples: u32) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.bands.entries.iter().any(|s| s.experiment == e.id() && s.samples == samples && s.error.is_none()) {
            return false;
        }
        c.bands.next_id += 1;
        let id = c.bands.next_id;
        let mut state =
            BandState { experiment: e.id(), id, samples, answered: 0, bands: None, done: false, error: None };
        let request = BandsRequest { id, experiment: e.id().to_string(), seed: DEFAULT_SEED, samples };
        if let Err(err) = ensure_worker(&mut c).and_then(|()| send(&mut c, Request::Bands(request))) {
            state.error = Some(err);
        }
        c.bands.entries.retain(|s| s.experiment != e.id());
        c.bands.entries.push(Rc::new(state));
        true
    });
    if changed {
        store::notify(Topic::Bands);
    }
}

/// Applies `change` to the band of request `id`.
fn update(id: u64, change: impl FnOnce(&mut BandState)) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(entry) = c.bands.entries.iter_mut().find(|s| s.id == id) {
            let mut next = (**entry).clone();
            change(&mut next);
            *entry = Rc::new(next);
        }
    });
    store::notify(Topic::Bands);
}

/// The worker's reply for band request `id`: the band after one more sample.
pub(super) fn arrived(id: u64, bands: Bands, done: bool) {
    update(id, |s| {
        s.answered = (s.answered + 1).min(s.samples);
        s.bands = Some(Rc::new(bands));
        s.done = done;
    });
}

/// The worker refused band request `id`, or failed.
pub(super) fn failed(id: u64, message: String) {
    update(id, |s| s.error = Some(message));
}

/// The worker crashed: no pending band will come.
pub(super) fn fail_pending(message: &str) {
    let ids: Vec<u64> = CLIENT.with(|c| c.borrow().bands.entries.iter().filter(|s| !s.done).map(|s| s.id).collect());
    for id in ids {
        failed(id, message.to_string());
    }
}

/// The band of `e`'s reproduction, if the learner asked for one (redraws as samples arrive).
#[hook]
pub fn use_band(e: &'static dyn Experiment) -> Option<Rc<BandState>> {
    store::use_topic(Topic::Bands, None);
    CLIENT.with(|c| c.borrow().bands.entries.iter().find(|s| s.experiment == e.id()).cloned())
}
