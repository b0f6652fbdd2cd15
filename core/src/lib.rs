//! skblab-core: mechanistic models of Linux networking memory, for the skblab lessons.
//!
//! Pure Rust, no I/O, no clock, no browser: the same code runs natively (CLI, tests,
//! benchmarks) and as wasm32 in the web app, and gives bit-identical results on both.
//!
//! Map of the crate:
//! - [`params`]: parameter specs as data, validation with one-line errors.
//! - [`calibrate`]: fitting a machine profile's constants (coordinate descent over seeds,
//!   ±10 % sensitivity), for any experiment that implements its trait.
//! - [`model`]: the [`Model`] trait an experiment writes (typed input, points, the worlds a
//!   point runs, its row, its expected events) and its optional capabilities.
//! - [`experiment`]: the object-safe [`Experiment`](experiment::Experiment) the platform calls
//!   (every `Model` is one) and [`ViewSpec`]s.
//! - [`output`]: result tables, text views, and seed-vs-simulation reproductions.
//! - [`validate`]: `skblab validate` (every seed table's verdict, degrees of freedom, in- and
//!   out-of-sample errors; the committed snapshot the app shows) and `reproduce --bands N`.
//! - [`sources`]: citations of the seed posts and commits the models rest on.
//! - [`rng`]: the one PRNG type (SplitMix64-seeded PCG32), forked per component.
//! - [`sim`]: the sim kernel the worlds run on: the discrete-event engine and the mechanisms
//!   two worlds share (machine profiles, caches and cache lines, atomics, qspinlock, buddy +
//!   PCP zones, page_frag, SLUB, profiles and flame graphs, trace frames); its module doc
//!   maps its modules. A world itself lives with its experiment.
//! - [`machine`]: "Your machine": the measurement file of a real machine (`skblab measure`),
//!   its parser, the suites' plans, the tools' parsers, and the model's fit to the file.
//! - [`experiments`](mod@experiments): one module per lesson and the registry; each experiment's own doc
//!   lists its files.
#![forbid(unsafe_code)]

pub mod calibrate;
pub mod experiment;
pub mod experiments;
pub mod machine;
pub mod model;
pub mod output;
pub mod params;
pub mod replay;
pub mod rng;
pub mod sim;
pub mod sources;
pub mod validate;

pub use experiment::{ChartSpec, Cost, Experiment, Point, ViewData, ViewQuery, ViewSpec, WorkEstimate, DEFAULT_SEED};
pub use experiments::{experiments, find};
pub use model::{Model, Runner};
pub use output::{
    Basis, Cell, Column, Meaning, Plot, PlotBand, PlotLine, Reproduction, Row, RunOutput, TextView, MODEL_VERSION,
};
pub use params::{ParamError, ParamKind, ParamSpec, Params, ParamsWire, Value};
pub use sim::profile::{FlameGraph, FlameNode, FoldedStack};
