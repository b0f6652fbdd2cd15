//! The state of the lesson player and the playground, and the pure reducer over it.
//!
//! `apply(state, action)` is the only way the page changes (the Yew component wraps it in
//! `use_reducer`), and [`Page::location`] / [`resolve`] convert between a page and its URL, so
//! that "a link reproduces the view" is one round-trip test here instead of browser plumbing.
//! No yew, no browser: everything in this module runs in native unit tests.
//!
//! Parameters are core's [`Params`]: the values a learner set explicitly (and only those) go
//! into the URL; everything else comes from the experiment's defaults or its preset, resolved
//! by core. Bad input never panics: a bad URL part becomes a notice, a bad typed value becomes
//! an inline field error, and the page keeps its last valid parameters.

use crate::route::{self, Location, Route};
use skblab_core::params::{echo, echo_within};
use skblab_core::{Experiment, ParamError, Params, DEFAULT_SEED, MODEL_VERSION};
use skblab_lessons::{Lesson, Status};
use std::collections::BTreeMap;

/// The query key that carries the run's seed next to the parameters.
pub const SEED_KEY: &str = "seed";
/// The query key that carries the model version a link was made with (numbers of another
/// version may differ: the page says so).
pub const MODEL_KEY: &str = "model";
/// The parameter whose change clears every explicit override (experiments with presets).
pub const PRESET_PARAM: &str = "preset";
/// At most this many notices are shown; the rest are summarised in the last one
/// ("… and 2,990 more"), so a URL with thousands of bad parameters stays one short box.
pub const MAX_NOTICES: usize = 10;
/// The longest notice, in characters, `…` included (user text inside is already cut to 60 by
/// `echo`; this bounds the rest, like a long list of known parameters).
pub const MAX_NOTICE_CHARS: usize = 400;

/// What the URL asks the app to show, after validation.
#[derive(Clone)]
pub enum View {
    Home,
    About,
    /// The Reproduce page over this many seeds.
    Reproduce {
        seeds: u32,
    },
    Validation,
    Machine,
    PlayIndex,
    Player(Page),
}

/// One player page: a lesson at a step, or an experiment's playground.
#[derive(Clone)]
pub struct Page {
    pub experiment: &'static dyn Experiment,
    pub lesson: Option<&'static Lesson>,
    /// Index into the lesson's steps, from 0 (the URL counts from 1).
    pub step: usize,
    pub params: Params,
    pub seed: u64,
    /// Inline errors of typed values, by parameter name ("seed" for the seed).
    pub field_errors: BTreeMap<String, String>,
    /// What was wrong with the URL or the lesson data; shown in a role="alert" box.
    pub notices: Vec<String>,
}

impl PartialEq for Page {
    fn eq(&self, other: &Self) -> bool {
        self.experiment.id() == other.experiment.id()
            && self.lesson.map(|l| &l.slug) == other.lesson.map(|l| &l.slug)
            && self.step == other.step
            && self.params == other.params
            && self.seed == other.seed
            && self.field_errors == other.field_errors
            && self.notices == other.notices
    }
}

/// Everything a learner can do to a page.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A control moved or a value was typed (text as in a URL: "1500", "true", "linux-6.4-x86_64").
    SetParam {
        name: String,
        text: String,
    },
    SetSeed(String),
    /// Enter a step (from 0), applying its parameters.
    GoStep(usize),
    Next,
    Prev,
    /// Re-apply the current step's parameters (or the defaults in the playground).
    ResetStep,
    /// The URL changed under the page (back button, edited link).
    Load(Location),
    DismissNotices,
}

/// Validates a parsed URL against the lessons and the experiments.
pub fn resolve(location: &Location) -> (View, Vec<String>) {
    let mut notices = location.problems.clone();
    let view = match &location.route {
        Route::Home => View::Home,
        Route::About => View::About,
        Route::Reproduce => View::Reproduce { seeds: reproduce_seeds(&location.query, &mut notices) },
        Route::Validation => View::Validation,
        Route::Machine => View::Machine,
        Route::Play { experiment: None } => View::PlayIndex,
        Route::NotFound { path } => {
            notices.push(format!("no page at '{}'; showing the home page", echo(path)));
            View::Home
        }
        Route::Play { experiment: Some(id) } => match skblab_core::find(id) {
            Ok(experiment) => View::Player(Page::from_query(experiment, None, 0, &location.query, &mut notices)),
            Err(e) => {
                notices.push(format!("{e}; showing the list of experiments"));
                View::PlayIndex
            }
        },
        Route::Lesson { slug, step } => lesson_view(slug, *step, &location.query, &mut notices),
    };
    if let View::Player(page) = &view {
        let mut page = page.clone();
        page.notices = bound_notices(notices);
        return (View::Player(page), Vec::new());
    }
    (view, bound_notices(notices))
}

/// Seeds of the Reproduce page when the URL names none (the CLI's default).
pub const REPRODUCE_SEEDS: u32 = 5;
/// The most seeds the Reproduce page runs.
pub const MAX_REPRODUCE_SEEDS: u32 = 10;

/// The Reproduce page's `seeds` from its query (1..=[`MAX_REPRODUCE_SEEDS`]); anything else is
/// a notice and the default.
fn reproduce_seeds(query: &[(String, String)], notices: &mut Vec<String>) -> u32 {
    let mut seeds = REPRODUCE_SEEDS;
    for (name, text) in query {
        if name != "seeds" {
            notices.push(format!(
                "unknown URL parameter '{}' on the Reproduce page (it takes 'seeds'); ignored",
                echo(name)
            ));
            continue;
        }
        match skblab_core::params::parse_whole(text, 1, u64::from(MAX_REPRODUCE_SEEDS)) {
            Ok(n) => seeds = n as u32,
            Err(_) => notices.push(format!(
                "bad value '{}' for 'seeds' in the URL: expected a whole number from 1 to {MAX_REPRODUCE_SEEDS}; using {REPRODUCE_SEEDS} seeds",
                echo(text)
            )),
        }
    }
    seeds
}

/// The Reproduce page's URL over `seeds` seeds (the default's has no query).
pub fn reproduce_href(seeds: u32) -> String {
    let query = if seeds == REPRODUCE_SEEDS { Vec::new() } else { vec![("seeds".to_string(), seeds.to_string())] };
    route::format(&Location::new(Route::Reproduce, query))
}

/// Notices as the page shows them: at most [`MAX_NOTICES`] (the last one summarising the rest;
/// a summary already in the list counts what it summarised), each one line of at most
/// [`MAX_NOTICE_CHARS`] characters.
pub fn bound_notices(notices: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = notices.iter().map(|n| echo_within(n, MAX_NOTICE_CHARS - 1)).collect();
    if out.len() > MAX_NOTICES {
        let more: usize = out.drain(MAX_NOTICES - 1..).map(|n| summarised(&n).unwrap_or(1)).sum();
        out.push(format!("… and {} more", thousands(more)));
    }
    out
}

/// How many notices a summary line ("… and 1,234 more") stands for.
fn summarised(notice: &str) -> Option<usize> {
    notice.strip_prefix("… and ")?.strip_suffix(" more")?.replace(',', "").parse().ok()
}

/// 2990 → "2,990".
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn lesson_view(slug: &str, step: usize, query: &[(String, String)], notices: &mut Vec<String>) -> View {
    let Some(lesson) = skblab_lessons::lesson(slug) else {
        let coming = skblab_lessons::index().iter().any(|e| e.slug == slug && matches!(e.status, Status::Coming));
        let known: Vec<&str> = skblab_lessons::index()
            .iter()
            .filter(|e| matches!(e.status, Status::Written))
            .map(|e| e.slug.as_str())
            .collect();
        if coming {
            notices.push(format!("lesson '{slug}' is not written yet; showing the home page"));
        } else {
            notices.push(format!(
                "unknown lesson '{}'; known lessons: {}; showing the home page",
                echo(slug),
                known.join(", ")
            ));
        }
        return View::Home;
    };
    let Ok(experiment) = skblab_core::find(&lesson.experiment) else {
        notices.push(format!("lesson '{slug}' names an unknown experiment '{}'", lesson.experiment));
        return View::Home;
    };
    let n_steps = lesson.steps.len().max(1);
    let index = if step > n_steps {
        notices.push(format!("bad step '{step}': lesson '{slug}' has steps 1 to {n_steps}; showing step 1"));
        0
    } else {
        step - 1
    };
    View::Player(Page::from_query(experiment, Some(lesson), index, query, notices))
}

impl Page {
    /// A page at `step`: the step's parameters, overridden by the query's (a shared link is the
    /// step plus the learner's changes). The step's parameters stay explicit in the page, so
    /// its URL always carries them and [`Page::location`] → [`resolve`] round-trips.
    pub fn from_query(
        experiment: &'static dyn Experiment,
        lesson: Option<&'static Lesson>,
        step: usize,
        query: &[(String, String)],
        notices: &mut Vec<String>,
    ) -> Page {
        let mut page = Page {
            experiment,
            lesson,
            step,
            params: experiment.defaults(),
            seed: DEFAULT_SEED,
            field_errors: BTreeMap::new(),
            notices: Vec::new(),
        };
        page.params = page.step_params(notices);

        // Per name: how often it is given, and how often with a value that was used.
        let mut times: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for (name, text) in query {
            let seen = times.entry(name).or_default();
            seen.0 += 1;
            if name == MODEL_KEY {
                if text != MODEL_VERSION {
                    notices.push(format!(
                        "this link was made with model {}; this is model {MODEL_VERSION}: its numbers may differ",
                        echo(text)
                    ));
                }
            } else if name == SEED_KEY {
                match skblab_core::params::parse_whole(text, 0, u64::MAX) {
                    Ok(seed) => {
                        page.seed = seed;
                        seen.1 += 1;
                    }
                    Err(_) => notices.push(format!(
                        "bad value '{}' for 'seed' in the URL: expected a whole number; using seed {}",
                        echo(text),
                        page.seed
                    )),
                }
            } else {
                match page.params.set_text(name, text) {
                    Ok(()) => seen.1 += 1,
                    Err(e) => {
                        let instead = match &e {
                            ParamError::UnknownParam { .. } => "ignored".to_string(),
                            _ => format!("using {name} = {}", page.params.value(name)),
                        };
                        notices.push(format!("{e} (from the URL; {instead})"));
                    }
                }
            }
        }
        // A name given twice with no valid value has a notice per value already (each says
        // which value is used); "the last valid one wins" would name a value from nowhere.
        for (name, (n, _)) in times.into_iter().filter(|(_, (n, valid))| *n > 1 && *valid > 0) {
            let value = match name {
                SEED_KEY => page.seed.to_string(),
                _ if page.params.specs().iter().any(|s| s.name == name) => page.params.value(name).to_string(),
                _ => continue, // unknown: each one has its notice already
            };
            notices.push(format!("'{name}' is given {n} times in the URL; the last valid one wins: {name} = {value}"));
        }
        page
    }

    /// Defaults overridden by the current step's parameters.
    fn step_params(&self, notices: &mut Vec<String>) -> Params {
        let mut params = self.experiment.defaults();
        if let Some(step) = self.lesson.and_then(|l| l.steps.get(self.step)) {
            for (name, text) in &step.params {
                if let Err(e) = params.set_text(name, text) {
                    notices.push(format!("lesson data: {e}"));
                }
            }
        }
        params
    }

    pub fn n_steps(&self) -> usize {
        self.lesson.map_or(0, |l| l.steps.len())
    }

    /// The URL of this page: route, explicit parameters in name order, then the seed if not
    /// the default.
    pub fn location(&self) -> Location {
        let route = match self.lesson {
            Some(l) => Route::Lesson { slug: l.slug.clone(), step: self.step + 1 },
            None => Route::Play { experiment: Some(self.experiment.id().to_string()) },
        };
        let mut query: Vec<(String, String)> =
            self.params.explicit_values().into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        if self.seed != DEFAULT_SEED {
            query.push((SEED_KEY.to_string(), self.seed.to_string()));
        }
        query.push((MODEL_KEY.to_string(), MODEL_VERSION.to_string()));
        Location::new(route, query)
    }

    /// The values a run uses (presets filled in by core).
    pub fn resolved(&self) -> Params {
        self.experiment.resolve(&self.params)
    }
}

/// The reducer: the next page for `action`.
pub fn apply(page: &Page, action: Action) -> Page {
    let mut next = page.clone();
    match action {
        Action::SetParam { name, text } => set_param(&mut next, &name, &text),
        Action::SetSeed(text) => match text.trim().parse::<u64>() {
            Ok(seed) => {
                next.seed = seed;
                next.field_errors.remove(SEED_KEY);
            }
            Err(_) => {
                next.field_errors
                    .insert(SEED_KEY.to_string(), format!("bad seed '{}': expected a whole number", echo(&text)));
            }
        },
        Action::GoStep(step) => enter_step(&mut next, step),
        Action::Next => enter_step(&mut next, page.step + 1),
        Action::Prev => enter_step(&mut next, page.step.saturating_sub(1)),
        Action::ResetStep => enter_step(&mut next, page.step),
        Action::Load(location) => {
            let (view, notices) = resolve(&location);
            return match view {
                View::Player(mut loaded) if loaded.experiment.id() == page.experiment.id() => {
                    loaded.notices.extend(notices);
                    loaded.notices = bound_notices(loaded.notices);
                    loaded
                }
                _ => {
                    next.notices.push("that URL belongs to another page".to_string());
                    next.notices = bound_notices(next.notices);
                    next
                }
            };
        }
        Action::DismissNotices => next.notices.clear(),
    }
    next.notices = bound_notices(next.notices);
    next
}

fn set_param(page: &mut Page, name: &str, text: &str) {
    let mut params = page.params.clone();
    if name == PRESET_PARAM {
        // A new preset drops the learner's overrides, not the step's own settings.
        let mut notices = Vec::new();
        params = page.step_params(&mut notices);
        page.notices.extend(notices);
    }
    match params.set_text(name, text) {
        Ok(()) => {
            page.params = params;
            page.field_errors.remove(name);
        }
        Err(e) => {
            page.field_errors.insert(name.to_string(), e.to_string());
        }
    }
}

fn enter_step(page: &mut Page, step: usize) {
    if page.lesson.is_none() {
        page.params = page.experiment.defaults();
        page.field_errors.clear();
        return;
    }
    if step >= page.n_steps() {
        return;
    }
    page.step = step;
    let mut notices = Vec::new();
    page.params = page.step_params(&mut notices);
    page.notices.extend(notices);
    page.field_errors.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
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
            format!(
                "#/lesson/skb-layout/4?max_skb_frags=18&mtu=9000&preset=frag-destructor-2011&model={MODEL_VERSION}"
            )
        );
        assert!(page(&text) == p);
        let other = apply(&p, Action::SetParam { name: PRESET_PARAM.into(), text: "linux-2011-x86_64".into() });
        assert_eq!(other.params.int("max_skb_frags"), 16, "a new preset keeps the step's own settings");
        assert!(!other.params.is_explicit("mtu"), "and drops the learner's");
        assert!(page(&route::format(&other.location())) == other);
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
    fn choosing_a_preset_clears_overrides() {
        let p = page("#/play/skb-layout?mtu=9000&frag_bytes=24");
        let q = apply(&p, Action::SetParam { name: PRESET_PARAM.into(), text: "arm64-64k".into() });
        assert_eq!(q.params.explicit_values().len(), 1);
        assert_eq!(q.resolved().int("page_size"), 65536);
        assert_eq!(q.resolved().int("mtu"), 1500);
    }
}

/// Arbitrary and hostile URL hashes: parsing and resolving never panic, and the page shows at
/// most [`MAX_NOTICES`] one-line notices of at most [`MAX_NOTICE_CHARS`] characters.
#[cfg(all(test, not(target_arch = "wasm32")))]
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
