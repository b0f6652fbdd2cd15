//! The stack bar drawn at the start of the walk and at its overflow.

use super::*;
use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
use skblab_core::Experiment;

#[test]
fn the_bar_at_the_start_and_at_the_overflow() {
    let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
    let svg = |position: usize| {
        let overflow = walk.frame(position).is_some_and(|f| f.overflow);
        bar_svg(&walk, position, (walk.used_bytes(position), overflow), Fit::Wide)
    };
    let start = svg(0);
    assert!(start.starts_with("<svg viewBox=\"0 0 600 568\" role=\"img\" aria-label=\"Stack budget: "), "{start}");
    for part in
        ["data-testid=\"guard-page\"", "data-testid=\"stack-zoom\"", "class=\"used-marker\"", "close() path"]
    {
        assert!(start.contains(part), "missing {part}");
    }
    assert!(!start.contains("overflow-frame"));
    let end = svg(walk.n_positions() - 1);
    assert!(end.contains("data-testid=\"overflow-frame\""), "the default walk overflows");
    assert!(end.contains("B past THREAD_SIZE</title>") && !end.contains("used-marker"));
    assert_eq!(end.matches("<svg").count(), 1);
    assert_eq!(end.matches("<g").count(), end.matches("</g>").count());
}

#[test]
fn a_narrow_box_gets_the_bar_with_the_zoom_under_it_every_text_legible() {
    let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
    for position in [0, walk.n_positions() / 2, walk.n_positions() - 1] {
        let overflow = walk.frame(position).is_some_and(|f| f.overflow);
        let m = bar_svg(&walk, position, (walk.used_bytes(position), overflow), Fit::Narrow(300.0));
        assert!(m.starts_with("<svg viewBox=\"0 0 300 ") && m.contains("data-fit=\"narrow\""), "{m}");
        let sizes = fit::text_font_sizes(&m);
        assert!(sizes.len() >= 8 && sizes.iter().all(|&f| f >= fit::SMALL_FONT), "{sizes:?}");
    }
    let g = BarGeom::new(Fit::Narrow(300.0));
    assert!(g.zoom_top > g.bottom_y() + 20.0 && g.zoom_x + g.zoom_w <= 300.0, "the zoom under the bar");
    let notes = fit::text_w("used 16384 B", fit::FONT).max(fit::text_w("8192 B, unmapped", fit::SMALL_FONT));
    assert!(g.bar_w >= 50.0 && g.bar_x + g.bar_w + 10.0 + notes <= 300.0, "{} {}", g.bar_x, g.bar_w);
    assert_eq!(g.band_label("kfree_skb · 128 B", 60.0, 20.0), Some("128 B"), "only the bytes where all does not fit");
    assert_eq!(g.band_label("kfree_skb · 128 B", 200.0, 8.0), None, "too thin");
}
