//! The player's title block: lesson or playground, title, summary, "Copy link", and a lesson's
//! step list — folded behind a toggle on a phone; ← / → move between steps while focus is on
//! the list or the step's buttons ([`arrow_keys`]), and focus stays where the key was pressed.

use super::state::{Action, Page};
use super::PageState;
use crate::browser;
use crate::hooks::ProgressCtx;
use std::rc::Rc;
use yew::prelude::*;

/// The key handler of the step list and the step's buttons: ← / → (no modifier) go to the
/// previous / next step and keep focus in the same place (`arrow_focus`: the element id to
/// focus on the new step: the current step's pill, or the button pressed).
pub(super) fn arrow_keys(
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

/// The title block: lesson or playground, title, summary, the copy-link button and `steps`
/// (the [`step_list`]).
pub(super) fn player_head(page: &Page, steps: Html) -> Html {
    let title = page.lesson.map_or(page.experiment.title(), |l| l.title.as_str());
    let summary = page.lesson.map_or(page.experiment.summary(), |l| l.summary.as_str());
    html! {
        <header class="player-head">
            <p class="eyebrow">{ if page.lesson.is_some() { "Lesson" } else { "Playground" } }
                {" · "}<code>{ page.experiment.id() }</code></p>
            <h1>{ title }</h1>
            <p class="lead">{ summary }</p>
            <CopyLink />
            { steps }
        </header>
    }
}

/// The lesson's steps as pills. On a phone (style.css, below 640 px) the list folds behind
/// one button that names the current step: eight pills wrapped one a line took a whole screen
/// before the step's text. A step chosen from the unfolded list folds it again.
pub(super) fn step_list(
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
