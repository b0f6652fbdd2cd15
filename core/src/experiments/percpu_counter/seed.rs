//! Seed 003's figures (Olof Johansson, 2018-09-06: 0.7 % of CPU in the atomic accounting,
//! .36 % with his percpu_counter patch), as the seed table, and the comparison of a run with
//! them. Used only to compare; the model never reads them.

use super::{columns, Input, PercpuCounter, DUAL_XEON_2018, ID};
use crate::experiment::Experiment;
use crate::output::{Cell, ReproCell, ReproRow, Reproduction, RunOutput};
use crate::params::Choice;
use crate::params::Params;
use crate::sources;

/// The seed's figures: % CPU in the accounting, 2018 atomic and with the patch.
pub const SEED_ATOMIC_PCT: f64 = 0.70;
pub const SEED_PERCPU_PCT: f64 = 0.36;

pub(super) fn seed_output() -> Option<RunOutput> {
    let mut out = RunOutput::new(ID, 0, columns());
    let none = || Cell::Text(String::new());
    let nr = DUAL_XEON_2018.n_cpus();
    out.push_row(vec![
        Cell::Int(i64::from(nr)),
        Cell::Int(i64::from(nr / 2)),
        none(),
        Cell::Float(SEED_ATOMIC_PCT),
        Cell::Float(SEED_PERCPU_PCT),
        none(),
        none(),
        none(),
        none(),
        none(),
        none(),
        none(),
    ]);
    Some(out)
}

pub(super) fn compare(i: &Input, output: &RunOutput) -> Option<Reproduction> {
    let key = ("nr_cpus", f64::from(i.nr_cpus()));
    let atomic = output.metric("atomic_cpu_pct", Some(key))?;
    let percpu = output.metric("percpu_counter_cpu_pct", Some(key))?;
    let row = |label: &str, measured, simulated| ReproRow {
        label: label.to_string(),
        cells: vec![ReproCell { metric: "cpu_pct", measured, simulated, spread: None }],
    };
    let mut notes = vec![
        format!(
            "machine: {}, {} CPUs online, {} connections; seed {}",
            DUAL_XEON_2018.name,
            i.nr_cpus(),
            i.connections,
            output.seed
        ),
        "seed 003 names three percpu functions (.18 + .11 + .07 %) without saying which; the perf report view shows the model's split".to_string(),
    ];
    if let Some(share) = output.metric("reduce_share_pct", Some(key)) {
        notes.push(format!(
            "share of the accounting in reduce ({}): {share:.0} % (seed: \"most of those in reduce\")",
            i.counter.name()
        ));
    }
    Some(Reproduction {
        experiment: ID,
        citation: sources::SEED_003,
        key_name: "counter",
        rows: vec![
            row("atomic (2018)", SEED_ATOMIC_PCT, atomic),
            row("percpu_counter (patch)", SEED_PERCPU_PCT, percpu),
        ],
        notes,
    })
}

/// Seed 003 beside the simulation of `params`.
pub fn reproduce(params: &Params, seed: u64) -> Reproduction {
    let e = &PercpuCounter;
    e.compare(params, &e.run(params, seed)).expect("percpu-counter has a seed table")
}
