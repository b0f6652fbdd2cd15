//! `reproduce` and `validate`: the seed tables beside the simulation (the mean over seeds,
//! with bands of the uncertain constants on request), and every table's verdict with its
//! degrees of freedom and errors. Both state their work first (`work.rs`).

use super::output::progress_printer;
use super::work::{check_work, Refused};
use super::{Format, SeedRange};
use skblab_core::validate;
use skblab_core::{experiments, find, Experiment, DEFAULT_SEED};

/// `reproduce`: the mean over `seeds` beside the seed table, each table's verdict and degrees
/// of freedom, and with `bands` the [lo-hi] over that many samples of the uncertain constants.
/// Its estimate first, as `run`'s ([`check_work`]).
pub(super) fn reproduce(
    exp: &dyn Experiment,
    range: &SeedRange,
    format: Format,
    bands: Option<u32>,
    allow_long: bool,
) -> Result<String, Refused> {
    let work = exp.reproduce_estimate(u64::from(range.seeds)).plus(exp.bands_estimate(u64::from(bands.unwrap_or(0))));
    let what = format!("reproduce {} over {} seeds", exp.id(), range.seeds)
        + &bands.map(|n| format!(" with {n} band samples")).unwrap_or_default();
    check_work(&what, exp.native_seconds(&work), work.events, allow_long)?;
    let seeds = &range.list()[..];
    let params = exp.reproduce_params();
    let band = match bands {
        Some(n) if !exp.uncertain().is_empty() => {
            let first = seeds.first().copied().unwrap_or(DEFAULT_SEED);
            eprintln!(
                "skblab: bands: {n} runs of {} ({} uncertain quantities, seed {first}), besides the {} runs of the mean",
                exp.id(),
                exp.uncertain().len(),
                seeds.len()
            );
            validate::bands_with(exp, &params, first, n, &mut progress_printer())
        }
        _ => None,
    };
    let Some(r) = exp.reproduce_mean(seeds) else {
        return Ok(format!("{} has no seed table to reproduce\n", exp.id()));
    };
    let no_band = match bands {
        Some(_) if band.is_none() => format!("bands: {} declares no uncertain quantities (no band)\n", exp.id()),
        _ => String::new(),
    };
    Ok(match format {
        Format::Table => {
            let mut s = r.to_table_banded(|label, metric| band.as_ref().and_then(|b| b.get(label, metric)));
            if let Some(b) = &band {
                s.push_str(&(b.note() + "\n"));
                s.extend(b.cannot_tell(&r).map(|line| line + "\n"));
            }
            s + &no_band + &validate::verdict_lines(exp)
        }
        Format::Csv => r.to_csv(),
        Format::Json => {
            let mut v: serde_json::Value = serde_json::from_str(&r.to_json(seeds)).expect("reproduction json parses");
            v["tables"] = validate::verdict_json(exp);
            if let Some(b) = &band {
                v["bands"] = serde_json::to_value(b).expect("bands serialize");
                v["bands"]["cannot_tell"] = serde_json::to_value(b.cannot_tell(&r)).expect("a line serializes");
            }
            serde_json::to_string_pretty(&v).expect("json serializes") + "\n"
        }
    })
}

/// `validate`: every table's verdict for one experiment or all, after its work is stated.
pub(super) fn validate(
    experiment: Option<String>,
    seeds: &SeedRange,
    format: Format,
    allow_long: bool,
) -> Result<String, Refused> {
    let exps: Vec<&dyn Experiment> = match experiment {
        Some(id) => vec![find(&id)?],
        None => experiments().to_vec(),
    };
    validate_work(&exps, u64::from(seeds.seeds), allow_long)?;
    let v = validate::validate_with(experiments(), &exps, &seeds.list(), &mut progress_printer());
    Ok(match format {
        Format::Table => v.to_table(),
        Format::Csv => v.to_csv(),
        Format::Json => v.to_json() + "\n",
    })
}

/// `validate`'s work over the tables of `exps` on `seeds` seeds ([`check_work`]).
fn validate_work(exps: &[&dyn Experiment], seeds: u64, allow_long: bool) -> Result<(), Refused> {
    let seconds: f64 = exps.iter().map(|e| e.native_seconds(&e.validate_estimate(seeds))).sum();
    let events = exps.iter().map(|e| e.validate_estimate(seeds).events).fold(0u64, u64::saturating_add);
    let what = match exps {
        [one] => format!("validate {} over {seeds} seeds", one.id()),
        _ => format!("validate over {seeds} seeds"),
    };
    check_work(&what, seconds, events, allow_long)
}
