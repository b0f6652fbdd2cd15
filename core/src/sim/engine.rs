//! The event queue of the discrete-event engine, shared by every world.
//!
//! Simulated time is an integer number of nanoseconds. Events are ordered by
//! `(time, sequence)`: the sequence number is unique and grows with every `schedule`, so two
//! events at the same nanosecond run in the order they were scheduled, on every platform.
//! Each world owns its event type `E` (a small `Copy` enum dispatched in one `match`).
//!
//! The queue is `std`'s `BinaryHeap` (a `Vec` underneath) rather than a `BTreeMap` keyed by
//! `(time, seq)`: the queue holds about one event per simulated thread, and the heap's
//! contiguous array beats the tree's node allocation on every push and pop, which the engine
//! does once per event. The key `(time, seq)` is packed into one `u128` (time in the high
//! half), so a comparison is a single integer compare; with unique keys the pop order is fully
//! determined (no hashing, no addresses).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Index of a simulated thread.
pub type ThreadId = u32;

#[derive(Debug, Clone, Copy)]
struct Scheduled<E> {
    /// `at_ns << 64 | seq`.
    key: u128,
    event: E,
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl<E> Eq for Scheduled<E> {}

impl<E> Ord for Scheduled<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Pending events of type `E`, earliest first.
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Scheduled<E>>>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), seq: 0 }
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn schedule(&mut self, at_ns: u64, event: E) {
        self.seq += 1;
        let key = (u128::from(at_ns) << 64) | u128::from(self.seq);
        self.heap.push(Reverse(Scheduled { key, event }));
    }

    /// The earliest event and its time.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        self.heap.pop().map(|Reverse(s)| ((s.key >> 64) as u64, s.event))
    }

    pub fn peek_time_ns(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse(s)| (s.key >> 64) as u64)
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
        q.schedule(10, 'a');
        q.schedule(5, 'b');
        q.schedule(10, 'c');
        q.schedule(u64::MAX, 'd');
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(5, 'b'), (10, 'a'), (10, 'c'), (u64::MAX, 'd')]);
    }
}
