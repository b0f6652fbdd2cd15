//! The registry against the machine catalogue and the fitting budget: every
//! experiment with a seed table declares its tables (independent numbers, constants fitted to
//! each); no group of tables joined by a joint fit fits more than one constant per three
//! independent numbers (except a table admitted over it in [`OVER_BUDGET_ADMITTED`], which
//! `skblab validate` still reports); every machine profile an experiment runs is its family's catalogue
//! entry (no two profiles give one physical quantity different values unless they are
//! different hardware); and every fitted constant sits inside its sourced range, off its bounds.

use skblab_core::calibrate::tables::{budget_violations, Verdict};
use skblab_core::params::Choice;
use skblab_core::sim::catalogue::{Basis, FAMILIES, KERNELS};
use skblab_core::{experiments, Experiment};

fn declared() -> impl Iterator<Item = &'static dyn Experiment> {
    experiments::REGISTRY.iter().copied()
}

/// Tables admitted over the budget, with why. `skblab validate` still reports them (verdict
/// `fit`, a budget violation line): admitting one here only says the team knows and says so.
const OVER_BUDGET_ADMITTED: &[(&str, &str)] = &[(
    "seed004-ktls",
    "the seed's oops gives one number (its depth), and the two frames of one recursion level were picked to \
     hold it: no build of the seed's kernel to read them from (docs/ktls-recursion.md, Frame sizes)",
)];

/// Experiments whose fitted table needs no machine profile, with why.
const NO_MACHINE: &[(&str, &str)] =
    &[("ktls-recursion", "its number is a count of stack frames of one kernel build, not a rate of a machine")];

#[test]
fn every_experiment_with_a_seed_table_declares_its_tables_and_machines() {
    for e in declared() {
        let tables = e.tables();
        if e.seed_output().is_some() || e.reproduce(1).is_some() {
            assert!(!tables.is_empty(), "{} has a seed table but declares no tables", e.id());
        }
        let measured = tables.iter().any(|t| t.verdict() != Verdict::Arithmetic);
        if measured && !NO_MACHINE.iter().any(|(id, _)| *id == e.id()) {
            assert!(!e.machines().is_empty(), "{}: tables with measured numbers but no machine profiles", e.id());
        }
        for t in &tables {
            assert_eq!(t.experiment, e.id(), "{}: table {} names another experiment", e.id(), t.table);
            assert!(t.targets > 0, "{}: table {} has no independent numbers", e.id(), t.table);
        }
    }
}

#[test]
fn table_names_are_unique_over_the_registry() {
    let mut names: Vec<&str> = declared().flat_map(|e| e.tables()).map(|t| t.table).collect();
    let n = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), n, "two tables share a short name");
}

#[test]
fn the_registry_fits_at_most_one_constant_per_three_independent_numbers() {
    let tables: Vec<_> = declared().flat_map(|e| e.tables()).collect();
    let mut v = budget_violations(&tables);
    // A violation of one admitted table alone ("tables <name> fit ...") is reported, not failed.
    v.retain(|line| !OVER_BUDGET_ADMITTED.iter().any(|(t, _)| line.starts_with(&format!("tables {t} fit "))));
    assert!(v.is_empty(), "over the fitting budget:\n{}", v.join("\n"));
}

#[test]
fn every_machine_profile_is_its_catalogue_entry() {
    let mut bad = Vec::new();
    for e in declared() {
        for m in e.machines() {
            bad.extend(m.catalogue_mismatches().into_iter().map(|s| format!("{}: {s}", e.id())));
        }
    }
    assert!(bad.is_empty(), "profiles that disagree with the catalogue:\n{}", bad.join("\n"));
}

#[test]
fn fitted_constants_are_off_their_range_bounds() {
    let fams = FAMILIES.iter().flat_map(|f| f.quantities().into_iter().map(move |(n, q)| (f.name, n, q)));
    let kers = KERNELS.iter().flat_map(|k| k.quantities().into_iter().map(move |(n, q)| (k.family.name(), n, q)));
    for (who, name, q) in fams.chain(kers) {
        if q.is_fitted() {
            let span = q.max - q.min;
            let off = (q.value - q.min).min(q.max - q.value);
            assert!(off > span * 0.01, "{who} {name} = {} sits on a bound of {}..={}", q.value, q.min, q.max);
        }
    }
}

#[test]
fn the_catalogues_fitted_marks_and_the_tables_agree() {
    // Every catalogue quantity marked Fitted names tables that exist and list it as fitted;
    // every table's fitted name that is a quantity of one of its experiment's machines'
    // catalogue entries is marked Fitted to that table there.
    let tables: Vec<_> = declared().flat_map(|e| e.tables()).collect();
    let mut bad = Vec::new();
    let entries = FAMILIES
        .iter()
        .flat_map(|f| f.quantities())
        .chain(KERNELS.iter().flat_map(|k| k.quantities()))
        .filter(|(_, q)| q.is_fitted());
    for (name, q) in entries {
        for t in q.fitted_to() {
            match tables.iter().find(|x| x.table == *t) {
                None => bad.push(format!("{name} is fitted to '{t}', which no experiment declares")),
                Some(x) if !x.fitted.contains(&name) => {
                    bad.push(format!("{name} is fitted to '{t}', which does not list it"))
                }
                Some(_) => {}
            }
        }
    }
    for e in declared() {
        for m in e.machines() {
            let fam = skblab_core::sim::catalogue::family(m.family).quantities();
            let ker = skblab_core::sim::catalogue::kernel(m.family, m.era).map(|k| k.quantities()).unwrap_or_default();
            for t in e.tables() {
                for name in &t.fitted {
                    if let Some((_, q)) = fam.iter().chain(ker.iter()).find(|(n, _)| n == name) {
                        if !q.fitted_to().contains(&t.table) {
                            bad.push(format!(
                                "{}: table {} fits {name}, but the catalogue marks it {:?}",
                                e.id(),
                                t.table,
                                q.basis
                            ));
                        }
                    }
                }
            }
        }
    }
    bad.sort();
    bad.dedup();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Every value a fitted machine constant has had, by catalogue field, from the history of the
/// fits (`git log -p` on the catalogue and on seed 000's machine profile, `SERVER_2019`, before
/// the catalogue held it; old field names: `skb_tx_cycles` is `tcp_skb_cycles`, `skb_rx_cycles`
/// `tcp_recvmsg_skb_cycles`, `frag_cycles` `tcp_frag_cycles`, `page_op_cycles` `pcp_op_cycles`).
/// Seed 000's fits in order: 0d25744, d87c3e5, cf98ea0, 18809ef, f51c578, 693eb88, 3ee08a5,
/// 1c2a54a, 218e1e7, 5cfbcde, 4dbf201; seed 003's (percpu-counter, 2ba9a2d) fitted the two
/// line transfers of its dual Xeon.
const FORMER_FITS: &[(&str, &[f64])] = &[
    ("tcp_skb_cycles", &[18241.0, 14096.0, 13481.0, 11981.0, 21693.0, 23428.0, 21798.0, 13791.0, 14894.0]),
    ("tcp_recvmsg_skb_cycles", &[15725.0, 21637.0, 25099.0, 3205.0, 2949.0, 2157.0, 2000.0, 5229.0, 8815.0]),
    ("tcp_frag_cycles", &[303.0, 202.0, 258.0, 325.0, 351.0, 297.0, 294.0, 279.0]),
    ("pcp_op_cycles", &[146.0, 105.0, 74.0, 50.0, 49.0, 219.0]),
    ("copy_bytes_per_kcycle", &[2967.0, 3643.0, 3865.0, 8027.0, 8000.0, 14983.0, 15000.0]),
    ("copy_mlp", &[13.0, 15.0, 11.0]),
    ("turbo_all_core_mhz", &[2970.0, 3300.0, 3105.0, 2592.0, 2696.0, 2642.0, 3007.0]),
    ("line_same_socket_ns", &[110.0, 107.0, 95.0, 93.0, 97.0, 99.0]),
    ("line_cross_socket_ns", &[190.0, 140.0]),
];

/// Every catalogue quantity (families, parts, kernel entries) with who holds it and its field.
fn every_quantity() -> Vec<(String, &'static str, skblab_core::sim::catalogue::Quantity)> {
    use skblab_core::sim::catalogue::PARTS;
    let fams = FAMILIES.iter().flat_map(|f| f.quantities().into_iter().map(|(n, q)| (f.id.name().to_string(), n, q)));
    let parts = PARTS.iter().flat_map(|p| p.quantities().into_iter().map(|(n, q)| (p.name.to_string(), n, q)));
    let kers = KERNELS
        .iter()
        .flat_map(|k| k.quantities().into_iter().map(|(n, q)| (format!("{} {}", k.family.name(), k.era.name()), n, q)));
    fams.chain(parts).chain(kers).collect()
}

#[test]
fn no_assumed_or_estimated_value_is_a_fit() {
    // A value we chose (assumed, or our arithmetic) that equals a fit of the same quantity, a
    // former one or one the catalogue holds now, is a fit under another label: mark it as the
    // fit it is (carried over, with why) or source it.
    let all = every_quantity();
    let current: Vec<(&str, f64)> =
        all.iter().filter(|(_, _, q)| q.is_fitted()).map(|(_, n, q)| (*n, q.value)).collect();
    let mut bad = Vec::new();
    for (who, name, q) in &all {
        if !matches!(q.basis, Basis::Assumed | Basis::Estimate) {
            continue;
        }
        let former = FORMER_FITS.iter().filter(|(n, _)| n == name).flat_map(|(_, v)| v.iter().copied());
        let now = current.iter().filter(|(n, _)| n == name).map(|(_, v)| *v);
        if former.chain(now).any(|v| v == q.value) {
            bad.push(format!("{who} {name} = {} ({:?}) is a fit's value", q.value, q.basis));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// At most this share of the catalogue's quantities (of [`every_quantity`]) is assumed: 176 of
/// 332 when the reasons were written; the goal is a third. A share, not a count, so a new
/// mechanism whose quantity is sourced on most entries and assumed on one (the A53's tail-page
/// cost beside x86's page_bench01 slope) lowers it. Lower it when a value gets a source; never
/// raise it.
const ASSUMED_AT_MOST: (usize, usize) = (176, 332);

#[test]
fn assumed_quantities_do_not_grow() {
    let all = every_quantity();
    let assumed = all.iter().filter(|(_, _, q)| q.basis == Basis::Assumed).count();
    let (num, den) = ASSUMED_AT_MOST;
    assert!(
        assumed * den <= num * all.len(),
        "{assumed} of {} catalogue quantities are assumed (at most {num} in {den})",
        all.len()
    );
}
