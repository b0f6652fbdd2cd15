//! The reproduce page (`#/reproduce`): for every experiment with a seed table, the seed's
//! measured numbers beside the simulation's, with a per-cell error badge and a summary —
//! the browser's `skblab reproduce <id>`.
//!
//! Light experiments reproduce on the main thread (microseconds); heavy ones (core's
//! `Cost::Heavy`) run their default sweep in the worker pool (all tables share it, their points
//! spread over the workers), and each table fills as rows arrive, with its ETA and Stop. [`ReproTable`] is also the generic `Compare` view. With `bands`, a table offers the
//! uncertainty band of its experiment ([`super::bands`]): a band column with a drawn bar per
//! cell once the learner starts it, and the "cannot tell" line under the table.

use super::bands::{band_bar, use_bands_of, BandPanel};
use super::validation::VerdictStrip;
use crate::browser;
use crate::route::{self, Route};
use crate::run::{use_background_run, RunControl, RunKey, RunProgress};
use skblab_core::{Cost, Experiment, Reproduction, DEFAULT_SEED};
use std::rc::Rc;
use yew::prelude::*;

/// Error badges: green up to this |error| in percent, amber up to [`WARN_PCT`], red beyond.
pub const OK_PCT: f64 = 5.0;
pub const WARN_PCT: f64 = 12.0;

/// The badge class of a signed error in percent.
pub fn error_class(error_pct: f64) -> &'static str {
    match error_pct.abs() {
        e if e <= OK_PCT => "err-ok",
        e if e <= WARN_PCT => "err-warn",
        _ => "err-bad",
    }
}

#[derive(Properties, PartialEq)]
pub struct ReproTableProps {
    pub repro: Rc<Reproduction>,
    #[prop_or(AttrValue::Static("repro-table"))]
    pub testid: AttrValue,
    /// Rows still to come (a sweep in progress): the summary says the numbers are partial.
    #[prop_or(false)]
    pub partial: bool,
    /// Offer the experiment's uncertainty band (a button; the worker computes it).
    #[prop_or(false)]
    pub bands: bool,
    /// The table is of the reproduction's parameters (the band is drawn only then).
    #[prop_or(true)]
    pub at_seed: bool,
}

/// The seed-vs-simulation table with error badges, MAPE per column and the notes.
#[function_component(ReproTable)]
pub fn repro_table(props: &ReproTableProps) -> Html {
    let r = &props.repro;
    let e = skblab_core::find(r.experiment).unwrap_or(skblab_core::experiments()[0]);
    let band = use_bands_of(e).filter(|_| props.bands && props.at_seed);
    let metrics = r.metrics();
    let band_col = band.is_some();
    let head = metrics.iter().map(|m| {
        html! { <><th scope="col" class="num">{ format!("{m} seed") }</th><th scope="col" class="num">{ format!("{m} sim") }</th>
        if band_col { <th scope="col">{"model band"}</th> }
        <th scope="col" class="num">{"error"}</th></> }
    });
    let span = if band_col { "3" } else { "2" };
    let mape = metrics.iter().map(|m| {
        let v = r.mape_pct(m);
        html! { <><td colspan={span} class="num">{"MAPE"}</td><td class="num">{ v.map_or(html! {"–"}, |v| badge(v, true)) }</td></> }
    });
    let on_csv = {
        let r = r.clone();
        Callback::from(move |_| {
            browser::download_text(&format!("{}-reproduce.csv", r.experiment), "text/csv", &r.to_csv())
        })
    };
    let so_far = if props.partial { format!(" (first {} rows)", r.rows.len()) } else { String::new() };
    html! {
        <figure class="card-flat repro" data-testid={props.testid.clone()}>
            <div class="box-head">
                <figcaption class="repro-cite">{ format!("Seed: {}", r.citation.one_line()) }</figcaption>
                <button class="btn btn-small" type="button" onclick={on_csv}
                    data-testid={format!("{}-csv", props.testid)}>{"CSV"}</button>
            </div>
            <VerdictStrip experiment={r.experiment} />
            <div class="table-scroll" tabindex="0" role="region" aria-label="seed vs simulation">
                <table class="results grid repro-table">
                    <thead><tr><th scope="col">{ r.key_name }</th>{ for head }</tr></thead>
                    <tbody>{ for r.rows.iter().map(|row| row_html(row, &metrics, band.as_deref(), band_col)) }</tbody>
                    <tfoot><tr><th scope="row">{ format!("all{so_far}") }</th>{ for mape }</tr></tfoot>
                </table>
            </div>
            <ul class="repro-summary">
                <li>{ format!("max |error|{so_far}: {:.1} %", r.max_abs_error_pct()) }</li>
                { for r.notes.iter().map(|n| html! { <li>{ n }</li> }) }
            </ul>
            if props.bands {
                <BandPanel experiment={r.experiment} repro={r.clone()} at_seed={props.at_seed} />
            }
        </figure>
    }
}

fn row_html(
    row: &skblab_core::output::ReproRow,
    metrics: &[&'static str],
    band: Option<&skblab_core::validate::Bands>,
    band_col: bool,
) -> Html {
    let cells = metrics.iter().map(|m| match row.cells.iter().find(|c| c.metric == *m) {
        Some(c) => {
            let b = band.and_then(|b| b.get(&row.label, c.metric));
            html! { <>
                <td class="num">{ fmt_num(c.measured) }</td>
                <td class="num">{ fmt_num(c.simulated) }</td>
                if band_col {
                    <td class="band-cell">{ match b {
                        Some([lo, hi]) => html! { <>
                            { band_bar([lo, hi], c.spread, c.measured, c.simulated) }
                            <span class="band-range">{ format!("{}–{}", fmt_num(lo), fmt_num(hi)) }</span>
                        </> },
                        None => html! { <span class="muted">{"–"}</span> },
                    } }</td>
                }
                <td class="num">{ badge(c.error_pct(), false) }</td>
            </> }
        }
        None => html! { <><td class="num">{"–"}</td><td class="num">{"–"}</td>
        if band_col { <td>{"–"}</td> }<td class="num">{"–"}</td></> },
    });
    html! { <tr><th scope="row">{ &row.label }</th>{ for cells }</tr> }
}

/// An error badge; `unsigned` for MAPE.
fn badge(error_pct: f64, unsigned: bool) -> Html {
    let text = if unsigned { format!("{error_pct:.1} %") } else { format!("{error_pct:+.1} %") };
    html! { <span class={classes!("err-badge", error_class(error_pct))}>{ text }</span> }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// `#/reproduce`.
#[function_component(ReproducePage)]
pub fn reproduce_page() -> Html {
    html! {
        <div class="reproduce-page">
            <header class="player-head">
                <p class="eyebrow">{"Reproduce"}</p>
                <h1>{"The seeds beside the simulation"}</h1>
                <p class="lead">
                    { "Every experiment with a seed table, run with its default parameters and the default seed: \
                    measured and simulated numbers, the error of each cell (green ≤ 5 %, amber ≤ 12 %, red beyond) and \
                    the mean absolute percentage error per column. The same tables as " }
                    <code>{"skblab reproduce <id>"}</code>{". Each table's verdict says what its error means: "}
                    <a href={route::href(Route::Validation)} data-testid="reproduce-validation-link">
                        {"the validation page"}</a>
                    {" has the degrees of freedom, the out-of-sample errors and the curve baseline."}
                </p>
            </header>
            { for skblab_core::experiments().iter().map(|e| html! { <ExperimentRepro experiment={*e} /> }) }
        </div>
    }
}

#[derive(Properties)]
struct ExperimentProps {
    experiment: &'static dyn Experiment,
}

impl PartialEq for ExperimentProps {
    fn eq(&self, other: &Self) -> bool {
        self.experiment.id() == other.experiment.id()
    }
}

#[function_component(ExperimentRepro)]
fn experiment_repro(props: &ExperimentProps) -> Html {
    let e = props.experiment;
    let params = e.reproduce_params();
    let heavy = e.cost(&params) == Cost::Heavy;
    // Light experiments reproduce in microseconds; heavy ones are never run here.
    let repro = use_memo(e.id(), move |_| if heavy { None } else { e.reproduce(DEFAULT_SEED).map(Rc::new) });
    let body = match (&*repro, heavy) {
        (_, true) => html! { <HeavyRepro experiment={e} /> },
        (Some(r), false) => {
            html! { <ReproTable repro={r.clone()} testid={format!("repro-table-{}", e.id())} bands={true} /> }
        }
        (None, false) => return html! {},
    };
    html! {
        <section class="repro-section" data-testid={format!("reproduce-{}", e.id())}>
            <h2>{ e.title() }{" "}<code>{ e.id() }</code></h2>
            { body }
        </section>
    }
}

/// A heavy experiment's reproduction: its default run in the worker, compared as rows arrive.
#[function_component(HeavyRepro)]
fn heavy_repro(props: &ExperimentProps) -> Html {
    let e = props.experiment;
    let key = RunKey { experiment: e, params: e.resolve(&e.reproduce_params()), seed: DEFAULT_SEED };
    let Some(state) = use_background_run(key.clone()) else {
        return html! { <p class="muted">{"waiting for the worker…"}</p> };
    };
    let repro = e.compare(&key.params, &state.table()).map(|mut r| {
        if !state.is_done() {
            r.notes.clear();
        }
        Rc::new(r)
    });
    html! {
        <div>
            <RunProgress state={state.clone()} />
            <RunControl state={state.clone()} />
            if let Some(repro) = repro {
                <ReproTable {repro} testid={format!("repro-table-{}", e.id())} partial={!state.is_done()}
                    bands={state.is_done()} />
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn badges_follow_the_thresholds() {
        assert_eq!(error_class(0.0), "err-ok");
        assert_eq!(error_class(-5.0), "err-ok");
        assert_eq!(error_class(5.01), "err-warn");
        assert_eq!(error_class(-12.0), "err-warn");
        assert_eq!(error_class(12.5), "err-bad");
    }
}
