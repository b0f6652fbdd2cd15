//! The state of the lesson player and the playground, and the pure reducer over it.
//!
//! `apply(state, action)` is the only way the page changes (the Yew component wraps it in
//! `use_reducer`), and [`Page::location`] / [`resolve`] convert between a page and its URL,
//! so that "a link reproduces the view" is one round-trip test here instead of browser plumbing.
//! No yew, no browser: everything in this module runs in native unit tests.
//!
//! Parameters are core's [`Params`]: the values a learner set explicitly (and only those) go
//! into the URL; everything else comes from the experiment's defaults or its preset, resolved
//! by core. Bad input never panics: a bad URL part becomes a notice, a bad typed value becomes
//! an inline field error, and the page keeps its last valid parameters.

use crate::pages::{bound_notices, resolve, View};
use crate::route::{Location, Route};
use skblab_core::params::echo;
use skblab_core::{Experiment, ParamError, Params, DEFAULT_SEED, MODEL_VERSION};
use skblab_lessons::Lesson;
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
                // learner's stay explicit, and the page says which of the
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
