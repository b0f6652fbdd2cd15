//! The learner's progress, as plain data: which steps of which lesson were visited, and which
//! steps' questions were answered right (two counts: reading is not answering).
//!
//! Stored as JSON under [`STORAGE_KEY`] in localStorage by the `use_progress` hook; this
//! module only converts. Corrupt or foreign JSON yields an error the page shows as a notice,
//! and the app starts from empty progress instead of failing. The first format (`{"done":…}`,
//! steps answered or read) is read as visited steps.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The localStorage key; bump the version when the format changes incompatibly.
pub const STORAGE_KEY: &str = "skblab.progress.v1";

type Steps = BTreeMap<String, BTreeSet<usize>>;

/// Per lesson slug, step indexes from 0.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// Steps the learner has opened.
    #[serde(default)]
    pub visited: Steps,
    /// Steps whose question the learner answered right (not when they asked to see it).
    #[serde(default)]
    pub correct: Steps,
    /// The first format's field, read into `visited` by [`Progress::parse`].
    #[serde(default, skip_serializing)]
    done: Steps,
}

/// What the home card and the lesson's end show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub visited: usize,
    pub steps: usize,
    pub correct: usize,
    pub questions: usize,
}

impl Progress {
    /// Parses stored JSON; `None` (nothing stored) is empty progress.
    pub fn parse(stored: Option<&str>) -> Result<Progress, String> {
        match stored {
            None => Ok(Progress::default()),
            Some(text) => {
                let mut p: Progress = serde_json::from_str(text).map_err(|e| {
                    format!("saved progress ({STORAGE_KEY}) could not be read ({e}); starting with no progress")
                })?;
                for (slug, steps) in std::mem::take(&mut p.done) {
                    p.visited.entry(slug).or_default().extend(steps);
                }
                Ok(p)
            }
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("progress serializes")
    }

    /// The progress with step `step` of `slug` visited.
    pub fn with_visited(&self, slug: &str, step: usize) -> Progress {
        let mut next = self.clone();
        next.visited.entry(slug.to_string()).or_default().insert(step);
        next
    }

    /// The progress with the question of step `step` of `slug` answered right (and visited).
    pub fn with_correct(&self, slug: &str, step: usize) -> Progress {
        let mut next = self.with_visited(slug, step);
        next.correct.entry(slug.to_string()).or_default().insert(step);
        next
    }

    pub fn is_visited(&self, slug: &str, step: usize) -> bool {
        self.visited.get(slug).is_some_and(|s| s.contains(&step))
    }

    pub fn is_correct(&self, slug: &str, step: usize) -> bool {
        self.correct.get(slug).is_some_and(|s| s.contains(&step))
    }

    /// Counts for a lesson whose steps have questions where `has_question[i]` (steps a lesson
    /// no longer has are ignored).
    pub fn tally(&self, slug: &str, has_question: &[bool]) -> Tally {
        let n = has_question.len();
        let count = |m: &Steps, pred: &dyn Fn(usize) -> bool| {
            m.get(slug).map_or(0, |s| s.iter().filter(|&&i| i < n && pred(i)).count())
        };
        Tally {
            visited: count(&self.visited, &|_| true),
            steps: n,
            correct: count(&self.correct, &|i| has_question[i]),
            questions: has_question.iter().filter(|q| **q).count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_counts_visits_and_answers_apart() {
        let p = Progress::default()
            .with_visited("skb-layout", 0)
            .with_correct("skb-layout", 3)
            .with_visited("skb-layout", 9);
        let q = Progress::parse(Some(&p.to_json())).unwrap();
        assert_eq!(p, q);
        assert!(q.is_visited("skb-layout", 3) && !q.is_visited("skb-layout", 1));
        assert!(q.is_correct("skb-layout", 3) && !q.is_correct("skb-layout", 0));
        let t = q.tally("skb-layout", &[true, false, true, true, false]);
        assert_eq!(t, Tally { visited: 2, steps: 5, correct: 1, questions: 3 });
        assert_eq!(q.tally("other", &[true]), Tally { visited: 0, steps: 1, correct: 0, questions: 1 });
    }

    #[test]
    fn the_first_format_reads_as_visited_steps() {
        let p = Progress::parse(Some(r#"{"done":{"skb-layout":[0,2]}}"#)).unwrap();
        assert!(p.is_visited("skb-layout", 2) && !p.is_correct("skb-layout", 2));
        assert!(!p.to_json().contains("done"), "{}", p.to_json());
    }

    #[test]
    fn missing_is_empty_and_corrupt_is_an_error() {
        assert_eq!(Progress::parse(None), Ok(Progress::default()));
        let e = Progress::parse(Some("{not json")).unwrap_err();
        assert!(e.contains(STORAGE_KEY), "{e}");
        assert!(Progress::parse(Some("[1,2]")).is_err());
        assert!(Progress::parse(Some(r#"{"visited":{"x":["a"]}}"#)).is_err());
    }
}
