//! Custom SVG views laid out for the width they are drawn at (a phone's as well as a desktop's).
//!
//! An SVG with a fixed `viewBox` scales to its column: a 600-unit drawing with 13-unit text
//! in a phone's 300 CSS px column shows that text at 6.5 px. Each custom SVG view therefore
//! draws two layouts: its desktop one (unchanged, a fixed viewBox scaled to the column) at
//! [`Fit::Wide`], and below [`NARROW_BELOW_CSS_PX`] a narrow one ([`Fit::Narrow`]) whose
//! viewBox is exactly the measured CSS width, so one user unit is one CSS pixel and a font
//! size is the size on screen; there the view lays its parts out again (lanes stacked, fewer
//! ticks, labels above instead of beside). [`use_fit`] measures the drawn `<svg data-fit>` (or,
//! before it exists, guesses from the viewport), again on every window width change.
//!
//! Text widths are estimated by [`text_w`] (as wide as DejaVu Sans, wider than Roboto or Arial:
//! a label sized by it fits in the browser's font), as `charts/layout.rs` does for the canvas.

use yew::prelude::*;

/// Below this CSS width a view draws its narrow layout (the charts' threshold).
pub const NARROW_BELOW_CSS_PX: f64 = crate::charts::layout::NARROW_BELOW_CSS_PX;
/// The narrowest width a narrow layout is drawn for (a smaller box scrolls its drawing).
pub const MIN_CSS_PX: f64 = 260.0;
/// Font sizes of a narrow layout, in CSS pixels: labels and their small print.
pub const FONT: f64 = 13.0;
pub const SMALL_FONT: f64 = 11.5;

/// How a view is laid out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fit {
    /// The desktop drawing, scaled to its column.
    Wide,
    /// Drawn for this many CSS pixels: one user unit is one CSS pixel.
    Narrow(f64),
}

impl Fit {
    /// The layout for a drawing `css_w` CSS pixels wide (`None`: not known, the desktop one).
    pub fn for_width(css_w: Option<f64>) -> Fit {
        match css_w {
            Some(w) if w.is_finite() && w > 0.0 && w < NARROW_BELOW_CSS_PX => Fit::Narrow(w.max(MIN_CSS_PX).floor()),
            _ => Fit::Wide,
        }
    }

    /// The narrow width, if narrow.
    pub fn narrow(self) -> Option<f64> {
        match self {
            Fit::Narrow(w) => Some(w),
            Fit::Wide => None,
        }
    }
}

/// The font sizes of a layout's text: on a narrow box [`FONT`] for labels and [`SMALL_FONT`]
/// for their small print; on the desktop each text keeps its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fonts(pub Option<(f64, f64)>);

impl Fonts {
    /// The narrow sizes for a narrow box, none for the desktop.
    pub fn of(fit: Fit) -> Fonts {
        Fonts(fit.narrow().map(|_| (FONT, SMALL_FONT)))
    }

    /// A text's size: `wide` on the desktop, the narrow label or (`small`) small-print size.
    pub fn size(self, wide: f64, small: bool) -> f64 {
        self.0.map_or(wide, |(big, little)| if small { little } else { big })
    }

    /// A text's `style` on a narrow box; empty on the desktop, where its CSS sizes it.
    pub fn style(self, small: bool) -> String {
        self.0.map_or(String::new(), |_| format!("font-size: {}px", self.size(0.0, small)))
    }

    /// The drawing's `data-fit`: `narrow` or `wide`.
    pub fn data_fit(self) -> &'static str {
        if self.0.is_some() {
            "narrow"
        } else {
            "wide"
        }
    }
}

/// The width of `text` at `font_px`, estimated from above (DejaVu Sans: digits 0.636 em, most
/// lower case 0.52–0.64 em, narrow letters and punctuation 0.28–0.41 em, wide ones more).
/// Bold text is about a seventh wider: [`BOLD`].
pub fn text_w(text: &str, font_px: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' | '(' | ')' | '[' | ']' | 'f' | 't'
            | 'r' | '·' => 0.42,
            'm' | 'w' | 'M' | 'W' | '@' | '%' | '—' | '→' | '↑' | '⋮' => 1.0,
            '#' | '+' | '=' | '<' | '>' | '~' | '–' => 0.84,
            c if c.is_ascii_uppercase() => 0.76,
            _ => 0.64,
        })
        .sum();
    em * font_px
}

/// How much wider bold text is than [`text_w`] says.
pub const BOLD: f64 = 1.15;

/// The width of `text` in a monospace font at `font_px` (DejaVu Sans Mono: 0.602 em).
pub fn mono_w(text: &str, font_px: f64) -> f64 {
    text.chars().count() as f64 * 0.61 * font_px
}

/// The layout for the box bound to the returned node: the width of its `<svg data-fit>` (or of
/// the box, before the drawing exists), measured after every render and on every change of
/// the window's width; before the first measure, the viewport's width less a phone's margins.
#[hook]
pub fn use_fit() -> (NodeRef, Fit) {
    let node = use_node_ref();
    let width = use_state_eq(|| crate::browser::viewport_width().map(|w| (w - 48.0).round()));
    let generation = use_state_eq(|| 0u32);
    {
        let (node, width) = (node.clone(), width.clone());
        use_effect(move || {
            if let Some(w) = measure(&node) {
                width.set(Some(w));
            }
        });
    }
    {
        let generation = generation.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| {
                let last = std::cell::Cell::new(crate::browser::viewport_width().unwrap_or(0.0));
                gloo_events::EventListener::new(&w, "resize", move |_| {
                    // Only a width change (phones fire resize on scroll).
                    let now = crate::browser::viewport_width().unwrap_or(0.0);
                    if (now - last.get()).abs() >= 1.0 {
                        last.set(now);
                        generation.set(*generation + 1);
                    }
                })
            });
            move || drop(listener)
        });
    }
    (node, Fit::for_width(*width))
}

/// The CSS width of the fitted drawing inside `node` (its box's when there is none yet),
/// rounded to whole pixels so that a measure does not redraw for a fraction.
fn measure(node: &NodeRef) -> Option<f64> {
    let el = node.cast::<web_sys::Element>()?;
    let target = el.query_selector("svg[data-fit]").ok().flatten().unwrap_or(el);
    let w = target.get_bounding_client_rect().width();
    (w > 0.0).then(|| w.round())
}

/// The font size of every `<text>` of `markup` (its `font-size` attribute or style; 0 when it
/// has neither), for the views' tests.
#[cfg(test)]
pub fn text_font_sizes(markup: &str) -> Vec<f64> {
    markup
        .split("<text ")
        .skip(1)
        .map(|t| {
            let head = &t[..t.find('>').unwrap_or(t.len())];
            let at = head.find("font-size=\"").map(|i| i + 11).or_else(|| head.find("font-size: ").map(|i| i + 11));
            at.and_then(|i| head[i..].split(|c: char| c != '.' && !c.is_ascii_digit()).next()?.parse().ok())
                .unwrap_or(0.0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_below_the_charts_threshold_and_never_narrower_than_the_minimum() {
        assert_eq!(Fit::for_width(None), Fit::Wide);
        assert_eq!(Fit::for_width(Some(700.0)), Fit::Wide);
        assert_eq!(Fit::for_width(Some(0.0)), Fit::Wide);
        assert_eq!(Fit::for_width(Some(f64::NAN)), Fit::Wide);
        assert_eq!(Fit::for_width(Some(312.6)), Fit::Narrow(312.0));
        assert_eq!(Fit::for_width(Some(200.0)), Fit::Narrow(MIN_CSS_PX));
        assert_eq!(Fit::Narrow(300.0).narrow(), Some(300.0));
    }

    #[test]
    fn fonts_are_the_narrow_sizes_on_a_narrow_box_and_each_texts_own_on_the_desktop() {
        let (wide, narrow) = (Fonts::of(Fit::Wide), Fonts::of(Fit::Narrow(300.0)));
        assert_eq!((wide.size(12.0, true), wide.style(true), wide.data_fit()), (12.0, String::new(), "wide"));
        assert_eq!(
            (narrow.size(12.0, true), narrow.size(12.0, false), narrow.data_fit()),
            (SMALL_FONT, FONT, "narrow")
        );
        assert_eq!(
            (narrow.style(false), narrow.style(true)),
            ("font-size: 13px".to_string(), "font-size: 11.5px".to_string())
        );
    }

    #[test]
    fn text_widths_are_estimated_from_above() {
        // DejaVu Sans at 13 px: "kfree_skb · 128 B" is about 113 px wide.
        assert!(text_w("kfree_skb · 128 B", 13.0) >= 110.0);
        assert!(text_w("THREAD_SIZE", 11.5) >= 85.0);
        assert!(mono_w("cpu 12", 13.0) > 45.0);
    }

    #[test]
    fn font_sizes_are_read_from_attributes_and_styles() {
        let m = r#"<text x="1" font-size="12">a</text><text style="font-size: 11.5px">b</text><text x="0">c</text>"#;
        assert_eq!(text_font_sizes(m), vec![12.0, 11.5, 0.0]);
    }
}
