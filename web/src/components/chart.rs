//! The app's one canvas chart component: a `<canvas>` bound to any drawing function through
//! plotters' `CanvasBackend`, redrawn whenever the data or the colour scheme changes, with
//! CSV and PNG exports and a text alternative.
//!
//! A chart's data implements [`Drawing`] (the line chart of [`crate::charts::sweep`] does, and
//! so may a custom view's chart); the component holds no chart logic. The canvas is as tall as
//! the drawing asks for its width ([`Drawing::height_css`]: a phone's legend takes more rows),
//! and says where its plot, legend and texts went in `data-layout` (CSS pixels, JSON: `w`, `h`,
//! `plot` and `legend` as `[x0, y0, x1, y1]`, `texts` as `[x0, y0, x1, y1, text]`), which the
//! end-to-end tests check on the browser's real fonts.

use crate::browser;
use crate::charts::record::{ChartBoxes, Measure, Recorder, Rect, TextBox};
use crate::charts::sweep::{draw_sweep, Sweep};
use crate::charts::table::DataTable;
use crate::charts::Theme;
use crate::components::export::download_csv;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// Canvas size in CSS pixels before the first layout (and outside a browser).
const WIDTH_PX: u32 = 720;
const HEIGHT_PX: u32 = 400;

/// What a chart draws on: the canvas, through a backend that records every text's box.
pub type CanvasArea = DrawingArea<Recorder<CanvasBackend>, Shift>;

/// Gives the canvas a backing store of its laid-out CSS width × devicePixelRatio, as tall as
/// `data` asks for that width (sharp on high-DPI screens, text in CSS pixels on narrow ones);
/// the device pixels per CSS pixel.
fn fit_backing_store(canvas: &HtmlCanvasElement, data: &dyn Drawing) -> f64 {
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(1.0, 4.0);
    let css_w = f64::from(canvas.client_width());
    let css_w = if css_w > 0.0 { css_w } else { f64::from(WIDTH_PX) };
    let css_h = data.height_css(css_w);
    let css_h = if css_h.is_finite() && css_h > 0.0 { css_h.min(4.0 * css_w) } else { f64::from(HEIGHT_PX) };
    let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    dpr
}

/// The `data-layout` JSON of a drawn chart (see the module doc), in CSS pixels.
fn layout_json(canvas: &HtmlCanvasElement, px: f64, boxes: &ChartBoxes, texts: &[TextBox]) -> String {
    let r = |b: &Rect| {
        let b = b.scaled(1.0 / px);
        [b.x0, b.y0, b.x1, b.y1].map(|v| (v * 10.0).round() / 10.0)
    };
    let texts: Vec<serde_json::Value> = texts
        .iter()
        .map(|t| {
            let [x0, y0, x1, y1] = r(&t.rect);
            serde_json::json!([x0, y0, x1, y1, t.text])
        })
        .collect();
    serde_json::json!({
        "w": f64::from(canvas.width()) / px,
        "h": f64::from(canvas.height()) / px,
        "plot": r(&boxes.plot),
        "legend": boxes.legend.as_ref().map(r),
        "texts": texts,
    })
    .to_string()
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
    /// Draws onto the canvas; where the plot and the legend went. A drawing error leaves the
    /// previous frame (not worth a panic): `None`.
    fn draw(&self, area: &CanvasArea, theme: &Theme) -> Option<ChartBoxes>;
    /// The drawing's height in CSS pixels when it is `css_w` wide: the plot's own 5:9 and what
    /// its title and legend take at that width ([`crate::charts::layout::chart_height`]).
    fn height_css(&self, css_w: f64) -> f64;
    /// The text alternative (aria-label).
    fn describe(&self) -> String;
    /// The numbers drawn, as a table: the chart's "CSV" export. Required, so that no chart
    /// (a custom view's included) ships without its data.
    fn table(&self) -> DataTable;
}

impl Drawing for Sweep {
    fn draw(&self, area: &CanvasArea, theme: &Theme) -> Option<ChartBoxes> {
        draw_sweep(area, self, theme).ok()
    }
    fn height_css(&self, css_w: f64) -> f64 {
        crate::charts::sweep::height_css(self, css_w)
    }
    fn describe(&self) -> String {
        Sweep::describe(self)
    }
    fn table(&self) -> DataTable {
        Sweep::table(self)
    }
}

impl Drawing for skblab_core::Plot {
    fn draw(&self, area: &CanvasArea, theme: &Theme) -> Option<ChartBoxes> {
        crate::charts::plot::draw_plot(area, self, theme).ok()
    }
    fn height_css(&self, css_w: f64) -> f64 {
        crate::charts::plot::height_css(self, css_w)
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
            let px = fit_backing_store(&canvas, &*data.0);
            let texts = Rc::new(RefCell::new(Vec::new()));
            let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else { return };
            let area = Recorder::new(backend, Measure::Backend, texts.clone()).into_drawing_area();
            if let Some(boxes) = data.0.draw(&area, &Theme::for_dark(*dark).at_px(px)) {
                let _ = canvas.set_attribute("data-layout", &layout_json(&canvas, px, &boxes, &texts.borrow()));
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
