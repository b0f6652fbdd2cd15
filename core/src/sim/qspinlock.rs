//! A queued spinlock (kernel/locking/qspinlock.c) with lock statistics.
//!
//! What Linux does: `spin_lock()` tries one atomic on the lock word; if the lock is held the
//! CPU joins an MCS queue and spins on its own node until its predecessor hands the lock over,
//! so waiters are served strictly first come, first served. Every acquisition by a CPU other
//! than the previous owner pulls the lock's cache line across (a "bounce").
//!
//! What we simplify: the lock word and the MCS handoff are one line; an uncontended acquire
//! costs one line transfer from the last owner (nothing if it is the same CPU); on release the
//! waiter that spins on the lock word (the pending bit's, or the MCS queue head) is granted the
//! lock after two transfers between the releasing CPU and it: the releasing store invalidates
//! the spinner's shared copy, then the spinner's read fetches the line back. The other waiters
//! spin on their own MCS nodes and cost nothing here. With [`QSpinLock::arrivals_in_handoff`]
//! on, a CPU that arrives while a handoff is under way delays it ([`QSpinLock::lock`]: its
//! atomics on the lock word take the line exclusive before the spinner's read is served).
//! With [`QSpinLock::claim_cmpxchg`] on, a waiter that queued behind another (the MCS queue;
//! the first waiter takes the pending bit) and finds nobody behind it when its turn comes
//! claims the lock with a locked cmpxchg, one more transfer ([`QSpinLock::unlock`]).
//! Hold and wait times are not parameters: they emerge from what the holders do and from the
//! queue.
//! Statistics follow /proc/lock_stat (CONFIG_LOCK_STAT): contentions, bounces, wait and hold.
//!
//! The event-driven idiom ([`LockEvents`], [`QSpinLock::request`], [`QSpinLock::release`]):
//! a world whose critical section must run on the state at the moment the lock is granted
//! names two events, `LockGranted` and `LockRelease`. `request` takes the lock or queues the
//! thread; either way the grant arrives as a `LockGranted` event (after the line transfer),
//! whose handler does the work under the lock and schedules `LockRelease` at the end of the
//! hold; `release` hands the lock to the next waiter with its own `LockGranted`. See
//! `crate::sim`'s module doc for when a world uses this and when [`crate::sim::slub::SerialLock`].

use super::cacheline::CacheLine;
use super::engine::EventQueue;
use super::machine::{CpuId, MachineProfile};
use serde::Serialize;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// The two events of the event-driven idiom, in a world's own event enum: `lock` names which
/// lock (e.g. the zone's node), `thread` the world's thread (or CPU) index.
pub trait LockEvents: Copy {
    /// `lock` now belongs to `thread` (its line has arrived).
    fn granted(lock: u32, thread: u32) -> Self;
    /// `thread` leaves its critical section and unlocks `lock`.
    fn release(lock: u32, thread: u32) -> Self;
}

/// Who waits: a simulated thread on a CPU, since when.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Waiter {
    pub thread: u32,
    pub cpu: CpuId,
    pub since_ns: u64,
    /// Queued behind another waiter (the MCS queue); the first waiter takes the pending bit.
    #[serde(skip)]
    pub mcs: bool,
}

/// /proc/lock_stat-style counters, all in ns and counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LockStats {
    pub acquisitions: u64,
    pub contentions: u64,
    /// Acquisitions by a CPU other than the previous owner.
    pub acq_bounces: u64,
    pub wait_ns_total: u64,
    pub wait_ns_max: u64,
    pub hold_ns_total: u64,
    pub hold_ns_max: u64,
    /// Deepest the waiter queue has been.
    pub queue_len_max: u32,
}

impl LockStats {
    /// Several locks' counters as one (a lock class over its instances, e.g. every node's
    /// zone->lock): counts and totals add, maxima take the largest.
    pub fn sum<'a>(all: impl IntoIterator<Item = &'a LockStats>) -> LockStats {
        let mut s = LockStats::default();
        for l in all {
            s.acquisitions += l.acquisitions;
            s.contentions += l.contentions;
            s.acq_bounces += l.acq_bounces;
            s.wait_ns_total += l.wait_ns_total;
            s.wait_ns_max = s.wait_ns_max.max(l.wait_ns_max);
            s.hold_ns_total += l.hold_ns_total;
            s.hold_ns_max = s.hold_ns_max.max(l.hold_ns_max);
            s.queue_len_max = s.queue_len_max.max(l.queue_len_max);
        }
        s
    }
}

/// What `lock()` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquire {
    /// Taken at once; the line transfer costs `cost_ns`.
    Taken { cost_ns: u64 },
    /// Queued behind the holder: spin until granted.
    Queued,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QSpinLock {
    pub name: &'static str,
    holder: Option<Waiter>,
    acquired_ns: u64,
    queue: VecDeque<Waiter>,
    /// The lock word's line (the MCS handoff is folded into it).
    #[serde(rename = "line_owner", serialize_with = "owner_of")]
    line: CacheLine,
    pub stats: LockStats,
    /// Whether arrivals during a handoff delay it (off: the two-transfer handoff only). A
    /// world that turns it on must look at [`QSpinLock::granted_ns`] when its grant event
    /// fires: the grant may have moved later.
    #[serde(skip)]
    pub arrivals_in_handoff: bool,
    /// The handoff under way: where the lock word's line is and what its last trip, to the
    /// new holder, costs.
    #[serde(skip)]
    handoff: Option<(CpuId, u64)>,
    /// Arrivals that took the line during a handoff (with `arrivals_in_handoff`).
    #[serde(skip)]
    pub handoff_steals: u64,
    /// Whether an MCS queue head that finds nobody queued behind it claims the lock with a
    /// locked cmpxchg that waits for the line (off: every claim is a plain store). Like
    /// `arrivals_in_handoff`, the world must look at [`QSpinLock::granted_ns`].
    #[serde(skip)]
    pub claim_cmpxchg: bool,
    /// Grants that paid the claim's cmpxchg (with `claim_cmpxchg`).
    #[serde(skip)]
    pub cmpxchg_claims: u64,
}

/// Serializes the line as its owner, as the field `line_owner` always was.
fn owner_of<S: serde::Serializer>(line: &CacheLine, s: S) -> Result<S::Ok, S::Error> {
    line.owner().serialize(s)
}

impl QSpinLock {
    pub fn new(name: &'static str) -> Self {
        QSpinLock {
            name,
            holder: None,
            acquired_ns: 0,
            queue: VecDeque::new(),
            line: CacheLine::UNTOUCHED,
            stats: LockStats::default(),
            arrivals_in_handoff: false,
            handoff: None,
            handoff_steals: 0,
            claim_cmpxchg: false,
            cmpxchg_claims: 0,
        }
    }

    /// When the holder owns the lock (its grant: the lock word's line has reached it).
    pub fn granted_ns(&self) -> u64 {
        self.acquired_ns
    }

    pub fn holder(&self) -> Option<Waiter> {
        self.holder
    }

    /// CPUs waiting, head first.
    pub fn waiting_cpus(&self) -> Vec<CpuId> {
        self.queue.iter().map(|w| w.cpu).collect()
    }

    /// The waiters, head first (for the worlds' invariant checkers).
    pub fn waiters(&self) -> impl Iterator<Item = &Waiter> + '_ {
        self.queue.iter()
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// `spin_lock()` by `thread` on `cpu` at `now_ns`.
    ///
    /// With [`QSpinLock::arrivals_in_handoff`]: in 5.2 (include/asm-generic/qspinlock.h,
    /// kernel/locking/qspinlock.c) an arrival's first act is `atomic_try_cmpxchg_acquire()` on
    /// the lock word, and a queued one's `xchg_tail()` another atomic on it; an x86 locked
    /// instruction takes the line exclusive whether or not it succeeds. If that lands while a
    /// handoff is under way, before the line's last trip to the new holder, the line visits the
    /// arrival first and the trip to the holder starts from there: the grant moves later by
    /// one transfer (model assumption: the line's requests are served in the order they
    /// reach its home; the arrival's two atomics, a few dozen ns apart, count once). An
    /// arrival during a hold costs the handoff nothing: the releasing store fetches the line
    /// from the arrival instead of invalidating the spinner's copy, one transfer either way.
    pub fn lock(&mut self, m: &MachineProfile, now_ns: u64, thread: u32, cpu: CpuId) -> Acquire {
        let me = Waiter { thread, cpu, since_ns: now_ns, mcs: !self.queue.is_empty() };
        if let Some(h) = self.holder {
            if let Some((at_cpu, last_trip)) = self.handoff.filter(|_| self.arrivals_in_handoff) {
                if now_ns + last_trip < self.acquired_ns {
                    // The line goes at_cpu → cpu → holder instead of at_cpu → holder.
                    let trip = m.transfer_ns(cpu, h.cpu);
                    let at_ns =
                        (self.acquired_ns - last_trip + m.transfer_ns(at_cpu, cpu) + trip).max(self.acquired_ns);
                    self.stats.wait_ns_total += at_ns - self.acquired_ns;
                    self.stats.wait_ns_max = self.stats.wait_ns_max.max(at_ns - h.since_ns);
                    self.acquired_ns = at_ns;
                    self.handoff = Some((cpu, trip));
                    self.handoff_steals += 1;
                }
            }
            self.queue.push_back(me);
            self.stats.contentions += 1;
            self.stats.queue_len_max = self.stats.queue_len_max.max(self.queue.len() as u32);
            return Acquire::Queued;
        }
        let bounced = self.line.owner() != Some(cpu);
        let cost_ns = self.line.handoff(m, cpu);
        self.take(me, now_ns + cost_ns, bounced);
        Acquire::Taken { cost_ns }
    }

    /// `w` owns the lock from `at_ns`; `bounced` if its line came from another CPU.
    fn take(&mut self, w: Waiter, at_ns: u64, bounced: bool) {
        if bounced {
            self.stats.acq_bounces += 1;
        }
        let wait_ns = at_ns - w.since_ns;
        self.stats.acquisitions += 1;
        self.stats.wait_ns_total += wait_ns;
        self.stats.wait_ns_max = self.stats.wait_ns_max.max(wait_ns);
        self.holder = Some(w);
        self.acquired_ns = at_ns;
    }

    /// `spin_unlock()` at `now_ns`. Returns the next waiter and when it owns the lock (after
    /// the line has moved from the releasing CPU to it).
    pub fn unlock(&mut self, m: &MachineProfile, now_ns: u64) -> Option<(Waiter, u64)> {
        let h = self.holder.take().expect("bug: unlock of a free lock");
        let hold_ns = now_ns - self.acquired_ns;
        self.stats.hold_ns_total += hold_ns;
        self.stats.hold_ns_max = self.stats.hold_ns_max.max(hold_ns);
        self.handoff = None;
        let next = self.queue.pop_front()?;
        // The waiter spins on the lock word (the pending bit's spinner or the MCS queue head:
        // qspinlock.c, queued_spin_lock_slowpath), so it holds a shared copy: the releasing
        // store first needs the line exclusive, which invalidates that copy (a round trip to
        // the spinner), then the spinner's read misses and fetches it back. Two transfers
        // between releaser and spinner, however many others queue (they spin on their own
        // MCS nodes). The line is the releasing holder's (it took it when it got the lock).
        debug_assert_eq!(self.line.owner(), Some(h.cpu));
        let bounced = h.cpu != next.cpu;
        let invalidate_ns = m.transfer_ns(h.cpu, next.cpu);
        let mut trip_ns = self.line.handoff(m, next.cpu);
        // The claim (5.2 `queued_spin_lock_slowpath`, `locked:`): an MCS queue head that is
        // also its tail (nobody queued behind it) clears the tail with
        // `atomic_try_cmpxchg_relaxed()`, a locked instruction: it waits for the line
        // exclusive, and the releaser still shares it since the spinner's read, so one more
        // transfer before the critical section. With a waiter behind, `set_locked()` is a plain
        // store and the pending waiter's `clear_pending_set_locked()` too: they retire into
        // the store buffer and cost the handoff nothing.
        if self.claim_cmpxchg && next.mcs && self.queue.is_empty() {
            trip_ns += m.transfer_ns(h.cpu, next.cpu);
            self.cmpxchg_claims += 1;
        }
        let at_ns = now_ns + invalidate_ns + trip_ns;
        self.take(next, at_ns, bounced);
        self.handoff = Some((h.cpu, trip_ns));
        Some((next, at_ns))
    }

    /// Event-driven `spin_lock()` of lock `lock` (see the module doc): taken at once, the
    /// grant is scheduled after the line transfer; queued, it comes with a `release`.
    pub fn request<E: LockEvents>(
        &mut self,
        m: &MachineProfile,
        q: &mut EventQueue<E>,
        lock: u32,
        now_ns: u64,
        thread: u32,
        cpu: CpuId,
    ) -> Acquire {
        let got = self.lock(m, now_ns, thread, cpu);
        if let Acquire::Taken { cost_ns } = got {
            q.schedule(now_ns + cost_ns, E::granted(lock, thread));
        }
        got
    }

    /// Event-driven `spin_unlock()` of lock `lock` at `now_ns`: the next waiter's grant is
    /// scheduled for when the line reaches it.
    pub fn release<E: LockEvents>(&mut self, m: &MachineProfile, q: &mut EventQueue<E>, lock: u32, now_ns: u64) {
        if let Some((next, at_ns)) = self.unlock(m, now_ns) {
            q.schedule(at_ns, E::granted(lock, next.thread));
        }
    }

    /// Queue FIFO (arrival times never decrease), holder not queued, no thread twice, the
    /// holder asked before every waiter, and the statistics within their bounds.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut last = 0;
        for (i, w) in self.queue.iter().enumerate() {
            if w.since_ns < last {
                return Err(format!("{}: queue not FIFO at position {i}", self.name));
            }
            last = w.since_ns;
            if self.holder.map(|h| h.thread) == Some(w.thread) {
                return Err(format!("{}: holder thread {} is also queued", self.name, w.thread));
            }
            if self.queue.iter().skip(i + 1).any(|o| o.thread == w.thread) {
                return Err(format!("{}: thread {} queued twice", self.name, w.thread));
            }
        }
        if self.holder.is_none() && !self.queue.is_empty() {
            return Err(format!("{}: waiters but no holder", self.name));
        }
        if let Some(h) = self.holder {
            if self.acquired_ns < h.since_ns || self.queue.front().is_some_and(|w| w.since_ns < h.since_ns) {
                return Err(format!(
                    "{}: thread {} granted before it asked, or after a later waiter",
                    self.name, h.thread
                ));
            }
        }
        // Counters within bounds (also after a world resets them at the window's start):
        // every contention is a waiter that is still queued or has been granted since.
        let s = &self.stats;
        if s.contentions > s.acquisitions + self.queue.len() as u64
            || s.wait_ns_max > s.wait_ns_total
            || s.hold_ns_max > s.hold_ns_total
            || s.acq_bounces > s.acquisitions
        {
            return Err(format!("{}: lock statistics out of bounds: {s:?}", self.name));
        }
        Ok(())
    }

    /// One line in the layout of /proc/lock_stat (times in µs, as the kernel prints them).
    pub fn lock_stat_line(&self) -> String {
        let s = &self.stats;
        let us = |ns: u64| format!("{:.2}", ns as f64 / 1000.0);
        let mut out = String::new();
        let _ = write!(
            out,
            "{:>24}: {:>10} {:>10} {:>12} {:>14} {:>10} {:>12} {:>14}",
            self.name,
            s.contentions,
            s.acq_bounces,
            us(s.wait_ns_max),
            us(s.wait_ns_total),
            s.acquisitions,
            us(s.hold_ns_max),
            us(s.hold_ns_total),
        );
        out
    }
}

/// The header of [`QSpinLock::lock_stat_line`].
pub const LOCK_STAT_HEADER: &str = "              class name  contentions acq-bounces waittime-max waittime-total acquisitions holdtime-max holdtime-total";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn fifo_handoff_costs_a_line_transfer() {
        let m = SERVER_2019;
        let mut l = QSpinLock::new("zone.lock");
        assert!(matches!(l.lock(&m, 0, 1, 0), Acquire::Taken { .. }));
        assert_eq!(l.lock(&m, 10, 2, 28), Acquire::Queued);
        assert_eq!(l.lock(&m, 20, 3, 1), Acquire::Queued);
        l.check_invariants().unwrap();
        assert_eq!(l.waiting_cpus(), vec![28, 1]);
        let (w, at) = l.unlock(&m, 100).unwrap();
        assert_eq!((w.thread, at), (2, 100 + m.line_cross_socket_ns + m.line_cross_socket_ns));
        // The last waiter too pays the invalidation and the fetch (it was spinning on the word).
        let (w, at2) = l.unlock(&m, at + 50).unwrap();
        assert_eq!((w.thread, at2), (3, at + 50 + 2 * m.line_cross_socket_ns));
        assert!(l.unlock(&m, at2 + 10).is_none());
        assert_eq!(l.stats.contentions, 2);
        assert_eq!(l.stats.acquisitions, 3);
        assert_eq!(l.stats.wait_ns_max, at2 - 20);
    }

    #[test]
    fn arrivals_during_a_handoff_delay_it_and_during_a_hold_do_not() {
        let m = SERVER_2019;
        let mesh = m.line_same_socket_ns;
        // CPU 1 holds, CPU 2 waits; CPU 1 releases at 1000: CPU 2 owns the lock at 1100.
        let run = |on: bool, arrivals: &[(u64, CpuId)]| {
            let mut l = QSpinLock::new("zone.lock");
            l.arrivals_in_handoff = on;
            l.lock(&m, 0, 1, 1);
            l.lock(&m, 10, 2, 2);
            let (_, at) = l.unlock(&m, 1000).unwrap();
            assert_eq!(at, 1000 + 2 * mesh);
            for (i, &(t, cpu)) in arrivals.iter().enumerate() {
                assert_eq!(l.lock(&m, t, 3 + i as u32, cpu), Acquire::Queued);
            }
            l.check_invariants().unwrap();
            (l.granted_ns(), l.handoff_steals)
        };
        // Off, or nobody arrives: the two-transfer handoff.
        assert_eq!(run(false, &[(1010, 3)]), (1000 + 2 * mesh, 0));
        assert_eq!(run(true, &[]), (1000 + 2 * mesh, 0));
        // One arrival before the line's last trip: the line visits it first, one more transfer.
        assert_eq!(run(true, &[(1010, 3)]), (1000 + 3 * mesh, 1));
        // Two arrivals, the second within the handoff the first made longer: two more.
        assert_eq!(run(true, &[(1010, 3), (1060, 4)]), (1000 + 4 * mesh, 2));
        // An arrival once the last trip has started, or after the grant, changes nothing.
        assert_eq!(run(true, &[(1000 + mesh, 3)]), (1000 + 2 * mesh, 0));
        assert_eq!(run(true, &[(1500, 3)]), (1000 + 2 * mesh, 0));
        // An arrival while CPU 1 holds (before its release) does not either.
        let mut l = QSpinLock::new("zone.lock");
        l.arrivals_in_handoff = true;
        l.lock(&m, 0, 1, 1);
        l.lock(&m, 10, 2, 2);
        l.lock(&m, 500, 3, 3);
        assert_eq!(l.unlock(&m, 1000).unwrap().1, 1000 + 2 * mesh);
    }

    #[test]
    fn an_mcs_head_with_nobody_behind_it_claims_with_a_cmpxchg() {
        let m = SERVER_2019;
        let mesh = m.line_same_socket_ns;
        // CPU 1 holds; `waiters` CPUs queue (2, 3, ...); returns each grant's handoff in ns.
        let run = |on: bool, waiters: u32| {
            let mut l = QSpinLock::new("zone.lock");
            l.claim_cmpxchg = on;
            l.lock(&m, 0, 1, 1);
            for w in 0..waiters {
                assert_eq!(l.lock(&m, 10 + u64::from(w), 2 + w, 2 + w as CpuId), Acquire::Queued);
            }
            let mut now = 1000;
            let mut handoffs = vec![];
            while let Some((_, at)) = l.unlock(&m, now) {
                handoffs.push(at - now);
                now = at + 100;
            }
            (handoffs, l.cmpxchg_claims)
        };
        // One CPU alone, or one waiter (the pending bit): as before.
        assert_eq!(run(true, 0), (vec![], 0));
        assert_eq!(run(true, 1), (vec![2 * mesh], 0));
        // Two waiters: the pending one claims with a plain store; the second, an MCS head
        // with nobody behind it, waits for its cmpxchg: one transfer more.
        assert_eq!(run(true, 2), (vec![2 * mesh, 3 * mesh], 1));
        assert_eq!(run(false, 2), (vec![2 * mesh, 2 * mesh], 0));
        // Three: only the last claim finds an empty queue behind it.
        assert_eq!(run(true, 3), (vec![2 * mesh, 2 * mesh, 3 * mesh], 1));
    }

    #[test]
    fn reacquire_on_same_cpu_is_free() {
        let m = SERVER_2019;
        let mut l = QSpinLock::new("zone.lock");
        l.lock(&m, 0, 1, 5);
        l.unlock(&m, 100);
        assert_eq!(l.lock(&m, 200, 1, 5), Acquire::Taken { cost_ns: 0 });
    }
}
