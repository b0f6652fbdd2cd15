//! The run store's hooks and its two components: [`RunProgress`] (the bar every view of a
//! heavy run shows) and [`RunControl`] (once per page: the estimate, the go-ahead for a run
//! estimated above half a minute, the ETA and Stop of a long run, "Run again" after Stop).

use super::plan::{self, duration_text, eta_text, points_text};
use super::{confirm, ensure_visible, hold, leave_visible, now_ms, release, restart, show_visible, state_of, stop};
use super::{unshow_visible, want, RunKey, RunState};
use crate::store::{self, Topic};
use skblab_core::{Cost, Experiment, Params};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use yew::platform::{spawn_local, time::sleep};
use yew::prelude::*;

/// The run of `experiment` under `params` and `seed`, made the visible one: a light run is
/// computed here once per key; a heavy one starts in the pool unless it is running or
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
            let key = key.clone();
            if heavy {
                ensure_visible(&key);
                show_visible(&key);
            }
            move || {
                if heavy {
                    unshow_visible(&key);
                    // After this render's components made their own runs visible: a page left
                    // stops its run (other settings of the same view replaced it already).
                    spawn_local(async move {
                        sleep(Duration::ZERO).await;
                        leave_visible(&key);
                    });
                }
            }
        });
    }
    if let Some(state) = (*light).clone() {
        return state;
    }
    state_of(&key).unwrap_or_else(|| Rc::new(RunState::new(key)))
}

/// The run of `key` asked for in the background ([`want`]): it shares the pool after the
/// visible run, so several components can each ask for one (the reproduce page). `None` until
/// it starts.
#[hook]
pub fn use_background_run(key: RunKey) -> Option<Rc<RunState>> {
    use_background_run_of(Some(key))
}

/// [`use_background_run`] of a key that may be absent (the pinned run of "compare two runs",
/// none while nothing is pinned): `None` without a key. The run is held while the component
/// shows this key: once no component does (unpinned, the page left), an unfinished run stops.
#[hook]
pub fn use_background_run_of(key: Option<RunKey>) -> Option<Rc<RunState>> {
    store::use_topic(Topic::Runs, None);
    let heavy = key.as_ref().is_some_and(|k| k.experiment.cost(&k.params) == Cost::Heavy);
    // A light run is computed here, once per key; only heavy ones go to the pool.
    let light = use_memo(key.clone(), move |key| {
        key.as_ref().filter(|_| !heavy).map(|key| Rc::new(RunState::computed(key.clone())))
    });
    use_effect_with(key.clone(), |key| {
        let key = key.clone();
        if let Some(k) = &key {
            hold(k);
        }
        move || {
            if let Some(k) = &key {
                release(k);
            }
        }
    });
    {
        let key = key.clone();
        // Every render: a no-op once the run is running, queued, waiting or cached.
        use_effect(move || {
            if let Some(key) = key.filter(|_| heavy) {
                want(key)
            }
        });
    }
    (*light).clone().or_else(|| key.as_ref().and_then(state_of))
}

/// What a view shows until its run is done: how far it is, or why it failed (a failed run never
/// finishes, so "waiting" would be a promise the page cannot keep).
pub fn waiting_note(s: &RunState) -> Html {
    match s.job.error() {
        // Not an alert: the panel announces the refusal once (one line per view would repeat it).
        Some(e) => html! { <p class="run-error">{ format!("No run: {e}") }</p> },
        None if s.job.is_awaiting() => {
            html! { <p class="muted">{"not started: the run waits for your go-ahead (above)"}</p> }
        }
        None if s.job.is_stopped() => html! { <p class="muted">{ format!("stopped at {} %", s.job.percent()) }</p> },
        None => html! { <p class="muted view-pending">{ format!("waiting for the run ({} %)…", s.job.percent()) }</p> },
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
    if !s.in_worker && s.job.error().is_none() {
        return html! {};
    }
    let pct = s.job.percent();
    let label = format!("{} of {} points simulated", s.rows.len(), s.job.total);
    let timing = s.job.total_ms.filter(|_| s.job.is_done()).map(|total| {
        let first = s.first_row_ms.unwrap_or(0.0);
        let cold = if s.cold_start { " (including the workers' start)" } else { "" };
        let on = if s.job.workers > 1 { format!(" on {} workers", s.job.workers) } else { String::new() };
        format!("ran {} in {total:.0} ms{on}; first point after {first:.0} ms{cold}", points_text(s.rows.len() as u64))
    });
    html! {
        <div class="run-progress">
            <div class="run-bar" role="progressbar" aria-label="Run progress" aria-valuemin="0" aria-valuemax="100"
                aria-valuenow={pct.to_string()} aria-valuetext={label.clone()} data-testid="sweep-progress">
                <div class="run-bar-fill" style={format!("width: {pct}%")}></div>
            </div>
            <span class="run-progress-text">{ if s.job.is_done() { "done".to_string() } else { label } }</span>
            if let Some(t) = timing {
                <span class="run-time" data-testid="sweep-time">{ t }</span>
            }
            if let Some(e) = s.job.error() {
                // Not an alert: the page announces a failed or refused run once (the player's run
                // error, the panel's refusal), not once per view.
                <span class="run-error">{ e }</span>
            }
        </div>
    }
}

/// Redraws every half second while `active` (an ETA counts down between rows).
#[hook]
pub fn use_ticker(active: bool) {
    let update = use_force_update();
    use_effect_with(active, move |&active| {
        let cancelled = Rc::new(Cell::new(false));
        if active {
            let cancelled = cancelled.clone();
            spawn_local(async move {
                while !cancelled.get() {
                    sleep(Duration::from_millis(500)).await;
                    if !cancelled.get() {
                        update.force_update();
                    }
                }
            });
        }
        move || cancelled.set(true)
    });
}

/// "about 3 s on 2 workers (30 points, about 3.7 M simulated events)".
fn estimate_line(s: &RunState) -> String {
    let w = s.key.experiment.estimate(&s.key.params);
    let workers = if s.job.workers == 1 { "1 worker".to_string() } else { format!("{} workers", s.job.workers) };
    format!(
        "about {} on {workers} ({}, about {:.1} M simulated events)",
        duration_text(s.job.estimate_ms),
        points_text(w.points),
        w.events as f64 / 1e6
    )
}

/// The run's estimate and what the learner can do about it: the go-ahead of a run estimated
/// above [`plan::CONFIRM_MS`], the ETA and Stop of a long run, "Run again" once stopped. Shown
/// once per page (the player's views column, each table of the Reproduce page).
#[function_component(RunControl)]
pub fn run_control(props: &ProgressProps) -> Html {
    let s = &props.state;
    use_ticker(s.job.is_running());
    if !s.in_worker {
        return html! {};
    }
    let key = s.key.clone();
    if s.job.is_awaiting() {
        let onclick = Callback::from(move |_: MouseEvent| confirm(&key));
        return html! {
            <div class="run-control run-confirm" data-testid="run-confirm" role="group" aria-label="Long run">
                <p>{ format!("This run is estimated at {}. It starts when you ask; Stop ends it at any time.", estimate_line(s)) }</p>
                <button class="btn btn-small btn-primary" type="button" {onclick} data-testid="run-confirm-start">{"Run it"}</button>
            </div>
        };
    }
    if s.job.is_stopped() {
        let onclick = Callback::from(move |_: MouseEvent| restart(&key));
        return html! {
            <div class="run-control" data-testid="run-stopped">
                <span>{ format!("Stopped after {} of {} points.", s.rows.len(), s.job.total) }</span>
                <button class="btn btn-small" type="button" {onclick} data-testid="run-restart">{"Run again"}</button>
            </div>
        };
    }
    if !s.job.is_running() {
        return html! {};
    }
    let now = now_ms();
    let elapsed = now - s.job.started_ms;
    let long = s.job.estimate_ms >= plan::LONG_MS || elapsed >= plan::LONG_MS;
    let eta = s.job.eta_ms(now);
    // Once a point is in, the time left is the rate measured so far, not the estimate above it
    // (which may be far off): said, so the two never read as one figure twice.
    let basis = if s.rows.is_empty() { "" } else { "at the rate so far, " };
    let onclick = Callback::from(move |_: MouseEvent| stop(&key));
    html! {
        <div class="run-control" data-testid="run-control">
            <span class="muted" data-testid="run-estimate">{ format!("Estimated {}.", estimate_line(s)) }</span>
            if long {
                <span class="run-eta" data-testid="run-eta">{ format!(" {} of {} points, {basis}{}.", s.rows.len(), s.job.total, eta_text(eta)) }</span>
                <button class="btn btn-small" type="button" {onclick} data-testid="run-stop" aria-label="Stop the run">{"Stop"}</button>
            }
        </div>
    }
}
