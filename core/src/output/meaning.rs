//! When a column's value means something: a [`Meaning`] per output column, either
//! [`Basis::Always`] or [`Basis::AtLeast`] so many events counted in the measured window.
//! A model's row marks a cell whose run counted fewer as [`Cell::Missing`] ([`mark_row`]),
//! and its output adds one note per such row ([`RunOutput::note_missing`](super::RunOutput::note_missing)).

use super::{Cell, Column, Row};
use serde::Serialize;

/// What makes a column's value meaningful (see [`Meaning`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Basis {
    /// Always meaningful: arithmetic on the parameters, a key or a label, a count itself or a
    /// share of simulated time; the text says which.
    Always(&'static str),
    /// A rate, share or ratio over events counted in the measured window: meaningful only with
    /// at least `min` of `what` (e.g. "packets forwarded in the measured window").
    AtLeast { min: u64, what: &'static str },
}

impl Basis {
    /// "100 packets forwarded in the measured window" (what a short run lacks).
    pub fn need_text(&self) -> String {
        match self {
            Basis::AtLeast { min, what } => format!("{min} {what}"),
            Basis::Always(why) => format!("what it needs ({why})"),
        }
    }
}

/// When one output column's value is meaningful. A column may have several (each must hold).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Meaning {
    pub column: &'static str,
    pub basis: Basis,
}

impl Meaning {
    /// The default bar of a counted figure: with 100 events a count's Poisson error is 10 %,
    /// the most a lesson's figure can carry (ASSUMPTION, a rule of thumb, not a fit).
    pub const MIN_COUNTED: u64 = 100;

    pub const fn always(column: &'static str, why: &'static str) -> Meaning {
        Meaning { column, basis: Basis::Always(why) }
    }

    pub const fn at_least(column: &'static str, min: u64, what: &'static str) -> Meaning {
        Meaning { column, basis: Basis::AtLeast { min, what } }
    }
}

/// Marks as [`Cell::Missing`] every numeric cell of `row` whose column has a
/// [`Basis::AtLeast`] in `meanings` that `counts` (`what` → how many the run counted) falls
/// short of. A `what` without a count is a bug (panics in debug builds; the cell is kept).
pub fn mark_row(row: &mut Row, columns: &[Column], meanings: &[Meaning], counts: &[(&str, u64)]) {
    for m in meanings {
        let Basis::AtLeast { min, what } = m.basis else { continue };
        let Some(&(_, n)) = counts.iter().find(|(w, _)| *w == what) else {
            debug_assert!(false, "bug: no count of '{what}' for column {}", m.column);
            continue;
        };
        let Some(c) = columns.iter().position(|col| col.name == m.column) else { continue };
        if n < min && row[c].as_f64().is_some() {
            row[c] = Cell::Missing;
        }
    }
}

/// Why a [`Cell::Missing`] of `column` is missing, after "the run has ": with the row's
/// `counts` (as [`mark_row`] took them) the conditions it fell short of, each with what it
/// counted; without them (a cell does not say which condition failed) every condition of the
/// column.
pub(super) fn shortfall_text(meanings: &[Meaning], column: &str, counts: &[(&str, u64)]) -> String {
    let bases: Vec<&Basis> = meanings
        .iter()
        .filter(|m| m.column == column && matches!(m.basis, Basis::AtLeast { .. }))
        .map(|m| &m.basis)
        .collect();
    let failed: Vec<String> = bases
        .iter()
        .filter_map(|b| {
            let Basis::AtLeast { min, what } = **b else { return None };
            let &(_, n) = counts.iter().find(|(w, _)| *w == what)?;
            (n < min).then(|| {
                if min == 1 {
                    format!("no {what}")
                } else {
                    format!("{n} {what} (fewer than the {min} it needs)")
                }
            })
        })
        .collect();
    if !failed.is_empty() {
        return failed.join(" and ");
    }
    let all: Vec<String> = bases.iter().map(|b| b.need_text()).collect();
    match (all.len(), bases.first()) {
        (0, _) => "fewer events than it needs".to_string(),
        // "no stack overflow in the walk", not "fewer than 1 stack overflow".
        (1, Some(Basis::AtLeast { min: 1, what })) => format!("no {what}"),
        (1, _) => format!("fewer than {}", all[0]),
        (_, _) => format!("fewer than one of: {}", all.join("; ")),
    }
}
