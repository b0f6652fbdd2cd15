//! The notice box: what was wrong with a URL or stored data, and what the app did instead —
//! at most [`crate::pages::MAX_NOTICES`] short lines, however many things were wrong. Beside
//! it, the notes box: what the page did that is no problem but worth saying (a preset change
//! that kept the learner's own knobs), under its own heading and announced politely.

use crate::pages::bound_notices;
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
    // One box: its class, role, test id and heading, and its lines (none: no box).
    let boxed =
        |class: &'static str, role: &'static str, testid: &'static str, heading: &'static str, lines: &[String]| {
            if lines.is_empty() {
                return Html::default();
            }
            html! {
                <div {class} {role} data-testid={testid}>
                    <div class="notice-body">
                        <strong>{ heading }</strong>
                        <ul>{ for bound_notices(lines.to_vec()).into_iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                    </div>
                    { dismiss() }
                </div>
            }
        };
    let problems = boxed("notice", "alert", "notice", "Some input could not be used as given", &props.notices);
    let notes = boxed("notice notice-note", "status", "note", "Note", &props.notes);
    html! { <>{ problems }{ notes }</> }
}
