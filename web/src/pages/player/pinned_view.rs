//! On a one-column screen (a phone, a narrow tablet: `max-width: 980px`, where style.css
//! stacks the player), the step's main view stays in sight while the learner moves a knob:
//! while focus is on a control of the parameter panel, the first view that draws (a canvas
//! or an SVG, not veiled by an open question) is pinned under the sticky header, scaled to at
//! most 40 % of the screen's height, until focus leaves the panel or the view's own
//! place scrolls back into sight. An empty box of the view's height holds its place, so
//! nothing under the learner's finger moves; the control is scrolled clear of the pinned view.
//!
//! Why pinned rather than reordered ("views above the panel"): a step shows one to five views
//! (a diagram, a chart, a perf report, a table...), so with the views first the panel lands
//! several screens under the chart it moves, and with the panel first (the desktop's reading
//! order: text, knobs, views) the chart lands under the panel; no order puts the chart and the
//! knob of a 780 px screen side by side. Pinning shows the view only while it is needed, keeps
//! the document and tab order as they are (screen readers and keyboards see no change), and
//! works for any first view, canvas or SVG, without drawing it twice.

use gloo_events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};
use yew::prelude::*;

/// The player's one-column layout (style.css, `.player-grid`).
const ONE_COLUMN: &str = "(max-width: 980px)";
/// The main view: the first slot of the views column that draws and is not veiled.
const MAIN_VIEW: &str = "#views > .view-slot:has(canvas, svg):not(:has(.veil))";
const PANEL: &str = "[data-testid=\"param-panel\"]";
/// Room between the pinned view and the control in use, in CSS pixels.
const GAP_PX: f64 = 8.0;
/// The share of the screen's height the pinned view takes at most.
const PINNED_SHARE: f64 = 0.4;

/// Pins the main view while a control of the panel has focus (see the module doc).
#[hook]
pub fn use_pinned_main_view() {
    use_effect_with((), |_| {
        let listeners = web_sys::window().and_then(|w| Some((w.document()?, w))).map(|(doc, w)| {
            let on_focusin = EventListener::new(&doc, "focusin", |_| update(None));
            // Focus moving between two controls of the panel leaves it pinned.
            let on_focusout = EventListener::new(&doc, "focusout", |e| update(related_target(e)));
            let on_scroll = EventListener::new(&w, "scroll", |_| update(None));
            let on_resize = EventListener::new(&w, "resize", |_| update(None));
            [on_focusin, on_focusout, on_scroll, on_resize]
        });
        move || {
            drop(listeners);
            if let Some(slot) = document().and_then(|d| d.query_selector(".view-slot.pinned").ok().flatten()) {
                unpin(&slot);
            }
        }
    });
}

fn document() -> Option<Document> {
    web_sys::window()?.document()
}

/// The element focus moves to on a `focusout` (`None`: outside the page, or not known).
fn related_target(e: &web_sys::Event) -> Option<Element> {
    js_sys::Reflect::get(e, &"relatedTarget".into()).ok()?.dyn_into::<Element>().ok()
}

/// Whether `el` is a control inside the parameter panel.
fn is_panel_control(el: &Element) -> bool {
    let control = matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA");
    control && el.closest(PANEL).ok().flatten().is_some()
}

/// Pins or unpins the main view for the focus now (or, on a `focusout`, the focus to come:
/// `next`).
fn update(next: Option<Element>) {
    let (Some(w), Some(doc)) = (web_sys::window(), document()) else { return };
    let one_column = w.match_media(ONE_COLUMN).ok().flatten().is_some_and(|m| m.matches());
    let focused = next.or_else(|| doc.active_element());
    let wanted = one_column && focused.as_ref().is_some_and(is_panel_control);
    let pinned = doc.query_selector(".view-slot.pinned").ok().flatten();
    let main = doc.query_selector(MAIN_VIEW).ok().flatten();
    let header_bottom = doc
        .query_selector(".site-header")
        .ok()
        .flatten()
        .map_or(0.0, |h| h.get_bounding_client_rect().bottom().max(0.0));
    let height = w.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    // The slot's own place (the empty box while pinned) wholly in sight: no need to pin.
    let in_sight = |slot: &Element| {
        let r = slot.get_bounding_client_rect();
        r.top() >= header_bottom - 1.0 && r.bottom() <= height + 1.0
    };
    match (pinned, main) {
        (Some(slot), _) if !wanted || in_sight(&slot) => unpin(&slot),
        (None, Some(slot)) if wanted && !in_sight(&slot) => {
            pin(&slot, header_bottom);
            if let Some(control) = focused {
                clear_of_pinned(&w, &slot, &control);
            }
        }
        _ => {}
    }
}

/// Pins the view of `slot` under the header at `top_px`: at its own place's width (a chart
/// redrawn while pinned, the knob moving, is laid out for the width it has in the column) and
/// scaled down (a transform, which leaves that width alone) to [`PINNED_SHARE`] of the screen.
fn pin(slot: &Element, top_px: f64) {
    let (Some(view), Some(w)) = (slot.first_element_child(), web_sys::window()) else { return };
    let place = slot.get_bounding_client_rect();
    // A chart's words (summary, data table) are not pinned (style.css): not counted.
    let words = view.query_selector_all(".chart-text").ok();
    let words_h: f64 = words.map_or(0.0, |list| {
        (0..list.length())
            .filter_map(|i| list.item(i)?.dyn_into::<Element>().ok())
            .map(|el| el.get_bounding_client_rect().height())
            .sum()
    });
    let view_h = (view.get_bounding_client_rect().height() - words_h).max(1.0);
    let screen_h = w.inner_height().ok().and_then(|v| v.as_f64()).unwrap_or(view_h);
    let scale = (PINNED_SHARE * screen_h / view_h).min(1.0);
    let style = format!(
        "min-height: {}px; --pin-top: {top_px}px; --pin-left: {}px; --pin-width: {}px; --pin-scale: {scale}; --pin-height: {}px",
        place.height(),
        place.left(),
        place.width(),
        view_h * scale
    );
    let _ = slot.set_attribute("style", &style);
    let _ = slot.class_list().add_1("pinned");
}

fn unpin(slot: &Element) {
    let _ = slot.class_list().remove_1("pinned");
    let _ = slot.remove_attribute("style");
}

/// Scrolls the page so that `control` sits under the pinned view, not behind it.
fn clear_of_pinned(w: &web_sys::Window, slot: &Element, control: &Element) {
    let Some(view) = slot.first_element_child() else { return };
    let covered_to = view.get_bounding_client_rect().bottom() + GAP_PX;
    let top = control.get_bounding_client_rect().top();
    if top < covered_to {
        w.scroll_by_with_x_and_y(0.0, top - covered_to);
    }
}
