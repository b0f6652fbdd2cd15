//! "Compare two runs": pin the page's run as A, change knobs or the seed, and read A
//! against the current run B, metric by metric, with the change. A is its resolved parameters
//! and seed ([`Pin`]): it travels in the URL (`pin=`), and the page recomputes it (a light
//! run here, a heavy one in the background on the pool, cached), bit for bit what the CLI
//! line under it gives. Rows are matched by position (a sweep's points), columns by
//! name; a column only one run has is left out, and the table says when row counts differ.

use crate::pages::player::state::Pin;
use crate::run::{use_background_run, RunKey, RunState};
use skblab_core::{Experiment, RunOutput};
use std::rc::Rc;
use yew::prelude::*;

/// Lines of the comparison shown at most (a 30-point sweep of five metrics is 150).
pub const MAX_LINES: usize = 60;

#[derive(Properties)]
pub struct CompareProps {
    pub experiment: &'static dyn Experiment,
    pub pin: Option<Pin>,
    /// The page's run (B).
    pub run: Rc<RunState>,
    pub on_pin: Callback<()>,
    pub on_unpin: Callback<()>,
}

impl PartialEq for CompareProps {
    fn eq(&self, other: &Self) -> bool {
        self.experiment.id() == other.experiment.id()
            && self.pin == other.pin
            && self.run == other.run
            && self.on_pin == other.on_pin
            && self.on_unpin == other.on_unpin
    }
}

/// One line of the comparison: the point's label, the metric, A, B and the change.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub point: String,
    pub metric: String,
    pub unit: String,
    pub a: f64,
    pub b: f64,
}

impl Line {
    /// B − A.
    pub fn delta(&self) -> f64 {
        self.b - self.a
    }

    /// (B − A) / |A| in %, if A is not zero.
    pub fn delta_pct(&self) -> Option<f64> {
        (self.a != 0.0).then(|| (self.b - self.a) / self.a.abs() * 100.0)
    }
}

/// The lines of A against B: every number cell both have, by row position and column name
/// (a sweep's point is labelled by its first column's value when that column is numeric in
/// both and equal). The second value: the row counts, if they differ.
pub fn lines(a: &RunOutput, b: &RunOutput) -> (Vec<Line>, Option<(usize, usize)>) {
    let mut out = Vec::new();
    let multi = a.rows.len() > 1 || b.rows.len() > 1;
    for (k, (ra, rb)) in a.rows.iter().zip(&b.rows).enumerate() {
        let label = match (ra.first().and_then(|c| c.as_f64()), rb.first().and_then(|c| c.as_f64())) {
            (Some(x), Some(y)) if multi && x == y => format!("{} = {x}", a.columns[0].name),
            _ if multi => format!("row {}", k + 1),
            _ => String::new(),
        };
        for (ia, col) in a.columns.iter().enumerate() {
            let Some(ib) = b.columns.iter().position(|c| c.name == col.name) else { continue };
            if multi && ia == 0 {
                continue; // the swept value labels the row
            }
            if let (Some(x), Some(y)) = (ra.get(ia).and_then(number), rb.get(ib).and_then(number)) {
                out.push(Line { point: label.clone(), metric: col.name.clone(), unit: col.unit.clone(), a: x, b: y });
            }
        }
    }
    let counts = (a.rows.len() != b.rows.len()).then_some((a.rows.len(), b.rows.len()));
    (out, counts)
}

/// A number cell's value (a yes/no cell is no quantity to take a change of).
fn number(c: &skblab_core::Cell) -> Option<f64> {
    match c {
        skblab_core::Cell::Int(_) | skblab_core::Cell::Float(_) => c.as_f64(),
        _ => None,
    }
}

fn num(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let digits = if v.abs() >= 100.0 { 1 } else { 3 };
        format!("{v:.digits$}")
    }
}

fn signed(v: f64, text: String) -> String {
    if v > 0.0 {
        format!("+{text}")
    } else {
        text
    }
}

#[function_component(Compare)]
pub fn compare(props: &CompareProps) -> Html {
    let Some(pin) = props.pin.clone() else {
        let on_pin = props.on_pin.reform(|_: MouseEvent| ());
        return html! {
            <p class="compare-pin">
                <button class="btn btn-small" type="button" data-testid="pin-run" onclick={on_pin}
                    title="Keep this run as A; change knobs or the seed, and compare">{"Pin this run as A"}</button>
            </p>
        };
    };
    html! { <Compared experiment={props.experiment} {pin} run={props.run.clone()} on_unpin={props.on_unpin.clone()} /> }
}

#[derive(Properties)]
struct ComparedProps {
    experiment: &'static dyn Experiment,
    pin: Pin,
    run: Rc<RunState>,
    on_unpin: Callback<()>,
}

impl PartialEq for ComparedProps {
    fn eq(&self, other: &Self) -> bool {
        self.experiment.id() == other.experiment.id()
            && self.pin == other.pin
            && self.run == other.run
            && self.on_unpin == other.on_unpin
    }
}

#[function_component(Compared)]
fn compared(props: &ComparedProps) -> Html {
    let e = props.experiment;
    let key = RunKey { experiment: e, params: props.pin.params.clone(), seed: props.pin.seed };
    let a = use_background_run(key);
    let on_unpin = props.on_unpin.reform(|_: MouseEvent| ());
    let a_line = skblab_core::replay::command(e, &props.pin.params, props.pin.seed);
    let body = match (a.as_ref().and_then(|s| s.output.clone()), props.run.output.clone()) {
        (Some(a), Some(b)) => table(&a, &b),
        (None, _) if a.is_some() => {
            let a = a.as_ref().expect("checked");
            html! { <div data-testid="compare-waiting">{ crate::run::waiting_note(a) }</div> }
        }
        (a_out, _) => {
            let which = if a_out.is_none() { "A" } else { "B" };
            html! { <p class="muted" data-testid="compare-waiting">{ format!("waiting for run {which}…") }</p> }
        }
    };
    html! {
        <section class="card-flat compare" data-testid="compare" aria-labelledby="compare-title">
            <div class="box-head">
                <h2 id="compare-title">{"A (pinned) against this run (B)"}</h2>
                <button class="btn btn-small" type="button" data-testid="unpin-run" onclick={on_unpin}>{"Unpin"}</button>
            </div>
            <p class="cli-line">{"A: "}<code data-testid="compare-a-line">{ a_line }</code></p>
            // A's estimate, go-ahead, ETA and Stop: a pin from a shared link may be a long run.
            if let Some(a) = a.clone() {
                <div data-testid="compare-a-control"><crate::run::RunControl state={a} /></div>
            }
            { body }
        </section>
    }
}

fn table(a: &RunOutput, b: &RunOutput) -> Html {
    let (all, counts) = lines(a, b);
    let changed = all.iter().filter(|l| l.a != l.b).count();
    let more = all.len().saturating_sub(MAX_LINES);
    let has_point = all.iter().any(|l| !l.point.is_empty());
    html! {
        <>
            <p data-testid="compare-summary">{ format!("{changed} of {} values differ.", all.len()) }
                if let Some((na, nb)) = counts { { format!(" A has {na} rows, B {nb}: the first {} are compared.", na.min(nb)) } }
            </p>
            <div class="table-scroll" tabindex="0" role="region" aria-label="A against B">
                <table class="results grid compare-table">
                    <caption class="visually-hidden">{"Each metric of run A and run B, and the change"}</caption>
                    <thead><tr>
                        if has_point { <th scope="col">{"point"}</th> }
                        <th scope="col">{"metric"}</th><th scope="col">{"A"}</th><th scope="col">{"B"}</th>
                        <th scope="col">{"B − A"}</th><th scope="col">{"change"}</th>
                    </tr></thead>
                    <tbody>{ for all.iter().take(MAX_LINES).map(|l| {
                        let class = if l.a == l.b { "same" } else { "changed" };
                        html! {
                            <tr class={class} data-metric={l.metric.clone()}>
                                if has_point { <td>{ &l.point }</td> }
                                <th scope="row">{ &l.metric }if !l.unit.is_empty() { <span class="unit">{ format!(" [{}]", l.unit) }</span> }</th>
                                <td class="num">{ num(l.a) }</td>
                                <td class="num">{ num(l.b) }</td>
                                <td class="num">{ signed(l.delta(), num(l.delta())) }</td>
                                <td class="num">{ l.delta_pct().map_or("–".to_string(), |p| signed(p, format!("{p:.1} %"))) }</td>
                            </tr>
                        }
                    }) }</tbody>
                </table>
            </div>
            if more > 0 { <p class="muted">{ format!("… and {more} more values (the CSV of each run has them all).") }</p> }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::{Cell, Column};

    fn out(cols: &[&str], rows: &[&[f64]]) -> RunOutput {
        let mut o = RunOutput::new("x", 1, cols.iter().map(|c| Column::new(c, "u")).collect());
        for r in rows {
            o.push_row(r.iter().map(|v| Cell::Float(*v)).collect());
        }
        o
    }

    #[test]
    fn one_row_compares_every_shared_column_by_name() {
        let a = out(&["mpps", "gain"], &[&[2.0, 10.0]]);
        let b = out(&["gain", "mpps", "new"], &[&[12.0, 2.0, 5.0]]);
        let (l, counts) = lines(&a, &b);
        assert_eq!(counts, None);
        assert_eq!(l.len(), 2);
        assert_eq!((l[0].metric.as_str(), l[0].a, l[0].b, l[0].delta()), ("mpps", 2.0, 2.0, 0.0));
        assert_eq!((l[1].metric.as_str(), l[1].delta_pct()), ("gain", Some(20.0)));
        assert!(l.iter().all(|l| l.point.is_empty()));
    }

    #[test]
    fn sweeps_label_points_by_their_swept_value_and_say_when_counts_differ() {
        let a = out(&["flows", "gbps"], &[&[1.0, 10.0], &[2.0, 20.0], &[3.0, 30.0]]);
        let b = out(&["flows", "gbps"], &[&[1.0, 11.0], &[2.0, 0.0]]);
        let (l, counts) = lines(&a, &b);
        assert_eq!(counts, Some((3, 2)));
        assert_eq!(l.iter().map(|l| l.point.as_str()).collect::<Vec<_>>(), ["flows = 1", "flows = 2"]);
        assert_eq!(l[1].delta_pct(), Some(-100.0));
        assert_eq!(
            Line { point: String::new(), metric: "m".into(), unit: String::new(), a: 0.0, b: 1.0 }.delta_pct(),
            None
        );
    }
}
