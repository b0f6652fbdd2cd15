//! The seed-vs-simulation table of one run ([`ReproTable`], the generic `Compare` view of a
//! lesson step or the playground) and the error badges the Reproduce page
//! ([`crate::pages::reproduce`]) shares. With `bands`, a table offers the
//! uncertainty band of its experiment ([`super::bands`]): a band column with a drawn bar per
//! cell once the learner starts it, and the "cannot tell" line under the table.

use super::bands::{band_bar, use_bands_of, BandPanel};
use super::verdict::VerdictStrip;
use crate::browser;
use skblab_core::Reproduction;
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
                <td class="num">{ c.error_pct().map_or_else(no_error, |e| badge(e, false)) }</td>
            </> }
        }
        None => html! { <><td class="num">{"–"}</td><td class="num">{"–"}</td>
        if band_col { <td>{"–"}</td> }<td class="num">{"–"}</td></> },
    });
    html! { <tr><th scope="row">{ &row.label }</th>{ for cells }</tr> }
}

/// An error badge; `unsigned` for MAPE.
/// The error cell against a measured zero: no percentage exists.
pub fn no_error() -> Html {
    html! { <span class="err-badge" title="measured 0: no percentage of zero">{"n/a"}</span> }
}

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
