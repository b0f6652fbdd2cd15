//! "Your machine" (`#/machine`), one feature in one folder: a measurement of a real Linux box
//! held against the model. Core measures (the commands), parses and fits (`MachineFit`); this
//! folder shows it:
//!
//! - [`page`]: the page — the commands, the file picker and paste box, the fit's progress —
//!   and `results.rs`, what it shows of a fit: the machine's facts, the fit's table and charts;
//! - [`chart`]: the stream suite's overlay charts (pure drawing, generic over the backend);
//! - [`job`]: the fit as a kind of job of the run store (one worker task per file, progress,
//!   Stop), plugged in through `run::kind::JobKind`;
//! - the worker's side of that task (core's parse and fit, a reply per run) lives with the
//!   worker protocol, in [`crate::worker::machine`];
//! - [`saved`]: the chosen file as localStorage keeps it (pure).

pub mod chart;
pub mod job;
pub mod page;
mod results;
pub mod saved;

pub use page::MachinePage;
