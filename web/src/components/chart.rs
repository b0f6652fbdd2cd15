//! The app's one canvas chart component: a `<canvas>` bound to any drawing function through
//! plotters' `CanvasBackend`, redrawn whenever the data or the colour scheme changes, with a
//! PNG export and a text alternative.
//!
//! A chart's data implements [`Drawing`] (the line chart of [`crate::charts::sweep`] does, and
//! so may a custom view's chart); the component holds no chart logic.

use crate::browser;
use crate::charts::sweep::{draw_sweep, Sweep};
use crate::charts::Theme;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Canvas size in CSS pixels at 100 % width; the element scales down on narrow screens.
const WIDTH_PX: u32 = 720;
const HEIGHT_PX: u32 = 400;

/// Chart data that can draw itself on a canvas.
pub trait Drawing {
    /// Draws onto the canvas; a drawing error leaves the previous frame (not worth a panic).
    fn draw(&self, area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme);
    /// The text alternative (aria-label).
    fn describe(&self) -> String;
}

impl Drawing for Sweep {
    fn draw(&self, area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme) {
        let _ = draw_sweep(area, self, theme);
    }
    fn describe(&self) -> String {
        Sweep::describe(self)
    }
}

/// Shared chart data, compared by identity (a new `Rc` is a new chart).
#[derive(Clone)]
pub struct ChartData(pub Rc<dyn Drawing>);

impl PartialEq for ChartData {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T: Drawing + 'static> From<Rc<T>> for ChartData {
    fn from(data: Rc<T>) -> ChartData {
        ChartData(data)
    }
}

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub data: ChartData,
    pub dark: bool,
    /// The figure caption.
    pub caption: AttrValue,
    /// File name (without extension) of the PNG export.
    pub name: AttrValue,
    #[prop_or(AttrValue::Static("chart"))]
    pub testid: AttrValue,
    /// Number of data points drawn (exposed as `data-points` for tests and scripts).
    #[prop_or_default]
    pub points: Option<usize>,
    /// Extra controls in the figure's head (CSV export, ...).
    #[prop_or_default]
    pub controls: Html,
    /// Shown between the head and the canvas (a progress bar).
    #[prop_or_default]
    pub children: Html,
}

#[function_component(Chart)]
pub fn chart(props: &ChartProps) -> Html {
    let canvas_ref = use_node_ref();
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with((props.data.clone(), props.dark), move |(data, dark)| {
            if let Some(backend) = canvas_ref.cast::<HtmlCanvasElement>().and_then(CanvasBackend::with_canvas_object) {
                data.0.draw(&backend.into_drawing_area(), &Theme::for_dark(*dark));
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
    html! {
        <figure class="chart card-flat">
            <div class="box-head">
                <figcaption>{ &props.caption }</figcaption>
                { props.controls.clone() }
                <button class="btn btn-small" type="button" onclick={on_png}
                    data-testid={format!("{}-png", props.testid)}>{"PNG"}</button>
            </div>
            { props.children.clone() }
            <canvas ref={canvas_ref} width={WIDTH_PX.to_string()} height={HEIGHT_PX.to_string()}
                data-testid={props.testid.clone()} data-points={props.points.map(|n| n.to_string())}
                role="img" aria-label={props.data.0.describe()} />
        </figure>
    }
}
