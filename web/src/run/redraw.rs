//! When the page redraws after the run store changed: [`Changed`] says which topics of
//! [`crate::store`] changed; a streamed change (a run's next row, a band's next sample) redraws
//! at most every [`STREAM_REDRAW_MS`], anything else at once (with what was held back).

use super::now_ms;
use crate::store::{self, Topic};
use std::cell::RefCell;

/// Which shared states changed (notified once the client is no longer borrowed).
#[derive(Default, Clone, Copy)]
pub struct Changed {
    /// The topics, a bit each (`1 << topic as u8`).
    topics: u8,
    /// Only streamed results changed (a run's next row, a band's next sample): the redraw may
    /// wait up to [`STREAM_REDRAW_MS`] (see [`Changed::notify`]).
    streamed: bool,
}

/// Streamed results redraw the page at most this often. Redrawing the charts after every row
/// kept the main thread busy for about as long as the sweep ran (1.06 s of tasks in a 1.08 s
/// sweep on 2 workers, CDP `Performance.getMetrics`), on the cores the workers compute on.
const STREAM_REDRAW_MS: f64 = 500.0;

/// The streamed redraws held back, and when the page last redrew.
#[derive(Default)]
struct Redraw {
    last_ms: f64,
    pending: Changed,
    timer: bool,
}

thread_local! {
    static REDRAW: RefCell<Redraw> = RefCell::default();
}

impl std::ops::BitOrAssign for Changed {
    /// What either changed (streamed only if every change was).
    fn bitor_assign(&mut self, more: Changed) {
        self.streamed = match (self.any(), more.any()) {
            (false, _) => more.streamed,
            (_, false) => self.streamed,
            _ => self.streamed && more.streamed,
        };
        self.topics |= more.topics;
    }
}

impl Changed {
    /// `topic` changed.
    pub fn of(topic: Topic) -> Changed {
        Changed { topics: 1 << topic as u8, streamed: false }
    }

    fn any(self) -> bool {
        self.topics != 0
    }

    /// The same change, marked as streamed (its redraw may wait).
    pub fn streamed(mut self) -> Changed {
        self.streamed = true;
        self
    }

    /// Redraws what changed: at once, with any streamed redraw held back; a streamed change
    /// within [`STREAM_REDRAW_MS`] of the last redraw waits for a timer instead.
    pub(super) fn notify(self) {
        if !self.any() {
            return;
        }
        let now = now_ms();
        let due = REDRAW.with(|r| {
            let mut r = r.borrow_mut();
            if self.streamed && now - r.last_ms < STREAM_REDRAW_MS {
                r.pending |= self;
                if !r.timer {
                    r.timer = true;
                    let wait = (r.last_ms + STREAM_REDRAW_MS - now).max(0.0);
                    yew::platform::spawn_local(async move {
                        yew::platform::time::sleep(std::time::Duration::from_micros((wait * 1000.0) as u64)).await;
                        let held = REDRAW.with(|r| {
                            let mut r = r.borrow_mut();
                            r.timer = false;
                            std::mem::take(&mut r.pending)
                        });
                        held.now();
                    });
                }
                return None;
            }
            let mut all = std::mem::take(&mut r.pending);
            all |= self;
            Some(all)
        });
        if let Some(all) = due {
            all.now();
        }
    }

    /// Redraws every subscriber of what changed, now.
    fn now(self) {
        if !self.any() {
            return;
        }
        REDRAW.with(|r| r.borrow_mut().last_ms = now_ms());
        for topic in Topic::ALL.into_iter().filter(|t| self.topics & (1 << *t as u8) != 0) {
            store::notify(topic);
        }
    }
}
