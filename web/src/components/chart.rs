//! The app's one canvas chart component: a `<canvas>` bound to any drawing function through
//! plotters' `CanvasBackend`, redrawn whenever the data or the colour scheme changes, with
//! CSV and PNG exports and a text alternative.
//!
//! A chart's data implements [`Drawing`] (the line chart of [`crate::charts::sweep`] does, and
//! so may a custom view's chart); the component holds no chart logic.

use crate::browser;
use crate::charts::sweep::{draw_sweep, Sweep};
use crate::charts::table::DataTable;
use crate::charts::Theme;
use crate::components::export::download_csv;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Canvas size in CSS pixels before the first layout (and outside a browser).
const WIDTH_PX: u32 = 720;
const HEIGHT_PX: u32 = 400;
/// The drawing's height for a width, in CSS pixels: 5:9, but never flatter than this minimum
/// (a phone-width chart keeps room for its labels).
const MIN_HEIGHT_PX: f64 = 260.0;

/// Gives the canvas a backing store of its laid-out CSS size × devicePixelRatio (sharp on
/// high-DPI screens, text in CSS pixels on narrow ones); the device pixels per CSS pixel.
fn fit_backing_store(canvas: &HtmlCanvasElement) -> f64 {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(1.0, 4.0);
    let css_w = f64::from(canvas.client_width());
    let css_w = if css_w > 0.0 { css_w } else { f64::from(WIDTH_PX) };
    let css_h = (css_w * f64::from(HEIGHT_PX) / f64::from(WIDTH_PX)).max(MIN_HEIGHT_PX);
    let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    dpr
}

/// A counter that grows when the window is resized (debounced by the browser's event rate).
#[hook]
fn use_resize_generation() -> u32 {
    let generation = use_state_eq(|| 0u32);
    {
        let generation = generation.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                let last = std::cell::Cell::new(w.inner_width().ok().and_then(|v| v.as_f64()).unwrap_or(0.0));
                gloo_events::EventListener::new(&w, "resize", move |_| {
                    // Only a width change re-lays the chart out (phones fire resize on scroll).
                    let width = web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64());
                    if let Some(width) = width.filter(|w| (*w - last.get()).abs() >= 1.0) {
                        last.set(width);
                        generation.set(*generation + 1);
                    }
                })
            });
            move || drop(listener)
        });
    }
    *generation
}

/// Chart data that can draw itself on a canvas.
pub trait Drawing {
    /// Draws onto the canvas; a drawing error leaves the previous frame (not worth a panic).
    fn draw(&self, area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme);
    /// The text alternative (aria-label).
    fn describe(&self) -> String;
    /// The numbers drawn, as a table: the chart's "CSV" export. Required, so that no chart
    /// (a custom view's included) ships without its data.
    fn table(&self) -> DataTable;
}

impl Drawing for Sweep {
    fn draw(&self, area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme) {
        let _ = draw_sweep(area, self, theme);
    }
    fn describe(&self) -> String {
        Sweep::describe(self)
    }
    fn table(&self) -> DataTable {
        Sweep::table(self)
    }
}

impl Drawing for skblab_core::Plot {
    fn draw(&self, area: &DrawingArea<CanvasBackend, Shift>, theme: &Theme) {
        let _ = crate::charts::plot::draw_plot(area, self, theme);
    }
    fn describe(&self) -> String {
        skblab_core::Plot::describe(self)
    }
    fn table(&self) -> DataTable {
        crate::charts::plot::table(self)
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
    /// File name (without extension) of the CSV and PNG exports.
    pub name: AttrValue,
    #[prop_or(AttrValue::Static("chart"))]
    pub testid: AttrValue,
    /// Number of data points drawn (exposed as `data-points` for tests and scripts).
    #[prop_or_default]
    pub points: Option<usize>,
    /// Shown between the head and the canvas (a progress bar).
    #[prop_or_default]
    pub children: Html,
}

#[function_component(Chart)]
pub fn chart(props: &ChartProps) -> Html {
    let canvas_ref = use_node_ref();
    let resized = use_resize_generation();
    {
        let canvas_ref = canvas_ref.clone();
        use_effect_with((props.data.clone(), props.dark, resized), move |(data, dark, _)| {
            let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else { return };
            let px = fit_backing_store(&canvas);
            if let Some(backend) = CanvasBackend::with_canvas_object(canvas) {
                data.0.draw(&backend.into_drawing_area(), &Theme::for_dark(*dark).at_px(px));
            }
        });
    }
    let on_csv = {
        let (data, name) = (props.data.clone(), props.name.clone());
        Callback::from(move |_| download_csv(&name, &data.0.table()))
    };
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
                <button class="btn btn-small" type="button" onclick={on_csv}
                    data-testid={format!("{}-csv", props.testid)}>{"CSV"}</button>
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
