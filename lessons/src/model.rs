//! The course as the app sees it: plain data, no parsing and no dependencies.
//!
//! The same file is compiled into the library (where `baked.rs` fills it from the data the build
//! script generated), into `build.rs` (where `format.rs` fills it from the Markdown sources) and
//! into the checker, so the compiled course and a fresh parse of the sources can be compared.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Written,
    Coming,
}

/// One lesson of the course index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    pub slug: String,
    /// From the lesson's front matter if it is written, from `index.toml` if it is coming.
    pub title: String,
    pub experiment: String,
    pub seed: String,
    pub status: Status,
    /// From the lesson's front matter if it is written, from `index.toml` if it is coming.
    pub summary: String,
    /// One entry per step of a written lesson: whether that step asks a question (empty for a
    /// coming lesson). The home page counts progress from it without loading the lesson.
    pub questions: Vec<bool>,
}

/// A predict-then-check question.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub prompt: String,
    /// A column of the experiment's output.
    pub metric: String,
    pub kind: QuestionKind,
    pub explanation: String,
    /// Settings that override the learner's current ones when grading.
    pub params: Vec<(String, String)>,
    /// For table outputs: the row whose `key` column equals the value.
    pub row: Option<(String, f64)>,
    /// Shown after the first wrong answer (the answer itself is shown only on request or after
    /// the third try).
    pub hint: String,
    /// Ids of the step's views that would show the answer: the player veils them until the
    /// learner has answered (right, or asked to see it).
    pub hides: Vec<String>,
    /// The unit the learner answers in, when the views show the metric in another unit of the
    /// same kind than its column (a chart in Gbit/s of a Mbit/s column); empty: the column's.
    pub unit: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum QuestionKind {
    Number { tolerance_pct: f64 },
    Choice { choices: Vec<String> },
}

/// One step of a lesson.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub title: String,
    /// The step's text, rendered from Markdown to HTML at build time (trusted content).
    pub body_html: String,
    pub params: Vec<(String, String)>,
    pub views: Vec<String>,
    pub question: Option<Question>,
}

/// A statement of the lesson text, checked against the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    pub text: String,
    pub params: Vec<(String, String)>,
    pub metric: String,
    pub row: Option<(String, f64)>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    pub slug: String,
    pub title: String,
    /// From `index.toml` (the one place that pairs a lesson with its experiment).
    pub experiment: String,
    pub summary: String,
    pub sources: Vec<String>,
    /// The lesson's "How we know" note (collapsed on the page).
    pub how_we_know: HowWeKnow,
    pub steps: Vec<Step>,
    pub claims: Vec<Claim>,
}

/// "How we know": which of the lesson's statements are the kernel's (each with its source),
/// which are the model's simplifications, and where the model differs from the kernel the seed
/// post ran. Each item is rendered from Markdown to HTML at build time (trusted content).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HowWeKnow {
    /// Statements of the lesson that are the kernel's, each naming its versions and source.
    pub kernel_html: Vec<String>,
    /// The model's simplifications: ours, not the kernel's.
    pub model_html: Vec<String>,
    /// Where the model differs from the kernel the seed post ran, and what that does to it.
    pub seed_kernel_html: Vec<String>,
}
