//! The machine profile a measurement file is predicted with: the catalogue family the file
//! names, else the one its CPU's vendor, family and model map to, else `zen5-guest` (said in
//! a note), with that family's 6.x kernel costs ([`family_for`], [`profile`]), of which the
//! waker's side of a cross-CPU wakeup is the file's own when its sched suite measured it
//! ([`kernel_for`]).

use super::file::Measurement;
use super::plan::{WAKE_CROSS_CELL, WAKE_SAME_CELL};
use crate::params::Choice as _;
use crate::sim::catalogue::{self, Basis, Era, FamilyId, KernelCosts, ZEN5_GUEST_2026};
use crate::sim::machine::MachineProfile;

/// Families a file may name or map to: those with 6.x kernel costs in the catalogue.
fn guest_families() -> Vec<FamilyId> {
    catalogue::FAMILIES.iter().map(|f| f.id).filter(|&id| catalogue::kernel(id, Era::Linux2026).is_some()).collect()
}

/// The family a file is predicted with: the one its `machine.family` names (refused when the
/// catalogue has no 6.x profile of it), else the one its CPU's vendor, family and model
/// (`machine.cpu`) map to ([`catalogue::family_of_cpu_text`]), else `zen5-guest`, said in a
/// note. Which one was used is the report's `profile`.
pub fn family_for(m: &Measurement, notes: &mut Vec<String>) -> Result<FamilyId, String> {
    let known = guest_families();
    if !m.machine.family.is_empty() {
        return known.iter().copied().find(|f| f.name() == m.machine.family).ok_or_else(|| {
            format!(
                "machine family '{}' has no profile here: expected one of {}",
                crate::params::echo(&m.machine.family),
                known.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
            )
        });
    }
    let cpu = crate::params::echo(if m.machine.cpu.is_empty() { &m.machine.model } else { &m.machine.cpu });
    match catalogue::family_of_cpu_text(&m.machine.cpu).filter(|f| known.contains(f)) {
        Some(f) => {
            notes.push(format!("profile {} picked from the file's CPU ({cpu})", f.name()));
            Ok(f)
        }
        None => {
            notes.push(format!(
                "the CPU ({cpu}) is none of the catalogue's families: predicted with zen5-guest, the catalogue's profile of this project's Zen 5 guests; its hardware constants are then another CPU's"
            ));
            Ok(FamilyId::Zen5Guest)
        }
    }
}

/// The machine profile of `cpus` cores of `family` (its 6.x kernel costs) with
/// `tcp_skb_cycles` per segment.
pub fn profile(cpus: u32, family: FamilyId, tcp_skb_cycles: f64) -> MachineProfile {
    let kernel = catalogue::kernel(family, Era::Linux2026).unwrap_or(&ZEN5_GUEST_2026);
    let mut p = MachineProfile::from_catalogue("measured machine", catalogue::family(family), kernel, 1, cpus, 1);
    p.skb_tx_cycles = tcp_skb_cycles.max(0.0).round() as u64;
    p
}

/// The waker's extra time when the task it wakes sleeps on another, idle CPU, ns: the file's
/// sched suite's median waker call of such a wakeup (`wake-cross-cpu`) less the one of a
/// wakeup on the waker's own CPU (`wake-same-cpu`), when the file has both (files measured
/// before these cells have neither) and the difference is a positive time.
pub fn measured_ipi_send_ns(m: &Measurement) -> Option<f64> {
    let median = |id: &str| m.cells("sched").iter().find(|c| c.id == id).map(|c| c.median);
    let ns = (median(WAKE_CROSS_CELL)? - median(WAKE_SAME_CELL)?) * 1000.0;
    (ns.is_finite() && ns > 0.0).then_some(ns)
}

/// The 6.x kernel costs a file is predicted with: `family`'s, but for `ipi_send_ns`, the
/// file's own ([`measured_ipi_send_ns`]) when it carries it, said in a note.
pub fn kernel_for(m: &Measurement, family: FamilyId, notes: &mut Vec<String>) -> KernelCosts {
    let mut k = *catalogue::kernel(family, Era::Linux2026).unwrap_or(&ZEN5_GUEST_2026);
    if let Some(ns) = measured_ipi_send_ns(m) {
        notes.push(format!(
            "ipi_send_ns is this file's own: {ns:.0} ns (sched suite, {WAKE_CROSS_CELL} less {WAKE_SAME_CELL}), where {} has {:.0} ns",
            family.name(),
            k.ipi_send_ns.value
        ));
        k.ipi_send_ns = k.ipi_send_ns.with_source("this file's sched suite");
        k.ipi_send_ns.value = ns;
        k.ipi_send_ns.basis = Basis::Measured;
    }
    k
}
