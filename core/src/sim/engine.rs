//! The event queue of the discrete-event engine.
//!
//! Simulated time is an integer number of nanoseconds. Events are ordered by
//! `(time, sequence)`: the sequence number is unique and grows with every `schedule`, so two
//! events at the same nanosecond run in the order they were scheduled, on every platform.
//! The heap is `std`'s `BinaryHeap`, a `Vec` underneath; with a total order on unique keys
//! its pop order is fully determined (no hashing, no addresses).

use serde::Serialize;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Index of a simulated thread (netperf or netserver).
pub type ThreadId = u32;

/// Everything that can happen. One closed enum, dispatched in one `match` (see `stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Event {
    /// The thread's work has reached a point where it touches shared state.
    Resume { thread: ThreadId },
    /// `zone->lock` of `node` now belongs to `thread` (after the line moved to its CPU).
    LockGranted { node: u32, thread: ThreadId },
    /// `thread` leaves its critical section and releases `zone->lock` of `node`.
    LockRelease { node: u32, thread: ThreadId },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scheduled {
    at_ns: u64,
    seq: u64,
    event: Event,
}

impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.at_ns, self.seq).cmp(&(other.at_ns, other.seq))
    }
}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Debug, Clone, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<Scheduled>>,
    seq: u64,
}

impl EventQueue {
    pub fn schedule(&mut self, at_ns: u64, event: Event) {
        self.seq += 1;
        self.heap.push(Reverse(Scheduled { at_ns, seq: self.seq, event }));
    }

    /// The earliest event and its time.
    pub fn pop(&mut self) -> Option<(u64, Event)> {
        self.heap.pop().map(|Reverse(s)| (s.at_ns, s.event))
    }

    pub fn peek_time_ns(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(s)| s.at_ns)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_schedule_order() {
        let mut q = EventQueue::default();
        q.schedule(10, Event::Resume { thread: 2 });
        q.schedule(5, Event::Resume { thread: 9 });
        q.schedule(10, Event::Resume { thread: 1 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (5, Event::Resume { thread: 9 }),
                (10, Event::Resume { thread: 2 }),
                (10, Event::Resume { thread: 1 })
            ]
        );
    }
}
