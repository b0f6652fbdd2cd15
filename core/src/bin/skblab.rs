//! `skblab`: the simulation in a terminal. Lists experiments, prints their parameter specs,
//! runs them and sets their results beside the seed posts' tables.
//!
//! Contract (DESIGN.md, README "The CLI"): `list`, `params <exp>`, `run <exp> [--set k=v]...
//! [--seed N] [--format table|csv|json]`, `reproduce <exp> [--format ...] [--bands N]`,
//! `validate [<exp>] [--seeds N] [--format ...]`. Exit status 0 when
//! done — also when the reader closed the pipe early (`skblab run … | head`), as Unix tools do;
//! 1 with one line on stderr when the output cannot be written (a full disk); 2 with one line
//! saying what was wrong and what is allowed for bad input. Never a panic. User text in a
//! message goes through [`echo`]: control characters escaped, at most 60 characters.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use skblab_core::calibrate::{self, DEFAULT_SEEDS, MAX_ROUNDS, MAX_SEEDS, MAX_STARTS};
use skblab_core::params::{echo, echo_within};
use skblab_core::validate::{self, MAX_BANDS};
use skblab_core::{experiments, find, Experiment, ParamError, ParamKind, DEFAULT_SEED};
use std::io::{self, Write};
use std::process::ExitCode;

/// Exit status when stdout cannot be written (not a closed pipe).
const EXIT_OUTPUT_ERROR: u8 = 1;
/// Exit status for bad input.
const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(name = "skblab", version, about = "Linux networking memory, simulated: run the skblab experiments")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Simulations run at once by reproduce, validate, calibrate and bands (default: the
    /// available parallelism); the output is the same whatever the number.
    #[arg(long, global = true, allow_hyphen_values = true,
          value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_JOBS)))]
    jobs: Option<u32>,
}

/// The most threads `--jobs` may ask for.
const MAX_JOBS: u32 = 256;

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Csv,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// One experiment id per line.
    List,
    /// The parameter spec of an experiment: name, unit, default, range, help.
    Params { experiment: String },
    /// Run an experiment (simulated results only).
    Run {
        experiment: String,
        /// Set a parameter: name=value (repeatable).
        #[arg(long = "set", value_name = "NAME=VALUE")]
        settings: Vec<String>,
        #[arg(long, default_value_t = DEFAULT_SEED, allow_hyphen_values = true, value_parser = parse_seed)]
        seed: u64,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Fit the machine profile's physical constants to the seed table on the mean over seeds
    /// and print them with the error (`--rounds 0` only scores the committed profile; more than
    /// 14 rounds change nothing); `--starts N` first runs a short descent from N start points
    /// spread over the ranges (on `--coarse-seeds` seeds) and refines the best; `--sensitivity`
    /// prints each constant's ±10 % effect instead.
    Calibrate {
        experiment: String,
        #[arg(long, default_value_t = 4, allow_hyphen_values = true,
              value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_ROUNDS)))]
        rounds: u32,
        /// How many seeds (from --seed) each evaluation averages over.
        #[arg(long, default_value_t = DEFAULT_SEEDS, allow_hyphen_values = true,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SEEDS)))]
        seeds: u32,
        #[arg(long, default_value_t = DEFAULT_SEED, allow_hyphen_values = true, value_parser = parse_seed)]
        seed: u64,
        /// Multi-start: this many start points inside the ranges besides the committed values
        /// (0: one descent from the committed values).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true,
              value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_STARTS)))]
        starts: u32,
        /// Seeds the short descents of a multi-start fit average over (default: --seeds); the
        /// refined result is scored on --seeds.
        #[arg(long, allow_hyphen_values = true,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SEEDS)))]
        coarse_seeds: Option<u32>,
        /// Print the ±10 % sensitivity of every fitted constant (no fit).
        #[arg(long)]
        sensitivity: bool,
    },
    /// The seed post's measured table beside the simulation (the mean over --seeds runs, each
    /// cell with its spread), with per-cell error.
    Reproduce {
        experiment: String,
        /// The first seed.
        #[arg(long, default_value_t = DEFAULT_SEED, allow_hyphen_values = true, value_parser = parse_seed)]
        seed: u64,
        /// How many seeds (from --seed) the simulated values average over.
        #[arg(long, default_value_t = DEFAULT_SEEDS, allow_hyphen_values = true,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SEEDS)))]
        seeds: u32,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Also run N Latin-hypercube samples of the experiment's uncertain catalogue constants
        /// inside their sourced ranges (one run each, on --seed) and print each cell's [lo-hi].
        #[arg(long, allow_hyphen_values = true,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_BANDS)))]
        bands: Option<u32>,
    },
    /// Every seed table's verdict (prediction / fit / arithmetic), degrees of freedom (targets,
    /// fitted constants), in-sample, out-of-sample and curve-baseline MAPE, signed errors and
    /// known gaps, for every experiment or one; the fitting budget. Some tables run fits:
    /// progress goes to stderr.
    Validate {
        experiment: Option<String>,
        /// The first seed.
        #[arg(long, default_value_t = DEFAULT_SEED, allow_hyphen_values = true, value_parser = parse_seed)]
        seed: u64,
        /// How many seeds (from --seed) the figures average over.
        #[arg(long, default_value_t = DEFAULT_SEEDS, allow_hyphen_values = true,
              value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_SEEDS)))]
        seeds: u32,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

fn parse_seed(text: &str) -> Result<u64, String> {
    text.parse().map_err(|_| format!("expected a whole number in 0..={}", u64::MAX))
}

fn main() -> ExitCode {
    let result = match Cli::try_parse() {
        Ok(cli) => set_jobs(cli.jobs).and_then(|()| execute(cli.command).map_err(|e| e.to_string())),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => Ok(e.to_string()),
        Err(e) => Err(clap_error_line(&e)),
    };
    match result {
        Ok(text) => write_stdout(&text),
        Err(line) => {
            report(&line);
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// Sizes the pool every parallel map of core runs on (`--jobs`; rayon's default otherwise:
/// the available parallelism).
fn set_jobs(jobs: Option<u32>) -> Result<(), String> {
    let Some(n) = jobs else { return Ok(()) };
    rayon::ThreadPoolBuilder::new()
        .num_threads(n as usize)
        .build_global()
        .map_err(|e| format!("cannot start {n} threads for --jobs: {e}"))
}

/// Writes the whole output; a reader that went away (EPIPE) is a normal end, any other write
/// error is reported in one line.
fn write_stdout(text: &str) -> ExitCode {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            report(&format!("cannot write the output: {e}"));
            ExitCode::from(EXIT_OUTPUT_ERROR)
        }
    }
}

/// One line on stderr; if even stderr is gone there is no one left to tell.
fn report(line: &str) {
    let _ = writeln!(io::stderr().lock(), "skblab: {line}");
}

/// clap's error as one line saying what was wrong and what is allowed (clap's own text spans
/// several lines, and echoes user text raw).
fn clap_error_line(e: &clap::Error) -> String {
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
        ErrorKind::MissingRequiredArgument if ctx(ContextKind::InvalidArg).contains("<EXPERIMENT>") => {
            let ids: Vec<&str> = experiments().iter().map(|x| x.id()).collect();
            format!("missing experiment: expected one of {} (usage: {})", ids.join(", "), usage())
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

fn execute(command: Command) -> Result<String, ParamError> {
    match command {
        Command::List => Ok(experiments().iter().map(|e| format!("{}\n", e.id())).collect()),
        Command::Params { experiment } => Ok(params_text(find(&experiment)?)),
        Command::Run { experiment, settings, seed, format } => {
            let exp = find(&experiment)?;
            let params = exp.params_from(&settings)?;
            let out = exp.run(&params, seed);
            Ok(match format {
                Format::Table => out.to_table(),
                Format::Csv => out.to_csv(),
                Format::Json => out.to_json() + "\n",
            })
        }
        Command::Calibrate { experiment, rounds, seeds: n_seeds, seed, starts, coarse_seeds, sensitivity } => {
            let exp = find(&experiment)?;
            let Some(cal) = exp.calibration() else {
                return Ok(format!("{} has no fitted constants to calibrate\n", exp.id()));
            };
            let seeds = calibrate::seeds(seed, n_seeds);
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
        Command::Reproduce { experiment, seed, seeds, format, bands } => {
            reproduce(find(&experiment)?, &calibrate::seeds(seed, seeds), format, bands)
        }
        Command::Validate { experiment, seed, seeds, format } => {
            let exps: Vec<&dyn Experiment> = match experiment {
                Some(id) => vec![find(&id)?],
                None => experiments().to_vec(),
            };
            let seeds = calibrate::seeds(seed, seeds);
            let v = validate::validate_with(&exps, &seeds, &mut progress_printer());
            Ok(match format {
                Format::Table => v.to_table(),
                Format::Csv => v.to_csv(),
                Format::Json => v.to_json() + "\n",
            })
        }
    }
}

/// Progress of long work (fits, validation, bands) on stderr, with the wall time spent.
fn progress_printer() -> impl FnMut(&str) {
    #[expect(
        clippy::disallowed_types,
        clippy::disallowed_methods,
        reason = "the CLI is the edge: progress shows wall time"
    )]
    let t0 = std::time::Instant::now();
    move |line: &str| eprintln!("[{:>6.0} s] {line}", t0.elapsed().as_secs_f64())
}

/// `reproduce`: the mean over `seeds` beside the seed table, each table's verdict and degrees
/// of freedom, and with `bands` the [lo-hi] over that many samples of the uncertain constants.
fn reproduce(exp: &dyn Experiment, seeds: &[u64], format: Format, bands: Option<u32>) -> Result<String, ParamError> {
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

fn params_text(exp: &dyn Experiment) -> String {
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
