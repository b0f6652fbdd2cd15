//! `skblab reproduce skb-cache`: seed 004's two numbers and their gain, from the caches-off
//! and caches-on runs of each seed ([`seed_pair`]); the mean over seeds from those figures.

use super::profile::RrProfile;
use super::{run_input, seed, world, Input, TxHead, ID, OFF_LABEL, ON_LABEL};
use crate::output::{round, ReproCell, ReproRow, Reproduction};

/// The seed's two runs: without the caches on the kernel before 472c2e07eef0 (a write's
/// first skb carries its payload in the head), with both on 5.2 (headers only).
pub fn seed_inputs() -> [Input; 2] {
    let base = Input::defaults();
    [
        Input { tcp_rx_skb_cache: false, tcp_tx_skb_cache: false, tx_head: TxHead::Linear, ..base },
        Input { tcp_rx_skb_cache: true, tcp_tx_skb_cache: true, tx_head: TxHead::Frag, ..base },
    ]
}

/// Mpps without and with both caches at the seed's configuration on `profile`.
pub fn seed_pair(profile: RrProfile, seed: u64) -> (f64, f64) {
    let [off, on, _] = seed_figures(profile, seed);
    (off, on)
}

/// Mpps without and with both caches, and the spin share (% of busy time) without them.
pub fn seed_figures(profile: RrProfile, seed: u64) -> [f64; 3] {
    let [off, on] = seed_inputs();
    let off = run_input(&off, profile, seed).1;
    [off.mpps, run_input(&on, profile, seed).1.mpps, off.spin_pct]
}

/// The rows of `skblab reproduce` on `profile`.
pub fn reproduce_on(profile: RrProfile, seed: u64) -> Reproduction {
    let [off, on, spin] = seed_figures(profile, seed);
    let mut t = table(profile, off, on);
    t.notes.push(spin_note(&[spin]));
    t
}

/// The caches-off run's `queued_spin_lock_slowpath` share beside the tx commit's profile
/// (not a table cell: the profile is of the commit's own run, not of the seed's table).
fn spin_note(spins: &[f64]) -> String {
    let mean = spins.iter().sum::<f64>() / spins.len().max(1) as f64;
    let (lo, hi) = spins.iter().fold((f64::MAX, f64::MIN), |(l, h), &s| (l.min(s), h.max(s)));
    format!(
        "queued_spin_lock_slowpath without the caches: {} % of busy time [{}-{}] (472c2e07eef0's profile before its cache: {} %)",
        round(mean, 2),
        round(lo, 2),
        round(hi, 2),
        seed::TX_COMMIT_SPIN_PCT
    )
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
    let spins: Vec<f64> = figures.iter().filter_map(|f| f.get(2).copied()).collect();
    if !spins.is_empty() {
        mean.notes.push(spin_note(&spins));
    }
    mean.notes.push(format!("mean over {} seeds", seeds.len()));
    Some(mean.with_spread(&per_seed, seeds))
}
