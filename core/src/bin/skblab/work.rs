//! The work of a command before it starts: its estimate as one line (events, seconds of one
//! core), shown from [`SHOW_ESTIMATE_FROM_S`] on and refused above [`LONG_RUN_LIMIT_S`]
//! without `--allow-long`; and [`Refused`], why a command did not run.

use super::output::report;
use skblab_core::{Experiment, ParamError, WorkEstimate};

/// A run whose estimate ([`Experiment::estimate`]) is above this many seconds of one core
/// natively is refused without `--allow-long` (README "The CLI"; docs/performance.md).
pub(super) const LONG_RUN_LIMIT_S: f64 = 60.0;
/// Estimates from this many seconds of one core on are printed (stderr) before the run.
pub(super) const SHOW_ESTIMATE_FROM_S: f64 = 10.0;

/// Why a command was refused: bad input, or a run above the work limit.
pub(super) enum Refused {
    Input(ParamError),
    TooLong(String),
}

impl From<ParamError> for Refused {
    fn from(e: ParamError) -> Refused {
        Refused::Input(e)
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Input(e) => e.fmt(f),
            Refused::TooLong(line) => f.write_str(line),
        }
    }
}

/// The estimate of a run as one line (events, seconds of one core).
pub(super) fn estimate_text(exp: &dyn Experiment, e: &WorkEstimate) -> String {
    format!(
        "run {}: {} points, about {} simulated events, about {:.0} s of one core ({:.1e} events/s)",
        exp.id(),
        e.points,
        e.events,
        exp.native_seconds(e),
        exp.events_per_s()
    )
}

/// The work of a command (`what`, e.g. "reproduce skb-cache over 5 seeds") as one line, printed
/// from [`SHOW_ESTIMATE_FROM_S`] on; above [`LONG_RUN_LIMIT_S`] without `allow_long`, refused.
pub(super) fn check_work(what: &str, seconds: f64, events: u64, allow_long: bool) -> Result<(), Refused> {
    let line = format!("{what}: about {events} simulated events, about {} of one core", duration_text(seconds));
    if seconds > LONG_RUN_LIMIT_S && !allow_long {
        return Err(too_long(&line));
    }
    if seconds >= SHOW_ESTIMATE_FROM_S {
        report(&line);
    }
    Ok(())
}

/// The refusal of work whose estimate `line` says is above the limit.
pub(super) fn too_long(line: &str) -> Refused {
    Refused::TooLong(format!("{line}, above the limit of {LONG_RUN_LIMIT_S:.0} s: pass --allow-long to run it anyway"))
}

/// Seconds as "42 s", "12 min" or "3.5 h".
pub(super) fn duration_text(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}
