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
