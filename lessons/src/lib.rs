//! skblab-lessons: the course as data.
//!
//! `index.toml` orders the seven lessons and gives each a permanent slug; each written lesson
//! is one Markdown file in `content/` with TOML front matter (steps, parameter presets per
//! step, predict-then-check questions, claims). `build.rs` parses them and renders the Markdown
//! at build time (a content error fails the build, naming the file), so the library holds only
//! static data: no TOML or Markdown parser reaches the app. The model-backed checks of every
//! lesson are `cargo test -p skblab-lessons` (see `tests/check.rs` and docs/lesson-format.md).

mod baked;
mod grade;
mod model;

pub use grade::{apply_settings, unit_factor, Grade};
pub use model::{Claim, IndexEntry, Lesson, Question, QuestionKind, Status, Step};

use std::sync::OnceLock;

struct Course {
    index: Vec<IndexEntry>,
    lessons: Vec<Lesson>,
}

fn course() -> &'static Course {
    static COURSE: OnceLock<Course> = OnceLock::new();
    COURSE.get_or_init(|| {
        let (index, lessons) = baked::course();
        Course { index, lessons }
    })
}

/// The course, in order.
pub fn index() -> &'static [IndexEntry] {
    &course().index
}

/// A written lesson by slug.
pub fn lesson(slug: &str) -> Option<&'static Lesson> {
    course().lessons.iter().find(|l| l.slug == slug)
}
