//! The socket-memory world of seed 003: many TCP connections charging and returning pages to
//! one protocol-wide counter, `tcp_memory_allocated`.
//!
//! What Linux does (4.19; the write timer's reclaim lasted until 5.19; net/core/sock.c): a
//! socket keeps a private `sk_forward_alloc`; when a send needs more, `__sk_mem_schedule()`
//! charges whole pages to the protocol's counter in
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
//!   [`QSpinLock`]) once |delta| ≥ batch; the charge path then reads the value back with
//!   `__percpu_counter_sum()` (our reading of the patch, `counter`): `fbc->lock`, and every
//!   online CPU's s32.
//! - `pcpu_reserve` (Linux 6.0, 3cd3399dd7a8): `sk_memory_allocated_add()` adds to this CPU's
//!   `per_cpu_fw_alloc` and moves it to the shared atomic once it reaches ±reserve; the raise
//!   path then reads the atomic (`sk_memory_allocated()`). OUR SIMPLIFICATION: the reserve is
//!   fed the 4.19 update stream above (forward alloc, reclaimed in bursts by the write timer).
//!   The same 6.0 series (4890b686f408, "net: keep sk->sk_forward_alloc as small as possible")
//!   dropped the write timer's reclaim: `sk_mem_uncharge()` returns whole pages as soon as a
//!   page is spare, so a real 6.0 kernel moves the counter as skbs are charged and freed, on
//!   whichever CPU does it: more often, and not in tick bursts. The reserve's CPU figure is
//!   the model's, for that hybrid.
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
//!
//! Map of this folder: `mod.rs` (here) holds the constants, the configuration, the world's
//! state, its event enum and `handle()`, the one dispatch over events (the run loop is
//! [`crate::sim::world`]'s); `load` is the workload
//! (ticks, write-timer bursts, raises, each connection's forward alloc); `counter` is the
//! three counters' update paths (the shared line's RMWs, the per-CPU parts, the fold under
//! `fbc->lock`), the time they charge and the other work's cache traffic; `ramp` is the ramp mode (its start, the limit
//! check, the crossing) and the samples over time; `check` holds the invariant checker;
//! `invariants` is what `make fuzz-sim` checks after every event.

mod check;
mod counter;
pub(crate) mod invariants;
mod load;
mod ramp;

pub use load::wheel_granularity;
pub use ramp::{Crossing, Ramp, Sample, MAX_SAMPLES};

use super::chains::{Path, Stack};
use super::Counter;
use crate::rng::Rng;
use crate::sim::atomic_line::AtomicLine;
use crate::sim::cache::{Caches, PageData};
use crate::sim::engine::EventQueue;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::profile::Profile;
use crate::sim::qspinlock::QSpinLock;
use crate::sim::world::{self as skeleton, RunState, Window};
use serde::Serialize;

/// Most updates (raise + reduce calls) one run may simulate: the run's duration is cut so
/// that the expected count stays below this.
pub const MAX_UPDATES_PER_RUN: u64 = 100_000;

/// Most events one run may process (updates, empty timers, ticks, lock events); a run that
/// reaches it stops, truncated ([`skeleton::World::outcome`]).
pub const MAX_EVENTS_PER_RUN: u64 = 4 * MAX_UPDATES_PER_RUN;

/// Lines `percpu_counter_add_batch` needs that the server's other work may have evicted from
/// the core's L2 since this CPU's last call: its code (two 64-byte i-cache lines) and this
/// CPU's s32 counter. Derived from the function's size (~100 bytes of x86_64 code) and layout
/// (lib/percpu_counter.c).
pub const COLD_LINES_ADD: u32 = 3;
/// `__percpu_counter_sum`: its code (the lock pair, the walk over the online cpumask), about
/// 100-130 bytes of x86_64 code: two i-cache lines (ASSUMED from the function's size).
pub const COLD_LINES_SUM: u32 = 2;
/// Work per online CPU of `__percpu_counter_sum`'s loop besides the s32 load itself: the
/// `cpumask_next()` → `find_next_bit()` call, the `__per_cpu_offset[cpu]` load and the add,
/// about ten instructions, one cycle each (ASSUMED from the loop's code, lib/percpu_counter.c
/// at v4.19 with `for_each_online_cpu`).
pub const SUM_STEP_CYCLES: u64 = 10;
/// 6.0's inlined reserve: this CPU's `per_cpu_fw_alloc` line (the code is the caller's).
pub const COLD_LINES_RESERVE: u32 = 1;
/// Lines of its socket one `tcp_write_timer` run touches: the timer_list and `icsk_pending`
/// (inet_connection_sock), `sk_lock` and `sk_refcnt`, `sk_forward_alloc`. Derived from the
/// 4.19 struct layout (pahole of struct tcp_sock: these sit in 4 different lines).
pub const TIMER_SOCKET_LINES: u64 = 4;
/// The world advances the other work's traffic in steps of this (ns): a step brings at most
/// a few KiB, against a 256 KiB L2.
pub const TRAFFIC_STEP_NS: u64 = 1_000;

/// Costs of this world in ns, from the catalogue ([`super::profile::costs_on`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CounterCosts {
    /// A locked RMW (`lock xadd`) on a line the CPU already owns (`locked_rmw_ns`).
    pub atomic_ns: u64,
    /// A call into a small percpu_counter function on warm lines (`percpu_add_cycles`).
    pub percpu_call_ns: u64,
    /// An inlined `this_cpu_add_return` (6.0's reserve; `this_cpu_op_cycles`).
    pub local_op_ns: u64,
    /// The rest of one `tcp_write_timer()` run, between two reclaims of a burst:
    /// `timer_fire_cycles` plus [`TIMER_SOCKET_LINES`] from DRAM (the socket is cold).
    pub timer_work_ns: u64,
    /// How late after the tick a CPU starts its timer softirq, at most (uniform 0..=this):
    /// the exit latency of the idle state it sleeps in (`idle_exit_ns`).
    pub tick_jitter_ns: u64,
    /// `fbc->lock` held for the fold (`percpu_fold_cycles`): also the lock pair and IRQ
    /// save/restore around a sum's walk.
    pub fold_hold_ns: u64,
    /// Loop work per online CPU of `__percpu_counter_sum` ([`SUM_STEP_CYCLES`]).
    pub sum_step_ns: u64,
    /// Line misses a sum keeps in flight: the family's `copy_mlp` (its fill buffers).
    pub sum_mlp: u64,
}

/// Everything one run needs, typed and validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorldConfig {
    /// Topology and line-transfer latencies.
    pub machine: MachineProfile,
    /// Which hardware thread each online CPU is (index = online CPU number).
    pub cpu_ids: Vec<CpuId>,
    pub counter: Counter,
    pub connections: u32,
    /// `__sk_mem_raise_allocated` calls per connection per hour (the derived stream,
    /// [`super::stream`]).
    pub raises_per_hour: u32,
    /// Reclaiming timer firings per connection per hour.
    pub timers_per_hour: u32,
    pub raise_pages_max: u32,
    /// Of the charges, those `sk_forced_mem_schedule()` makes, per million, and their pages.
    pub forced_ppm: u32,
    pub forced_pages: u32,
    /// CONFIG_HZ: ticks per second.
    pub hz: u32,
    /// `skew_tick=1`: each CPU's tick offset by (tick/2)/nr_cpus × cpu.
    pub skew_tick: bool,
    /// Ticks between the write timers' expiries (the timer wheel's granularity at `hz`).
    pub wheel_gran_ticks: u64,
    /// percpu_counter batch (pages).
    pub batch: i64,
    /// 6.0 per-CPU reserve (pages).
    pub reserve_pages: i64,
    pub costs: CounterCosts,
    /// Bytes the rest of the server's work (not simulated) brings into each CPU's core L2
    /// per µs: what ages the simulated lines out of the caches ([`Caches::fill`]).
    pub traffic_bytes_per_us: u64,
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
    /// A send on `cpu` needs pages beyond its socket's forward alloc (a raise, or a forced
    /// charge of its transmit path).
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
    /// The lock is for the charge's `__percpu_counter_sum` (delta 0), not for a fold.
    sum: bool,
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
    /// `sk_forced_mem_schedule()` charges (not counted in `raises`).
    pub forced: u64,
    pub reduces: u64,
    /// Timer firings that found nothing to reclaim.
    pub empty_timers: u64,
    /// Locked RMWs on the shared line.
    pub shared_rmws: u64,
    pub shared_contended: u64,
    pub folds: u64,
    /// `__percpu_counter_sum` walks.
    pub sums: u64,
    pub lock_contentions: u64,
    /// CPU time of the raise and the reduce paths inside the window.
    pub raise_ns: u64,
    pub reduce_ns: u64,
    /// CPU time of the forced charges (in the profile, not in the seed's figures).
    pub forced_ns: u64,
    pub max_error_pages: i64,
    /// Steps of the steady-state draws of first-touched connections' forward alloc (`load`'s
    /// `fw`): work the run does besides its events, which its expected events count.
    pub draw_steps: u64,
}

/// The world: time, queue, one RNG per CPU, connections, the counter and its lines.
pub struct World {
    pub cfg: WorldConfig,
    q: EventQueue<Event>,
    /// The time of the event being handled.
    now_ns: u64,
    /// The window (the whole duration, no warm-up; the ramp cuts its end) and the cap.
    run_state: RunState,
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
    /// Every core's L2 and socket's L3 by capacity, and until when the other work's traffic
    /// has been charged to them.
    caches: Caches,
    traffic_ns: u64,
    /// Each CPU's private lines: the add's code and s32 (or 6.0's reserve), the sum's code.
    private_add: Vec<PageData>,
    private_compare: Vec<PageData>,
    /// Each CPU's s32 (percpu_counter): written by its owner since a sum last read it, and the
    /// sockets (bit mask) whose L3 holds a copy.
    s32_dirty: Vec<bool>,
    s32_sockets: Vec<u32>,
    pending: Vec<Option<Pending>>,
    deferred: Vec<Vec<Event>>,
    pub profile: Profile<Stack>,
    pub stats: WorldStats,
    pub hops: Vec<Hop>,
    pub crossing: Crossing,
    pub samples: Vec<Sample>,
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
            run_state: RunState::new(Window { warmup_ns: 0, measure_ns: cfg.duration_ns }, MAX_EVENTS_PER_RUN),
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
            caches: Caches::new(&cfg.machine),
            traffic_ns: 0,
            private_add: vec![PageData::default(); n],
            private_compare: vec![PageData::default(); n],
            s32_dirty: vec![false; n],
            s32_sockets: cfg.cpu_ids.iter().map(|&id| 1 << cfg.machine.pos(id).socket).collect(),
            pending: vec![None; n],
            deferred: vec![Vec::new(); n],
            profile: Profile::default(),
            stats: WorldStats::default(),
            hops: Vec::new(),
            crossing: Crossing::default(),
            samples: Vec::new(),
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

    /// Charges the time the CPUs spent outside the accounting, so the report is in shares of
    /// all CPU time (nr_cpus × duration).
    /// Called once after the run, by [`super::sweep::simulate`].
    pub(super) fn finish(&mut self) {
        let total = self.cfg.duration_ns * u64::from(self.cfg.nr_cpus());
        let acct = self.profile.total_ns();
        self.profile.add(0, Stack::Other, total.saturating_sub(acct));
    }

    /// |shared − true| now (pages): the sum of what the CPUs hold back.
    pub fn error_pages(&self) -> i64 {
        self.sum_local_pages
    }
}

impl skeleton::World for World {
    type Event = Event;

    crate::sim::world::world_fields!(run_state, q);

    /// The samples due before `at_ns` first (they record the state after the last event
    /// before each), then the event: a CPU spinning on the fold lock or still busy defers it.
    fn handle(&mut self, at_ns: u64, ev: Event) {
        self.sample_until(at_ns);
        self.now_ns = at_ns;
        let cpu = match ev {
            Event::FoldLock { cpu } => return self.fold_lock(cpu),
            Event::FoldRelease { cpu } => return self.fold_release(cpu),
            Event::Tick { cpu } | Event::Timer { cpu, .. } | Event::Raise { cpu } => cpu,
        } as usize;
        if self.pending[cpu].is_some() {
            return self.deferred[cpu].push(ev);
        }
        if self.busy_until_ns[cpu] > at_ns {
            return self.q.schedule(self.busy_until_ns[cpu], ev);
        }
        match ev {
            Event::Tick { cpu } => self.tick(cpu),
            Event::Timer { cpu, left } => self.timer(cpu, left),
            Event::Raise { cpu } => self.raise(cpu),
            Event::FoldLock { .. } | Event::FoldRelease { .. } => unreachable!("handled above"),
        }
    }
}
