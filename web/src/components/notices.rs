//! The notice box: what was wrong with a URL or stored data, and what the app did instead —
//! at most `page::MAX_NOTICES` short lines, however many things were wrong.

use crate::page::bound_notices;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NoticesProps {
    pub notices: Vec<String>,
    #[prop_or_default]
    pub on_dismiss: Option<Callback<()>>,
}

#[function_component(Notices)]
pub fn notices(props: &NoticesProps) -> Html {
    if props.notices.is_empty() {
        return html! {};
    }
    let dismiss = props.on_dismiss.as_ref().map(|cb| {
        let cb = cb.clone();
        html! {
            <button class="btn btn-small" type="button" onclick={move |_| cb.emit(())}>{"Dismiss"}</button>
        }
    });
    html! {
        <div class="notice" role="alert" data-testid="notice">
            <div class="notice-body">
                <strong>{"Some input could not be used as given"}</strong>
                <ul>{ for bound_notices(props.notices.clone()).into_iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            </div>
            { dismiss }
        </div>
    }
}
