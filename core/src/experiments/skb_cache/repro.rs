//! `skblab reproduce skb-cache`: seed 004's two numbers and their gain, from the caches-off
//! and caches-on runs of each seed ([`seed_pair`]); the mean over seeds from those figures.

use super::profile::RrProfile;
use super::{run_input, seed, world, Input, ID, OFF_LABEL, ON_LABEL};
use crate::output::{round, ReproCell, ReproRow, Reproduction};

/// Mpps without and with both caches at the seed's configuration on `profile`.
pub fn seed_pair(profile: RrProfile, seed: u64) -> (f64, f64) {
    let base = Input::defaults();
    let off = run_input(&Input { tcp_rx_skb_cache: false, tcp_tx_skb_cache: false, ..base }, profile, seed).1.mpps;
    let on = run_input(&Input { tcp_rx_skb_cache: true, tcp_tx_skb_cache: true, ..base }, profile, seed).1.mpps;
    (off, on)
}

/// The rows of `skblab reproduce` on `profile`.
pub fn reproduce_on(profile: RrProfile, seed: u64) -> Reproduction {
    let (off, on) = seed_pair(profile, seed);
    table(profile, off, on)
}

/// The rows of one seed's Mpps with the caches `off` and `on`.
fn table(profile: RrProfile, off: f64, on: f64) -> Reproduction {
    let cell =
        |m: &'static str, measured: f64, simulated: f64| ReproCell { metric: m, measured, simulated, spread: None };
    Reproduction {
        experiment: ID,
        citation: seed::TCP_RX_SKB_CACHE,
        key_name: "run",
        rows: vec![
            ReproRow { label: OFF_LABEL.into(), cells: vec![cell("mpps", seed::OFF_MPPS, round(off, 3))] },
            ReproRow { label: ON_LABEL.into(), cells: vec![cell("mpps", seed::ON_MPPS, round(on, 3))] },
            ReproRow {
                label: "gain".into(),
                cells: vec![cell("gain_pct", seed::gain_pct(), round((on / off - 1.0) * 100.0, 2))],
            },
        ],
        notes: vec![
            format!("machine: {}", profile.name),
            format!(
                "{} of {} flows simulated on all CPUs, each standing for {} in the cache model (docs/skb-cache.md)",
                world::MAX_SIM_FLOWS.min(seed::FLOWS),
                seed::FLOWS,
                match seed::FLOWS.div_ceil(world::MAX_SIM_FLOWS).max(1) {
                    1 => "1 socket".to_string(),
                    n => format!("{n} sockets"),
                }
            ),
            "a prediction: no constant is fitted to these two numbers".into(),
        ],
    }
}

/// The table on the mean over `seeds` of each seed's figures (`[off, on]`), each cell the
/// mean of the seeds' cells with its [min, max].
pub(super) fn mean_of(profile: RrProfile, seeds: &[u64], figures: &[Vec<f64>]) -> Option<Reproduction> {
    let per_seed: Vec<Reproduction> =
        figures.iter().map(|f| Some(table(profile, *f.first()?, *f.get(1)?))).collect::<Option<_>>()?;
    let mut mean = per_seed.first()?.clone();
    for (ri, row) in mean.rows.iter_mut().enumerate() {
        for (ci, cell) in row.cells.iter_mut().enumerate() {
            let sum: f64 = per_seed.iter().map(|r| r.rows[ri].cells[ci].simulated).sum();
            cell.simulated = round(sum / per_seed.len() as f64, 3);
        }
    }
    mean.notes.push(format!("mean over {} seeds", seeds.len()));
    Some(mean.with_spread(&per_seed, seeds))
}
