//! skblab-lessons: the course as data.
//!
//! `index.toml` orders the lessons and gives each a permanent slug; each written lesson
//! is one Markdown file in `content/` with TOML front matter (steps, parameter presets per
//! step, predict-then-check questions, claims). `build.rs` parses them and renders the Markdown
//! at build time (a content error fails the build, naming the file), so the library holds only
//! static data: no TOML or Markdown parser reaches the app. The model-backed checks of every
//! lesson are `cargo test -p skblab-lessons` (see `tests/check.rs` and docs/lesson-format.md).

mod baked;
mod grade;
mod model;
pub mod numbers;

pub use grade::{apply_settings, parse_answer, placeholders_in, Grade, Runs, ANSWER, PLACEHOLDERS};
pub use model::{Claim, HowWeKnow, IndexEntry, Lesson, Question, QuestionKind, Status, Step};
pub use numbers::unit_factor;

use std::sync::OnceLock;

/// The course, in order.
pub fn index() -> &'static [IndexEntry] {
    static INDEX: OnceLock<Vec<IndexEntry>> = OnceLock::new();
    INDEX.get_or_init(baked::index)
}

/// A written lesson by slug.
pub fn lesson(slug: &str) -> Option<&'static Lesson> {
    static LESSONS: OnceLock<Vec<Lesson>> = OnceLock::new();
    LESSONS.get_or_init(baked::lessons).iter().find(|l| l.slug == slug)
}
