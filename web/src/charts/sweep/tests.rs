//! The sweep chart drawn to SVG: series, labels, marker, bands, the pinned run, its table and
//! its lines.

use super::*;

fn render_svg(data: &Sweep) -> String {
    crate::charts::render_svg((640, 360), |area, theme| draw_sweep(area, data, theme))
}

#[test]
fn draws_series_labels_and_marker() {
    let data = Sweep {
        caption: "test".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        xs: vec![0.0, 1.0, 2.0],
        series: vec![Series { name: "alpha".into(), ys: vec![1.0, 2.0, 4.0] }],
        hline: Some(("half".into(), 3.0)),
        marker_x: Some(1.0),
        overlays: vec![Overlay { name: "measured".into(), points: vec![(1.0, 2.5)] }],
        x_range: None,
        dots: true,
        bands: vec![Band { series: 0, lo: vec![0.5, 1.5, 3.0], hi: vec![1.5, 2.5, 5.0], model: false }],
        pinned: None,
    };
    let svg = render_svg(&data);
    assert!(svg.starts_with("<svg"), "{svg}");
    for word in ["alpha", "half", "test", "measured", "<polyline", "<circle", "<polygon", "min-max over the seeds"] {
        assert!(svg.contains(word), "missing {word} in {svg}");
    }
}

#[test]
fn its_table_holds_every_drawn_number() {
    let data = Sweep {
        caption: "t".into(),
        x_label: "flows".into(),
        y_label: "Gbit/s".into(),
        xs: vec![1.0, 2.0, 4.0],
        series: vec![Series { name: "order-3".into(), ys: vec![10.0, 20.5] }],
        hline: None,
        marker_x: None,
        overlays: vec![Overlay { name: "seed".into(), points: vec![(2.0, 19.0), (3.0, 30.0)] }],
        x_range: None,
        dots: false,
        bands: vec![Band { series: 0, lo: vec![9.0, 20.0], hi: vec![11.0, 21.0], model: false }],
        pinned: None,
    };
    assert_eq!(
        data.table().to_csv(),
        "flows,order-3 (Gbit/s),order-3 min (Gbit/s),order-3 max (Gbit/s),seed (Gbit/s)\n\
         1,10,9,11,\n2,20.5,20,21,19\n4,,,,\n3,,,,30\n",
        "a point not computed yet is an empty cell"
    );
}

#[test]
fn three_series_get_three_colours_and_a_small_axis_distinct_labels() {
    let data = Sweep {
        xs: vec![1.0, 2.0],
        series: ["a", "b", "c"].iter().map(|n| Series { name: n.to_string(), ys: vec![0.1, 0.3] }).collect(),
        ..Sweep::new("cpu", "CPUs", "% of all CPU time")
    };
    let svg = render_svg(&data);
    let t = crate::charts::Theme::LIGHT;
    let hex = |c: plotters::style::RGBColor| format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2);
    let colours: Vec<String> = (0..3).map(|i| hex(t.line(i))).collect();
    assert!(colours[0] != colours[2] && colours[1] != colours[2], "{colours:?}");
    for c in &colours {
        assert!(svg.contains(&format!("stroke=\"{c}\"")), "no line in {c}");
    }
    // y from 0 to 0.324: ticks 0.00, 0.05, 0.10 …, not 0 0 0 0.
    for label in ["0.10", "0.20", "0.30"] {
        assert!(svg.lines().any(|l| l.trim() == label), "no y label {label}");
    }
    assert!(data.describe().contains("a 0.30 at 2"), "{}", data.describe());
    assert_eq!(
        (y_decimals(600.0), y_decimals(5.0), y_decimals(4.0), y_decimals(1.0), y_decimals(0.3)),
        (0, 0, 1, 1, 2)
    );
}

/// A chart with everything a sweep can draw, on a wide x axis (MTU 68 to 9000).
fn busy() -> Sweep {
    let xs: Vec<f64> = (0..40).map(|i| 68.0 + f64::from(i) * 228.7).collect();
    let ys = |k: f64| xs.iter().map(|x| k * x / 3.0 + 100.0).collect::<Vec<_>>();
    let band = |k: f64, model| Band { series: 0, lo: ys(k * 0.9), hi: ys(k * 1.1), model };
    Sweep {
        xs: xs.clone(),
        series: vec![
            Series { name: "kmalloc object (bytes)".into(), ys: ys(2.0) },
            Series { name: "head requested (bytes)".into(), ys: ys(1.0) },
            Series { name: "order-3 frags (sim)".into(), ys: ys(0.5) },
        ],
        hline: Some(("half page (2048 B)".into(), 2048.0)),
        marker_x: Some(1500.0),
        overlays: vec![
            Overlay { name: "seed: order-3 frags".into(), points: vec![(1500.0, 900.0)] },
            Overlay { name: "seed: order-0 frags".into(), points: vec![(4000.0, 1900.0)] },
        ],
        bands: vec![band(2.0, false), band(1.0, true)],
        ..Sweep::new("Head buffer vs MTU, with a title long enough to wrap", "MTU (bytes)", "bytes")
    }
}

#[test]
fn at_phone_and_desktop_width_no_text_overlaps_and_the_legend_is_off_the_plot() {
    let data = busy();
    for (css_w, px) in [(290.0, 2.0), (330.0, 1.0), (500.0, 2.0), (720.0, 1.0), (1000.0, 2.0)] {
        let size = ((css_w * px) as u32, (height_css(&data, css_w) * px) as u32);
        let found = crate::charts::record::layout_problems(size, px, |a, t| draw_sweep(a, &data, t));
        assert!(found.is_empty(), "{css_w} CSS px at {px}x: {found:#?}");
    }
    assert!(height_css(&data, 290.0) > 260.0 + 100.0, "a phone's legend takes rows under the plot");
    // Long x labels (bytes pinned, up to 10000000): none runs past the right edge.
    let wide = Sweep { xs: data.xs.iter().map(|x| x * 1117.0).collect(), marker_x: None, overlays: vec![], ..busy() };
    for (css_w, px) in [(290.0, 2.0), (720.0, 1.0)] {
        let size = ((css_w * px) as u32, (height_css(&wide, css_w) * px) as u32);
        let found = crate::charts::record::layout_problems(size, px, |a, t| draw_sweep(a, &wide, t));
        assert!(found.is_empty(), "{css_w} CSS px at {px}x: {found:#?}");
    }
}

#[test]
fn its_lines_are_the_series_then_the_measured_points_and_read_as_one_sentence() {
    let data = busy();
    let lines = data.lines();
    let names: Vec<(&str, bool)> = lines.lines.iter().map(|l| (l.name.as_str(), l.measured)).collect();
    assert_eq!(
        names,
        [
            ("kmalloc object (bytes)", false),
            ("head requested (bytes)", false),
            ("order-3 frags (sim)", false),
            ("seed: order-3 frags", true),
            ("seed: order-0 frags", true)
        ]
    );
    assert_eq!(lines.lines[0].points.len(), 40);
    let summary = crate::charts::summary::summarize(&lines);
    assert!(summary.starts_with("kmalloc object (bytes) rises from 145.3 bytes at MTU 68 bytes to "), "{summary}");
    assert!(!summary.contains("seed:"), "measured points are not summarised: {summary}");
}

#[test]
fn a_pinned_run_is_drawn_dashed_beside_the_current_one_with_its_numbers() {
    let line = |name: &str, ys: &[f64]| Series { name: name.into(), ys: ys.to_vec() };
    let mut b =
        Sweep { xs: vec![1.0, 2.0], series: vec![line("gbps", &[10.0, 20.0])], ..Sweep::new("t", "flows", "Gbit/s") };
    let a = Sweep { xs: vec![1.0, 2.0, 3.0], series: vec![line("gbps", &[12.0, 24.0, 36.0])], ..b.clone() };
    let a = Sweep { marker_x: Some(3.0), ..a };
    b.pin(&a);
    assert_eq!(b.series[0].name, "gbps (B)");
    assert_eq!(b.pinned.as_ref().unwrap().marker_x, Some(3.0));
    assert_eq!(b.x_range(), (1.0, 3.0), "A's points widen the axis");
    assert!(b.y_max() > 36.0);
    assert_eq!(b.table().to_csv(), "flows,gbps (B) (Gbit/s),gbps (A) (Gbit/s)\n1,10,12\n2,20,24\n3,,36\n");
    assert!(b.describe().contains("gbps (A) 36 at 3"), "{}", b.describe());
    let svg = render_svg(&b);
    assert!(svg.contains("gbps (A)") && svg.contains("gbps (B)"), "legend names both runs");
    assert!(svg.contains("A&apos;s setting (3)") || svg.contains("A's setting (3)"), "A's marker in the legend");
    assert!(svg.matches("<polyline").count() > 3, "A dashed: one short line per dash");
    let size = (720, (height_css(&b, 720.0)) as u32);
    let found = crate::charts::record::layout_problems(size, 1.0, |a, t| draw_sweep(a, &b, t));
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn empty_data_does_not_panic() {
    let mut data = Sweep::new("", "", "");
    assert!(render_svg(&data).starts_with("<svg"));
    data.x_range = Some((1.0, 1.0));
    assert!(render_svg(&data).starts_with("<svg"));
    assert!(data.describe().contains(": no points yet") || data.series.is_empty());
}
