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
//! free. Reads do not wait for a busy line. Model assumption: the line stays in its last
//! writer's L2 for `residency_ns` after the write, then it is an L3 hit — the world that uses
//! it does not simulate the rest of the server's traffic that evicts it (the TCP_STREAM world
//! evicts by capacity instead, `sim::cache`). Users: `tcp_memory_allocated` in the
//! percpu-counter world (the 2018 `atomic_long_t`, and the 6.0 shared part behind per-CPU
//! reserves).

use super::machine::{CpuId, MachineProfile};

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
    /// The last writer, and when it wrote.
    owner: Option<CpuId>,
    written_ns: u64,
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
    /// What fetching the line costs `to` at `now_ns`: nothing if it wrote it last, a transfer
    /// by distance if the last writer wrote it at most `residency_ns` ago, an L3 hit otherwise.
    fn fetch_ns(&self, m: &MachineProfile, residency_ns: u64, to: CpuId, now_ns: u64) -> u64 {
        match self.owner {
            None => m.line_llc_ns,
            Some(o) if o == to => 0,
            Some(_) if now_ns.saturating_sub(self.written_ns) > residency_ns => m.line_llc_ns,
            Some(o) => m.transfer_ns(o, to),
        }
    }

    /// `cpu` issues a locked RMW at `now_ns` that takes `op_ns` once the line is its own.
    pub fn rmw(&mut self, m: &MachineProfile, residency_ns: u64, cpu: CpuId, now_ns: u64, op_ns: u64) -> Rmw {
        let start_ns = now_ns.max(self.busy_until_ns);
        if start_ns > now_ns {
            self.contended += 1;
        }
        if self.owner.is_some_and(|o| o != cpu) {
            self.transfers += 1;
        }
        let pull_ns = self.fetch_ns(m, residency_ns, cpu, start_ns);
        (self.owner, self.written_ns) = (Some(cpu), start_ns);
        self.busy_until_ns = start_ns + pull_ns + op_ns;
        self.writes += 1;
        Rmw { wait_ns: start_ns - now_ns, work_ns: pull_ns + op_ns }
    }

    /// A plain load by `cpu` at `now_ns` that last saw write count `*seen`: one transfer from
    /// the last writer if the line changed since (and was not written by `cpu` itself).
    pub fn read(&self, m: &MachineProfile, residency_ns: u64, cpu: CpuId, now_ns: u64, seen: &mut u64) -> u64 {
        if *seen == self.writes {
            return 0;
        }
        *seen = self.writes;
        self.fetch_ns(m, residency_ns, cpu, now_ns)
    }

    /// `cpu`, which already owns the line (it holds a lock in the same line), stores to it at
    /// `now_ns`: no cost, but readers must refetch.
    pub fn store(&mut self, cpu: CpuId, now_ns: u64) {
        (self.owner, self.written_ns) = (Some(cpu), now_ns);
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

    /// Residency long enough that no line of these tests ages out.
    const R: u64 = 60_000;

    #[test]
    fn rmws_serialise_and_pay_the_distance() {
        let m = SERVER_2019;
        let mut l = AtomicLine::default();
        let a = l.rmw(&m, R, 0, 100, 10);
        assert_eq!(a, Rmw { wait_ns: 0, work_ns: m.line_llc_ns + 10 });
        // CPU 28 (other socket) asks while CPU 0 still owns the line: it waits, then pulls it.
        let b = l.rmw(&m, R, 28, 105, 10);
        assert_eq!(b.wait_ns, 100 + a.work_ns - 105);
        assert_eq!(b.work_ns, m.line_cross_socket_ns + 10);
        // The same CPU again, after the line is free: only the locked op.
        let c = l.rmw(&m, R, 28, 10_000, 10);
        assert_eq!(c, Rmw { wait_ns: 0, work_ns: 10 });
        assert_eq!((l.contended, l.transfers, l.writes), (1, 1, 3));
    }

    #[test]
    fn a_reader_refetches_only_after_a_write() {
        let m = SERVER_2019;
        let mut l = AtomicLine::default();
        l.rmw(&m, R, 1, 0, 10);
        let mut seen = 0;
        assert_eq!(l.read(&m, R, 2, 50, &mut seen), m.line_same_socket_ns);
        assert_eq!(l.read(&m, R, 2, 60, &mut seen), 0);
        l.rmw(&m, R, 2, 100, 10);
        let mut own = seen;
        assert_eq!(l.read(&m, R, 2, 200, &mut own), 0, "its own write is in its cache");
    }
}
