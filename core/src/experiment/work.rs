//! How heavy a run is, known before it starts: where the page may run it ([`Cost`]) and the
//! work it will take ([`WorkEstimate`]), from which the CLI's time estimate and the page's
//! choice of main thread or worker pool follow.

use serde::{Deserialize, Serialize};

/// How heavy a run is: the page runs [`Cost::Light`] runs on its main thread, and sends
/// [`Cost::Heavy`] ones to the sweep worker, which streams rows back point by point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Cost {
    /// The whole run takes at most a few milliseconds, even in wasm.
    Light,
    /// A run may take longer than one frame (16 ms): never on the main thread.
    Heavy,
}

/// The work a run will take, known before it starts (every run and sweep has a bounded,
/// estimated amount of work): its points, the simulated events it is expected to take (each
/// world also caps every run, which bounds the work if the estimate misjudges it) and the
/// work its events do beyond an average event's, in events' worth. Experiments override
/// [`Experiment::estimate`](super::Experiment::estimate); the default assumes
/// [`WorkEstimate::DEFAULT_EVENTS_PER_POINT`] per point. Seconds come from
/// [`Experiment::native_seconds`](super::Experiment::native_seconds) (the experiment's own
/// speed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkEstimate {
    pub points: u64,
    /// Simulated events, as the worlds count them ([`crate::sim::world::events_handled`]).
    pub events: u64,
    /// Work beyond the events, in events' worth at the experiment's speed: heavier events
    /// (cross-cpu-free's tcp-100g skbs of many pages) or loop steps that are no events
    /// (percpu-counter's draws are counted in `events` instead). Mostly 0.
    pub extra: u64,
}

impl WorkEstimate {
    /// The default's events per point (an assumption until an experiment says better).
    pub const DEFAULT_EVENTS_PER_POINT: u64 = 1_000_000;
    /// The engine's speed on this project's reference machine, native, one core, in events
    /// per second (measured by `make bench`; docs/performance.md): the speed of an
    /// experiment that does not measure its own
    /// ([`Experiment::events_per_s`](super::Experiment::events_per_s)).
    pub const NATIVE_EVENTS_PER_S: f64 = 8.0e6;
    /// What a command costs before and beside its events, in seconds: the process's start,
    /// the thread pool's, building the worlds and printing. A tiny run measures 6 ms of CPU and
    /// 22 ms of wall time on the project's 2-core machine (`perf stat -r 10 -e task-clock
    /// target/release/skblab run high-order-alloc --set warmup_us=0 --set measure_us=100 --set
    /// max_threads=1`; `run skb-layout`, no world at all: 1.7 ms of CPU, 5 ms of wall time).
    pub const OVERHEAD_S: f64 = 0.02;
    /// `points` points of `events` events and no extra work.
    pub const fn new(points: u64, events: u64) -> WorkEstimate {
        WorkEstimate { points, events, extra: 0 }
    }
    /// The events and the extra work, in events' worth.
    pub fn work(&self) -> u64 {
        self.events.saturating_add(self.extra)
    }
    /// `n` times this work.
    pub fn times(self, n: u64) -> WorkEstimate {
        WorkEstimate {
            points: self.points.saturating_mul(n),
            events: self.events.saturating_mul(n),
            extra: self.extra.saturating_mul(n),
        }
    }
    /// This work and `other`'s.
    pub fn plus(self, other: WorkEstimate) -> WorkEstimate {
        WorkEstimate {
            points: self.points.saturating_add(other.points),
            events: self.events.saturating_add(other.events),
            extra: self.extra.saturating_add(other.extra),
        }
    }
}
