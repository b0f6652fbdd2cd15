//! The lesson player and the playground: step text, question, parameter panel, views.
//!
//! The page state is [`Page`], changed only through the pure reducer [`state::apply`] (wrapped
//! in `use_reducer`). Effects keep the URL in step with the state: a new step adds a history
//! entry, a moved control replaces it; a navigation (back button, edited URL) reloads the
//! state. Files: `head.rs` (title block, step list), `step.rs` (a step's text and question,
//! the lesson's end), [`practice`], [`pinned_view`] (the main view kept in sight on a phone)
//! and [`state`] (the page and its reducer, pure).

use crate::components::notices::Notices;
use crate::components::panel::ParamPanel;
use crate::components::results::{Results, RunNotes};
use crate::hooks::{use_dark_mode, Nav, ProgressCtx};
use crate::route;
use crate::run::use_run;
use crate::{browser, views};
use head::{arrow_keys, player_head, step_list};
use practice::use_practice;
use skblab_core::{Cost, ViewSpec};
use state::{apply, Action, Page};
use std::rc::Rc;
use step::step_body;
use yew::prelude::*;

mod head;
pub mod pinned_view;
pub mod practice;
pub mod state;
mod step;

/// `Page` as a Yew reducer.
#[derive(Clone, PartialEq)]
pub struct PageState(pub Page);

impl Reducible for PageState {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new(PageState(apply(&self.0, action)))
    }
}

#[derive(Properties, PartialEq)]
pub struct PlayerProps {
    pub initial: Page,
    pub nav: Nav,
}

#[function_component(Player)]
pub fn player(props: &PlayerProps) -> Html {
    let state = use_reducer({
        let initial = props.initial.clone();
        move || PageState(initial)
    });
    let page = &state.0;
    use_url_sync(page, &props.nav, state.dispatcher());
    // ← / → change the step only while focus is on the step list or the step's buttons (not
    // on the window: a reader who meant to scroll must not lose the step); then focus stays
    // there, on the new step's pill, so the keys can be pressed again.
    let arrow_focus = use_mut_ref(|| None::<String>);
    use_focus_on_new_step(page.step, arrow_focus.clone());
    let dark = use_dark_mode();
    let progress = use_context::<ProgressCtx>().expect("ProgressCtx is provided by App");
    let on_arrows = arrow_keys(&state, arrow_focus);
    // The step list folded on a phone (style.css shows it whole on a wider screen).
    let steps_open = use_state_eq(|| false);
    pinned_view::use_pinned_main_view();
    let resolved = page.resolved();
    let invalid = page.experiment.validate(&resolved).err().map(|e| e.to_string());
    let refused = invalid.is_some();
    let run = use_run(page.experiment, &resolved, page.seed);
    crate::run::use_band_held(page.experiment);
    let step = page.lesson.and_then(|l| l.steps.get(page.step));
    use_mark_visited(page, &progress);
    // Until the step's question is settled (answered right, or the answer asked for), the
    // views that would show its answer are veiled.
    // The steps being practised again ("Practise the N you missed"), kept across reloads.
    let practice = use_practice(page.lesson);
    let practising = practice.practising(page.step);
    let settled = use_unsettled_on_new_step((page.step, practising));
    let question = step.and_then(|s| s.question.as_ref());
    let correct = page.lesson.is_some_and(|l| progress.progress.is_correct(&l.slug, page.step));
    let answered_before = practice.answered_before(page.step, correct);
    let (veiled, veil_results) = veiled_views(question, !*settled && !answered_before);
    let ctx = use_view_ctx(page, &resolved, &run, dark, !veil_results);
    let view_names: Vec<String> = match step {
        Some(s) => s.views.clone(),
        None => views::names(page.experiment).iter().map(|s| s.to_string()).collect(),
    };
    let light = results_under_views(page, &resolved, &view_names);
    let heavy = page.experiment.cost(&resolved) != Cost::Light;
    let on_set = send(&state, |(name, text)| Action::SetParam { name, text });
    let on_seed = send(&state, Action::SetSeed);
    let on_dismiss = send(&state, |_| Action::DismissNotices);
    html! {
        <div class="player">
            <Notices notices={page.notices.clone()} notes={page.notes.clone()} on_dismiss={Some(on_dismiss)} />
            { player_head(page, step_list(page, &progress, &state, &on_arrows, &steps_open)) }
            { skip_to_views() }
            <div class="player-grid">
                <div class="col-text">
                    { step_body(page, &progress, &state, &settled, answered_before, &practice, &on_arrows) }
                    <ParamPanel specs={page.experiment.specs()} params={page.params.clone()}
                        resolved={resolved} seed={page.seed} errors={page.field_errors.clone()}
                        {invalid} {on_set} {on_seed} />
                </div>
                <div class="col-views" id="views" tabindex="-1" role="region" aria-label="Views" data-run={run.job.phase_name()}>
                    { run_status(&run, refused, heavy) }
                    { for view_names.iter().map(|name| view_slot(name, veiled.contains(&name.as_str()), &ctx)) }
                    { under_views(page, &state, &run, light, veil_results) }
                </div>
            </div>
        </div>
    }
}

/// What every view gets: the run (B) and, when a run is pinned and the comparison is not
/// veiled (`compare`: the step's question is settled), the pinned run A beside it.
#[hook]
fn use_view_ctx(
    page: &Page,
    resolved: &skblab_core::Params,
    run: &Rc<crate::run::RunState>,
    dark: bool,
    compare: bool,
) -> views::ViewCtx {
    let key = page.pin.as_deref().map(|p| crate::run::RunKey {
        experiment: page.experiment,
        params: p.params.clone(),
        seed: p.seed,
    });
    let pinned = crate::run::use_background_run_of(key);
    views::ViewCtx {
        experiment: page.experiment,
        resolved: resolved.clone(),
        run: run.clone(),
        seed: page.seed,
        dark,
        pinned: pinned.filter(|_| compare),
    }
}

/// Under the views: a light run's table, the comparison with a pinned run (both veiled while
/// the step's question is open) and the run's command line.
fn under_views(
    page: &Page,
    state: &UseReducerHandle<PageState>,
    run: &Rc<crate::run::RunState>,
    light: bool,
    veil_results: bool,
) -> Html {
    html! {
        <>
            if light {
                { veil("results", veil_results, html! { <Results output={run.table()} /> }) }
            }
            { veil("compare", veil_results, html! {
                <crate::components::compare::Compare experiment={page.experiment} pin={page.pin.as_deref().cloned()}
                    run={run.clone()} on_pin={send(state, |_| Action::Pin)} on_unpin={send(state, |_| Action::Unpin)} />
            }) }
            <crate::components::cli_line::CliLine run={run.clone()} />
        </>
    }
}

/// Above the views: why the run failed, its notes, and its progress, ETA and Stop. One alert
/// per problem: settings the experiment refuses are the panel's alert (every view's progress
/// line repeats them quietly); a run that failed otherwise (the worker did not load) is this one.
fn run_status(run: &Rc<crate::run::RunState>, refused: bool, heavy: bool) -> Html {
    // A heavy run's line (estimate, then progress, then nothing) keeps its height from the
    // page's first frame to its last, so that the views under it never move (layout shift).
    html! {
        <div class={classes!("run-status", heavy.then_some("run-status-reserved"))}>
            if let Some(e) = run.job.error().filter(|_| !refused) {
                <p class="run-error" role="alert" data-testid="run-error">{ format!("The run failed: {e}") }</p>
            }
            if let Some(output) = run.output.clone() {
                <RunNotes {output} />
            }
            <crate::run::RunControl state={run.clone()} />
        </div>
    }
}

/// A callback that dispatches the action `make` builds from its argument.
fn send<T: 'static>(state: &UseReducerHandle<PageState>, make: impl Fn(T) -> Action + 'static) -> Callback<T> {
    let dispatch = state.dispatcher();
    Callback::from(move |arg: T| dispatch.dispatch(make(arg)))
}

/// Whether the result table of a light run goes under the views (a heavy run's views show
/// its rows), unless the step shows the table itself.
fn results_under_views(page: &Page, resolved: &skblab_core::Params, view_names: &[String]) -> bool {
    let shows_table = page
        .experiment
        .views()
        .iter()
        .any(|v| matches!(v, ViewSpec::Table { id } if view_names.iter().any(|n| n == id)));
    page.experiment.cost(resolved) == Cost::Light && !shows_table
}

/// Keyboard users reach the views (a trace player's buttons) without tabbing through the
/// text, the question and every parameter.
fn skip_to_views() -> Html {
    html! {
        <a class="skip-inline" href="#views" data-testid="skip-to-views" onclick={Callback::from(|e: MouseEvent| {
            e.prevent_default();
            browser::focus_element("views");
        })}>{"Skip to the views"}</a>
    }
}

/// Entering a step counts as visiting it.
#[hook]
fn use_mark_visited(page: &Page, progress: &ProgressCtx) {
    let (mark, slug) = (progress.mark_visited.clone(), page.lesson.map(|l| l.slug.clone()));
    use_effect_with((slug, page.step), move |(slug, step)| {
        if let Some(slug) = slug {
            mark.emit((slug.clone(), *step));
        }
    });
}

/// Whether the step's question is settled; false again on every new step (and when a
/// practice of it begins or ends).
#[hook]
fn use_unsettled_on_new_step(step: (usize, bool)) -> UseStateHandle<bool> {
    let settled = use_state_eq(|| false);
    {
        let settled = settled.clone();
        use_effect_with(step, move |_| settled.set(false));
    }
    settled
}

/// The views veiled while `question` is `open` (neither answered right nor revealed), and
/// whether the result table under a light run is: it shows every column, so it is veiled with
/// the question's views, or when the question asks a metric.
fn veiled_views(question: Option<&skblab_lessons::Question>, open: bool) -> (Vec<&str>, bool) {
    match question {
        Some(q) if open => {
            let views: Vec<&str> = q.hides.iter().map(String::as_str).collect();
            let results = !views.is_empty() || !q.metric.is_empty();
            (views, results)
        }
        _ => (Vec::new(), false),
    }
}

/// A view in a slot of its own: the first one that draws is the step's main view, which a
/// one-column screen keeps in sight while a knob moves (pinned_view.rs).
fn view_slot(name: &str, hidden: bool, ctx: &views::ViewCtx) -> Html {
    html! {
        <div class="view-slot" key={name.to_string()}>{ veil(name, hidden, views::render(name, ctx)) }</div>
    }
}

/// A view that would show the answer of an open question: drawn, but blurred and out of reach
/// (inert: no focus, no screen reader) until the question is settled.
fn veil(name: &str, hidden: bool, view: Html) -> Html {
    if !hidden {
        return view;
    }
    html! {
        <div class="veil" data-testid={format!("veiled-{name}")}>
            <div class="veil-content" inert=true aria-hidden="true">{ view }</div>
            <p class="veil-note">{"Hidden until you answer the question: predict first."}</p>
        </div>
    }
}

/// A new step (not the first render) moves focus to its title, scrolled into view — or, when
/// ← / → changed it, back to where the key was pressed (`arrow_focus`, taken once).
#[hook]
fn use_focus_on_new_step(step: usize, arrow_focus: Rc<std::cell::RefCell<Option<String>>>) {
    let first = use_mut_ref(|| true);
    use_effect_with(step, move |_| {
        let by_key = arrow_focus.borrow_mut().take();
        if !std::mem::replace(&mut *first.borrow_mut(), false) {
            browser::focus_element(by_key.as_deref().unwrap_or("step-title"));
        }
    });
}

/// Keeps the URL and the page state in step (see the module doc).
#[hook]
fn use_url_sync(page: &Page, nav: &Nav, dispatch: UseReducerDispatcher<PageState>) {
    let url = route::format(&page.location());
    let last_step = use_mut_ref(|| page.step);
    {
        let step = page.step;
        use_effect_with(url.clone(), move |url| {
            if browser::current_hash() != *url {
                if *last_step.borrow() != step {
                    browser::push_hash(url);
                } else {
                    browser::replace_hash(url);
                }
            }
            *last_step.borrow_mut() = step;
        });
    }
    let mounted_generation = use_mut_ref(|| nav.generation);
    use_effect_with(nav.clone(), move |nav| {
        let first = *mounted_generation.borrow() == nav.generation;
        *mounted_generation.borrow_mut() = nav.generation;
        if !first && nav.hash != url {
            dispatch.dispatch(Action::Load(route::parse(&nav.hash)));
        }
    });
}
