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

    /// `cpu` writes the line: the cost of getting it there by distance (0 if it is its own,
    /// an L3 hit if nobody holds it or its last owner's L2 has since evicted it, by capacity:
    /// [`Caches::still_in_l2`]); the line is `cpu`'s afterwards.
    pub fn touch(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> u64 {
        let ns = match self.owner() {
            None => m.line_llc_ns,
            Some(o) if o == cpu => 0,
            Some(o) if caches.still_in_l2(o, self.written_ns() as u32) => caches.transfer_ns(m, o, cpu),
            Some(_) => m.line_llc_ns,
        };
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
}
