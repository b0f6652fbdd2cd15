//! The `struct page` of every frame of a zone, as the model keeps it: refcount, compound
//! order, the page's own cache line and who last used its data.
//!
//! What Linux does: `mem_map` (or the vmemmap) holds one 64-byte `struct page` per frame,
//! written when a block is handed out (`prep_new_page`), referenced (`page_ref_inc`) or freed.
//! What we simplify: only the fields the worlds read, stored in chunks made on the first
//! write (performance only: every frame reads the same as with one flat array).

use super::super::buddy::Pfn;
use super::super::cache::PageData;
use super::super::cacheline::AgedLine;

/// What the model keeps of one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct PageMeta {
    /// The `struct page` line, which ages out of the L3 between uses.
    pub line: AgedLine,
    /// Who last wrote and read the page's data (the frag copies), for
    /// [`Caches::access`](super::super::cache::Caches::access).
    pub data: PageData,
    pub refcount: u32,
    pub order: u8,
}

/// Frames per chunk of [`Pages`].
const CHUNK_PAGES: usize = 512;

/// The frames' [`PageMeta`], in chunks of [`CHUNK_PAGES`] made on the first write to one of
/// their frames; a frame of a chunk never written is all defaults (refcount 0, line untouched,
/// data never used). A zone has 2^17 frames and a run writes a few thousand of them, so a run
/// no longer starts by writing ~4 MB of defaults per zone.
#[derive(Debug, Clone)]
pub(super) struct Pages {
    chunks: Vec<Option<Box<[PageMeta]>>>,
}

impl Pages {
    pub fn new(n_pages: usize) -> Pages {
        Pages { chunks: vec![None; n_pages.div_ceil(CHUNK_PAGES)] }
    }

    #[inline]
    pub fn get(&self, pfn: Pfn) -> PageMeta {
        let i = pfn as usize;
        match &self.chunks[i / CHUNK_PAGES] {
            Some(chunk) => chunk[i % CHUNK_PAGES],
            None => PageMeta::default(),
        }
    }

    #[inline]
    pub fn get_mut(&mut self, pfn: Pfn) -> &mut PageMeta {
        let i = pfn as usize;
        let chunk = self.chunks[i / CHUNK_PAGES]
            .get_or_insert_with(|| vec![PageMeta::default(); CHUNK_PAGES].into_boxed_slice());
        &mut chunk[i % CHUNK_PAGES]
    }
}

/// Equal when every frame reads the same (whether its chunk was made or not).
impl PartialEq for Pages {
    fn eq(&self, other: &Pages) -> bool {
        self.chunks.len() == other.chunks.len()
            && self.chunks.iter().zip(&other.chunks).all(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => a == b,
                (Some(c), None) | (None, Some(c)) => c.iter().all(|p| *p == PageMeta::default()),
                (None, None) => true,
            })
    }
}

impl Eq for Pages {}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::sim::machine::SERVER_2019;

    /// CPU 1 takes an order-3 block of a fresh zone (seven split halves) and frees it (seven
    /// merges back); CPU 1 then brings in `own` lines and CPU 5 (same socket) `others`; CPU
    /// `taker` takes the block again, splitting the same halves: the hold's line ns.
    fn retake_after(own: u64, others: u64, taker: CpuId) -> u64 {
        let m = SERVER_2019;
        let mut c = Caches::new(&m);
        let mut z = Zone::new(0, 1024, 56, 12, 4, false);
        let pfn = z.rmqueue_locked(&m, &c, 1, 3).0.unwrap();
        assert!(z.put_page_testzero(pfn));
        z.free_one_page(&m, &c, 1, pfn, 3);
        c.fill(1, own);
        c.fill(5, others);
        let (again, cost) = z.rmqueue_locked(&m, &c, taker, 3);
        assert_eq!(again, Some(pfn));
        cost.line_ns
    }

    #[test]
    fn one_cpu_with_a_working_set_below_the_l3_pays_nothing_more() {
        let m = SERVER_2019;
        let l2 = m.l2_bytes / 64;
        // Its own lines, its L2 streamed over several times but not a whole L3: as before
        // (a line of its own costs nothing, and nothing else touched the zone).
        for own in [0, l2 / 2, 4 * l2] {
            assert_eq!(retake_after(own, 0, 1), 0, "{own} lines");
        }
    }

    #[test]
    fn a_bigger_working_set_makes_the_holders_struct_pages_dearer() {
        let m = SERVER_2019;
        let (l2, l3) = (m.l2_bytes / 64, m.l3_bytes_per_core * u64::from(m.cores_per_socket) / 64);
        // CPU 2 retakes what CPU 1 freed: from CPU 1's L2 (mesh), from the L3 once CPU 1
        // streamed its L2 over (an L3 hit is cheaper than a mesh transfer on Skylake-SP), from
        // DRAM once the socket streamed a whole L3, its own traffic or other cores'.
        let (in_l2, in_l3) = (retake_after(0, 0, 2), retake_after(2 * l2, 0, 2));
        let gone = [retake_after(2 * l3, 0, 2), retake_after(2 * l2, l3, 2)];
        assert!(in_l3 < in_l2, "{in_l3} {in_l2}");
        assert!(gone.iter().all(|&g| g > in_l2 && g > in_l3), "{in_l2} {in_l3} {gone:?}");
        // Other cores' traffic does not take a line out of CPU 1's L2.
        assert_eq!(retake_after(0, 2 * l3, 2), in_l2);
        // Taken on the other socket: the remote L3 or remote DRAM, dearer still.
        assert!(retake_after(2 * l2, 0, 28) > in_l3);
        assert!(retake_after(2 * l3, 0, 28) > gone[0]);
    }
}
