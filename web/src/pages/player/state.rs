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

mod pin;
pub use pin::Pin;

/// The query key that carries the run's seed next to the parameters.
pub const SEED_KEY: &str = "seed";
/// The query key that carries the model version a link was made with (numbers of another
/// version may differ: the page says so).
pub const MODEL_KEY: &str = "model";
/// The query key that carries a pinned run ("compare two runs"): its settings as the CLI's
/// `--set`s, comma-separated, and its seed: `pin=machine%3Dx86-bench%2Cseed%3D3`.
pub const PIN_KEY: &str = "pin";
/// The parameter naming a bundle of values for the knobs nobody set (experiments with presets).
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
    /// What the page did that the learner should know, not a problem (the knobs a new preset
    /// kept); shown in a role="status" box of its own.
    pub notes: Vec<String>,
    /// The run pinned as A, compared with the page's run (B) (boxed: a page is moved often).
    pub pin: Option<Box<Pin>>,
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
            && self.notes == other.notes
            && self.pin == other.pin
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
    /// Pin the page's current run as A (compare two runs).
    Pin,
    /// Stop comparing.
    Unpin,
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
            notes: Vec::new(),
            pin: None,
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
            } else if name == PIN_KEY {
                match Pin::from_query(experiment, text) {
                    Ok(pin) => {
                        page.pin = Some(Box::new(pin));
                        seen.1 += 1;
                    }
                    Err(e) => notices.push(format!("the pinned run in the URL is not used: {e}")),
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
        page.repeated_keys(times, notices);
        page
    }

    /// A name given twice with no valid value has a notice per value already (each says
    /// which value is used); "the last valid one wins" would name a value from nowhere.
    fn repeated_keys(&self, times: BTreeMap<&str, (usize, usize)>, notices: &mut Vec<String>) {
        for (name, (n, _)) in times.into_iter().filter(|(_, (n, valid))| *n > 1 && *valid > 0) {
            let value = match name {
                SEED_KEY => self.seed.to_string(),
                PIN_KEY => self.pin.as_ref().map(|p| p.to_query(self.experiment)).unwrap_or_default(),
                _ if self.params.specs().iter().any(|s| s.name == name) => self.params.value(name).to_string(),
                _ => continue, // unknown: each one has its notice already
            };
            notices.push(format!("'{name}' is given {n} times in the URL; the last valid one wins: {name} = {value}"));
        }
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
        if let Some(pin) = &self.pin {
            query.push((PIN_KEY.to_string(), pin.to_query(self.experiment)));
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
        Action::DismissNotices => {
            next.notices.clear();
            next.notes.clear();
        }
        Action::Pin => next.pin = Some(Box::new(Pin { params: page.resolved(), seed: page.seed })),
        Action::Unpin => next.pin = None,
    }
    next.notices = bound_notices(next.notices);
    next
}

fn set_param(page: &mut Page, name: &str, text: &str) {
    let mut params = page.params.clone();
    match params.set_text(name, text) {
        Ok(()) => {
            if name == PRESET_PARAM {
                // A new preset fills the knobs nobody set: the step's own settings and the
                // learner's stay explicit (issue #26), and the page says which of the
                // learner's it kept, so a knob that does not follow the preset is no surprise.
                page.notes = kept_over_preset(page, &params).into_iter().collect();
            }
            page.params = params;
            page.field_errors.remove(name);
        }
        Err(e) => {
            page.field_errors.insert(name.to_string(), e.to_string());
        }
    }
}

/// The notice for a preset change: the learner's own settings (explicit, and not the step's
/// value) that stay over the new preset, if any.
fn kept_over_preset(page: &Page, params: &Params) -> Option<String> {
    let step = page.step_params(&mut Vec::new());
    let own: Vec<String> = params
        .explicit_values()
        .into_iter()
        .filter(|(name, value)| *name != PRESET_PARAM && !(step.is_explicit(name) && step.value(name) == value))
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    let undo = if page.lesson.is_some() { "Reset step" } else { "Reset to defaults" };
    (!own.is_empty())
        .then(|| format!("Your own settings stay over the preset: {}. {undo} clears them.", own.join(", ")))
}

fn enter_step(page: &mut Page, step: usize) {
    page.notes.clear();
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
mod tests;
