//! The sender's copy into a page frag whose lines another core's L2 still holds (the
//! receiver copied them out): each store waits for that copy's invalidation
//! (`copy_write_shared_ps`, measured on the Zen 4 guest with `tools/copy-rfo`). Knobs: a
//! dearer invalidation slows the one-flow stream on two CPUs; with both threads on one CPU no
//! other core holds the lines, so nothing is charged and the knob moves nothing; a family
//! without the measurement charges nothing.

use crate::common;
use skblab_core::experiments::high_order_alloc::{StreamSim, Waiting};
use skblab_core::machine::fit;
use skblab_core::sim::catalogue::{self, Era, FamilyId};

/// One flow of `kib` KiB sends on `cpus` CPUs of `family`, with waiting, the invalidation
/// cost set to `shared_ps` per line when given.
fn run(family: FamilyId, kib: u32, cpus: u32, shared_ps: Option<u64>) -> StreamSim {
    let mut machine = fit::profile(cpus, family, 14894.0);
    if let Some(ps) = shared_ps {
        machine.copy_write_shared_ps = ps;
    }
    let mhz = machine.turbo_all_core_mhz;
    let kernel = catalogue::kernel(family, Era::Linux2026).expect("a 6.x entry");
    common::one_flow_stream(machine, cpus, kib, |cfg| cfg.waiting = Some(Waiting::from_kernel(kernel, mhz)))
}

#[test]
fn the_genoa_guest_carries_its_measured_invalidation_and_other_families_none() {
    let genoa = catalogue::family(FamilyId::GenoaGuest).copy_write_shared_ps.expect("measured on the Zen 4 guest");
    assert_eq!(genoa.basis, catalogue::Basis::Measured);
    assert_eq!(fit::profile(2, FamilyId::GenoaGuest, 14894.0).copy_write_shared_ps, genoa.int());
    for f in [FamilyId::EmrGuest, FamilyId::MilanGuest, FamilyId::Zen5Guest, FamilyId::SkylakeSp] {
        assert!(catalogue::family(f).copy_write_shared_ps.is_none(), "{f:?}");
        assert_eq!(fit::profile(2, f, 14894.0).copy_write_shared_ps, 0, "{f:?}");
    }
}

#[test]
fn the_sender_rewrites_lines_the_reader_still_holds_only_across_cpus() {
    for kib in [4, 64] {
        let two = run(FamilyId::GenoaGuest, kib, 2, None);
        assert!(two.caches.shared_writes() > 0, "{kib} KiB: the recycled frags are still in the reader's L2");
        let one = run(FamilyId::GenoaGuest, kib, 1, None);
        assert_eq!(one.caches.shared_writes(), 0, "{kib} KiB: one core, one L2: no other copy to invalidate");
    }
}

#[test]
fn a_dearer_invalidation_slows_the_stream_across_cpus_and_not_on_one() {
    for kib in [4, 64] {
        let mut last = f64::MAX;
        for ps in [0, 6_000, 24_000] {
            let mbps = run(FamilyId::GenoaGuest, kib, 2, Some(ps)).throughput_mbps();
            assert!(mbps < last, "{kib} KiB at {ps} ps a line: {mbps} Mbit/s after {last}");
            last = mbps;
        }
        let free = run(FamilyId::GenoaGuest, kib, 1, Some(0)).throughput_mbps();
        let dear = run(FamilyId::GenoaGuest, kib, 1, Some(24_000)).throughput_mbps();
        assert_eq!(free, dear, "{kib} KiB on one CPU: nothing to invalidate");
    }
}
