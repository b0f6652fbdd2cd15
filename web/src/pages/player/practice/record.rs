//! A practice under way ("Practise the N you missed"): which lesson, which of its
//! steps are being asked again, in order, and which of them the learner has answered in this
//! practice. Kept in localStorage under [`STORAGE_KEY`] so that a reload mid-practice comes
//! back to it (the step itself is in the URL); removed when the practice ends.
//!
//! One record, read as ledger.rs reads its entries: text that is not this record (not JSON,
//! another version, steps out of range, a done step that is not practised) is dropped with a
//! plain-language notice, never with the parser's words. The player drops it too, with the same
//! kind of notice, when its steps are not questions of the lesson it names.

use serde::{Deserialize, Serialize};

/// The localStorage key (the version is also inside the record).
pub const STORAGE_KEY: &str = "skblab.practice.v1";
/// The record's format; bump it when the format changes incompatibly.
pub const VERSION: u32 = 1;
/// The largest step index kept from storage (as progress.rs and ledger.rs).
const MAX_STEP: usize = 999;
/// The longest lesson slug kept.
const MAX_SLUG_CHARS: usize = 100;

/// The practice under way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Practice {
    pub version: u32,
    /// The lesson practised.
    pub slug: String,
    /// The steps (from 0) asked again, in the order they are asked.
    pub steps: Vec<usize>,
    /// The steps of `steps` answered (right, or the answer shown) in this practice.
    #[serde(default)]
    pub done: Vec<usize>,
}

impl Practice {
    pub fn new(slug: &str, steps: Vec<usize>) -> Practice {
        Practice { version: VERSION, slug: slug.to_string(), steps, done: Vec::new() }
    }

    /// Reads the stored record: the practice, or none and a notice if the text is not one.
    /// Nothing stored is no practice and no notice.
    pub fn load(stored: Option<&str>) -> (Option<Practice>, Option<String>) {
        let Some(text) = stored else { return (None, None) };
        match serde_json::from_str::<Practice>(text) {
            Ok(p) if p.is_sane() => (Some(p), None),
            _ => (None, Some(DROPPED.to_string())),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a practice serializes")
    }

    fn is_sane(&self) -> bool {
        let mut sorted = self.steps.clone();
        sorted.sort_unstable();
        sorted.dedup();
        self.version == VERSION
            && !self.slug.is_empty()
            && self.slug.chars().count() <= MAX_SLUG_CHARS
            && !self.steps.is_empty()
            && sorted.len() == self.steps.len()
            && self.steps.iter().all(|&i| i <= MAX_STEP)
            && self.done.iter().all(|i| self.steps.contains(i))
    }

    /// Whether the practice fits a lesson `slug` whose steps with a question are
    /// `has_question` (one flag per step): every step practised is one of its questions.
    pub fn fits(&self, slug: &str, has_question: &[bool]) -> bool {
        self.slug == slug && self.steps.iter().all(|&i| has_question.get(i).copied().unwrap_or(false))
    }

    /// The practice with step `step` answered (unchanged if it is not practised or done).
    pub fn with_done(&self, step: usize) -> Practice {
        let mut next = self.clone();
        if next.steps.contains(&step) && !next.done.contains(&step) {
            next.done.push(step);
            next.done.sort_unstable();
        }
        next
    }

    pub fn is_done(&self, step: usize) -> bool {
        self.done.contains(&step)
    }

    /// Where `step` is in the practice (from 0), if it is practised.
    pub fn position(&self, step: usize) -> Option<usize> {
        self.steps.iter().position(|&i| i == step)
    }
}

/// The notice for a stored practice that cannot be used.
pub const DROPPED: &str = "your practice in progress could not be read and was dropped; \
     start it again from the lesson's first or last step";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_practice_round_trips_with_what_is_done() {
        let p = Practice::new("skb-layout", vec![1, 4, 7]).with_done(4).with_done(4).with_done(9);
        assert_eq!(p.done, vec![4], "done once, and only a practised step");
        let json = p.to_json();
        assert_eq!(json, r#"{"version":1,"slug":"skb-layout","steps":[1,4,7],"done":[4]}"#);
        assert_eq!(Practice::load(Some(&json)), (Some(p.clone()), None));
        assert!(p.is_done(4) && !p.is_done(1));
        assert_eq!((p.position(7), p.position(2)), (Some(2), None));
        assert_eq!(Practice::load(None), (None, None));
    }

    #[test]
    fn a_practice_fits_only_its_lessons_questions() {
        let p = Practice::new("skb-layout", vec![1, 3]);
        assert!(p.fits("skb-layout", &[false, true, false, true]));
        assert!(!p.fits("skb-cache", &[false, true, false, true]), "another lesson");
        assert!(!p.fits("skb-layout", &[false, true, false, false]), "step 3 has no question");
        assert!(!p.fits("skb-layout", &[false, true]), "step 3 is past the lesson's end");
    }

    #[test]
    fn a_corrupt_record_is_dropped_with_a_plain_notice() {
        for text in [
            "{not json",
            "[]",
            "42",
            "null",
            r#"{"version":2,"slug":"skb-layout","steps":[1]}"#,
            r#"{"version":1,"slug":"skb-layout","steps":[]}"#,
            r#"{"version":1,"slug":"","steps":[1]}"#,
            r#"{"version":1,"slug":"skb-layout","steps":[-1]}"#,
            r#"{"version":1,"slug":"skb-layout","steps":[1,1]}"#,
            r#"{"version":1,"slug":"skb-layout","steps":[1000]}"#,
            r#"{"version":1,"slug":"skb-layout","steps":[1],"done":[2]}"#,
            r#"{"version":1,"slug":"skb-layout","steps":[1],"extra":true}"#,
        ] {
            let (p, notice) = Practice::load(Some(text));
            assert_eq!(p, None, "{text}");
            let notice = notice.unwrap_or_else(|| panic!("{text}: no notice"));
            assert_eq!(notice, DROPPED);
            for jargon in ["invalid", "expected", "variant", "usize", "column", "line"] {
                assert!(!notice.contains(jargon), "{notice}");
            }
        }
        let (p, notice) = Practice::load(Some(r#"{"version":1,"slug":"skb-layout","steps":[4,1]}"#));
        assert_eq!((p.map(|p| p.steps), notice), (Some(vec![4, 1]), None), "done may be left out");
    }
}
