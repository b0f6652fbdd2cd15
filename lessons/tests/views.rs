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

/// A question veils views that would show its answer: only views of its own step, and at least
/// every generic view that draws its metric (the result table, a chart of the metric's column,
/// a plot that declares it shows it) and every flame view that sets two runs side by side
/// (their headings carry each run's throughput, so a before/after gain can be read off them).
#[test]
fn questions_hide_the_views_that_show_their_answer() {
    for entry in index().iter().filter(|e| e.status == Status::Written) {
        let l = lesson(&entry.slug).expect("written lessons load");
        let e = find(&l.experiment).expect("a registered experiment");
        for (i, step) in l.steps.iter().enumerate() {
            let Some(q) = &step.question else { continue };
            let at = format!("{} step {}", entry.slug, i + 1);
            if !q.unit.is_empty() {
                let column = q.column_unit(e, &e.defaults());
                assert!(
                    skblab_lessons::unit_factor(&column, &q.unit).is_some(),
                    "{at}: answers in '{}' cannot be converted from the column's '{column}'",
                    q.unit
                );
            }
            for h in &q.hides {
                assert!(step.views.contains(h), "{at}: hides '{h}', which is not one of the step's views");
            }
            for spec in e.views().iter().filter(|v| step.views.iter().any(|s| s == v.id())) {
                let shows_metric = match spec {
                    ViewSpec::Table { .. } => true,
                    ViewSpec::Chart { chart, .. } => chart.ys.iter().any(|(col, _)| *col == q.metric),
                    ViewSpec::Plot { shows, .. } => shows.contains(&q.metric.as_str()),
                    ViewSpec::Flame { flames, .. } => flames.len() > 1,
                    _ => false,
                };
                assert!(
                    !shows_metric || q.hides.iter().any(|h| h == spec.id()),
                    "{at}: view '{}' shows '{}', the question's answer: list it in `hides`",
                    spec.id(),
                    q.metric
                );
            }
        }
    }
}
