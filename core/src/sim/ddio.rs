//! Intel DDIO: where a NIC's DMA writes land, and which of them a core still finds in the LLC.
//!
//! What hardware does (Xeon E5 v1 and later, Skylake-SP included): an inbound PCIe write goes
//! into the last-level cache, not to DRAM. A line the LLC already holds is updated in place
//! (write-update); any other line is allocated, but only in the ways the IIO may fill
//! (write-allocate; the way mask is MSR 0xC8B, `IIO_LLC_WAYS`, two ways by default). A
//! packet's payload is then an LLC hit for the core that copies it, unless later DMA writes
//! evicted it from those ways first ("leaky DMA": the bytes DMA'd between a packet's arrival
//! and its copy exceed what the ways hold). Farshin et al., "Reexamining Direct Cache Access to
//! Optimize I/O Intensive Applications for Multi-hundred-gigabit Networks", USENIX ATC 2020.
//!
//! What we simplify: the DDIO ways as a set-associative cache of their own, LRU in each set,
//! filled only by the NIC (the cores' own fills, which may also take those ways, are not
//! counted); a line's set is a hash of its physical line address (the LLC's slice hash and
//! set bits spread pages that lie far apart in memory). A core's read does not remove the line
//! (on Skylake-SP's non-inclusive LLC it moves to the core's L2; a dead payload line either
//! way).

/// The DDIO ways of one socket's LLC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ddio {
    ways: usize,
    sets: u64,
    /// `sets × ways` line addresses + 1, most recent first in each set; 0 is empty.
    tags: Vec<u64>,
}

impl Ddio {
    /// DDIO ways holding `bytes` in all, `ways` ways per set.
    pub fn new(bytes: u64, ways: u32) -> Ddio {
        let ways = ways.max(1) as usize;
        let sets = (bytes / 64 / ways as u64).max(1);
        Ddio { ways, sets, tags: vec![0; sets as usize * ways] }
    }

    /// Bytes the ways hold.
    pub fn bytes(&self) -> u64 {
        self.sets * self.ways as u64 * 64
    }

    fn set(&self, line: u64) -> usize {
        let h = (line ^ (line >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h >> 20) % self.sets) as usize * self.ways
    }

    /// The NIC writes physical line `line` (address / 64): updated where it is, else
    /// allocated in its set, whose least recently written line is evicted.
    pub fn dma_write(&mut self, line: u64) {
        let base = self.set(line);
        let set = &mut self.tags[base..base + self.ways];
        let at = set.iter().position(|&t| t == line + 1).unwrap_or(self.ways - 1);
        set[..=at].rotate_right(1);
        set[0] = line + 1;
    }

    /// Whether a core's read of physical line `line` finds it in the DDIO ways.
    pub fn holds(&self, line: u64) -> bool {
        let base = self.set(line);
        self.tags[base..base + self.ways].contains(&(line + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_survives_until_its_set_fills_with_newer_writes() {
        let mut d = Ddio::new(64 * 2 * 1024, 2);
        assert_eq!(d.bytes(), 128 * 1024);
        d.dma_write(7);
        assert!(d.holds(7));
        assert!(!d.holds(8));
        // Writing it again does not duplicate it: one more write to its set keeps it.
        d.dma_write(7);
        let base = d.set(7);
        let mut other = (8..).filter(|&l| d.set(l) == base);
        let (a, b) = (other.next().unwrap(), other.next().unwrap());
        d.dma_write(a);
        assert!(d.holds(7) && d.holds(a));
        d.dma_write(b);
        assert!(!d.holds(7) && d.holds(a) && d.holds(b));
    }

    #[test]
    fn a_stream_larger_than_the_ways_leaks() {
        let mut d = Ddio::new(1 << 20, 2);
        let lines = d.bytes() / 64;
        for l in 0..lines / 4 {
            d.dma_write(l);
        }
        let kept = (0..lines / 4).filter(|&l| d.holds(l)).count() as u64;
        assert!(kept * 10 > lines / 4 * 8, "a quarter of the ways' size mostly stays: {kept}");
        for l in lines..lines * 4 {
            d.dma_write(l);
        }
        let kept = (0..lines / 4).filter(|&l| d.holds(l)).count();
        assert_eq!(kept, 0, "four times the ways' size later, nothing of the first lines is left");
    }
}
