//! One cache line shared by CPUs: who wrote it last, and what touching it costs.
//!
//! What hardware does: a line written by one core sits modified in that core's private
//! caches; another core that wants it must fetch it from there: cheapest from the SMT
//! sibling (same L1/L2), dearer from another core of the socket (the mesh), dearest from the
//! other socket (UPI snoop). A line the owner's own traffic has since pushed out of its L2 is
//! found in the L3.
//!
//! What we simplify: MESI is reduced to "last writer"; a touch is a write (the line becomes the
//! toucher's). Whether the last writer still holds it is a matter of capacity, not time: the
//! line remembers the writer core's fill count ([`Caches::stamp`]) and is gone once a whole L2
//! of traffic came in after it ([`Caches::still_in_l2`]). A lock word spun on stays hot
//! ([`CacheLine::handoff`]). Users: the qspinlock word, `struct zone`'s lines, every `struct
//! page`; a page's data has its own record ([`crate::sim::cache::PageData`]).
//!
//! A line that CPUs also read without writing (`struct zone`'s `free_area` lines, which every
//! allocator reads before it takes `zone->lock`) is a [`SharedLine`]: it remembers its readers
//! since the last write, and a write that finds other copies pays for them
//! ([`SharedLine::write`]).
//!
//! Layout: owner and stamp are packed into one `u64` (owner + 1 in the top 16 bits, 0 for
//! none; the stamp in the low 48), so a zone's per-page array costs one cache miss per page;
//! an untouched line is all zero bits.

use super::cache::Caches;
use super::machine::{CpuId, MachineProfile};

const TIME_BITS: u32 = 48;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;

/// The last writer of a line and its core's fill count then (8 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheLine(u64);

impl Default for CacheLine {
    fn default() -> Self {
        CacheLine::UNTOUCHED
    }
}

impl CacheLine {
    /// Never written: no owner, time 0.
    pub const UNTOUCHED: CacheLine = CacheLine(0);

    pub fn owner(self) -> Option<CpuId> {
        let o = self.0 >> TIME_BITS;
        (o != 0).then(|| (o - 1) as CpuId)
    }

    pub fn written_ns(self) -> u64 {
        self.0 & TIME_MASK
    }

    fn set(&mut self, cpu: CpuId, now_ns: u64) {
        debug_assert!(now_ns <= TIME_MASK && cpu < CpuId::MAX, "bug: line time or cpu out of range");
        self.0 = ((u64::from(cpu) + 1) << TIME_BITS) | now_ns;
    }

    /// What bringing the line to `cpu` costs by distance: 0 if it is its own, an L3 hit if
    /// nobody holds it or its last owner's L2 has since evicted it (by capacity:
    /// [`Caches::still_in_l2`]), else the transfer from the owner.
    pub fn fetch_ns(self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> u64 {
        match self.owner() {
            None => m.line_llc_ns,
            Some(o) if o == cpu => 0,
            Some(o) if caches.still_in_l2(o, self.written_ns() as u32) => caches.transfer_ns(m, o, cpu),
            Some(_) => m.line_llc_ns,
        }
    }

    /// `cpu` writes the line: the cost of getting it there ([`CacheLine::fetch_ns`]); the line
    /// is `cpu`'s afterwards.
    pub fn touch(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> u64 {
        let ns = self.fetch_ns(m, caches, cpu);
        self.set(cpu, u64::from(caches.stamp(cpu)));
        ns
    }

    /// A hot line changes hands (a lock word that waiters keep in their caches never ages
    /// out): the transfer from the last owner to `cpu`, an L3 hit if it never had one.
    /// The write time is not tracked.
    pub fn handoff(&mut self, m: &MachineProfile, cpu: CpuId) -> u64 {
        let ns = self.owner().map_or(m.line_llc_ns, |o| m.transfer_ns(o, cpu));
        self.set(cpu, self.written_ns());
        ns
    }
}

/// A line that can also leave the L3: a [`CacheLine`] and its writer's socket's L3 fill count
/// at the write ([`Caches::l3_stamp`]). Used for every `struct page`, whose lines go cold
/// between two uses of a frame (a freed block's struct pages wait in the buddy while the data
/// traffic of the other flows streams through the L3).
///
/// What hardware does: a line its owner's L2 evicted sits in that socket's L3 until the
/// socket's traffic evicts it too; a core then finds it in its own L3, in the other socket's
/// L3 (a snoop over UPI) or in DRAM of the line's home node.
///
/// What we simplify: the rule of [`CacheLine::fetch_ns`] while the line is in its writer's
/// L3 (its own line costs nothing, another core's L2 the transfer), except that a line in
/// the other socket's L3 costs the cross-socket transfer, not a local L3 hit; it is gone
/// from the L3 once the writer's socket took a whole L3 of lines after the write (LRU by
/// counting, as [`Caches::access`] ages page data). A line never written in the run keeps the
/// plain rule's L3 hit: a world that starts from a built state (a fragmented zone, a steady
/// SLUB start) did not write those lines, and how cold they are is not known. The line's home
/// is the node its caller names (a zone's `mem_map` is on its node).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AgedLine {
    pub line: CacheLine,
    l3_stamp: u32,
}

impl AgedLine {
    /// What bringing the line to `cpu` costs ([`AgedLine`]'s rule); `home` is its node.
    pub fn fetch_ns(self, m: &MachineProfile, caches: &Caches, cpu: CpuId, home: u32) -> u64 {
        let dram = || if caches.socket(cpu) == home { m.dram_ns } else { m.dram_remote_ns };
        match self.line.owner() {
            None => m.line_llc_ns,
            Some(o) if caches.still_in_l2(o, self.line.written_ns() as u32) => caches.transfer_ns(m, o, cpu),
            Some(o) if !caches.still_in_l3(o, self.l3_stamp) => dram(),
            Some(o) if o == cpu => 0,
            Some(o) if caches.socket(o) == caches.socket(cpu) => m.line_llc_ns,
            Some(_) => m.line_cross_socket_ns,
        }
    }

    /// `cpu` writes the line ([`AgedLine::fetch_ns`]); it is `cpu`'s afterwards.
    pub fn touch(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId, home: u32) -> u64 {
        let ns = self.fetch_ns(m, caches, cpu, home);
        self.line.touch(m, caches, cpu);
        self.l3_stamp = caches.l3_stamp(cpu);
        ns
    }
}

/// A line written by one CPU at a time and read by many: its last writer ([`CacheLine`]) and
/// the CPUs that have read a copy since (a bit each).
///
/// What hardware does (MESI): a read leaves a shared copy in the reader's cache (the writer's
/// copy becomes shared too); a later store must first invalidate every other copy. A load
/// followed by a store to a line that other caches share takes two trips: the load brings a
/// shared copy, the store then asks for ownership.
///
/// What we simplify: a line no one read since its last write moves to its next writer in one
/// transfer ([`CacheLine::touch`], the model's rule for every line), as before. A line with
/// readers costs its writer the load (nothing if the writer still holds a copy) plus the
/// ownership request, whose invalidations go out to all the other holders at once (model
/// assumption: the snoop filter names the sharers and they are snooped in parallel, so it
/// costs the farthest one's transfer, not the sum; we found no measurement of invalidation
/// cost against the number of sharers for Skylake-SP). A reader's copy is not aged out by
/// capacity (readers re-read the line at every attempt).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SharedLine {
    pub line: CacheLine,
    /// Bit `cpu` set: `cpu` has read a copy since the last write.
    readers: Vec<u64>,
}

impl SharedLine {
    fn has_reader(&self, cpu: CpuId) -> bool {
        let (w, b) = (cpu as usize / 64, cpu as usize % 64);
        self.readers.get(w).is_some_and(|x| x & (1 << b) != 0)
    }

    /// CPUs that read the line since its last write.
    pub fn readers(&self) -> impl Iterator<Item = CpuId> + '_ {
        self.readers
            .iter()
            .enumerate()
            .flat_map(|(w, &x)| (0..64).filter(move |b| x & (1u64 << b) != 0).map(move |b| (w * 64 + b) as CpuId))
    }

    /// `cpu` reads the line: the transfer by distance unless it writes it last or already
    /// holds a copy ([`CacheLine::fetch_ns`]); `cpu` holds a copy afterwards.
    pub fn read(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> u64 {
        if self.line.owner() == Some(cpu) || self.has_reader(cpu) {
            return 0;
        }
        let ns = self.line.fetch_ns(m, caches, cpu);
        let (w, b) = (cpu as usize / 64, cpu as usize % 64);
        if self.readers.len() <= w {
            self.readers.resize(w + 1, 0);
        }
        self.readers[w] |= 1 << b;
        ns
    }

    /// `cpu` loads and then stores the line (a list head, a counter): without readers since
    /// the last write, [`CacheLine::touch`]; with readers, the load (0 if `cpu` still holds a
    /// copy, else the fetch from the last writer) and then the ownership request, as far as
    /// the farthest other holder (the last writer and every reader but `cpu`).
    pub fn write(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> u64 {
        if self.readers.iter().all(|&x| x == 0) {
            return self.line.touch(m, caches, cpu);
        }
        let load = if self.has_reader(cpu) { 0 } else { self.line.fetch_ns(m, caches, cpu) };
        let writer = self.line.owner().filter(|&o| caches.still_in_l2(o, self.line.written_ns() as u32));
        let invalidate = self
            .readers()
            .chain(writer)
            .filter(|&o| o != cpu)
            .map(|o| caches.transfer_ns(m, o, cpu))
            .max()
            .unwrap_or(0);
        self.readers.iter_mut().for_each(|x| *x = 0);
        self.line.touch(m, caches, cpu);
        load + invalidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn costs_by_distance_and_capacity() {
        let m = SERVER_2019;
        let mut c = Caches::new(&m);
        let mut l = CacheLine::UNTOUCHED;
        assert_eq!(l.owner(), None);
        assert_eq!(l.touch(&m, &c, 0), m.line_llc_ns);
        assert_eq!(l.touch(&m, &c, 0), 0);
        assert_eq!(l.touch(&m, &c, 56), m.line_same_core_ns);
        assert_eq!(l.touch(&m, &c, 1), m.line_same_socket_ns);
        assert_eq!(l.touch(&m, &c, 28), m.line_cross_socket_ns);
        // CPU 28's core streams a full L2 of other data: the line is in the L3 now.
        let mut other = crate::sim::cache::PageData::default();
        c.access(&mut other, 28, 1, (m.l2_bytes / 64) as u32, true);
        assert_eq!(l.touch(&m, &c, 0), m.line_llc_ns);
        assert_eq!(l.owner(), Some(0));
        assert_eq!(l.handoff(&m, 28), m.line_cross_socket_ns);
    }

    #[test]
    fn an_aged_line_leaves_the_l3_by_its_sockets_traffic() {
        let m = SERVER_2019;
        let mut c = Caches::new(&m);
        let (l2, l3) = (m.l2_bytes / 64, m.l3_bytes_per_core * u64::from(m.cores_per_socket) / 64);
        // Never written in the run: a plain line's L3 hit.
        let mut l = AgedLine::default();
        assert_eq!(l.fetch_ns(&m, &c, 28, 0), m.line_llc_ns);
        // While the writer's L2 holds it, a plain line's rule.
        assert_eq!(l.touch(&m, &c, 1, 0), m.line_llc_ns);
        assert_eq!(l.fetch_ns(&m, &c, 1, 0), 0);
        assert_eq!(l.fetch_ns(&m, &c, 2, 0), m.line_same_socket_ns);
        // CPU 1's core streams a whole L2: the line is in socket 0's L3, a remote L3 from
        // socket 1, and still its writer's own line (the plain rule's simplification).
        c.fill(1, l2);
        assert_eq!(l.fetch_ns(&m, &c, 2, 0), m.line_llc_ns);
        assert_eq!(l.fetch_ns(&m, &c, 28, 0), m.line_cross_socket_ns);
        assert_eq!(l.fetch_ns(&m, &c, 1, 0), 0);
        // The other socket's traffic does not age it; its own socket's whole L3 does.
        c.fill(28, 2 * l3);
        assert_eq!(l.fetch_ns(&m, &c, 2, 0), m.line_llc_ns);
        c.fill(3, l3 - l2);
        assert_eq!(l.fetch_ns(&m, &c, 2, 0), m.dram_ns);
        assert_eq!(l.fetch_ns(&m, &c, 1, 0), m.dram_ns);
        assert_eq!(l.fetch_ns(&m, &c, 28, 0), m.dram_remote_ns);
    }

    #[test]
    fn a_shared_line_costs_its_next_writer_the_ownership_request() {
        let m = SERVER_2019;
        let c = Caches::new(&m);
        let mesh = m.line_same_socket_ns;
        // One CPU alone: its reads of its own line are free, its writes as a plain line's.
        let mut one = SharedLine::default();
        let mut plain = CacheLine::UNTOUCHED;
        assert_eq!(one.write(&m, &c, 1), plain.touch(&m, &c, 1));
        for _ in 0..3 {
            assert_eq!(one.read(&m, &c, 1), 0);
            assert_eq!(one.write(&m, &c, 1), plain.touch(&m, &c, 1));
        }
        assert_eq!(one.readers().count(), 0);
        // CPU 1 wrote it; CPU 2 writes next: one transfer, as a plain line.
        let mut l = SharedLine::default();
        l.write(&m, &c, 1);
        assert_eq!(l.clone().write(&m, &c, 2), mesh);
        // CPUs 3 and 4 read it first (a transfer each, then free): CPU 2's load brings a
        // shared copy and its store invalidates the three others: two transfers.
        assert_eq!(l.read(&m, &c, 3), mesh);
        assert_eq!(l.read(&m, &c, 3), 0);
        assert_eq!(l.read(&m, &c, 4), mesh);
        assert_eq!(l.readers().collect::<Vec<_>>(), vec![3, 4]);
        assert_eq!(l.clone().write(&m, &c, 2), 2 * mesh);
        // A reader that writes already holds the data: only the ownership request.
        assert_eq!(l.clone().write(&m, &c, 3), mesh);
        // The last writer writes again after others read: its store invalidates them.
        assert_eq!(l.write(&m, &c, 1), mesh);
        assert_eq!(l.readers().count(), 0);
        // A reader on the other socket is the farthest copy.
        l.read(&m, &c, 28);
        assert_eq!(l.write(&m, &c, 2), mesh + m.line_cross_socket_ns);
    }
}
