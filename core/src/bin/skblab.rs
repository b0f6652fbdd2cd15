//! `skblab`: the simulation in a terminal. Lists experiments, prints their parameter specs,
//! runs them and sets their results beside the seed posts' tables.
//!
//! Contract (DESIGN.md): `list`, `params <exp>`, `run <exp> [--set k=v]... [--seed N]
//! [--format table|csv|json]`, `reproduce <exp> [--format ...]`. Bad input exits non-zero
//! with one line naming what was wrong and what is allowed; never a panic.

use clap::{Parser, Subcommand, ValueEnum};
use skblab_core::{experiments, find, Experiment, ParamError, ParamKind, DEFAULT_SEED};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "skblab", version, about = "Linux networking memory, simulated: run the skblab experiments")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

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
        #[arg(long, default_value_t = DEFAULT_SEED)]
        seed: u64,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Fit the machine profile's physical constants to the seed table and print them with the
    /// error (`--rounds 0` only evaluates the committed profile).
    Calibrate {
        experiment: String,
        #[arg(long, default_value_t = 4)]
        rounds: u32,
    },
    /// The seed post's measured table beside the simulation, with per-cell error.
    Reproduce {
        experiment: String,
        #[arg(long, default_value_t = DEFAULT_SEED)]
        seed: u64,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let kind = e.kind();
            if matches!(kind, clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) {
                print!("{e}");
                return ExitCode::SUCCESS;
            }
            // clap's first line says what was wrong; keep the promise of one line.
            let text = e.to_string();
            eprintln!("{}", text.lines().next().unwrap_or("invalid arguments").trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    match execute(cli.command) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("skblab: {e}");
            ExitCode::from(2)
        }
    }
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
        Command::Calibrate { experiment, rounds } => {
            let exp = find(&experiment)?;
            if exp.id() != skblab_core::experiments::high_order_alloc::ID {
                return Ok(format!("{} has no fitted constants to calibrate\n", exp.id()));
            }
            Ok(skblab_core::experiments::high_order_alloc::calibrate(rounds).to_text())
        }
        Command::Reproduce { experiment, seed, format } => {
            let exp = find(&experiment)?;
            let Some(r) = exp.reproduce(seed) else {
                return Ok(format!("{} has no seed table to reproduce\n", exp.id()));
            };
            Ok(match format {
                Format::Table => r.to_table(),
                Format::Csv => r.to_csv(),
                Format::Json => r.to_json() + "\n",
            })
        }
    }
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
