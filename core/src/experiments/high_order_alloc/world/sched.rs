//! The scheduler glue of the TCP_STREAM world: a syscall's end, sleeping, waking, which
//! thread runs on a CPU, and how long each CPU has nothing to run. Threads stay on their CPU;
//! a CPU with several threads serves them in FIFO order, one syscall at a time.
//!
//! Waiting ([`Waiting`], on when `StreamConfig::waiting` is set: the machine comparison): a
//! wakeup whose wakee's CPU is another one and idle costs the waker the IPI's send and the
//! wakee that CPU's exit from idle before it runs (`sim::sched::wake`: the wakee's CPU as
//! `select_task_rq_fair` would see it, here always the thread's own, since placement is
//! fixed; the exit by how long the CPU has been idle, `WakeCosts::exit_ns`, counted from
//! the start of the send, so the wakee runs that long after the waker began it). What Linux
//! does (6.x; net/core/stream.c read at torvalds/linux 03c11eb3b16d, a 6.x tree: its
//! `sk_stream_wait_memory` draws `get_random_u32_below`, 6.2+): the reader of an empty
//! receive queue sleeps in `sk_wait_data`
//! (`tcp_recvmsg_locked`, net/ipv4/tcp.c: fewer bytes copied than `sock_rcvlowat`'s
//! target, 1 byte at the default SO_RCVLOWAT) and is woken by the segment's
//! `tcp_data_ready` → `sk->sk_data_ready` = `sock_def_readable`, a sync wakeup
//! (`wake_up_interruptible_sync_poll`, net/core/sock.c), run in the receive softirq on the
//! sender's CPU (loopback). The sender of a full send buffer sleeps in
//! `sk_stream_wait_memory` (net/core/stream.c) and is woken by the ACK's `tcp_check_space`
//! → `tcp_new_space` → `sk_stream_write_space`, which wakes (not sync:
//! `wake_up_interruptible_poll`) only once `sk_stream_wspace(sk) >=
//! sk_stream_min_wspace(sk)`: free space `sk_sndbuf - sk_wmem_queued` of at least half of
//! what is queued (include/net/sock.h), so once a third of the buffer is free
//! ([`StreamSim::write_space`]).
//!
//! What we simplify: the IPI is charged only to a wakeup of an idle CPU (a busy wakee's CPU
//! takes the task on its run queue; its reschedule IPI, if any, is not counted), and the
//! wakee never moves to the waker's CPU (Linux would move it when its own CPU is busy and
//! the waker's is not).

use super::*;
use crate::sim::catalogue::KernelCosts;
use crate::sim::sched::{CpuView, WakeCosts, Wakeup};

/// What a wakeup of a task on another, idle CPU costs: `sim::sched`'s costs, of which the
/// world reads the IPI's send and the exits (it charges the instructions of `try_to_wake_up`
/// and `schedule()` itself, from `wakeup_cycles`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Waiting {
    pub costs: WakeCosts,
}

impl Waiting {
    /// The catalogue's costs of `k` at `mhz` (`WakeCosts::from_kernel`).
    pub fn from_kernel(k: &KernelCosts, mhz: u64) -> Waiting {
        Waiting { costs: WakeCosts::from_kernel(k, mhz) }
    }
}

impl StreamSim {
    /// End of a syscall: start the next one, or let the next thread of this CPU run.
    pub(super) fn end_op(&mut self, t: ThreadId) -> bool {
        if self.threads[t as usize].role == Role::Netperf && self.process_backlog(t) {
            return true;
        }
        let th = &mut self.threads[t as usize];
        let begin = if th.role == Role::Netperf { Action::BeginSend } else { Action::BeginRecv };
        th.prog.push(begin);
        let cpu = th.cpu as usize;
        let Some(next) = self.cpus[cpu].runq.pop_front() else { return true };
        self.threads[t as usize].state = ThreadState::Runnable;
        self.cpus[cpu].runq.push_back(t);
        self.start_on_cpu(next);
        false
    }

    /// Sleeps until woken; `resume_with` runs first when it is. A CPU left with nothing to
    /// run goes idle.
    pub(super) fn block(&mut self, t: ThreadId, resume_with: Action) {
        let th = &mut self.threads[t as usize];
        th.prog.push(resume_with);
        th.state = ThreadState::Blocked;
        let cpu = th.cpu as usize;
        self.cpus[cpu].owner = None;
        if let Some(next) = self.cpus[cpu].runq.pop_front() {
            self.start_on_cpu(next);
        } else {
            self.cpus[cpu].idle_since_ns = Some(self.now_ns);
        }
    }

    fn start_on_cpu(&mut self, t: ThreadId) {
        let now = self.now_ns;
        let th = &mut self.threads[t as usize];
        self.cpus[th.cpu as usize].owner = Some(t);
        th.state = ThreadState::Running;
        th.cursor_ns = th.cursor_ns.max(now);
        th.prog.push(Action::Work { cycles: self.cfg.machine.wakeup_cycles / 2, stack: Stack::Schedule });
        self.queue.schedule(now, Event::Resume { thread: t });
    }

    pub(super) fn wake(&mut self, t: ThreadId) {
        self.threads[t as usize].state = ThreadState::Runnable;
        self.claim_cpu(t, self.now_ns);
    }

    /// Runs `t` on its CPU at `at_ns` if the CPU is free (its idle period ends then), else
    /// queues it there.
    pub(super) fn claim_cpu(&mut self, t: ThreadId, at_ns: u64) {
        let cpu = self.threads[t as usize].cpu as usize;
        if self.cpus[cpu].owner.is_none() {
            self.cpus[cpu].owner = Some(t);
            let th = &mut self.threads[t as usize];
            th.cursor_ns = th.cursor_ns.max(at_ns);
            let at = th.cursor_ns;
            self.queue.schedule(at, Event::Resume { thread: t });
            self.idle_ends(cpu, at);
        } else {
            self.cpus[cpu].runq.push_back(t);
        }
    }

    /// `cpu`'s idle period (if any) ends at `at_ns`: its overlap with the measurement window
    /// counts.
    fn idle_ends(&mut self, cpu: usize, at_ns: u64) {
        if let Some(since) = self.cpus[cpu].idle_since_ns.take() {
            self.cpus[cpu].idle_ns += self.in_window(since, at_ns);
        }
    }

    /// The part of `[from, to)` inside the measurement window, ns.
    fn in_window(&self, from: u64, to: u64) -> u64 {
        let (start, end) = (self.cfg.warmup_ns(), self.cfg.warmup_ns() + self.cfg.measure_ns());
        to.min(end).saturating_sub(from.max(start))
    }

    /// Each CPU's idle share of the measurement window (0..=1), in CPU order: what
    /// `perf record -a` samples in the idle task (`do_idle`) would show per CPU.
    pub fn idle_shares(&self) -> Vec<f64> {
        let end = self.cfg.warmup_ns() + self.cfg.measure_ns();
        let window = self.cfg.measure_ns().max(1) as f64;
        self.cpus
            .iter()
            .map(|c| {
                let open = c.idle_since_ns.map_or(0, |s| self.in_window(s, end));
                (c.idle_ns + open) as f64 / window
            })
            .collect()
    }

    /// Wakeup IPIs sent to an idle CPU in the measurement window (0 without waiting).
    pub fn wakeup_ipis(&self) -> u64 {
        self.ipis
    }

    /// The idle share of the CPUs the threads run on, together (0..=1).
    pub fn idle_share_of_used(&self) -> f64 {
        let shares = self.idle_shares();
        let mut used: Vec<usize> = self.threads.iter().map(|t| t.cpu as usize).collect();
        used.sort_unstable();
        used.dedup();
        used.iter().map(|&c| shares[c]).sum::<f64>() / used.len().max(1) as f64
    }

    /// Whether an ACK that leaves `queued` bytes in flight wakes a sender sleeping for space:
    /// with waiting, `sk_stream_write_space`'s rule (free space at least half of what is
    /// queued, and below the buffer); without it, half of the buffer free (the seed runs).
    pub(super) fn write_space(&self, queued: u64) -> bool {
        let sndbuf = u64::from(self.cfg.input.sndbuf_bytes);
        if self.cfg.waiting.is_some() {
            queued < sndbuf && sndbuf - queued >= queued >> 1
        } else {
            queued <= sndbuf / 2
        }
    }

    /// `t` wakes `sleeper` with waiting (`try_to_wake_up`; `sync` as the caller's wake-up
    /// says): an idle CPU of the sleeper's other than `t`'s gets the IPI (charged to `t`)
    /// and runs the sleeper after its exit from idle; a busy or the same CPU takes it at once.
    pub(super) fn wake_sleeper(&mut self, t: ThreadId, sleeper: ThreadId, sync: bool) {
        let Some(w) = self.cfg.waiting else { return self.wake(sleeper) };
        let to = self.threads[sleeper as usize].cpu as usize;
        let views: Vec<CpuView> = self
            .cpus
            .iter()
            .map(|c| CpuView { nr_running: u32::from(c.owner.is_some()) + c.runq.len() as u32 })
            .collect();
        let wakeup = Wakeup { waker_cpu: self.threads[t as usize].cpu as usize, prev_cpu: to, sync, allowed: vec![to] };
        let idle_for = self.cpus[to].idle_since_ns.map_or(0, |s| self.now_ns.saturating_sub(s));
        let path = crate::sim::sched::wake(&views, &wakeup, &w.costs, idle_for as f64);
        if path.from_idle {
            if self.measuring() {
                self.ipis += 1;
            }
            self.advance(t, w.costs.ipi_send_ns.max(0.0).round() as u64, Stack::Wakeup);
        }
        let at = self.threads[t as usize].cursor_ns + path.latency_ns.round() as u64;
        self.threads[sleeper as usize].state = ThreadState::Runnable;
        self.claim_cpu(sleeper, at);
    }
}
