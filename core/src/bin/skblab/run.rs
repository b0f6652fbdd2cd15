//! `list`, `params` and `run`: the experiments there are, one experiment's parameter spec, and
//! one run of it (its estimate first, as every long command's: `work.rs`).

use super::output::report;
use super::work::{estimate_text, too_long, Refused, LONG_RUN_LIMIT_S, SHOW_ESTIMATE_FROM_S};
use super::Format;
use skblab_core::{experiments, find, Experiment, ParamKind};

/// `list`: one experiment id per line.
pub(super) fn list_text() -> String {
    experiments().iter().map(|e| format!("{}\n", e.id())).collect()
}

/// `run`: the estimate first (printed from [`SHOW_ESTIMATE_FROM_S`], refused above
/// [`LONG_RUN_LIMIT_S`] without `allow_long`), then the run.
pub(super) fn run_command(
    experiment: &str,
    settings: &[String],
    seed: u64,
    format: Format,
    allow_long: bool,
) -> Result<String, Refused> {
    let exp = find(experiment)?;
    let params = exp.params_from(settings)?;
    let estimate = exp.estimate(&params);
    if exp.native_seconds(&estimate) > LONG_RUN_LIMIT_S && !allow_long {
        return Err(too_long(&estimate_text(exp, &estimate)));
    }
    if exp.native_seconds(&estimate) >= SHOW_ESTIMATE_FROM_S {
        report(&estimate_text(exp, &estimate));
    }
    let out = exp.run(&params, seed);
    Ok(match format {
        Format::Table => out.to_table(),
        Format::Csv => out.to_csv(),
        Format::Json => out.to_json() + "\n",
    })
}

/// `params`: each parameter's name, unit, default, range, kernel name and help.
pub(super) fn params_text(exp: &dyn Experiment) -> String {
    let mut s = format!("# {} — {}\n", exp.id(), exp.title());
    for p in exp.specs() {
        let range = match &p.kind {
            ParamKind::Int { min, max, step } => format!("{min}..={max} step {step}"),
            ParamKind::Pow2 { min, max } => format!("{min}..={max}, power of two"),
            ParamKind::Bool => "true|false".to_string(),
            ParamKind::Choice { options } => options.join("|"),
        };
        let unit = if p.unit.is_empty() { String::new() } else { format!(" [{}]", p.unit) };
        let kernel = if p.kernel_name.is_empty() { String::new() } else { format!(" ({})", p.kernel_name) };
        s.push_str(&format!("{}{unit}  default {}  range {range}{kernel}\n    {}\n", p.name, p.default, p.help));
    }
    s
}
