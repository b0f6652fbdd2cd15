//! The rr suite's prediction (`machine::rr` on `sim::sched`) and its knobs: a slower wakeup
//! of an idle CPU makes a one-pair ping-pong slower; both tasks pinned to one CPU take the IPI
//! and the idle exit out; every committed file's rr cells are predicted.

use skblab_core::machine::{file, fit, rr};
use skblab_core::sim::catalogue::{self, Era, FamilyId, KernelCosts};
use skblab_core::sim::machine::MachineProfile;
use std::path::PathBuf;

fn guest(family: FamilyId, k: &KernelCosts) -> MachineProfile {
    MachineProfile::from_catalogue("rr knobs", catalogue::family(family), k, 1, 2, 1)
}

fn kernel(family: FamilyId) -> KernelCosts {
    *catalogue::kernel(family, Era::Linux2026).expect("a 6.x entry")
}

#[test]
fn a_slower_wakeup_from_idle_makes_one_pair_slower_and_two_pairs_do_not_pay_it() {
    for family in [FamilyId::EmrGuest, FamilyId::MilanGuest, FamilyId::GenoaGuest, FamilyId::Zen5Guest] {
        let mut k = kernel(family);
        let p = guest(family, &k);
        let base = rr::half_trip(&p, &k, 1, false).total_ns();
        let two = rr::half_trip(&p, &k, 2, false).total_ns();
        k.wake_latency_ns.value *= 2.0;
        let slower = rr::half_trip(&p, &k, 1, false).total_ns();
        assert!(slower > base + 0.9 * k.wake_latency_ns.value / 2.0, "{family:?}: {base} -> {slower}");
        assert_eq!(rr::half_trip(&p, &k, 2, false).total_ns(), two, "{family:?}: two pairs keep their CPUs busy");
        // A deeper idle state only matters after a long idle: a ping-pong's CPUs idle for
        // about one half trip, below the deep state's target residency.
        k.idle_exit_ns.value *= 4.0;
        assert_eq!(rr::half_trip(&p, &k, 1, false).total_ns(), slower, "{family:?}");
    }
}

#[test]
fn pinning_both_tasks_to_one_cpu_removes_the_ipi_and_the_idle_exit() {
    for family in [FamilyId::EmrGuest, FamilyId::MilanGuest, FamilyId::GenoaGuest] {
        let k = kernel(family);
        let p = guest(family, &k);
        let free = rr::half_trip(&p, &k, 1, false);
        let pinned = rr::half_trip(&p, &k, 1, true);
        assert!(free.wake.remote && free.wake.from_idle && free.wake.latency_ns > 0.0);
        assert!(!pinned.wake.remote && !pinned.wake.from_idle && pinned.wake.latency_ns == 0.0);
        assert!(pinned.total_ns() + 0.9 * k.wake_latency_ns.value < free.total_ns(), "{family:?}");
        // Two pairs pinned to one CPU take turns.
        assert_eq!(rr::half_trip(&p, &k, 2, true).queued, 2.0);
    }
}

#[test]
fn every_committed_rr_cell_is_predicted() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/measurements");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap().filter_map(Result::ok) {
        let text = std::fs::read_to_string(e.path()).unwrap();
        let m = file::parse(&text).unwrap();
        let r = fit::fit(&m, &mut |_, _| {}).unwrap();
        let rr: Vec<_> = r.points.iter().filter(|p| p.suite == "rr").collect();
        assert_eq!(rr.len(), m.cells("rr").len(), "{}", e.path().display());
        for p in &rr {
            assert!(p.predicted_catalogue.is_finite() && p.predicted_catalogue > 0.0, "{p:?}");
            assert!(p.predicted.is_finite() && p.predicted > 0.0 && !p.used_for_fit, "{p:?}");
        }
        assert!(r.not_predicted.iter().all(|l| !l.starts_with("rr:")), "{:?}", r.not_predicted);
        seen += rr.len();
    }
    assert!(seen >= 4, "the committed files have rr cells");
}
