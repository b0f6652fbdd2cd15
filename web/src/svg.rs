//! Markup written as text: the large SVG views write their drawing into one `String` with
//! [`svg!`](crate::svg!) and hand it to Yew once ([`into_html`], a raw node), instead of one
//! `html!` element per shape (each `html!` element expands to a lot of wasm code; a format
//! string is data, and only its holes cost code).
//!
//! Safety: markup comes only from the macro's string literal; every value put in a hole goes
//! through [`Esc`], which escapes the five XML special characters `& < > " '`, whatever the
//! value's type or origin (core's names, numbers, formatted text). The macro rejects, at compile
//! time, literals with anything but plain `{}` holes, so no value can be captured by name
//! (`{label}`) and bypass the escaping. Values that need a format spec are passed as
//! `format_args!("{:.3}", x)`: the escaping applies to its whole output.
//!
//! The string is parsed by the browser's HTML parser (`innerHTML` of a `div`), where an `<svg>`
//! element and its children get the SVG namespace. Self-closing tags (`<rect/>`) are for SVG
//! elements only; HTML elements need their closing tag.

use std::fmt::{self, Display, Write};
use yew::{AttrValue, Html};

/// Writes markup into a `String`: `svg!(out, r#"<rect x="{}"/>"#, x)`. Every argument is
/// escaped ([`Esc`]); the format string (a literal or `concat!` of literals) may only have
/// plain `{}` holes (checked at compile time).
#[macro_export]
macro_rules! svg {
    ($out:expr, $fmt:expr $(, $arg:expr)* $(,)?) => {{
        const _: () = assert!($crate::svg::plain_holes($fmt), "svg!: every hole must be a plain, unnamed pair of braces");
        let _ = ::std::fmt::Write::write_fmt($out, format_args!($fmt $(, $crate::svg::Esc(&$arg))*));
    }};
}

/// A value displayed with `& < > " '` escaped.
pub struct Esc<'a, T: Display + ?Sized>(pub &'a T);

impl<T: Display + ?Sized> Display for Esc<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(Escaping(f), "{}", self.0)
    }
}

/// The one escaping writer: passes text on with the five XML special characters replaced.
struct Escaping<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl Write for Escaping<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut rest = s;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            self.0.write_str(&rest[..at])?;
            self.0.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        self.0.write_str(rest)
    }
}

/// `text` with `& < > " '` escaped.
pub fn escape(text: &dyn Display) -> String {
    Esc(text).to_string()
}

/// True if every hole of the format string `fmt` is a plain `{}` (`{{` is a literal brace).
pub const fn plain_holes(fmt: &str) -> bool {
    let b = fmt.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' {
            if i + 1 < b.len() && (b[i + 1] == b'{' || b[i + 1] == b'}') {
                i += 2;
                continue;
            }
            return false;
        }
        i += 1;
    }
    true
}

/// The markup as one raw Yew node. Safe when written with [`svg!`](crate::svg!) only.
pub fn into_html(markup: String) -> Html {
    Html::from_html_unchecked(AttrValue::from(markup))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_five_special_characters_are_escaped() {
        assert_eq!(escape(&"a & b < c > d \" e ' f"), "a &amp; b &lt; c &gt; d &quot; e &#39; f");
        assert_eq!(escape(&"zone->lock · 4 KiB"), "zone-&gt;lock · 4 KiB");
        assert_eq!(escape(&"&&"), "&amp;&amp;");
        assert_eq!(escape(&1.5), "1.5");
        assert_eq!(escape(&format_args!("{:.1} <{}>", 2.25, "b")), "2.2 &lt;b&gt;");
    }

    #[test]
    fn an_injection_attempt_stays_text() {
        let evil = "\"><script>alert(1)</script><g onload='x' a=\"";
        let mut out = String::new();
        svg!(&mut out, r#"<g class="{}"><text x="{}">{}</text></g>"#, evil, 1.0, format_args!("[{}]", evil));
        // Only the literal's four tags open with `<`, and no quote of the input survives.
        assert_eq!(out.matches('<').count(), 4, "{out}");
        assert!(!out.contains("<script") && !out.contains('\'') && out.matches('"').count() == 4, "{out}");
        assert_eq!(
            out,
            "<g class=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;g onload=&#39;x&#39; a=&quot;\">\
             <text x=\"1\">[&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;g onload=&#39;x&#39; a=&quot;]</text></g>"
        );
    }

    #[test]
    fn numbers_are_written_as_display_writes_them() {
        let mut out = String::new();
        svg!(&mut out, r#"<rect x="{}" y="{}" width="{}"/>"#, 112.0, 0.1 + 0.2, 7u64);
        assert_eq!(out, r#"<rect x="112" y="0.30000000000000004" width="7"/>"#);
    }

    #[test]
    fn only_plain_holes_are_accepted() {
        assert!(plain_holes(r#"<a x="{}">{}</a> {{literal}}"#) && plain_holes(""));
        assert!(!plain_holes("{label}") && !plain_holes("{:?}") && !plain_holes("{0}") && !plain_holes("{"));
    }
}
