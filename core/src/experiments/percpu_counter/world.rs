//! The socket-memory world of seed 003: many TCP connections charging and returning pages to
//! one protocol-wide counter, `tcp_memory_allocated`.
//!
//! What Linux does (4.19, net/core/sock.c): a socket keeps a private `sk_forward_alloc`; when
//! a send needs more, `__sk_mem_schedule()` charges whole pages to the protocol's counter in
//! `__sk_mem_raise_allocated()`; when `tcp_write_timer()` runs, `sk_mem_reclaim()` returns the
//! socket's spare forward alloc through `__sk_mem_reduce_allocated()`. Timers expire in the
//! timer softirq at the tick, and with `skew_tick=0` (the default) every CPU's tick fires at
//! the same moment, so the CPUs reclaim in bursts together.
//!
//! The counter variants ([`Counter`]):
//! - `atomic`: one `atomic_long_t`; every update is a locked RMW on its line
//!   ([`AtomicLine`]), serialised with every other CPU's.
//! - `percpu_counter` (Olof Johansson's 2018 patch, not merged): `percpu_counter_add_batch()`
//!   adds to this CPU's s32 and folds it into `fbc->count` under `fbc->lock` (a
//!   [`QSpinLock`]) once |delta| ≥ batch; the raise path then checks the limits with
//!   `__percpu_counter_compare()`, which reads `fbc->count` (a miss after another CPU folded).
//! - `pcpu_reserve` (Linux 6.0, 3cd3399dd7a8): `sk_memory_allocated_add()` adds to this CPU's
//!   `per_cpu_fw_alloc` and moves it to the shared atomic once it reaches ±reserve; the raise
//!   path then reads the atomic (`sk_memory_allocated()`).
//!
//! A second mode, the **ramp** ([`Ramp`]), asks where `tcp_mem` is crossed late: the server
//! already holds `base_pages` (near `tcp_mem[2]`), sends keep charging at the same rate, but
//! the data they queue is not acknowledged within the window, so the write timers find
//! nothing spare to return and the true sum climbs. After each charge the raise path checks
//! the value it reads (the atomic's add_return; `fbc->count`; 6.0's atomic) against the
//! limit, as `__sk_mem_raise_allocated()` does; the world notes when the true sum first goes
//! over and when a check first sees it ([`Crossing`]), and stops a little later (what the
//! kernel then does, refusing sends, is not simulated).
//!
//! What we simplify: connections are spread evenly over the online CPUs and stay there; a
//! raise charges 1..=`raise_pages_max` pages (uniform) to a random connection of the CPU;
//! a timer reclaims all of its connection's forward alloc. Arrivals are jittered (uniform
//! gaps with the right mean), not Poisson: the model has no floats. Only the accounting is
//! simulated; everything else a CPU does is the `Other` row of the profile. A CPU spinning
//! or stalled defers its next events until it is free. docs/percpu-counter.md has it all.

use super::chains::{Path, Stack};
use super::Counter;
use crate::rng::Rng;
use crate::sim::atomic_line::AtomicLine;
use crate::sim::engine::EventQueue;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::profile::Profile;
use crate::sim::qspinlock::{Acquire, QSpinLock};
use serde::Serialize;

/// Most updates (raise + reduce calls) one run may simulate: the run's duration is cut so
/// that the expected count stays below this.
pub const MAX_UPDATES_PER_RUN: u64 = 100_000;

/// Most events one run may process (updates, empty timers, ticks, lock events).
pub const MAX_EVENTS_PER_RUN: u64 = 4 * MAX_UPDATES_PER_RUN;

/// Lines `percpu_counter_add_batch` needs that a busy server evicts from L2 between two calls
/// of a CPU: its code (two 64-byte i-cache lines) and this CPU's s32 counter. Derived from
/// the function's size (~100 bytes of x86_64 code) and layout (lib/percpu_counter.c).
pub const COLD_LINES_ADD: u64 = 3;
/// `__percpu_counter_compare`: its code line (fbc's line was just read by the add).
pub const COLD_LINES_COMPARE: u64 = 1;
/// 6.0's inlined reserve: this CPU's `per_cpu_fw_alloc` line (the code is the caller's).
pub const COLD_LINES_RESERVE: u64 = 1;

/// Costs of this world that are not in [`MachineProfile`] (ns; see docs/percpu-counter.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CounterCosts {
    /// A locked RMW (`lock xadd`) on a line the CPU already owns. The platform knob.
    pub atomic_ns: u64,
    /// A call into a small percpu_counter function: call/ret, preempt or irq save/restore,
    /// `this_cpu` read and add, the batch test.
    pub percpu_call_ns: u64,
    /// An inlined `this_cpu_add_return` (6.0's reserve): an unlocked add to a local line.
    pub local_op_ns: u64,
    /// The rest of one `tcp_write_timer()` run, between two reclaims of a burst.
    pub timer_work_ns: u64,
    /// How late after the tick a CPU starts its timer softirq, at most (uniform 0..=this):
    /// the exit latency of the idle state it sleeps in.
    pub tick_jitter_ns: u64,
    /// `fbc->lock` held for the fold: add to `fbc->count` and clear the per-CPU s32.
    pub fold_hold_ns: u64,
    /// How long a line stays in its writer's L2 before the rest of the server's work (not
    /// simulated here) has evicted it. Model assumption of this world; fitted.
    pub l2_residency_ns: u64,
}

/// The ramp towards `tcp_mem[2]` (see the module comment).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Ramp {
    /// Pages the server holds when the window opens (charged, folded into the shared value
    /// except what the per-CPU parts hold back).
    pub base_pages: i64,
    /// `tcp_mem[2]` (pages): over it, `__sk_mem_raise_allocated()` suppresses the allocation.
    pub limit_pages: i64,
}

/// When the true sum went over the ramp's limit and when a raise's check first saw it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Crossing {
    /// The charge that took the true sum over the limit: its time and the sum after it.
    pub true_at_ns: Option<u64>,
    pub true_pages_at_cross: i64,
    /// The first charge whose check read a value over the limit, and the true sum then.
    pub seen_at_ns: Option<u64>,
    pub true_pages_at_seen: i64,
}

impl Crossing {
    /// Pages charged past the limit before the kernel noticed (0 if it noticed at once).
    pub fn overshoot_pages(&self) -> Option<i64> {
        self.seen_at_ns.map(|_| self.true_pages_at_seen - self.true_pages_at_cross)
    }

    /// How long after the true crossing the kernel noticed (ns).
    pub fn late_ns(&self) -> Option<u64> {
        Some(self.seen_at_ns?.saturating_sub(self.true_at_ns?))
    }
}

/// The state at one moment, for the plots over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Sample {
    pub at_ns: u64,
    /// What the sockets really hold (pages).
    pub true_pages: i64,
    /// The shared value a reader sees (`tcp_memory_allocated`, `fbc->count`).
    pub shared_pages: i64,
}

/// Most samples a run records.
pub const MAX_SAMPLES: usize = 1_000;

/// Everything one run needs, typed and validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorldConfig {
    /// Topology and line-transfer latencies.
    pub machine: MachineProfile,
    /// Which hardware thread each online CPU is (index = online CPU number).
    pub cpu_ids: Vec<CpuId>,
    pub counter: Counter,
    pub connections: u32,
    /// `__sk_mem_raise_allocated` calls per connection per minute.
    pub raises_per_min: u32,
    /// `tcp_write_timer` firings per connection per minute.
    pub timers_per_min: u32,
    pub raise_pages_max: u32,
    /// CONFIG_HZ: ticks per second.
    pub hz: u32,
    /// `skew_tick=1`: each CPU's tick offset by (tick/2)/nr_cpus × cpu.
    pub skew_tick: bool,
    /// percpu_counter batch (pages).
    pub batch: i64,
    /// 6.0 per-CPU reserve (pages).
    pub reserve_pages: i64,
    pub costs: CounterCosts,
    pub duration_ns: u64,
    /// The ramp towards `tcp_mem[2]`, or `None` for the steady load.
    pub ramp: Option<Ramp>,
    /// Record a [`Sample`] every this many ns (0: none; at most [`MAX_SAMPLES`]).
    pub sample_every_ns: u64,
}

impl WorldConfig {
    pub fn nr_cpus(&self) -> u32 {
        self.cpu_ids.len() as u32
    }

    /// Expected updates per second of the whole server.
    pub fn updates_per_s(&self) -> u64 {
        u64::from(self.connections) * u64::from(self.raises_per_min + self.timers_per_min) / 60
    }

    /// What the shared value may be off by: batch × CPUs, reserve × CPUs, or 0 (pages).
    pub fn error_bound_pages(&self) -> i64 {
        error_bound_pages(self.counter, self.batch, self.reserve_pages, self.nr_cpus())
    }
}

/// |shared − true| < this for `counter` (pages); `__percpu_counter_compare` uses the same
/// `batch × num_online_cpus()`.
pub fn error_bound_pages(counter: Counter, batch: i64, reserve_pages: i64, nr_cpus: u32) -> i64 {
    match counter {
        Counter::Atomic => 0,
        Counter::PercpuCounter => batch * i64::from(nr_cpus),
        Counter::PcpuReserve => reserve_pages * i64::from(nr_cpus),
    }
}

/// One closed event enum; `cpu` is the online CPU index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Event {
    /// The tick on `cpu`: expired write timers run in the softirq.
    Tick { cpu: u32 },
    /// One `tcp_write_timer` of a burst; `left` including this one.
    Timer { cpu: u32, left: u32 },
    /// A send on `cpu` needs pages beyond its socket's forward alloc.
    Raise { cpu: u32 },
    /// `cpu`, in `percpu_counter_add_batch`, calls `raw_spin_lock_irqsave(&fbc->lock)`.
    FoldLock { cpu: u32 },
    /// `cpu` leaves the fold's critical section and unlocks `fbc->lock`.
    FoldRelease { cpu: u32 },
}

/// A fold waiting for (or holding) `fbc->lock`, and what the CPU does after it.
#[derive(Debug, Clone, Copy)]
struct Pending {
    delta: i64,
    path: Path,
    /// When the charge was made (the update's event), for the ramp's limit check.
    charged_ns: u64,
    since_ns: u64,
    next: Option<(Event, u64)>,
}

/// One locked RMW on the shared line, for the "watch it travel" view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Hop {
    pub at_ns: u64,
    pub cpu: CpuId,
    pub from: Option<CpuId>,
    pub wait_ns: u64,
    pub work_ns: u64,
    pub path: Path,
}

/// How many hops the line trace keeps.
pub const HOPS_KEPT: usize = 24;

/// Counters of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct WorldStats {
    pub raises: u64,
    pub reduces: u64,
    /// Timer firings that found nothing to reclaim.
    pub empty_timers: u64,
    /// Locked RMWs on the shared line.
    pub shared_rmws: u64,
    pub shared_contended: u64,
    pub folds: u64,
    pub lock_contentions: u64,
    pub raise_ns: u64,
    pub reduce_ns: u64,
    pub max_error_pages: i64,
    pub events: u64,
}

/// The world: time, queue, one RNG per CPU, connections, the counter and its lines.
pub struct World {
    pub cfg: WorldConfig,
    q: EventQueue<Event>,
    now_ns: u64,
    rng: Vec<Rng>,
    conns_of: Vec<u32>,
    /// Forward-alloc pages + 1 per connection, 0 until the run first touches it (connection
    /// i lives on CPU i % nr_cpus). Drawn lazily so a run costs nothing per idle connection.
    fw_pages: Vec<u32>,
    /// The shared value: `tcp_memory_allocated` or `fbc->count` (pages).
    pub shared_pages: i64,
    /// What the sockets really hold: shared + per-CPU parts + folds waiting for the lock.
    pub true_pages: i64,
    /// Per-CPU s32 delta or 6.0 reserve (pages).
    local_pages: Vec<i64>,
    sum_local_pages: i64,
    line: AtomicLine,
    seen: Vec<u64>,
    lock: QSpinLock,
    busy_until_ns: Vec<u64>,
    /// When each CPU last finished an accounting call (None: never).
    last_acct_ns: Vec<Option<u64>>,
    pending: Vec<Option<Pending>>,
    deferred: Vec<Vec<Event>>,
    pub profile: Profile<Stack>,
    pub stats: WorldStats,
    pub hops: Vec<Hop>,
    pub crossing: Crossing,
    pub samples: Vec<Sample>,
    /// When the run ends: the configured duration, or shortly after a ramp's crossing is seen.
    end_ns: u64,
    /// The current sample interval (ns).
    sample_ns: u64,
}

impl World {
    pub fn new(cfg: WorldConfig, seed: u64) -> World {
        let n = cfg.nr_cpus() as usize;
        let mut root = Rng::new(seed, 0x003);
        let mut rng: Vec<Rng> = (0..n as u64).map(|c| root.fork(c)).collect();
        let conns_of: Vec<u32> =
            (0..n as u32).map(|c| cfg.connections / n as u32 + u32::from(c < cfg.connections % n as u32)).collect();
        let fw_pages = vec![0; cfg.connections as usize];
        let mut w = World {
            q: EventQueue::default(),
            now_ns: 0,
            conns_of,
            fw_pages,
            shared_pages: 0,
            true_pages: 0,
            local_pages: vec![0; n],
            sum_local_pages: 0,
            line: AtomicLine::default(),
            seen: vec![0; n],
            lock: QSpinLock::new("percpu_counter.lock"),
            busy_until_ns: vec![0; n],
            last_acct_ns: vec![None; n],
            pending: vec![None; n],
            deferred: vec![Vec::new(); n],
            profile: Profile::default(),
            stats: WorldStats::default(),
            hops: Vec::new(),
            crossing: Crossing::default(),
            samples: Vec::new(),
            end_ns: cfg.duration_ns,
            sample_ns: cfg.sample_every_ns,
            rng: Vec::new(),
            cfg,
        };
        if let Some(ramp) = w.cfg.ramp {
            w.start_ramp(ramp, &mut root);
        }
        for c in 0..n as u32 {
            let first = w.tick_at(c, 0, &mut rng[c as usize]);
            w.q.schedule(first, Event::Tick { cpu: c });
            if let Some(gap) = w.raise_gap(c, &mut rng[c as usize]) {
                w.q.schedule(gap, Event::Raise { cpu: c });
            }
        }
        w.rng = rng;
        w
    }

    /// The window opens with `base_pages` held and every per-CPU part at a value drawn from
    /// the steady state of a growing counter (uniform below its threshold: each part climbs
    /// to it and starts again from 0), so the window does not start with a synchronised fold.
    fn start_ramp(&mut self, ramp: Ramp, root: &mut Rng) {
        let threshold = match self.cfg.counter {
            Counter::Atomic => 0,
            Counter::PercpuCounter => self.cfg.batch,
            Counter::PcpuReserve => self.cfg.reserve_pages,
        };
        let mut rng = root.fork(0xba5e);
        for part in &mut self.local_pages {
            *part = if threshold > 0 { i64::from(rng.below(threshold.min(i64::from(u32::MAX)) as u32)) } else { 0 };
        }
        self.sum_local_pages = self.local_pages.iter().sum();
        self.true_pages = ramp.base_pages;
        self.shared_pages = ramp.base_pages - self.sum_local_pages;
    }

    fn tick_ns(&self) -> u64 {
        1_000_000_000 / u64::from(self.cfg.hz)
    }

    /// When tick `k` fires on `cpu`: aligned (or skewed) plus the idle-exit jitter.
    fn tick_at(&self, cpu: u32, k: u64, rng: &mut Rng) -> u64 {
        let tick = self.tick_ns();
        let skew = if self.cfg.skew_tick { tick / 2 / u64::from(self.cfg.nr_cpus()) * u64::from(cpu) } else { 0 };
        k * tick + skew + rng.range_u64(0, self.cfg.costs.tick_jitter_ns)
    }

    /// The gap to `cpu`'s next raise (uniform, mean 60 s / (connections × raises_per_min)).
    fn raise_gap(&self, cpu: u32, rng: &mut Rng) -> Option<u64> {
        let rate_per_min = u64::from(self.conns_of[cpu as usize]) * u64::from(self.cfg.raises_per_min);
        (rate_per_min > 0).then(|| 1 + rng.range_u64(0, 2 * 60_000_000_000 / rate_per_min))
    }

    /// Runs to the end; returns the number of events processed.
    pub fn run(&mut self) -> u64 {
        while self.step() {}
        self.finish();
        self.stats.events
    }

    /// Charges the time the CPUs spent outside the accounting, so the report is in shares of
    /// all CPU time (nr_cpus × duration).
    fn finish(&mut self) {
        let total = self.cfg.duration_ns * u64::from(self.cfg.nr_cpus());
        let acct = self.profile.total_ns();
        self.profile.add(0, Stack::Other, total.saturating_sub(acct));
    }

    /// Processes one event; false once the run is over.
    pub fn step(&mut self) -> bool {
        let Some((t, ev)) = self.q.pop() else { return false };
        // The duration is cut for MAX_UPDATES_PER_RUN expected updates; this is the hard stop.
        if t >= self.end_ns || self.stats.events >= MAX_EVENTS_PER_RUN {
            return false;
        }
        self.sample_until(t);
        self.now_ns = t;
        self.stats.events += 1;
        let cpu = match ev {
            Event::FoldLock { cpu } => {
                self.fold_lock(cpu);
                return true;
            }
            Event::FoldRelease { cpu } => {
                self.fold_release(cpu);
                return true;
            }
            Event::Tick { cpu } | Event::Timer { cpu, .. } | Event::Raise { cpu } => cpu,
        } as usize;
        if self.pending[cpu].is_some() {
            self.deferred[cpu].push(ev);
            return true;
        }
        if self.busy_until_ns[cpu] > t {
            self.q.schedule(self.busy_until_ns[cpu], ev);
            return true;
        }
        match ev {
            Event::Tick { cpu } => self.tick(cpu),
            Event::Timer { cpu, left } => self.timer(cpu, left),
            Event::Raise { cpu } => self.raise(cpu),
            Event::FoldLock { .. } | Event::FoldRelease { .. } => unreachable!("handled above"),
        }
        true
    }

    /// Records the state at every sample time up to `t` (the state after the last event
    /// before each).
    /// A run longer than [`MAX_SAMPLES`] intervals keeps every other sample and doubles the
    /// interval, so a ramp of unknown length stays bounded.
    fn sample_until(&mut self, t: u64) {
        if self.sample_ns == 0 {
            return;
        }
        loop {
            let at = self.samples.last().map_or(0, |s| s.at_ns + self.sample_ns);
            if at > t {
                return;
            }
            if self.samples.len() == MAX_SAMPLES {
                self.samples = self.samples.iter().step_by(2).copied().collect();
                self.sample_ns *= 2;
                continue;
            }
            self.samples.push(Sample { at_ns: at, true_pages: self.true_pages, shared_pages: self.shared_pages });
        }
    }

    fn tick(&mut self, cpu: u32) {
        let c = cpu as usize;
        let tick = self.tick_ns();
        let k = self.now_ns / tick + 1;
        let mut rng = std::mem::replace(&mut self.rng[c], Rng::new(0, 0));
        // Expected expiries this tick, in thousandths, rounded at random to a whole count.
        let milli = u64::from(self.conns_of[c]) * u64::from(self.cfg.timers_per_min) * tick / 60_000_000;
        let n = milli / 1000 + u64::from(u64::from(rng.below(1000)) < milli % 1000);
        let next = self.tick_at(cpu, k, &mut rng);
        self.rng[c] = rng;
        self.q.schedule(next.max(self.now_ns + 1), Event::Tick { cpu });
        if n > 0 {
            self.q.schedule(self.now_ns, Event::Timer { cpu, left: n.min(u64::from(u32::MAX)) as u32 });
        }
    }

    /// The forward alloc of `conn` (on `cpu`). At its first touch it is drawn from the steady
    /// state: the connection holds pages if it raised since its last timer, which happens
    /// with probability raises / (raises + timers); those pages were charged before the run.
    fn fw(&mut self, conn: usize, cpu: u32) -> u32 {
        if self.fw_pages[conn] == 0 {
            let (r, t) = (self.cfg.raises_per_min, self.cfg.timers_per_min);
            let rng = &mut self.rng[cpu as usize];
            // In the ramp, what the sockets held before the window is in `base_pages`.
            let pages = if self.cfg.ramp.is_none() && rng.below(r + t) < r {
                1 + rng.below(self.cfg.raise_pages_max)
            } else {
                0
            };
            self.fw_pages[conn] = pages + 1;
            self.shared_pages += i64::from(pages);
            self.true_pages += i64::from(pages);
        }
        self.fw_pages[conn] - 1
    }

    fn pick_conn(&mut self, cpu: u32) -> Option<usize> {
        let c = cpu as usize;
        let k = self.conns_of[c];
        (k > 0).then(|| c + self.cfg.nr_cpus() as usize * self.rng[c].below(k) as usize)
    }

    fn timer(&mut self, cpu: u32, left: u32) {
        let next = (left > 1).then_some((Event::Timer { cpu, left: left - 1 }, self.cfg.costs.timer_work_ns));
        let Some(conn) = self.pick_conn(cpu) else { return };
        // In the ramp the queued data is not acknowledged yet: nothing is spare.
        let pages = if self.cfg.ramp.is_some() { 0 } else { self.fw(conn, cpu) };
        if self.cfg.ramp.is_none() {
            self.fw_pages[conn] = 1;
        }
        if pages == 0 {
            self.stats.empty_timers += 1;
            if let Some((ev, delay)) = next {
                self.q.schedule(self.now_ns + delay, ev);
            }
            return;
        }
        self.stats.reduces += 1;
        self.update(cpu, -i64::from(pages), Path::Reduce, next);
    }

    fn raise(&mut self, cpu: u32) {
        let c = cpu as usize;
        let Some(conn) = self.pick_conn(cpu) else { return };
        let pages = 1 + self.rng[c].below(self.cfg.raise_pages_max);
        let held = self.fw(conn, cpu);
        self.fw_pages[conn] = held + pages + 1;
        self.stats.raises += 1;
        let mut rng = std::mem::replace(&mut self.rng[c], Rng::new(0, 0));
        let gap = self.raise_gap(cpu, &mut rng);
        self.rng[c] = rng;
        self.update(cpu, i64::from(pages), Path::Raise, gap.map(|g| (Event::Raise { cpu }, g)));
    }

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

    /// The raise path's limit check of a charge made at `charged_ns`: the value it reads
    /// (`shared_pages`) against `tcp_mem[2]`. The first check over it ends the ramp soon.
    fn check_limit(&mut self, charged_ns: u64, path: Path) {
        let Some(ramp) = self.cfg.ramp else { return };
        if path != Path::Raise || self.crossing.seen_at_ns.is_some() || self.shared_pages <= ramp.limit_pages {
            return;
        }
        self.crossing.seen_at_ns = Some(charged_ns);
        self.crossing.true_pages_at_seen = self.true_pages;
        // Run on for a quarter of the time so far (at least a tick): the plot shows the after.
        self.end_ns = self.end_ns.min(self.now_ns + (self.now_ns / 4).max(self.tick_ns()));
    }

    /// The true sum moved by `delta`: note when it first goes over the ramp's limit.
    fn note_true(&mut self, delta: i64) {
        self.true_pages += delta;
        if let Some(ramp) = self.cfg.ramp {
            if self.crossing.true_at_ns.is_none() && self.true_pages > ramp.limit_pages {
                self.crossing.true_at_ns = Some(self.now_ns);
                self.crossing.true_pages_at_cross = self.true_pages;
            }
        }
    }

    /// One `sk_memory_allocated_{add,sub}` of `delta` pages by `cpu`, then `next`.
    fn update(&mut self, cpu: u32, delta: i64, path: Path, next: Option<(Event, u64)>) {
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

    fn fold_lock(&mut self, cpu: u32) {
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

    fn fold_release(&mut self, _cpu: u32) {
        if let Some((w, at)) = self.lock.unlock(&self.cfg.machine, self.now_ns) {
            let p = self.pending[w.thread as usize].expect("bug: a lock waiter with no fold pending");
            self.charge(p.path, p.path.fold_spin(), at - p.since_ns);
            self.fold_granted(w.thread, at);
        }
    }

    /// |shared − true| now (pages): the sum of what the CPUs hold back.
    pub fn error_pages(&self) -> i64 {
        self.sum_local_pages
    }

    /// Invariants: the per-CPU parts sum up, each below its threshold, forward alloc adds up.
    pub fn check_invariants(&self) -> Result<(), String> {
        if self.local_pages.iter().sum::<i64>() != self.sum_local_pages {
            return Err("per-CPU sum out of step".into());
        }
        let limit = match self.cfg.counter {
            Counter::Atomic => 1,
            Counter::PercpuCounter => self.cfg.batch,
            Counter::PcpuReserve => self.cfg.reserve_pages,
        };
        if let Some(c) = self.local_pages.iter().position(|l| l.abs() >= limit) {
            return Err(format!("CPU {c} holds {} pages back, limit {limit}", self.local_pages[c]));
        }
        let fw: i64 = self.fw_pages.iter().map(|&p| i64::from(p.saturating_sub(1))).sum();
        let base = self.cfg.ramp.map_or(0, |r| r.base_pages);
        let pending: i64 = self.pending.iter().flatten().map(|p| p.delta).sum();
        if self.true_pages != self.shared_pages + self.sum_local_pages + pending {
            return Err(format!(
                "true sum {} != shared {} + per-CPU {} + pending {pending}",
                self.true_pages, self.shared_pages, self.sum_local_pages
            ));
        }
        if fw + base != self.shared_pages + self.sum_local_pages + pending {
            return Err(format!(
                "forward alloc {fw} != shared {} + per-CPU {} + pending {pending}",
                self.shared_pages, self.sum_local_pages
            ));
        }
        self.lock.check_invariants()
    }
}
