//! `struct array_cache`: a LIFO of object pointers (`avail` of at most `limit`, moved
//! `batchcount` at a time, `touched` since the last reap) — a CPU's array, a node's shared
//! array, or the array inside an alien cache — and `transfer_objects` between two of them.
//!
//! Lines: the header (avail, limit, batchcount, touched: 16 bytes) and the first 6 entries
//! share line 0, then 8 entries (8-byte pointers) per line. A CPU's own array stays in its
//! caches; a shared array or an alien cache moves between the CPUs that fill and empty it,
//! and those transfers are what a holder of `list_lock` or of an alien lock waits on.

use crate::sim::cache::Caches;
use crate::sim::cacheline::CacheLine;
use crate::sim::machine::{CpuId, MachineProfile};
use crate::sim::slub::Obj;

/// Pointers per 64-byte line.
const PER_LINE: usize = 8;
/// Words of the header before `entry[0]`.
const HEADER_WORDS: usize = 2;

/// One `array_cache` with its entries and their lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ArrayCache {
    /// `entry[0..avail]`, the top (next to allocate) last.
    pub entry: Vec<Obj>,
    pub limit: u32,
    pub batchcount: u32,
    pub touched: bool,
    lines: Vec<CacheLine>,
}

impl ArrayCache {
    /// `init_arraycache(ac, limit, batch)`.
    pub fn new(limit: u32, batchcount: u32) -> ArrayCache {
        let n_lines = (limit as usize + HEADER_WORDS).div_ceil(PER_LINE);
        ArrayCache {
            entry: Vec::with_capacity(limit as usize),
            limit,
            batchcount,
            touched: false,
            lines: vec![CacheLine::UNTOUCHED; n_lines],
        }
    }

    /// `ac->avail`.
    pub fn avail(&self) -> u32 {
        self.entry.len() as u32
    }

    /// Room left (`limit - avail`).
    pub fn room(&self) -> u32 {
        self.limit - self.avail()
    }

    /// `cpu` writes the header and entries `from..to`: the ns their lines cost.
    pub fn touch(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId, from: usize, to: usize) -> u64 {
        let mut ns = self.lines[0].touch(m, caches, cpu);
        if to > from {
            let (first, last) = ((from + HEADER_WORDS) / PER_LINE, (to - 1 + HEADER_WORDS) / PER_LINE);
            for line in &mut self.lines[first..=last] {
                ns += line.touch(m, caches, cpu);
            }
        }
        ns
    }

    /// Pops the top entry (`ac->entry[--ac->avail]`).
    pub fn pop(&mut self) -> Option<Obj> {
        self.entry.pop()
    }

    /// Pushes one entry (`ac->entry[ac->avail++] = objp`).
    pub fn push(&mut self, o: Obj) {
        debug_assert!(self.avail() < self.limit, "bug: push onto a full array_cache");
        self.entry.push(o);
    }
}

/// `transfer_objects(to, from, max)`: moves `min(from.avail, max, to's room)` entries from
/// the top of `from` to the top of `to`, keeping their order; `cpu` writes both arrays'
/// lines. Returns (entries moved, line ns).
pub(super) fn transfer_objects(
    m: &MachineProfile,
    caches: &Caches,
    cpu: CpuId,
    to: &mut ArrayCache,
    from: &mut ArrayCache,
    max: u32,
) -> (u32, u64) {
    let nr = from.avail().min(max).min(to.room());
    if nr == 0 {
        return (0, 0);
    }
    let (f_end, t_start) = (from.entry.len(), to.entry.len());
    let f_start = f_end - nr as usize;
    let mut ns = from.touch(m, caches, cpu, f_start, f_end);
    ns += to.touch(m, caches, cpu, t_start, t_start + nr as usize);
    to.entry.extend(from.entry.drain(f_start..));
    (nr, ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::machine::SERVER_2019;

    fn obj(i: u16) -> Obj {
        Obj { cache: 0, slab: 0, idx: i }
    }

    #[test]
    fn transfer_takes_the_top_in_order_and_lines_move_between_cpus() {
        let m = SERVER_2019;
        let c = Caches::new(&m);
        let mut from = ArrayCache::new(20, 10);
        let mut to = ArrayCache::new(4, 2);
        for i in 0..10 {
            from.push(obj(i));
        }
        from.touch(&m, &c, 0, 0, 10);
        let (nr, ns) = transfer_objects(&m, &c, 28, &mut to, &mut from, 8);
        assert_eq!(nr, 4);
        assert_eq!(to.entry, vec![obj(6), obj(7), obj(8), obj(9)]);
        assert_eq!(from.avail(), 6);
        // CPU 28 (the other socket) pulled from's header and the lines of entries 6..10.
        assert!(ns >= 2 * m.line_cross_socket_ns);
        assert_eq!(to.pop(), Some(obj(9)));
    }
}
