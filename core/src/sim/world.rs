//! The skeleton every world runs on: the measurement window, the event cap and one run loop.
//!
//! What a benchmark does: netperf, iperf or a kernel self-test runs a warm-up, then measures
//! over a fixed window and reports rates over it; a tracer that fills its buffer stops and
//! says so. A world here does the same: it runs from time 0 to the end of its [`Window`],
//! its statistics count from the first event at or after `warmup_ns`, and the run stops early
//! (marked truncated) when it has handled its cap of events, so a huge setting costs bounded
//! native time.
//!
//! A world supplies its event enum, its [`EventQueue`], a [`RunState`] field and
//! [`World::handle`] (the accessors and the check written once by `world_fields!`); the trait's provided [`World::step`], [`World::run`] and
//! [`World::run_for`] are the only run loop in the crate, and [`World::outcome`] (events,
//! truncated, measured window) is what every world reports about its run.
//!
//! The semantics, the same for every world:
//! - Events at or after the end (`warmup_ns + measure_ns`, or earlier if the world cut it
//!   with [`RunState::end_at_most`]) are never handled; the run ends when none is left before it.
//! - At most `max_events` events are handled. The run is *truncated* when the cap is reached
//!   while an event before the end is still pending; the measured window then ends at that
//!   event's time ([`Outcome::measured_ns`]).
//! - Measuring starts at the first event at or after `warmup_ns`, before it is handled:
//!   [`RunState::measuring`] turns true and [`World::on_measure_start`] runs (a world resets
//!   the statistics it counted during the warm-up there).
//! - The event's time is handed to `handle`; a world that needs "now" in its handlers keeps
//!   it (the loop never moves time backwards: the queue pops in `(time, sequence)` order).
//!
//! Invariants (the simulator is fuzzed the way TigerBeetle's VOPR fuzzes a storage engine): a
//! world may implement [`World::check`] (its buddy lists, pagesets, zone totals, slabs, lock
//! queues, conservation of pages and objects, counters within bounds; each experiment keeps
//! them in its `world/invariants.rs`, apart from the model).
//! [`World::run_checked`] is the same loop as [`World::run`] with `check` before the first
//! event and after every one; [`World::run`] and [`World::step`] never call it, so normal
//! runs pay nothing and their bits do not depend on it (checks only read). `make fuzz-sim`
//! (core/tests/fuzz_sim.rs) runs every experiment's worlds so, through
//! [`crate::Experiment::run_point_checked`].

use super::engine::EventQueue;
use serde::Serialize;

/// A run's simulated time: a warm-up, then the window its statistics cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Window {
    pub warmup_ns: u64,
    pub measure_ns: u64,
}

impl Window {
    /// When the run ends.
    pub fn end_ns(self) -> u64 {
        self.warmup_ns + self.measure_ns
    }

    /// `at_ns` lies inside the measured window (for work charged at a thread's own clock,
    /// which may run ahead of the event being handled).
    pub fn contains(self, at_ns: u64) -> bool {
        at_ns >= self.warmup_ns && at_ns < self.end_ns()
    }
}

/// The loop's state: the window, the cap and where the run is. A world holds one and hands
/// it to the loop through [`World::run_state`] and [`World::run_state_mut`]. Not `Clone`: a
/// world's events are added to [`events_handled`] once, when it is dropped.
#[derive(Debug, PartialEq, Eq)]
pub struct RunState {
    window: Window,
    end_ns: u64,
    max_events: u64,
    events: u64,
    measuring: bool,
    /// The time of the first event the cap left unhandled.
    truncated_at_ns: Option<u64>,
}

impl RunState {
    /// A run over `window` that handles at most `max_events` events.
    pub fn new(window: Window, max_events: u64) -> RunState {
        RunState { window, end_ns: window.end_ns(), max_events, events: 0, measuring: false, truncated_at_ns: None }
    }

    pub fn window(&self) -> Window {
        self.window
    }

    /// When the run ends (the window's end unless cut).
    pub fn end_ns(&self) -> u64 {
        self.end_ns
    }

    /// Ends the run at `at_ns` if that is earlier than its current end (a world that has seen
    /// what it runs for, e.g. percpu-counter's ramp after the crossing).
    pub fn end_at_most(&mut self, at_ns: u64) {
        self.end_ns = self.end_ns.min(at_ns);
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// True from the first event at or after `warmup_ns` on.
    pub fn measuring(&self) -> bool {
        self.measuring
    }

    /// True once the cap stopped the run with an event before the end still pending.
    pub fn truncated(&self) -> bool {
        self.truncated_at_ns.is_some()
    }

    /// What the run did so far (final once [`World::step`] returned false).
    pub fn outcome(&self) -> Outcome {
        let stop_ns = self.truncated_at_ns.unwrap_or(self.end_ns).min(self.end_ns);
        Outcome {
            events: self.events,
            truncated: self.truncated(),
            measured_ns: stop_ns.saturating_sub(self.window.warmup_ns),
        }
    }
}

/// Events handled by every world this process has dropped (summed when a world's
/// [`RunState`] is dropped, one atomic add per world): the work a command really simulated,
/// which tests hold its estimate to (`core/tests/estimate.rs`). Read only; no run depends on it.
pub fn events_handled() -> u64 {
    EVENTS_HANDLED.load(std::sync::atomic::Ordering::Relaxed)
}

static EVENTS_HANDLED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Drop for RunState {
    fn drop(&mut self) {
        EVENTS_HANDLED.fetch_add(self.events, std::sync::atomic::Ordering::Relaxed);
    }
}

/// What a run did, reported by every world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Outcome {
    /// Events handled.
    pub events: u64,
    /// The event cap stopped the run before its end.
    pub truncated: bool,
    /// Simulated ns of the measurement window the run covered: `measure_ns`, less if the
    /// world cut the end or the cap stopped the run (then up to the first event not handled;
    /// 0 if that was still in the warm-up).
    pub measured_ns: u64,
}

/// What checked runs covered ([`World::run_checked`], [`crate::Experiment::run_point_checked`]):
/// how many worlds ran and how many events they handled, every one followed by a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Checked {
    pub worlds: u64,
    pub events: u64,
}

impl Checked {
    /// Adds one world's run.
    pub fn add(&mut self, o: Outcome) {
        self.worlds += 1;
        self.events += o.events;
    }

    /// Adds the runs of `other`.
    pub fn merge(&mut self, other: Checked) {
        self.worlds += other.worlds;
        self.events += other.events;
    }
}

/// The plumbing of a [`World`] impl, the same in every world: [`World::run_state`],
/// [`World::run_state_mut`] and [`World::queue`] hand out the fields named here, and
/// [`World::check`] is the world's own `invariants()` (kept in its `world/invariants.rs`).
/// Inside the impl: `world_fields!(run_state, queue);`, or `world_fields!(run_state, queue,
/// start_measuring);` for a world whose [`World::on_measure_start`] is its own
/// `start_measuring()` (where it resets what it counted during the warm-up).
macro_rules! world_fields {
    ($run_state:ident, $queue:ident, $on_measure_start:ident) => {
        $crate::sim::world::world_fields!($run_state, $queue);

        fn on_measure_start(&mut self) {
            self.$on_measure_start();
        }
    };
    ($run_state:ident, $queue:ident) => {
        fn run_state(&self) -> &$crate::sim::world::RunState {
            &self.$run_state
        }

        fn run_state_mut(&mut self) -> &mut $crate::sim::world::RunState {
            &mut self.$run_state
        }

        fn queue(&mut self) -> &mut $crate::sim::engine::EventQueue<Self::Event> {
            &mut self.$queue
        }

        fn check(&self) -> Result<(), String> {
            self.invariants()
        }
    };
}
pub(crate) use world_fields;

/// A world of the sim kernel, run by the one loop of its provided methods.
pub trait World {
    /// The world's closed event enum.
    type Event: Copy;

    fn run_state(&self) -> &RunState;
    fn run_state_mut(&mut self) -> &mut RunState;
    fn queue(&mut self) -> &mut EventQueue<Self::Event>;

    /// Handles `event`, due at `at_ns` (the dispatch over the world's events).
    fn handle(&mut self, at_ns: u64, event: Self::Event);

    /// Runs once, before the first event of the measurement window is handled.
    fn on_measure_start(&mut self) {}

    /// Handles the next event. False once the run is over: no event before the end is left,
    /// or the cap is reached (then the run is truncated).
    #[inline]
    /// When the next event is due (`None`: nothing queued): for a world whose warm-up ends on a
    /// condition of its own (skb-cache: every flow has completed its round trips) and steps
    /// until then with [`World::step`].
    fn next_event_ns(&mut self) -> Option<u64> {
        self.queue().peek_time_ns()
    }
    fn step(&mut self) -> bool {
        let Some(at_ns) = self.queue().peek_time_ns() else { return false };
        let rs = self.run_state_mut();
        if at_ns >= rs.end_ns {
            return false;
        }
        if rs.events >= rs.max_events {
            rs.truncated_at_ns = Some(at_ns);
            return false;
        }
        rs.events += 1;
        let starts = !rs.measuring && at_ns >= rs.window.warmup_ns;
        rs.measuring |= starts;
        let (at_ns, event) = self.queue().pop().expect("peeked");
        if starts {
            self.on_measure_start();
        }
        self.handle(at_ns, event);
        true
    }

    /// Runs to the end (or the cap).
    fn run(&mut self) -> Outcome {
        while self.step() {}
        self.outcome()
    }

    /// Handles up to `n` more events; false if the run ended first.
    fn run_for(&mut self, n: u64) -> bool {
        (0..n).all(|_| self.step())
    }

    /// What the run did so far.
    fn outcome(&self) -> Outcome {
        self.run_state().outcome()
    }

    /// The world's invariants, in one line each when broken (see the module doc). Only
    /// [`World::run_checked`] calls it; it must only read. Default: none.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    /// [`World::run`] with [`World::check`] before the first event and after every event, for
    /// at most `max_events` events (the fuzzer's bound on one case; `u64::MAX`: the whole
    /// run): the same events in the same order as [`World::run`], so the same states. The
    /// first broken invariant ends the run with it, prefixed by the event's number and time.
    fn run_checked(&mut self, max_events: u64) -> Result<Outcome, String> {
        self.check().map_err(|e| format!("before the first event: {e}"))?;
        let start = self.run_state().events;
        while self.run_state().events - start < max_events {
            let at_ns = self.queue().peek_time_ns();
            if !self.step() {
                break;
            }
            let n = self.run_state().events;
            self.check().map_err(|e| format!("after event {n} (at {} ns): {e}", at_ns.unwrap_or(0)))?;
        }
        Ok(self.outcome())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event schedules the next one `gap_ns` later; `seen` records what was handled.
    struct Ticker {
        q: EventQueue<u32>,
        rs: RunState,
        gap_ns: u64,
        seen: Vec<(u64, u32, bool)>,
        measure_started: u32,
        /// `check` fails once this many events were handled.
        broken_at: usize,
    }

    impl World for Ticker {
        type Event = u32;
        fn run_state(&self) -> &RunState {
            &self.rs
        }
        fn run_state_mut(&mut self) -> &mut RunState {
            &mut self.rs
        }
        fn queue(&mut self) -> &mut EventQueue<u32> {
            &mut self.q
        }
        fn handle(&mut self, at_ns: u64, event: u32) {
            self.seen.push((at_ns, event, self.rs.measuring()));
            self.q.schedule(at_ns + self.gap_ns, event + 1);
        }
        fn on_measure_start(&mut self) {
            self.measure_started += 1;
        }
        fn check(&self) -> Result<(), String> {
            if self.seen.len() >= self.broken_at {
                return Err(format!("{} events seen", self.seen.len()));
            }
            Ok(())
        }
    }

    fn ticker(warmup_ns: u64, measure_ns: u64, max_events: u64) -> Ticker {
        let mut q = EventQueue::default();
        q.schedule(0, 0);
        let rs = RunState::new(Window { warmup_ns, measure_ns }, max_events);
        Ticker { q, rs, gap_ns: 10, seen: Vec::new(), measure_started: 0, broken_at: usize::MAX }
    }

    #[test]
    fn runs_to_the_end_of_the_window_and_measures_from_the_warmup() {
        let mut w = ticker(25, 50, 1000);
        let o = w.run();
        // Events at 0, 10, ..., 70; the one at 80 is past the end (75).
        assert_eq!(o, Outcome { events: 8, truncated: false, measured_ns: 50 });
        assert_eq!(w.seen.iter().filter(|s| s.2).map(|s| s.0).collect::<Vec<_>>(), vec![30, 40, 50, 60, 70]);
        assert_eq!(w.measure_started, 1);
        assert!(!w.step(), "a finished run stays finished");
    }

    #[test]
    fn the_cap_handles_exactly_max_events_and_truncates() {
        let mut w = ticker(25, 50, 4);
        let o = w.run();
        assert_eq!(o, Outcome { events: 4, truncated: true, measured_ns: 15 });
        assert_eq!(w.seen.last(), Some(&(30, 3, true)));
        // A cap that is reached exactly at the end is no truncation.
        let mut w = ticker(25, 50, 8);
        assert_eq!(w.run(), Outcome { events: 8, truncated: false, measured_ns: 50 });
    }

    #[test]
    fn run_for_stops_early_and_a_cut_end_shortens_the_window() {
        let mut w = ticker(0, 1000, 1000);
        assert!(w.run_for(3));
        assert_eq!(w.outcome().events, 3);
        w.run_state_mut().end_at_most(55);
        assert!(!w.run_for(10));
        assert_eq!(w.outcome(), Outcome { events: 6, truncated: false, measured_ns: 55 });
        assert_eq!(w.measure_started, 1);
    }

    #[test]
    fn run_checked_runs_the_same_events_and_stops_at_the_first_broken_invariant() {
        let mut plain = ticker(25, 50, 1000);
        let mut checked = ticker(25, 50, 1000);
        assert_eq!(checked.run_checked(u64::MAX), Ok(plain.run()));
        assert_eq!(checked.seen, plain.seen);
        let mut w = ticker(25, 50, 1000);
        assert_eq!(w.run_checked(3).map(|o| o.events), Ok(3), "a bounded checked run stops early");
        let mut w = ticker(25, 50, 1000);
        w.broken_at = 3;
        assert_eq!(w.run_checked(u64::MAX), Err("after event 3 (at 20 ns): 3 events seen".to_string()));
        let mut w = ticker(25, 50, 1000);
        w.broken_at = 0;
        assert_eq!(w.run_checked(u64::MAX), Err("before the first event: 0 events seen".to_string()));
    }
}
