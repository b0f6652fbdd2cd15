//! The committed validation report (`core/src/validate/snapshot.json`, what the app shows) is
//! in step with the registry: the same tables, verdicts, targets and fitted constants.

use skblab_core::experiments;
use skblab_core::validate::{registry_tables, snapshot};

#[test]
fn the_snapshot_has_the_registrys_tables_and_verdicts() {
    // A stale snapshot (a table added, renamed, refitted or turned into a prediction) fails
    // here: regenerate it with `make validate` (docs/validation.md).
    let snap = snapshot().expect("the snapshot parses");
    let want: Vec<_> = registry_tables(experiments())
        .iter()
        .map(|t| {
            let fitted = t.fitted.iter().map(|c| c.to_string()).collect();
            (t.experiment.to_string(), t.table.to_string(), t.verdict(), t.targets, fitted)
        })
        .collect();
    assert_eq!(snap.structure(), want, "core/src/validate/snapshot.json is stale: run `make validate`");
    for t in &snap.tables {
        assert_eq!(t.fitted as usize, t.fitted_constants.len() + t.counted_as_fitted.len(), "{}", t.table);
    }
}
