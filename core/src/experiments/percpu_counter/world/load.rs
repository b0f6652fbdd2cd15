//! The workload of the socket-memory world: each CPU's tick (aligned or skewed, with the
//! idle-exit jitter), the burst of `tcp_write_timer` runs it expires, each returning its
//! connection's spare forward alloc (reduce), and the sends that need more pages (raise).
//! Both end in the counter's update (`counter`).
//!
//! Which ticks expire timers is the timer wheel's (kernel/time/timer.c since 4.8: 64 buckets
//! per level, each level 8 times coarser, `LVL_CLK_SHIFT` 3, `LVL_BITS` 6): a timer armed
//! `d` jiffies ahead goes to the level whose range holds `d` and fires on the first tick
//! that is a multiple of that level's granularity. Every CPU's wheel counts the same jiffies,
//! so a level-1 bucket fires on every CPU on the same tick. How far ahead the reclaiming timer
//! is armed, and so its granularity, is the stream's (`super::super::stream`): the loss probe
//! 2·srtt + 2 jiffies after a send, 102 jiffies at the default 50 ms srtt and HZ=1000 (level 1,
//! every 8th tick), 27 at HZ=250 and 12 at HZ=100 (level 0, every tick).

use super::{Event, World};
use crate::experiments::percpu_counter::chains::Path;
use crate::rng::Rng;

/// Ticks between the expiries of a timer armed `timeout_jiffies` ahead: the granularity of
/// its timer-wheel level, 8^level, level = how many `LVL_START(n) = 63 << 3(n - 1)` it reaches.
pub fn wheel_granularity(timeout_jiffies: u64) -> u64 {
    let mut gran = 1;
    for level in 1..8u32 {
        if timeout_jiffies < 63 << (3 * (level - 1)) {
            break;
        }
        gran = 1 << (3 * level);
    }
    gran
}

impl World {
    pub(super) fn tick_ns(&self) -> u64 {
        1_000_000_000 / u64::from(self.cfg.hz)
    }

    /// When tick `k` fires on `cpu`: aligned (or skewed) plus the idle-exit jitter.
    pub(super) fn tick_at(&self, cpu: u32, k: u64, rng: &mut Rng) -> u64 {
        let tick = self.tick_ns();
        let skew = if self.cfg.skew_tick { tick / 2 / u64::from(self.cfg.nr_cpus()) * u64::from(cpu) } else { 0 };
        k * tick + skew + rng.range_u64(0, self.cfg.costs.tick_jitter_ns)
    }

    /// The gap to `cpu`'s next raise (uniform, mean 3600 s / (connections × raises_per_hour)).
    pub(super) fn raise_gap(&self, cpu: u32, rng: &mut Rng) -> Option<u64> {
        let rate_per_hour = u64::from(self.conns_of[cpu as usize]) * u64::from(self.cfg.raises_per_hour);
        (rate_per_hour > 0).then(|| 1 + rng.range_u64(0, 2 * 3_600_000_000_000 / rate_per_hour))
    }

    pub(super) fn tick(&mut self, cpu: u32) {
        let c = cpu as usize;
        let tick = self.tick_ns();
        let k = self.now_ns / tick + 1;
        let mut rng = std::mem::replace(&mut self.rng[c], Rng::new(0, 0));
        // Expected expiries this tick (the wheel's bucket: `gran` ticks' worth, on every
        // gran-th tick), in thousandths, rounded at random to a whole count.
        let gran = self.cfg.wheel_gran_ticks.max(1);
        let due = (k - 1) % gran == 0;
        let milli = (u128::from(due)
            * u128::from(self.conns_of[c])
            * u128::from(self.cfg.timers_per_hour)
            * u128::from(tick * gran)
            / 3_600_000_000) as u64;
        let n = milli / 1000 + u64::from(u64::from(rng.below(1000)) < milli % 1000);
        let next = self.tick_at(cpu, k, &mut rng);
        self.rng[c] = rng;
        self.q.schedule(next.max(self.now_ns + 1), Event::Tick { cpu });
        if n > 0 {
            self.q.schedule(self.now_ns, Event::Timer { cpu, left: n.min(u64::from(u32::MAX)) as u32 });
        }
    }

    /// The forward alloc of `conn` (on `cpu`). At its first touch it is drawn from the steady
    /// state: a raise sets `fw += pages` and a timer `fw = 0`, each landing on a random
    /// connection of the CPU, so the raises since the connection's last timer are geometric
    /// (each further one with probability raises / (raises + timers); mean raises / timers),
    /// and the connection holds the sum of their pages; those pages were charged before the
    /// run. (Drawing one raise at most would start the window below the steady state, and the
    /// CPUs' deltas would drift upwards through the run: +1,300 pages per CPU in 200 ms at
    /// the defaults, a fold every 20 ms per CPU at batch 112 that the steady state does not
    /// have; docs/percpu-counter.md, "batch".) The draw takes raises / timers steps on
    /// average: 1 at the defaults, 1,200 at the knobs' corner (raises 1200, timers 1 /min,
    /// where a connection holds ~5,400 pages; a 1,000,000-connection run there takes ~15 s).
    fn fw(&mut self, conn: usize, cpu: u32) -> u32 {
        if self.fw_pages[conn] == 0 {
            let (r, t) = (self.cfg.raises_per_hour, self.cfg.timers_per_hour);
            let mut rng = std::mem::replace(&mut self.rng[cpu as usize], Rng::new(0, 0));
            let mut pages = 0u32;
            // In the ramp, what the sockets held before the window is in `base_pages`.
            if self.cfg.ramp.is_none() {
                self.stats.draw_steps += 1;
                while rng.below(r + t) < r {
                    pages = pages.saturating_add(self.charge_pages(&mut rng).0);
                    self.stats.draw_steps += 1;
                }
            }
            self.rng[cpu as usize] = rng;
            self.fw_pages[conn] = pages.saturating_add(1);
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

    pub(super) fn timer(&mut self, cpu: u32, left: u32) {
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

    /// One charge of the stream: forced (`sk_forced_mem_schedule`) with the stream's share,
    /// its pages; else a raise of 1..=`raise_pages_max` pages.
    fn charge_pages(&self, rng: &mut Rng) -> (u32, bool) {
        if rng.below(1_000_000) < self.cfg.forced_ppm {
            (self.cfg.forced_pages, true)
        } else {
            (1 + rng.below(self.cfg.raise_pages_max), false)
        }
    }

    pub(super) fn raise(&mut self, cpu: u32) {
        let c = cpu as usize;
        let Some(conn) = self.pick_conn(cpu) else { return };
        let mut rng = std::mem::replace(&mut self.rng[c], Rng::new(0, 0));
        let (pages, forced) = self.charge_pages(&mut rng);
        let gap = self.raise_gap(cpu, &mut rng);
        self.rng[c] = rng;
        let held = self.fw(conn, cpu);
        self.fw_pages[conn] = held + pages + 1;
        let path = if forced {
            self.stats.forced += 1;
            Path::Forced
        } else {
            self.stats.raises += 1;
            Path::Raise
        };
        self.update(cpu, i64::from(pages), path, gap.map(|g| (Event::Raise { cpu }, g)));
    }
}
