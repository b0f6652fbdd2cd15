//! The learner's progress, as plain data: which steps of which lesson were visited, and which
//! steps' questions were answered right (two counts: reading is not answering).
//!
//! Stored as JSON under [`STORAGE_KEY`] in localStorage by the `use_progress` hook; this
//! module only converts. Reading is forgiving, entry by entry ([`Progress::load`]): an entry
//! that is not a lesson with a list of step numbers is dropped, the rest is kept, and a
//! plain-language notice says how many were dropped (no parser jargon); text that is not a
//! progress record at all (not JSON, `[]`, a number) starts from empty progress, with a notice
//! too. The first format (`{"done":…}`, steps answered or read) is read as visited steps.
//! Fields this version does not know (a newer version's) are kept as they are and written
//! back ([`Progress::newer`]), never dropped; two tabs' records merge ([`Progress::merged`]).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The localStorage key; bump the version when the format changes incompatibly.
pub const STORAGE_KEY: &str = "skblab.progress.v1";

type Steps = BTreeMap<String, BTreeSet<usize>>;

/// Per lesson slug, step indexes from 0.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Top-level fields of a newer version's format, kept verbatim.
    #[serde(flatten)]
    pub newer: serde_json::Map<String, serde_json::Value>,
}

/// What the home card and the lesson's end show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub visited: usize,
    pub steps: usize,
    pub correct: usize,
    pub questions: usize,
}

/// The largest step index kept from storage (no lesson has nearly so many steps; a larger
/// number is corrupt, not progress).
const MAX_STEP: u64 = 999;

impl Progress {
    /// Reads stored JSON, keeping every readable entry: the progress, and a notice if anything
    /// was dropped. `None` (nothing stored) and `{}` are empty progress without a notice.
    pub fn load(stored: Option<&str>) -> (Progress, Option<String>) {
        let Some(text) = stored else { return (Progress::default(), None) };
        let value: serde_json::Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(_) => return (Progress::default(), Some(unreadable("it is not readable text"))),
        };
        let Some(fields) = value.as_object() else {
            return (Progress::default(), Some(unreadable("it is not a record of lessons and steps")));
        };
        let mut p = Progress::default();
        let mut dropped = 0usize;
        for (field, lessons) in fields {
            let into = match field.as_str() {
                "visited" | "done" => &mut p.visited,
                "correct" => &mut p.correct,
                _ => {
                    p.newer.insert(field.clone(), lessons.clone());
                    continue;
                }
            };
            let Some(lessons) = lessons.as_object() else {
                dropped += 1;
                continue;
            };
            for (slug, steps) in lessons {
                let Some(steps) = steps.as_array() else {
                    dropped += 1;
                    continue;
                };
                let mut kept = BTreeSet::new();
                for step in steps {
                    match step.as_u64().filter(|&i| i <= MAX_STEP) {
                        Some(i) => {
                            kept.insert(i as usize);
                        }
                        None => dropped += 1,
                    }
                }
                if !kept.is_empty() {
                    into.entry(slug.clone()).or_default().extend(kept);
                }
            }
        }
        // A right answer means the step was visited too.
        for (slug, steps) in &p.correct {
            p.visited.entry(slug.clone()).or_default().extend(steps.iter().copied());
        }
        let notice = (dropped > 0).then(|| {
            let entries = if dropped == 1 { "1 entry".to_string() } else { format!("{dropped} entries") };
            format!(
                "{entries} of your saved progress could not be read and {} dropped; the rest is kept",
                if dropped == 1 { "was" } else { "were" }
            )
        });
        (p, notice)
    }

    /// [`Progress::load`], as a result: the progress if nothing was dropped, else the notice.
    pub fn parse(stored: Option<&str>) -> Result<Progress, String> {
        match Progress::load(stored) {
            (p, None) => Ok(p),
            (_, Some(notice)) => Err(notice),
        }
    }

    /// Everything either record holds (two tabs' progress): steps visited or answered in
    /// either, and `self`'s newer fields before `other`'s.
    pub fn merged(&self, other: &Progress) -> Progress {
        let mut next = self.clone();
        for (into, from) in [(&mut next.visited, &other.visited), (&mut next.correct, &other.correct)] {
            for (slug, steps) in from {
                into.entry(slug.clone()).or_default().extend(steps.iter().copied());
            }
        }
        for (k, v) in &other.newer {
            next.newer.entry(k.clone()).or_insert_with(|| v.clone());
        }
        next
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.visited.values().all(BTreeSet::is_empty) && self.correct.values().all(BTreeSet::is_empty)
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

/// The notice for stored text that holds no progress at all.
fn unreadable(why: &str) -> String {
    format!("your saved progress could not be read ({why}); starting with no progress")
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
    fn missing_is_empty_and_corrupt_is_a_notice() {
        assert_eq!(Progress::load(None), (Progress::default(), None));
        assert_eq!(Progress::load(Some("{}")), (Progress::default(), None));
        for text in ["{not json", "[1,2]", "[]", "42", "null", "\"x\""] {
            let (p, notice) = Progress::load(Some(text));
            assert!(p.is_empty(), "{text}");
            let notice = notice.unwrap_or_else(|| panic!("{text}: no notice"));
            assert!(notice.contains("starting with no progress"), "{text}: {notice}");
        }
        assert!(Progress::parse(Some(r#"{"visited":{"x":["a"]}}"#)).is_err());
    }

    #[test]
    fn corrupt_entries_are_dropped_one_by_one_with_a_plain_notice() {
        let text = r#"{"visited":{"skb-layout":[0,-1,2,"x",1e3,5],"ktls-recursion":"all","page-frag-free":[1]},
                       "correct":{"skb-layout":[2,3.5]},"newer":{"a":1}}"#;
        let (p, notice) = Progress::load(Some(text));
        assert!(p.is_visited("skb-layout", 0) && p.is_visited("skb-layout", 2) && p.is_visited("skb-layout", 5));
        assert!(p.is_visited("page-frag-free", 1), "other lessons are kept");
        assert!(p.is_correct("skb-layout", 2) && !p.is_correct("skb-layout", 3));
        assert!(!p.visited.contains_key("ktls-recursion"));
        let notice = notice.expect("a notice");
        assert_eq!(notice, "5 entries of your saved progress could not be read and were dropped; the rest is kept");
        // A newer version's field is kept, and written back.
        assert_eq!(p.newer.get("newer"), Some(&serde_json::json!({"a":1})));
        assert!(p.to_json().contains(r#""newer":{"a":1}"#), "{}", p.to_json());
        for jargon in ["invalid", "expected", "usize", "column", "line"] {
            assert!(!notice.contains(jargon), "{notice}");
        }
        let (_, one) = Progress::load(Some(r#"{"visited":{"skb-layout":[-1,0]}}"#));
        assert_eq!(
            one.as_deref(),
            Some("1 entry of your saved progress could not be read and was dropped; the rest is kept")
        );
        // Saved again, only what was kept remains.
        let again = Progress::load(Some(&p.to_json()));
        assert_eq!(again, (p, None));
    }

    #[test]
    fn two_tabs_records_merge() {
        let a = Progress::default().with_visited("skb-layout", 0).with_correct("skb-layout", 2);
        let mut b = Progress::default().with_visited("skb-layout", 1).with_visited("ktls-recursion", 3);
        b.newer.insert("v2".into(), serde_json::json!(true));
        let m = a.merged(&b);
        assert!(m.is_visited("skb-layout", 0) && m.is_visited("skb-layout", 1) && m.is_correct("skb-layout", 2));
        assert!(m.is_visited("ktls-recursion", 3) && m.newer.contains_key("v2"));
        assert_eq!(m, b.merged(&a), "the order of the tabs does not matter");
    }
}
