//! The machine catalogue ([`super::catalogue`]) as the Markdown tables of docs/calibration.md:
//! one table per core family and one per kernel era × family, every quantity with its value,
//! sourced range, unit, basis and source. `core/tests/catalogue_doc.rs` holds the document to
//! this text (`SKBLAB_UPDATE=1` rewrites the block), so the docs cannot drift from the code.

use super::catalogue::{Basis, Quantity, FAMILIES, KERNELS, PARTS};
use crate::params::Choice;
use std::fmt::Write as _;

/// The line that opens the generated block in docs/calibration.md.
pub const BEGIN: &str = "<!-- catalogue:begin (generated from core/src/sim/catalogue/; SKBLAB_UPDATE=1 cargo test -p skblab-core --features cli --test all catalogue_doc::) -->";
/// The line that closes it.
pub const END: &str = "<!-- catalogue:end -->";

fn basis(b: Basis) -> String {
    match b {
        Basis::Measured => "measured".into(),
        Basis::Secondary => "secondary".into(),
        Basis::Estimate => "estimate".into(),
        Basis::Assumed => "**assumed**".into(),
        Basis::Absent => "absent".into(),
        Basis::Fitted(tables) => format!("**fitted** ({})", tables.join(", ")),
    }
}

fn num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn table(out: &mut String, title: &str, rows: &[(&'static str, Quantity)]) {
    let _ = writeln!(
        out,
        "#### {title}\n\n| quantity | value | range | unit | basis | source |\n|---|---|---|---|---|---|"
    );
    for (name, q) in rows {
        let range = if q.min == q.max { "fixed".to_string() } else { format!("{}–{}", num(q.min), num(q.max)) };
        let source = q.source.replace('|', "/");
        let _ = writeln!(out, "| `{name}` | {} | {range} | {} | {} | {source} |", num(q.value), q.unit, basis(q.basis));
    }
    out.push('\n');
}

/// The generated block, markers included.
pub fn markdown() -> String {
    let mut out = format!("{BEGIN}\n\n");
    for f in FAMILIES {
        table(&mut out, &format!("{} (`{}`)", f.name, f.id.name()), &f.quantities());
    }
    for p in PARTS {
        table(&mut out, &format!("Part: {} (clocks; the rest is `{}`)", p.name, p.family.name()), &p.quantities());
    }
    for k in KERNELS {
        let title = format!("Kernel-path costs: {} on `{}`", k.era.name(), k.family.name());
        table(&mut out, &title, &k.quantities());
    }
    out.push_str(END);
    out
}
