//! The notice box: what was wrong with a URL or stored data, and what the app did instead —
//! at most `page::MAX_NOTICES` short lines, however many things were wrong. Beside it, the
//! notes box: what the page did that is no problem but worth saying (a preset change that
//! kept the learner's own knobs), under its own heading and announced politely.

use crate::page::bound_notices;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NoticesProps {
    pub notices: Vec<String>,
    /// Information, not problems: shown in a box of their own (`role="status"`).
    #[prop_or_default]
    pub notes: Vec<String>,
    #[prop_or_default]
    pub on_dismiss: Option<Callback<()>>,
}

#[function_component(Notices)]
pub fn notices(props: &NoticesProps) -> Html {
    let dismiss = || {
        props.on_dismiss.as_ref().map(|cb| {
            let cb = cb.clone();
            html! {
                <button class="btn btn-small" type="button" onclick={move |_| cb.emit(())}>{"Dismiss"}</button>
            }
        })
    };
    let list = |lines: &[String]| {
        html! { <ul>{ for bound_notices(lines.to_vec()).into_iter().map(|n| html! { <li>{ n }</li> }) }</ul> }
    };
    let problems = (!props.notices.is_empty()).then(|| {
        html! {
            <div class="notice" role="alert" data-testid="notice">
                <div class="notice-body">
                    <strong>{"Some input could not be used as given"}</strong>
                    { list(&props.notices) }
                </div>
                { dismiss() }
            </div>
        }
    });
    let notes = (!props.notes.is_empty()).then(|| {
        html! {
            <div class="notice notice-note" role="status" data-testid="note">
                <div class="notice-body">
                    <strong>{"Note"}</strong>
                    { list(&props.notes) }
                </div>
                { dismiss() }
            </div>
        }
    });
    html! { <>{ problems.unwrap_or_default() }{ notes.unwrap_or_default() }</> }
}
