//! The practice of the questions due (review.rs) in the lesson player: the offer on a
//! lesson's first and last step, the bar while practising, and the practice kept across reloads
//! ([`record`]: which steps are asked again and which are answered, in localStorage; the step
//! itself is in the URL).

use super::state::{Action, Page};
use super::PageState;
use crate::browser;
use crate::components::notices::Notices;
use crate::hooks::ProgressCtx;
use crate::review;
use record::{Practice, DROPPED, STORAGE_KEY};
use skblab_lessons::Lesson;
use std::rc::Rc;
use yew::prelude::*;

pub mod record;

/// The practice under way, kept in localStorage, and what could not be read of it.
#[derive(Clone, PartialEq)]
pub struct PracticeHandle {
    state: UseStateHandle<Option<Rc<Practice>>>,
    notice: UseStateHandle<Option<String>>,
    lesson: Option<&'static Lesson>,
}

fn has_question(lesson: &Lesson) -> Vec<bool> {
    lesson.steps.iter().map(|s| s.question.is_some()).collect()
}

/// The stored practice, read once: one that names `lesson` but does not fit its questions is
/// dropped (with the notice), one of another lesson is kept for that lesson.
#[hook]
pub fn use_practice(lesson: Option<&'static Lesson>) -> PracticeHandle {
    let loaded = use_memo((), move |_| {
        let (practice, notice) = Practice::load(browser::storage_get(STORAGE_KEY).as_deref());
        match (practice, lesson) {
            (Some(p), Some(l)) if p.slug == l.slug && !p.fits(&l.slug, &has_question(l)) => {
                (None, Some(DROPPED.to_string()))
            }
            (p, _) => (p.map(Rc::new), notice),
        }
    });
    // Dropped: not read again on the next load.
    let dropped = loaded.1.is_some();
    use_effect_with((), move |_| {
        if dropped {
            browser::storage_remove(STORAGE_KEY);
        }
    });
    let state = {
        let first = loaded.0.clone();
        use_state_eq(move || first)
    };
    let notice = {
        let first = loaded.1.clone();
        use_state_eq(move || first)
    };
    PracticeHandle { state, notice, lesson }
}

impl PracticeHandle {
    /// The practice of the page's lesson, if one is under way (and fits the lesson: a stored
    /// practice of another lesson is checked when the learner gets there).
    pub fn active(&self) -> Option<&Practice> {
        let lesson = self.lesson?;
        (*self.state).as_deref().filter(|p| p.fits(&lesson.slug, &has_question(lesson)))
    }

    /// Whether `step` of the page's lesson is being practised.
    pub fn practising(&self, step: usize) -> bool {
        self.active().is_some_and(|p| p.position(step).is_some())
    }

    /// Whether `step` was answered in the practice under way.
    pub fn done(&self, step: usize) -> bool {
        self.active().is_some_and(|p| p.is_done(step))
    }

    /// Whether `step`'s question counts as answered: in a practice, if answered there;
    /// otherwise if it was ever answered right (`correct`).
    pub fn answered_before(&self, step: usize, correct: bool) -> bool {
        if self.practising(step) {
            self.done(step)
        } else {
            correct
        }
    }

    fn set(&self, next: Option<Practice>) {
        match &next {
            Some(p) => browser::storage_set(STORAGE_KEY, &p.to_json()),
            None => browser::storage_remove(STORAGE_KEY),
        }
        self.state.set(next.map(Rc::new));
    }

    /// Notes that `step`'s question ended (right, or the answer shown) in the practice.
    pub fn mark_done(&self, step: usize) {
        if let Some(p) = self.active().filter(|p| p.position(step).is_some() && !p.is_done(step)) {
            self.set(Some(p.with_done(step)));
        }
    }
}

/// A callback that sets the practice to `next` and then goes to step `to`.
fn go(
    handle: &PracticeHandle,
    state: &UseReducerHandle<PageState>,
    next: Option<Practice>,
    to: Option<usize>,
) -> Callback<MouseEvent> {
    let (handle, dispatch) = (handle.clone(), state.dispatcher());
    Callback::from(move |_: MouseEvent| {
        handle.set(next.clone());
        if let Some(i) = to {
            dispatch.dispatch(Action::GoStep(i));
        }
    })
}

/// The notice of a stored practice that could not be used (above the [`practice_bar`]).
pub fn practice_notice(handle: &PracticeHandle) -> Html {
    let Some(n) = handle.notice.as_ref() else { return html! {} };
    let on_dismiss = {
        let notice = handle.notice.clone();
        Callback::from(move |()| notice.set(None))
    };
    html! { <Notices notices={vec![n.clone()]} on_dismiss={Some(on_dismiss)} /> }
}

/// On the lesson's first and last step: the offer to practise the questions due (spaced
/// retrieval, review.rs); while practising, where the learner is and the way on.
pub fn practice_bar(
    page: &Page,
    lesson: &Lesson,
    progress: &ProgressCtx,
    state: &UseReducerHandle<PageState>,
    handle: &PracticeHandle,
) -> Html {
    let n = lesson.steps.len();
    if let Some(p) = handle.active() {
        let Some(at) = p.position(page.step) else { return html! {} };
        let next = p.steps.get(at + 1).copied();
        let done = p.done.len();
        return html! {
            <div class="practice-bar" role="status" data-testid="practice-bar" data-done={done.to_string()}>
                <p><strong>{ format!("Practice: question {} of {}.", at + 1, p.steps.len()) }</strong>
                    { if p.is_done(page.step) {
                        format!(" Answered ({done} of {} so far).", p.steps.len())
                    } else {
                        " Predict again, before looking at the views.".to_string()
                    } }</p>
                if let Some(i) = next {
                    <button class="btn btn-small" type="button" data-testid="practice-next"
                        onclick={go(handle, state, Some(p.clone()), Some(i))}>{ format!("Next missed question (step {}) →", i + 1) }</button>
                } else {
                    <button class="btn btn-small" type="button" data-testid="practice-done"
                        onclick={go(handle, state, None, Some(n - 1))}>{"Finish the practice"}</button>
                }
            </div>
        };
    }
    if page.step != 0 && page.step + 1 != n {
        return html! {};
    }
    // Due now by the practice schedule (review.rs): missed ones after minutes, right ones
    // after hours, then days.
    let now = js_sys::Date::now();
    let due = review::due_in(&progress.review, &progress.ledger, &lesson.slug, &has_question(lesson), now);
    let Some(&first) = due.first() else { return html! {} };
    let count = due.len();
    let which = due.iter().map(|i| format!("step {}", i + 1)).collect::<Vec<_>>().join(", ");
    let start = go(handle, state, Some(Practice::new(&lesson.slug, due)), Some(first));
    let (lead, button) = match count {
        1 => ("One of this lesson's questions is".to_string(), "Practise the one due".to_string()),
        n => (format!("{n} of this lesson's questions are"), format!("Practise the {n} due")),
    };
    html! {
        <div class="practice-offer" data-testid="practice-offer">
            <p>{ format!("{lead} due for practice ({which}). A question missed comes back after minutes, \
                one answered right after hours, then days: asking again a while later is what makes it stick.") }</p>
            <button class="btn btn-small" type="button" data-testid="practice-start" onclick={start}>{ button }</button>
        </div>
    }
}
