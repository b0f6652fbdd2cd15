//! The results of a run as a table (with CSV export) and its text views.

use crate::browser;
use skblab_core::{Cell, RunOutput};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ResultsProps {
    pub output: Rc<RunOutput>,
}

fn cell_text(cell: &Cell) -> String {
    match cell {
        Cell::Int(v) => v.to_string(),
        Cell::Float(v) => format!("{v:.1}"),
        Cell::Bool(v) => if *v { "yes" } else { "no" }.to_string(),
        Cell::Text(v) => v.clone(),
        Cell::Missing => skblab_core::output::MISSING.to_string(),
    }
}

/// One row: a name/value list reads better than a one-row grid.
#[function_component(Results)]
pub fn results(props: &ResultsProps) -> Html {
    let out = &props.output;
    let on_csv = {
        let out = out.clone();
        Callback::from(move |_| browser::download_text(&format!("{}.csv", out.experiment), "text/csv", &out.to_csv()))
    };
    let table = if out.rows.len() == 1 {
        html! {
            <table class="results kv">
                <caption class="visually-hidden">{"Results for the current parameters"}</caption>
                <tbody>
                    { for out.columns.iter().zip(&out.rows[0]).map(|(c, v)| html! {
                        <tr data-metric={c.name.clone()}>
                            <th scope="row">{ &c.name }</th>
                            <td class="num">{ cell_text(v) }</td>
                            <td class="unit">{ &c.unit }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        }
    } else {
        html! {
            <table class="results grid">
                <caption class="visually-hidden">{"Results for the current parameters"}</caption>
                <thead><tr>{ for out.columns.iter().map(|c| html! {
                    <th scope="col">{ &c.name }if !c.unit.is_empty() { <span class="unit">{ format!(" [{}]", c.unit) }</span> }</th>
                }) }</tr></thead>
                <tbody>{ for out.rows.iter().map(|r| html! {
                    <tr>{ for r.iter().map(|v| html! { <td class="num">{ cell_text(v) }</td> }) }</tr>
                }) }</tbody>
            </table>
        }
    };
    html! {
        <section class="card-flat results-box" data-testid="results" aria-labelledby="results-title">
            <div class="box-head">
                <h2 id="results-title">{"Results"}</h2>
                <button class="btn btn-small" type="button" onclick={on_csv} data-testid="export-csv">{"CSV"}</button>
            </div>
            <div class="table-scroll" tabindex="0" role="region" aria-label="results">{ table }</div>
            { for out.views.iter().map(|v| html! {
                <details class="text-view" open=true>
                    <summary>{ &v.title }</summary>
                    <pre tabindex="0">{ &v.text }</pre>
                </details>
            }) }
        </section>
    }
}
