//! One cache line shared by CPUs: who wrote it last and when, and what touching it costs.
//!
//! What hardware does: a line written by one core sits modified in that core's private
//! caches; another core that wants it must fetch it from there: cheapest from the SMT
//! sibling (same L1/L2), dearer from another core of the socket (the mesh), dearest from the
//! other socket (UPI snoop). A line nobody wrote recently has been evicted to the L3.
//!
//! What we simplify: MESI is reduced to "last writer and when"; a touch is a write (the line
//! becomes the toucher's). Costs come from [`MachineProfile::line_ns`] (with ageing into the
//! L3 after `l2_residency_ns`) or [`MachineProfile::transfer_ns`] (a lock word spun on stays
//! hot). Users: the qspinlock word, `struct zone`'s lines, every `struct page` and the data of
//! every page; any shared counter can use it.
//!
//! Layout: owner and time are packed into one `u64` (owner + 1 in the top 16 bits, 0 for
//! none; time in the low 48, i.e. runs up to 78 simulated hours), so a zone's per-page arrays
//! cost one cache miss per page instead of two; an untouched line is all zero bits.

use super::machine::{CpuId, MachineProfile};

const TIME_BITS: u32 = 48;
const TIME_MASK: u64 = (1 << TIME_BITS) - 1;

/// Where a written line was found ([`CacheLine::write`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Residency {
    /// In the writer's own private cache (it wrote the line recently).
    Own,
    /// In another CPU's private cache (written there recently): the write must snoop it.
    Remote,
    /// In the L3 or memory (never written, or aged out).
    Shared,
}

/// The last writer of a line and when it wrote (8 bytes).
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

    /// `cpu` writes the line at `now_ns`: the cost of getting it there by distance (0 if it
    /// is its own, an L3 hit if nobody holds it recently); the line is `cpu`'s afterwards.
    pub fn touch(&mut self, m: &MachineProfile, cpu: CpuId, now_ns: u64) -> u64 {
        let ns = m.line_ns(self.owner(), self.written_ns(), cpu, now_ns);
        self.set(cpu, now_ns);
        ns
    }

    /// `cpu` writes the line at `now_ns` after it already paid for getting it (e.g. it took a
    /// lock word in the same line): the line is `cpu`'s afterwards, at no further cost.
    pub fn claim(&mut self, cpu: CpuId, now_ns: u64) {
        self.set(cpu, now_ns);
    }

    /// A hot line changes hands (a lock word that waiters keep in their caches never ages
    /// out): the transfer from the last owner to `cpu`, an L3 hit if it never had one.
    /// The write time is not tracked.
    pub fn handoff(&mut self, m: &MachineProfile, cpu: CpuId) -> u64 {
        let ns = self.owner().map_or(m.line_llc_ns, |o| m.transfer_ns(o, cpu));
        self.set(cpu, self.written_ns());
        ns
    }

    /// `cpu` overwrites data in the line at `now_ns` (a streaming copy): where it found the
    /// line. Recent means written at most `l2_residency_ns` ago.
    pub fn write(&mut self, m: &MachineProfile, cpu: CpuId, now_ns: u64) -> Residency {
        let recent = now_ns.saturating_sub(self.written_ns()) <= m.l2_residency_ns;
        let r = match self.owner() {
            Some(o) if recent && o == cpu => Residency::Own,
            Some(_) if recent => Residency::Remote,
            _ => Residency::Shared,
        };
        self.set(cpu, now_ns);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn costs_by_distance_and_age() {
        let m = SERVER_2019;
        let mut l = CacheLine::UNTOUCHED;
        assert_eq!(l.owner(), None);
        assert_eq!(l.touch(&m, 0, 10), m.line_llc_ns);
        assert_eq!(l.touch(&m, 0, 20), 0);
        assert_eq!(l.touch(&m, 56, 30), m.line_same_core_ns);
        assert_eq!(l.touch(&m, 1, 40), m.line_same_socket_ns);
        assert_eq!(l.touch(&m, 28, 50), m.line_cross_socket_ns);
        assert_eq!(l.touch(&m, 0, 51 + m.l2_residency_ns), m.line_llc_ns);
        assert_eq!((l.owner(), l.written_ns()), (Some(0), 51 + m.l2_residency_ns));
        assert_eq!(l.handoff(&m, 28), m.line_cross_socket_ns);
        assert_eq!(l.written_ns(), 51 + m.l2_residency_ns);
    }

    #[test]
    fn writes_find_own_remote_or_shared_lines() {
        let m = SERVER_2019;
        let mut l = CacheLine::UNTOUCHED;
        assert_eq!(l.write(&m, 1, 0), Residency::Shared);
        assert_eq!(l.write(&m, 1, 1000), Residency::Own);
        assert_eq!(l.write(&m, 2, 2000), Residency::Remote);
        assert_eq!(l.write(&m, 1, 3000 + m.l2_residency_ns), Residency::Shared);
    }
}
