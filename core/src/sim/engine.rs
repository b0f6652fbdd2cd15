//! The event queue of the discrete-event engine, shared by every world.
//!
//! Simulated time is an integer number of nanoseconds. Events are ordered by
//! `(time, sequence)`: the sequence number is unique and grows with every `schedule`, so two
//! events at the same nanosecond run in the order they were scheduled, on every platform.
//! Each world owns its event type `E` (a small `Copy` enum dispatched in one `match`).
//!
//! The queue is a binary min-heap on a `Vec`, written out here rather than `std`'s
//! `BinaryHeap` (a `BTreeMap` keyed by `(time, seq)` would allocate a node per event): it
//! holds about one event per simulated thread, the engine pushes and pops once per event,
//! and `BinaryHeap::push` reads the new element back from memory right after writing it
//! (a store-forwarding stall that cost ~8 % of the whole engine), while this `schedule`
//! keeps it in registers and writes it once, at its final slot. `pop` leaves the root in
//! place as a hole that the next `schedule` fills (see `EventQueue::hole`). The key `(time, seq)` is
//! packed into one `u128` (time in the high half), so a comparison is a single integer
//! compare. Keys are unique, so the pop order is fully determined by them, whatever the heap's
//! shape (no hashing, no addresses).

/// Index of a simulated thread.
pub type ThreadId = u32;

#[derive(Debug, Clone, Copy)]
struct Scheduled<E> {
    /// `at_ns << 64 | seq`.
    key: u128,
    event: E,
}

/// Pending events of type `E`, earliest first.
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    /// A min-heap by `key`: `heap[i].key <= heap[2i+1].key, heap[2i+2].key` (`heap[0]` may be
    /// a hole, see `hole`).
    heap: Vec<Scheduled<E>>,
    seq: u64,
    /// `heap[0]` was popped but is still in place. An event handler almost always schedules
    /// one event (the thread's next `Resume`): that event then takes the root's place and
    /// sinks once, instead of a pop (root to leaf) followed by a push (leaf upwards). Only
    /// the heap's shape changes; keys are unique, so the pop order does not.
    hole: bool,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: Vec::new(), seq: 0, hole: false }
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn schedule(&mut self, at_ns: u64, event: E) {
        self.seq += 1;
        let item = Scheduled { key: (u128::from(at_ns) << 64) | u128::from(self.seq), event };
        if self.hole {
            self.hole = false;
            self.sink_from_root(item);
            return;
        }
        let i = self.heap.len();
        self.heap.push(item);
        self.sift_up(i, item);
    }

    /// The earliest event and its time.
    pub fn pop(&mut self) -> Option<(u64, E)> {
        self.fill_hole();
        let &top = self.heap.first()?;
        self.hole = true;
        Some(((top.key >> 64) as u64, top.event))
    }

    pub fn peek_time_ns(&mut self) -> Option<u64> {
        self.fill_hole();
        self.heap.first().map(|s| (s.key >> 64) as u64)
    }

    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.hole)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes the popped root for good: the last element takes its place.
    fn fill_hole(&mut self) {
        if !self.hole {
            return;
        }
        self.hole = false;
        let last = self.heap.pop().expect("bug: a hole in an empty heap");
        if !self.heap.is_empty() {
            self.sink_from_root(last);
        }
    }

    /// Puts `item` at the root and restores the heap order (Floyd's bottom-up sift: walk
    /// down to a leaf along the smaller children, the choice branch-free, then move `item` up
    /// from there; a new event is usually later than most, so it rarely climbs far).
    fn sink_from_root(&mut self, item: Scheduled<E>) {
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left + 1 >= n {
                if left < n {
                    self.heap[i] = self.heap[left];
                    i = left;
                }
                break;
            }
            let child = left + usize::from(self.heap[left + 1].key < self.heap[left].key);
            self.heap[i] = self.heap[child];
            i = child;
        }
        self.sift_up(i, item);
    }

    /// Moves `item` up from the free slot `i` until its parent is earlier, and stores it.
    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, item: Scheduled<E>) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].key <= item.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = item;
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

    #[test]
    fn pops_in_key_order_under_interleaving() {
        // Against a sorted list: pseudo-random times, pops interleaved with pushes.
        let mut q = EventQueue::default();
        let mut reference: Vec<(u64, u32)> = Vec::new();
        let mut popped = Vec::new();
        let mut x = 12345u64;
        for i in 0..2000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = (x >> 33) % 50;
            q.schedule(t, i);
            reference.push((t, i));
            if i % 3 == 0 {
                popped.push(q.pop().unwrap());
            }
        }
        while let Some(e) = q.pop() {
            popped.push(e);
        }
        assert!(q.is_empty());
        // Each pop is the minimum (time, seq) of what was pending at that moment, so
        // replaying the same pushes and pops against a sorted Vec gives the same sequence.
        let mut pending: Vec<(u64, u32)> = Vec::new();
        let mut expected = Vec::new();
        for (i, &e) in reference.iter().enumerate() {
            pending.push(e);
            if i % 3 == 0 {
                let k = (0..pending.len()).min_by_key(|&k| pending[k]).unwrap();
                expected.push(pending.remove(k));
            }
        }
        pending.sort();
        expected.extend(pending);
        assert_eq!(popped, expected);
    }
}
