//! A `<canvas>` bound to a chart drawing function through plotters' `CanvasBackend`.
//!
//! The component holds no chart logic: it redraws [`draw_sweep`] whenever the data or the
//! colour scheme changes, and offers the canvas as a PNG.

use crate::browser;
use crate::charts::sweep::{draw_sweep, Sweep};
use crate::charts::Theme;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Canvas size in CSS pixels at 100 % width; the element scales down on narrow screens.
const WIDTH_PX: u32 = 720;
const HEIGHT_PX: u32 = 400;

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub data: Rc<Sweep>,
    pub dark: bool,
    /// File name (without extension) of the PNG export.
    pub name: AttrValue,
    #[prop_or(AttrValue::Static("chart"))]
    pub testid: AttrValue,
}

#[function_component(Chart)]
pub fn chart(props: &ChartProps) -> Html {
    let canvas_ref = use_node_ref();
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with((props.data.clone(), props.dark), move |(data, dark)| {
            if let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() {
                if let Some(backend) = CanvasBackend::with_canvas_object(canvas) {
                    let area = backend.into_drawing_area();
                    // A drawing error leaves the previous frame; it is not worth a panic.
                    let _ = draw_sweep(&area, data, &Theme::for_dark(*dark));
                }
            }
        });
    }
    let on_png = {
        let (canvas_ref, name) = (canvas_ref.clone(), props.name.clone());
        Callback::from(move |_| {
            if let Some(url) = canvas_ref.cast::<HtmlCanvasElement>().and_then(|c| c.to_data_url().ok()) {
                browser::download_url(&format!("{name}.png"), &url);
            }
        })
    };
    let label = format!("{}: {} against {}", props.data.caption, props.data.y_label, props.data.x_label);
    html! {
        <figure class="chart card-flat">
            <div class="box-head">
                <figcaption>{ &props.data.caption }</figcaption>
                <button class="btn btn-small" type="button" onclick={on_png}
                    data-testid={format!("{}-png", props.testid)}>{"PNG"}</button>
            </div>
            <canvas ref={canvas_ref} width={WIDTH_PX.to_string()} height={HEIGHT_PX.to_string()}
                data-testid={props.testid.clone()} role="img" aria-label={label} />
        </figure>
    }
}
