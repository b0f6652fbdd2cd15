//! Unit tests of `params`: specs, parsing, the strict decimal forms and the wire format.

use super::*;

fn specs() -> Vec<ParamSpec> {
    vec![
        ParamSpec::int("mtu", "bytes", 1500, (68, 9216, 1)),
        ParamSpec::boolean("pcp_high_order", false),
        ParamSpec::choice("preset", &["a", "b"], 1),
        ParamSpec::pow2("page_size", "bytes", 4096, (4096, 65536)),
    ]
}

#[test]
fn defaults_and_overrides() {
    let p = Params::from_settings("x", specs(), &["mtu=9000", "pcp_high_order=true"]).unwrap();
    assert_eq!(p.int("mtu"), 9000);
    assert!(p.bool("pcp_high_order"));
    assert_eq!(p.choice("preset"), "b");
    assert!(p.is_explicit("mtu") && !p.is_explicit("preset"));
}

#[test]
fn errors_name_parameter_value_and_range() {
    let e = Params::from_settings("x", specs(), &["mtu=20"]).unwrap_err().to_string();
    assert_eq!(e, "bad value '20' for parameter 'mtu': expected an integer in 68..=9216");
    let e = Params::from_settings("x", specs(), &["mtu=big"]).unwrap_err().to_string();
    assert!(e.contains("'big'") && e.contains("68..=9216"), "{e}");
    let e = Params::from_settings("x", specs(), &["nope=1"]).unwrap_err().to_string();
    assert!(e.contains("unknown parameter 'nope'") && e.contains("mtu, pcp_high_order, preset, page_size"), "{e}");
    let e = Params::from_settings("x", specs(), &["preset=c"]).unwrap_err().to_string();
    assert!(e.contains("one of a, b"), "{e}");
    let e = Params::from_settings("x", specs(), &["page_size=5000"]).unwrap_err().to_string();
    assert_eq!(e, "bad value '5000' for parameter 'page_size': expected a power of two in 4096..=65536");
    let e = Params::from_settings("x", specs(), &["mtu"]).unwrap_err().to_string();
    assert!(e.contains("malformed"), "{e}");
}

#[test]
fn off_step_values_are_rejected_in_one_line() {
    let specs = vec![ParamSpec::int("warmup_us", "us", 300, (0, 10_000, 100)), ParamSpec::int("odd", "", 3, (3, 9, 2))];
    let p = |s: &str| Params::from_settings("x", specs.clone(), &[s]);
    assert_eq!(p("warmup_us=400").unwrap().int("warmup_us"), 400);
    let e = p("warmup_us=450").unwrap_err().to_string();
    assert_eq!(e, "bad value '450' for parameter 'warmup_us': expected a multiple of 100 in 0..=10000");
    assert!(p("odd=7").is_ok());
    let e = p("odd=6").unwrap_err().to_string();
    assert_eq!(e, "bad value '6' for parameter 'odd': expected an integer in 3..=9 in steps of 2 from 3");
    let mut q = Params::new("x", specs.clone());
    assert!(q.set("warmup_us", Value::Int(50)).is_err(), "typed values are checked against the step too");
}

#[test]
fn echoed_text_is_one_short_line() {
    let e = Params::from_settings("x", specs(), &["mtu=1\n2"]).unwrap_err().to_string();
    assert_eq!(e, "bad value '1\\n2' for parameter 'mtu': expected an integer in 68..=9216");
    let e = Params::from_settings("x", specs(), &["preset=\u{1b}[31mRED"]).unwrap_err().to_string();
    assert!(e.contains("'\\u{1b}[31mRED'") && !e.contains('\u{1b}'), "{e}");
    let long = format!("preset={}", "x".repeat(100_000));
    let e = Params::from_settings("x", specs(), &[long]).unwrap_err().to_string();
    assert!(e.len() < 200 && e.contains(&format!("'{}…'", "x".repeat(ECHO_MAX_CHARS))), "{e}");
    let e = Params::from_settings("x", specs(), &["a\u{202e}b\rc=1"]).unwrap_err().to_string();
    assert!(e.starts_with("unknown parameter 'a\\u{202e}b\\rc'"), "{e}");
    assert_eq!(echo("née ✓"), "née ✓", "printable text is kept as is");
}

/// Invisible characters (format, separators, odd spaces, fillers) are escaped like control
/// characters: an echoed value shows every character it holds.
#[test]
fn echo_escapes_every_invisible_character() {
    for (c, shown) in [
        ('\u{200b}', "\\u{200b}"),
        ('\u{feff}', "\\u{feff}"),
        ('\u{ad}', "\\u{ad}"),
        ('\u{a0}', "\\u{a0}"),
        ('\u{3000}', "\\u{3000}"),
        ('\u{2060}', "\\u{2060}"),
        ('\u{2069}', "\\u{2069}"),
        ('\u{9b}', "\\u{9b}"),
        ('\u{7f}', "\\u{7f}"),
        ('\u{fe0f}', "\\u{fe0f}"),
        ('\u{3164}', "\\u{3164}"),
        ('\u{e0041}', "\\u{e0041}"),
    ] {
        let e = Params::from_settings("x", specs(), &[format!("mtu=9{c}0")]).unwrap_err().to_string();
        assert!(e.contains(&format!("'9{shown}0'")) && !e.contains(c), "{c:?}: {e}");
        assert_eq!(escape(&format!("a{c}")), format!("a{shown}"));
    }
    let e = ParamError::Invalid { message: "x\u{200b}\u{202e}y".to_string() }.to_string();
    assert_eq!(e, "x\\u{200b}\\u{202e}y");
    for kept in ["née ✓", "a b", "→ ≈ × –", "日本語", "e\u{301}"] {
        assert_eq!(escape(kept), kept, "visible text is kept as is");
    }
}

/// Values are read exactly as `skblab params` documents them, nothing else.
#[test]
fn parsing_is_strict_and_says_the_form() {
    let p = |s: &str| Params::from_settings("x", specs(), &[s]);
    for ok in ["mtu=9000", "mtu=68", "pcp_high_order=true", "pcp_high_order=false", "preset=a"] {
        assert!(p(ok).is_ok(), "{ok}");
    }
    for bad in [
        "mtu=\t+0009000\r",
        "mtu=9000\n",
        "mtu= 9000",
        "mtu=9000 ",
        "mtu=\u{3000}9000",
        "mtu=9000\u{2028}",
        "mtu=\u{a0}9000",
        "mtu=+9000",
        "mtu=09000",
        "mtu=-0",
        "mtu=9e3",
        " mtu=9000",
        "mtu =9000",
        "pcp_high_order=on",
        "pcp_high_order=yes",
        "pcp_high_order=1",
        "pcp_high_order=0",
        "pcp_high_order=TRUE",
        "pcp_high_order=true\n",
        "preset=a\n",
        "preset= a",
    ] {
        assert!(p(bad).is_err(), "{bad:?} is accepted");
    }
    let e = p("mtu=+9000").unwrap_err().to_string();
    assert_eq!(
        e,
        "bad value '+9000' for parameter 'mtu': expected an integer in 68..=9216, written in plain decimal (no spaces, no '+', no leading zeros)"
    );
    let e = p("mtu=9000\u{3000}").unwrap_err().to_string();
    assert!(e.contains("plain decimal"), "{e}");
    assert_eq!(parse_decimal("-12"), Ok(-12));
    assert_eq!(parse_decimal("0"), Ok(0));
    assert_eq!(parse_decimal("00"), Err(DecimalError::NotCanonical));
    assert_eq!(parse_decimal("abc"), Err(DecimalError::NotDecimal));
    assert_eq!(parse_decimal(""), Err(DecimalError::NotDecimal));
    assert_eq!(parse_whole("50", 1, 50), Ok(50));
    assert_eq!(parse_whole("51", 1, 50).unwrap_err(), format!("expected a whole number in 1..=50, {DECIMAL_FORM}"));
    assert!(parse_whole(" 1", 0, 9).is_err() && parse_whole("+1", 0, 9).is_err() && parse_whole("01", 0, 9).is_err());
}

#[test]
fn wire_round_trip_keeps_values_and_explicit_marks() {
    let p = Params::from_settings("x", specs(), &["mtu=9000", "preset=a"]).unwrap();
    let text = serde_json::to_string(&p.to_wire()).unwrap();
    let back = Params::from_wire("x", specs(), &serde_json::from_str(&text).unwrap()).unwrap();
    assert_eq!(back, p);
    let mut bad = p.to_wire();
    bad.values.insert("mtu".into(), Value::Int(5));
    assert!(Params::from_wire("x", specs(), &bad).unwrap_err().to_string().contains("68..=9216"));
}

proptest::proptest! {
    #[test]
    fn int_validation_matches_range(v in -100_000i64..100_000) {
        let ok = Params::from_settings("x", specs(), &[format!("mtu={v}")]).is_ok();
        proptest::prop_assert_eq!(ok, (68..=9216).contains(&v));
    }

    #[test]
    fn arbitrary_text_never_panics_and_errors_are_one_short_line(s in "\\PC*|.*|[\\x00-\\x7f]{0,300}") {
        if let Err(e) = Params::from_settings("x", specs(), &[s]) {
            let text = e.to_string();
            proptest::prop_assert!(!text.chars().any(char::is_control), "{}", text);
            proptest::prop_assert!(text.chars().count() < 400, "{}", text);
        }
    }
}
