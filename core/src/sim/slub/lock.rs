//! [`SerialLock`]: a lock held over known intervals, the bridge from a world's timing to a
//! [`QSpinLock`]. SLUB takes `list_lock` and zone->lock through it.
//!
//! Why: a world computes each piece of work at its start time, so a lock is held
//! over a known interval. [`SerialLock`] turns that into [`QSpinLock`] calls: a CPU that asks
//! while the previous holder's interval has not ended queues behind it (a contention, with
//! the handoff's line transfer), otherwise it takes the lock at once.

use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::qspinlock::{Acquire, QSpinLock};

/// A lock held over known intervals (see the module doc): the lock's word and its
/// /proc/lock_stat counters live in the [`QSpinLock`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SerialLock {
    /// When the current holder releases it (0: free).
    release_at: u64,
    held: bool,
}

impl SerialLock {
    /// `cpu` asks for `lock` at `now_ns` and holds it `hold_ns` once it has it. Returns (wait
    /// until granted incl. the line transfer, the time it is granted).
    pub fn hold(
        &mut self,
        lock: &mut QSpinLock,
        m: &MachineProfile,
        cpu: CpuId,
        now_ns: u64,
        hold_ns: u64,
    ) -> (u64, u64) {
        if self.held && self.release_at <= now_ns {
            lock.unlock(m, self.release_at);
            self.held = false;
        }
        let granted = match lock.lock(m, now_ns, u32::from(cpu), cpu) {
            Acquire::Taken { cost_ns } => now_ns + cost_ns,
            Acquire::Queued => {
                // The holder releases at `release_at`; we are the only waiter.
                let (_, at) = lock.unlock(m, self.release_at).expect("bug: queued behind nobody");
                at
            }
        };
        self.release_at = granted + hold_ns;
        self.held = true;
        (granted - now_ns, granted)
    }

    /// The holder keeps the lock until `release_at` (no earlier than asked): a nested lock
    /// taken inside the section made its hold longer than the caller knew when it asked
    /// (SLAB's alien-cache lock around the remote node's `list_lock`).
    pub fn extend_to(&mut self, release_at: u64) {
        debug_assert!(self.held, "bug: extending a lock nobody holds");
        self.release_at = self.release_at.max(release_at);
    }
}
