//! The pages: one module per route of [`crate::route`], the app that shows the page of the
//! current URL in its frame, and [`resolve`], which validates a parsed URL against the lessons
//! and the experiments (pure: unit-tested with the player's reducer, `player/state/tests.rs`).
//! A URL that cannot be shown as asked becomes another page and notices, never a panic.

use crate::route::{self, Location, Route};
use player::state::Page;
use skblab_core::params::{echo, echo_within};
use skblab_lessons::Status;

pub mod about;
pub mod app;
pub mod frame;
pub mod home;
pub mod play_index;
pub mod player;
pub mod reproduce;
pub mod shell;
pub mod validation;

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
