//! Chart sizes by width, text wrapping, the legend's rows and a chart's height.

use super::legend::{place_legend, Placed, STRIP_PAD_X_CSS_PX, SWATCH_CSS_PX, SWATCH_GAP_CSS_PX};

use super::*;

#[test]
fn phones_get_smaller_type_and_fewer_ticks() {
    let (phone, desk) = (Sizes::for_width(290.0), Sizes::for_width(720.0));
    assert!(phone.narrow && !desk.narrow && phone.text < desk.text);
    assert_eq!(Sizes::for_width(f64::NAN), desk, "a nonsense width is a desktop's");
    assert!(phone.x_ticks(220.0, "9000", 10) <= 5, "{}", phone.x_ticks(220.0, "9000", 10));
    assert_eq!(desk.x_ticks(600.0, "30", 10), 10);
    assert_eq!(phone.x_ticks(0.0, "30", 10), 2, "never fewer than 2");
    assert!(phone.y_ticks(150.0) <= 5 && desk.y_ticks(300.0) >= 8);
    assert!(phone.y_label_area("6.291M") > phone.y_label_area("0"));
    assert_eq!(
        [phone.tick(10_000_000.0, 0), phone.tick(2_500_000.0, 0), phone.tick(-250_000.0, 0), phone.tick(9000.0, 0)],
        ["10M", "2.5M", "-250k", "9000"]
    );
    assert_eq!((desk.tick(10_000_000.0, 0), phone.tick(0.25, 2)), ("10000000".into(), "0.25".into()));
}

#[test]
fn wrap_keeps_words_and_cuts_only_what_cannot_fit() {
    let m = |t: &str| t.chars().count() as f64;
    assert_eq!(wrap("one two three", 7.0, &m), ["one two", "three"]);
    assert_eq!(wrap("abcdefghij", 4.0, &m), ["abcd", "efgh", "ij"]);
    assert_eq!(wrap("", 4.0, &m), Vec::<String>::new());
    assert_eq!(wrap("a  b", 0.0, &m), ["a", "b"], "a zero width still yields every character");
}

#[test]
fn the_legend_flows_into_rows_and_long_labels_wrap() {
    let labels = ["kmalloc object (bytes)", "head requested (bytes)", "half page (2048 B)"];
    let m = estimate(11);
    let (phone, h_phone) = place_legend(&labels, &Sizes::for_width(290.0), &m);
    let (desk, h_desk) = place_legend(&labels, &Sizes::for_width(720.0), &estimate(13));
    let rows = |p: &[Placed]| p.iter().map(|e| e.y.to_bits()).collect::<std::collections::BTreeSet<_>>().len();
    assert_eq!(rows(&desk), 1, "{desk:?}");
    assert!(rows(&phone) >= 2 && h_phone > h_desk, "{phone:?}");
    let long = ["outlined: model band (catalogue constants in their ranges)"];
    let (p, _) = place_legend(&long, &Sizes::for_width(290.0), &m);
    assert!(p[0].lines.len() >= 2, "{p:?}");
    assert!(p[0].lines.iter().all(|l| m(l) <= 290.0 - 2.0 * STRIP_PAD_X_CSS_PX - SWATCH_CSS_PX - SWATCH_GAP_CSS_PX));
    assert_eq!(place_legend(&[], &Sizes::for_width(290.0), &m).1, 0.0);
}

#[test]
fn a_chart_grows_by_its_title_and_legend() {
    let bare = chart_height(290.0, None, &[]);
    assert_eq!(bare, MIN_PLOT_HEIGHT_CSS_PX);
    let titled = chart_height(290.0, Some("Peak kernel stack vs. nesting depth, per fix"), &[]);
    let one_row = chart_height(290.0, None, &["a", "b"]);
    let rows = chart_height(290.0, None, &["kmalloc object (bytes)", "head requested (bytes)", "half page (2048 B)"]);
    assert!(titled > bare + 30.0 && one_row > bare + 20.0 && rows > one_row + 30.0, "{titled} {one_row} {rows}");
    assert_eq!(chart_height(720.0, None, &[]), 400.0);
}
