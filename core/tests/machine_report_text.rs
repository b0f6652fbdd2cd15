//! What `calibrate --machine`'s report says of what the file asks beyond the model: a per-CPU
//! list high/batch outside high-order-alloc's ranges is named with what was simulated, a file
//! with more CPUs than the model simulates says how many cores each suite got and of which
//! profile, and counts read as English (`1 cell`, not `1 cells`). Each report is built without
//! running the simulator ([`MachineFit::report`] before any step).

use skblab_core::machine::file::{self, Measurement};
use skblab_core::machine::fit::MachineFit;

/// The committed Genoa guest's file (every suite).
fn genoa() -> Measurement {
    let path = format!("{}/../data/measurements/2026-12-07-amd-epyc-f25m17.json", env!("CARGO_MANIFEST_DIR"));
    file::parse(&std::fs::read_to_string(path).expect("the file is committed")).expect("it parses")
}

/// The report's table before any run, and its notes.
fn report(m: &Measurement) -> (String, Vec<String>) {
    let r = MachineFit::new(m).expect("a fit can be set up").report();
    (r.to_table(), r.notes)
}

fn set_state(m: &mut Measurement, id: &str, v: f64) {
    let cell = m.suites.get_mut("state").and_then(|s| s.cells.iter_mut().find(|c| c.id == id)).expect("state cell");
    cell.median = v;
}

#[test]
fn a_clamped_pcp_high_or_batch_is_said() {
    let mut m = genoa();
    let (_, notes) = report(&m);
    assert!(!notes.iter().any(|n| n.contains("per-CPU list")), "in range, no note: {notes:?}");
    set_state(&mut m, "pcp-high", 20000.0);
    set_state(&mut m, "pcp-batch", 900.0);
    let (_, notes) = report(&m);
    let note = notes.iter().find(|n| n.contains("per-CPU list")).unwrap_or_else(|| panic!("no note: {notes:?}"));
    assert!(note.contains("high 20000 and batch 900") && note.contains("high 8192 and batch 512"), "{note}");
}

#[test]
fn more_cpus_than_simulated_names_the_cores_and_the_profile() {
    let mut m = genoa();
    m.machine.cpus = 4096;
    let (table, notes) = report(&m);
    let note = notes.iter().find(|n| n.contains("4096 CPUs")).unwrap_or_else(|| panic!("no note: {notes:?}"));
    assert!(note.contains("512 cores") && note.contains("rr cells on 256") && note.contains("`genoa-guest`"), "{note}");
    assert!(table.contains("1 socket × 512 cores"), "{table}");
    m.machine.cpus = 2;
    let (_, notes) = report(&m);
    assert!(!notes.iter().any(|n| n.contains("more than the model simulates")), "{notes:?}");
}

#[test]
fn counts_read_as_english() {
    let mut m = genoa();
    for (suite, keep) in [("stream", "tcp-1flow-4k-order3"), ("rr", "tcp-rr-1flow")] {
        m.suites.get_mut(suite).expect("suite").cells.retain(|c| c.id == keep);
    }
    m.machine.cpus = 1;
    let (table, _) = report(&m);
    for bad in ["1 cells", "1 flows", "1 64 KiB", "0 64 KiB", "1 runs", "1 CPUs", "1 cores"] {
        assert!(!table.contains(bad), "'{bad}' in:\n{table}");
    }
    assert!(table.contains("(1 cell)") && table.contains("64 KiB stream cells measured above zero: none"), "{table}");
    assert!(table.contains("(1 CPU, KVM guest)") && table.contains("1 socket × 1 core\n"), "{table}");
}

/// The Genoa guest's file is predicted with its own CPU's family, which says so; a Zen 3 file
/// keeps `milan-guest` and a Zen 3 desktop model (0x21) none of them.
#[test]
fn a_genoa_file_is_predicted_with_its_own_family() {
    use skblab_core::sim::catalogue::{family_of_cpu, FamilyId};
    let r = MachineFit::new(&genoa()).expect("a fit can be set up").report();
    assert!(r.profile.contains("`genoa-guest`"), "{}", r.profile);
    assert!(r.notes.iter().any(|n| n.contains("profile genoa-guest picked from the file's CPU")), "{:?}", r.notes);
    assert_eq!(family_of_cpu("AuthenticAMD", 25, 17), Some(FamilyId::GenoaGuest));
    assert_eq!(family_of_cpu("AuthenticAMD", 25, 1), Some(FamilyId::MilanGuest));
    assert_eq!(family_of_cpu("AuthenticAMD", 25, 0x21), None);
}

/// An Emerald Rapids guest's file (Intel family 6 model 207) is predicted with `emr-guest`, not
/// the Zen 5 default; an Intel model the catalogue has no family for maps to none.
#[test]
fn an_intel_emerald_rapids_file_is_predicted_with_its_own_family() {
    use skblab_core::sim::catalogue::{family_of_cpu, FamilyId};
    let path = format!("{}/../data/measurements/2026-12-07-intel-xeon-f6m207.json", env!("CARGO_MANIFEST_DIR"));
    let m = file::parse(&std::fs::read_to_string(path).expect("the file is committed")).expect("it parses");
    let r = MachineFit::new(&m).expect("a fit can be set up").report();
    assert!(r.profile.contains("`emr-guest`"), "{}", r.profile);
    assert_eq!(family_of_cpu("GenuineIntel", 6, 207), Some(FamilyId::EmrGuest));
    assert_eq!(family_of_cpu("GenuineIntel", 6, 143), None);
}
