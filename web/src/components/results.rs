//! The results of a run as a table (with CSV and JSON export) and its text views, and the
//! run's notes ([`RunNotes`]: core's one-line `RunOutput::notes`, e.g. a measured quantity that
//! rests on too few events), which the player shows beside the views of every run, light or
//! heavy. Both exports carry the notes: the JSON is core's (`"notes": [...]`, as the CLI
//! writes it), the CSV ends with one `# note: …` line per note after the rows.

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

/// The CSV the "CSV" button saves: core's table, then one `# note: …` line per note (a comment
/// line, as `pandas.read_csv(comment="#")` and most CSV readers take it).
pub fn csv_with_notes(out: &RunOutput) -> String {
    let mut csv = out.to_csv();
    for note in &out.notes {
        csv.push_str(&format!("# note: {}\n", one_line(note)));
    }
    csv
}

/// A note as one line of text (core's notes are one line already; a stray line break must not
/// break the CSV or the page's list).
pub fn one_line(note: &str) -> String {
    note.split(['\n', '\r']).map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The notes of a run as the page lists them: one line each, empty ones and repeats dropped.
pub fn note_lines(out: &RunOutput) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for note in out.notes.iter().map(|n| one_line(n)).filter(|n| !n.is_empty()) {
        if !lines.contains(&note) {
            lines.push(note);
        }
    }
    lines
}

#[derive(Properties, PartialEq)]
pub struct RunNotesProps {
    pub output: Rc<RunOutput>,
}

/// The run's notes, one list item each, under a heading (nothing when there are none). Not an
/// alert: a note qualifies a result, it is no error; it is read with the results.
#[function_component(RunNotes)]
pub fn run_notes(props: &RunNotesProps) -> Html {
    let lines = note_lines(&props.output);
    if lines.is_empty() {
        return html! {};
    }
    html! {
        <section class="card-flat run-notes" data-testid="run-notes" aria-labelledby="run-notes-title">
            <h2 id="run-notes-title">{ if lines.len() == 1 { "Note on this run" } else { "Notes on this run" } }</h2>
            <ul>{ for lines.into_iter().map(|n| html! { <li data-testid="run-note">{ n }</li> }) }</ul>
        </section>
    }
}

/// One row: a name/value list reads better than a one-row grid.
#[function_component(Results)]
pub fn results(props: &ResultsProps) -> Html {
    let out = &props.output;
    let on_csv = {
        let out = out.clone();
        Callback::from(move |_| {
            browser::download_text(&format!("{}.csv", out.experiment), "text/csv", &csv_with_notes(&out))
        })
    };
    let on_json = {
        let out = out.clone();
        Callback::from(move |_| {
            browser::download_text(&format!("{}.json", out.experiment), "application/json", &out.to_json())
        })
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
                <button class="btn btn-small" type="button" onclick={on_json} data-testid="export-json">{"JSON"}</button>
            </div>
            <div class="table-scroll" tabindex="0" role="region" aria-label="results table">{ table }</div>
            { for out.views.iter().map(|v| html! {
                <details class="text-view" open=true>
                    <summary>{ &v.title }</summary>
                    <pre tabindex="0">{ &v.text }</pre>
                </details>
            }) }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::Column;

    fn output(notes: &[&str]) -> RunOutput {
        let mut out = RunOutput::new("x", 1, vec![Column::new("a", "us")]);
        out.push_row(vec![Cell::Float(1.5)]);
        out.notes = notes.iter().map(|n| n.to_string()).collect();
        out
    }

    #[test]
    fn notes_are_listed_one_line_each_without_repeats() {
        let out = output(&["latency_us: 0 requests completed", "", "a\nb", "latency_us: 0 requests completed"]);
        assert_eq!(note_lines(&out), vec!["latency_us: 0 requests completed".to_string(), "a b".to_string()]);
        assert!(note_lines(&output(&[])).is_empty());
    }

    #[test]
    fn both_exports_carry_the_notes() {
        let out = output(&["gain_pct: 0 packets forwarded", "two\nlines"]);
        let csv = csv_with_notes(&out);
        assert!(csv.starts_with(&out.to_csv()), "{csv}");
        assert!(csv.ends_with("# note: gain_pct: 0 packets forwarded\n# note: two lines\n"), "{csv}");
        assert_eq!(csv_with_notes(&output(&[])), output(&[]).to_csv(), "no notes, no comment lines");
        let json: serde_json::Value = serde_json::from_str(&out.to_json()).unwrap();
        assert_eq!(json["notes"][0], "gain_pct: 0 packets forwarded");
        let none: serde_json::Value = serde_json::from_str(&output(&[]).to_json()).unwrap();
        assert_eq!(none["notes"], serde_json::json!([]));
    }
}
