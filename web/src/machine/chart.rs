//! The "Your machine" page's overlays: a measurement's stream cells (one chart per number of
//! flows and frag order), each measured median with its min–max whisker beside the model's
//! prediction from the catalogue alone and after the fit, over the send size. Data from core's
//! `MachineReport` only (no model here); the legend has its own strip under the plot, so it
//! never covers a point.
//!
//! Generic over the plotters backend: the canvas in the browser, SVG in the tests.

use crate::charts::layout::{self, LegendEntry, Marker, Sizes, Swatch};
use crate::charts::record::ChartBoxes;
use crate::charts::summary::{Line, Lines};
use crate::charts::table::{num, DataTable};
use crate::charts::Theme;
use plotters::coord::Shift;
use plotters::prelude::*;
use skblab_core::machine::fit::{MachinePoint, MachineReport};

/// One measured cell and its two predictions.
#[derive(Debug, Clone, PartialEq)]
pub struct OverlayPoint {
    pub cell: String,
    pub kib: f64,
    pub measured: f64,
    pub min: f64,
    pub max: f64,
    pub catalogue: f64,
    pub error_catalogue_pct: f64,
    pub fitted: f64,
    pub error_pct: f64,
    pub used_for_fit: bool,
    pub verdict: String,
}

/// The cells of one number of flows and one frag order, by send size.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    pub flows: u32,
    pub order: u32,
    pub unit: String,
    pub points: Vec<OverlayPoint>,
}

/// "1 flow, order-3 frags": a cell's setting in words.
pub fn setting_text(p: &MachinePoint) -> String {
    let get = |k: &str| p.setting.get(k).copied();
    let mut parts = Vec::new();
    if let Some(f) = get("flows") {
        parts.push(format!("{f} flow{}", if f == 1.0 { "" } else { "s" }));
    }
    if let Some(b) = get("msg_bytes") {
        parts.push(format!("{} KiB sends", b / 1024.0));
    }
    if let Some(o) = get("order") {
        parts.push(format!("order-{o} frags"));
    }
    parts.join(", ")
}

/// The stream suite's overlays: order-3 before order-0, fewer flows first.
pub fn overlays(report: &MachineReport) -> Vec<Overlay> {
    let mut out: Vec<Overlay> = Vec::new();
    for p in report.points.iter().filter(|p| p.suite == "stream") {
        let get = |k: &str| p.setting.get(k).copied();
        let (Some(flows), Some(bytes)) = (get("flows"), get("msg_bytes")) else { continue };
        let (flows, order) = (flows.round() as u32, get("order").unwrap_or(3.0).round() as u32);
        let point = OverlayPoint {
            cell: p.cell.clone(),
            kib: bytes / 1024.0,
            measured: p.measured,
            min: p.measured_min,
            max: p.measured_max,
            catalogue: p.predicted_catalogue,
            error_catalogue_pct: p.error_catalogue_pct,
            fitted: p.predicted,
            error_pct: p.error_pct,
            used_for_fit: p.used_for_fit,
            verdict: p.verdict.clone(),
        };
        match out.iter_mut().find(|o| o.flows == flows && o.order == order) {
            Some(o) => o.points.push(point),
            None => out.push(Overlay { flows, order, unit: p.unit.clone(), points: vec![point] }),
        }
    }
    for o in &mut out {
        o.points.sort_by(|a, b| a.kib.total_cmp(&b.kib));
    }
    out.sort_by_key(|o| (std::cmp::Reverse(o.order), o.flows));
    out
}

impl Overlay {
    pub fn title(&self) -> String {
        let s = if self.flows == 1 { "" } else { "s" };
        let sysctl = if self.order == 0 { 1 } else { 0 };
        format!("{} flow{s}, order-{} frags (high_order_alloc_disable={sysctl})", self.flows, self.order)
    }

    /// One line per point: what the chart shows, for screen readers and as its tooltip.
    pub fn describe(&self) -> String {
        let lines: Vec<String> = self
            .points
            .iter()
            .map(|p| {
                format!(
                    "{} KiB: measured {:.0} {u} (min {:.0}, max {:.0}){}; catalogue {:.0} ({}); fitted {:.0} ({}): {}",
                    p.kib,
                    p.measured,
                    p.min,
                    p.max,
                    if p.used_for_fit { ", used for the fit" } else { "" },
                    p.catalogue,
                    pct_text(p.error_catalogue_pct),
                    p.fitted,
                    pct_text(p.error_pct),
                    p.verdict,
                    u = self.unit
                )
            })
            .collect();
        format!("{}, {} by send size. {}", self.title(), self.unit, lines.join(". "))
    }

    /// The lines as numbers (the summary and keyboard cursor), at the x the chart draws them:
    /// the send sizes in a row, 0, 1, 2, … (named).
    pub fn lines(&self) -> Lines {
        let line = |name: &str, pick: fn(&OverlayPoint) -> f64| {
            Line::new(name, self.points.iter().enumerate().map(|(i, p)| (i as f64, pick(p))))
        };
        let mut measured = line("measured (median)", |p| p.measured);
        measured.notes = self
            .points
            .iter()
            .map(|p| {
                let fit = if p.used_for_fit { ", used for the fit" } else { "" };
                format!("min {:.0}, max {:.0}{fit}", p.min, p.max)
            })
            .collect();
        Lines {
            x_label: "send size (KiB)".to_string(),
            y_label: self.unit.clone(),
            x_names: self.points.iter().map(|p| format!("{} KiB sends", p.kib)).collect(),
            lines: vec![measured, line("catalogue alone", |p| p.catalogue), line("after the fit", |p| p.fitted)],
        }
    }

    /// The numbers drawn (the chart's CSV).
    pub fn table(&self) -> DataTable {
        let u = &self.unit;
        let mut t = DataTable::new([
            "send size (KiB)".to_string(),
            format!("measured ({u})"),
            format!("measured min ({u})"),
            format!("measured max ({u})"),
            format!("catalogue ({u})"),
            "catalogue error (%)".to_string(),
            format!("fitted ({u})"),
            "fitted error (%)".to_string(),
            "used for fit".to_string(),
            "verdict".to_string(),
        ]);
        for p in &self.points {
            t.push([
                num(Some(p.kib)),
                num(Some(p.measured)),
                num(Some(p.min)),
                num(Some(p.max)),
                num(Some(p.catalogue)),
                num(Some(p.error_catalogue_pct)),
                num(Some(p.fitted)),
                num(Some(p.error_pct)),
                p.used_for_fit.to_string(),
                p.verdict.clone(),
            ]);
        }
        t
    }
}

/// "12k", "2.5k", "5k", "800".
fn y_tick(y: f64) -> String {
    let k = y / 1e3;
    if y.abs() >= 1e4 || (y.abs() >= 1e3 && (k - k.round()).abs() < 0.05) {
        format!("{k:.0}k")
    } else if y.abs() >= 1e3 {
        format!("{k:.1}k")
    } else {
        format!("{y:.0}")
    }
}

/// The legend's entries, each swatch drawn as the chart draws its points.
fn legend(theme: &Theme) -> Vec<LegendEntry> {
    let (mea, cat, fit) = (theme.series[0], theme.series[1], theme.line3);
    vec![
        LegendEntry::new("measured (median, min–max)", Swatch::Whisker(mea)),
        LegendEntry::new(
            "catalogue alone",
            Swatch::Line { color: cat, width: 2, dashed: true, marker: Some(Marker::Circle(cat)) },
        ),
        LegendEntry::new(
            "after the fit",
            Swatch::Line {
                color: fit,
                width: 2,
                dashed: false,
                marker: Some(Marker::Triangle { color: fit, filled: true }),
            },
        ),
        LegendEntry::new("cell the fit saw", Swatch::Marker(Marker::Ring(theme.text))),
    ]
}

/// The chart's height in CSS pixels when drawn `css_w` wide (its legend included).
pub fn height_css(css_w: f64) -> f64 {
    let legend = legend(&Theme::LIGHT);
    let labels: Vec<&str> = legend.iter().map(|e| e.label.as_str()).collect();
    layout::chart_height(css_w, None, &labels)
}

/// Draws `o` onto `area`: the plot above, the legend's strip below it (one row on a desktop,
/// an entry or two a row on a phone: [`layout`]).
pub fn draw_overlay<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    o: &Overlay,
    theme: &Theme,
) -> Result<ChartBoxes, DrawingAreaErrorKind<DB::ErrorType>> {
    area.fill(&theme.background)?;
    let sizes = Sizes::of(area, theme);
    let entries = legend(theme);
    let (plot_area, legend_area) = layout::split_legend(area, &entries, theme);
    let (cat, fit) = (theme.series[1], theme.line3);
    let n = o.points.len().max(1);
    let x_range = -0.5..(n as f64 - 0.5);
    let y_hi = o.points.iter().flat_map(|p| [p.max, p.catalogue, p.fitted]).fold(0.0f64, f64::max);
    // Core refuses measured values above MAX_VALUE; a prediction is capped there too, so the
    // axis (and plotters' ticks) stay finite whatever the file held.
    let cap = skblab_core::machine::file::MAX_VALUE;
    let y_hi = if y_hi.is_finite() && y_hi > 0.0 { y_hi.min(cap) * 1.1 } else { 1.0 };
    let text = |size: u32| ("sans-serif", theme.si(size as i32)).into_font().color(&theme.text);
    let y_area = sizes.y_label_area(&y_tick(y_hi));
    let plot_h = sizes.plot_h(f64::from(plot_area.dim_in_pixel().1) / theme.px);
    let mut chart = ChartBuilder::on(&plot_area)
        .margin(theme.s(sizes.margin))
        .margin_right(theme.s(16))
        .x_label_area_size(theme.s(sizes.x_label_area))
        .y_label_area_size(theme.s(y_area))
        .build_cartesian_2d(x_range, 0.0..y_hi)?;
    let kib: Vec<f64> = o.points.iter().map(|p| p.kib).collect();
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.5))
        .bold_line_style(theme.grid)
        .axis_style(theme.text.mix(0.6))
        .x_desc("send size (KiB)")
        .y_desc(o.unit.as_str())
        .label_style(text(sizes.text))
        .axis_desc_style(text(sizes.desc_font(&o.unit, plot_h)))
        .x_labels(2 * n + 1)
        .y_labels(sizes.y_ticks(plot_h).min(6))
        .x_label_formatter(&|x| {
            let i = x.round();
            match kib.get(i as usize) {
                Some(k) if (x - i).abs() < 1e-6 && i >= 0.0 => format!("{k}"),
                _ => String::new(),
            }
        })
        .y_label_formatter(&|y| y_tick(*y))
        .draw()?;
    let at = |i: usize, y: f64| (i as f64, y);
    let (stroke, r) = (theme.s(2), theme.si(4));
    let line =
        |pick: fn(&OverlayPoint) -> f64| o.points.iter().enumerate().map(|(i, p)| at(i, pick(p))).collect::<Vec<_>>();
    chart.draw_series(DashedLineSeries::new(
        line(|p| p.catalogue),
        theme.s(5),
        theme.s(3),
        cat.stroke_width(stroke),
    ))?;
    chart.draw_series(line(|p| p.catalogue).into_iter().map(|q| Circle::new(q, r, cat.stroke_width(stroke))))?;
    chart.draw_series(LineSeries::new(line(|p| p.fitted), fit.stroke_width(stroke)))?;
    chart.draw_series(line(|p| p.fitted).into_iter().map(|q| TriangleMarker::new(q, r + 1, fit.filled())))?;
    draw_measured(&mut chart, o, theme)?;
    let legend = layout::draw_legend(&legend_area, &entries, theme)?;
    area.present()?;
    Ok(ChartBoxes::of_chart(&chart, legend))
}

/// The measured medians with their min–max whiskers, a ring around the cells the fit saw.
fn draw_measured<DB: DrawingBackend>(
    chart: &mut crate::charts::XyChart<'_, DB>,
    o: &Overlay,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (mea, r, cap) = (theme.series[0], theme.si(4), 0.06);
    let whisker = mea.stroke_width(theme.s(2));
    for (i, p) in o.points.iter().enumerate() {
        let x = i as f64;
        chart.draw_series([
            PathElement::new(vec![(x, p.min), (x, p.max)], whisker),
            PathElement::new(vec![(x - cap, p.min), (x + cap, p.min)], whisker),
            PathElement::new(vec![(x - cap, p.max), (x + cap, p.max)], whisker),
        ])?;
        chart.draw_series(std::iter::once(Circle::new((x, p.measured), r, mea.filled())))?;
        if p.used_for_fit {
            chart.draw_series(std::iter::once(Circle::new(
                (x, p.measured),
                r + theme.si(4),
                theme.text.stroke_width(1),
            )))?;
        }
    }
    Ok(())
}

/// An error in percent, or "n/a" where there is none (a measured zero has no percentage).
pub fn pct_text(e: f64) -> String {
    if e.is_finite() {
        format!("{e:+.1} %")
    } else {
        "n/a".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn point(flows: f64, bytes: f64, order: f64, measured: f64) -> MachinePoint {
        let setting: BTreeMap<String, f64> = [("flows", flows), ("msg_bytes", bytes), ("order", order)]
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        MachinePoint {
            suite: "stream".into(),
            cell: format!("tcp-{flows}flow-{bytes}-order{order}"),
            unit: "Mbit/s".into(),
            measured,
            measured_min: measured * 0.9,
            measured_max: measured * 1.1,
            predicted: measured * 1.4,
            error_pct: 40.0,
            predicted_catalogue: measured * 2.0,
            error_catalogue_pct: 100.0,
            used_for_fit: flows == 1.0 && bytes == 65536.0,
            contaminated: false,
            verdict: "misses".into(),
            setting,
        }
    }

    fn report() -> MachineReport {
        let mut points = vec![];
        for order in [0.0, 3.0] {
            for flows in [2.0, 1.0] {
                for bytes in [65536.0, 4096.0, 16384.0] {
                    points.push(point(flows, bytes, order, 9000.0 + bytes / 100.0));
                }
            }
        }
        let mut layout = point(1.0, 4096.0, 3.0, 224.0);
        layout.suite = "layout".into();
        points.push(layout);
        MachineReport {
            machine: "m".into(),
            kernel: "6.18".into(),
            profile: "p".into(),
            fitted: vec![],
            points,
            not_predicted: vec![],
            notes: vec![],
        }
    }

    #[test]
    fn groups_by_order_then_flows_and_sorts_by_send_size() {
        let o = overlays(&report());
        let keys: Vec<(u32, u32)> = o.iter().map(|o| (o.order, o.flows)).collect();
        assert_eq!(keys, [(3, 1), (3, 2), (0, 1), (0, 2)]);
        assert_eq!(o[0].points.iter().map(|p| p.kib).collect::<Vec<_>>(), [4.0, 16.0, 64.0]);
        assert!(o[0].points[2].used_for_fit && !o[1].points[2].used_for_fit);
        assert_eq!(o[0].title(), "1 flow, order-3 frags (high_order_alloc_disable=0)");
        assert_eq!(o[3].title(), "2 flows, order-0 frags (high_order_alloc_disable=1)");
        let d = o[0].describe();
        assert!(
            d.contains("64 KiB: measured 9655 Mbit/s") && d.contains("used for the fit") && d.contains("misses"),
            "{d}"
        );
        let csv = o[0].table().to_csv();
        assert!(csv.starts_with("send size (KiB),measured (Mbit/s),"), "{csv}");
        assert_eq!(csv.lines().count(), 4);
        assert_eq!(setting_text(&report().points[0]), "2 flows, 64 KiB sends, order-0 frags");
    }

    #[test]
    fn draws_at_phone_and_desktop_width_with_the_legend_below() {
        let o = overlays(&report()).remove(0);
        for size in [(720, 400), (340, 260)] {
            let svg = crate::charts::render_svg(size, |area, theme| draw_overlay(area, &o, theme));
            let svg: String = svg.split_whitespace().collect();
            for word in ["measured(median,min–max)", "cataloguealone", "afterthefit", "sendsize(KiB)", ">64<", ">5k<"]
            {
                assert!(svg.contains(word), "{size:?}: missing {word}");
            }
        }
        // On a phone the legend takes several rows under the plot, no label runs into another
        // and none is cut off; on a desktop it is one row.
        for (css_w, px) in [(300.0, 2.0), (340.0, 1.0), (720.0, 1.0)] {
            let size = ((css_w * px) as u32, (height_css(css_w) * px) as u32);
            let found = crate::charts::record::layout_problems(size, px, |a, t| draw_overlay(a, &o, t));
            assert!(found.is_empty(), "{css_w} CSS px at {px}x: {found:#?}");
        }
        assert!(height_css(340.0) > height_css(720.0) - 400.0 + 260.0, "more legend rows on a phone");
        let empty = Overlay { flows: 1, order: 3, unit: "Mbit/s".into(), points: vec![] };
        assert!(crate::charts::render_svg((340, 260), |a, t| draw_overlay(a, &empty, t)).starts_with("<svg"));
    }
}
