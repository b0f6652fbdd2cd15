//! The parameter panel, generated from the experiment's spec by one generic control.
//!
//! [`ParamControl`] draws any [`ParamSpec`]: an integer becomes a slider with a number box, a
//! power of two a select, a bool a checkbox, a choice a select. It reports raw text
//! (`name`, `value`) upward; validation and state live in [`crate::pages::player::state::apply`].

use skblab_core::{ParamKind, ParamSpec, Params, Value};
use std::collections::BTreeMap;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ParamControlProps {
    pub spec: ParamSpec,
    /// The value a run uses (a preset's value when not set explicitly).
    pub value: Value,
    pub explicit: bool,
    pub error: Option<String>,
    pub on_set: Callback<(String, String)>,
}

#[function_component(ParamControl)]
pub fn param_control(props: &ParamControlProps) -> Html {
    let spec = &props.spec;
    let id = format!("param-{}", spec.name);
    let help_id = format!("{id}-help");
    let err_id = format!("{id}-error");
    let described = if props.error.is_some() { format!("{help_id} {err_id}") } else { help_id.clone() };
    let tooltip = if spec.kernel_name.is_empty() {
        spec.help.to_string()
    } else {
        format!("{} — Linux: {}", spec.help, spec.kernel_name)
    };
    // What the learner is typing in the number box, until they commit it (Enter or leaving the
    // box): the page re-renders while a sweep streams in, and must not overwrite a draft.
    let draft = use_state(|| None::<String>);
    let input = control_input(props, &id, &described, &draft);
    let origin = if props.explicit {
        html! { <span class="badge badge-set" title="You set this value">{"set"}</span> }
    } else {
        html! { <span class="badge" title="From the defaults or the preset">{"preset"}</span> }
    };
    html! {
        <div class={classes!("control", props.error.as_ref().map(|_| "control-error"))}>
            <div class="control-head">
                <label for={id.clone()} title={tooltip}>{ spec.name }</label>
                if !spec.unit.is_empty() { <span class="unit">{ spec.unit }</span> }
                { origin }
            </div>
            { input }
            <p class="help" id={help_id}>
                { spec.help }
                if !spec.kernel_name.is_empty() { {" "}<code class="kernel" title="Name in the Linux source">{ spec.kernel_name }</code> }
            </p>
            if let Some(error) = &props.error {
                <p class="field-error" id={err_id}>{ error }</p>
            }
        </div>
    }
}

/// The input element(s) for one parameter kind, each reporting `(name, text)` on change.
fn control_input(props: &ParamControlProps, id: &str, described: &str, draft: &UseStateHandle<Option<String>>) -> Html {
    let spec = &props.spec;
    let (id, described) = (id.to_string(), described.to_string());
    let emit_input = {
        let (on_set, name, draft) = (props.on_set.clone(), spec.name.to_string(), draft.clone());
        Callback::from(move |e: InputEvent| {
            draft.set(None);
            on_set.emit((name.clone(), e.target_unchecked_into::<HtmlInputElement>().value()))
        })
    };
    let emit_change = {
        let (on_set, name, draft) = (props.on_set.clone(), spec.name.to_string(), draft.clone());
        Callback::from(move |e: Event| {
            draft.set(None);
            on_set.emit((name.clone(), e.target_unchecked_into::<HtmlInputElement>().value()))
        })
    };
    let keep_draft = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| draft.set(Some(e.target_unchecked_into::<HtmlInputElement>().value())))
    };
    let box_text = (**draft).clone().unwrap_or_else(|| props.value.to_string());
    let emit_select = {
        let (on_set, name) = (props.on_set.clone(), spec.name.to_string());
        Callback::from(move |e: Event| {
            on_set.emit((name.clone(), e.target_unchecked_into::<HtmlSelectElement>().value()))
        })
    };
    let emit_check = {
        let (on_set, name) = (props.on_set.clone(), spec.name.to_string());
        Callback::from(move |e: Event| {
            on_set.emit((name.clone(), e.target_unchecked_into::<HtmlInputElement>().checked().to_string()))
        })
    };
    let value_text = props.value.to_string();
    let invalid = props.error.is_some().then_some("true");
    match &spec.kind {
        ParamKind::Int { min, max, step } => html! {
            <div class="control-row">
                <input type="range" id={format!("{id}-range")} data-testid={format!("{id}-range")}
                    min={min.to_string()} max={max.to_string()} step={step.to_string()}
                    value={value_text.clone()} oninput={emit_input.clone()}
                    aria-label={format!("{} slider", spec.name)} aria-describedby={described.clone()} />
                // A typed number applies on commit (Enter, or leaving the box), not per keystroke:
                // select-all + "9000" must not pass through 9, 90, 900.
                <input type="number" id={id.clone()} data-testid={id.clone()} class="num"
                    min={min.to_string()} max={max.to_string()} step={step.to_string()}
                    value={box_text} oninput={keep_draft} onchange={emit_change}
                    aria-invalid={invalid} aria-describedby={described.clone()} />
            </div>
        },
        ParamKind::Pow2 { min, max } => {
            let options: Vec<String> =
                (0..63).map(|s| 1i64 << s).filter(|v| (*min..=*max).contains(v)).map(|v| v.to_string()).collect();
            select(&id, &described, &value_text, &options, emit_select)
        }
        ParamKind::Choice { options } => {
            let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
            select(&id, &described, &value_text, &options, emit_select)
        }
        ParamKind::Bool => html! {
            <input type="checkbox" id={id.clone()} data-testid={id.clone()}
                checked={props.value == Value::Bool(true)} onchange={emit_check}
                aria-describedby={described.clone()} />
        },
    }
}

fn select(id: &str, described: &str, value: &str, options: &[String], onchange: Callback<Event>) -> Html {
    html! {
        <select id={id.to_string()} data-testid={id.to_string()} {onchange} aria-describedby={described.to_string()}>
            { for options.iter().map(|o| html! {
                <option value={o.clone()} selected={o == value}>{ o }</option>
            }) }
        </select>
    }
}

#[derive(Properties, PartialEq)]
pub struct ParamPanelProps {
    pub specs: Vec<ParamSpec>,
    /// The page's parameters (which ones are explicit).
    pub params: Params,
    /// The values a run uses.
    pub resolved: Params,
    pub seed: u64,
    pub errors: BTreeMap<String, String>,
    /// Why the experiment refuses these settings together (a rule between parameters, e.g.
    /// cores a multiple of sockets), if it does: no run happens until they change.
    #[prop_or_default]
    pub invalid: Option<String>,
    pub on_set: Callback<(String, String)>,
    pub on_seed: Callback<String>,
}

#[function_component(ParamPanel)]
pub fn param_panel(props: &ParamPanelProps) -> Html {
    // On a narrow screen the panel starts folded: the text and the views come first.
    let open = crate::browser::viewport_width().is_none_or(|w| w > 720.0);
    let seed_error = props.errors.get(crate::pages::player::state::SEED_KEY).cloned();
    html! {
        <>
        // Outside the <details>: seen even where the panel starts folded (a phone).
        if let Some(why) = &props.invalid {
            <p class="field-error params-invalid" role="alert" data-testid="params-invalid">
                { format!("These parameters cannot run together: {why}.") }</p>
        }
        <details class="panel card-flat" {open} data-testid="param-panel">
            <summary><h2 id="panel-title">{"Parameters"}</h2></summary>
            <form class="controls" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                { for props.specs.iter().map(|spec| html! {
                    <ParamControl key={spec.name} spec={spec.clone()}
                        value={props.resolved.value(spec.name).clone()}
                        explicit={props.params.is_explicit(spec.name)}
                        error={props.errors.get(spec.name).cloned()}
                        on_set={props.on_set.clone()} />
                }) }
                <div class={classes!("control", seed_error.as_ref().map(|_| "control-error"))}>
                    <div class="control-head">
                        <label for="param-seed">{"seed"}</label>
                        <span class="badge">{"run"}</span>
                    </div>
                    <SeedBox seed={props.seed} error={seed_error.is_some()} on_seed={props.on_seed.clone()} />
                    <p class="help" id="param-seed-help">{"Seed of the run's random streams; the same seed replays the same run."}</p>
                    if let Some(e) = seed_error { <p class="field-error" id="param-seed-error">{ e }</p> }
                </div>
            </form>
        </details>
        </>
    }
}

#[derive(Properties, PartialEq)]
struct SeedBoxProps {
    seed: u64,
    error: bool,
    on_seed: Callback<String>,
}

/// The seed's box. What is typed is kept as a draft until it is committed (Enter, or leaving
/// the box), as in every number box of the panel: a sweep streaming rows redraws the panel many
/// times a second, and a box drawn from `seed` alone would lose the keystrokes in between.
#[function_component(SeedBox)]
fn seed_box(props: &SeedBoxProps) -> Html {
    let draft = use_state(|| None::<String>);
    let keep_draft = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| draft.set(Some(e.target_unchecked_into::<HtmlInputElement>().value())))
    };
    let on_change = {
        let (cb, draft) = (props.on_seed.clone(), draft.clone());
        Callback::from(move |e: Event| {
            draft.set(None);
            cb.emit(e.target_unchecked_into::<HtmlInputElement>().value())
        })
    };
    let text = (*draft).clone().unwrap_or_else(|| props.seed.to_string());
    // Its error is tied to the box like every parameter's (read out with it).
    html! {
        <input type="number" id="param-seed" data-testid="param-seed" class="num" min="0"
            value={text} oninput={keep_draft} onchange={on_change}
            aria-invalid={props.error.then_some("true")}
            aria-describedby={if props.error { "param-seed-help param-seed-error" } else { "param-seed-help" }} />
    }
}
