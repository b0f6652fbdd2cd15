//! What the "Your machine" page shows of a fit: the machine's facts (the file's first reply),
//! then core's report — the fitted constant, the summary line, the stream suite's overlay
//! charts ([`super::chart`], drawn on the app's canvas chart), every measured point beside the
//! catalogue's and the fitted prediction with its verdict, and what is not predicted and why.

use super::chart::{draw_overlay, overlays, pct_text, setting_text, Overlay};
use crate::charts::record::ChartBoxes;
use crate::charts::summary::Lines;
use crate::charts::table::DataTable;
use crate::charts::Theme;
use crate::components::chart::{CanvasArea, Chart, ChartData, Drawing};
use crate::components::repro_table::error_class;
use crate::worker::machine::MachineFacts;
use skblab_core::machine::fit::{MachinePoint, MachineReport};
use skblab_core::params::Choice;
use skblab_core::sim::catalogue;
use std::rc::Rc;
use yew::prelude::*;

impl Drawing for Overlay {
    fn draw(&self, area: &CanvasArea, theme: &Theme) -> Option<ChartBoxes> {
        draw_overlay(area, self, theme).ok()
    }
    fn height_css(&self, css_w: f64) -> f64 {
        super::chart::height_css(css_w)
    }
    fn describe(&self) -> String {
        Overlay::describe(self)
    }
    fn lines(&self) -> Lines {
        Overlay::lines(self)
    }
    fn table(&self) -> DataTable {
        Overlay::table(self)
    }
}

pub(super) fn facts_box(f: &MachineFacts) -> Html {
    let m = &f.machine;
    let or_none = |s: &str, none: &str| if s.is_empty() { none.to_string() } else { s.to_string() };
    let cpu = if m.cpu.is_empty() { m.model.clone() } else { format!("{} ({})", m.model, m.cpu) };
    // The family the prediction uses (`machine::fit::family_for`): the file's, else its CPU's.
    let family = match (m.family.is_empty(), catalogue::family_of_cpu_text(&m.cpu)) {
        (false, _) => m.family.clone(),
        (true, Some(f)) => format!("{} (from the CPU's vendor, family and model)", f.name()),
        (true, None) => "none of the catalogue's families (predicted with zen5-guest)".to_string(),
    };
    let suites: Vec<String> = f.suites.iter().map(|(s, n)| format!("{s} ({n})")).collect();
    let rows = [
        ("CPU", cpu),
        ("CPUs", m.cpus.to_string()),
        ("catalogue family", family),
        ("kernel", format!("{} {}", f.kernel, f.kernel_version).trim().to_string()),
        ("hypervisor", or_none(&m.hypervisor, "none (bare metal)")),
        ("PMU", (if m.pmu { "yes: perf has hardware counters" } else { "no: perf sampled cpu-clock" }).to_string()),
        ("taken", f.taken.clone()),
        ("note", or_none(&f.note, "—")),
        ("suites (cells)", suites.join(", ")),
        ("written by", f.tool.clone()),
    ];
    html! {
        <section class="card-flat machine-facts">
            <h2>{"The machine"}</h2>
            <dl class="validation-figures" data-testid="machine-facts">
                { for rows.into_iter().map(|(k, v)| html! { <><dt>{ k }</dt><dd data-fact={k}>{ v }</dd></> }) }
            </dl>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub(super) struct ResultsProps {
    pub report: Rc<MachineReport>,
    pub dark: bool,
}

/// The fitted constant, the summary, the overlays, the table, what is not predicted and why.
#[function_component(Results)]
pub(super) fn results(props: &ResultsProps) -> Html {
    let r = &props.report;
    let charts = use_memo(props.report.clone(), |r| overlays(r).into_iter().map(Rc::new).collect::<Vec<_>>());
    let summary = r.summary_line().trim().trim_start_matches("summary: ").to_string();
    html! {
        <section class="machine-results" data-testid="machine-results">
            <h2>{"3. Predicted, fitted, measured"}</h2>
            <p class="muted">{ format!("{} — kernel {}. Profile: {}.", r.machine, r.kernel, r.profile) }</p>
            { for r.fitted.iter().map(|f| html! {
                <p class="machine-fitted" data-testid="machine-fitted" data-value={f.value.to_string()}>
                    {"Fitted "}<code>{ &f.name }</code>{ format!(" = {} {} (catalogue {} {}; sourced range {}–{}), on the cells marked “fit saw it”.",
                        grouped(f.value, 0), f.unit, grouped(f.catalogue, 0), f.unit, grouped(f.range[0], 0), grouped(f.range[1], 0)) }
                    if f.at_bound() {
                        <strong data-testid="machine-fit-at-bound">{" It ended on its range's bound: the model cannot reach these cells inside the sourced range, so the fitted column is not a fit — read the catalogue column."}</strong>
                    }
                </p>
            }) }
            <p class="machine-summary" data-testid="machine-summary">{ summary }</p>
            <div class="machine-charts">
                { for charts.iter().map(|o| html! {
                    <Chart data={ChartData::from(o.clone())} dark={props.dark} caption={o.title()}
                        name={format!("machine-stream-{}flow-order{}", o.flows, o.order)}
                        testid={format!("machine-chart-{}-{}", o.order, o.flows)} points={Some(o.points.len())} />
                }) }
            </div>
            { points_table(&r.points) }
            if !r.not_predicted.is_empty() {
                <h3>{"Not predicted, and why"}</h3>
                <ul class="validation-gaps" data-testid="machine-not-predicted">
                    { for r.not_predicted.iter().map(|l| html! { <li>{ l }</li> }) }
                </ul>
            }
            if !r.notes.is_empty() {
                <h3>{"Notes"}</h3>
                <ul class="validation-gaps" data-testid="machine-notes">{ for r.notes.iter().map(|l| html! { <li>{ l }</li> }) }</ul>
            }
        </section>
    }
}

/// What a verdict means (core's rule, `machine::fit::MachinePoint::verdict`).
fn verdict_help(v: &str) -> &'static str {
    match v {
        "within spread" => "the fitted prediction lies inside the measured min–max",
        "agrees" => "the fitted prediction is within 10 % of the measured median",
        "close" => "the fitted prediction is within 25 % of the measured median",
        "measured zero" => "the measurement is zero: no percentage error, and the cell is not fitted",
        _ => "the fitted prediction is more than 25 % from the measured median",
    }
}

/// `1234.5` as "1,234.5" (`decimals` after the point).
/// A table cell: one decimal, none for a whole number ("4,096 bytes", not "4,096.0").
fn cell_num(v: f64) -> String {
    grouped(v, if v.fract() == 0.0 { 0 } else { 1 })
}

pub fn grouped(v: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, v.abs());
    let (int, frac) = text.split_once('.').map_or((text.as_str(), None), |(i, f)| (i, Some(f)));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    let sign = if v < 0.0 && text.chars().any(|c| c != '0' && c != '.') { "-" } else { "" };
    match frac {
        Some(f) => format!("{sign}{out}.{f}"),
        None => format!("{sign}{out}"),
    }
}

fn err_badge(e: f64) -> Html {
    html! { <span class={classes!("err-badge", error_class(e))}>{ pct_text(e) }</span> }
}

fn point_row(p: &MachinePoint) -> Html {
    let what = setting_text(p);
    let title = format!("{}: {}", p.verdict, verdict_help(&p.verdict));
    html! {
        <tr data-testid="machine-row" data-suite={p.suite.clone()} data-cell={p.cell.clone()}
            data-measured={p.measured.to_string()} data-min={p.measured_min.to_string()} data-max={p.measured_max.to_string()}
            data-catalogue={p.predicted_catalogue.to_string()} data-error-catalogue={p.error_catalogue_pct.to_string()}
            data-fitted={p.predicted.to_string()} data-error={p.error_pct.to_string()}
            data-used={p.used_for_fit.to_string()} data-verdict={p.verdict.clone()}>
            <td>{ &p.suite }</td>
            <th scope="row"><code>{ &p.cell }</code>if !what.is_empty() { <div class="muted">{ what }</div> }</th>
            <td class="num"><span data-testid="machine-measured">{ cell_num(p.measured) }</span>{" "}<span class="unit">{ &p.unit }</span>
                <div class="muted">{ format!("{}–{}", cell_num(p.measured_min), cell_num(p.measured_max)) }</div></td>
            <td class="num">{ cell_num(p.predicted_catalogue) }</td>
            <td class="num">{ err_badge(p.error_catalogue_pct) }</td>
            <td class="num">{ cell_num(p.predicted) }</td>
            <td class="num">{ err_badge(p.error_pct) }</td>
            <td>{ if p.used_for_fit { "yes" } else { "no" } }</td>
            <td><span class={classes!("tag", "machine-verdict", format!("mv-{}", p.verdict.replace(' ', "-")))}
                title={title.clone()} aria-label={title}>{ &p.verdict }</span>
                if p.contaminated { <span class="tag" title="every sample ran on a busy machine">{"busy"}</span> }</td>
        </tr>
    }
}

fn points_table(points: &[MachinePoint]) -> Html {
    html! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="every measured point beside the model">
            <table class="results grid machine-table" data-testid="machine-table">
                <thead><tr>
                    <th scope="col">{"Suite"}</th><th scope="col">{"Cell"}</th>
                    <th scope="col" class="num">{"Measured: median, min–max"}</th>
                    <th scope="col" class="num" title="predicted from the machine catalogue, nothing fitted">{"Catalogue alone"}</th>
                    <th scope="col" class="num">{"Error"}</th>
                    <th scope="col" class="num" title="predicted after the fit">{"After the fit"}</th>
                    <th scope="col" class="num">{"Error"}</th>
                    <th scope="col" title="whether the fit saw this cell (in sample)">{"Fit saw it"}</th>
                    <th scope="col">{"Verdict"}</th>
                </tr></thead>
                <tbody>{ for points.iter().map(point_row) }</tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::{cell_num, grouped};

    #[test]
    fn a_whole_number_cell_has_no_decimal() {
        assert_eq!(
            (cell_num(4096.0), cell_num(9280.18), cell_num(0.0)),
            ("4,096".to_string(), "9,280.2".to_string(), "0".to_string())
        );
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(9280.182, 1), "9,280.2");
        assert_eq!(grouped(224.0, 1), "224.0");
        assert_eq!(grouped(1_234_567.0, 0), "1,234,567");
        assert_eq!(grouped(-40000.0, 0), "-40,000");
        assert_eq!(grouped(-0.01, 1), "0.0");
        assert_eq!(grouped(999.96, 1), "1,000.0");
    }
}
