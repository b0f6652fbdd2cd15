//! "Your machine": the model held against a real Linux machine. A reader runs
//! `skblab measure` on their machine, which writes a measurement file; `skblab calibrate
//! high-order-alloc --machine FILE` (or the web app's "Your machine" page, in its worker) reads
//! it back, predicts every measured number the experiments can simulate from the catalogue
//! alone, fits one constant on part of the file and predicts the rest again.
//!
//! No I/O here: the CLI binary runs the commands and opens the file it is given
//! (`src/bin/skblab/measure.rs`, reading it through [`file::read_limited`], which stops at the
//! size limit), and the page reads a file the reader picks; both hand the text to
//! [`file::parse`].
//!
//! Files:
//! - [`file`](mod@file): the file format (schema version, machine and kernel facts, suites, cells and
//!   their samples), its limits and [`file::parse`], which validates a text into a
//!   [`file::Measurement`] or says in one line what is wrong.
//! - [`plan`]: the suites `skblab measure` runs, as data: each cell's setting, the sysctl it
//!   needs, its server and client command lines and how to read its result (`--dry-run`
//!   prints a plan).
//! - [`tools`]: parsers of what the measured machine prints (iperf3, sockperf, pahole,
//!   `/proc/stat`, `/proc/self/stat`, `/proc/zoneinfo`, `perf script`).
//! - [`fit`]: the fit loop: the machine's profile from the catalogue, the runs of the
//!   measured stream cells from the catalogue alone, one constant fitted by golden section and
//!   the runs again with it, done in slices ([`fit::MachineFit`]) so the page shows progress,
//!   and the report assembled from them.
//! - `stream.rs`: a measured stream cell as a run of high-order-alloc's stream world
//!   (parameters from the file, the cell's flows, send size and order, waiting) and the state
//!   suite's measured idle share.
//! - `compare.rs`: each point beside the model ([`fit::MachinePoint`], its error and verdict),
//!   the idle point, the rr cells, skb-layout's preset against pahole, and the suites not
//!   predicted.
//! - `profile.rs`: which catalogue family and 6.x kernel costs a file is predicted with
//!   ([`fit::family_for`], [`fit::profile`]).
//! - [`rr`]: the rr suite's loopback ping-pong as arithmetic on the same per-segment costs,
//!   with the wakee's CPU and the wakeup's cost from `sim::sched`.
//! - `report.rs`: how the comparison reads ([`fit::MachineReport`]'s table, summary line, JSON).
//! - `tests.rs`: the file's round trip and refusals, the plans, the tools' parsers. The
//!   hostile-input corpus of the parser (`core/tests/data/hostile-measure/`: files refused in
//!   one line, legal files with hostile texts and values) runs in `core/tests/measure_hostile.rs`.
//!
//! This is a feature folder: it names the experiments whose worlds it runs; nothing generic
//! (`sim`, `calibrate`, `output`, `validate`) names it.

mod compare;
pub mod file;
pub mod fit;
pub mod plan;
mod profile;
mod report;
pub mod rr;
mod stream;
pub mod tools;

#[cfg(test)]
mod tests;
