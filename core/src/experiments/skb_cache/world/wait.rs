//! Waiting in the tcp_rr world: a CPU with nothing to run idles, and leaves its idle state
//! when a device interrupt or a wakeup reaches it; a thread with no ready socket sleeps in
//! `epoll_wait` and is woken by the receive softirq.
//!
//! What Linux 5.2 does (kernel/sched/core.c, fair.c, idle.c; fs/eventpoll.c; net/core/sock.c
//! as of v5.2): the softirq's `tcp_data_ready` calls `sk->sk_data_ready`,
//! `sock_def_readable`, which wakes the socket's wait queue with
//! `wake_up_interruptible_sync_poll`; epoll's entry on that queue is `ep_poll_callback`,
//! which (since a218cc491420, v5.1, under `read_lock_irqsave(&ep->lock)`) links the item on
//! the ready list `rdllist` unless it is linked already, and wakes `ep->wq` only if a
//! thread sleeps there. A thread that is still returning events or running
//! recvmsg/sendmsg is not asleep, so its next `epoll_wait` (`ep_poll`) finds the list non
//! empty and returns without sleeping: one syscall for every socket that became ready since.
//! The wakeup is `try_to_wake_up`; the world pins each thread to a CPU (our ASSUMPTION:
//! neper pins only with `-U`, off by default), so `select_task_rq` returns the thread's CPU (`sim::sched::Choice::Pinned`). 5.2's `ttwu_queue` takes the remote
//! runqueue's lock within the LLC and queues on its wake list (`ttwu_queue_remote`) across
//! LLCs; either way an idle CPU whose idle task polls its flags (intel_idle's MWAIT
//! monitors them: `mwait_idle_with_hints` sets `TIF_POLLING_NRFLAG`) is woken by the
//! store, with no IPI, and otherwise by the reschedule IPI. Either way it then leaves the
//! C-state the cpuidle governor chose, and runs `schedule()` to the woken thread.
//!
//! What the world charges: half of `wakeup_cycles` on the waker (`try_to_wake_up`), half on
//! the wakee's CPU when the thread runs (`schedule()`), as [`crate::sim::sched`] splits it;
//! the idle CPU's exit as [`WakeCosts::exit_ns`] (a shallow state's `wake_latency_ns`, or
//! `idle_exit_ns` after [`crate::sim::sched::DEEP_RESIDENCY_NS`] of idle), during which
//! the CPU is neither busy nor taking new work. A NIC interrupt to an idle CPU pays the same
//! exit (no IPI). ASSUMPTIONS (ours): the governor's choice follows the idle period the CPU
//! actually gets; the IPI's delivery, when there is one, is inside `wake_latency_ns`.

use super::{Ev, Sim};
use crate::sim::machine::CpuId;
use crate::sim::sched::WakeCosts;
use serde::Serialize;

/// What waiting did in the window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WaitStats {
    /// `try_to_wake_up` of a thread asleep in `epoll_wait`.
    pub thread_wakeups: u64,
    /// Batches `epoll_wait` returned, and the ready sockets in them (simulated).
    pub epoll_waits: u64,
    pub epoll_events: u64,
    /// CPUs that left their idle state (an interrupt or a wakeup), and the exits' time.
    pub idle_exits: u64,
    pub idle_exit_ns: u64,
    /// CPU time idle, exits included, summed over CPUs.
    pub idle_ns: u64,
}

/// Per CPU and thread: what the waiting needs to remember.
#[derive(Debug, Clone)]
pub struct Waiting {
    pub costs: WakeCosts,
    /// Per CPU: when it went idle.
    idle_since: Vec<u64>,
    /// Per thread: woken from its sleep and not yet run (its CPU owes `schedule()`).
    woken: Vec<bool>,
}

impl Waiting {
    pub fn new(costs: WakeCosts, n_cpus: usize, threads: usize) -> Waiting {
        Waiting { costs, idle_since: vec![0; n_cpus], woken: vec![false; threads] }
    }
}

impl Sim {
    /// `cpu` has nothing to run at `t`: it idles.
    pub(super) fn go_idle(&mut self, cpu: CpuId, t: u64) {
        let c = cpu as usize;
        self.idle[c] = true;
        self.running[c] = None;
        self.softirq_since[c] = None;
        self.wait.idle_since[c] = t;
    }

    /// Work for `cpu` at `t` (an interrupt, or a thread woken there): an idle CPU leaves its
    /// idle state first and starts after the exit.
    pub(super) fn kick(&mut self, cpu: CpuId, t: u64) {
        let c = cpu as usize;
        if !self.idle[c] {
            return;
        }
        self.idle[c] = false;
        let since = self.wait.idle_since[c];
        let exit = self.wait.costs.exit_ns(t.saturating_sub(since) as f64).round() as u64;
        if self.run_state.measuring() {
            let from = since.max(self.run_state.window().warmup_ns);
            self.res.wait.idle_ns += (t + exit).saturating_sub(from);
            self.res.wait.idle_exits += 1;
            self.res.wait.idle_exit_ns += exit;
        }
        self.q.schedule(t + exit, Ev::Cpu(cpu));
    }

    /// The softirq wakes thread `th` asleep in `epoll_wait` (`try_to_wake_up`, its half of
    /// `wakeup_cycles`, on the waker's CPU); the thread's CPU owes the other half.
    pub(super) fn wake_thread(&mut self, th: u32) -> u64 {
        self.wait.woken[th as usize] = true;
        if self.run_state.measuring() {
            self.res.wait.thread_wakeups += 1;
        }
        let ns = self.wait.costs.ttwu_ns.round() as u64;
        self.add(super::Stack::Wakeup, ns)
    }

    /// Thread `th` starts a batch of `events` ready sockets on `cpu`: the `schedule()` it owes
    /// if it was woken (ns), and the batch counted.
    pub(super) fn batch_start(&mut self, th: u32, events: u64, switched: bool) -> u64 {
        if self.run_state.measuring() {
            self.res.wait.epoll_waits += 1;
            self.res.wait.epoll_events += events;
        }
        let woken = std::mem::take(&mut self.wait.woken[th as usize]);
        if !woken || switched {
            // A switch between two threads of the CPU is charged as such.
            return 0;
        }
        let ns = self.wait.costs.schedule_ns.round() as u64;
        self.add(super::Stack::Schedule, ns)
    }

    /// Idle time of the CPUs idle at the window's end.
    pub(super) fn close_idle(&mut self, end: u64) {
        let start = self.run_state.window().warmup_ns;
        for c in 0..self.idle.len() {
            if self.idle[c] {
                self.res.wait.idle_ns += end.saturating_sub(self.wait.idle_since[c].max(start));
            }
        }
    }
}
