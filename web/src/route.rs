//! The app's routes and their URL form, as a pure module (no yew, no browser).
//!
//! Every view of skblab is addressed by the hash part of the URL, so that a link reproduces it
//! and the app works from any static file server:
//!
//! | URL                                            | route                          |
//! |------------------------------------------------|--------------------------------|
//! | `#/`                                           | [`Route::Home`]                |
//! | `#/about`                                      | [`Route::About`]               |
//! | `#/reproduce?seeds=N`                          | [`Route::Reproduce`]           |
//! | `#/validation`                                 | [`Route::Validation`]          |
//! | `#/machine`                                    | [`Route::Machine`]             |
//! | `#/lesson/<slug>/<step>?name=value&seed=N`     | [`Route::Lesson`] (step from 1)|
//! | `#/play/<experiment>?name=value&seed=N`        | [`Route::Play`]                |
//!
//! Parsing never fails: whatever cannot be understood becomes a [`Route::NotFound`] or a
//! problem string in [`Location::problems`], which the page shows as a notice (a query on a
//! page that takes none is one too: it is dropped, and the notice says so). Path segments are
//! percent-decoded only (`+` is a plus there; in the query it is a space, as in forms). Whether a
//! lesson, parameter or value exists is decided later by [`crate::pages::resolve`], which knows the
//! lessons and the experiments.

use skblab_core::params::{echo, echo_within};

/// One page of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Home,
    About,
    /// Every seed table beside the simulation.
    Reproduce,
    /// Every seed table's verdict, degrees of freedom and in-/out-of-sample errors.
    Validation,
    /// "Your machine": a measurement of a real Linux box held against the model.
    Machine,
    /// A lesson at a step, counted from 1 as in the URL.
    Lesson {
        slug: String,
        step: usize,
    },
    /// The playground of one experiment, or the list of experiments when `None`.
    Play {
        experiment: Option<String>,
    },
    NotFound {
        path: String,
    },
}

/// A parsed URL hash: the route, the query pairs in URL order, and what could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub route: Route,
    pub query: Vec<(String, String)>,
    pub problems: Vec<String>,
}

impl Location {
    pub fn new(route: Route, query: Vec<(String, String)>) -> Location {
        Location { route, query, problems: Vec::new() }
    }
}

/// Parses `#/path?query` (the leading `#` and `/` are optional).
pub fn parse(hash: &str) -> Location {
    let text = hash.strip_prefix('#').unwrap_or(hash);
    let (path, query_text) = text.split_once('?').unwrap_or((text, ""));
    let mut problems = Vec::new();
    let query = parse_query(query_text, &mut problems);
    let segments: Vec<String> =
        path.split('/').filter(|s| !s.is_empty()).map(|s| decode_path(s).unwrap_or_else(|| s.to_string())).collect();
    let parts: Vec<&str> = segments.iter().map(String::as_str).collect();
    let route = match parts.as_slice() {
        [] => Route::Home,
        ["about"] => Route::About,
        ["reproduce"] => Route::Reproduce,
        ["validation"] => Route::Validation,
        ["machine"] => Route::Machine,
        ["play"] => Route::Play { experiment: None },
        ["play", id] => Route::Play { experiment: Some(id.to_string()) },
        ["lesson", slug] => Route::Lesson { slug: slug.to_string(), step: 1 },
        ["lesson", slug, step] => {
            let step = match parse_step(step) {
                Some(n) => n,
                None => {
                    problems.push(format!(
                        "bad step '{}' in the URL: expected a step number from 1; showing step 1",
                        echo(step)
                    ));
                    1
                }
            };
            Route::Lesson { slug: slug.to_string(), step }
        }
        _ => Route::NotFound { path: format!("/{}", parts.join("/")) },
    };
    if takes_no_query(&route) && !query.is_empty() {
        let names: Vec<String> = query.iter().map(|(k, _)| format!("'{}'", echo(k))).collect();
        problems.push(echo_within(
            &format!("this page takes no URL parameters; ignored {}", names.join(", ")),
            MAX_PROBLEM_CHARS,
        ));
    }
    Location { route, query, problems }
}

/// The longest "ignored …" problem, in characters (many names are cut with `…`).
const MAX_PROBLEM_CHARS: usize = 200;

/// Pages whose URL carries no parameters: a query there is dropped with a notice.
fn takes_no_query(route: &Route) -> bool {
    matches!(route, Route::Home | Route::About | Route::Validation | Route::Machine | Route::Play { experiment: None })
}

/// A step number as the URL writes it: decimal digits, from 1, no sign and no leading zero.
fn parse_step(text: &str) -> Option<usize> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) && !text.starts_with('0');
    digits.then(|| text.parse::<usize>().ok()).flatten()
}

/// The hash for a location (problems are not part of a URL).
pub fn format(location: &Location) -> String {
    let path = match &location.route {
        Route::Home => "/".to_string(),
        Route::About => "/about".to_string(),
        Route::Reproduce => "/reproduce".to_string(),
        Route::Validation => "/validation".to_string(),
        Route::Machine => "/machine".to_string(),
        Route::Play { experiment: None } => "/play".to_string(),
        Route::Play { experiment: Some(id) } => format!("/play/{}", encode(id)),
        Route::Lesson { slug, step } => format!("/lesson/{}/{step}", encode(slug)),
        Route::NotFound { path } => path.clone(),
    };
    if location.query.is_empty() {
        format!("#{path}")
    } else {
        let pairs: Vec<String> = location.query.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
        format!("#{path}?{}", pairs.join("&"))
    }
}

/// The hash of a route without query.
pub fn href(route: Route) -> String {
    format(&Location::new(route, Vec::new()))
}

fn parse_query(text: &str, problems: &mut Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for pair in text.split('&').filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            problems.push(format!("malformed URL parameter '{}': expected name=value", echo(pair)));
            continue;
        };
        match (decode(key), decode(value)) {
            (Some(k), Some(v)) => out.push((k, v)),
            _ => problems.push(format!("malformed URL parameter '{}': bad percent-encoding", echo(pair))),
        }
    }
    out
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes (and `+` as space, as a query writes it); `None` for broken escapes or
/// invalid UTF-8.
pub fn decode(text: &str) -> Option<String> {
    decode_with(text, true)
}

/// Decodes `%XX` escapes of a path segment (`+` stays `+`); `None` as for [`decode`].
pub fn decode_path(text: &str) -> Option<String> {
    decode_with(text, false)
}

fn decode_with(text: &str, plus_is_space: bool) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn parses_every_route() {
        assert_eq!(parse("").route, Route::Home);
        assert_eq!(parse("#/").route, Route::Home);
        assert_eq!(parse("#/about").route, Route::About);
        assert_eq!(parse("#/reproduce").route, Route::Reproduce);
        assert_eq!(parse("#/validation").route, Route::Validation);
        assert_eq!(parse("#/machine").route, Route::Machine);
        assert_eq!(parse("#/machine/").route, Route::Machine);
        assert_eq!(parse("#/machine/x").route, Route::NotFound { path: "/machine/x".into() });
        assert_eq!(parse("#/play").route, Route::Play { experiment: None });
        assert_eq!(parse("#/play/skb-layout").route, Route::Play { experiment: Some("skb-layout".into()) });
        assert_eq!(parse("#/lesson/skb-layout").route, Route::Lesson { slug: "skb-layout".into(), step: 1 });
        let loc = parse("#/lesson/skb-layout/3?mtu=9000&seed=7");
        assert_eq!(loc.route, Route::Lesson { slug: "skb-layout".into(), step: 3 });
        assert_eq!(loc.query, q(&[("mtu", "9000"), ("seed", "7")]));
        assert!(loc.problems.is_empty());
        assert_eq!(parse("#/nowhere/x").route, Route::NotFound { path: "/nowhere/x".into() });
    }

    #[test]
    fn bad_parts_become_problems_not_panics() {
        let loc = parse("#/lesson/skb-layout/zero?mtu&x=%ZZ&ok=1");
        assert_eq!(loc.route, Route::Lesson { slug: "skb-layout".into(), step: 1 });
        assert_eq!(loc.query, q(&[("ok", "1")]));
        assert_eq!(loc.problems.len(), 3, "{:?}", loc.problems);
        assert!(loc.problems[0].contains("'mtu'"));
        assert!(loc.problems[2].contains("bad step 'zero'"));
        assert!(parse("#/lesson/skb-layout/0").problems[0].contains("bad step '0'"));
    }

    #[test]
    fn a_step_is_plain_digits_and_shown_as_written() {
        for (text, shown) in
            [("+2", "'+2'"), ("%2B2", "'+2'"), ("02", "'02'"), ("-1", "'-1'"), ("%202", "' 2'"), ("2a", "'2a'")]
        {
            let loc = parse(&format!("#/lesson/skb-layout/{text}"));
            assert_eq!(loc.route, Route::Lesson { slug: "skb-layout".into(), step: 1 }, "{text}");
            assert_eq!(loc.problems.len(), 1, "{text}: {:?}", loc.problems);
            assert!(loc.problems[0].starts_with(&format!("bad step {shown} in the URL")), "{text}: {:?}", loc.problems);
        }
        assert_eq!(parse("#/lesson/skb-layout/12").route, Route::Lesson { slug: "skb-layout".into(), step: 12 });
        assert_eq!(
            parse("#/play/a+b").route,
            Route::Play { experiment: Some("a+b".into()) },
            "'+' in a path is a plus"
        );
        assert_eq!(decode_path("a+b%20c").as_deref(), Some("a+b c"));
    }

    #[test]
    fn a_query_on_a_page_without_parameters_is_a_notice() {
        for hash in ["#/about?x=1", "#/?step=2", "#/validation?x=", "#/machine?file=a", "#/play?mtu=9000"] {
            let loc = parse(hash);
            assert!(
                loc.problems.iter().any(|p| p.starts_with("this page takes no URL parameters; ignored")),
                "{hash}: {:?}",
                loc.problems
            );
        }
        assert!(parse("#/about?x=%E2%80%A6&y=2").problems[0].ends_with("ignored 'x', 'y'"));
        let many: Vec<String> = (0..500).map(|i| format!("k{i}=1")).collect();
        let loc = parse(&format!("#/about?{}", many.join("&")));
        assert!(loc.problems[0].chars().count() <= MAX_PROBLEM_CHARS + 1, "{}", loc.problems[0]);
        for hash in
            ["#/about", "#/", "#/reproduce?seeds=3", "#/play/skb-layout?mtu=9000", "#/lesson/skb-layout/2?mtu=9000"]
        {
            assert!(parse(hash).problems.is_empty(), "{hash}");
        }
    }

    #[test]
    fn format_round_trips() {
        let cases = [
            Location::new(Route::Home, vec![]),
            Location::new(Route::About, vec![]),
            Location::new(Route::Reproduce, vec![]),
            Location::new(Route::Reproduce, q(&[("seeds", "3")])),
            Location::new(Route::Validation, vec![]),
            Location::new(Route::Machine, vec![]),
            Location::new(Route::Play { experiment: None }, vec![]),
            Location::new(
                Route::Play { experiment: Some("skb-layout".into()) },
                q(&[("preset", "linux-4.x-6.3-x86_64")]),
            ),
            Location::new(
                Route::Lesson { slug: "skb-layout".into(), step: 4 },
                q(&[("mtu", "9000"), ("note", "a b&c=d/é")]),
            ),
        ];
        for loc in cases {
            let text = format(&loc);
            assert_eq!(parse(&text), loc, "{text}");
        }
        assert_eq!(href(Route::Lesson { slug: "skb-layout".into(), step: 2 }), "#/lesson/skb-layout/2");
        assert_eq!(href(Route::Machine), "#/machine");
    }

    #[test]
    fn decode_rejects_broken_escapes() {
        assert_eq!(decode("a%20b+c").as_deref(), Some("a b c"));
        assert_eq!(decode("%"), None);
        assert_eq!(decode("%4"), None);
        assert_eq!(decode("%FF"), None);
    }
}
