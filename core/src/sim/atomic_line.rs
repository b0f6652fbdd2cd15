//! A shared counter's cache line under locked read-modify-writes (`lock xadd`, `lock add`).
//!
//! What hardware does: a locked RMW needs the line in the Modified/Exclusive state in the
//! writer's own cache for the length of the operation, so RMWs on one line from different
//! CPUs are serialised: each must first pull the line from the last writer (a transfer by
//! distance, [`CacheLine::touch`](super::cacheline::CacheLine::touch)) and then execute the locked op itself. When several CPUs
//! want the line at once, the later ones stall until the earlier ones are done: contention
//! grows with the number of writers. A plain load of a line another CPU has written since
//! the reader's last look costs one transfer too (the line becomes Shared).
//!
//! What we simplify: the line is a FIFO resource, busy from the moment an RMW starts pulling
//! it until its locked op retires; a request that arrives while it is busy starts when it is
//! free. Reads do not wait for a busy line. Where the line is when a CPU wants it is the
//! capacity-based cache model's answer ([`Caches::access`]): in the last writer's L2 while
//! fewer than an L2 of other lines came into that core since (a transfer by distance, the SMT
//! sibling's 8 ns included), else in that socket's L3 (an L3 hit, or a cross-socket transfer
//! from the other socket), else DRAM. The world charges the traffic that ages it out
//! ([`Caches::fill`]). Users: `tcp_memory_allocated` in the percpu-counter world (the 2018
//! `atomic_long_t`, and the 6.0 shared part behind per-CPU reserves), and `fbc->count`'s line.

use super::cache::{Caches, PageData, Source};
use super::machine::{CpuId, MachineProfile};

/// The node a global kernel variable lives on (.data/.bss of the kernel image: node 0).
pub const HOME_NODE: u32 = 0;

/// What one locked RMW cost the CPU that issued it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rmw {
    /// Stalled while earlier RMWs of other CPUs owned the line.
    pub wait_ns: u64,
    /// Pulling the line over (0 if the CPU wrote it last) plus the locked op itself.
    pub work_ns: u64,
}

impl Rmw {
    pub fn total_ns(self) -> u64 {
        self.wait_ns + self.work_ns
    }
}

/// One line holding an atomic counter, with its write count for readers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AtomicLine {
    /// Who holds the line in the cache model, and the last writer.
    data: PageData,
    owner: Option<CpuId>,
    /// When the last RMW that owns the line retires.
    busy_until_ns: u64,
    /// Writes so far: a reader whose last seen write count differs must refetch the line.
    pub writes: u64,
    /// RMWs that found the line busy.
    pub contended: u64,
    /// RMWs that had to pull the line from another CPU's cache.
    pub transfers: u64,
}

impl AtomicLine {
    /// What getting the line costs `to` now, by where the cache model finds it; the line is
    /// `to`'s afterwards (written) or also `to`'s (read).
    fn fetch_ns(&mut self, m: &MachineProfile, caches: &mut Caches, to: CpuId, write: bool) -> u64 {
        let src = caches.access(&mut self.data, to, HOME_NODE, 1, write);
        match (src, self.owner) {
            // The SMT sibling wrote it: the same L2, but the line still moves between the
            // threads' L1s.
            (Source::Own, Some(o)) if o != to && caches.core(o) == caches.core(to) => m.line_same_core_ns,
            _ => m.source_ns(src),
        }
    }

    /// `cpu` issues a locked RMW at `now_ns` that takes `op_ns` once the line is its own.
    pub fn rmw(&mut self, m: &MachineProfile, caches: &mut Caches, cpu: CpuId, now_ns: u64, op_ns: u64) -> Rmw {
        let start_ns = now_ns.max(self.busy_until_ns);
        if start_ns > now_ns {
            self.contended += 1;
        }
        if self.owner.is_some_and(|o| o != cpu) {
            self.transfers += 1;
        }
        let pull_ns = self.fetch_ns(m, caches, cpu, true);
        self.owner = Some(cpu);
        self.busy_until_ns = start_ns + pull_ns + op_ns;
        self.writes += 1;
        Rmw { wait_ns: start_ns - now_ns, work_ns: pull_ns + op_ns }
    }

    /// A plain load by `cpu` that last saw write count `*seen`: where the cache model finds
    /// the line if it changed since (nothing if `cpu` wrote it itself or saw this write).
    pub fn read(&mut self, m: &MachineProfile, caches: &mut Caches, cpu: CpuId, seen: &mut u64) -> u64 {
        if *seen == self.writes {
            return 0;
        }
        *seen = self.writes;
        self.fetch_ns(m, caches, cpu, false)
    }

    /// `cpu`, which already owns the line (it holds a lock in the same line), stores to it:
    /// no cost, but readers must refetch.
    pub fn store(&mut self, caches: &mut Caches, cpu: CpuId) {
        caches.access(&mut self.data, cpu, HOME_NODE, 1, true);
        self.owner = Some(cpu);
        self.writes += 1;
    }

    /// Who wrote the line last.
    pub fn owner(&self) -> Option<CpuId> {
        self.owner
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn rmws_serialise_and_pay_the_distance() {
        let m = SERVER_2019;
        let mut c = Caches::new(&m);
        let mut l = AtomicLine::default();
        let a = l.rmw(&m, &mut c, 0, 100, 10);
        assert_eq!(a, Rmw { wait_ns: 0, work_ns: m.dram_ns + 10 }, "never touched: from DRAM");
        // CPU 28 (other socket) asks while CPU 0 still owns the line: it waits, then pulls it.
        let b = l.rmw(&m, &mut c, 28, 105, 10);
        assert_eq!(b.wait_ns, 100 + a.work_ns - 105);
        assert_eq!(b.work_ns, m.line_cross_socket_ns + 10);
        // The same CPU again, after the line is free: only the locked op; its sibling: 8 ns.
        assert_eq!(l.rmw(&m, &mut c, 28, 10_000, 10), Rmw { wait_ns: 0, work_ns: 10 });
        assert_eq!(l.rmw(&m, &mut c, 28 + 56, 20_000, 10).work_ns, m.line_same_core_ns + 10);
        assert_eq!((l.contended, l.transfers, l.writes), (1, 2, 4));
    }

    #[test]
    fn a_line_ages_out_of_its_writers_l2_by_capacity() {
        let m = SERVER_2019;
        let mut c = Caches::new(&m);
        let mut l = AtomicLine::default();
        l.rmw(&m, &mut c, 1, 0, 10);
        assert_eq!(l.rmw(&m, &mut c, 2, 1_000, 10).work_ns, m.line_same_socket_ns + 10);
        // CPU 2's core brings a whole L2 of other data in: the line is in the L3 now.
        c.fill(2, m.l2_bytes / 64);
        assert_eq!(l.rmw(&m, &mut c, 3, 2_000, 10).work_ns, m.line_llc_ns + 10);
    }

    #[test]
    fn a_reader_refetches_only_after_a_write() {
        let m = SERVER_2019;
        let mut c = Caches::new(&m);
        let mut l = AtomicLine::default();
        l.rmw(&m, &mut c, 1, 0, 10);
        let mut seen = 0;
        assert_eq!(l.read(&m, &mut c, 2, &mut seen), m.line_same_socket_ns);
        assert_eq!(l.read(&m, &mut c, 2, &mut seen), 0);
        l.rmw(&m, &mut c, 2, 100, 10);
        let mut own = seen;
        assert_eq!(l.read(&m, &mut c, 2, &mut own), 0, "its own write is in its cache");
    }
}
