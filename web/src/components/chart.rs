//! The app's one canvas chart component: a `<canvas>` bound to any drawing function through
//! plotters' `CanvasBackend`, redrawn whenever the data or the colour scheme changes, with
//! CSV and PNG exports and what a screen reader needs: a text alternative, a one-sentence
//! summary of the trend ([`crate::charts::summary`]), the data as a table (folded under
//! "Data table", built when opened), and a keyboard cursor over the points — the canvas'
//! frame is focusable; ← / → move along a line, ↑ / ↓ to the line above or below, Home / End
//! to its ends, Page Up / Down by a tenth; a live region says "x, line, value with unit" and a
//! ring marks the point over the canvas. All of it lives inside the chart's `<figure>`, so a
//! view veiled by an open question (the player, pages/player/) veils it too.
//!
//! A chart's data implements [`Drawing`] (the line chart of [`crate::charts::sweep`] does, and
//! so may a custom view's chart); the component holds no chart logic. The canvas is as tall as
//! the drawing asks for its width ([`Drawing::height_css`]: a phone's legend takes more rows),
//! and says where its plot, legend and texts went in `data-layout` (CSS pixels, JSON: `w`, `h`,
//! `plot` and `legend` as `[x0, y0, x1, y1]`, `texts` as `[x0, y0, x1, y1, text]`), which the
//! end-to-end tests check on the browser's real fonts.

use crate::browser;
use crate::charts::record::{Axes, ChartBoxes, Measure, Recorder, Rect, TextBox};
use crate::charts::summary::{summarize, Cursor, Key, Lines};
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
        "axes": boxes.axes.map(|a| [a.x.0, a.x.1, a.y.0, a.y.1]),
        "texts": texts,
    })
    .to_string()
}

/// Where the plot of a drawn chart is on its canvas (CSS pixels) and the data it spans.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Geometry {
    plot: Rect,
    axes: Axes,
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
    /// The lines drawn, as numbers: the summary of the trend and the keyboard cursor read
    /// them. Required, so that no chart ships without them.
    fn lines(&self) -> Lines;
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
    fn lines(&self) -> Lines {
        Sweep::lines(self)
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
    fn lines(&self) -> Lines {
        crate::charts::plot::lines(self)
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

/// Draws `data` on the canvas whenever it, the theme or the window's width changes, writes
/// `data-layout` and hands where the plot went to `geometry`.
#[hook]
fn use_drawn(
    canvas_ref: NodeRef,
    data: ChartData,
    dark: bool,
    geometry: yew::functional::UseStateSetter<Option<Geometry>>,
) {
    let resized = use_resize_generation();
    use_effect_with((data, dark, resized), move |(data, dark, _)| {
        let Some(canvas) = canvas_ref.cast::<HtmlCanvasElement>() else { return };
        let px = fit_backing_store(&canvas, &*data.0);
        let texts = Rc::new(RefCell::new(Vec::new()));
        let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) else { return };
        let area = Recorder::new(backend, Measure::Backend, texts.clone()).into_drawing_area();
        if let Some(boxes) = data.0.draw(&area, &Theme::for_dark(*dark).at_px(px)) {
            let _ = canvas.set_attribute("data-layout", &layout_json(&canvas, px, &boxes, &texts.borrow()));
            geometry.set(boxes.axes.map(|axes| Geometry { plot: boxes.plot.scaled(1.0 / px), axes }));
        }
    });
}

/// A new id for a chart's summary (`aria-describedby`), unique on the page.
fn next_id() -> String {
    thread_local! {
        static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    NEXT.with(|n| {
        n.set(n.get() + 1);
        format!("chart-summary-{}", n.get())
    })
}

/// The keys of the chart's frame: move the cursor, say where it is; they go no further (the
/// page's ← / → change the lesson's step).
fn on_cursor_keys(
    lines: Rc<Lines>,
    cursor: UseStateHandle<Option<Cursor>>,
    spoken: UseStateHandle<String>,
) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        if e.alt_key() || e.ctrl_key() || e.meta_key() {
            return;
        }
        let Some(key) = Key::of(&e.key()) else { return };
        e.prevent_default();
        e.stop_propagation();
        if let Some(c) = lines.moved(*cursor, key) {
            cursor.set(Some(c));
            spoken.set(lines.announce(c).unwrap_or_default());
        }
    })
}

/// The cursor over the canvas: a line across the plot at the point's x and a ring on it.
fn cursor_marks(geometry: Option<Geometry>, lines: &Lines, cursor: Option<Cursor>, testid: &str) -> Html {
    let Some((g, c)) = geometry.zip(cursor) else { return Html::default() };
    let Some(point) = lines.point(c) else { return Html::default() };
    let (x, y) = g.axes.place(&g.plot, point);
    let (x, y) = (x.clamp(g.plot.x0, g.plot.x1), y.clamp(g.plot.y0, g.plot.y1));
    let line = format!("left: {x:.1}px; top: {:.1}px; height: {:.1}px", g.plot.y0, g.plot.y1 - g.plot.y0);
    html! {
        <>
            <div class="chart-cursor-line" aria-hidden="true" style={line}></div>
            <div class="chart-cursor-dot" aria-hidden="true" style={format!("left: {x:.1}px; top: {y:.1}px")}
                data-testid={format!("{testid}-cursor")} data-line={c.line.to_string()}
                data-point={c.point.to_string()}></div>
        </>
    }
}

#[derive(Properties, PartialEq)]
struct TableProps {
    data: ChartData,
    caption: AttrValue,
    testid: AttrValue,
}

/// The chart's numbers as a table (the rows of its CSV), folded; built only while open (a
/// chart may draw a thousand points).
#[function_component(ChartTable)]
fn chart_table(props: &TableProps) -> Html {
    let open = use_state_eq(|| false);
    let toggle = {
        let open = open.clone();
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            open.set(!*open);
        })
    };
    let table = (*open).then(|| props.data.0.table());
    html! {
        <details class="chart-data" open={*open}>
            <summary onclick={toggle} data-testid={format!("{}-table-toggle", props.testid)}>{"Data table"}</summary>
            if let Some(t) = table {
                <div class="table-scroll" tabindex="0" role="group" aria-label={format!("{}: data table", props.caption)}>
                    <table class="results chart-table" data-testid={format!("{}-table", props.testid)}>
                        <caption class="visually-hidden">{ format!("{}: the numbers drawn", props.caption) }</caption>
                        <thead><tr>{ for t.columns.iter().map(|c| html! { <th scope="col">{ c.clone() }</th> }) }</tr></thead>
                        <tbody>
                            { for t.rows.iter().map(|row| html! {
                                <tr>{ for row.iter().enumerate().map(|(i, cell)| if i == 0 {
                                    html! { <th scope="row" class="num">{ cell.clone() }</th> }
                                } else {
                                    html! { <td class="num">{ cell.clone() }</td> }
                                }) }</tr>
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </details>
    }
}

#[function_component(Chart)]
pub fn chart(props: &ChartProps) -> Html {
    let canvas_ref = use_node_ref();
    let geometry = use_state_eq(|| None::<Geometry>);
    use_drawn(canvas_ref.clone(), props.data.clone(), props.dark, geometry.setter());
    let words = use_memo(props.data.clone(), |d| {
        let lines = Rc::new(d.0.lines());
        let summary = summarize(&lines);
        (lines, summary)
    });
    let (lines, summary) = (words.0.clone(), words.1.clone());
    let summary_id = use_state(next_id);
    let cursor = use_state_eq(|| None::<Cursor>);
    let spoken = use_state_eq(String::new);
    let on_keys = on_cursor_keys(lines.clone(), cursor.clone(), spoken.clone());
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
    let testid = props.testid.as_str();
    let keys_label = format!(
        "{}: chart. Arrow keys move along its points (left, right) and between its lines (up, down); Home and End go to a line's ends.",
        props.caption
    );
    html! {
        <figure class="chart card-flat">
            <div class="box-head">
                <figcaption>{ &props.caption }</figcaption>
                <button class="btn btn-small" type="button" onclick={on_csv}
                    data-testid={format!("{testid}-csv")}>{"CSV"}</button>
                <button class="btn btn-small" type="button" onclick={on_png}
                    data-testid={format!("{testid}-png")}>{"PNG"}</button>
            </div>
            { props.children.clone() }
            <div class="chart-frame" tabindex="0" role="application" aria-label={keys_label}
                aria-describedby={(*summary_id).clone()} onkeydown={on_keys} data-testid={format!("{testid}-frame")}>
                <canvas ref={canvas_ref} width={WIDTH_PX.to_string()} height={HEIGHT_PX.to_string()}
                    data-testid={props.testid.clone()} data-points={props.points.map(|n| n.to_string())}
                    role="img" aria-label={props.data.0.describe()} />
                { cursor_marks(*geometry, &lines, *cursor, testid) }
            </div>
            <div class="chart-text">
                <p class="chart-readout" aria-live="polite" aria-atomic="true"
                    data-testid={format!("{testid}-live")}>{ (*spoken).clone() }</p>
                <p class="chart-summary" id={(*summary_id).clone()} data-testid={format!("{testid}-summary")}>
                    { summary }
                </p>
                <ChartTable data={props.data.clone()} caption={props.caption.clone()} testid={props.testid.clone()} />
            </div>
        </figure>
    }
}
