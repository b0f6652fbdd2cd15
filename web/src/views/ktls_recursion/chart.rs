//! The stack-vs-depth chart on a canvas, and the oops text view.
//!
//! The app's `Chart` component draws sweep charts only, so the canvas binding for
//! [`draw_stack_vs_depth`] lives here (same shape: redraw when the data or colours change).

use super::ViewCtx;
use crate::charts::ktls::{draw_stack_vs_depth, StackVsDepth};
use crate::charts::Theme;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use skblab_core::Params;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

const WIDTH_PX: u32 = 720;
const HEIGHT_PX: u32 = 420;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub params: Params,
    pub dark: bool,
}

#[function_component(ChartView)]
pub fn chart_view(props: &ChartProps) -> Html {
    // Five fixes × 65 depths of walks without a trace: computed once per parameter set.
    let data = use_memo(props.params.clone(), StackVsDepth::from_params);
    let canvas_ref = use_node_ref();
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with((data.clone(), props.dark), move |(data, dark)| {
            if let Some(backend) = canvas_ref.cast::<HtmlCanvasElement>().and_then(CanvasBackend::with_canvas_object) {
                // A drawing error leaves the previous frame; it is not worth a panic.
                let _ = draw_stack_vs_depth(&backend.into_drawing_area(), data, &Theme::for_dark(*dark));
            }
        });
    }
    let label = chart_label(&data);
    html! {
        <figure class="ktls-view chart card-flat">
            <figcaption><strong>{"Stack use vs. nesting depth, per fix"}</strong></figcaption>
            <canvas ref={canvas_ref} width={WIDTH_PX.to_string()} height={HEIGHT_PX.to_string()}
                data-testid="ktls-chart" role="img" aria-label={label} />
        </figure>
    }
}

/// A text alternative: where each fix first overflows on the chart's axis.
fn chart_label(data: &Rc<StackVsDepth>) -> String {
    let per_fix: Vec<String> = data
        .series
        .iter()
        .map(|s| match s.points.iter().find(|p| p.overflow) {
            Some(p) => format!("{} overflows from depth {}", s.fix, p.depth),
            None => format!("{} never overflows", s.fix),
        })
        .collect();
    format!("Peak stack vs nesting depth, THREAD_SIZE {} B: {}", data.thread_size_bytes, per_fix.join("; "))
}

/// The run's synthetic oops (or its all-clear) in a `<pre>`.
pub fn oops(ctx: &ViewCtx) -> Html {
    let text = ctx.output.views.iter().find(|v| v.title == "oops").map(|v| v.text.clone());
    html! {
        <figure class="ktls-view card-flat">
            <figcaption><strong>{"Simulated oops"}</strong></figcaption>
            <pre class="ktls-trace" data-testid="oops">{ text.unwrap_or_else(|| "(this run has no oops view)".into()) }</pre>
        </figure>
    }
}
