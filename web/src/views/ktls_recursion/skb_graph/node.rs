//! One skb's box in the graph: its role and id, its frags, its frag_list's length, users and
//! dataref (on a narrow box over several lines), outlined when it is the skb being freed and
//! faded once freed.

use super::{role_name, GraphGeom};
use crate::svg;
use skblab_core::experiments::ktls_recursion::GraphNode;

/// An skb's box at `(x, y)`, `current` and/or `freed`: its role and id, then its frags, its
/// frag_list's length, users and dataref (on a narrow box over two lines).
pub(super) fn node_box(
    s: &mut String,
    n: &GraphNode,
    (x, y): (f64, f64),
    (current, freed): (bool, bool),
    g: &GraphGeom,
) {
    let faded = freed && !current;
    let (fill, stroke, width) = match (current, freed) {
        (true, _) => ("var(--accent-soft, #e3edf9)", "var(--accent, #1f5fa8)", "3"),
        (false, true) => ("none", "var(--border)", "1"),
        (false, false) => ("var(--surface, #fff)", "var(--fg)", "1.2"),
    };
    svg!(
        s,
        r#"<g class="skb{}{}" data-skb="{}""#,
        if current { " current" } else { "" },
        if freed { " freed" } else { "" },
        n.id
    );
    // Optional attributes: constant markup.
    s.push_str(if current {
        r#" data-current="true""#
    } else if faded {
        r#" opacity="0.45""#
    } else {
        ""
    });
    svg!(
        s,
        r#"><rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="{}" stroke="{}" stroke-width="{}""#,
        x,
        y,
        g.box_w,
        g.box_h,
        fill,
        stroke,
        width
    );
    s.push_str(if faded { r#" stroke-dasharray="4 3">"# } else { ">" });
    node_title(s, n, freed);
    let cx = x + g.box_w / 2.0;
    if let Some((big, little)) = g.fonts.0 {
        return node_box_narrow(s, n, (cx, y), (big, little));
    }
    svg!(
        s,
        concat!(
            r#"<text x="{}" y="{}" font-size="13" text-anchor="middle" font-weight="600">{} #{}</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="11" text-anchor="middle">{} frags · list {} · u{} d{}</text></g>"#
        ),
        cx,
        y + 18.0,
        role_name(n),
        n.id,
        cx,
        y + 35.0,
        n.nr_frags,
        n.frag_list.len(),
        n.users,
        n.dataref
    );
}

/// The text of an skb's box on a narrow box: role and id, then id's frags, then the list,
/// users and dataref, each line centred on `cx`.
fn node_box_narrow(s: &mut String, n: &GraphNode, (cx, y): (f64, f64), (big, little): (f64, f64)) {
    svg!(
        s,
        concat!(
            r#"<text x="{}" y="{}" font-size="{}" text-anchor="middle" font-weight="600">{}</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="middle">#{} · {} frags</text>"#,
            r#"<text class="dim" x="{}" y="{}" font-size="{}" text-anchor="middle">list {} · u{} d{}</text></g>"#
        ),
        cx,
        y + 17.0,
        big,
        role_name(n),
        cx,
        y + 32.0,
        little,
        n.id,
        n.nr_frags,
        cx,
        y + 47.0,
        little,
        n.frag_list.len(),
        n.users,
        n.dataref
    );
}

/// The box's tooltip, every field of the skb spelled out, and the end of its `<rect>`.
fn node_title(s: &mut String, n: &GraphNode, freed: bool) {
    svg!(
        s,
        "<title>skb {} ({}), level {}, data block {}: {} page frags, {} skbs on its frag_list, users {}, dataref {}{}</title></rect>",
        n.id,
        role_name(n),
        n.level,
        n.data,
        n.nr_frags,
        n.frag_list.len(),
        n.users,
        n.dataref,
        if freed { ", freed" } else { "" }
    );
}
