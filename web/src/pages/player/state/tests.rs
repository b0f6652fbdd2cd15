//! The page's reducer and its URL round trip, as native unit tests (and property tests of
//! hostile URLs).

use super::*;
use crate::pages::{reproduce_href, thousands, View, MAX_NOTICES, MAX_NOTICE_CHARS, REPRODUCE_SEEDS};
use crate::route;

fn page(hash: &str) -> Page {
    match resolve(&route::parse(hash)) {
        (View::Player(p), _) => p,
        _ => panic!("{hash} is not a player page"),
    }
}

#[test]
fn reproduce_takes_seeds_from_1_to_10_and_a_bad_value_is_a_notice() {
    let seeds = |hash: &str| match resolve(&route::parse(hash)) {
        (View::Reproduce { seeds }, notices) => (seeds, notices.len()),
        _ => panic!("{hash} is not the Reproduce page"),
    };
    assert_eq!(seeds("#/reproduce"), (REPRODUCE_SEEDS, 0));
    assert_eq!(seeds("#/reproduce?seeds=10"), (10, 0));
    for bad in ["#/reproduce?seeds=0", "#/reproduce?seeds=11", "#/reproduce?seeds=x", "#/reproduce?seed=3"] {
        assert_eq!(seeds(bad), (REPRODUCE_SEEDS, 1), "{bad}");
    }
    assert_eq!((reproduce_href(5), reproduce_href(3)), ("#/reproduce".into(), "#/reproduce?seeds=3".into()));
}

#[test]
fn playground_starts_from_defaults() {
    let p = page("#/play/skb-layout");
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    assert_eq!(p.params, p.experiment.defaults());
    assert_eq!(route::format(&p.location()), format!("#/play/skb-layout?model={MODEL_VERSION}"));
}

#[test]
fn url_round_trips_params_and_seed() {
    let p = page("#/play/skb-layout?mtu=9000&preset=linux-2011-x86_64&seed=42");
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    assert_eq!(p.params.int("mtu"), 9000);
    assert_eq!(p.seed, 42);
    let text = route::format(&p.location());
    assert_eq!(text, format!("#/play/skb-layout?mtu=9000&preset=linux-2011-x86_64&seed=42&model={MODEL_VERSION}"));
    assert!(page(&text) == p);
}

#[test]
fn a_link_from_another_model_version_says_numbers_may_differ() {
    assert!(page(&format!("#/play/skb-layout?model={MODEL_VERSION}")).notices.is_empty());
    let p = page("#/play/skb-layout?model=0.0.1");
    assert_eq!(p.notices.len(), 1, "{:?}", p.notices);
    assert!(p.notices[0].contains("model 0.0.1") && p.notices[0].contains("may differ"), "{:?}", p.notices);
}

#[test]
fn bad_values_and_unknown_names_are_notices() {
    let p = page("#/play/skb-layout?mtu=12&bogus=1&seed=x&page_size=5000");
    assert_eq!(p.notices.len(), 4, "{:?}", p.notices);
    assert!(p.notices.iter().any(|n| n.contains("'12'") && n.contains("mtu")));
    assert!(p.notices.iter().any(|n| n.contains("unknown parameter 'bogus'")));
    assert!(p.notices.iter().any(|n| n.contains("'seed'")));
    assert_eq!(p.params, p.experiment.defaults());
    assert_eq!(p.seed, DEFAULT_SEED);
}

#[test]
fn url_notices_say_which_value_is_used() {
    let p = page("#/lesson/skb-layout/4?max_skb_frags=999&bogus=1&seed=x");
    assert_eq!(p.params.int("max_skb_frags"), 16, "the step's value stays");
    assert!(p.notices.iter().any(|n| n.ends_with("(from the URL; using max_skb_frags = 16)")), "{:?}", p.notices);
    assert!(p.notices.iter().any(|n| n.ends_with("(from the URL; ignored)")), "{:?}", p.notices);
    assert!(p.notices.iter().any(|n| n.ends_with("using seed 1")), "{:?}", p.notices);
}

#[test]
fn duplicate_url_keys_with_no_valid_value_do_not_claim_a_winner() {
    let p = page("#/play/skb-layout?mtu=abc&mtu=-5&seed=x&seed=-1");
    assert_eq!((p.params.int("mtu"), p.seed), (1500, DEFAULT_SEED));
    assert_eq!(p.notices.len(), 4, "one notice per bad value, no 'last valid one wins': {:?}", p.notices);
    assert!(p.notices.iter().all(|n| !n.contains("last valid")), "{:?}", p.notices);
    // One valid value among bad ones still names the winner.
    let p = page("#/play/skb-layout?mtu=abc&mtu=9000");
    assert!(p.notices.contains(&"'mtu' is given 2 times in the URL; the last valid one wins: mtu = 9000".into()));
}

#[test]
fn duplicate_url_keys_say_which_one_won() {
    let p = page("#/play/skb-layout?mtu=9000&mtu=700&seed=3&seed=4");
    assert_eq!((p.params.int("mtu"), p.seed), (700, 4));
    assert!(p.notices.contains(&"'mtu' is given 2 times in the URL; the last valid one wins: mtu = 700".into()));
    assert!(p.notices.contains(&"'seed' is given 2 times in the URL; the last valid one wins: seed = 4".into()));
    let p = page("#/play/skb-layout?mtu=9000&mtu=bad");
    assert_eq!(p.params.int("mtu"), 9000);
    assert!(p.notices.iter().any(|n| n.contains("'bad'") && n.ends_with("using mtu = 9000)")), "{:?}", p.notices);
    assert!(p.notices.iter().any(|n| n.ends_with("wins: mtu = 9000")), "{:?}", p.notices);
}

#[test]
fn hostile_urls_give_few_short_notices() {
    let many: Vec<String> = (0..3000).map(|i| format!("x{i}=1")).collect();
    let p = page(&format!("#/play/skb-layout?{}", many.join("&")));
    assert_eq!(p.notices.len(), MAX_NOTICES);
    assert_eq!(p.notices[MAX_NOTICES - 1], "… and 2,991 more");
    let again = apply(&apply(&p, Action::Load(route::parse("#/about"))), Action::Load(route::parse("#/about")));
    assert_eq!(again.notices.len(), MAX_NOTICES);
    assert_eq!(again.notices[MAX_NOTICES - 1], "… and 2,993 more", "summaries add up");
    let p = page(&format!("#/play/skb-layout?mtu={}&preset=%1B%5B31m%0Anext", "9".repeat(100_000)));
    assert_eq!(p.notices.len(), 2, "{:?}", p.notices);
    assert!(p.notices.iter().all(|n| n.chars().count() <= MAX_NOTICE_CHARS && !n.chars().any(char::is_control)));
    assert!(p.notices[1].contains("'\\u{1b}[31m\\nnext'"), "{:?}", p.notices);
    assert_eq!(thousands(1234567), "1,234,567");
    assert_eq!(thousands(999), "999");
}

#[test]
fn unknown_pages_fall_back_with_a_notice() {
    let (view, notices) = resolve(&route::parse("#/lesson/no-such-lesson/2"));
    assert!(matches!(view, View::Home));
    assert!(notices[0].contains("unknown lesson 'no-such-lesson'"), "{notices:?}");
    let (view, notices) = resolve(&route::parse("#/play/nope"));
    assert!(matches!(view, View::PlayIndex));
    assert!(notices[0].contains("unknown experiment 'nope'"), "{notices:?}");
    let (view, notices) = resolve(&route::parse("#/x/y"));
    assert!(matches!(view, View::Home) && notices[0].contains("'/x/y'"));
}

#[test]
fn typed_values_are_validated_inline() {
    let p = page("#/play/skb-layout");
    let bad = apply(&p, Action::SetParam { name: "mtu".into(), text: "abc".into() });
    assert!(bad.field_errors["mtu"].contains("'abc'"));
    assert_eq!(bad.params, p.params);
    let good = apply(&bad, Action::SetParam { name: "mtu".into(), text: "9000".into() });
    assert!(good.field_errors.is_empty());
    assert!(good.params.is_explicit("mtu"));
    let seed = apply(&good, Action::SetSeed("-1".into()));
    assert!(seed.field_errors.contains_key(SEED_KEY));
}

#[test]
fn entering_a_step_applies_its_params() {
    let lesson = skblab_lessons::lesson("skb-layout").expect("skb-layout is written");
    let p = page("#/lesson/skb-layout");
    assert!(p.notices.is_empty(), "{:?}", p.notices);
    assert_eq!(p.step, 0);
    let expected: Vec<(String, String)> = lesson.steps[0].params.clone();
    for (name, text) in &expected {
        assert_eq!(&p.params.value(name).to_string(), text);
    }
    let moved = apply(&p, Action::SetParam { name: "mtu".into(), text: "9000".into() });
    let next = apply(&moved, Action::Next);
    assert_eq!(next.step, 1);
    for (name, text) in &lesson.steps[1].params {
        assert_eq!(&next.params.value(name).to_string(), text);
    }
    assert!(!next.params.is_explicit("mtu"), "a new step starts from its own parameters");
    let back = apply(&apply(&next, Action::SetParam { name: "mtu".into(), text: "600".into() }), Action::ResetStep);
    assert_eq!(back.params, next.params);
    assert_eq!(apply(&p, Action::Prev).step, 0);
    let last = apply(&p, Action::GoStep(lesson.steps.len() - 1));
    assert_eq!(apply(&last, Action::Next).step, lesson.steps.len() - 1, "Next stops at the last step");
}

#[test]
fn a_link_is_the_step_plus_overrides() {
    let p = page("#/lesson/skb-layout/4?mtu=9000&max_skb_frags=18");
    assert_eq!(p.step, 3);
    assert_eq!(p.params.choice(PRESET_PARAM), "frag-destructor-2011", "the step's preset stays");
    assert_eq!((p.params.int("mtu"), p.params.int("max_skb_frags")), (9000, 18));
    let text = route::format(&p.location());
    assert_eq!(
        text,
        format!("#/lesson/skb-layout/4?max_skb_frags=18&mtu=9000&preset=frag-destructor-2011&model={MODEL_VERSION}")
    );
    assert!(page(&text) == p);
    let other = apply(&p, Action::SetParam { name: PRESET_PARAM.into(), text: "linux-2011-x86_64".into() });
    assert_eq!(other.params.int("max_skb_frags"), 18, "a new preset keeps the learner's settings");
    assert_eq!(other.params.int("mtu"), 9000);
    assert_eq!(other.resolved().choice(PRESET_PARAM), "linux-2011-x86_64");
    assert!(
        other.notes.iter().any(|n| n.contains("max_skb_frags = 18, mtu = 9000") && n.contains("Reset step")),
        "{:?}",
        other.notes
    );
    assert!(other.notices.is_empty(), "a kept knob is a note, not a problem: {:?}", other.notices);
    let shared = page(&route::format(&other.location()));
    assert!(
        shared.params == other.params && shared.step == other.step,
        "the link carries the kept knobs and the preset"
    );
    let step_url = route::format(&apply(&p, Action::ResetStep).location());
    assert!(page(&step_url) == apply(&p, Action::ResetStep), "{step_url}");
    let bad = page("#/lesson/skb-layout/99");
    assert_eq!(bad.step, 0);
    assert!(bad.notices[0].contains("bad step '99'"), "{:?}", bad.notices);
}

#[test]
fn load_replaces_the_state_of_the_same_page() {
    let p = page("#/lesson/skb-layout/1");
    let loaded = apply(&p, Action::Load(route::parse("#/lesson/skb-layout/3?mtu=700")));
    assert_eq!((loaded.step, loaded.params.int("mtu")), (2, 700));
    let other = apply(&p, Action::Load(route::parse("#/about")));
    assert_eq!(other.step, 0);
    assert_eq!(other.notices.len(), 1);
}

#[test]
fn choosing_a_preset_keeps_the_learners_knobs_and_says_so() {
    let p = page("#/play/skb-layout?mtu=9000&frag_bytes=24");
    let q = apply(&p, Action::SetParam { name: PRESET_PARAM.into(), text: "arm64-64k".into() });
    assert_eq!(q.params.explicit_values().len(), 3);
    assert_eq!(q.resolved().int("page_size"), 65536, "the preset fills what nobody set");
    assert_eq!((q.resolved().int("mtu"), q.resolved().int("frag_bytes")), (9000, 24));
    assert_eq!((q.notes.len(), q.notices.len()), (1, 0), "a note, not a problem: {:?} {:?}", q.notes, q.notices);
    assert!(q.notes[0].contains("frag_bytes = 24, mtu = 9000") && q.notes[0].contains("Reset to defaults"));
    // Reset clears the knobs and the note; Dismiss the note alone.
    assert!(apply(&q, Action::ResetStep).notes.is_empty());
    assert!(apply(&q, Action::DismissNotices).notes.is_empty());
    // Nothing of the learner's: no note; and the reset button then gives the preset alone.
    let plain =
        apply(&page("#/play/skb-layout"), Action::SetParam { name: PRESET_PARAM.into(), text: "arm64-64k".into() });
    assert!(plain.notes.is_empty() && plain.notices.is_empty(), "{:?}", plain.notes);
    let stepped =
        apply(&page("#/lesson/skb-layout/4"), Action::SetParam { name: PRESET_PARAM.into(), text: "arm64-64k".into() });
    assert!(stepped.notes.is_empty(), "the step's own settings are not the learner's: {:?}", stepped.notes);
}

/// Arbitrary and hostile URL hashes: parsing and resolving never panic, and the page shows at
/// most [`MAX_NOTICES`] one-line notices of at most [`MAX_NOTICE_CHARS`] characters.
#[cfg(not(target_arch = "wasm32"))]
mod hostile_urls {
    use super::*;
    use crate::route;
    use proptest::prelude::*;

    fn check(hash: &str) -> Result<(), TestCaseError> {
        let (view, notices) = resolve(&route::parse(hash));
        let notices = match view {
            View::Player(page) => {
                let loaded = apply(&page, Action::Load(route::parse(hash)));
                prop_assert!(loaded.notices.len() <= MAX_NOTICES);
                page.notices
            }
            _ => notices,
        };
        prop_assert!(notices.len() <= MAX_NOTICES, "{} notices", notices.len());
        for n in &notices {
            prop_assert!(n.chars().count() <= MAX_NOTICE_CHARS, "{n}");
            prop_assert!(!n.chars().any(char::is_control), "{n:?}");
        }
        Ok(())
    }

    /// A query key: a real parameter name, `seed`, or anything.
    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::sample::select(vec!["mtu", "preset", "max_threads", "fix", "seed", "measure_us"])
                .prop_map(String::from),
            "[a-z_%0-9]{0,12}",
            "\\PC{0,8}",
        ]
    }

    /// A query value: numbers, percent-escapes (control characters among them), anything.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<i64>().prop_map(|v| v.to_string()),
            "(%[0-9A-Fa-f]{2}|[a-z0-9.+-]){0,40}",
            "\\PC{0,200}",
            "[0-9]{50,400}",
        ]
    }

    proptest! {
        #[test]
        fn arbitrary_hashes_never_panic(hash in "\\PC*") {
            check(&hash)?;
        }

        #[test]
        fn hostile_queries_on_real_pages_give_bounded_notices(
            path in proptest::sample::select(vec![
                "#/play/skb-layout", "#/play/high-order-alloc", "#/play/ktls-recursion",
                "#/lesson/skb-layout/4", "#/lesson/high-order-alloc/2", "#/lesson/ktls-recursion/99",
                "#/lesson/%1B%5B2J", "#/play/%0A", "#/nowhere",
            ]),
            pairs in proptest::collection::vec((key(), value(), any::<bool>()), 0..40),
        ) {
            let query: Vec<String> =
                pairs.iter().map(|(k, v, eq)| if *eq { format!("{k}={v}") } else { k.clone() }).collect();
            check(&format!("{path}?{}", query.join("&")))?;
        }
    }
}
