//! The validation page (`#/validation`): for every seed table its verdict (computed from the
//! fitting bookkeeping: prediction, fit or arithmetic) with the one-line explanation, its degrees
//! of freedom (independent numbers, fitted constants by name), the in-sample, out-of-sample and
//! curve-baseline MAPE, every number's signed error (held-out ones marked) and the known gaps —
//! the browser's `skblab validate`.
//!
//! Cross-validation refits are too heavy for a page, so the figures come from the committed
//! snapshot of `skblab validate --format json` (`skblab_core::validate::snapshot`, rewritten by
//! `make validate`); the page checks the snapshot's tables and verdicts against the registry's
//! current ones and says so if they differ.

use crate::components::repro_table::error_class;
use crate::components::verdict::verdict_badge;
use crate::route::{self, Route};
use skblab_core::calibrate::tables::{TableSpec, Verdict};
use skblab_core::validate::{is_held_out, snapshot, TableReport, Validation};
use yew::prelude::*;

/// Where the snapshot's tables differ from the registry's (empty: in step).
fn staleness(v: &Validation) -> Option<String> {
    let live: Vec<TableSpec> = skblab_core::validate::registry_tables(skblab_core::experiments());
    let same = v.tables.len() == live.len()
        && v.tables.iter().zip(&live).all(|(s, t)| {
            s.table == t.table
                && s.verdict == t.verdict()
                && s.targets == t.targets
                && s.fitted_constants.len() == t.fitted.len()
        });
    (!same).then(|| {
        format!(
            "This snapshot lists {} tables; the model now declares {}. Its figures are from an older model: regenerate it with make validate.",
            v.tables.len(),
            live.len()
        )
    })
}

/// `#/validation`.
#[function_component(ValidationPage)]
pub fn validation_page() -> Html {
    let v = use_memo((), |_| snapshot());
    let body = match &*v {
        Err(e) => html! { <p class="run-error" role="alert">{ e }</p> },
        Ok(v) => html! { <>
            if let Some(stale) = staleness(v) { <p class="notice-inline" role="status" data-testid="validation-stale">{ stale }</p> }
            { summary_table(v) }
            <p class="validation-budget" data-testid="validation-budget">{ v.budget_line() }</p>
            { for v.tables.iter().map(table_card) }
        </> },
    };
    let meta = match &*v {
        Ok(v) => format!(
            "Snapshot of skblab validate --format json, model {}, mean over {} seeds.",
            v.model_version,
            v.seeds.len()
        ),
        Err(_) => String::new(),
    };
    html! {
        <div class="validation-page" data-testid="validation-page">
            <header class="player-head">
                <p class="eyebrow">{"Validation"}</p>
                <h1>{"What is predicted, what is fitted"}</h1>
                <p class="lead">
                    { "Every seed table the model is scored on. A " }{ verdict_badge(Verdict::Prediction) }
                    { " had no constant fitted to it, so its error is out of sample; a " }{ verdict_badge(Verdict::Fit) }
                    { " had constants fitted to it, so its in-sample error shows little by itself — look at the \
                    out-of-sample error (a fit on part of the table, scored on the rest) and at the curve baseline \
                    (a curve with no mechanism, fitted the same way: the model has to beat it); " }
                    { verdict_badge(Verdict::Arithmetic) }{ " is exact layout arithmetic. " }
                    <a href={route::href(Route::Reproduce)}>{"The tables themselves"}</a>{"."}
                </p>
                <p class="muted">{ meta }{" Regenerate with "}<code>{"make validate"}</code>{"."}</p>
            </header>
            { body }
        </div>
    }
}

fn pct(v: Option<f64>) -> Html {
    match v {
        Some(v) => html! { <span class={classes!("err-badge", error_class(v))}>{ format!("{v:.1} %") }</span> },
        None => html! { <span class="muted" title="does not apply to this table">{"n/a"}</span> },
    }
}

fn summary_table(v: &Validation) -> Html {
    let row = |t: &TableReport| {
        html! {
            <tr>
                <th scope="row"><a href={route::href(Route::Validation)} onclick={scroll_to(anchor(t))}>{ &t.table }</a></th>
                <td>{ verdict_badge(t.verdict) }</td>
                <td class="num">{ t.targets }</td>
                <td class="num">{ t.fitted }</td>
                <td class="num">{ pct(t.in_sample_mape) }</td>
                <td class="num">{ pct(t.out_of_sample_mape) }</td>
                <td class="num">{ pct(t.curve_mape) }</td>
            </tr>
        }
    };
    html! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="validation summary">
            <table class="results grid validation-table" data-testid="validation-table">
                <thead><tr>
                    <th scope="col">{"table"}</th><th scope="col">{"verdict"}</th>
                    <th scope="col" class="num" title="independent numbers">{"targets"}</th>
                    <th scope="col" class="num" title="constants fitted to it">{"fitted"}</th>
                    <th scope="col" class="num">{"in-sample"}</th>
                    <th scope="col" class="num">{"out-of-sample"}</th>
                    <th scope="col" class="num" title="a curve with no mechanism">{"curve"}</th>
                </tr></thead>
                <tbody>{ for v.tables.iter().map(row) }</tbody>
            </table>
        </div>
    }
}

fn anchor(t: &TableReport) -> String {
    format!("table-{}", t.table)
}

/// In-page jump without touching the hash (the hash is the route).
fn scroll_to(id: String) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        e.prevent_default();
        let el = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(&id));
        if let Some(el) = el {
            el.scroll_into_view();
        }
    })
}

fn table_card(t: &TableReport) -> Html {
    let fitted = if t.fitted_constants.is_empty() {
        html! { <span class="muted">{"none"}</span> }
    } else {
        t.fitted_constants.iter().map(|c| html! { <><code>{ c }</code>{" "}</> }).collect::<Html>()
    };
    html! {
        <section class="card-flat validation-card" id={anchor(t)} data-testid={format!("validation-{}", t.table)}>
            <h2>{ verdict_badge(t.verdict) }{" "}<code>{ &t.table }</code>{" "}<span class="muted">{ &t.experiment }</span></h2>
            <p class="validation-title">{ &t.title }</p>
            <p class="muted">{ t.verdict.explain() }</p>
            <dl class="validation-figures">
                <dt>{"degrees of freedom"}</dt><dd>{ format!("{} independent numbers, {} fitted: ", t.targets, t.fitted) }{ fitted }</dd>
                <dt>{"MAPE"}</dt>
                <dd>{"in-sample "}{ pct(t.in_sample_mape) }{" · out-of-sample "}{ pct(t.out_of_sample_mape) }
                    {" · curve baseline "}{ pct(t.curve_mape) }</dd>
            </dl>
            if !t.errors.is_empty() {
                <details open={t.errors.len() <= 12}>
                    <summary>{ format!("signed errors ({} numbers)", t.errors.len()) }</summary>
                    <ul class="validation-errors">{ for t.errors.iter().map(|e| error_line(e)) }</ul>
                </details>
            }
            if !t.gaps.is_empty() {
                <ul class="validation-gaps" aria-label="known gaps">
                    { for t.gaps.iter().map(|g| html! { <li><span class="tag">{"gap"}</span>{" "}{ g }</li> }) }
                </ul>
            }
        </section>
    }
}

/// "label: +1.2 %" with the error as a badge (signed, and its magnitude's colour); held-out
/// numbers get a tag.
fn error_line(line: &str) -> Html {
    let held = is_held_out(line);
    let parsed = line.rsplit_once(": ").and_then(|(name, v)| {
        let num: f64 = v.trim().trim_end_matches('%').trim().parse().ok()?;
        Some((name, num))
    });
    let tag = if held {
        html! { <span class="tag tag-held" data-testid="held-out">{"held-out"}</span> }
    } else {
        html! {}
    };
    match parsed {
        Some((name, e)) => html! {
            <li class={classes!(held.then_some("held-out"))}>
                <span class={classes!("err-badge", error_class(e))}>{ format!("{e:+.1} %") }</span>{" "}{ tag }{" "}{ name }
            </li>
        },
        None => html! { <li class={classes!(held.then_some("held-out"))}>{ tag }{" "}{ line }</li> },
    }
}
