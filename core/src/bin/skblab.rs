//! `skblab`: the simulation in a terminal. Lists experiments, prints their parameter specs,
//! runs them and sets their results beside the seed posts' tables.
//!
//! Contract (DESIGN.md, README "The CLI"): `list`, `params <exp>`, `run <exp> [--set k=v]...
//! [--seed N] [--format table|csv|json] [--allow-long]`, `reproduce <exp> [--format ...]
//! [--bands N] [--allow-long]`, `validate [<exp>] [--seeds N] [--format ...] [--allow-long]`, `measure --list | <suite>
//! [--dry-run] [--out FILE]` (`skblab/measure.rs`: this machine measured), `calibrate
//! high-order-alloc --machine FILE [--format json] [--allow-long]`. Exit status 0 when
//! done — also when the reader closed the pipe early (`skblab run … | head`), as Unix tools do;
//! 1 with one line on stderr when the output cannot be written (a full disk, a closed or
//! read-only stdout); 2 with one line saying what was wrong and what is allowed for bad input
//! (and for a `run`, `reproduce`, `validate` or `calibrate` estimated above
//! [`LONG_RUN_LIMIT_S`] without `--allow-long`). Never a panic.
//! Every number is parsed as `params` documents it ([`parse_whole`]). User text in a message
//! goes through [`echo`]: control characters escaped, at most 60 characters.

use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand, ValueEnum};
use skblab_core::calibrate::{self, DEFAULT_SEEDS, MAX_ROUNDS, MAX_SEEDS, MAX_STARTS};
use skblab_core::params::{echo, escape, parse_whole};
use skblab_core::validate::{self, MAX_BANDS};
use skblab_core::{experiments, find, Experiment, ParamError, ParamKind, WorkEstimate, DEFAULT_SEED};
use std::io::{self, Write};
use std::process::ExitCode;

// Beside this file, in `skblab/`: a bad command line told in one line, and the `measure`
// subcommand.
#[path = "skblab/arg_errors.rs"]
mod arg_errors;
#[path = "skblab/measure.rs"]
mod measure;

/// Exit status when stdout cannot be written (not a closed pipe).
const EXIT_OUTPUT_ERROR: u8 = 1;
/// Exit status for bad input.
const EXIT_BAD_INPUT: u8 = 2;

/// A run whose estimate ([`Experiment::estimate`]) is above this many seconds of one core
/// natively is refused without `--allow-long` (README "The CLI"; docs/performance.md).
const LONG_RUN_LIMIT_S: f64 = 60.0;
/// Estimates from this many seconds of one core on are printed (stderr) before the run.
const SHOW_ESTIMATE_FROM_S: f64 = 10.0;

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
        calibrate::seeds(self.seed, self.seeds)
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

/// Writes the whole output; a reader that went away (EPIPE) is a normal end, any other write
/// error (EBADF: stdout closed or opened read-only; ENOSPC...) is reported in one line, exit 1.
///
/// `io::stdout()` cannot tell: it treats EBADF as success, and the Rust runtime reopens a
/// closed stdout on /dev/null before `main`. So the text goes through a duplicate of fd 1 as
/// a plain file (EBADF is an error there), and a stdout that is /dev/null opened read-write
/// (what the runtime opens; a shell's `>/dev/null` opens it write-only) counts as closed.
fn write_stdout(text: &str) -> ExitCode {
    let written = match stdout_file() {
        Ok(out) if stdout_was_closed(&out) => Err(io::Error::other("stdout is closed")),
        Ok(mut out) => out.write_all(text.as_bytes()).and_then(|()| out.flush()),
        Err(e) => Err(e),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            report(&format!("cannot write the output: {e}"));
            ExitCode::from(EXIT_OUTPUT_ERROR)
        }
    }
}

/// Fd 1 as a file of its own (see [`write_stdout`]).
#[cfg(unix)]
fn stdout_file() -> io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    io::stdout().as_fd().try_clone_to_owned().map(std::fs::File::from)
}

#[cfg(not(unix))]
fn stdout_file() -> io::Result<io::Stdout> {
    Ok(io::stdout())
}

/// Stdout is the /dev/null the runtime put in place of a closed fd 1 (Linux: its access
/// mode, from /proc/self/fdinfo, is read-write).
#[cfg(unix)]
fn stdout_was_closed(out: &std::fs::File) -> bool {
    use std::os::unix::fs::MetadataExt;
    let same = |a: &std::fs::Metadata, b: &std::fs::Metadata| a.dev() == b.dev() && a.ino() == b.ino();
    let (Ok(fd1), Ok(null)) = (out.metadata(), std::fs::metadata("/dev/null")) else {
        return false;
    };
    if !same(&fd1, &null) {
        return false;
    }
    let Ok(info) = std::fs::read_to_string("/proc/self/fdinfo/1") else {
        return false;
    };
    let flags = info.lines().find_map(|l| l.strip_prefix("flags:")).map(str::trim);
    // O_ACCMODE = 3, O_RDWR = 2.
    flags.and_then(|f| u32::from_str_radix(f, 8).ok()).is_some_and(|f| f & 3 == 2)
}

#[cfg(not(unix))]
fn stdout_was_closed(_out: &io::Stdout) -> bool {
    false
}

/// One line on stderr, escaped once more ([`escape`]: whatever a message embeds, nothing
/// invisible reaches the terminal); if even stderr is gone there is no one left to tell.
fn report(line: &str) {
    let _ = writeln!(io::stderr().lock(), "skblab: {}", escape(line));
}

/// The estimate of a run as one line (events, seconds of one core).
fn estimate_text(exp: &dyn Experiment, e: &WorkEstimate) -> String {
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
fn check_work(what: &str, seconds: f64, events: u64, allow_long: bool) -> Result<(), Refused> {
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
fn too_long(line: &str) -> Refused {
    Refused::TooLong(format!("{line}, above the limit of {LONG_RUN_LIMIT_S:.0} s: pass --allow-long to run it anyway"))
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

fn execute(command: Command) -> Result<String, String> {
    execute_checked(command).map_err(|e| e.to_string())
}

/// Why a command was refused: bad input, or a run above the work limit.
enum Refused {
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

fn execute_checked(command: Command) -> Result<String, Refused> {
    match command {
        Command::List => Ok(experiments().iter().map(|e| format!("{}\n", e.id())).collect()),
        Command::Params { experiment } => Ok(params_text(find(&experiment)?)),
        Command::Run { experiment, settings, seed, format, allow_long } => {
            run_command(&experiment, &settings, seed, format, allow_long)
        }
        Command::Measure(args) => {
            measure::command(args).map_err(|message| Refused::Input(ParamError::Invalid { message }))
        }
        Command::Calibrate { machine: Some(path), experiment, format, allow_long, .. } => {
            measure::calibrate(&experiment, &path, matches!(format, MachineFormat::Json), allow_long)
                .map_err(|message| Refused::Input(ParamError::Invalid { message }))
        }
        Command::Calibrate {
            experiment,
            rounds,
            seeds: n_seeds,
            seed,
            starts,
            coarse_seeds,
            sensitivity,
            allow_long,
            ..
        } => {
            let exp = find(&experiment)?;
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
        Command::Reproduce { experiment, seeds, format, bands, allow_long } => {
            reproduce(find(&experiment)?, &seeds, format, bands, allow_long)
        }
        Command::Validate { experiment, seeds, format, allow_long } => {
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
    }
}

/// `run`: the estimate first (printed from [`SHOW_ESTIMATE_FROM_S`], refused above
/// [`LONG_RUN_LIMIT_S`] without `allow_long`), then the run.
fn run_command(
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

/// `calibrate`'s bound of evaluations and its ETA, before it starts, and that work: each
/// evaluation scores the model on the seed table over its seeds, estimated as that many
/// reproductions of one seed ([`Experiment::reproduce_estimate`]).
fn calibrate_eta(
    exp: &dyn Experiment,
    cal: &dyn calibrate::Calibration,
    rounds: u32,
    starts: u32,
    coarse_seeds: u32,
    seeds: u32,
) -> (String, WorkEstimate) {
    let (coarse, full) = calibrate::max_evaluations(cal, rounds, starts);
    let per_seed = exp.reproduce_estimate(1);
    let work = per_seed.times(coarse * u64::from(coarse_seeds) + full * u64::from(seeds));
    let events = work.events;
    let eta = exp.native_seconds(&work);
    let coarse_text = if coarse > 0 { format!("{coarse} on {coarse_seeds} coarse seeds and ") } else { String::new() };
    let line = format!(
        "calibrate {}: at most {} evaluations ({coarse_text}{full} on {seeds} seeds), up to {events} simulated events: ETA at most {} of one core",
        exp.id(),
        coarse + full,
        duration_text(eta)
    );
    (line, work)
}

/// Seconds as "42 s", "12 min" or "3.5 h".
fn duration_text(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
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
/// Its estimate first, as `run`'s ([`check_work`]).
fn reproduce(
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
