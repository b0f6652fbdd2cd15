//! Text metrics the charts lay out with before anything is drawn: the backend measures
//! text only while drawing, so margins, legends and wraps use this estimate (or the larger of
//! it and a real measure: [`super::layout`]).

/// An estimate of the width of `text` at `size` (any pixel unit), as wide as DejaVu Sans.
pub fn text_width(text: &str, size: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '|' | '\'' | '!' => 0.3,
            '.' | ',' | ':' | ';' | ' ' => 0.34,
            'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '-' | '/' | '–' => 0.42,
            'm' | 'W' | '%' | '@' | '—' => 1.0,
            'w' | 'M' | '×' => 0.88,
            'A'..='Z' => 0.75,
            '0'..='9' => 0.64,
            _ => 0.62,
        })
        .sum();
    em * size
}
