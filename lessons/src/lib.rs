//! skblab-lessons: the course as data.
//!
//! `index.toml` orders the seven lessons and gives each a permanent slug; each written lesson
//! is one Markdown file in `content/` with TOML front matter (steps, parameter presets per
//! step, predict-then-check questions, claims). Everything is embedded at compile time with
//! `include_str!`, parsed once on first use, and checked by `cargo test -p skblab-lessons`
//! (see `tests/check.rs` and docs/lesson-format.md).

mod format;

pub use format::{
    apply_settings, parse_index, parse_lesson, Claim, Grade, IndexEntry, Lesson, Question, QuestionKind, Status, Step,
};

use std::sync::OnceLock;

/// The raw course index.
pub const INDEX_TOML: &str = include_str!("../index.toml");

/// (slug, file content) of every written lesson.
pub const LESSON_FILES: &[(&str, &str)] = &[
    ("skb-layout", include_str!("../content/skb-layout.md")),
    ("high-order-alloc", include_str!("../content/high-order-alloc.md")),
    ("ktls-recursion", include_str!("../content/ktls-recursion.md")),
];

struct Course {
    index: Vec<IndexEntry>,
    lessons: Vec<Lesson>,
}

fn course() -> &'static Course {
    static COURSE: OnceLock<Course> = OnceLock::new();
    COURSE.get_or_init(|| {
        // The content is compiled in and checked by the test suite, so a parse error here is a
        // bug in the build, not bad user input.
        let index = parse_index(INDEX_TOML).unwrap_or_else(|e| panic!("bug: lessons/index.toml: {e}"));
        let lessons = LESSON_FILES
            .iter()
            .filter(|(slug, _)| index.iter().any(|e| e.slug == *slug && e.status == Status::Written))
            .map(|(slug, text)| parse_lesson(slug, text).unwrap_or_else(|e| panic!("bug: lesson {slug}: {e}")))
            .collect();
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

/// CommonMark (with tables and footnotes) to HTML. Lesson text is compile-time content.
pub fn markdown_to_html(md: &str) -> String {
    use pulldown_cmark::{html, Options, Parser};
    let mut options = Options::empty();
    options.insert(Options::ENABLE_TABLES);
    options.insert(Options::ENABLE_FOOTNOTES);
    options.insert(Options::ENABLE_STRIKETHROUGH);
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(md, options));
    out
}
