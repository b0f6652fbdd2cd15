//! What a chart drew, as boxes: every text's box (recorded by [`Recorder`], a backend that
//! wraps another), the plot area and the legend ([`ChartBoxes`], returned by each drawing
//! function). The unit tests check them on SVG; in the browser the chart component writes
//! them on the canvas (`data-layout`, CSS pixels) for the end-to-end tests, which check the
//! same things on the real fonts: no text over another, no text cut off by the canvas' edge,
//! and the legend off the plot ([`problems`]).

use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontTransform};
use std::cell::RefCell;
use std::rc::Rc;

/// An axis-aligned box, `x0 <= x1` and `y0 <= y1`, in the unit of whoever made it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    pub fn new(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
        Rect { x0: x0.min(x1), y0: y0.min(y1), x1: x0.max(x1), y1: y0.max(y1) }
    }

    /// The box of a pixel range as plotters gives it (`DrawingArea::get_pixel_range`).
    pub fn of_range((x, y): (std::ops::Range<i32>, std::ops::Range<i32>)) -> Rect {
        Rect::new(f64::from(x.start), f64::from(y.start), f64::from(x.end), f64::from(y.end))
    }

    pub fn union(&self, o: &Rect) -> Rect {
        Rect::new(self.x0.min(o.x0), self.y0.min(o.y0), self.x1.max(o.x1), self.y1.max(o.y1))
    }

    /// Whether the two boxes share more than `slack` in both directions.
    pub fn overlaps(&self, o: &Rect, slack: f64) -> bool {
        self.x0.max(o.x0) + slack < self.x1.min(o.x1) && self.y0.max(o.y0) + slack < self.y1.min(o.y1)
    }

    /// Whether the box lies inside `o`, give or take `slack`.
    pub fn inside(&self, o: &Rect, slack: f64) -> bool {
        self.x0 >= o.x0 - slack && self.y0 >= o.y0 - slack && self.x1 <= o.x1 + slack && self.y1 <= o.y1 + slack
    }

    pub fn scaled(&self, k: f64) -> Rect {
        Rect::new(self.x0 * k, self.y0 * k, self.x1 * k, self.y1 * k)
    }
}

/// A text as drawn, and its box.
#[derive(Debug, Clone, PartialEq)]
pub struct TextBox {
    pub text: String,
    pub rect: Rect,
}

/// Where a drawing function put its plot and its legend (device pixels of the backend), and
/// the data its plot spans (for a cursor drawn over the canvas at a point's place).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartBoxes {
    pub plot: Rect,
    pub legend: Option<Rect>,
    pub axes: Option<Axes>,
}

/// The data ranges of a plot's linear axes: x from `x.0` at the plot's left edge to `x.1` at
/// its right, y from `y.0` at its bottom to `y.1` at its top.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axes {
    pub x: (f64, f64),
    pub y: (f64, f64),
}

impl Axes {
    /// Where the data point `(x, y)` lies in `plot` (a box in any unit).
    pub fn place(&self, plot: &Rect, (x, y): (f64, f64)) -> (f64, f64) {
        let fx = if self.x.1 != self.x.0 { (x - self.x.0) / (self.x.1 - self.x.0) } else { 0.5 };
        let fy = if self.y.1 != self.y.0 { (y - self.y.0) / (self.y.1 - self.y.0) } else { 0.5 };
        (plot.x0 + fx * (plot.x1 - plot.x0), plot.y1 - fy * (plot.y1 - plot.y0))
    }
}

impl ChartBoxes {
    /// The boxes of an x-y chart as drawn: its plotting area, its axes' ranges, its legend.
    pub fn of_chart<DB: DrawingBackend>(chart: &super::XyChart<'_, DB>, legend: Option<Rect>) -> ChartBoxes {
        let (x, y) = (chart.x_range(), chart.y_range());
        ChartBoxes {
            plot: Rect::of_range(chart.plotting_area().get_pixel_range()),
            legend,
            axes: Some(Axes { x: (x.start, x.end), y: (y.start, y.end) }),
        }
    }
}

/// How a [`Recorder`] sizes a text's box: 1.2 × its font size tall, and as wide as…
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measure {
    /// As wide as the wrapped backend measures it (the canvas: the browser's own font).
    Backend,
    /// As wide as [`super::text::text_width`] says: for the SVG backend of the tests, whose
    /// own measure is a crude guess narrower than any real font.
    Estimate,
}

/// A backend that draws on `inner` and writes down the box of every text it draws.
pub struct Recorder<B> {
    inner: B,
    measure: Measure,
    texts: Rc<RefCell<Vec<TextBox>>>,
}

impl<B: DrawingBackend> Recorder<B> {
    /// Wraps `inner`; the boxes go to `texts` (shared: the drawing area takes the backend).
    pub fn new(inner: B, measure: Measure, texts: Rc<RefCell<Vec<TextBox>>>) -> Recorder<B> {
        Recorder { inner, measure, texts }
    }

    fn text_box<S: BackendTextStyle>(&self, text: &str, style: &S, (x, y): BackendCoord) -> Rect {
        // The height of the glyphs' line, not the backend's: plotters measures text in the
        // browser as a span in the page, whose line box follows the page's line-height (1.55).
        let h = 1.2 * style.size();
        let w = match self.measure {
            Measure::Backend => self.inner.estimate_text_size(text, style).map_or(0.0, |(w, _)| f64::from(w)),
            Measure::Estimate => super::text::text_width(text, style.size()),
        };
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -w / 2.0,
            HPos::Right => -w,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0.0,
            VPos::Center => -h / 2.0,
            VPos::Bottom => -h,
        };
        // The canvas turns the text about its anchor point (x, y).
        let corners = [(dx, dy), (dx + w, dy + h)].map(|(lx, ly)| match style.transform() {
            FontTransform::None => (lx, ly),
            FontTransform::Rotate90 => (-ly, lx),
            FontTransform::Rotate180 => (-lx, -ly),
            FontTransform::Rotate270 => (ly, -lx),
        });
        let (x, y) = (f64::from(x), f64::from(y));
        Rect::new(x + corners[0].0, y + corners[0].1, x + corners[1].0, y + corners[1].1)
    }
}

impl<B: DrawingBackend> DrawingBackend for Recorder<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }
    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        if !text.trim().is_empty() && style.color().alpha > 0.0 {
            let rect = self.text_box(text, style, pos);
            self.texts.borrow_mut().push(TextBox { text: text.to_string(), rect });
        }
        self.inner.draw_text(text, style, pos)
    }
    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<B::ErrorType>> {
        self.inner.estimate_text_size(text, style)
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<B::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }
}

/// What is wrong with a chart's layout on a canvas `size` big: texts over one another (by more
/// than a pixel each way), texts past the canvas' edge, a legend over the plot. Empty when
/// nothing is. The end-to-end test (e2e/tests/phone.test.mjs) checks the same on the canvas.
pub fn problems(size: (f64, f64), boxes: &ChartBoxes, texts: &[TextBox]) -> Vec<String> {
    let canvas = Rect::new(0.0, 0.0, size.0, size.1);
    let mut found = Vec::new();
    if let Some(legend) = boxes.legend.filter(|l| l.overlaps(&boxes.plot, 0.0)) {
        found.push(format!("legend {legend:?} over the plot {:?}", boxes.plot));
    }
    for (i, a) in texts.iter().enumerate() {
        if !a.rect.inside(&canvas, 1.0) {
            found.push(format!("'{}' {:?} past the canvas' edge", a.text, a.rect));
        }
        for b in &texts[i + 1..] {
            if a.rect.overlaps(&b.rect, 1.0) {
                found.push(format!("'{}' {:?} over '{}' {:?}", a.text, a.rect, b.text, b.rect));
            }
        }
    }
    found
}

/// Draws with `draw` on an SVG `size` big and returns the problems of its layout ([`problems`]).
#[cfg(test)]
pub(crate) fn layout_problems<F, E>(size: (u32, u32), px: f64, draw: F) -> Vec<String>
where
    F: FnOnce(
        &plotters::prelude::DrawingArea<Recorder<plotters::prelude::SVGBackend<'_>>, plotters::coord::Shift>,
        &super::Theme,
    ) -> Result<ChartBoxes, E>,
    E: std::fmt::Debug,
{
    use plotters::prelude::*;
    let texts = Rc::new(RefCell::new(Vec::new()));
    let mut svg = String::new();
    let boxes = {
        let backend = Recorder::new(SVGBackend::with_string(&mut svg, size), Measure::Estimate, texts.clone());
        draw(&backend.into_drawing_area(), &super::Theme::LIGHT.at_px(px)).expect("chart draws")
    };
    let texts = texts.borrow();
    problems((f64::from(size.0), f64::from(size.1)), &boxes, &texts)
}

#[cfg(test)]
mod tests {
    use super::Rect;
    use super::*;
    use plotters::prelude::*;
    use plotters::style::text_anchor::Pos;

    #[test]
    fn boxes_follow_the_anchor_and_the_rotation() {
        let texts = Rc::new(RefCell::new(Vec::new()));
        let mut svg = String::new();
        {
            let area = Recorder::new(SVGBackend::with_string(&mut svg, (200, 100)), Measure::Estimate, texts.clone())
                .into_drawing_area();
            let font = ("sans-serif", 10).into_font();
            area.draw(&Text::new("ab", (100, 50), font.clone().color(&BLACK).pos(Pos::new(HPos::Right, VPos::Top))))
                .unwrap();
            area.draw(&Text::new("ab", (20, 50), font.clone().transform(FontTransform::Rotate270))).unwrap();
            area.draw(&Text::new("  ", (0, 0), font)).unwrap();
        }
        let t = texts.borrow();
        assert_eq!(t.len(), 2, "blank texts are not recorded");
        let w = super::super::text::text_width("ab", 10.0);
        assert_eq!(t[0].rect, Rect::new(100.0 - w, 50.0, 100.0, 62.0));
        // Turned a quarter anticlockwise about its anchor: it runs upwards from (20, 50).
        assert_eq!(t[1].rect, Rect::new(20.0, 50.0 - w, 32.0, 50.0));
        assert!(svg.contains(">ab<") || svg.contains("ab"), "the SVG still gets the text");
    }

    #[test]
    fn problems_name_overlaps_overflow_and_a_legend_on_the_plot() {
        let boxes = ChartBoxes {
            plot: Rect::new(10.0, 10.0, 90.0, 60.0),
            legend: Some(Rect::new(50.0, 50.0, 80.0, 70.0)),
            axes: None,
        };
        let t = |s: &str, r| TextBox { text: s.into(), rect: r };
        let texts = [
            t("a", Rect::new(0.0, 0.0, 10.0, 10.0)),
            t("b", Rect::new(5.0, 5.0, 12.0, 12.0)),
            t("c", Rect::new(95.0, 0.0, 120.0, 5.0)),
        ];
        let p = problems((100.0, 80.0), &boxes, &texts);
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].starts_with("legend") && p[1].contains("'a'") && p[2].contains("'c'"), "{p:?}");
        let fine = ChartBoxes { legend: Some(Rect::new(10.0, 62.0, 80.0, 78.0)), ..boxes };
        assert!(problems((100.0, 80.0), &fine, &texts[..1]).is_empty());
    }

    #[test]
    fn axes_place_a_point_in_the_plot_y_up() {
        let axes = Axes { x: (1.0, 31.0), y: (0.0, 100.0) };
        let plot = Rect::new(40.0, 10.0, 340.0, 210.0);
        assert_eq!(axes.place(&plot, (1.0, 0.0)), (40.0, 210.0));
        assert_eq!(axes.place(&plot, (16.0, 50.0)), (190.0, 110.0));
        assert_eq!(axes.place(&plot, (31.0, 100.0)), (340.0, 10.0));
    }
}
