//! The generic flame graph: any experiment whose [`RunOutput`](skblab_core::RunOutput) carries profiles
//! ([`RunOutput::flames`](skblab_core::RunOutput::flames), built from core's call chains) and declares a [`ViewSpec::Flame`](skblab_core::ViewSpec::Flame)
//! gets it. Icicle layout (callers on top), one graph per profile side by side (e.g. before
//! and after a fix), click or Enter on a frame to zoom into it (again on the top row, or
//! Escape, to zoom out), a search box that highlights matching frames and sums their share,
//! the exact share of the hovered or focused frame in a live line, an SVG export of exactly
//! the drawn picture, and the folded stacks as the text alternative. With a run pinned as A
//! ("compare two runs"), a differential graph of B against A follows ([`diff`]).
//!
//! The drawing is [`flame_svg`], a pure function (tested natively) writing escaped SVG text
//! with [`svg!`](crate::svg!); the component only keeps the zoom, search and focus state and
//! reads which frame an event hit from the `data-g`/`data-i` attributes of the frame's group.

pub mod diff;

use super::ViewCtx;
use crate::browser;
use skblab_core::{FlameGraph, FlameNode};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Width of the drawing in SVG units: about its width in CSS px in the lesson's view column,
/// so that 11-unit text reads as 11 px (narrower screens scroll the graph inside its box).
const WIDTH: f64 = 640.0;
const ROW: f64 = 18.0;
/// Boxes narrower than this are not drawn (they would be one pixel of noise).
const MIN_WIDTH: f64 = 0.6;

/// Share of `n` in all of the graph's time, in percent.
fn pct(n: &FlameNode, total_ns: u64) -> f64 {
    n.ns as f64 * 100.0 / total_ns.max(1) as f64
}

/// A warm colour per frame name (like flamegraph.pl's palette, stable across runs); spinning on
/// a lock is always the reddest.
fn color(name: &str) -> (u32, u32, u32) {
    if name.contains("spin_lock") {
        return (240, 90, 70);
    }
    let h = name.bytes().fold(2166136261u32, |h, b| (h ^ u32::from(b)).wrapping_mul(16777619));
    // Green at least 110 keeps #111 text above 4.5:1 contrast on every box.
    (205 + h % 50, 110 + (h >> 8) % 120, (h >> 16) % 55)
}

/// True if `node` matches the search text (ASCII case-insensitive substring, as kernel symbols
/// are ASCII: Unicode case tables would cost the first load kilobytes; empty matches nothing).
fn matches(node: &FlameNode, search: &str) -> bool {
    !search.is_empty() && node.name.to_ascii_lowercase().contains(&search.to_ascii_lowercase())
}

/// Share in percent of all time spent under frames matching `search` (nested matches counted
/// once, as flamegraph.pl does).
pub fn matched_pct(nodes: &[FlameNode], total_ns: u64, search: &str) -> f64 {
    let mut ns = 0;
    for (i, n) in nodes.iter().enumerate() {
        if !matches(n, search) {
            continue;
        }
        let mut p = n.parent;
        let mut outer = false;
        while let Some(j) = p {
            outer |= matches(&nodes[j as usize], search);
            p = nodes[j as usize].parent;
        }
        if !outer {
            ns += nodes[i].ns;
        }
    }
    ns as f64 * 100.0 / total_ns.max(1) as f64
}

/// The icicle of `nodes` (graph `gi` on the page) zoomed into node `zoom`, frames matching
/// `search` highlighted: a standalone SVG document (it is also the export).
pub fn flame_svg(title: &str, nodes: &[FlameNode], gi: usize, zoom: Option<u32>, search: &str) -> String {
    let total_ns: u64 = nodes.iter().filter(|n| n.depth == 0).map(|n| n.ns).sum();
    let (x0, span, zdepth) = match zoom.and_then(|z| nodes.get(z as usize)) {
        Some(z) => (z.start_ns, z.ns.max(1), z.depth),
        None => (0, total_ns.max(1), 0),
    };
    let depth = nodes.iter().map(|n| n.depth).max().map_or(1, |d| d + 1);
    let height = f64::from(depth) * ROW;
    let mut out = String::new();
    crate::svg!(
        &mut out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="flame-svg" viewBox="0 0 {} {}" role="group" aria-label="{}"><g font-family="monospace" font-size="11">"#,
        WIDTH,
        height,
        title
    );
    for (i, n) in nodes.iter().enumerate() {
        let (start, end) = (n.start_ns.max(x0), (n.start_ns + n.ns).min(x0 + span));
        // Unzoomed, every frame is drawn (a graph may have several roots, e.g. one per CPU).
        // Zoomed, its ancestors cover its interval and its descendants lie inside it.
        let covers = n.start_ns <= x0 && n.start_ns + n.ns >= x0 + span;
        let visible = end > start && (zoom.is_none() || n.depth > zdepth || covers);
        if !visible {
            continue;
        }
        let x = (start - x0) as f64 * WIDTH / span as f64;
        let w = (end - start) as f64 * WIDTH / span as f64;
        if w < MIN_WIDTH {
            continue;
        }
        let y = f64::from(n.depth) * ROW;
        let share = pct(n, total_ns);
        let (r, g, b) = if matches(n, search) { (230, 0, 230) } else { color(&n.name) };
        let chars = ((w - 6.0) / 6.6).max(0.0) as usize;
        // The accessible name is the <title> (name and exact share), the text a visible cut.
        let label: String = if chars >= 3 { n.name.chars().take(chars).collect() } else { String::new() };
        crate::svg!(
            &mut out,
            r##"<g class="fl" tabindex="0" role="button" data-g="{}" data-i="{}" data-name="{}"><title>{}: {} % of all samples ({} ns)</title><rect x="{}" y="{}" width="{}" height="{}" rx="2" fill="rgb({},{},{})"/><text x="{}" y="{}" fill="#111">{}</text></g>"##,
            gi,
            i,
            n.name,
            n.name,
            format_args!("{share:.2}"),
            n.ns,
            format_args!("{x:.1}"),
            y,
            format_args!("{:.1}", (w - 0.5).max(0.1)),
            ROW - 1.0,
            r,
            g,
            b,
            format_args!("{:.1}", x + 3.0),
            y + 12.5,
            label
        );
    }
    out.push_str("</g></svg>");
    out
}

#[derive(Properties, PartialEq)]
pub struct FlameProps {
    pub ctx: ViewCtx,
    pub id: &'static str,
    pub flames: &'static [&'static str],
}

/// Which frame an event hit: (graph, node) from the `data-g`/`data-i` of its group.
fn hit(e: &Event) -> Option<(usize, u32)> {
    let el = e.target()?.dyn_into::<web_sys::Element>().ok()?.closest("[data-i]").ok()??;
    Some((el.get_attribute("data-g")?.parse().ok()?, el.get_attribute("data-i")?.parse().ok()?))
}

/// Where a click or Enter on node `i` of `tree` leaves the zoom `current`: into the frame,
/// or out one level on the zoomed frame or above it; zooming into the only root is no zoom.
fn zoom_step(tree: &[FlameNode], current: Option<u32>, i: u32) -> Option<u32> {
    let next = match current {
        Some(c) if tree[i as usize].depth <= tree[c as usize].depth => tree[i as usize].parent,
        _ => Some(i),
    };
    if next.is_some_and(|k| tree[k as usize].depth == 0) && tree.iter().filter(|n| n.depth == 0).count() == 1 {
        return None;
    }
    next
}

/// The frame (graph, node) to give the keyboard focus back to after a zoom, if any.
type Refocus = Rc<RefCell<Option<(usize, u32)>>>;

/// The frame to give the keyboard focus back to after a zoom redraws the picture, and the
/// grid it is searched in: after every change of `zoom`, the frame stored is focused again.
#[hook]
fn use_refocus_after_zoom(zoom: &[Option<u32>]) -> (Refocus, NodeRef) {
    let refocus = use_mut_ref(|| None::<(usize, u32)>);
    let grid = use_node_ref();
    {
        let (refocus, grid) = (refocus.clone(), grid.clone());
        use_effect_with(zoom.to_vec(), move |_| {
            if let (Some((g, i)), Some(el)) = (refocus.borrow_mut().take(), grid.cast::<web_sys::Element>()) {
                let selector = format!("[data-g=\"{g}\"][data-i=\"{i}\"]");
                if let Ok(Some(target)) = el.query_selector(&selector) {
                    // An SVG <g> has focus() like an HTML element (called by name).
                    let _ = target.unchecked_ref::<web_sys::HtmlElement>().focus();
                }
            }
        });
    }
    (refocus, grid)
}

/// The grid's click and key handlers: click, Enter or space on a frame zooms (see
/// [`zoom_step`]) and remembers the frame for [`use_refocus_after_zoom`]; Escape zooms out.
fn zoom_callbacks(
    zoom: &UseStateHandle<Vec<Option<u32>>>,
    refocus: Refocus,
    trees: Vec<Vec<FlameNode>>,
) -> (Callback<MouseEvent>, Callback<KeyboardEvent>) {
    let set_zoom = {
        let zoom = zoom.clone();
        move |g: usize, i: u32| {
            *refocus.borrow_mut() = Some((g, i));
            let mut z = (*zoom).clone();
            z[g] = zoom_step(&trees[g], z[g], i);
            zoom.set(z);
        }
    };
    let onclick = {
        let set_zoom = set_zoom.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some((g, i)) = hit(&e) {
                set_zoom(g, i)
            }
        })
    };
    let onkeydown = {
        let zoom = zoom.clone();
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Enter" | " " => {
                if let Some((g, i)) = hit(&e) {
                    e.prevent_default();
                    set_zoom(g, i);
                }
            }
            "Escape" => zoom.set(vec![None; zoom.len()]),
            _ => {}
        })
    };
    (onclick, onkeydown)
}

/// One graph of the grid (graph `g`, zoomed to `zoom`): its title with the SVG export, the
/// matched share under a search, the drawing and the folded stacks.
fn graph_section(
    experiment: &str,
    graph: &FlameGraph,
    tree: &[FlameNode],
    g: usize,
    zoom: Option<u32>,
    search: &str,
) -> Html {
    let markup = flame_svg(&graph.title, tree, g, zoom, search);
    let matched =
        (!search.is_empty()).then(|| format!("matched: {:.2} %", matched_pct(tree, graph.total_ns(), search)));
    let file = format!("{}-{}.svg", experiment, graph.id);
    let on_export = {
        let markup = markup.clone();
        Callback::from(move |_| browser::download_text(&file, "image/svg+xml", &markup))
    };
    html! {
        <section class="flame-one" data-testid={format!("flame-graph-{}", graph.id)}>
            <h3 class="flame-title">{ &graph.title }
                <button class="btn btn-small" type="button" onclick={on_export}
                    data-testid={format!("flame-export-{}", graph.id)}>{"SVG"}</button>
            </h3>
            if let Some(m) = matched { <p class="flame-matched" data-testid="flame-matched">{ m }</p> }
            <div class="flame-svg-wrap">{ crate::svg::into_html(markup) }</div>
            <details>
                <summary>{"Folded stacks (text)"}</summary>
                <pre class="text-pre" tabindex="0">{ graph.folded() }</pre>
            </details>
        </section>
    }
}

/// Flame graphs of the run's profiles named by the view, side by side.
#[function_component(FlameView)]
pub fn flame_view(props: &FlameProps) -> Html {
    let zoom = use_state(|| vec![None::<u32>; props.flames.len()]);
    let search = use_state(String::new);
    let focus = use_state(|| None::<(usize, u32)>);
    let (refocus, grid) = use_refocus_after_zoom(&zoom);
    let run = &props.ctx.run;
    let testid = format!("flame-{}", props.id);
    let Some(out) = run.output.clone() else {
        return html! {
            <figure class="card-flat flame-view" data-testid={testid}>
                { crate::run::waiting_note(run) }
            </figure>
        };
    };
    let graphs: Vec<&FlameGraph> = props.flames.iter().filter_map(|id| out.flame(id)).collect();
    let trees: Vec<Vec<FlameNode>> = graphs.iter().map(|g| g.nodes()).collect();
    let (onclick, onkeydown) = zoom_callbacks(&zoom, refocus, trees.clone());
    let on_focus = {
        let focus = focus.clone();
        Callback::from(move |e: Event| {
            if let Some(h) = hit(&e) {
                focus.set(Some(h))
            }
        })
    };
    let on_search = {
        let search = search.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                search.set(input.value());
            }
        })
    };
    let focused = focus.and_then(|(g, i)| {
        let n = trees.get(g)?.get(i as usize)?;
        Some(format!(
            "{}: {}: {:.2} % of all samples ({} ns)",
            graphs[g].title,
            n.name,
            pct(n, graphs[g].total_ns()),
            n.ns
        ))
    });
    html! {
        <figure class="card-flat flame-view" data-testid={testid}>
            <div class="flame-tools">
                <label>{"Search frames "}
                    <input type="search" placeholder="e.g. spin_lock" value={(*search).clone()}
                        oninput={on_search} data-testid="flame-search" />
                </label>
                <span class="muted">{"Click or Enter: zoom in; click the top row or Esc: out."}</span>
            </div>
            <div class="flame-grid" ref={grid} {onclick} {onkeydown} onfocusin={on_focus.reform(|e: FocusEvent| e.into())} onmouseover={on_focus.reform(|e: MouseEvent| e.into())}>
                { for graphs.iter().enumerate().map(|(g, graph)| graph_section(&out.experiment, graph, &trees[g], g, zoom[g], &search)) }
            </div>
            <p class="flame-focus" aria-live="polite" data-testid="flame-focus">
                { focused.unwrap_or_else(|| "Hover or focus a frame to read its exact share.".to_string()) }
            </p>
            if let Some(a) = props.ctx.pinned_output() {
                <diff::DiffFlames {a} b={out.clone()} flames={props.flames} />
            }
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::FoldedStack;

    fn graph() -> FlameGraph {
        let s = |f: &[&str], ns| FoldedStack { frames: f.iter().map(|x| x.to_string()).collect(), ns };
        FlameGraph {
            id: "before".into(),
            title: "t <b>".into(),
            stacks: vec![s(&["k", "a", "queued_spin_lock_slowpath"], 300), s(&["k", "b"], 100)],
        }
    }

    #[test]
    fn draws_every_frame_with_its_share_and_escapes_names() {
        let n = graph().nodes();
        let svg = flame_svg("t <b>", &n, 0, None, "");
        assert_eq!(svg.matches("<rect").count(), 4);
        assert!(
            svg.contains("<title>queued_spin_lock_slowpath: 75.00 % of all samples")
                && svg.contains("aria-label=\"t &lt;b&gt;\"")
        );
        assert!(svg.starts_with("<svg xmlns="));
        // Zoomed into `b`: its ancestor `k` and itself only, `b` full width.
        let b = n.iter().position(|x| x.name == "b").unwrap() as u32;
        let z = flame_svg("t", &n, 0, Some(b), "");
        assert_eq!(z.matches("<rect").count(), 2);
        assert!(z.contains(r#"width="639.5""#));
    }

    #[test]
    fn draws_every_root_of_a_graph_with_several() {
        // One root per CPU (cross-cpu-free): unzoomed, both roots and their frames are drawn.
        let s = |f: &[&str], ns| FoldedStack { frames: f.iter().map(|x| x.to_string()).collect(), ns };
        let g = FlameGraph {
            id: "flame".into(),
            title: "t".into(),
            stacks: vec![s(&["CPU 0", "iperf", "a"], 300), s(&["CPU 1", "iperf", "b"], 100)],
        };
        let svg = flame_svg("t", &g.nodes(), 0, None, "");
        assert_eq!(svg.matches("<rect").count(), 6);
        assert!(svg.contains("data-name=\"CPU 0\"") && svg.contains("data-name=\"CPU 1\""));
    }

    #[test]
    fn zoom_steps_in_and_out_and_never_onto_the_only_root() {
        let n = graph().nodes();
        let at = |name: &str| n.iter().position(|x| x.name == name).unwrap() as u32;
        let (k, a, spin) = (at("k"), at("a"), at("queued_spin_lock_slowpath"));
        assert_eq!(zoom_step(&n, None, a), Some(a));
        assert_eq!(zoom_step(&n, Some(a), spin), Some(spin));
        assert_eq!(zoom_step(&n, Some(spin), spin), Some(a), "the zoomed frame again: out one level");
        assert_eq!(zoom_step(&n, Some(spin), a), None, "above it: out to its parent, here the only root: no zoom");
        assert_eq!(zoom_step(&n, None, k), None);
    }

    #[test]
    fn search_highlights_and_sums_outer_matches_once() {
        let n = graph().nodes();
        assert!(flame_svg("t", &n, 0, None, "SPIN").contains("rgb(230,0,230)"));
        assert!((matched_pct(&n, 400, "a") - 75.0).abs() < 1e-9, "'a' matches a and ..._slowpath under it");
        assert_eq!(matched_pct(&n, 400, ""), 0.0);
    }
}
