//! What charts say in words: lines, summaries, crossings, the cursor's words and moves.

use super::*;

/// Two lines over flows: order-3 ahead at first, order-0 ahead from 9 flows.
fn flows() -> Lines {
    let xs: Vec<f64> = (1..=30).map(f64::from).collect();
    let order3 = xs.iter().map(|&x| (x, if x < 9.0 { 40.0 * x } else { 200.0 + 5.0 * x }));
    let order0 = xs.iter().map(|&x| (x, 36.0 * x - 30.0));
    Lines {
        x_label: "flows (netperf pairs)".into(),
        y_label: "Gbit/s".into(),
        x_names: Vec::new(),
        lines: vec![
            Line::new("order-3 frags", order3),
            Line::new("order-0 frags", order0),
            Line::new("seed: order-0 frags", [(1.0, 36.0), (30.0, 838.0)]).measured(),
        ],
    }
}

#[test]
fn numbers_units_and_x_in_words() {
    assert_eq!(
        (short(837.8123), short(36962.4), short(0.3312), short(0.0033)),
        ("837.8".into(), "36962".into(), "0.3312".into(), "0.0033".into())
    );
    assert_eq!(
        (short(2.0), short(-0.5), short(0.0), short(f64::NAN)),
        ("2".into(), "-0.5".into(), "0".into(), "no value".into())
    );
    assert_eq!(
        (y_unit("Gbit/s"), y_unit("stack used, max (bytes)"), y_unit("pages (4 KiB)")),
        ("Gbit/s", "bytes", "pages (4 KiB)")
    );
    let cases = [
        ("flows (netperf pairs)", 9.0, "9 flows"),
        ("flows (netperf pairs)", 1.0, "1 flow"),
        ("CPUs online", 8.0, "8 CPUs online"),
        ("MTU (bytes)", 1500.0, "MTU 1500 bytes"),
        ("time (ms)", 2.5, "time 2.5 ms"),
        ("MAX_SKB_FRAGS", 17.0, "MAX_SKB_FRAGS 17"),
        ("nesting depth (TLS records)", 12.0, "nesting depth 12"),
        ("", 3.0, "3"),
    ];
    for (label, x, want) in cases {
        assert_eq!(x_phrase(label, x), want, "{label}");
    }
}

#[test]
fn the_summary_names_the_crossing_and_each_line_s_start_end_and_peak() {
    assert_eq!(
        summarize(&flows()),
        "order-0 frags overtakes order-3 frags at 9 flows; \
         order-3 frags rises from 40 Gbit/s at 1 flow to 350 Gbit/s at 30 flows; \
         order-0 frags rises from 6 Gbit/s at 1 flow to 1050 Gbit/s at 30 flows."
    );
    let mut peak = flows();
    peak.lines.truncate(1);
    peak.lines[0].points[20].1 = 900.0;
    assert!(summarize(&peak).ends_with(", highest 900 Gbit/s at 21 flows."), "{}", summarize(&peak));
    let flat = Lines {
        lines: vec![Line::new("level", [(1.0, 5.0), (2.0, 5.01)]), Line::new("ramp", [(1.0, 0.0), (2.0, 10.0)])],
        ..flows()
    };
    assert!(summarize(&flat).contains("level stays at about 5 Gbit/s from 1 flow to 2 flows;"), "{}", summarize(&flat));
    // A level far from 0 that moves across the chart rises; a dip is named.
    let level = Lines {
        lines: vec![Line::new("sum", [(0.0, 6_287_000.0), (1.0, 6_280_000.0), (2.0, 6_295_000.0)])],
        ..flows()
    };
    assert_eq!(
        summarize(&level),
        "sum rises from 6287000 Gbit/s at 0 flows to 6295000 Gbit/s at 2 flows, lowest 6280000 Gbit/s at 1 flow."
    );
    let one = Lines { lines: vec![Line::new("a", [(3.0, 1.5)]), Line::new("b", [])], ..flows() };
    assert_eq!(summarize(&one), "a is 1.5 Gbit/s at 3 flows; b has no points yet.");
    assert_eq!(summarize(&Lines::default()), "No points yet.");
}

#[test]
fn touching_lines_do_not_cross_and_many_crossings_are_counted() {
    let a = Line::new("a", (0..10).map(|i| (f64::from(i), 1.0)));
    let touch = Line::new("b", (0..10).map(|i| (f64::from(i), if i == 4 { 1.0 } else { 0.5 })));
    assert!(crossing_points(&a, &touch).is_empty());
    let zigzag = Line::new("z", (0..10).map(|i| (f64::from(i), if i % 2 == 0 { 0.0 } else { 2.0 })));
    let l = Lines { x_label: "x".into(), y_label: "y".into(), x_names: Vec::new(), lines: vec![a, zigzag] };
    assert!(summarize(&l).starts_with("a and z cross 9 times; "), "{}", summarize(&l));
}

#[test]
fn the_cursor_walks_points_and_lines_and_announces_them() {
    let l = flows();
    let start = l.moved(None, Key::Next).unwrap();
    assert_eq!(start, Cursor { line: 0, point: 0 });
    assert_eq!(l.announce(start).unwrap(), "1 flow, order-3 frags, 40 Gbit/s");
    let c = l.moved(Some(start), Key::Next).unwrap();
    assert_eq!(l.announce(c).unwrap(), "2 flows, order-3 frags, 80 Gbit/s");
    assert_eq!(l.moved(Some(start), Key::Prev), Some(start), "stops at the first point");
    let end = l.moved(Some(c), Key::Last).unwrap();
    assert_eq!(end, Cursor { line: 0, point: 29 });
    assert_eq!(l.moved(Some(end), Key::Next), Some(end), "stops at the last point");
    assert_eq!(l.moved(Some(end), Key::PageBack), Some(Cursor { line: 0, point: 26 }));
    let down = l.moved(Some(end), Key::Down).unwrap();
    assert_eq!(l.announce(down).unwrap(), "30 flows, order-0 frags, 1050 Gbit/s");
    // To the measured markers: the point nearest the same x.
    let seed = l.moved(Some(down), Key::Down).unwrap();
    assert_eq!((seed, l.point(seed)), (Cursor { line: 2, point: 1 }, Some((30.0, 838.0))));
    assert_eq!(l.moved(Some(seed), Key::Down), Some(seed), "stops at the last line");
    assert_eq!(l.moved(Some(start), Key::Up), Some(start), "stops at the first line");
    assert_eq!(l.moved(None, Key::Last), Some(Cursor { line: 0, point: 29 }));
    // A stale cursor (fewer points now) is brought back onto the line.
    assert_eq!(l.moved(Some(Cursor { line: 1, point: 99 }), Key::Prev), Some(Cursor { line: 1, point: 28 }));
    assert_eq!(Lines::default().moved(None, Key::Next), None);
    assert_eq!((Key::of("ArrowUp"), Key::of("a")), (Some(Key::Up), None));
}

#[test]
fn a_point_s_note_is_announced() {
    let mut line = Line::new("bigger-stack", [(1.0, 900.0), (2.0, 17000.0)]);
    line.notes = vec![String::new(), "the walk overflowed".into()];
    let mut l = Lines {
        x_label: "nesting depth (TLS records)".into(),
        y_label: "stack used, max (bytes)".into(),
        lines: vec![line],
        ..Lines::default()
    };
    assert_eq!(l.announce(Cursor { line: 0, point: 0 }).unwrap(), "nesting depth 1, bigger-stack, 900 bytes");
    l.x_names = vec!["zero".into(), "one".into()];
    assert_eq!(l.announce(Cursor { line: 0, point: 0 }).unwrap(), "one, bigger-stack, 900 bytes", "a named x");
    l.x_names.clear();
    assert_eq!(
        l.announce(Cursor { line: 0, point: 1 }).unwrap(),
        "nesting depth 2, bigger-stack, 17000 bytes, the walk overflowed"
    );
    assert_eq!(l.announce(Cursor { line: 1, point: 0 }), None);
}

#[test]
fn a_point_s_bands_are_announced_after_its_value() {
    let mut line = Line::new("order-3 frags", [(1.0, 36.96), (30.0, 722.1)]);
    line.spreads = vec![
        Spread::new("model band", [(30.0, 690.0, 750.0)]),
        Spread::new("seeds' spread", [(1.0, 35.0, 38.5), (30.0, 701.2, 733.0), (2.0, f64::NAN, 1.0)]),
    ];
    line.notes = vec![String::new(), "the setting".into()];
    let l = Lines { lines: vec![line], ..flows() };
    assert_eq!(l.lines[0].spreads[1].at.len(), 2, "a band edge that is no number is not drawn");
    assert_eq!(
        l.announce(Cursor { line: 0, point: 0 }).unwrap(),
        "1 flow, order-3 frags, 36.96 Gbit/s (seeds' spread 35–38.5 Gbit/s)"
    );
    assert_eq!(
        l.announce(Cursor { line: 0, point: 1 }).unwrap(),
        "30 flows, order-3 frags, 722.1 Gbit/s (model band 690–750 Gbit/s; seeds' spread 701.2–733 Gbit/s), the setting"
    );
    // No unit on the axis: the numbers alone.
    let bare = Lines { y_label: String::new(), ..l };
    assert_eq!(
        bare.announce(Cursor { line: 0, point: 0 }).unwrap(),
        "1 flow, order-3 frags, 36.96 (seeds' spread 35–38.5)"
    );
}
