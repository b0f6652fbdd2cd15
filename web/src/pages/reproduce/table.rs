//! One experiment's seed table on the Reproduce page: the seed's numbers beside the model's
//! mean [min–max] and the signed error per metric, the MAPE per metric, the max |error| and
//! core's notes, headed by the seed's citation and the verdict strip — the CLI's
//! `skblab reproduce` table, in its rounding (core's `fmt_num`) and its units.

use crate::components::repro_table::error_class;
use crate::components::verdict::VerdictStrip;
use skblab_core::output::{fmt_num, fmt_seed, ReproCell, Reproduction};
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

/// A metric's column heading, with its unit (the CLI's units: the caption says so).
pub fn metric_label(metric: &str) -> String {
    let known = match metric {
        "order3_mbps" => "order-3, Mbit/s",
        "order0_mbps" => "order-0, Mbit/s",
        "share_pct" => "share of CPU time, %",
        "gain_pct" => "gain, %",
        "datagrams" => "datagrams in 60 s",
        "mbps" => "goodput, Mbit/s",
        "change_pct" => "change, %",
        "mpps" => "transactions, Mpps",
        "cpu_pct" => "CPU time, %",
        "depth_reached" => "nesting depth, levels",
        "head_unaligned_bytes" => "unaligned head, bytes",
        "max_skb_frags" => "MAX_SKB_FRAGS, frags",
        "shinfo_bytes" => "skb_shared_info, bytes",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_string();
    }
    let (name, unit) = match metric.rsplit_once('_') {
        Some((n, "mbps")) => (n, "Mbit/s"),
        Some((n, "pct")) => (n, "%"),
        Some((n, "bytes")) => (n, "bytes"),
        _ => return metric.replace('_', " "),
    };
    format!("{}, {unit}", name.replace('_', " "))
}

/// The row key's heading.
pub fn key_label(key: &str) -> String {
    match key {
        "threads" => "flows".to_string(),
        "row" => "frame / machine".to_string(),
        other => other.replace('_', " "),
    }
}

#[derive(Properties, PartialEq)]
pub(super) struct SeedTableProps {
    pub repro: Rc<Reproduction>,
    /// Seeds in of all, while some are still running.
    pub partial: Option<(usize, usize)>,
}

/// The seed's numbers beside the model's mean [min–max], as the CLI prints them.
#[function_component(SeedTable)]
pub(super) fn seed_table(props: &SeedTableProps) -> Html {
    let r = &props.repro;
    let metrics = r.metrics();
    let spread = r.rows.iter().flat_map(|row| &row.cells).any(|c| c.spread.is_some());
    let model = if spread { "model: mean [min–max]" } else { "model" };
    let groups = metrics.iter().map(|m| html! { <th scope="colgroup" colspan="3">{ metric_label(m) }</th> });
    let subs = metrics.iter().map(|_| {
        html! { <>
        <th scope="col" class="num">{"seed"}</th><th scope="col" class="num">{ model }</th>
        <th scope="col" class="num">{"error"}</th></> }
    });
    let mape = metrics.iter().map(|m| {
        let cell = r.mape_pct(m).map_or(html! {"–"}, |v| html! {
            <span class={classes!("err-badge", error_class(v))} data-metric={*m} data-kind="mape">{ format!("{v:.2} %") }</span>
        });
        html! { <><td colspan="2" class="num">{"MAPE"}</td><td class="num">{ cell }</td></> }
    });
    let so_far = props.partial.map_or(String::new(), |(k, n)| format!(" (mean of {k} of {n} seeds so far)"));
    let units = units_caption(&metrics);
    html! {
        <figure class="card-flat repro" data-testid={format!("repro-{}-table", r.experiment)}
            data-partial={props.partial.is_some().to_string()}>
            <figcaption class="repro-cite">{ format!("Seed: {}{units}", r.citation.one_line()) }</figcaption>
            <VerdictStrip experiment={r.experiment} />
            <div class="table-scroll" tabindex="0" role="region" aria-label={format!("{}: seed vs model", r.experiment)}>
                <table class="results grid repro-table">
                    <thead>
                        <tr><th scope="col" rowspan="2">{ key_label(r.key_name) }</th>{ for groups }</tr>
                        <tr>{ for subs }</tr>
                    </thead>
                    <tbody>{ for r.rows.iter().map(|row| row_html(row, &metrics)) }</tbody>
                    <tfoot><tr><th scope="row">{ format!("all{so_far}") }</th>{ for mape }</tr></tfoot>
                </table>
            </div>
            <ul class="repro-summary">
                <li data-kind="max-error">{ format!("max |error|{so_far}: {:.2} %", r.max_abs_error_pct()) }</li>
                { for r.notes.iter().map(|n| html! { <li>{ n }</li> }) }
            </ul>
        </figure>
    }
}

/// The caption's word on units: the CLI's (Mbit/s where the lessons chart Gbit/s).
fn units_caption(metrics: &[&str]) -> &'static str {
    if metrics.iter().any(|m| m.ends_with("_mbps")) {
        ". Throughputs in Mbit/s, the CLI's and the seed's unit (the lesson's charts show Gbit/s: 1 Gbit/s = 1000 Mbit/s)"
    } else {
        ""
    }
}

fn row_html(row: &skblab_core::output::ReproRow, metrics: &[&'static str]) -> Html {
    let by_metric: BTreeMap<&str, &ReproCell> = row.cells.iter().map(|c| (c.metric, c)).collect();
    let cells = metrics.iter().map(|m| match by_metric.get(m) {
        Some(c) => {
            let err = c.error_pct().map_or_else(crate::components::repro_table::no_error, |err| {
                html! { <span class={classes!("err-badge", error_class(err))}>{ format!("{err:+.1} %") }</span> }
            });
            html! { <>
                <td class="num" data-metric={*m} data-kind="seed">{ fmt_seed(c.measured) }</td>
                <td class="num" data-metric={*m} data-kind="sim">{ fmt_num(c.simulated) }
                    if let Some([lo, hi]) = c.spread {
                        <span class="spread">{ format!(" [{}–{}]", fmt_num(lo), fmt_num(hi)) }</span>
                    }
                </td>
                <td class="num" data-metric={*m} data-kind="err">
                    { err }</td>
            </> }
        }
        None => html! { <><td class="num">{"–"}</td><td class="num">{"–"}</td><td class="num">{"–"}</td></> },
    });
    html! { <tr data-label={row.label.clone()}><th scope="row">{ &row.label }</th>{ for cells }</tr> }
}
