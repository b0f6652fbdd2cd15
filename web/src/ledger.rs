//! The prediction ledger: per lesson and step, how the learner's prediction went —
//! their first prediction, how sure they said they were, the model's value, and the outcome
//! (right on the first try, right after a retry, or revealed) — plus the outcome of a later
//! practice of that question. The lesson's end lists it with a calibration line, and a later
//! visit offers to re-ask the questions missed.
//!
//! Stored as JSON under [`STORAGE_KEY`] in localStorage by the `use_progress` hook; this
//! module only converts. Reading is forgiving, entry by entry ([`Ledger::load`]), as
//! progress.rs is: an entry that is not a step's record is dropped alone and a plain-language
//! notice says how many; text that is no ledger at all (not JSON, `[]`, a number) starts from
//! an empty ledger, with a notice too. An entry's fields this version does not know (a newer
//! version's) are kept as they are and written back ([`Entry::newer`]); two tabs' ledgers
//! merge ([`Ledger::merged`]).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The localStorage key; bump the version when the format changes incompatibly.
pub const STORAGE_KEY: &str = "skblab.ledger.v1";

/// The largest step index kept from storage (as progress.rs: a larger one is corrupt).
const MAX_STEP: usize = 999;

/// The longest prediction or model value kept, in characters (a longer one is corrupt).
const MAX_TEXT_CHARS: usize = 200;

/// How sure the learner said they were before checking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confidence {
    Guessing,
    FairlySure,
    Certain,
}

impl Confidence {
    pub const ALL: [Confidence; 3] = [Confidence::Guessing, Confidence::FairlySure, Confidence::Certain];

    /// The words on the page.
    pub fn label(self) -> &'static str {
        match self {
            Confidence::Guessing => "guessing",
            Confidence::FairlySure => "fairly sure",
            Confidence::Certain => "certain",
        }
    }

    /// The id in the page and in storage.
    pub fn id(self) -> &'static str {
        match self {
            Confidence::Guessing => "guessing",
            Confidence::FairlySure => "fairly-sure",
            Confidence::Certain => "certain",
        }
    }
}

/// How a question ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    FirstTry,
    AfterRetry,
    Revealed,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::FirstTry => "right, first try",
            Outcome::AfterRetry => "right after a retry",
            Outcome::Revealed => "revealed",
        }
    }
}

/// One question's record: its first ending (kept), and the last practice's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The first graded prediction as typed ("" if the answer was asked for before any).
    pub first: String,
    /// How sure the learner said they were of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    /// The model's value with its unit, e.g. `488 bytes`.
    pub model: String,
    pub outcome: Outcome,
    /// The outcome of the latest practice of the question, if practised since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub practice: Option<Outcome>,
    /// Fields of a newer version's format, kept verbatim.
    #[serde(flatten)]
    pub newer: serde_json::Map<String, serde_json::Value>,
}

impl Entry {
    /// Whether the question still wants practice: missed (a retry or a reveal) and not
    /// answered right on the first try in a practice since.
    pub fn missed(&self) -> bool {
        self.outcome != Outcome::FirstTry && self.practice != Some(Outcome::FirstTry)
    }

    fn is_sane(&self) -> bool {
        self.first.chars().count() <= MAX_TEXT_CHARS
            && !self.model.is_empty()
            && self.model.chars().count() <= MAX_TEXT_CHARS
    }
}

/// Per lesson slug, per step index (from 0), the step's record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger(pub BTreeMap<String, BTreeMap<usize, Entry>>);

/// How often one confidence level was right on the first try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibration {
    pub confidence: Confidence,
    pub right_first: usize,
    pub total: usize,
}

impl Ledger {
    /// Reads stored JSON, keeping every readable entry: the ledger, and a notice if anything
    /// was dropped. `None` (nothing stored) and `{}` are an empty ledger without a notice.
    pub fn load(stored: Option<&str>) -> (Ledger, Option<String>) {
        let Some(text) = stored else { return (Ledger::default(), None) };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            return (Ledger::default(), Some(unreadable("it is not readable text")));
        };
        let Some(lessons) = value.as_object() else {
            return (Ledger::default(), Some(unreadable("it is not a record of lessons and questions")));
        };
        let mut ledger = Ledger::default();
        let mut dropped = 0usize;
        for (slug, steps) in lessons {
            let Some(steps) = steps.as_object() else {
                dropped += 1;
                continue;
            };
            for (step, entry) in steps {
                let step = step.parse::<usize>().ok().filter(|&i| i <= MAX_STEP);
                let entry = serde_json::from_value::<Entry>(entry.clone()).ok().filter(Entry::is_sane);
                match (step, entry) {
                    (Some(i), Some(e)) => {
                        ledger.0.entry(slug.clone()).or_default().insert(i, e);
                    }
                    _ => dropped += 1,
                }
            }
        }
        let notice = (dropped > 0).then(|| {
            let entries = if dropped == 1 { "1 entry".to_string() } else { format!("{dropped} entries") };
            format!(
                "{entries} of your saved prediction ledger could not be read and {} dropped; the rest is kept",
                if dropped == 1 { "was" } else { "were" }
            )
        });
        (ledger, notice)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the ledger serializes")
    }

    pub fn is_empty(&self) -> bool {
        self.0.values().all(BTreeMap::is_empty)
    }

    /// Both ledgers' records (two tabs'): `self`'s record of a step where both have one (its
    /// first ending is the one kept), with `other`'s practice if `self` has none.
    pub fn merged(&self, other: &Ledger) -> Ledger {
        let mut next = self.clone();
        for (slug, steps) in &other.0 {
            let mine = next.0.entry(slug.clone()).or_default();
            for (step, e) in steps {
                let kept = mine.entry(*step).or_insert_with(|| e.clone());
                kept.practice = kept.practice.or(e.practice);
            }
        }
        next
    }

    /// The record of step `step` of `slug`.
    pub fn get(&self, slug: &str, step: usize) -> Option<&Entry> {
        self.0.get(slug)?.get(&step)
    }

    /// The ledger with `entry` as step `step`'s first ending, unless it has one (the first
    /// prediction is the one the ledger keeps).
    pub fn with_first(&self, slug: &str, step: usize, entry: Entry) -> Ledger {
        let mut next = self.clone();
        next.0.entry(slug.to_string()).or_default().entry(step).or_insert(entry);
        next
    }

    /// The ledger with a practice of step `step` of `slug` ended as `outcome` (a question
    /// with no first ending gets `entry` as that).
    pub fn with_practice(&self, slug: &str, step: usize, entry: Entry, outcome: Outcome) -> Ledger {
        let mut next = self.clone();
        let e = next.0.entry(slug.to_string()).or_default().entry(step).or_insert(entry);
        e.practice = Some(outcome);
        next
    }

    /// The steps of `slug` whose questions still want practice ([`Entry::missed`]), in order.
    pub fn missed(&self, slug: &str) -> Vec<usize> {
        self.0.get(slug).map_or_else(Vec::new, |m| m.iter().filter(|(_, e)| e.missed()).map(|(i, _)| *i).collect())
    }

    /// Per confidence level said in `slug`, how often it was right on the first try.
    pub fn calibration(&self, slug: &str) -> Vec<Calibration> {
        let entries: Vec<&Entry> = self.0.get(slug).map_or_else(Vec::new, |m| m.values().collect());
        Confidence::ALL
            .iter()
            .filter_map(|&c| {
                let said: Vec<_> = entries.iter().filter(|e| e.confidence == Some(c)).collect();
                let right_first = said.iter().filter(|e| e.outcome == Outcome::FirstTry).count();
                (!said.is_empty()).then_some(Calibration { confidence: c, right_first, total: said.len() })
            })
            .collect()
    }
}

/// The calibration line of the lesson's end, e.g. "When you said certain you were right on the
/// first try 2 of 3 times; fairly sure: 1 of 1." `None` if no confidence was said.
pub fn calibration_line(cal: &[Calibration]) -> Option<String> {
    let parts: Vec<String> = cal
        .iter()
        .rev()
        .map(|c| format!("“{}”: {} of {} right on the first try", c.confidence.label(), c.right_first, c.total))
        .collect();
    (!parts.is_empty()).then(|| format!("How sure you said you were, and how it went: {}.", parts.join("; ")))
}

/// The notice for stored text that holds no ledger at all.
fn unreadable(why: &str) -> String {
    format!("your saved prediction ledger could not be read ({why}); starting with an empty ledger")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(first: &str, confidence: Option<Confidence>, outcome: Outcome) -> Entry {
        Entry {
            first: first.into(),
            confidence,
            model: "488 bytes".into(),
            outcome,
            practice: None,
            newer: Default::default(),
        }
    }

    #[test]
    fn round_trips_keeps_the_first_prediction_and_lists_the_missed() {
        let l = Ledger::default()
            .with_first("skb-layout", 1, entry("100", Some(Confidence::Certain), Outcome::AfterRetry))
            .with_first("skb-layout", 1, entry("488", None, Outcome::FirstTry))
            .with_first("skb-layout", 4, entry("320", Some(Confidence::Certain), Outcome::FirstTry))
            .with_first("skb-layout", 2, entry("", None, Outcome::Revealed));
        let (again, notice) = Ledger::load(Some(&l.to_json()));
        assert_eq!((&again, notice), (&l, None));
        assert_eq!(again.get("skb-layout", 1).unwrap().first, "100", "the first prediction is kept");
        assert_eq!(again.missed("skb-layout"), vec![1, 2]);
        let cal = again.calibration("skb-layout");
        assert_eq!(cal, vec![Calibration { confidence: Confidence::Certain, right_first: 1, total: 2 }]);
        assert_eq!(
            calibration_line(&cal).unwrap(),
            "How sure you said you were, and how it went: “certain”: 1 of 2 right on the first try."
        );
        // A practice right on the first try takes the step off the missed list; the first
        // ending stays.
        let practised = again.with_practice("skb-layout", 1, entry("9", None, Outcome::FirstTry), Outcome::FirstTry);
        assert_eq!(practised.missed("skb-layout"), vec![2]);
        assert_eq!(practised.get("skb-layout", 1).unwrap().outcome, Outcome::AfterRetry);
        assert!(practised.to_json().contains(r#""practice":"first-try""#), "{}", practised.to_json());
    }

    #[test]
    fn missing_is_empty_and_wholly_corrupt_is_a_notice() {
        assert_eq!(Ledger::load(None), (Ledger::default(), None));
        assert_eq!(Ledger::load(Some("{}")), (Ledger::default(), None));
        for text in ["{not json", "[1,2]", "[]", "42", "null", "\"x\""] {
            let (l, notice) = Ledger::load(Some(text));
            assert!(l.is_empty(), "{text}");
            let notice = notice.unwrap_or_else(|| panic!("{text}: no notice"));
            assert!(notice.contains("starting with an empty ledger"), "{text}: {notice}");
        }
    }

    #[test]
    fn corrupt_entries_are_dropped_one_by_one_with_a_plain_notice() {
        let text = r#"{"skb-layout":{
              "1":{"first":"100","confidence":"certain","model":"488 bytes","outcome":"after-retry"},
              "2":{"first":"1","model":"488 bytes","outcome":"sideways"},
              "x":{"first":"1","model":"488 bytes","outcome":"first-try"},
              "4":{"first":"320","model":"320 bytes","outcome":"first-try","extra":1},
              "5":{"first":"5","confidence":"very","model":"320 bytes","outcome":"first-try"},
              "6":{"first":"5","model":"","outcome":"revealed"},
              "7":{"first":"","model":"1 KiB","outcome":"revealed"}},
            "ktls-recursion":"all",
            "page-frag-free":{"0":{"first":"2","confidence":"guessing","model":"3","outcome":"revealed"}}}"#;
        let (l, notice) = Ledger::load(Some(text));
        assert_eq!(l.get("skb-layout", 1).unwrap().confidence, Some(Confidence::Certain));
        assert_eq!(l.get("skb-layout", 7).unwrap().outcome, Outcome::Revealed);
        assert!(l.get("page-frag-free", 0).is_some(), "other lessons are kept");
        // A newer version's field is kept with its entry, and written back.
        assert_eq!(l.get("skb-layout", 4).unwrap().newer.get("extra"), Some(&serde_json::json!(1)));
        assert!(l.to_json().contains(r#""extra":1"#));
        for gone in [2, 5, 6] {
            assert!(l.get("skb-layout", gone).is_none(), "step {gone}");
        }
        assert!(!l.0.contains_key("ktls-recursion"));
        let notice = notice.expect("a notice");
        assert_eq!(
            notice,
            "5 entries of your saved prediction ledger could not be read and were dropped; the rest is kept"
        );
        for jargon in ["invalid", "expected", "variant", "usize", "column", "line"] {
            assert!(!notice.contains(jargon), "{notice}");
        }
        let (_, one) = Ledger::load(Some(r#"{"skb-layout":{"-1":{"first":"1","model":"2","outcome":"revealed"}}}"#));
        assert_eq!(
            one.as_deref(),
            Some("1 entry of your saved prediction ledger could not be read and was dropped; the rest is kept")
        );
        // Saved again, only what was kept remains.
        assert_eq!(Ledger::load(Some(&l.to_json())), (l, None));
    }

    #[test]
    fn two_tabs_ledgers_merge_and_keep_the_first_ending() {
        let a = Ledger::default().with_first("skb-layout", 1, entry("100", None, Outcome::AfterRetry));
        let b = Ledger::default()
            .with_first("skb-layout", 1, entry("488", None, Outcome::FirstTry))
            .with_practice("skb-layout", 1, entry("488", None, Outcome::FirstTry), Outcome::FirstTry)
            .with_first("skb-layout", 4, entry("320", None, Outcome::Revealed));
        let m = a.merged(&b);
        let one = m.get("skb-layout", 1).unwrap();
        assert_eq!((one.first.as_str(), one.practice), ("100", Some(Outcome::FirstTry)));
        assert!(m.get("skb-layout", 4).is_some());
    }
}
