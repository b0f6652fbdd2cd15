//! The "chart" view: throughput against flows for both frag orders, filled point by point as
//! the worker's sweep arrives, with the seed's points overlaid; progress bar, CSV and PNG.
//!
//! The app's `Chart` component draws sweep charts only, so the canvas binding for
//! [`draw_throughput`] lives here (same shape: redraw when the data or colours change).

use super::sweep::{use_sweep, SweepProgress, SweepState};
use crate::browser;
use crate::charts::throughput::{describe, draw_throughput, Throughput};
use crate::charts::Theme;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use skblab_core::experiments::high_order_alloc::seed_table;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

const WIDTH_PX: u32 = 720;
const HEIGHT_PX: u32 = 420;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub params: skblab_core::Params,
    pub seed: u64,
    pub dark: bool,
}

/// The chart data of a sweep so far.
fn chart_data(state: &SweepState) -> Throughput {
    let caption = format!("TCP_STREAM over loopback, {} CPUs: throughput vs flows", state_cpus(state));
    Throughput::new(caption, state.n_points, &state.rows_mbps(), &seed_table())
}

/// The `cpus` setting of the sweep (for the caption).
fn state_cpus(state: &SweepState) -> String {
    state.key.settings.iter().find_map(|s| s.strip_prefix("cpus=")).unwrap_or("?").to_string()
}

#[function_component(ChartView)]
pub fn chart_view(props: &ChartProps) -> Html {
    let state = use_sweep(&props.params, props.seed);
    let data = use_memo(state.clone(), |s| chart_data(s));
    let canvas_ref = use_node_ref();
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with((data.clone(), props.dark), move |(data, dark)| {
            if let Some(backend) = canvas_ref.cast::<HtmlCanvasElement>().and_then(CanvasBackend::with_canvas_object) {
                // A drawing error leaves the previous frame; it is not worth a panic.
                let _ = draw_throughput(&backend.into_drawing_area(), data, &Theme::for_dark(*dark));
            }
        });
    }
    html! {
        <figure class="hoa-view card-flat">
            <div class="hoa-head">
                <figcaption><strong>{"Throughput vs flows: order-3 vs order-0 frags, seed 000 overlaid"}</strong></figcaption>
                { export_buttons(&state, &canvas_ref) }
            </div>
            <SweepProgress state={state.clone()} />
            <canvas ref={canvas_ref} width={WIDTH_PX.to_string()} height={HEIGHT_PX.to_string()}
                data-testid="throughput-chart" data-points={state.points.len().to_string()}
                role="img" aria-label={describe(&data)} />
        </figure>
    }
}

fn export_buttons(state: &Rc<SweepState>, canvas_ref: &NodeRef) -> Html {
    let on_csv = {
        let state = state.clone();
        Callback::from(move |_| browser::download_text("high-order-alloc-sweep.csv", "text/csv", &state.to_csv()))
    };
    let on_png = {
        let canvas_ref = canvas_ref.clone();
        Callback::from(move |_| {
            if let Some(url) = canvas_ref.cast::<HtmlCanvasElement>().and_then(|c| c.to_data_url().ok()) {
                browser::download_url("high-order-alloc-throughput.png", &url);
            }
        })
    };
    html! {
        <>
            <button class="btn btn-small" type="button" onclick={on_csv} disabled={state.points.is_empty()}
                data-testid="sweep-csv">{"CSV"}</button>
            <button class="btn btn-small" type="button" onclick={on_png} data-testid="throughput-chart-png">{"PNG"}</button>
        </>
    }
}
