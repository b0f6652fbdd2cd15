//! Spaced practice: when each answered question comes back. Pure; the time (`now`, ms since
//! the Unix epoch) is the caller's (`Date.now()` in the app), never the simulation's.
//!
//! The rule is ours: Leitner boxes (Sebastian Leitner's card boxes, *So lernt man lernen*,
//! 1972) with an expanding interval per box, [`INTERVALS_MS`]. A question missed (a wrong
//! graded answer, even one left without a right answer, or the answer shown) goes to box 0 and
//! comes back after ten minutes; one answered right on the first try moves up one box — the
//! first time to box 1, back after hours, then days. The numbers of the intervals are our
//! choice (the expanding shape is the method's), not measured for this course.
//!
//! Stored as JSON under [`STORAGE_KEY`] (lesson slug → step → card). Reading is forgiving: a
//! card that is not one is left out without a word (the schedule is a convenience, and the
//! ledger still holds what the learner did). State saved before this schedule existed has no
//! cards: a question the ledger lists as missed ([`Ledger::missed`]) and that has no card is
//! due at once, as it was offered before; one answered right then has no card until it is
//! answered again.

use crate::ledger::Ledger;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The localStorage key; bump the version when the format changes incompatibly.
pub const STORAGE_KEY: &str = "skblab.review.v1";

const MINUTE_MS: f64 = 60_000.0;
const HOUR_MS: f64 = 60.0 * MINUTE_MS;
const DAY_MS: f64 = 24.0 * HOUR_MS;

/// How long a question waits in each box before it is due again: box 0 holds the missed ones.
pub const INTERVALS_MS: [f64; 6] = [10.0 * MINUTE_MS, 5.0 * HOUR_MS, DAY_MS, 3.0 * DAY_MS, 7.0 * DAY_MS, 21.0 * DAY_MS];

/// The largest step index kept from storage (as progress.rs and ledger.rs).
const MAX_STEP: usize = 999;

/// One question's place in the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Card {
    /// Its Leitner box, 0 to `INTERVALS_MS.len() - 1`.
    #[serde(rename = "box")]
    pub level: usize,
    /// When it is due, in ms since the Unix epoch.
    pub due: f64,
}

impl Card {
    fn is_sane(&self) -> bool {
        self.level < INTERVALS_MS.len() && self.due.is_finite() && self.due >= 0.0
    }
}

/// Per lesson slug, per step index (from 0), the question's card.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Review(pub BTreeMap<String, BTreeMap<usize, Card>>);

impl Review {
    /// Reads stored JSON, keeping every readable card; anything else is no card.
    pub fn load(stored: Option<&str>) -> Review {
        let value = stored.and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok());
        let mut review = Review::default();
        let Some(lessons) = value.as_ref().and_then(|v| v.as_object()) else { return review };
        for (slug, steps) in lessons {
            for (step, card) in steps.as_object().into_iter().flatten() {
                let step = step.parse::<usize>().ok().filter(|&i| i <= MAX_STEP);
                let card = serde_json::from_value::<Card>(card.clone()).ok().filter(Card::is_sane);
                if let (Some(i), Some(c)) = (step, card) {
                    review.0.entry(slug.clone()).or_default().insert(i, c);
                }
            }
        }
        review
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the schedule serializes")
    }

    pub fn card(&self, slug: &str, step: usize) -> Option<Card> {
        self.0.get(slug)?.get(&step).copied()
    }

    /// The schedule once step `step` of `slug` was answered at `now`: right on the first try
    /// (`right_first`) moves its card up one box, anything else puts it in box 0.
    pub fn answered(&self, slug: &str, step: usize, right_first: bool, now: f64) -> Review {
        let level = match (right_first, self.card(slug, step)) {
            (false, _) => 0,
            (true, None) => 1,
            (true, Some(c)) => (c.level + 1).min(INTERVALS_MS.len() - 1),
        };
        let mut next = self.clone();
        next.0.entry(slug.to_string()).or_default().insert(step, Card { level, due: now + INTERVALS_MS[level] });
        next
    }

    /// Both schedules' cards (two tabs'): `self`'s where both have one.
    pub fn merged(&self, other: &Review) -> Review {
        let mut next = self.clone();
        for (slug, steps) in &other.0 {
            let mine = next.0.entry(slug.clone()).or_default();
            for (step, card) in steps {
                mine.entry(*step).or_insert(*card);
            }
        }
        next
    }

    pub fn is_empty(&self) -> bool {
        self.0.values().all(BTreeMap::is_empty)
    }
}

/// The steps of `slug` whose questions are due at `now`, in order: each card whose time has
/// come, and each question the ledger lists as missed that has no card (saved before the
/// schedule). Only steps `has_question` marks (one flag per step of the lesson) count.
pub fn due_in(review: &Review, ledger: &Ledger, slug: &str, has_question: &[bool], now: f64) -> Vec<usize> {
    let cards = review.0.get(slug);
    let mut due: Vec<usize> = cards.into_iter().flatten().filter(|(_, c)| c.due <= now).map(|(i, _)| *i).collect();
    due.extend(ledger.missed(slug).into_iter().filter(|i| cards.is_none_or(|m| !m.contains_key(i))));
    due.sort_unstable();
    due.dedup();
    due.retain(|&i| has_question.get(i).copied().unwrap_or(false));
    due
}

/// When the next question of `slug` is due after `now`, if one will be (for "next in …").
pub fn next_due(review: &Review, slug: &str, now: f64) -> Option<f64> {
    review.0.get(slug)?.values().map(|c| c.due).filter(|&d| d > now).min_by(f64::total_cmp)
}

/// A wait in words: "10 min", "5 h", "3 days" (rounded up, so "due in" never comes early).
pub fn wait_words(ms: f64) -> String {
    let ms = ms.max(0.0);
    if ms < HOUR_MS {
        format!("{} min", (ms / MINUTE_MS).ceil().max(1.0))
    } else if ms < DAY_MS {
        format!("{} h", (ms / HOUR_MS).ceil())
    } else {
        let days = (ms / DAY_MS).ceil();
        format!("{days} {}", if days == 1.0 { "day" } else { "days" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Entry, Outcome};

    const T0: f64 = 1.8e12;
    const Q: [bool; 6] = [false, true, true, false, true, true];

    fn entry(outcome: Outcome) -> Entry {
        Entry {
            first: String::new(),
            confidence: None,
            model: "488 bytes".into(),
            outcome,
            practice: None,
            newer: Default::default(),
        }
    }

    #[test]
    fn right_first_comes_back_after_hours_then_days_a_miss_after_minutes() {
        let none = Ledger::default();
        let r = Review::default().answered("skb-layout", 1, true, T0).answered("skb-layout", 2, false, T0);
        let due = |r: &Review, t: f64| due_in(r, &none, "skb-layout", &Q, t);
        assert_eq!(due(&r, T0), Vec::<usize>::new(), "nothing is due right after");
        assert_eq!(due(&r, T0 + 9.0 * MINUTE_MS), Vec::<usize>::new());
        assert_eq!(due(&r, T0 + 10.0 * MINUTE_MS), vec![2], "the missed one, after ten minutes");
        assert_eq!(due(&r, T0 + 5.0 * HOUR_MS), vec![1, 2], "the right one, after hours");
        // Each right first try moves it a box up: 5 h, 1 day, 3 days, 7 days, 21 days, 21 days.
        let mut r = r;
        let mut t = T0;
        let mut waits = Vec::new();
        for _ in 0..6 {
            let c = r.card("skb-layout", 1).unwrap();
            waits.push(wait_words(c.due - t));
            t = c.due;
            assert_eq!(due(&r, t - 1.0), vec![2], "not due a moment early");
            r = r.answered("skb-layout", 1, true, t);
        }
        assert_eq!(waits, ["5 h", "1 day", "3 days", "7 days", "21 days", "21 days"]);
        // A miss sends it back to minutes.
        let r = r.answered("skb-layout", 1, false, t);
        assert_eq!(r.card("skb-layout", 1), Some(Card { level: 0, due: t + 10.0 * MINUTE_MS }));
        assert_eq!(next_due(&r, "skb-layout", t), Some(t + 10.0 * MINUTE_MS));
    }

    #[test]
    fn only_questions_count_and_old_missed_entries_are_due_at_once() {
        // Saved before the schedule: the ledger's missed questions, no cards.
        let ledger = Ledger::default()
            .with_first("skb-layout", 2, entry(Outcome::AfterRetry))
            .with_first("skb-layout", 4, entry(Outcome::Revealed))
            .with_first("skb-layout", 5, entry(Outcome::FirstTry))
            .with_first("skb-layout", 9, entry(Outcome::Revealed));
        let r = Review::default();
        assert_eq!(due_in(&r, &ledger, "skb-layout", &Q, T0), vec![2, 4], "step 9 is no question");
        // Once scheduled, the card decides.
        let r = r.answered("skb-layout", 2, true, T0).answered("skb-layout", 3, false, T0);
        assert_eq!(due_in(&r, &ledger, "skb-layout", &Q, T0 + HOUR_MS), vec![4], "step 3 is no question");
        assert_eq!(due_in(&r, &ledger, "other", &Q, T0), Vec::<usize>::new());
    }

    #[test]
    fn stored_cards_round_trip_and_what_is_not_a_card_is_left_out() {
        let r = Review::default().answered("skb-layout", 1, false, T0);
        assert_eq!(Review::load(Some(&r.to_json())), r);
        assert_eq!(r.to_json(), r#"{"skb-layout":{"1":{"box":0,"due":1800000600000.0}}}"#);
        for text in ["{not json", "[]", "42", "null", r#"{"a":[1]}"#] {
            assert!(Review::load(Some(text)).is_empty(), "{text}");
        }
        let mixed = Review::load(Some(
            r#"{"a":{"1":{"box":2,"due":5},"x":{"box":1,"due":5},"2":{"box":9,"due":5},"3":{"box":1,"due":-1},"4":{"box":1}}}"#,
        ));
        assert_eq!(mixed.0["a"].keys().copied().collect::<Vec<_>>(), vec![1]);
        let other = Review::default().answered("a", 1, true, T0).answered("a", 7, true, T0);
        let m = mixed.merged(&other);
        assert_eq!((m.card("a", 1).unwrap().due, m.card("a", 7).is_some()), (5.0, true));
    }
}
