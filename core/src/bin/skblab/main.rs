//! `skblab`: the simulation in a terminal. Lists experiments, prints their parameter specs,
//! runs them and sets their results beside the seed posts' tables.
//!
//! Contract (DESIGN.md, README "The CLI"): `list`, `params <exp>`, `run <exp> [--set k=v]...
//! [--seed N] [--format table|csv|json] [--allow-long]`, `reproduce <exp> [--format ...]
//! [--bands N] [--allow-long]`, `validate [<exp>] [--seeds N] [--format ...] [--allow-long]`, `measure --list | <suite>
//! [--dry-run] [--out FILE]` (`measure.rs`: this machine measured), `calibrate
//! high-order-alloc --machine FILE [--format json] [--allow-long]`. Exit status 0 when
//! done — also when the reader closed the pipe early (`skblab run … | head`), as Unix tools do;
//! 1 with one line on stderr when the output cannot be written (a full disk, a closed or
//! read-only stdout); 2 with one line saying what was wrong and what is allowed for bad input
//! (and for a `run`, `reproduce`, `validate` or `calibrate` estimated above
//! [`work::LONG_RUN_LIMIT_S`] without `--allow-long`). Never a panic.
//! Every number is parsed as `params` documents it ([`parse_whole`]). User text in a message
//! goes through [`echo`]: control characters escaped, at most 60 characters.
//!
//! This file holds the command line (clap's types) and sends each subcommand to its module:
//! `run.rs` (`list`, `params`, `run`), `reproduce.rs` (`reproduce`, `validate`),
//! `calibrate.rs` (fits on a seed table), `measure.rs` (`measure` and `calibrate --machine`);
//! `work.rs` states and limits the work of each before it starts, `output.rs` writes stdout,
//! stderr's one-line messages and progress, `arg_errors.rs` turns clap's errors into one line.

use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand, ValueEnum};
use skblab_core::calibrate::{DEFAULT_SEEDS, MAX_ROUNDS, MAX_SEEDS, MAX_STARTS};
use skblab_core::params::{echo, parse_whole};
use skblab_core::validate::MAX_BANDS;
use skblab_core::{find, ParamError, DEFAULT_SEED};
use std::process::ExitCode;

mod arg_errors;
mod calibrate;
mod measure;
mod output;
mod reproduce;
mod run;
mod work;

use output::{report, write_stdout};
use work::Refused;

/// Exit status for bad input.
const EXIT_BAD_INPUT: u8 = 2;

#[derive(Parser)]
#[command(name = "skblab", version, about = "Linux networking memory, simulated: run the skblab experiments")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Simulations run at once by reproduce, validate, calibrate and bands (default: the
    /// available parallelism); the output is the same whatever the number.
    #[arg(long, global = true, allow_hyphen_values = true, value_parser = whole_in(1, MAX_JOBS))]
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

/// The outputs of `calibrate --machine` (no CSV: the report is a table with notes).
#[derive(Clone, Copy, ValueEnum)]
enum MachineFormat {
    Table,
    Json,
}

/// The seeds `reproduce` and `validate` average their simulated figures over.
#[derive(Args)]
struct SeedRange {
    /// The first seed.
    #[arg(long, default_value_t = DEFAULT_SEED, allow_hyphen_values = true, value_parser = parse_seed)]
    seed: u64,
    /// How many seeds (from --seed) the simulated figures average over.
    #[arg(long, default_value_t = DEFAULT_SEEDS, allow_hyphen_values = true,
          value_parser = whole_in(1, MAX_SEEDS))]
    seeds: u32,
}

impl SeedRange {
    /// The seeds themselves.
    fn list(&self) -> Vec<u64> {
        skblab_core::calibrate::seeds(self.seed, self.seeds)
    }
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
        /// Run even if the estimate is above 60 s of one core (the estimate is printed first).
        #[arg(long)]
        allow_long: bool,
    },
    /// Fit the machine profile's physical constants to the seed table on the mean over seeds
    /// and print them with the error (`--rounds 0` only scores the committed profile; more than
    /// 14 rounds change nothing); `--starts N` first runs a short descent from N start points
    /// spread over the ranges (on `--coarse-seeds` seeds) and refines the best; `--sensitivity`
    /// prints each constant's ±10 % effect instead.
    Calibrate {
        experiment: String,
        #[arg(long, default_value_t = 4, allow_hyphen_values = true,
              value_parser = whole_in(0, MAX_ROUNDS))]
        rounds: u32,
        /// How many seeds (from --seed) each evaluation averages over.
        #[arg(long, default_value_t = DEFAULT_SEEDS, allow_hyphen_values = true,
              value_parser = whole_in(1, MAX_SEEDS))]
        seeds: u32,
        #[arg(long, default_value_t = DEFAULT_SEED, allow_hyphen_values = true, value_parser = parse_seed)]
        seed: u64,
        /// Multi-start: this many start points inside the ranges besides the committed values
        /// (0: one descent from the committed values).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true,
              value_parser = whole_in(0, MAX_STARTS))]
        starts: u32,
        /// Seeds the short descents of a multi-start fit average over (default: --seeds); the
        /// refined result is scored on --seeds.
        #[arg(long, allow_hyphen_values = true,
              value_parser = whole_in(1, MAX_SEEDS))]
        coarse_seeds: Option<u32>,
        /// Print the ±10 % sensitivity of every fitted constant (no fit).
        #[arg(long)]
        sensitivity: bool,
        /// Hold the model against this machine's measurement file (`skblab measure`): the
        /// catalogue's prediction, a fit on one part (the 64 KiB sends), the rest predicted.
        #[arg(long, value_name = "FILE",
              conflicts_with_all = ["rounds", "seeds", "seed", "starts", "coarse_seeds", "sensitivity"])]
        machine: Option<std::path::PathBuf>,
        /// Output of `--machine` (the other modes print tables).
        #[arg(long, value_enum, default_value_t = MachineFormat::Table, requires = "machine")]
        format: MachineFormat,
        /// Run even if the estimate is above 60 s of one core (the estimate is printed first).
        #[arg(long)]
        allow_long: bool,
    },
    /// Measure this Linux machine (iperf3, sockperf, pahole, /proc; root for the sysctl it
    /// switches and restores) into one measurement file: `--list`, `<suite> --dry-run`.
    Measure(measure::MeasureArgs),
    /// The seed post's measured table beside the simulation (the mean over --seeds runs, each
    /// cell with its spread), with per-cell error.
    Reproduce {
        experiment: String,
        #[command(flatten)]
        seeds: SeedRange,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Also run N Latin-hypercube samples of the experiment's uncertain catalogue constants
        /// inside their sourced ranges (one run each, on --seed) and print each cell's [lo-hi].
        #[arg(long, allow_hyphen_values = true,
              value_parser = whole_in(1, MAX_BANDS))]
        bands: Option<u32>,
        /// Run even if the estimate is above 60 s of one core (the estimate is printed first).
        #[arg(long)]
        allow_long: bool,
    },
    /// Every seed table's verdict (prediction / fit / arithmetic), degrees of freedom (targets,
    /// fitted constants), in-sample, out-of-sample and curve-baseline MAPE, signed errors and
    /// known gaps, for every experiment or one; the fitting budget. Some tables run fits:
    /// progress goes to stderr.
    Validate {
        experiment: Option<String>,
        #[command(flatten)]
        seeds: SeedRange,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Run even if the estimate is above 60 s of one core (the estimate is printed first).
        #[arg(long)]
        allow_long: bool,
    },
}

/// Every number on the command line is written as `skblab params` documents `--set` values:
/// plain decimal, no whitespace, `+` or leading zeros ([`parse_whole`]).
fn parse_seed(text: &str) -> Result<u64, String> {
    parse_whole(text, 0, u64::MAX)
}

/// A `u32` flag's parser: plain decimal in `min..=max`, the error naming form and range
/// (every numeric flag, `measure`'s too).
pub(crate) fn whole_in(min: u32, max: u32) -> impl Fn(&str) -> Result<u32, String> + Clone + Send + Sync + 'static {
    move |text| parse_whole(text, u64::from(min), u64::from(max)).map(|v| v as u32)
}

fn main() -> ExitCode {
    if let Some(line) = arg_errors::non_utf8_argument() {
        report(&line);
        return ExitCode::from(EXIT_BAD_INPUT);
    }
    let result = match Cli::try_parse() {
        Ok(cli) => set_jobs(cli.jobs).and_then(|()| execute(cli.command)),
        Err(e) if e.kind() == ErrorKind::DisplayVersion && std::env::args_os().len() > 2 => {
            let extra: Vec<String> =
                std::env::args().skip(1).filter(|a| a != "--version" && a != "-V").map(|a| echo(&a)).collect();
            Err(format!("--version takes no other arguments (got '{}')", extra.join(" ")))
        }
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => Ok(e.to_string()),
        Err(e) => Err(arg_errors::clap_error_line(&e)),
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

fn execute(command: Command) -> Result<String, String> {
    execute_checked(command).map_err(|e| e.to_string())
}

fn execute_checked(command: Command) -> Result<String, Refused> {
    match command {
        Command::List => Ok(run::list_text()),
        Command::Params { experiment } => Ok(run::params_text(find(&experiment)?)),
        Command::Run { experiment, settings, seed, format, allow_long } => {
            run::run_command(&experiment, &settings, seed, format, allow_long)
        }
        Command::Measure(args) => {
            measure::command(args).map_err(|message| Refused::Input(ParamError::Invalid { message }))
        }
        Command::Calibrate { machine: Some(path), experiment, format, allow_long, .. } => {
            measure::calibrate(&experiment, &path, matches!(format, MachineFormat::Json), allow_long)
                .map_err(|message| Refused::Input(ParamError::Invalid { message }))
        }
        Command::Calibrate {
            experiment, rounds, seeds, seed, starts, coarse_seeds, sensitivity, allow_long, ..
        } => {
            let args = calibrate::FitArgs { rounds, seeds, seed, starts, coarse_seeds, sensitivity, allow_long };
            calibrate::calibrate(&experiment, args)
        }
        Command::Reproduce { experiment, seeds, format, bands, allow_long } => {
            reproduce::reproduce(find(&experiment)?, &seeds, format, bands, allow_long)
        }
        Command::Validate { experiment, seeds, format, allow_long } => {
            reproduce::validate(experiment, &seeds, format, allow_long)
        }
    }
}
