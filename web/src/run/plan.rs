//! The plan of one run spread over the worker pool (pure, no browser): which task comes next
//! — a point nobody computes yet, then `finish()` once every row is in, or the whole run if it
//! has one point — and the rows put back in point order whatever order they arrive in, so the
//! run the page assembles is core's `run` bit for bit (tests below, and the pool's e2e test).
//!
//! Also the page's estimate of a run ([`estimate_ms`]): core's [`WorkEstimate`] in seconds of
//! one native core at the experiment's own speed ([`Experiment::native_seconds`], the CLI's
//! conversion), scaled to wasm and spread over the workers.

use skblab_core::{Experiment, Params, Row, WorkEstimate};

/// Wasm's speed as a share of native on the same machine: the sweep worker's build (the
/// `wasm-worker` profile) in headless Chromium against the native build, timed back to back
/// by `bash scripts/bench.sh engine` (its `wasm/native:` line): 0.72, 0.78, 0.80 and 0.84 in
/// four runs on the project's 2-core machine (docs/performance.md); the median.
pub const WASM_SPEED: f64 = 0.78;

/// Runs estimated above this many milliseconds wait for the learner's go-ahead: nothing that
/// long starts on a page load or a moved knob alone.
pub const CONFIRM_MS: f64 = 30_000.0;

/// Runs estimated (or running) above this many milliseconds show an ETA and a Stop button.
pub const LONG_MS: f64 = 1_000.0;

/// The wall time in the page of `estimate`, work of `e`: its native seconds at wasm's speed,
/// the events spread over `workers` workers (at most one per point), the fixed overhead not.
pub fn estimate_ms(e: &dyn Experiment, estimate: &WorkEstimate, workers: u32) -> f64 {
    wall_ms(e.native_seconds(estimate), estimate.points, workers)
}

/// The wall time in the page of work of `points` points that takes `native_s` seconds of one
/// native core ([`Experiment::native_seconds`]; see [`estimate_ms`]).
pub fn wall_ms(native_s: f64, points: u64, workers: u32) -> f64 {
    let parallel = u64::from(workers.max(1)).min(points.max(1)) as f64;
    let events_s = native_s - WorkEstimate::OVERHEAD_S;
    (events_s / parallel + WorkEstimate::OVERHEAD_S) / WASM_SPEED * 1000.0
}

/// The wall time of `e`'s run under `params` (see [`estimate_ms`]).
pub fn run_estimate_ms(e: &dyn Experiment, params: &Params, workers: u32) -> f64 {
    estimate_ms(e, &e.estimate(params), workers)
}

/// Time left, from how far the run has come: the rate so far once a point is in, else what is
/// left of the estimate.
pub fn eta_ms(estimate_ms: f64, elapsed_ms: f64, done: u32, total: u32) -> f64 {
    if done == 0 || total == 0 {
        return (estimate_ms - elapsed_ms).max(0.0);
    }
    elapsed_ms / f64::from(done) * f64::from(total.saturating_sub(done))
}

/// "about 4 s left", "about 2 min left", "about 4.6 h left" (hours as [`duration_text`] says
/// the estimate beside it: not "about 276 min left" under "about 4.6 h").
pub fn eta_text(ms: f64) -> String {
    let s = (ms / 1000.0).ceil().max(1.0);
    if s < 90.0 {
        format!("about {s:.0} s left")
    } else if s < 5400.0 {
        format!("about {:.0} min left", (s / 60.0).ceil())
    } else {
        format!("about {:.1} h left", s / 3600.0)
    }
}

/// "1 point", "30 points".
pub fn points_text(n: u64) -> String {
    if n == 1 {
        "1 point".to_string()
    } else {
        format!("{n} points")
    }
}

/// "3 s", "2 min", "1.5 h".
pub fn duration_text(ms: f64) -> String {
    let s = ms / 1000.0;
    if s < 1.0 {
        "under 1 s".to_string()
    } else if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// A task of a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Task {
    /// The point at this position of `points()`.
    Point(u32),
    /// `finish()` of these rows (every point, in order).
    Finish(Vec<Row>),
    /// The whole `run()`: a run of one point.
    Whole,
}

/// A run's tasks and the rows so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    rows: Vec<Option<Row>>,
    /// Positions in the order they are handed out.
    order: Vec<u32>,
    /// `order[..next]` were handed out (or arrived with the request).
    next: usize,
    /// `Finish` or `Whole` handed out.
    closing: bool,
}

impl Sweep {
    /// Points handed out in point order.
    pub fn new(n_points: usize) -> Sweep {
        Sweep { rows: vec![None; n_points], order: (0..n_points as u32).collect(), next: 0, closing: false }
    }

    /// Points handed out heaviest first by `work` (core's `Experiment::point_events`; ties in
    /// point order): the last tasks are the lightest, so the workers finish together
    /// (longest processing time first). `None` hands them out in point order.
    pub fn heaviest_first(work: &[Option<u64>]) -> Sweep {
        let mut sweep = Sweep::new(work.len());
        if work.iter().all(Option::is_some) {
            sweep.order.sort_by_key(|&p| std::cmp::Reverse(work[p as usize]));
        }
        sweep
    }

    fn whole(&self) -> bool {
        self.rows.len() == 1 && self.rows[0].is_none()
    }

    /// Tasks that could start now (for spawning workers).
    pub fn available(&self) -> usize {
        if self.closing {
            return 0;
        }
        if self.whole() {
            return 1;
        }
        let left = self.order[self.next..].iter().filter(|&&p| self.rows[p as usize].is_none()).count();
        if left > 0 {
            left
        } else {
            usize::from(self.rows.iter().all(Option::is_some))
        }
    }

    /// The next task, if one can start now.
    pub fn next_task(&mut self) -> Option<Task> {
        if self.closing {
            return None;
        }
        if self.whole() {
            self.closing = true;
            return Some(Task::Whole);
        }
        while self.next < self.order.len() && self.rows[self.order[self.next] as usize].is_some() {
            self.next += 1;
        }
        if let Some(&position) = self.order.get(self.next) {
            self.next += 1;
            return Some(Task::Point(position));
        }
        let rows: Option<Vec<Row>> = self.rows.iter().cloned().collect();
        let rows = rows?;
        self.closing = true;
        Some(Task::Finish(rows))
    }

    /// The row of the point at `position` arrived; false if it is not one the run waits for.
    pub fn arrived(&mut self, position: u32, row: Row) -> bool {
        match self.rows.get_mut(position as usize) {
            Some(slot @ None) => {
                *slot = Some(row);
                true
            }
            _ => false,
        }
    }

    /// Rows in so far.
    pub fn done(&self) -> u32 {
        self.rows.iter().filter(|r| r.is_some()).count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::experiments::high_order_alloc as hoa;
    use skblab_core::Cell;

    /// Runs `sweep` with `k` workers that finish their tasks in a scrambled order; returns the
    /// finished rows as the page assembles them.
    fn drive(mut sweep: Sweep, k: usize, compute: impl Fn(u32) -> Row) -> Vec<Row> {
        let mut busy: Vec<Task> = Vec::new();
        let mut turn = 0usize;
        loop {
            while busy.len() < k {
                match sweep.next_task() {
                    Some(t) => busy.push(t),
                    None => break,
                }
            }
            assert!(!busy.is_empty(), "stuck: nothing runs and nothing can start");
            turn += 1;
            let task = busy.remove((turn * 7) % busy.len());
            match task {
                Task::Point(p) => assert!(sweep.arrived(p, compute(p)), "point {p} computed twice"),
                Task::Finish(rows) => return rows,
                Task::Whole => panic!("not a one-point run"),
            }
        }
    }

    #[test]
    fn any_worker_count_gives_the_rows_in_order() {
        let row = |p: u32| vec![Cell::Int(i64::from(p))];
        for k in 1..=8 {
            let rows = drive(Sweep::new(30), k, row);
            assert_eq!(rows, (0..30).map(row).collect::<Vec<_>>(), "{k} workers");
        }
        // A first row that came with the request is not handed out again.
        let mut s = Sweep::new(3);
        assert!(s.arrived(0, row(0)));
        assert!(!s.arrived(0, row(0)), "a row arrives once");
        assert_eq!(s.available(), 2);
        assert_eq!(drive(s, 2, row), (0..3).map(row).collect::<Vec<_>>());
    }

    #[test]
    fn the_heaviest_points_go_first_and_the_rows_stay_in_order() {
        let row = |p: u32| vec![Cell::Int(i64::from(p))];
        let work: Vec<Option<u64>> = [3, 9, 1, 9, 5].map(Some).to_vec();
        let mut s = Sweep::heaviest_first(&work);
        assert!(s.arrived(3, row(3)), "a row that came with the request");
        let handed: Vec<Task> = std::iter::from_fn(|| s.next_task()).take(4).collect();
        assert_eq!(handed, [1, 4, 0, 2].map(Task::Point).to_vec(), "9 (3 is in), 5, 3, 1");
        for k in 1..=8 {
            assert_eq!(drive(Sweep::heaviest_first(&work), k, row), (0..5).map(row).collect::<Vec<_>>(), "{k} workers");
        }
        // One point without an estimate: point order.
        let mut s = Sweep::heaviest_first(&[Some(1), None, Some(7)]);
        assert_eq!(s.next_task(), Some(Task::Point(0)));
    }

    #[test]
    fn a_one_point_run_is_one_whole_task() {
        let mut s = Sweep::new(1);
        assert_eq!(s.available(), 1);
        assert_eq!(s.next_task(), Some(Task::Whole));
        assert_eq!((s.next_task(), s.available()), (None, 0));
    }

    /// The pool's plan with real points: core's run, bit for bit, on 1, 2 and 5 workers.
    #[test]
    fn the_pool_plan_gives_core_run_on_any_worker_count() {
        let e = skblab_core::find(hoa::ID).unwrap();
        let settings: Vec<String> =
            ["max_threads=4", "measure_us=200", "warmup_us=100", "profile_threads=2"].map(String::from).to_vec();
        let params = e.params_from(&settings).unwrap();
        let points = e.points(&params);
        let expected = e.run(&params, 3);
        for k in [1, 2, 5] {
            let rows = drive(Sweep::new(points.len()), k, |p| e.run_point(&params, &points[p as usize], 3));
            assert_eq!(e.finish(&params, 3, rows), expected, "{k} workers");
        }
    }

    #[test]
    fn estimates_and_etas() {
        let e = skblab_core::find(hoa::ID).unwrap();
        let w = WorkEstimate::new(30, 30_000_000);
        // At the experiment's own speed, as the CLI converts: 5 s native at 6 M events/s.
        let events_s = 30e6 / e.events_per_s();
        let ms = |parallel: f64| (events_s / parallel + WorkEstimate::OVERHEAD_S) / WASM_SPEED * 1000.0;
        assert!((e.native_seconds(&w) - events_s - WorkEstimate::OVERHEAD_S).abs() < 1e-9);
        assert!((estimate_ms(e, &w, 2) - ms(2.0)).abs() < 1e-6);
        assert!((estimate_ms(e, &w, 64) - ms(30.0)).abs() < 1e-6, "at most one worker per point");
        assert_eq!(eta_ms(1000.0, 400.0, 0, 10), 600.0);
        assert_eq!(eta_ms(1000.0, 400.0, 2, 10), 1600.0);
        assert_eq!(eta_text(1600.0), "about 2 s left");
        assert_eq!(eta_text(200_000.0), "about 4 min left");
        assert_eq!(eta_text(4.6 * 3_600_000.0), "about 4.6 h left", "hours, as the estimate says them");
        assert_eq!(duration_text(4.6 * 3_600_000.0), "4.6 h");
        assert_eq!((points_text(1), points_text(30)), ("1 point".to_string(), "30 points".to_string()));
        assert_eq!(duration_text(45_000.0), "45 s");
        assert_eq!(duration_text(600_000.0), "10 min");
    }
}
