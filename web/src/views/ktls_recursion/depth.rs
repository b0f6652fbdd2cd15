//! The ktls-recursion chart: peak kernel stack against the TCP skbs received (under the seed's
//! strparser with the rx cache, one frag_list nesting level each), one line per
//! fix, with THREAD_SIZE drawn across and every overflowing point marked; with a run pinned as
//! A ("compare two runs"), A's lines dashed beside them.
//!
//! The numbers come from core (its view data "chart", [`StackVsDepth`]); this module only
//! lays them out. Generic over the plotters backend: the canvas in the browser, SVG in the tests.

use crate::charts::layout::{self, LegendEntry, Marker, Sizes, Swatch};
use crate::charts::record::ChartBoxes;
use crate::charts::{shade, xy_chart, Axes, Theme, XyChart};
use plotters::coord::Shift;
use plotters::prelude::*;
pub use skblab_core::experiments::ktls_recursion::StackVsDepth;
use skblab_core::experiments::ktls_recursion::{DepthPoint, FixSeries};

/// What the chart draws: the run's chart (B) and, with a run pinned as A, A's beside it, the
/// way the app's generic charts draw a pinned run (`Sweep::pin`, `plot::with_pinned`): A's
/// lines dashed, a shade off B's colours, every line named "… (A)" or "… (B)" in the legend,
/// the text alternative, the table and the cursor. A's THREAD_SIZE lines are drawn where they
/// differ from B's (another stack size moves where A overflows).
#[derive(Debug, Clone, PartialEq)]
pub struct StackChart {
    pub run: StackVsDepth,
    pub pinned: Option<StackVsDepth>,
}

impl StackChart {
    /// The chart of `run`, beside the pinned run's chart `pinned` if any (each fix renamed
    /// "fix (B)" and "fix (A)").
    pub fn new(mut run: StackVsDepth, pinned: Option<StackVsDepth>) -> StackChart {
        let pinned = pinned.map(|mut a| {
            for s in &mut run.series {
                s.fix = format!("{} (B)", s.fix);
            }
            for s in &mut a.series {
                s.fix = format!("{} (A)", s.fix);
            }
            a
        });
        StackChart { run, pinned }
    }

    /// Every line: B's fixes, then A's (with whether the line is A's), in drawing order.
    pub fn all_series(&self) -> impl Iterator<Item = (usize, &FixSeries, bool)> {
        let b = self.run.series.iter().enumerate().map(|(i, s)| (i, s, false));
        b.chain(self.pinned.iter().flat_map(|a| a.series.iter().enumerate().map(|(i, s)| (i, s, true))))
    }

    /// A's THREAD_SIZE, where it is not B's.
    pub fn pinned_thread_size(&self) -> Option<u64> {
        self.pinned.as_ref().map(|a| a.thread_size_bytes).filter(|t| *t != self.run.thread_size_bytes)
    }
}

/// The deepest depth on the axis (at least 1).
fn depth_max(data: &StackChart) -> u32 {
    let d = data.all_series().flat_map(|(_, s, _)| s.points.iter().map(|p| p.tcp_skbs)).max().unwrap_or(0);
    d.max(1)
}

/// The top of the byte axis: the highest point or THREAD_SIZE, A's included (at least 1).
fn bytes_max(data: &StackChart) -> u64 {
    let top = data.all_series().flat_map(|(_, s, _)| s.points.iter().map(|p| p.stack_used_bytes_max)).max();
    let limit = data.run.thread_size_bytes.max(data.pinned_thread_size().unwrap_or(0));
    top.unwrap_or(0).max(limit).max(1)
}

/// Five colours, one per fix, readable on the theme's background.
fn fix_color(theme: &Theme, i: usize) -> RGBColor {
    let extra = if theme.background.0 > 128 {
        [RGBColor(28, 140, 84), RGBColor(150, 70, 180)]
    } else {
        [RGBColor(92, 201, 140), RGBColor(196, 140, 230)]
    };
    match i {
        0 => theme.marker,
        1 => theme.series[0],
        2 => extra[0],
        3 => theme.series[1],
        _ => extra[1],
    }
}

/// The colour of fix `i`'s line: A's a shade toward the text colour (as the generic charts).
fn line_color(theme: &Theme, i: usize, pinned: bool) -> RGBColor {
    let c = fix_color(theme, i);
    if pinned {
        shade(c, theme.text, 0.35)
    } else {
        c
    }
}

/// Line widths per fix, in CSS pixels: the three fixes that stay flat overlap, so they are drawn
/// as nested stripes (wide under narrow) instead of hiding each other.
const WIDTHS: [u32; 5] = [2, 7, 4, 2, 2];
const TITLE: &str = "Peak kernel stack vs. TCP skbs received";

/// The legend: one line per fix (B's, then A's dashed), the THREAD_SIZE lines (A's too where
/// they differ), the overflow mark.
fn legend(data: &StackChart, theme: &Theme) -> Vec<LegendEntry> {
    let mut out: Vec<LegendEntry> = data
        .all_series()
        .map(|(i, s, a)| {
            let width = if a { 2 } else { 4 };
            LegendEntry::new(
                s.fix.as_str(),
                Swatch::Line { color: line_color(theme, i, a), width, dashed: a, marker: None },
            )
        })
        .collect();
    let limit = Swatch::Line { color: theme.series[2], width: 2, dashed: true, marker: None };
    out.push(LegendEntry::new(format!("THREAD_SIZE {} B and 2 × (bigger-stack)", data.run.thread_size_bytes), limit));
    if let Some(t) = data.pinned_thread_size() {
        let swatch =
            Swatch::Line { color: shade(theme.series[2], theme.text, 0.35), width: 1, dashed: true, marker: None };
        out.push(LegendEntry::new(format!("A's THREAD_SIZE {t} B and 2 ×"), swatch));
    }
    out.push(LegendEntry::new("overflow: walk stopped", Swatch::Marker(Marker::Cross(theme.text))));
    out
}

/// The chart's height in CSS pixels when drawn `css_w` wide (its title and legend included).
pub fn height_css(data: &StackChart, css_w: f64) -> f64 {
    let legend = legend(data, &Theme::LIGHT);
    let labels: Vec<&str> = legend.iter().map(|e| e.label.as_str()).collect();
    layout::chart_height(css_w, Some(TITLE), &labels)
}

/// Draws `data` onto `area`: the title, the plot, its legend in a strip under it (the lines
/// fill the whole plot, so a legend inside it would hide one).
pub fn draw_stack_vs_depth<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    data: &StackChart,
    theme: &Theme,
) -> Result<ChartBoxes, DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let sizes = Sizes::of(area, theme);
    let entries = legend(data, theme);
    let (plot, strip) = layout::split_legend(&layout::draw_title(area, TITLE, theme)?, &entries, theme);
    let (x_hi, y_hi) = (depth_max(data) as f64, bytes_max(data) as f64 * 1.08);
    let axes = Axes {
        x: (0.0, x_hi),
        y: (0.0, y_hi),
        desc: ("TCP skbs received before close()", "stack used, max (bytes)"),
        widest: (&sizes.tick(x_hi, 0), &sizes.tick(y_hi, 0)),
        most_labels: (10, usize::MAX),
        tick: (&|x| sizes.tick(*x, 0), &|y| sizes.tick(*y, 0)),
    };
    let (mut chart, _) = xy_chart(&plot, &sizes, &axes, theme)?;
    draw_lines(&mut chart, data, x_hi, theme)?;
    let legend = layout::draw_legend(&strip, &entries, theme)?;
    area.present()?;
    Ok(ChartBoxes::of_chart(&chart, legend))
}

/// The THREAD_SIZE lines (A's thinner, where they differ), every fix's line (B's as nested
/// stripes, A's dashed over them) and a cross on every overflowing point.
fn draw_lines<DB: DrawingBackend>(
    chart: &mut XyChart<'_, DB>,
    data: &StackChart,
    x_hi: f64,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let limits = [(data.run.thread_size_bytes, theme.series[2], 2)];
    let a_limit = data.pinned_thread_size().map(|t| (t, shade(theme.series[2], theme.text, 0.35), 1));
    for (thread_size, color, width) in limits.into_iter().chain(a_limit) {
        for bytes in [thread_size, 2 * thread_size] {
            let line = vec![(0.0, bytes as f64), (x_hi, bytes as f64)];
            chart.draw_series(DashedLineSeries::new(
                line,
                theme.s(6),
                theme.s(4),
                color.stroke_width(theme.s(width)),
            ))?;
        }
    }
    for (i, s, pinned) in data.all_series() {
        let color = line_color(theme, i, pinned);
        let points = s.points.iter().map(|p| (p.tcp_skbs as f64, p.stack_used_bytes_max as f64));
        if pinned {
            chart.draw_series(DashedLineSeries::new(points, theme.s(7), theme.s(5), color.stroke_width(theme.s(2))))?;
        } else {
            chart.draw_series(LineSeries::new(points, color.stroke_width(theme.s(WIDTHS[i % WIDTHS.len()]))))?;
        }
        let overflows = s.points.iter().filter(|p| p.overflow);
        let cross = |p: &DepthPoint| Cross::new((p.tcp_skbs as f64, p.stack_used_bytes_max as f64), theme.si(3), color);
        chart.draw_series(overflows.map(cross))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::ktls_recursion::{KtlsRecursion, FIXES};
    use skblab_core::Experiment;

    fn render_svg(data: &StackVsDepth) -> String {
        let chart = StackChart::new(data.clone(), None);
        crate::charts::render_svg((720, 400), |area, theme| draw_stack_vs_depth(area, &chart, theme))
    }

    #[test]
    fn draws_every_fix_the_limit_and_overflow_marks() {
        let data = StackVsDepth::of(&KtlsRecursion.defaults());
        assert_eq!(data.series.len(), FIXES.len());
        assert!(data.series[0].points.iter().any(|p| p.overflow), "fix none overflows somewhere on the axis");
        let svg = render_svg(&data);
        assert!(svg.starts_with("<svg"), "{svg}");
        for word in ["none", "strparser-unclone", "iterative-free", "bigger-stack", "THREAD_SIZE 16384"] {
            assert!(svg.contains(word), "missing {word}");
        }
        assert!(svg.matches("<polyline").count() >= FIXES.len(), "one line per fix");
    }

    #[test]
    fn at_phone_and_desktop_width_no_text_overlaps_and_the_legend_is_off_the_plot() {
        let data = StackChart::new(StackVsDepth::of(&KtlsRecursion.defaults()), None);
        for (css_w, px) in [(290.0, 2.0), (330.0, 1.0), (720.0, 1.0)] {
            let size = ((css_w * px) as u32, (height_css(&data, css_w) * px) as u32);
            let found = crate::charts::record::layout_problems(size, px, |a, t| draw_stack_vs_depth(a, &data, t));
            assert!(found.is_empty(), "{css_w} CSS px at {px}x: {found:#?}");
        }
    }

    #[test]
    fn a_pinned_run_is_drawn_dashed_beside_this_one_and_named_in_the_legend() {
        let b = KtlsRecursion.defaults();
        let mut a = b.clone();
        a.set("thread_size_bytes", skblab_core::Value::Int(8192)).unwrap();
        let chart = StackChart::new(StackVsDepth::of(&b), Some(StackVsDepth::of(&a)));
        let names: Vec<&str> = chart.all_series().map(|(_, s, _)| s.fix.as_str()).collect();
        assert_eq!(names.len(), 2 * FIXES.len());
        assert_eq!((names[0], names[FIXES.len()]), ("none (B)", "none (A)"));
        assert_eq!(chart.pinned_thread_size(), Some(8192));
        let svg = crate::charts::render_svg((720, 400), |area, theme| draw_stack_vs_depth(area, &chart, theme));
        for word in ["none (A)", "bigger-stack (B)", "A&apos;s THREAD_SIZE 8192 B"] {
            assert!(svg.contains(word) || svg.contains(&word.replace("&apos;", "'")), "missing {word}");
        }
        let alone = render_svg(&StackVsDepth::of(&b));
        assert!(svg.matches("<polyline").count() > alone.matches("<polyline").count() + FIXES.len(), "A dashed");
        for (css_w, px) in [(290.0, 2.0), (720.0, 1.0)] {
            let size = ((css_w * px) as u32, (height_css(&chart, css_w) * px) as u32);
            let found = crate::charts::record::layout_problems(size, px, |a, t| draw_stack_vs_depth(a, &chart, t));
            assert!(found.is_empty(), "{css_w} CSS px at {px}x: {found:#?}");
        }
        // The same stack size: no second pair of limits.
        let same = StackChart::new(StackVsDepth::of(&b), Some(StackVsDepth::of(&b)));
        assert_eq!(same.pinned_thread_size(), None);
    }

    #[test]
    fn empty_data_does_not_panic() {
        let data = StackVsDepth { thread_size_bytes: 0, tcp_rx_skb_cache: true, series: vec![] };
        assert!(render_svg(&data).starts_with("<svg"));
    }
}
