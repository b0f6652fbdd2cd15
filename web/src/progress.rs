//! The learner's progress (which steps of which lesson are done), as plain data.
//!
//! Stored as JSON under [`STORAGE_KEY`] in localStorage by the `use_progress` hook; this
//! module only converts. Corrupt or foreign JSON yields an error the home page shows as a
//! notice, and the app starts from empty progress instead of failing.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The localStorage key; bump the version when the format changes.
pub const STORAGE_KEY: &str = "skblab.progress.v1";

/// Steps done per lesson slug (step indexes from 0).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub done: BTreeMap<String, BTreeSet<usize>>,
}

impl Progress {
    /// Parses stored JSON; `None` (nothing stored) is empty progress.
    pub fn parse(stored: Option<&str>) -> Result<Progress, String> {
        match stored {
            None => Ok(Progress::default()),
            Some(text) => serde_json::from_str(text).map_err(|e| {
                format!("saved progress ({STORAGE_KEY}) could not be read ({e}); starting with no progress")
            }),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("progress serializes")
    }

    /// The progress with step `step` of `slug` done.
    pub fn with_done(&self, slug: &str, step: usize) -> Progress {
        let mut next = self.clone();
        next.done.entry(slug.to_string()).or_default().insert(step);
        next
    }

    pub fn is_done(&self, slug: &str, step: usize) -> bool {
        self.done.get(slug).is_some_and(|s| s.contains(&step))
    }

    /// How many of the first `n_steps` steps are done (ignores steps a lesson no longer has).
    pub fn n_done(&self, slug: &str, n_steps: usize) -> usize {
        self.done.get(slug).map_or(0, |s| s.iter().filter(|i| **i < n_steps).count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_counts() {
        let p = Progress::default().with_done("skb-layout", 0).with_done("skb-layout", 3).with_done("skb-layout", 9);
        let q = Progress::parse(Some(&p.to_json())).unwrap();
        assert_eq!(p, q);
        assert!(q.is_done("skb-layout", 3) && !q.is_done("skb-layout", 1));
        assert_eq!(q.n_done("skb-layout", 5), 2);
        assert_eq!(q.n_done("other", 5), 0);
    }

    #[test]
    fn missing_is_empty_and_corrupt_is_an_error() {
        assert_eq!(Progress::parse(None), Ok(Progress::default()));
        let e = Progress::parse(Some("{not json")).unwrap_err();
        assert!(e.contains(STORAGE_KEY), "{e}");
        assert!(Progress::parse(Some("[1,2]")).is_err());
    }
}
