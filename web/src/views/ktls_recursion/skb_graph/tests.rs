//! The skb graph's windows over levels and rows, and the graph drawn at positions of the walk.

use super::*;
use crate::views::fit;

#[test]
fn the_level_window_stays_inside_the_graph() {
    assert_eq!(level_window(1, 6105), (1, 6));
    assert_eq!(level_window(248, 6105), (245, 250));
    assert_eq!(level_window(6105, 6105), (6100, 6105));
    assert_eq!(level_window(3, 2), (1, 2));
    assert_eq!(level_window(0, 0), (1, 0));
}

#[test]
fn a_long_row_is_cut_around_the_current_skb() {
    let row: Vec<usize> = (0..100).collect();
    assert_eq!(row_window(&row, Some(50), PER_ROW_SHOWN), &[48, 49, 50, 51]);
    assert_eq!(row_window(&row, Some(99), PER_ROW_SHOWN), &[96, 97, 98, 99]);
    assert_eq!(row_window(&row, None, PER_ROW_SHOWN), &[0, 1, 2, 3]);
    assert_eq!(row_window(&row, Some(50), NARROW_PER_ROW), &[49, 50]);
}

#[test]
fn the_graph_window_has_boxes_edges_and_the_current_skb() {
    use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
    use skblab_core::Experiment;
    let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
    let position = walk.n_positions() / 2;
    let current = walk.frame(position).and_then(|f| f.node);
    let svg = graph_svg(&walk, position, current, Fit::Wide);
    assert!(svg.starts_with("<svg viewBox=\"0 0 640 "), "{svg}");
    assert!(svg.contains("data-testid=\"skb-graph\"") && svg.contains("role=\"img\""));
    assert!(svg.matches("<g class=\"skb").count() >= LEVELS_SHOWN, "a box per level at least");
    assert!(svg.contains("<line "), "frag_list edges");
    if let Some(id) = current {
        assert!(svg.contains(&format!("data-skb=\"{id}\" data-current=\"true\"")));
    }
    assert_eq!(svg.matches("<g").count(), svg.matches("</g>").count());
    assert_eq!(svg.matches("<title>").count(), svg.matches("<rect").count());
}

#[test]
fn an_empty_close_draws_no_box_and_says_why() {
    use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
    use skblab_core::Experiment;
    let p = KtlsRecursion.params_from(&["tcp_rx_skb_cache=false".to_string()]).expect("valid");
    let walk = WalkData::new(std::sync::Arc::new(walk_trace(&p)));
    assert_eq!(walk.n_positions(), 1);
    for fit in [Fit::Wide, Fit::Narrow(300.0)] {
        let svg = graph_svg(&walk, 0, None, fit);
        assert!(svg.contains("nothing is left for close() to free"), "{svg}");
        assert!(svg.contains("aria-label=\"skb graph: the socket holds no skb at close\""), "{svg}");
        assert_eq!(svg.matches("<g class=\"skb").count(), 0);
    }
}

#[test]
fn a_narrow_box_gets_two_skbs_a_row_every_text_legible_and_inside_its_box() {
    use skblab_core::experiments::ktls_recursion::{walk_trace, KtlsRecursion};
    use skblab_core::Experiment;
    let walk = WalkData::new(std::sync::Arc::new(walk_trace(&KtlsRecursion.defaults())));
    for position in [0, walk.n_positions() / 2, walk.n_positions() - 1] {
        let current = walk.frame(position).and_then(|f| f.node);
        let m = graph_svg(&walk, position, current, Fit::Narrow(300.0));
        assert!(m.starts_with("<svg viewBox=\"0 0 300 ") && m.contains("data-fit=\"narrow\""), "{m}");
        let sizes = fit::text_font_sizes(&m);
        assert!(sizes.iter().all(|&f| f >= fit::SMALL_FONT), "{sizes:?}");
        assert!(m.matches("<g class=\"skb").count() <= LEVELS_SHOWN * NARROW_PER_ROW);
    }
    let g = GraphGeom::new(Fit::Narrow(300.0));
    // The longest lines of a box: role and id, frags, list.
    for line in ["strp clone", "#99999 · 17 frags", "list 99 · u9 d9"] {
        let font = if line == "strp clone" { fit::BOLD * fit::FONT } else { fit::SMALL_FONT };
        assert!(fit::text_w(line, font) + 6.0 <= g.box_w, "{line}: {} in {}", fit::text_w(line, font), g.box_w);
    }
}
