//! `calibrate <exp>`: fit the machine profile's physical constants to the seed table (one
//! descent or a multi-start), or print each constant's ±10 % sensitivity; the bound of
//! evaluations and its ETA first (`work.rs`). `calibrate --machine FILE` is in `measure.rs`.

use super::output::{progress_printer, report};
use super::work::{check_work, duration_text, too_long, Refused, LONG_RUN_LIMIT_S};
use skblab_core::calibrate;
use skblab_core::{find, Experiment, WorkEstimate};

/// The settings of a fit (`skblab calibrate <exp>` without `--machine`).
pub(super) struct FitArgs {
    pub(super) rounds: u32,
    pub(super) seeds: u32,
    pub(super) seed: u64,
    pub(super) starts: u32,
    pub(super) coarse_seeds: Option<u32>,
    pub(super) sensitivity: bool,
    pub(super) allow_long: bool,
}

/// `calibrate <exp>`: the fit (or the sensitivity) as a table, after its work is stated.
pub(super) fn calibrate(experiment: &str, a: FitArgs) -> Result<String, Refused> {
    let FitArgs { rounds, seeds: n_seeds, seed, starts, coarse_seeds, sensitivity, allow_long } = a;
    let exp = find(experiment)?;
    let Some(cal) = exp.calibration() else {
        return Ok(format!("{} has no fitted constants to calibrate\n", exp.id()));
    };
    let seeds = calibrate::seeds(seed, n_seeds);
    let n_coarse = if starts > 0 { coarse_seeds.unwrap_or(n_seeds) } else { 0 };
    if sensitivity {
        sensitivity_work(exp, cal, n_seeds, allow_long)?;
    } else {
        let (line, work) = calibrate_eta(exp, cal, rounds, starts, n_coarse, n_seeds);
        if exp.native_seconds(&work) > LONG_RUN_LIMIT_S && !allow_long {
            return Err(too_long(&line));
        }
        report(&line);
    }
    let mut progress = progress_printer();
    Ok(if sensitivity {
        calibrate::sensitivity(cal, &seeds).to_text()
    } else if starts > 0 {
        let coarse = calibrate::seeds(seed, coarse_seeds.unwrap_or(n_seeds));
        calibrate::calibrate_multistart_with(cal, starts, rounds, &coarse, &seeds, &mut progress).to_text()
    } else {
        calibrate::calibrate_with(cal, rounds, &seeds, &mut progress).to_text()
    })
}

/// `calibrate --sensitivity`'s work: the committed values, then each constant at -10 % and at
/// +10 %, each scored over `seeds` seeds ([`check_work`]).
fn sensitivity_work(
    exp: &dyn Experiment,
    cal: &dyn calibrate::Calibration,
    seeds: u32,
    allow_long: bool,
) -> Result<(), Refused> {
    let evaluations = 1 + 2 * cal.constants().len() as u64;
    let work = exp.reproduce_estimate(u64::from(seeds)).times(evaluations);
    let what = format!("calibrate {} --sensitivity: {evaluations} evaluations", exp.id());
    check_work(&what, exp.native_seconds(&work), work.events, allow_long)
}

/// `calibrate`'s evaluations and its ETA, before it starts, and that work: each evaluation
/// scores the model on the seed table over its seeds, estimated as that many reproductions of
/// one seed ([`Experiment::reproduce_estimate`]). The estimate counts the evaluations a fit is
/// expected to compute ([`calibrate::expected_evaluations`]: a fit that settles stops early),
/// the line also gives the bound ([`calibrate::max_evaluations`]).
fn calibrate_eta(
    exp: &dyn Experiment,
    cal: &dyn calibrate::Calibration,
    rounds: u32,
    starts: u32,
    coarse_seeds: u32,
    seeds: u32,
) -> (String, WorkEstimate) {
    let per_seed = exp.reproduce_estimate(1);
    let work_of =
        |(coarse, full): (u64, u64)| per_seed.times(coarse * u64::from(coarse_seeds) + full * u64::from(seeds));
    let (coarse, full) = calibrate::expected_evaluations(cal, rounds, starts);
    let bound = calibrate::max_evaluations(cal, rounds, starts);
    let (work, most) = (work_of((coarse, full)), work_of(bound));
    let coarse_text = if coarse > 0 { format!("{coarse} on {coarse_seeds} coarse seeds and ") } else { String::new() };
    let line = format!(
        "calibrate {}: at most {} evaluations, expected {} ({coarse_text}{full} on {seeds} seeds); about {} simulated events: ETA about {} of one core (at most {})",
        exp.id(),
        bound.0 + bound.1,
        coarse + full,
        work.events,
        duration_text(exp.native_seconds(&work)),
        duration_text(exp.native_seconds(&most))
    );
    (line, work)
}
