//! A bad command line told in one line, as every refusal of `skblab` is: clap's errors
//! rewritten to say what was wrong and what is allowed (the form of a flag's value, the
//! commands and experiments there are), and an argument that is not UTF-8 named by its
//! position. User text in them goes through [`echo`].

use super::{measure, Cli, MAX_JOBS};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;
use skblab_core::calibrate::{MAX_ROUNDS, MAX_SEEDS, MAX_STARTS};
use skblab_core::experiments;
use skblab_core::params::{echo, echo_within};
use skblab_core::validate::MAX_BANDS;

/// clap's error as one line saying what was wrong and what is allowed (clap's own text spans
/// several lines, and echoes user text raw).
pub(super) fn clap_error_line(e: &clap::Error) -> String {
    let ctx = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    // "--format <FORMAT>" → "--format"
    let arg = || ctx(ContextKind::InvalidArg).split_whitespace().next().unwrap_or_default().to_string();
    let usage = || ctx(ContextKind::Usage).trim().trim_start_matches("Usage: ").to_string();
    let commands: Vec<String> = Cli::command().get_subcommands().map(|c| c.get_name().to_string()).collect();
    let line = match e.kind() {
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            format!("missing command: expected one of {} (skblab --help tells more)", commands.join(", "))
        }
        ErrorKind::InvalidSubcommand => format!(
            "unknown command '{}': expected one of {}",
            echo(&ctx(ContextKind::InvalidSubcommand)),
            commands.join(", ")
        ),
        ErrorKind::InvalidValue => {
            let valid = ctx(ContextKind::ValidValue);
            let expected = if valid.is_empty() { String::new() } else { format!(": expected one of {valid}") };
            let expected = match flag_form(&arg()) {
                Some(form) if expected.is_empty() => format!(": expected {form}"),
                _ => expected,
            };
            match ctx(ContextKind::InvalidValue) {
                value if value.is_empty() => format!("missing value for {}{expected}", arg()),
                value => format!("bad value '{}' for {}{expected}", echo(&value), arg()),
            }
        }
        ErrorKind::ValueValidation => format!(
            "bad value '{}' for {}: {}",
            echo(&ctx(ContextKind::InvalidValue)),
            arg(),
            std::error::Error::source(e).map(|s| s.to_string()).unwrap_or_else(|| "not allowed".to_string())
        ),
        ErrorKind::ArgumentConflict => match ctx(ContextKind::PriorArg).split_whitespace().next() {
            Some(prior) if prior != arg() => format!("{} cannot be used with {prior}: give one of them", arg()),
            _ => format!("{} given twice: it may be given at most once", arg()),
        },
        ErrorKind::TooManyValues if !ctx(ContextKind::InvalidArg).contains('<') => format!(
            "unexpected value '{}' for {}: it is a switch and takes no value (give {} alone)",
            echo(&ctx(ContextKind::InvalidValue)),
            arg(),
            arg()
        ),
        ErrorKind::MissingRequiredArgument if ctx(ContextKind::InvalidArg).contains("<EXPERIMENT>") => {
            let ids: Vec<&str> = experiments().iter().map(|x| x.id()).collect();
            format!("missing experiment: expected one of {} (usage: {})", ids.join(", "), usage())
        }
        ErrorKind::MissingRequiredArgument => {
            format!("missing {}: the options given need it (usage: {})", ctx(ContextKind::InvalidArg), usage())
        }
        ErrorKind::UnknownArgument => {
            let tip = match ctx(ContextKind::SuggestedArg) {
                s if s.is_empty() => String::new(),
                s => format!("; did you mean '{s}'?"),
            };
            format!("unexpected argument '{}'{tip} (usage: {})", echo(&ctx(ContextKind::InvalidArg)), usage())
        }
        _ => e.to_string().lines().next().unwrap_or("invalid arguments").trim_start_matches("error: ").to_string(),
    };
    // Whatever clap says, it stays one line of bounded length.
    echo_within(&line, 400)
}

/// The allowed form of a flag's value, for "missing value" messages.
fn flag_form(flag: &str) -> Option<String> {
    let whole = |min: u32, max: u32| format!("a whole number in {min}..={max}");
    Some(match flag {
        "--set" => "name=value (skblab params <experiment> lists the names and ranges)".to_string(),
        "--seed" => format!("a whole number in 0..={}", u64::MAX),
        "--seeds" | "--coarse-seeds" => whole(1, MAX_SEEDS),
        "--rounds" => whole(0, MAX_ROUNDS),
        "--starts" => whole(0, MAX_STARTS),
        "--bands" => whole(1, MAX_BANDS),
        "--jobs" => whole(1, MAX_JOBS),
        "--machine" => "the path of a measurement file (skblab measure --out FILE writes one)".to_string(),
        "--out" => "the path of the file to write".to_string(),
        "--note" => "a text kept in the file".to_string(),
        flag => {
            let (min, max) = measure::range_of(flag)?;
            whole(min, max)
        }
    })
}

/// The first argument that is not UTF-8, named by position, what it looks like and the
/// argument before it (clap's own error names none).
pub(super) fn non_utf8_argument() -> Option<String> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let (i, arg) = args.iter().enumerate().skip(1).find(|(_, a)| a.to_str().is_none())?;
    let after = match args[i - 1].to_str() {
        Some(prev) if i > 1 => format!(" (after '{}')", echo(prev)),
        _ => String::new(),
    };
    Some(format!(
        "argument {i} '{}' is not valid UTF-8{after}: every argument must be UTF-8 text",
        echo(&arg.to_string_lossy())
    ))
}
