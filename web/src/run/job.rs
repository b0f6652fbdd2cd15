//! The one state machine of every job in the run store — a run of an experiment, a custom
//! view's heavy data, an uncertainty band, a machine fit: [`Job`] says where it is
//! ([`Phase`]), how far it has come, and how long it took; its transitions are written here
//! once, and each kind keeps beside it only what it computes (rows, a band, a report).
//!
//! ```text
//!   Awaiting ──go-ahead──▶ Running ──progress──▶ Running ──▶ Done
//!   (a run estimated too long)     │                  ├──▶ Failed(why)
//!                                  └──────────────────┴──▶ Stopped (by the learner)
//! ```
//!
//! A job ends once: only an awaiting or running job moves on. Asking again (Run again, another
//! file, another number of samples) makes a new job with a new [`Job::id`], the *generation*
//! the pool's tasks carry: a reply for a job the store no longer holds under that id is dropped.

use super::plan;

/// Where a job is.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// Estimated above [`plan::CONFIRM_MS`]: waits for the learner's go-ahead (runs only).
    Awaiting,
    /// Computing, or queued for a worker.
    Running,
    Done,
    /// Why it ended without a result: its input was refused, its worker crashed or none loaded.
    Failed(String),
    /// Stopped by the learner: its workers were terminated.
    Stopped,
}

/// A job as far as it has come.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// The store's number for this job (its generation).
    pub id: u64,
    pub phase: Phase,
    /// Parts done of all: a run's points, a band's samples, a fit's simulator runs.
    pub done: u32,
    pub total: u32,
    /// The page clock when it started (for the ETA).
    pub started_ms: f64,
    /// The estimate before it started, in ms of wall time on `workers` workers.
    pub estimate_ms: f64,
    pub workers: u32,
    /// Wall time from the start to the end (done or stopped).
    pub total_ms: Option<f64>,
    /// Time the workers spent computing (sum over tasks).
    pub compute_ms: Option<f64>,
}

impl Job {
    /// A running job of `total` parts, none done, started at `started_ms` on one worker.
    pub fn new(id: u64, total: u32, started_ms: f64) -> Job {
        Job {
            id,
            phase: Phase::Running,
            done: 0,
            total,
            started_ms,
            estimate_ms: 0.0,
            workers: 1,
            total_ms: None,
            compute_ms: None,
        }
    }

    /// Computing or queued (not done, failed, stopped, or waiting for a go-ahead).
    pub fn is_running(&self) -> bool {
        self.phase == Phase::Running
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    pub fn is_stopped(&self) -> bool {
        self.phase == Phase::Stopped
    }

    pub fn is_awaiting(&self) -> bool {
        self.phase == Phase::Awaiting
    }

    /// Why it failed, if it did.
    pub fn error(&self) -> Option<&str> {
        match &self.phase {
            Phase::Failed(e) => Some(e),
            _ => None,
        }
    }

    /// Where the job is in one word, as the views column's `data-run` says it for a run (for
    /// index.html's loader, which keeps a pre-rendered first view until "done", and for
    /// scripts): "done", "running", "failed", "stopped" or "awaiting" (a go-ahead).
    pub fn phase_name(&self) -> &'static str {
        match self.phase {
            Phase::Awaiting => "awaiting",
            Phase::Running => "running",
            Phase::Done => "done",
            Phase::Failed(_) => "failed",
            Phase::Stopped => "stopped",
        }
    }

    /// Progress in percent (0..=100; 100 only once done).
    pub fn percent(&self) -> u32 {
        if self.is_done() {
            return 100;
        }
        (self.done * 100).checked_div(self.total).unwrap_or(0).min(99)
    }

    /// Time left at `now_ms`: from the rate so far once a part is done, else what is left of
    /// the estimate.
    pub fn eta_ms(&self, now_ms: f64) -> f64 {
        plan::eta_ms(self.estimate_ms, now_ms - self.started_ms, self.done, self.total)
    }

    /// `done` of `total` parts are in (a running job only).
    pub fn progress(&mut self, done: u32, total: u32) {
        if self.is_running() {
            (self.done, self.total) = (done, total);
        }
    }

    /// The result is in at `now_ms`: every part is done.
    pub fn finish(&mut self, now_ms: f64) {
        if self.is_running() {
            self.phase = Phase::Done;
            self.done = self.total.max(self.done);
            self.total_ms = Some(now_ms - self.started_ms);
        }
    }

    /// It cannot end with a result, for `why`.
    pub fn fail(&mut self, why: &str) {
        if matches!(self.phase, Phase::Running | Phase::Awaiting) {
            self.phase = Phase::Failed(why.to_string());
        }
    }

    /// Stopped by the learner at `now_ms`.
    pub fn stop(&mut self, now_ms: f64) {
        if self.is_running() {
            self.phase = Phase::Stopped;
            self.total_ms = Some(now_ms - self.started_ms);
        }
    }

    /// Waits for the learner's go-ahead (a running job not started yet).
    pub fn wait_for_go_ahead(&mut self) {
        if self.is_running() {
            self.phase = Phase::Awaiting;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_moves_on_once_and_only_forward() {
        let mut j = Job::new(1, 4, 100.0);
        assert_eq!((j.phase_name(), j.percent()), ("running", 0));
        j.progress(2, 4);
        assert_eq!(j.percent(), 50);
        j.progress(4, 4);
        assert_eq!(j.percent(), 99, "100 only once done");
        j.finish(350.0);
        assert_eq!((j.phase_name(), j.percent(), j.total_ms), ("done", 100, Some(250.0)));
        j.fail("late");
        j.stop(400.0);
        assert!(j.is_done() && j.error().is_none(), "a done job stays done");
        let mut k = Job::new(2, 4, 0.0);
        k.stop(10.0);
        k.finish(20.0);
        assert_eq!((k.phase_name(), k.total_ms), ("stopped", Some(10.0)));
        let mut w = Job::new(3, 4, 0.0);
        w.wait_for_go_ahead();
        assert!(w.is_awaiting() && !w.is_running());
        w.fail("refused");
        assert_eq!((w.phase_name(), w.error()), ("failed", Some("refused")));
    }
}
