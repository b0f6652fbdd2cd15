//! The three counters' update paths: one locked RMW on the shared line (`atomic`), an
//! unlocked per-CPU add with a fold into `fbc->count` under `fbc->lock` past the batch
//! (`percpu_counter`), or a per-CPU reserve moved to the atomic past ±reserve
//! (`pcpu_reserve`); the value the charge path reads back (the atomic's add_return, 6.0's
//! atomic, the patch's `__percpu_counter_sum` over every online CPU under `fbc->lock`), the
//! cost of lines the server's other work evicted (the capacity-based `sim::cache`, fed with
//! that work's traffic), and the time each call charges to the profile.
//!
//! The patch's read. Olof Johansson's description (quoted in seed 003's thread): "the added
//! overhead when summing up the percpu copies is still smaller than the cost of having a hot
//! cacheline bouncing around": its `sk_memory_allocated_add()` adds and then sums the copies
//! (`percpu_counter_sum_positive()`, lib/percpu_counter.c at v4.19: `__percpu_counter_sum()`
//! takes `fbc->lock` with IRQs off and adds `fbc->count` and every online CPU's s32). The
//! patch itself is not in our archive: which call sums is our ASSUMPTION, the one its words
//! and the 4.19 callers leave. Every caller of `sk_memory_allocated_add()` reads its value back
//! (`__sk_mem_raise_allocated()`, and `sk_forced_mem_schedule()` through the same inline);
//! `__sk_mem_reduce_allocated()` reads the counter only under memory pressure
//! (`sk_under_memory_pressure()`), so a reclaim only adds. Each s32 sits in its CPU's per-CPU
//! area, written by that CPU's adds: a sum pulls every line another CPU wrote since the last
//! sum read it (that CPU's cache; else the reader's L3, or the other socket's), overlapped up
//! to the core's `copy_mlp` misses in flight, and the owner's next add must take the line
//! back (an invalidation).

use super::{
    Event, Hop, Pending, World, COLD_LINES_ADD, COLD_LINES_RESERVE, COLD_LINES_SUM, HOPS_KEPT, TRAFFIC_STEP_NS,
};
use crate::experiments::percpu_counter::chains::{Path, Stack};
use crate::experiments::percpu_counter::Counter;
use crate::sim::qspinlock::Acquire;

impl World {
    /// `ns` of work starting now, to `stack`'s profile entry and the path's CPU time.
    fn charge(&mut self, path: Path, stack: Stack, ns: u64) {
        self.charge_from(path, stack, self.now_ns, ns);
    }

    /// `ns` of work starting at `start_ns`: all of it to the profile, and to the path's CPU
    /// time only the part inside the window (work begun near its end runs past it, and the
    /// CPU share is of the window's time).
    fn charge_from(&mut self, path: Path, stack: Stack, start_ns: u64, ns: u64) {
        self.profile.add(path.command(), stack, ns);
        let inside = ns.min(self.cfg.duration_ns.saturating_sub(start_ns));
        match path {
            Path::Raise => self.stats.raise_ns += inside,
            Path::Reduce => self.stats.reduce_ns += inside,
            Path::Forced => self.stats.forced_ns += inside,
        }
    }

    fn note_error(&mut self) {
        self.stats.max_error_pages = self.stats.max_error_pages.max(self.sum_local_pages.abs());
    }

    /// The CPU is done at `end_ns`: its next event, and whatever arrived while it was busy.
    fn done(&mut self, cpu: u32, end_ns: u64, next: Option<(Event, u64)>) {
        let c = cpu as usize;
        self.busy_until_ns[c] = end_ns;
        if let Some((ev, delay)) = next {
            self.q.schedule(end_ns + delay, ev);
        }
        for ev in std::mem::take(&mut self.deferred[c]) {
            self.q.schedule(end_ns, ev);
        }
    }

    /// Charges the other work's traffic up to `now_ns` to every online CPU's core (in steps of
    /// [`TRAFFIC_STEP_NS`]): `traffic_bytes_per_us` per CPU, as whole lines.
    fn advance_traffic(&mut self, now_ns: u64) {
        if now_ns < self.traffic_ns + TRAFFIC_STEP_NS {
            return;
        }
        let lines_at = |t: u64| u128::from(t) * u128::from(self.cfg.traffic_bytes_per_us) / 64_000;
        let lines = (lines_at(now_ns) - lines_at(self.traffic_ns)) as u64;
        self.traffic_ns = now_ns;
        if lines > 0 {
            for &id in &self.cfg.cpu_ids {
                self.caches.fill(id, lines);
            }
        }
    }

    /// What `cpu`'s private lines (`compare`: the sum's code lines; else the add's or the
    /// reserve's) cost now: where the cache model finds them, line by line.
    fn private_ns(&mut self, cpu: u32, compare: bool, lines: u32) -> u64 {
        let c = cpu as usize;
        let id = self.cfg.cpu_ids[c];
        let home = self.cfg.machine.pos(id).socket;
        let d = if compare { &mut self.private_compare[c] } else { &mut self.private_add[c] };
        let src = self.caches.access(d, id, home, lines, true);
        u64::from(lines) * self.cfg.machine.source_ns(src)
    }

    /// A plain read of the shared line by `cpu` (a transfer if another CPU wrote it since).
    fn read_shared(&mut self, cpu: u32) -> u64 {
        let c = cpu as usize;
        let id = self.cfg.cpu_ids[c];
        self.line.read(&self.cfg.machine, &mut self.caches, id, &mut self.seen[c])
    }

    /// A locked RMW of `delta` on the shared line; its total cost.
    fn shared_rmw(&mut self, cpu: u32, at_ns: u64, delta: i64, path: Path) -> u64 {
        let id = self.cfg.cpu_ids[cpu as usize];
        let from = self.line.owner();
        let r = self.line.rmw(&self.cfg.machine, &mut self.caches, id, at_ns, self.cfg.costs.atomic_ns);
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
        self.advance_traffic(t);
        self.note_true(delta);
        match self.cfg.counter {
            Counter::Atomic => {
                let ns = self.shared_rmw(cpu, t, delta, path);
                // atomic_long_add_return: the check reads the value this RMW made.
                self.check_limit(t, path, self.shared_pages);
                self.charge(path, path.inline(), ns);
                self.done(cpu, t + ns, next);
            }
            Counter::PcpuReserve => {
                let mut ns = self.cfg.costs.local_op_ns + self.private_ns(cpu, false, COLD_LINES_RESERVE);
                self.local_pages[c] += delta;
                self.sum_local_pages += delta;
                let local = self.local_pages[c];
                if local >= self.cfg.reserve_pages || local <= -self.cfg.reserve_pages {
                    self.local_pages[c] = 0;
                    self.sum_local_pages -= local;
                    ns += self.shared_rmw(cpu, t + ns, local, path);
                }
                self.note_error();
                self.check_limit(t, path, self.shared_pages);
                if path == Path::Raise {
                    ns += self.read_shared(cpu);
                }
                self.charge(path, path.inline(), ns);
                self.done(cpu, t + ns, next);
            }
            Counter::PercpuCounter => {
                // fbc->counters sits in struct percpu_counter's line with the lock and
                // fbc->count: a fold or a sum by another CPU since this CPU's last look makes
                // it a miss; the s32 line is taken back if a sum read it since.
                let call = self.cfg.costs.percpu_call_ns
                    + self.private_ns(cpu, false, COLD_LINES_ADD)
                    + self.read_shared(cpu)
                    + self.s32_write(cpu);
                self.charge(path, path.add(), call);
                let count = self.local_pages[c] + delta;
                if count.abs() < self.cfg.batch {
                    self.local_pages[c] = count;
                    self.sum_local_pages += delta;
                    self.note_error();
                    if path == Path::Reduce {
                        return self.done(cpu, t + call, next);
                    }
                    self.pending[c] = Some(Pending { delta: 0, path, sum: true, since_ns: t + call, next });
                } else {
                    self.pending[c] = Some(Pending { delta, path, sum: false, since_ns: t + call, next });
                }
                self.q.schedule(t + call, Event::FoldLock { cpu });
            }
        }
    }

    /// `cpu` writes its s32: the line comes back from the sums that read it since its last
    /// write (an invalidation: through this socket's L3, or across the link if the other
    /// socket holds a copy).
    fn s32_write(&mut self, cpu: u32) -> u64 {
        let c = cpu as usize;
        let home = 1 << self.cfg.machine.pos(self.cfg.cpu_ids[c]).socket;
        let ns = if self.s32_dirty[c] {
            0
        } else if self.s32_sockets[c] == home {
            self.cfg.machine.line_llc_ns
        } else {
            self.cfg.machine.line_cross_socket_ns
        };
        self.s32_dirty[c] = true;
        self.s32_sockets[c] = home;
        ns
    }

    /// `reader` reads `owner`'s s32 in a sum: from the owner's cache if it wrote it since the
    /// last sum, else from the reader's L3 if a CPU of its socket read it since, else from the
    /// other socket.
    fn s32_read(&mut self, reader: u32, owner: u32) -> u64 {
        if reader == owner {
            return 0;
        }
        let (r, o) = (self.cfg.cpu_ids[reader as usize], self.cfg.cpu_ids[owner as usize]);
        let bit = 1 << self.cfg.machine.pos(r).socket;
        let k = owner as usize;
        let ns = if self.s32_dirty[k] {
            self.cfg.machine.transfer_ns(o, r)
        } else if self.s32_sockets[k] & bit != 0 {
            self.cfg.machine.line_llc_ns
        } else {
            self.cfg.machine.line_cross_socket_ns
        };
        self.s32_dirty[k] = false;
        self.s32_sockets[k] |= bit;
        ns
    }

    /// `__percpu_counter_sum()` by `cpu`, holding `fbc->lock`: `fbc->count` plus every online
    /// CPU's s32, the loads overlapped up to `sum_mlp` in flight, a `sum_step_ns` loop step per
    /// CPU, and its code's lines. Returns the time it holds the lock for the walk.
    fn sum_walk(&mut self, cpu: u32) -> u64 {
        let n = self.cfg.nr_cpus();
        let lines: u64 = (0..n).map(|owner| self.s32_read(cpu, owner)).sum();
        self.stats.sums += 1;
        lines / self.cfg.costs.sum_mlp.max(1)
            + u64::from(n) * self.cfg.costs.sum_step_ns
            + self.private_ns(cpu, true, COLD_LINES_SUM)
    }

    /// `cpu` owns `fbc->lock` from `at_ns`: fold its delta into `fbc->count`, or sum every
    /// CPU's part. A charge's fold is followed by its sum (the lock taken again).
    fn fold_granted(&mut self, cpu: u32, at_ns: u64) {
        let c = cpu as usize;
        let p = self.pending[c].take().expect("bug: a fold granted to a CPU with none pending");
        // fbc->count shares the lock's line, which this CPU now owns.
        self.line.store(&mut self.caches, self.cfg.cpu_ids[c]);
        if p.sum {
            let hold = self.cfg.costs.fold_hold_ns + self.sum_walk(cpu);
            self.charge(p.path, p.path.sum(), hold);
            // The value read: fbc->count and the s32s (a fold still waiting is in neither), at
            // the time of the sum.
            self.check_limit(at_ns, p.path, self.shared_pages + self.sum_local_pages);
            self.q.schedule(at_ns + hold, Event::FoldRelease { cpu });
            return self.done(cpu, at_ns + hold, p.next);
        }
        let local = self.local_pages[c];
        self.shared_pages += local + p.delta;
        self.sum_local_pages -= local;
        self.local_pages[c] = 0;
        self.note_error();
        self.stats.folds += 1;
        let hold = self.cfg.costs.fold_hold_ns;
        self.charge(p.path, p.path.fold(), hold);
        let release = at_ns + hold;
        self.q.schedule(release, Event::FoldRelease { cpu });
        if p.path == Path::Reduce {
            return self.done(cpu, release, p.next);
        }
        self.pending[c] = Some(Pending { delta: 0, sum: true, since_ns: release, ..p });
        self.q.schedule(release, Event::FoldLock { cpu });
    }

    pub(super) fn fold_lock(&mut self, cpu: u32) {
        let (t, id) = (self.now_ns, self.cfg.cpu_ids[cpu as usize]);
        let path = self.pending[cpu as usize].expect("bug: a lock request with no fold pending").path;
        match self.lock.lock(&self.cfg.machine, t, cpu, id) {
            Acquire::Taken { cost_ns } => {
                let sum = self.pending[cpu as usize].is_some_and(|p| p.sum);
                self.charge(path, if sum { path.sum() } else { path.fold() }, cost_ns);
                self.fold_granted(cpu, t + cost_ns);
            }
            Acquire::Queued => self.stats.lock_contentions += 1,
        }
    }

    pub(super) fn fold_release(&mut self, _cpu: u32) {
        if let Some((w, at)) = self.lock.unlock(&self.cfg.machine, self.now_ns) {
            let p = self.pending[w.thread as usize].expect("bug: a lock waiter with no fold pending");
            let stack = if p.sum { p.path.sum_spin() } else { p.path.fold_spin() };
            self.charge_from(p.path, stack, p.since_ns, at - p.since_ns);
            self.fold_granted(w.thread, at);
        }
    }
}
