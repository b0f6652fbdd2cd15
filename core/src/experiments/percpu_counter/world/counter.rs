//! The three counters' update paths: one locked RMW on the shared line (`atomic`), an
//! unlocked per-CPU add with a fold into `fbc->count` under `fbc->lock` past the batch
//! (`percpu_counter`), or a per-CPU reserve moved to the atomic past ±reserve
//! (`pcpu_reserve`); the limit compare of the raise path, the cost of cold lines, and the
//! time each call charges to the profile.

use super::{Event, Hop, Pending, World, COLD_LINES_ADD, COLD_LINES_COMPARE, COLD_LINES_RESERVE, HOPS_KEPT};
use crate::experiments::percpu_counter::chains::{Path, Stack};
use crate::experiments::percpu_counter::Counter;
use crate::sim::qspinlock::Acquire;

impl World {
    fn charge(&mut self, path: Path, stack: Stack, ns: u64) {
        self.profile.add(path.command(), stack, ns);
        match path {
            Path::Raise => self.stats.raise_ns += ns,
            Path::Reduce => self.stats.reduce_ns += ns,
        }
    }

    fn note_error(&mut self) {
        self.stats.max_error_pages = self.stats.max_error_pages.max(self.sum_local_pages.abs());
    }

    /// The CPU is done at `end_ns`: its next event, and whatever arrived while it was busy.
    fn done(&mut self, cpu: u32, end_ns: u64, next: Option<(Event, u64)>) {
        let c = cpu as usize;
        self.busy_until_ns[c] = end_ns;
        self.last_acct_ns[c] = Some(end_ns);
        if let Some((ev, delay)) = next {
            self.q.schedule(end_ns + delay, ev);
        }
        for ev in std::mem::take(&mut self.deferred[c]) {
            self.q.schedule(end_ns, ev);
        }
    }

    /// What `lines` private lines cost `cpu` at `at_ns`: nothing if it ran an accounting call
    /// less than `l2_residency_ns` ago, an L3 hit each otherwise (the rest of the server's
    /// work has evicted them from L1/L2 since).
    fn cold_ns(&self, cpu: u32, at_ns: u64, lines: u64) -> u64 {
        let m = &self.cfg.machine;
        match self.last_acct_ns[cpu as usize] {
            Some(last) if at_ns.saturating_sub(last) <= self.cfg.costs.l2_residency_ns => 0,
            _ => lines * m.line_llc_ns,
        }
    }

    /// A locked RMW of `delta` on the shared line; its total cost.
    fn shared_rmw(&mut self, cpu: u32, at_ns: u64, delta: i64, path: Path) -> u64 {
        let id = self.cfg.cpu_ids[cpu as usize];
        let from = self.line.owner();
        let r = self.line.rmw(&self.cfg.machine, self.cfg.costs.l2_residency_ns, id, at_ns, self.cfg.costs.atomic_ns);
        self.shared_pages += delta;
        self.stats.shared_rmws += 1;
        if r.wait_ns > 0 {
            self.stats.shared_contended += 1;
        }
        if self.hops.len() < HOPS_KEPT && at_ns >= self.tick_ns() {
            self.hops.push(Hop { at_ns, cpu: id, from, wait_ns: r.wait_ns, work_ns: r.work_ns, path });
        }
        r.total_ns()
    }

    /// One `sk_memory_allocated_{add,sub}` of `delta` pages by `cpu`, then `next`.
    pub(super) fn update(&mut self, cpu: u32, delta: i64, path: Path, next: Option<(Event, u64)>) {
        let t = self.now_ns;
        let c = cpu as usize;
        self.note_true(delta);
        match self.cfg.counter {
            Counter::Atomic => {
                let ns = self.shared_rmw(cpu, t, delta, path);
                // atomic_long_add_return: the check reads the value this RMW made.
                self.check_limit(t, path);
                self.charge(path, path.inline(), ns);
                self.done(cpu, t + ns, next);
            }
            Counter::PcpuReserve => {
                let mut ns = self.cfg.costs.local_op_ns + self.cold_ns(cpu, t, COLD_LINES_RESERVE);
                self.local_pages[c] += delta;
                self.sum_local_pages += delta;
                let local = self.local_pages[c];
                if local >= self.cfg.reserve_pages || local <= -self.cfg.reserve_pages {
                    self.local_pages[c] = 0;
                    self.sum_local_pages -= local;
                    ns += self.shared_rmw(cpu, t + ns, local, path);
                }
                self.note_error();
                self.check_limit(t, path);
                if path == Path::Raise {
                    let id = self.cfg.cpu_ids[c];
                    ns += self.line.read(
                        &self.cfg.machine,
                        self.cfg.costs.l2_residency_ns,
                        id,
                        t + ns,
                        &mut self.seen[c],
                    );
                }
                self.charge(path, path.inline(), ns);
                self.done(cpu, t + ns, next);
            }
            Counter::PercpuCounter => {
                // fbc->counters sits in struct percpu_counter's line with the lock and
                // fbc->count: a fold by another CPU since this CPU's last look makes it a miss.
                let id = self.cfg.cpu_ids[c];
                let call = self.cfg.costs.percpu_call_ns
                    + self.cold_ns(cpu, t, COLD_LINES_ADD)
                    + self.line.read(&self.cfg.machine, self.cfg.costs.l2_residency_ns, id, t, &mut self.seen[c]);
                self.charge(path, path.add(), call);
                let count = self.local_pages[c] + delta;
                if count.abs() < self.cfg.batch {
                    self.local_pages[c] = count;
                    self.sum_local_pages += delta;
                    self.note_error();
                    self.check_limit(t, path);
                    let end = self.compare(cpu, t + call, path);
                    self.done(cpu, end, next);
                    return;
                }
                self.pending[c] = Some(Pending { delta, path, charged_ns: t, since_ns: t + call, next });
                self.q.schedule(t + call, Event::FoldLock { cpu });
            }
        }
    }

    /// `__percpu_counter_compare()` on the raise path: reads `fbc->count`. Returns when the
    /// CPU is done.
    fn compare(&mut self, cpu: u32, at_ns: u64, path: Path) -> u64 {
        if path != Path::Raise {
            return at_ns;
        }
        let c = cpu as usize;
        let id = self.cfg.cpu_ids[c];
        // Cold only if the add before it was (it ran just now otherwise).
        let cold = if self.cold_ns(cpu, at_ns, 1) > 0 { COLD_LINES_COMPARE * self.cfg.machine.line_llc_ns } else { 0 };
        let ns = self.cfg.costs.percpu_call_ns
            + cold
            + self.line.read(&self.cfg.machine, self.cfg.costs.l2_residency_ns, id, at_ns, &mut self.seen[c]);
        self.charge(path, Stack::RaiseCompare, ns);
        at_ns + ns
    }

    /// `cpu` owns `fbc->lock` from `at_ns`: fold its delta into `fbc->count`.
    fn fold_granted(&mut self, cpu: u32, at_ns: u64) {
        let c = cpu as usize;
        let p = self.pending[c].take().expect("bug: a fold granted to a CPU with none pending");
        let local = self.local_pages[c];
        self.shared_pages += local + p.delta;
        self.sum_local_pages -= local;
        self.local_pages[c] = 0;
        self.note_error();
        // fbc->count shares the lock's line, which this CPU now owns.
        self.line.store(self.cfg.cpu_ids[c], at_ns);
        self.stats.folds += 1;
        self.check_limit(p.charged_ns, p.path);
        let hold = self.cfg.costs.fold_hold_ns;
        self.charge(p.path, p.path.fold(), hold);
        let release = at_ns + hold;
        self.q.schedule(release, Event::FoldRelease { cpu });
        let end = self.compare(cpu, release, p.path);
        self.done(cpu, end, p.next);
    }

    pub(super) fn fold_lock(&mut self, cpu: u32) {
        let (t, id) = (self.now_ns, self.cfg.cpu_ids[cpu as usize]);
        let path = self.pending[cpu as usize].expect("bug: a lock request with no fold pending").path;
        match self.lock.lock(&self.cfg.machine, t, cpu, id) {
            Acquire::Taken { cost_ns } => {
                self.charge(path, path.fold(), cost_ns);
                self.fold_granted(cpu, t + cost_ns);
            }
            Acquire::Queued => self.stats.lock_contentions += 1,
        }
    }

    pub(super) fn fold_release(&mut self, _cpu: u32) {
        if let Some((w, at)) = self.lock.unlock(&self.cfg.machine, self.now_ns) {
            let p = self.pending[w.thread as usize].expect("bug: a lock waiter with no fold pending");
            self.charge(p.path, p.path.fold_spin(), at - p.since_ns);
            self.fold_granted(w.thread, at);
        }
    }
}
