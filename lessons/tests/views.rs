//! Every view a lesson step names is one its experiment declares (core's `views()`), so a
//! typo in a lesson fails the suite instead of drawing a note on the page.

use skblab_core::{find, ViewSpec};
use skblab_lessons::{index, lesson, Status};

#[test]
fn every_step_names_views_its_experiment_declares() {
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let l = lesson(&entry.slug).expect("written lessons load");
        let e = find(&l.experiment).expect("a registered experiment");
        let ids: Vec<&str> = e.views().iter().map(ViewSpec::id).collect();
        for (i, step) in l.steps.iter().enumerate() {
            for v in &step.views {
                assert!(
                    ids.contains(&v.as_str()),
                    "{} step {}: no view named '{v}' (the experiment declares {})",
                    entry.slug,
                    i + 1,
                    ids.join(", ")
                );
            }
        }
    }
}

#[test]
fn view_ids_are_unique_per_experiment() {
    for e in skblab_core::experiments() {
        let mut ids: Vec<&str> = e.views().iter().map(ViewSpec::id).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "{}: duplicate view ids", e.id());
    }
}
