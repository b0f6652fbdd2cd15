//! `skblab reproduce cross-cpu-free`: seed 001's three rows from four runs per seed (64 B and
//! 1200 B datagrams, before and after the split), and the mean over seeds from those figures.

use super::profile::HostProfile;
use super::{run_input, seed, Input, ID};
use crate::output::{round, ReproCell, ReproRow, Reproduction};
use crate::sources;

/// One seed's figures on `profile`: datagrams and Mbit/s of 64 B before and after the split,
/// then the datagrams of 1200 B before and after.
pub fn figures_on(profile: HostProfile, seed: u64) -> Vec<f64> {
    let base = Input::defaults();
    let run = |bytes: u32, split: bool| {
        let i = Input { datagram_bytes: bytes, shinfo_split: split, ..base };
        run_input(&i, profile, seed, false).2
    };
    let (b, a) = (run(64, false), run(64, true));
    let (b12, a12) = (run(1200, false), run(1200, true));
    vec![b.datagrams, b.mbps, a.datagrams, a.mbps, b12.datagrams, a12.datagrams]
}

/// The three rows of `skblab reproduce` on `profile`.
pub fn reproduce_on(profile: HostProfile, seed: u64) -> Reproduction {
    table(profile, &figures_on(profile, seed)).expect("six figures")
}

/// The three rows of one seed's [`figures_on`] (`None` if some are missing).
fn table(profile: HostProfile, f: &[f64]) -> Option<Reproduction> {
    let &[b_dgrams, b_mbps, a_dgrams, a_mbps, b12, a12] = f else { return None };
    let change = (a12 - b12) / b12 * 100.0;
    let cells = |dgrams: f64, mbps: f64, d: u64, m: f64| {
        vec![
            ReproCell { metric: "datagrams", measured: d as f64, simulated: dgrams.round(), spread: None },
            ReproCell { metric: "mbps", measured: m, simulated: round(mbps, 1), spread: None },
        ]
    };
    Some(Reproduction {
        experiment: ID,
        citation: sources::SEED_001,
        key_name: "run",
        rows: vec![
            ReproRow { label: "64 B before".into(), cells: cells(b_dgrams, b_mbps, seed::BEFORE_DATAGRAMS, seed::BEFORE_MBPS) },
            ReproRow { label: "64 B after".into(), cells: cells(a_dgrams, a_mbps, seed::AFTER_DATAGRAMS, seed::AFTER_MBPS) },
            ReproRow {
                label: "1200 B change".into(),
                cells: vec![ReproCell { metric: "change_pct", measured: seed::CHANGE_1200_PCT, simulated: round(change, 2), spread: None }],
            },
        ],
        notes: vec![
            format!("after/before: seed {:.4}, sim {:.4}", seed::ratio(), a_dgrams / b_dgrams),
            format!(
                "simulated {} ms per run, scaled to iperf's 60 s; 1200 B: the seed says \"basically identical\" (read as 0 %)",
                Input::defaults().measure_us / 1000
            ),
            format!("machine: {}", profile.name),
        ],
    })
}

/// The three rows, each simulated cell the mean over `seeds` of the seeds' cells with its
/// [min, max] (`figures`: each seed's [`figures_on`], in the order of `seeds`).
pub(super) fn mean_of(profile: HostProfile, seeds: &[u64], figures: &[Vec<f64>]) -> Option<Reproduction> {
    let per_seed: Vec<Reproduction> = figures.iter().map(|f| table(profile, f)).collect::<Option<_>>()?;
    let mut mean = per_seed.first()?.clone();
    for (ri, row) in mean.rows.iter_mut().enumerate() {
        for (ci, cell) in row.cells.iter_mut().enumerate() {
            let sum: f64 = per_seed.iter().map(|r| r.rows[ri].cells[ci].simulated).sum();
            cell.simulated = round(sum / per_seed.len() as f64, 2);
        }
    }
    let (b, a) = (mean.rows[0].cells[0].simulated, mean.rows[1].cells[0].simulated);
    mean.notes[0] = format!("after/before: seed {:.4}, sim {:.4} (mean)", seed::ratio(), a / b);
    Some(mean.with_spread(&per_seed, seeds))
}
