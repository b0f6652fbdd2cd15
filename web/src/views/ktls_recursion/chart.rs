//! The stack-vs-TCP-skbs chart (drawn by the app's one [`Chart`] component), and the oops text view.

use super::depth::{draw_stack_vs_depth, StackChart, StackVsDepth};
use super::ViewCtx;
use crate::charts::record::ChartBoxes;
use crate::charts::summary::{Line, Lines};
use crate::charts::table::DataTable;
use crate::charts::Theme;
use crate::components::chart::{CanvasArea, Chart, ChartData, Drawing};
use crate::run::{use_view_data_list, RunKey, ViewLoad};
use skblab_core::ViewQuery;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub run: RunKey,
    /// The run pinned as A, when the views show it ([`ViewCtx::pinned`]).
    pub pinned: Option<RunKey>,
    pub dark: bool,
}

impl Drawing for StackChart {
    fn draw(&self, area: &CanvasArea, theme: &Theme) -> Option<ChartBoxes> {
        draw_stack_vs_depth(area, self, theme).ok()
    }
    fn height_css(&self, css_w: f64) -> f64 {
        super::depth::height_css(self, css_w)
    }
    fn describe(&self) -> String {
        chart_label(self)
    }
    fn lines(&self) -> Lines {
        let lines = self.all_series().map(|(_, s, _)| {
            let points = s.points.iter().map(|p| (f64::from(p.tcp_skbs), p.stack_used_bytes_max as f64));
            let mut line = Line::new(s.fix.clone(), points);
            line.notes = s.points.iter().map(|p| if p.overflow { "overflow: the walk stopped".into() } else { String::new() }).collect();
            line
        });
        Lines {
            x_label: "TCP skbs received before close()".into(),
            y_label: "stack used, max (bytes)".into(),
            x_names: Vec::new(),
            lines: lines.collect(),
        }
    }
    fn table(&self) -> DataTable {
        // One row per number of TCP skbs received (B's, then any only A has); per fix (B's,
        // then A's) its peak stack and whether the walk overflowed (1).
        let mut columns = vec!["tcp_skbs".to_string()];
        for (_, s, _) in self.all_series() {
            columns.push(format!("{} peak stack (bytes)", s.fix));
            columns.push(format!("{} overflows (1 = yes)", s.fix));
        }
        let mut t = DataTable::new(columns);
        let mut xs: Vec<u32> = Vec::new();
        for p in self.all_series().flat_map(|(_, s, _)| &s.points) {
            if !xs.contains(&p.tcp_skbs) {
                xs.push(p.tcp_skbs);
            }
        }
        for x in xs {
            let mut row = vec![x.to_string()];
            for (_, s, _) in self.all_series() {
                let p = s.points.iter().find(|p| p.tcp_skbs == x);
                row.push(p.map(|p| p.stack_used_bytes_max.to_string()).unwrap_or_default());
                row.push(p.map(|p| u8::from(p.overflow).to_string()).unwrap_or_default());
            }
            t.push(row);
        }
        t
    }
}

#[function_component(ChartView)]
pub fn chart_view(props: &ChartProps) -> Html {
    // Four fixes × 65 receives and walks without a trace: core's view data "chart", heavy, so
    // computed in the sweep worker once per parameter set; the pinned run's the same way.
    let keys = std::iter::once(&props.run).chain(&props.pinned).map(|k| (k.clone(), ViewQuery::new("chart")));
    let data = use_view_data_list::<StackVsDepth>(keys.collect());
    let chart = use_memo(data.clone(), |d| match d.first() {
        // A is drawn once its data is there; B alone until then.
        Some(ViewLoad::Ready(b)) => {
            let a = match d.get(1) {
                Some(ViewLoad::Ready(a)) => Some(StackVsDepth::clone(a)),
                _ => None,
            };
            Some(Rc::new(StackChart::new(StackVsDepth::clone(b), a)))
        }
        _ => None,
    });
    let Some(chart) = (*chart).clone() else {
        return data.first().and_then(ViewLoad::note).unwrap_or_default();
    };
    html! {
        <Chart data={ChartData::from(chart)} dark={props.dark} caption="Stack use vs. TCP skbs received, per fix"
            name="ktls-stack-vs-depth" testid="ktls-chart" />
    }
}

/// A text alternative: where each fix first overflows on the chart's axis (B's fixes, then
/// A's, with A's THREAD_SIZE where it differs).
fn chart_label(data: &StackChart) -> String {
    let per_fix: Vec<String> = data
        .all_series()
        .map(|(_, s, _)| match s.points.iter().find(|p| p.overflow) {
            Some(p) => format!("{} overflows from {} TCP skbs", s.fix, p.tcp_skbs),
            None => format!("{} never overflows", s.fix),
        })
        .collect();
    let a_limit = data.pinned_thread_size().map_or(String::new(), |t| format!(" (A's {t} B)"));
    let cache = if data.run.tcp_rx_skb_cache { "" } else { ", rx cache off" };
    format!(
        "Peak stack vs TCP skbs received, THREAD_SIZE {} B{a_limit}{cache}: {}",
        data.run.thread_size_bytes,
        per_fix.join("; ")
    )
}

/// The run's synthetic oops (or its all-clear) in a `<pre>`.
pub fn oops(ctx: &ViewCtx) -> Html {
    let text = ctx.run.output.as_ref().and_then(|o| o.view("oops")).map(|v| v.text.clone());
    html! {
        <figure class="ktls-view card-flat">
            <figcaption><strong>{"Simulated oops"}</strong></figcaption>
            <pre class="ktls-trace" data-testid="oops" tabindex="0">{ text.unwrap_or_else(|| "(this run has no oops view)".into()) }</pre>
        </figure>
    }
}
