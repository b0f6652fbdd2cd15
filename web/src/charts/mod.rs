//! Chart drawing functions, generic over the plotters backend.
//!
//! Each chart is a data struct (filled from core's results by a view) and a function
//! `draw_x(area, data, theme)` that works on any `DrawingBackend`: the browser binds it to a
//! `<canvas>` through `CanvasBackend` (see [`crate::components::chart`]), the unit tests render
//! it to SVG and look at the result. No browser types here.

pub mod columns;
pub mod layout;
pub mod plot;
pub mod record;
pub mod summary;
pub mod sweep;
pub mod table;
pub mod text;

use plotters::style::RGBColor;

/// Colours of a chart, so that dark mode is a different theme, not different code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    pub background: RGBColor,
    pub text: RGBColor,
    pub grid: RGBColor,
    pub series: [RGBColor; 3],
    /// The third line of a chart (`series[2]` is for reference lines): a sweep of three
    /// columns must not draw two of them in one colour.
    pub line3: RGBColor,
    pub marker: RGBColor,
    /// Device pixels per CSS pixel of the surface drawn on: sizes (fonts, margins, strokes)
    /// are given in CSS pixels and multiplied by it, so text reads the same on every screen
    /// and stays sharp on high-DPI ones.
    pub px: f64,
}

impl Theme {
    pub const LIGHT: Theme = Theme {
        background: RGBColor(255, 255, 255),
        text: RGBColor(40, 44, 52),
        grid: RGBColor(225, 228, 234),
        series: [RGBColor(37, 99, 175), RGBColor(214, 120, 32), RGBColor(120, 120, 130)],
        line3: RGBColor(26, 133, 100),
        marker: RGBColor(190, 40, 60),
        px: 1.0,
    };
    pub const DARK: Theme = Theme {
        background: RGBColor(28, 31, 38),
        text: RGBColor(220, 224, 232),
        grid: RGBColor(58, 63, 74),
        series: [RGBColor(110, 168, 240), RGBColor(240, 160, 80), RGBColor(150, 150, 160)],
        line3: RGBColor(90, 200, 160),
        marker: RGBColor(240, 90, 110),
        px: 1.0,
    };

    /// The colour of a chart's `i`-th line (and its band and seed markers): three apart.
    pub fn line(&self, i: usize) -> RGBColor {
        [self.series[0], self.series[1], self.line3][i % 3]
    }

    pub fn for_dark(dark: bool) -> Theme {
        if dark {
            Theme::DARK
        } else {
            Theme::LIGHT
        }
    }

    /// The theme for a surface with `px` device pixels per CSS pixel.
    pub fn at_px(self, px: f64) -> Theme {
        Theme { px: if px.is_finite() && px > 0.0 { px } else { 1.0 }, ..self }
    }

    /// A size of `css` CSS pixels, in device pixels (fonts, markers, areas).
    pub fn s(&self, css: u32) -> u32 {
        (f64::from(css) * self.px).round().max(1.0) as u32
    }

    /// [`Theme::s`] for plotters' signed sizes.
    pub fn si(&self, css: i32) -> i32 {
        (f64::from(css) * self.px).round().max(1.0) as i32
    }
}

/// The x-y chart both line charts draw on.
pub(crate) type XyChart<'a, DB> = plotters::chart::ChartContext<
    'a,
    DB,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::types::RangedCoordf64,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// The axes of an x-y chart, as [`xy_chart`] lays them out: (x, y) pairs of ranges, axis
/// descriptions, widest tick labels (they size the margins), most tick labels and tick texts.
pub(crate) struct Axes<'a> {
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub desc: (&'a str, &'a str),
    pub widest: (&'a str, &'a str),
    pub most_labels: (usize, usize),
    pub tick: (Tick<'a>, Tick<'a>),
}

/// How an axis writes a tick's value.
pub(crate) type Tick<'a> = &'a dyn Fn(&f64) -> String;

/// The x-y chart on `plot_area` with its mesh drawn: the right margin and the y label area
/// fit the widest tick labels, the tick counts fit the plot's sides and the axis
/// descriptions shrink to fit them. Also returns the plot's height in CSS pixels.
pub(crate) fn xy_chart<'a, DB: plotters::prelude::DrawingBackend>(
    plot_area: &'a plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    sizes: &layout::Sizes,
    axes: &Axes<'_>,
    theme: &Theme,
) -> Result<(XyChart<'a, DB>, f64), plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    let y_area = sizes.y_label_area(axes.widest.1);
    let (w, h) = plot_area.dim_in_pixel();
    let margin_right = sizes.margin_right_for(axes.widest.0);
    let plot_w = f64::from(w) / theme.px - f64::from(sizes.margin + margin_right + y_area);
    let plot_h = sizes.plot_h(f64::from(h) / theme.px);
    let text = |size: u32| ("sans-serif", theme.si(size as i32)).into_font().color(&theme.text);
    let (x_desc, y_desc) = axes.desc;
    let mut chart = ChartBuilder::on(plot_area)
        .margin(theme.s(sizes.margin))
        .margin_right(theme.s(margin_right))
        .x_label_area_size(theme.s(sizes.x_label_area))
        .y_label_area_size(theme.s(y_area))
        .build_cartesian_2d(axes.x.0..axes.x.1, axes.y.0..axes.y.1)?;
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.5))
        .bold_line_style(theme.grid)
        .axis_style(theme.text.mix(0.6))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style(text(sizes.text))
        .axis_desc_style(text(sizes.desc_font(y_desc, plot_h).min(sizes.desc_font(x_desc, plot_w))))
        .x_labels(sizes.x_ticks(plot_w, axes.widest.0, axes.most_labels.0))
        .y_labels(sizes.y_ticks(plot_h).min(axes.most_labels.1))
        .x_label_formatter(axes.tick.0)
        .y_label_formatter(axes.tick.1)
        .draw()?;
    Ok((chart, plot_h))
}

/// A dashed horizontal line at `y` across `x` (a reference value or a limit; its legend entry
/// is [`layout::Swatch::Line`] dashed).
pub(crate) fn draw_hline<DB: plotters::prelude::DrawingBackend>(
    chart: &mut XyChart<'_, DB>,
    x: (f64, f64),
    y: f64,
    color: RGBColor,
    theme: &Theme,
) -> Result<(), plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    let stroke = color.stroke_width(theme.s(2));
    chart.draw_series(DashedLineSeries::new(vec![(x.0, y), (x.1, y)], theme.s(6), theme.s(4), stroke))?;
    Ok(())
}

/// `c` shaded a `f` of the way toward `to`. A pinned run A's lines are their colour shaded
/// 0.35 toward the theme's text (darker in light mode, lighter in dark), so that their dashes
/// show even where they lie on B's line.
pub(crate) fn shade(c: RGBColor, to: RGBColor, f: f64) -> RGBColor {
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    RGBColor(mix(c.0, to.0), mix(c.1, to.1), mix(c.2, to.2))
}

/// A shaded band (a spread or a bound) bounded by `outline` (its legend entry is
/// [`layout::Swatch::Band`]).
pub(crate) fn draw_band<DB: plotters::prelude::DrawingBackend>(
    chart: &mut XyChart<'_, DB>,
    outline: Vec<(f64, f64)>,
    color: RGBColor,
) -> Result<(), plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>> {
    use plotters::prelude::*;
    chart.draw_series(std::iter::once(Polygon::new(outline, color.mix(0.22).filled())))?;
    Ok(())
}

/// Renders a chart to an SVG string with the light theme (the native tests of every chart).
#[cfg(test)]
pub(crate) fn render_svg<F, T, E>(size: (u32, u32), draw: F) -> String
where
    F: FnOnce(
        &plotters::prelude::DrawingArea<plotters::prelude::SVGBackend<'_>, plotters::coord::Shift>,
        &Theme,
    ) -> Result<T, E>,
    E: std::fmt::Debug,
{
    use plotters::prelude::*;
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(&area, &Theme::LIGHT).expect("chart draws");
    }
    svg
}
