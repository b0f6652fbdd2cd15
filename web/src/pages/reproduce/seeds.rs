//! One experiment's reproduction as its seeds come in, read off the run store: a light
//! experiment's mean computed here, a table of figures from each seed's view data
//! (`REPRODUCE_FIGURES`, a task of the pool each), or a heavy run per seed in the pool's
//! background — kept here once done, since the store's cache holds fewer runs than ten seeds of
//! two experiments. The mean so far is core's `reproduce_from_runs` / `reproduce_from_figures`
//! of the seeds that are in.

use crate::run::{self, RunKey, RunState, ViewLoad};
use crate::store::{self, Topic};
use skblab_core::experiment::REPRODUCE_FIGURES;
use skblab_core::output::Reproduction;
use skblab_core::{Cost, Experiment, RunOutput, ViewQuery};
use std::rc::Rc;
use yew::prelude::*;

/// One experiment's reproduction as far as its seeds have come.
pub(super) struct Progress {
    pub repro: Option<Rc<Reproduction>>,
    /// Seeds in, and work done of the total (points of runs, or seeds of figures).
    pub seeds_done: usize,
    pub done: usize,
    pub total: usize,
    pub error: Option<String>,
    /// Heavy runs of the seeds (for Stop and Run again).
    pub keys: Vec<RunKey>,
    pub stopped: bool,
}

/// The reproduction of `e` over `seeds` as far as it has come, from core's per-seed shares.
#[hook]
pub(super) fn use_progress(e: &'static dyn Experiment, seeds: &[u64]) -> Progress {
    let params = e.resolve(&e.reproduce_params());
    let figures = e.reproduce_figures_cost().is_some();
    let light = !figures && e.cost(&params) == Cost::Light;
    let key = |seed| RunKey { experiment: e, params: params.clone(), seed };
    let fig_keys: Vec<(RunKey, ViewQuery)> =
        if figures { seeds.iter().map(|&s| (key(s), ViewQuery::new(REPRODUCE_FIGURES))).collect() } else { Vec::new() };
    let run_keys: Vec<RunKey> = if figures || light { Vec::new() } else { seeds.iter().map(|&s| key(s)).collect() };
    let loads = run::use_view_data_list::<Vec<f64>>(fig_keys);
    let states = use_seed_runs(run_keys.clone());
    let seeds_key = seeds.to_vec();
    let light_repro =
        use_memo((e.id(), seeds_key), move |(_, seeds)| light.then(|| e.reproduce_mean(seeds).map(Rc::new)).flatten());
    if light {
        let repro = (*light_repro).clone();
        let error = repro.is_none().then(|| format!("{} has no seed table", e.id()));
        return Progress { repro, seeds_done: seeds.len(), done: 1, total: 1, error, keys: Vec::new(), stopped: false };
    }
    if figures {
        let mut p = Progress {
            repro: None,
            seeds_done: 0,
            done: 0,
            total: seeds.len(),
            error: None,
            keys: Vec::new(),
            stopped: false,
        };
        let (mut done_seeds, mut done_figs) = (Vec::new(), Vec::new());
        for (&seed, load) in seeds.iter().zip(&loads) {
            match load {
                ViewLoad::Ready(f) => {
                    done_seeds.push(seed);
                    done_figs.push((**f).clone());
                }
                ViewLoad::Failed(err) => p.error = Some(err.clone()),
                ViewLoad::Waiting => {}
            }
        }
        (p.seeds_done, p.done) = (done_seeds.len(), done_seeds.len());
        p.repro = e.reproduce_from_figures(&done_seeds, &done_figs).map(Rc::new);
        return p;
    }
    runs_progress(e, seeds, &states, run_keys)
}

fn runs_progress(
    e: &'static dyn Experiment,
    seeds: &[u64],
    states: &[Option<Rc<RunState>>],
    keys: Vec<RunKey>,
) -> Progress {
    let n_points = keys.first().map_or(1, |k| e.points(&k.params).len().max(1));
    let mut p = Progress {
        repro: None,
        seeds_done: 0,
        done: 0,
        total: seeds.len() * n_points,
        error: None,
        keys,
        stopped: false,
    };
    let (mut done_seeds, mut outputs): (Vec<u64>, Vec<RunOutput>) = (Vec::new(), Vec::new());
    for (&seed, state) in seeds.iter().zip(states) {
        let Some(s) = state else { continue };
        p.done += if s.job.is_done() { n_points } else { s.rows.len() };
        p.stopped |= s.job.is_stopped();
        if let Some(err) = s.job.error() {
            p.error = Some(err.to_string());
        }
        if let Some(out) = &s.output {
            done_seeds.push(seed);
            outputs.push((**out).clone());
        }
    }
    p.seeds_done = done_seeds.len();
    p.repro = e.reproduce_from_runs(&done_seeds, &outputs).map(Rc::new);
    p
}

/// The heavy runs of `keys` in the pool's background; a finished run is kept here (the run
/// store's cache holds fewer runs than ten seeds of two experiments).
#[hook]
fn use_seed_runs(keys: Vec<RunKey>) -> Vec<Option<Rc<RunState>>> {
    store::use_topic(Topic::Runs, None);
    let kept = use_mut_ref(Vec::<Rc<RunState>>::new);
    let states: Vec<Option<Rc<RunState>>> =
        keys.iter().map(|k| kept.borrow().iter().find(|s| s.key == *k).cloned().or_else(|| run::state_of(k))).collect();
    for s in states.iter().flatten().filter(|s| s.job.is_done()) {
        if !kept.borrow().iter().any(|k| k.key == s.key) {
            kept.borrow_mut().push(s.clone());
        }
    }
    // The keys this page holds ([`run::hold`]): once it no longer shows one (fewer seeds, the
    // page left), its unfinished run is stopped, not left to run for no one.
    let held = use_mut_ref(Vec::<RunKey>::new);
    {
        let held = held.clone();
        use_effect_with((), move |_| {
            move || {
                let gone: Vec<RunKey> = held.borrow_mut().drain(..).collect();
                gone.iter().for_each(run::release);
            }
        });
    }
    {
        let kept = kept.clone();
        // Every render: a no-op for runs kept, running, queued or stopped.
        use_effect(move || {
            let new: Vec<RunKey> = keys.iter().filter(|k| !held.borrow().contains(k)).cloned().collect();
            new.iter().for_each(run::hold);
            let gone: Vec<RunKey> = {
                let mut h = held.borrow_mut();
                h.extend(new);
                let (keep, gone) = h.drain(..).partition(|k| keys.contains(k));
                *h = keep;
                gone
            };
            gone.iter().for_each(run::release);
            for k in keys.into_iter().filter(|k| !kept.borrow().iter().any(|s| s.key == *k)) {
                run::want(k);
            }
        });
    }
    states
}
