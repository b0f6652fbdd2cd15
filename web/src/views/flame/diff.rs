//! The differential flame graph of "compare two runs", after Brendan Gregg's
//! differential flame graphs: run B's graph, every frame coloured by the change of its share
//! from the pinned run A to B (red: grew, blue: shrank, the deeper the larger the change, pale
//! grey: unchanged). A frame is the same frame in both runs when its whole call path is (root
//! to frame, by name; a root by its name without the configuration label, [`root_key`]); a
//! frame only A has is not drawn (B spends no time there) and is listed in the text
//! alternative. Shares are of each run's own total, so a frame that keeps its time while the
//! rest grows shrinks.
//!
//! [`changes`] and [`diff_svg`] are pure and tested natively; [`DiffFlames`] draws one graph
//! per profile, its legend, the exact numbers of the hovered or focused frame in a live line,
//! and the largest changes as a table.

use super::{ROW, WIDTH};
use skblab_core::{FlameGraph, FlameNode, RunOutput};
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Boxes narrower than this are not drawn (as in the plain graph).
const MIN_WIDTH: f64 = super::MIN_WIDTH;
/// Rows of the table of largest changes.
const TOP: usize = 12;

/// A frame's share in A and in B, in percent of each run's samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The call path, root first, frames joined by `;` (as folded stacks write them).
    pub path: String,
    pub name: String,
    pub a_pct: f64,
    pub b_pct: f64,
}

impl Change {
    /// B − A in percentage points.
    pub fn delta(&self) -> f64 {
        self.b_pct - self.a_pct
    }

    /// "name: B 12.30 % (A 10.10 %), +2.20 points".
    pub fn say(&self) -> String {
        format!("{}: B {:.2} % (A {:.2} %), {:+.2} points", self.name, self.b_pct, self.a_pct, self.delta())
    }
}

/// Every node's call path (`root;…;name`), its root named by `root`; a parent comes before its
/// children in `nodes`.
fn paths_with(nodes: &[FlameNode], root: impl Fn(&str) -> String) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let path = match n.parent.and_then(|p| out.get(p as usize)) {
            Some(parent) => format!("{parent};{}", n.name),
            None => root(&n.name),
        };
        out.push(path);
    }
    out
}

/// Every node's call path as the graph names it (what the table of changes shows).
fn paths(nodes: &[FlameNode]) -> Vec<String> {
    paths_with(nodes, str::to_string)
}

/// A root frame's name without its configuration label: "CPU 0" of "CPU 0 (IRQ CPU + iperf
/// server)". A profile nested per part (core's `FlameGraph::nest`, cross-cpu-free's one root
/// per receiver CPU) names each root by the part and, in a trailing parenthesis, the role the
/// configuration gives it; that role changes with the knobs (`consumer=same` makes CPU 0
/// "IRQ CPU + iperf server", `other` "IRQ CPU: NIC RX, allocates"), while the CPU, and every
/// frame under it, stays the same code. Matched by full name, every frame of B would read as
/// new (all red). The label is dropped only from roots (deeper frames are kernel symbols,
/// named by the code alone), and a root without one keeps its name.
fn root_key(name: &str) -> &str {
    match name.find(" (") {
        Some(i) if i > 0 && name.ends_with(')') => &name[..i],
        _ => name,
    }
}

/// The call paths `nodes` are matched by: [`paths`] with each root's [`root_key`], unless two
/// roots of the graph share that key (then the label is what tells them apart, and each root
/// keeps its full name).
fn match_keys(nodes: &[FlameNode]) -> Vec<String> {
    let roots: Vec<&str> = nodes.iter().filter(|n| n.parent.is_none()).map(|n| root_key(&n.name)).collect();
    let unique = |key: &str| roots.iter().filter(|k| **k == key).count() == 1;
    paths_with(nodes, |name| {
        let key = root_key(name);
        let kept = if unique(key) { key } else { name };
        kept.to_string()
    })
}

fn total(nodes: &[FlameNode]) -> u64 {
    nodes.iter().filter(|n| n.depth == 0).map(|n| n.ns).sum::<u64>().max(1)
}

/// The change of every frame of `b` (same order as `b`), and then of every frame only `a`
/// has (its B share 0), largest share first.
pub fn changes(b: &[FlameNode], a: &[FlameNode]) -> (Vec<Change>, Vec<Change>) {
    let (tb, ta) = (total(b) as f64, total(a) as f64);
    let (a_keys, b_keys) = (match_keys(a), match_keys(b));
    let in_a: BTreeMap<&str, &FlameNode> = a_keys.iter().map(String::as_str).zip(a).collect();
    let drawn: Vec<Change> = b
        .iter()
        .zip(paths(b))
        .zip(&b_keys)
        .map(|((n, path), key)| Change {
            path,
            name: n.name.clone(),
            a_pct: in_a.get(key.as_str()).map_or(0.0, |m| m.ns as f64 * 100.0 / ta),
            b_pct: n.ns as f64 * 100.0 / tb,
        })
        .collect();
    let in_b: std::collections::BTreeSet<&str> = b_keys.iter().map(String::as_str).collect();
    let mut gone: Vec<Change> = a
        .iter()
        .zip(paths(a))
        .zip(&a_keys)
        .filter(|(_, key)| !in_b.contains(key.as_str()))
        .map(|((n, p), _)| Change { path: p, name: n.name.clone(), a_pct: n.ns as f64 * 100.0 / ta, b_pct: 0.0 })
        .collect();
    gone.sort_by(|x, y| y.a_pct.total_cmp(&x.a_pct));
    (drawn, gone)
}

/// The largest change in points (at least 0.01, so that equal runs read as unchanged).
pub fn scale(changes: &[Change]) -> f64 {
    changes.iter().map(|c| c.delta().abs()).fold(0.01, f64::max)
}

/// The fill of a frame whose share changed by `delta` points, the largest change being
/// `scale`: red when it grew, blue when it shrank, pale grey unchanged. Every fill keeps #111
/// text above 4.5:1.
pub fn fill(delta: f64, scale: f64) -> (u8, u8, u8) {
    let t = (delta.abs() / scale.max(1e-9)).clamp(0.0, 1.0);
    if delta.abs() < 0.005 {
        return (236, 236, 236);
    }
    let deep = |from: u8, to: u8| (f64::from(from) + (f64::from(to) - f64::from(from)) * t).round() as u8;
    if delta > 0.0 {
        (255, deep(225, 96), deep(225, 96))
    } else {
        (deep(225, 110), deep(230, 150), 255)
    }
}

/// B's icicle (graph `gi`), every frame filled by its change ([`fill`]): a standalone SVG.
pub fn diff_svg(title: &str, b: &[FlameNode], changes: &[Change], gi: usize) -> String {
    let span = total(b) as f64;
    let scale = scale(changes);
    let depth = b.iter().map(|n| n.depth).max().map_or(1, |d| d + 1);
    let mut out = String::new();
    crate::svg!(
        &mut out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="flame-svg flame-diff-svg" viewBox="0 0 {} {}" role="group" aria-label="{}"><g font-family="monospace" font-size="11">"#,
        WIDTH,
        f64::from(depth) * ROW,
        title
    );
    for (i, (n, c)) in b.iter().zip(changes).enumerate() {
        let (x, w) = (n.start_ns as f64 * WIDTH / span, n.ns as f64 * WIDTH / span);
        if w < MIN_WIDTH {
            continue;
        }
        let y = f64::from(n.depth) * ROW;
        let (r, g, bl) = fill(c.delta(), scale);
        let chars = ((w - 6.0) / 6.6).max(0.0) as usize;
        let label: String = if chars >= 3 { n.name.chars().take(chars).collect() } else { String::new() };
        crate::svg!(
            &mut out,
            r##"<g class="fl" tabindex="0" role="img" data-g="{}" data-i="{}" data-delta="{}" data-say="{}"><title>{}</title><rect x="{}" y="{}" width="{}" height="{}" rx="2" fill="rgb({},{},{})"/><text x="{}" y="{}" fill="#111">{}</text></g>"##,
            gi,
            i,
            format_args!("{:.3}", c.delta()),
            c.say(),
            c.say(),
            format_args!("{x:.1}"),
            y,
            format_args!("{:.1}", (w - 0.5).max(0.1)),
            ROW - 1.0,
            r,
            g,
            bl,
            format_args!("{:.1}", x + 3.0),
            y + 12.5,
            label
        );
    }
    out.push_str("</g></svg>");
    out
}

#[derive(Properties)]
pub struct DiffProps {
    /// The pinned run A and the current run B (both done).
    pub a: Rc<RunOutput>,
    pub b: Rc<RunOutput>,
    pub flames: &'static [&'static str],
}

/// By identity: a finished run's output is one `Rc` for as long as it is cached.
impl PartialEq for DiffProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.a, &other.a) && Rc::ptr_eq(&self.b, &other.b) && self.flames == other.flames
    }
}

/// One differential graph per profile both runs have, with its legend, a live line for the
/// hovered or focused frame and the largest changes as a table.
#[function_component(DiffFlames)]
pub fn diff_flames(props: &DiffProps) -> Html {
    let focus = use_state(|| None::<String>);
    let pairs: Vec<(&FlameGraph, &FlameGraph)> =
        props.flames.iter().filter_map(|id| Some((props.b.flame(id)?, props.a.flame(id)?))).collect();
    let on_focus = {
        let focus = focus.clone();
        Callback::from(move |e: Event| {
            let el = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok());
            let said =
                el.and_then(|el| el.closest("[data-say]").ok().flatten()).and_then(|g| g.get_attribute("data-say"));
            if said.is_some() {
                focus.set(said)
            }
        })
    };
    html! {
        <section class="flame-diff" data-testid="flame-diff" aria-labelledby="flame-diff-title">
            <h3 id="flame-diff-title">{"B against A: the change of each frame's share"}</h3>
            <p class="flame-diff-legend">
                <span class="flame-key"><span class="flame-swatch shrank" aria-hidden="true"></span>{" shrank"}</span>
                <span class="flame-key"><span class="flame-swatch same" aria-hidden="true"></span>{" unchanged"}</span>
                <span class="flame-key"><span class="flame-swatch grew" aria-hidden="true"></span>{" grew"}</span>
                <span class="muted">{"(B − A, in points of each run's samples; the deeper, the larger)"}</span>
            </p>
            <div class="flame-diff-grid" onfocusin={on_focus.reform(|e: FocusEvent| e.into())} onmouseover={on_focus.reform(|e: MouseEvent| e.into())}>
                { for pairs.iter().enumerate().map(|(g, (b, a))| diff_section(b, a, g)) }
            </div>
            <p class="flame-focus" aria-live="polite" data-testid="flame-diff-focus">
                { (*focus).clone().unwrap_or_else(|| "Hover or focus a frame to read its share in A and B.".to_string()) }
            </p>
        </section>
    }
}

/// Whether A and B draw the same graph: no frame only one of them has, none whose share moved
/// by a hundredth of a point (page-frag-free's "before the fix" graph, pinned with the fix off
/// and compared with it on: the knob changes the current run's graph, not that one).
pub fn unchanged(drawn: &[Change], gone: &[Change]) -> bool {
    gone.is_empty() && drawn.iter().all(|c| c.a_pct > 0.0 && c.delta().abs() < 0.005)
}

/// One graph: B's frames coloured by their change, then the largest changes in a table; a
/// graph A and B share is said in words, not drawn all grey.
fn diff_section(b: &FlameGraph, a: &FlameGraph, g: usize) -> Html {
    let (bn, an) = (b.nodes(), a.nodes());
    let (drawn, gone) = changes(&bn, &an);
    if unchanged(&drawn, &gone) {
        return html! {
            <section class="flame-one" data-testid={format!("flame-diff-{}", b.id)} data-same="true">
                <h4 class="flame-title">{ format!("{} (B against A)", b.title) }</h4>
                <p class="muted" data-testid="flame-diff-same">{"The same graph in A and B: the settings that \
                    differ do not change it, so no frame grew or shrank."}</p>
            </section>
        };
    }
    let markup = diff_svg(&format!("{}: B against A", b.title), &bn, &drawn, g);
    let mut top: Vec<&Change> = drawn.iter().chain(&gone).filter(|c| c.delta().abs() >= 0.005).collect();
    top.sort_by(|x, y| y.delta().abs().total_cmp(&x.delta().abs()));
    let more = top.len().saturating_sub(TOP);
    html! {
        <section class="flame-one" data-testid={format!("flame-diff-{}", b.id)}>
            <h4 class="flame-title">{ format!("{} (B against A)", b.title) }</h4>
            <div class="flame-svg-wrap">{ crate::svg::into_html(markup) }</div>
            <details>
                <summary>{ format!("Largest changes (text): {} frames changed; {} frames only A has", top.len(), gone.len()) }</summary>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Largest changes of the frames' shares">
                <table class="results grid">
                    <thead><tr><th scope="col">{"frame (call path)"}</th><th scope="col">{"A %"}</th>
                        <th scope="col">{"B %"}</th><th scope="col">{"B − A (points)"}</th></tr></thead>
                    <tbody>{ for top.iter().take(TOP).map(|c| html! {
                        <tr><th scope="row"><code>{ &c.path }</code></th><td class="num">{ format!("{:.2}", c.a_pct) }</td>
                            <td class="num">{ format!("{:.2}", c.b_pct) }</td><td class="num">{ format!("{:+.2}", c.delta()) }</td></tr>
                    }) }</tbody>
                </table>
                </div>
                if more > 0 { <p class="muted">{ format!("… and {more} smaller changes.") }</p> }
            </details>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::FoldedStack;

    fn graph(stacks: &[(&[&str], u64)]) -> Vec<FlameNode> {
        let stacks = stacks
            .iter()
            .map(|(f, ns)| FoldedStack { frames: f.iter().map(|x| x.to_string()).collect(), ns: *ns })
            .collect();
        FlameGraph { id: "g".into(), title: "t".into(), stacks }.nodes()
    }

    #[test]
    fn frames_are_matched_by_call_path_and_coloured_by_the_change_of_their_share() {
        let a = graph(&[(&["k", "lock", "spin"], 300), (&["k", "copy"], 100), (&["k", "old"], 100)]);
        let b = graph(&[(&["k", "lock", "spin"], 100), (&["k", "copy"], 300), (&["x", "spin"], 100)]);
        let (drawn, gone) = changes(&b, &a);
        let at = |path: &str| drawn.iter().find(|c| c.path == path).unwrap();
        assert_eq!((at("k;lock;spin").a_pct, at("k;lock;spin").b_pct), (60.0, 20.0));
        assert_eq!(at("k;copy").delta(), 40.0);
        assert_eq!(at("x;spin").a_pct, 0.0, "same name, other path: another frame");
        assert_eq!(at("k").delta(), -20.0);
        assert_eq!(gone.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(), ["k;old"]);
        assert!(!unchanged(&drawn, &gone));
        let (same, none) = changes(&a, &a);
        assert!(unchanged(&same, &none), "a graph against itself: nothing to colour");
        assert_eq!(scale(&drawn), 40.0);
        let svg = diff_svg("t <b>", &b, &drawn, 0);
        assert_eq!(svg.matches("<rect").count(), b.len());
        assert!(svg.contains("aria-label=\"t &lt;b&gt;\""));
        assert!(svg.contains("<title>copy: B 60.00 % (A 20.00 %), +40.00 points</title>"), "{svg}");
        assert!(svg.contains(r#"data-delta="-40.000""#));
        // The largest growth is the deepest red, the largest drop the deepest blue.
        assert!(svg.contains("fill=\"rgb(255,96,96)\"") && svg.contains("fill=\"rgb(110,150,255)\""), "{svg}");
    }

    #[test]
    fn roots_that_differ_only_by_their_configuration_label_are_the_same_frame() {
        // cross-cpu-free: consumer=same (A) against consumer=other (B); CPU 0's role changes.
        let a = graph(&[
            (&["CPU 0 (IRQ CPU + iperf server)", "net_rx_action", "kmem_cache_alloc"], 300),
            (&["CPU 0 (IRQ CPU + iperf server)", "recvmsg", "kfree"], 100),
        ]);
        let b = graph(&[
            (&["CPU 0 (IRQ CPU: NIC RX, allocates)", "net_rx_action", "kmem_cache_alloc"], 300),
            (&["CPU 1 (iperf server)", "recvmsg", "kfree"], 100),
        ]);
        let (drawn, gone) = changes(&b, &a);
        let at = |path: &str| drawn.iter().find(|c| c.path == path).unwrap_or_else(|| panic!("{path}: {drawn:#?}"));
        let alloc = at("CPU 0 (IRQ CPU: NIC RX, allocates);net_rx_action;kmem_cache_alloc");
        assert_eq!((alloc.a_pct, alloc.b_pct), (75.0, 75.0), "the same frame, its share unchanged");
        assert_eq!(at("CPU 0 (IRQ CPU: NIC RX, allocates)").delta(), -25.0, "CPU 0 lost its reads");
        assert_eq!(at("CPU 1 (iperf server);recvmsg").a_pct, 0.0, "CPU 1 is new");
        // A's frames B has not: the reads on CPU 0, by the name A gave them.
        let gone: Vec<&str> = gone.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(gone, ["CPU 0 (IRQ CPU + iperf server);recvmsg", "CPU 0 (IRQ CPU + iperf server);recvmsg;kfree"]);
        assert_eq!(
            (root_key("CPU 3 (reader)"), root_key("swapper"), root_key("(idle)")),
            ("CPU 3", "swapper", "(idle)")
        );
    }

    #[test]
    fn roots_the_label_alone_tells_apart_keep_it() {
        let a = graph(&[(&["cpu (rx)", "f"], 1), (&["cpu (tx)", "g"], 1)]);
        let b = graph(&[(&["cpu (rx)", "f"], 3), (&["cpu (tx)", "g"], 1)]);
        let (drawn, gone) = changes(&b, &a);
        assert!(gone.is_empty());
        let at = |path: &str| drawn.iter().find(|c| c.path == path).unwrap();
        assert_eq!((at("cpu (rx);f").a_pct, at("cpu (rx);f").b_pct), (50.0, 75.0));
        assert_eq!(at("cpu (tx)").delta(), -25.0);
    }

    #[test]
    fn equal_runs_are_pale_and_every_fill_keeps_text_readable() {
        let a = graph(&[(&["k", "a"], 3), (&["k", "b"], 1)]);
        let (drawn, gone) = changes(&a, &a);
        assert!(gone.is_empty() && drawn.iter().all(|c| c.delta() == 0.0));
        assert!(!diff_svg("t", &a, &drawn, 0).contains("rgb(255,"), "no red when nothing changed");
        // WCAG contrast of #111 text on the deepest fills and on grey.
        let lum = |(r, g, b): (u8, u8, u8)| {
            let c = |v: u8| {
                let s = f64::from(v) / 255.0;
                if s <= 0.03928 {
                    s / 12.92
                } else {
                    ((s + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * c(r) + 0.7152 * c(g) + 0.0722 * c(b)
        };
        for d in [-1.0, -0.5, 0.0, 0.5, 1.0] {
            let ratio = (lum(fill(d, 1.0)) + 0.05) / (lum((17, 17, 17)) + 0.05);
            assert!(ratio >= 4.5, "{d}: {ratio}");
        }
        assert_eq!(fill(0.001, 1.0), (236, 236, 236));
    }
}
