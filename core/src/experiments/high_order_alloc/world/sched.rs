//! The scheduler glue of the TCP_STREAM world: a syscall's end, sleeping, waking, and which
//! thread runs on a CPU. Threads stay on their CPU; a CPU with several threads serves them in
//! FIFO order, one syscall at a time.

use super::*;

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

    /// Sleeps until woken; `resume_with` runs first when it is.
    pub(super) fn block(&mut self, t: ThreadId, resume_with: Action) {
        let th = &mut self.threads[t as usize];
        th.prog.push(resume_with);
        th.state = ThreadState::Blocked;
        let cpu = th.cpu as usize;
        self.cpus[cpu].owner = None;
        if let Some(next) = self.cpus[cpu].runq.pop_front() {
            self.start_on_cpu(next);
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

    /// Runs `t` on its CPU at `at_ns` if the CPU is free, else queues it there.
    pub(super) fn claim_cpu(&mut self, t: ThreadId, at_ns: u64) {
        let cpu = self.threads[t as usize].cpu as usize;
        if self.cpus[cpu].owner.is_none() {
            self.cpus[cpu].owner = Some(t);
            let th = &mut self.threads[t as usize];
            th.cursor_ns = th.cursor_ns.max(at_ns);
            self.queue.schedule(th.cursor_ns, Event::Resume { thread: t });
        } else {
            self.cpus[cpu].runq.push_back(t);
        }
    }
}
