//! A seed table's verdict (prediction, fit or arithmetic, core's `Verdict`) as a badge, and
//! [`VerdictStrip`]: the line of badges the Reproduce page and every lesson's seed table show
//! above the errors, each linking to the validation page.

use crate::route::{self, Route};
use skblab_core::calibrate::tables::{TableSpec, Verdict};
use skblab_core::validate::TableReport;
use yew::prelude::*;

/// The badge of a verdict, its explanation as tooltip and accessible description.
pub fn verdict_badge(v: Verdict) -> Html {
    html! {
        <span class={classes!("verdict-badge", format!("verdict-{}", v.name()))} title={v.explain()}
            data-testid="verdict-badge">{ v.name() }</span>
    }
}

#[derive(Properties, PartialEq)]
pub struct VerdictStripProps {
    /// The experiment whose tables to show.
    pub experiment: AttrValue,
}

/// One line per table of an experiment: verdict badge, degrees of freedom, a link to the
/// validation page (nothing for an experiment that declares no table).
#[function_component(VerdictStrip)]
pub fn verdict_strip(props: &VerdictStripProps) -> Html {
    let Ok(e) = skblab_core::find(&props.experiment) else { return html! {} };
    let tables = e.tables();
    if tables.is_empty() {
        return html! {};
    }
    html! {
        <ul class="verdict-strip" data-testid="verdict-strip">
            { for tables.iter().map(|t| html! {
                <li>
                    { verdict_badge(t.verdict()) }{" "}
                    <span class="verdict-dof">{ dof(t) }</span>{" "}
                    <span class="muted verdict-why">{ t.verdict().explain() }</span>{" "}
                    <a href={route::href(Route::Validation)} data-testid="verdict-link">{"validation"}</a>
                </li>
            }) }
        </ul>
    }
}

/// "seed000: 60 numbers, 13 fitted": the count the Validation page and the home page give (the
/// validation snapshot's: the constants fitted to the table and the hand-set ones counted as
/// fitted for their influence), else the table's own fitted constants.
fn dof(t: &TableSpec) -> String {
    let report =
        SNAPSHOT.with(|v| v.iter().find(|r| r.table == t.table).map(|r| (r.fitted, r.counted_as_fitted.len())));
    let fitted = match report {
        Some((n, counted)) if counted > 0 => {
            format!("{n} fitted ({} to it, {counted} counted as fitted)", (n as usize).saturating_sub(counted))
        }
        Some((n, _)) => format!("{n} fitted"),
        None => format!("{} fitted", t.fitted.len()),
    };
    let numbers = if t.targets == 1 { "1 number".to_string() } else { format!("{} numbers", t.targets) };
    format!("{}: {numbers}, {fitted}", t.table)
}

thread_local! {
    /// The validation snapshot's tables, read once.
    static SNAPSHOT: Vec<TableReport> = skblab_core::validate::snapshot().map(|v| v.tables).unwrap_or_default();
}
