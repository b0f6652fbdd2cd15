//! The lesson player and the playground: step text, question, parameter panel, views.
//!
//! The page state is [`Page`], changed only through [`crate::pages::player::state::apply`] (wrapped in
//! `use_reducer`). Effects keep the URL in step with the state: a new step adds a history
//! entry, a moved control replaces it; a navigation (back button, edited URL) reloads the state.

use crate::components::notices::Notices;
use crate::components::panel::ParamPanel;
use crate::components::question::QuestionBox;
use crate::components::results::{Results, RunNotes};
use crate::hooks::{use_dark_mode, Nav, ProgressCtx, Record};
use crate::route::{self, Route};
use crate::run::use_run;
use crate::{browser, views};
use practice::{practice_bar, use_practice, PracticeHandle};
use skblab_core::{Cost, ViewSpec};
use state::{apply, Action, Page};
use std::rc::Rc;
use yew::prelude::*;

pub mod pinned_view;
pub mod practice;
pub mod state;

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
    let on_set = send(&state, |(name, text)| Action::SetParam { name, text });
    let on_seed = send(&state, Action::SetSeed);
    let on_dismiss = send(&state, |_| Action::DismissNotices);
    html! {
        <div class="player">
            <Notices notices={page.notices.clone()} notes={page.notes.clone()} on_dismiss={Some(on_dismiss)} />
            { player_head(page, &progress, &state, &on_arrows, &steps_open) }
            { skip_to_views() }
            <div class="player-grid">
                <div class="col-text">
                    { step_body(page, &progress, &state, &settled, answered_before, &practice, &on_arrows) }
                    <ParamPanel specs={page.experiment.specs()} params={page.params.clone()}
                        resolved={resolved} seed={page.seed} errors={page.field_errors.clone()}
                        {invalid} {on_set} {on_seed} />
                </div>
                <div class="col-views" id="views" tabindex="-1" role="region" aria-label="Views" data-run={run.phase()}>
                    { run_status(&run, refused) }
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
fn run_status(run: &Rc<crate::run::RunState>, refused: bool) -> Html {
    html! {
        <>
            if let Some(e) = run.error.as_ref().filter(|_| !refused) {
                <p class="run-error" role="alert" data-testid="run-error">{ format!("The run failed: {e}") }</p>
            }
            if let Some(output) = run.output.clone() {
                <RunNotes {output} />
            }
            <crate::run::RunControl state={run.clone()} />
        </>
    }
}

/// The key handler of the step list and the step's buttons: ← / → (no modifier) go to the
/// previous / next step and keep focus in the same place (`arrow_focus`: the element id to
/// focus on the new step: the current step's pill, or the button pressed).
fn arrow_keys(
    state: &UseReducerHandle<PageState>,
    arrow_focus: Rc<std::cell::RefCell<Option<String>>>,
) -> Callback<KeyboardEvent> {
    let dispatch = state.dispatcher();
    let (step, n) = (state.0.step, state.0.n_steps());
    Callback::from(move |e: KeyboardEvent| {
        if e.alt_key() || e.ctrl_key() || e.meta_key() || e.shift_key() {
            return;
        }
        let (action, next) = match e.key().as_str() {
            "ArrowLeft" if step > 0 => (Action::Prev, step - 1),
            "ArrowRight" if step + 1 < n => (Action::Next, step + 1),
            "ArrowLeft" | "ArrowRight" => return e.prevent_default(),
            _ => return,
        };
        e.prevent_default();
        // On a pill (not on the folded list's toggle, whose pills may be hidden).
        let in_list = e
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .is_some_and(|el| el.closest(".steps ol").ok().flatten().is_some());
        // On the step's buttons, focus stays on the one that still does something.
        let button = match () {
            _ if next == 0 => "next-step",
            _ if next + 1 == n => "prev-step",
            _ if next > step => "next-step",
            _ => "prev-step",
        };
        let target = if in_list { step_pill_id(next) } else { button.to_string() };
        *arrow_focus.borrow_mut() = Some(target);
        dispatch.dispatch(action);
    })
}

/// The element id of step `i`'s pill in the step list (from 0).
fn step_pill_id(i: usize) -> String {
    format!("step-pill-{}", i + 1)
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

/// The title block: lesson or playground, title, summary, the copy-link button and the steps.
fn player_head(
    page: &Page,
    progress: &ProgressCtx,
    state: &UseReducerHandle<PageState>,
    on_arrows: &Callback<KeyboardEvent>,
    steps_open: &UseStateHandle<bool>,
) -> Html {
    let title = page.lesson.map_or(page.experiment.title(), |l| l.title.as_str());
    let summary = page.lesson.map_or(page.experiment.summary(), |l| l.summary.as_str());
    html! {
        <header class="player-head">
            <p class="eyebrow">{ if page.lesson.is_some() { "Lesson" } else { "Playground" } }
                {" · "}<code>{ page.experiment.id() }</code></p>
            <h1>{ title }</h1>
            <p class="lead">{ summary }</p>
            <CopyLink />
            { step_list(page, progress, state, on_arrows, steps_open) }
        </header>
    }
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
/// one-column screen keeps in sight while a knob moves (components/pin.rs).
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

/// The lesson's steps as pills. On a phone (style.css, below 640 px) the list folds behind
/// one button that names the current step: eight pills wrapped one a line took a whole screen
/// before the step's text. A step chosen from the unfolded list folds it again.
fn step_list(
    page: &Page,
    progress: &ProgressCtx,
    state: &UseReducerHandle<PageState>,
    on_arrows: &Callback<KeyboardEvent>,
    steps_open: &UseStateHandle<bool>,
) -> Html {
    let Some(lesson) = page.lesson else { return html! {} };
    let open = **steps_open;
    let toggle = {
        let steps_open = steps_open.clone();
        Callback::from(move |_: MouseEvent| steps_open.set(!*steps_open))
    };
    let current_title = lesson.steps.get(page.step).map_or("", |s| s.title.as_str());
    html! {
        <nav class={classes!("steps", open.then_some("open"))} aria-label="Steps" onkeydown={on_arrows.clone()}>
            <button type="button" class="steps-toggle" data-testid="steps-toggle" aria-expanded={open.to_string()}
                aria-controls="step-list" onclick={toggle}>
                <span class="steps-toggle-count">{ format!("Step {} of {}", page.step + 1, lesson.steps.len()) }</span>
                <span class="steps-toggle-title">{ current_title }</span>
                <span class="steps-toggle-mark" aria-hidden="true">{ if open { "▴" } else { "▾" } }</span>
            </button>
            <ol id="step-list">
                { for lesson.steps.iter().enumerate().map(|(i, s)| {
                    let dispatch = state.dispatcher();
                    let steps_open = steps_open.clone();
                    let current = i == page.step;
                    let done = progress.progress.is_correct(&lesson.slug, i)
                        || (s.question.is_none() && progress.progress.is_visited(&lesson.slug, i));
                    html! {
                        <li>
                            <button type="button" class={classes!("step-pill", current.then_some("current"), done.then_some("done"))}
                                id={step_pill_id(i)} aria-current={current.then_some("step")} data-testid={format!("step-{}", i + 1)}
                                onclick={move |_| { steps_open.set(false); dispatch.dispatch(Action::GoStep(i)) }} title={s.title.clone()}>
                                <span class="step-num">{ if done { "✓".to_string() } else { (i + 1).to_string() } }</span>
                                <span class="step-name">{ &s.title }</span>
                            </button>
                        </li>
                    }
                }) }
            </ol>
        </nav>
    }
}

fn step_body(
    page: &Page,
    progress: &ProgressCtx,
    state: &UseReducerHandle<PageState>,
    settled: &UseStateHandle<bool>,
    answered_before: bool,
    practice: &PracticeHandle,
    on_arrows: &Callback<KeyboardEvent>,
) -> Html {
    let dispatcher = state.dispatcher();
    let send = move |action: Action| {
        let d = dispatcher.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(action.clone()))
    };
    let (Some(lesson), Some(step)) = (page.lesson, page.lesson.and_then(|l| l.steps.get(page.step))) else {
        return html! {
            <div class="step-actions">
                <button class="btn" type="button" onclick={send(Action::ResetStep)} data-testid="reset-step">{"Reset to defaults"}</button>
                <a class="btn" href={route::href(Route::Play { experiment: None })}>{"All experiments"}</a>
            </div>
        };
    };
    let n = lesson.steps.len();
    // Rendered from the lesson's Markdown at build time (trusted, compiled-in content).
    let body = Html::from_html_unchecked(AttrValue::from(step.body_html.as_str()));
    // The ledger shows model values: not while this step's question is open and was never
    // answered (nor during a practice).
    let hold_ledger = practice.active().is_some()
        || (step.question.is_some()
            && !**settled
            && !answered_before
            && progress.ledger.get(&lesson.slug, page.step).is_none());
    let next = send(Action::Next);
    html! {
        <article class="step card-flat" aria-labelledby="step-title">
            <p class="eyebrow">{ format!("Step {} of {n}", page.step + 1) }</p>
            <h2 id="step-title" data-testid="step-title" tabindex="-1">{ &step.title }</h2>
            { practice_bar(page, lesson, progress, state, practice) }
            <div class="prose">{ body }</div>
            { step_question(page, lesson, step, progress, settled, answered_before, practice) }
            <div class="step-actions" onkeydown={on_arrows.clone()}>
                <button class="btn" type="button" onclick={send(Action::Prev)} disabled={page.step == 0}
                    id="prev-step" data-testid="prev-step" aria-keyshortcuts="ArrowLeft">{"← Previous"}</button>
                <button class="btn" type="button" onclick={send(Action::ResetStep)} data-testid="reset-step">{"Reset step"}</button>
                <button class="btn btn-primary" type="button" onclick={next} disabled={page.step + 1 >= n}
                    id="next-step" data-testid="next-step" aria-keyshortcuts="ArrowRight">{"Next →"}</button>
            </div>
            if page.step + 1 == n {
                { lesson_end(lesson, progress, hold_ledger) }
            }
            { how_we_know(lesson) }
            if page.step + 1 == n && !lesson.sources.is_empty() {
                <section class="lesson-sources">
                    <h3>{"Sources"}</h3>
                    <ul>{ for lesson.sources.iter().map(|s| html! { <li>{ crate::cite::linkify(s) }</li> }) }</ul>
                </section>
            }
        </article>
    }
}

/// "How we know" (issue #40), on every step, folded: which of the lesson's statements are the
/// kernel's (each with its versions and source), which are the model's simplifications, and
/// where the model differs from the kernel the seed post ran. A native `<details>` (keyboard and
/// screen readers know it); it stays as the learner left it from step to step, and nothing
/// opens it for them: the notes keep model numbers out, and the leaks test (e2e) reads them as
/// readable text all the same. An empty list is left out; with all three empty, the note is.
fn how_we_know(lesson: &skblab_lessons::Lesson) -> Html {
    let h = &lesson.how_we_know;
    let lists = [
        ("kernel", "From the kernel (with sources)", &h.kernel_html),
        ("model", "The model's simplifications (ours)", &h.model_html),
        ("seed-kernel", "Where the model differs from the seed's kernel", &h.seed_kernel_html),
    ];
    if lists.iter().all(|(_, _, items)| items.is_empty()) {
        return html! {};
    }
    html! {
        <details class="how-we-know" data-testid="how-we-know">
            <summary><h3>{"How we know"}</h3></summary>
            { for lists.iter().filter(|(_, _, items)| !items.is_empty()).map(|(id, title, items)| html! {
                <div class="how-we-know-list" data-testid={format!("how-we-know-{id}")}>
                    <h4>{ *title }</h4>
                    <ul>
                        // Rendered from the lesson's Markdown at build time (trusted, compiled-in
                        // content, as a step's body), its citations linked here.
                        { for items.iter().map(|item| html! {
                            <li>{ Html::from_html_unchecked(AttrValue::from(crate::cite::linkify_html(item))) }</li>
                        }) }
                    </ul>
                </div>
            }) }
        </details>
    }
}

/// The step's question, if it has one: graded at the step's own parameters, not the learner's
/// knobs (question.rs); a practice asks afresh (a new key: a new question box).
fn step_question(
    page: &Page,
    lesson: &skblab_lessons::Lesson,
    step: &'static skblab_lessons::Step,
    progress: &ProgressCtx,
    settled: &UseStateHandle<bool>,
    answered_before: bool,
    practice: &PracticeHandle,
) -> Html {
    let Some(q) = &step.question else { return html! {} };
    let practising = practice.practising(page.step);
    let mark_correct = {
        let (cb, slug, i) = (progress.mark_correct.clone(), lesson.slug.clone(), page.step);
        Callback::from(move |_| cb.emit((slug.clone(), i)))
    };
    let on_settled = {
        let settled = settled.clone();
        Callback::from(move |_| settled.set(true))
    };
    let on_record = record_for(progress, &lesson.slug, page.step, practising);
    // A question ended in a practice is done there (kept across a reload).
    let on_record = match practising {
        true => {
            let (practice, step) = (practice.clone(), page.step);
            on_record.reform(move |entry| {
                practice.mark_done(step);
                entry
            })
        }
        false => on_record,
    };
    html! {
        <QuestionBox key={format!("{}{}", page.step, if practising { "-practice" } else { "" })}
            question={q} experiment={page.experiment}
            params={crate::components::question::step_params(page.experiment, step)} seed={page.seed} on_correct={mark_correct} {on_settled}
            {answered_before} {on_record} />
    }
}

/// The prediction ledger of a lesson: per question, the first prediction, how sure the learner
/// was, the model's value and how it ended; then the calibration line.
fn ledger_table(lesson: &skblab_lessons::Lesson, progress: &ProgressCtx) -> Html {
    let Some(entries) = progress.ledger.0.get(&lesson.slug).filter(|m| !m.is_empty()) else { return html! {} };
    let cal = crate::ledger::calibration_line(&progress.ledger.calibration(&lesson.slug));
    html! {
        <section class="ledger" data-testid="ledger" aria-labelledby="ledger-title">
            <h4 id="ledger-title">{"Your predictions"}</h4>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="ledger-title">
            <table class="ledger-table">
                <thead><tr>
                    <th scope="col">{"Step"}</th><th scope="col">{"Question"}</th>
                    <th scope="col">{"Your first prediction"}</th><th scope="col">{"Confidence"}</th>
                    <th scope="col">{"Model"}</th><th scope="col">{"Outcome"}</th>
                </tr></thead>
                <tbody>
                { for entries.iter().filter_map(|(&i, e)| {
                    let step = lesson.steps.get(i)?;
                    let q = step.question.as_ref()?;
                    let outcome = match e.practice {
                        Some(p) => format!("{}; practised: {}", e.outcome.label(), p.label()),
                        None => e.outcome.label().to_string(),
                    };
                    Some(html! {
                        <tr data-testid={format!("ledger-row-{}", i + 1)}>
                            <td data-label="Step">{ i + 1 }</td>
                            <td class="ledger-prompt" data-label="Question">{ &q.prompt }</td>
                            <td data-label="Your first prediction">{ if e.first.is_empty() { "—".to_string() } else { e.first.clone() } }</td>
                            <td data-label="Confidence">{ e.confidence.map_or("—", |c| c.label()) }</td>
                            <td data-label="Model">{ &e.model }</td>
                            <td data-label="Outcome">{ outcome }</td>
                        </tr>
                    })
                }) }
                </tbody>
            </table>
            </div>
            if let Some(line) = cal {
                <p data-testid="calibration">{ line }</p>
            }
        </section>
    }
}

/// The callback that records how step `step`'s question ended in the ledger.
fn record_for(progress: &ProgressCtx, slug: &str, step: usize, practice: bool) -> Callback<crate::ledger::Entry> {
    let (cb, slug) = (progress.record.clone(), slug.to_string());
    Callback::from(move |entry| cb.emit(Record { slug: slug.clone(), step, entry, practice }))
}

/// The end of a lesson: what the learner did, the prediction ledger, and the way on. The ledger
/// shows the model's values, so it waits (`hold_ledger`) while the last step's question is
/// open or a practice is under way: predict first (e2e/tests/leaks.test.mjs).
fn lesson_end(lesson: &skblab_lessons::Lesson, progress: &ProgressCtx, hold_ledger: bool) -> Html {
    let has_question: Vec<bool> = lesson.steps.iter().map(|s| s.question.is_some()).collect();
    let t = progress.progress.tally(&lesson.slug, &has_question);
    let written: Vec<_> =
        skblab_lessons::index().iter().filter(|e| e.status == skblab_lessons::Status::Written).collect();
    let next = written.iter().skip_while(|e| e.slug != lesson.slug).nth(1);
    html! {
        <section class="lesson-end" data-testid="lesson-end" aria-labelledby="lesson-end-title">
            <h3 id="lesson-end-title">{"End of the lesson"}</h3>
            <p data-testid="lesson-tally">
                { format!("Steps visited: {} of {}. Questions answered right: {} of {}.", t.visited, t.steps, t.correct, t.questions) }
            </p>
            if !hold_ledger {
                { ledger_table(lesson, progress) }
            } else if progress.ledger.0.get(&lesson.slug).is_some_and(|m| !m.is_empty()) {
                <p class="muted" data-testid="ledger-held">{"Your predictions are listed here once this step's question is answered."}</p>
            }
            if let Some(next) = next {
                <p><a class="btn btn-primary" data-testid="next-lesson"
                    href={route::href(Route::Lesson { slug: next.slug.clone(), step: 1 })}>
                    { format!("Next lesson: {} →", next.title) }</a></p>
            } else {
                <p>{"That was the last lesson written so far. "}
                    <a href={route::href(Route::Home)}>{"Back to the course"}</a></p>
            }
        </section>
    }
}

/// "Copy link": the page's URL (lesson, step, parameters, seed and model version) to the
/// clipboard, or shown to copy by hand where the browser refuses.
#[function_component(CopyLink)]
fn copy_link() -> Html {
    // None: not clicked; Some(true): copied; Some(false): shown for copying by hand.
    let status = use_state_eq(|| None::<bool>);
    let onclick = {
        let status = status.clone();
        Callback::from(move |_: MouseEvent| {
            let status = status.clone();
            browser::copy_text(&browser::current_url(), move |ok| status.set(Some(ok)));
        })
    };
    html! {
        <p class="copy-link">
            <button class="btn btn-small" type="button" data-testid="copy-link" {onclick}>{"Copy link"}</button>
            <span role="status" data-testid="copy-link-status">
                { match *status {
                    Some(true) => html! { {" Link copied: it opens this step with these settings."} },
                    Some(false) => html! {
                        <label>{" Copy this link: "}
                            <input type="text" readonly=true value={browser::current_url()} class="copy-link-url" /></label>
                    },
                    None => html! {},
                } }
            </span>
        </p>
    }
}
