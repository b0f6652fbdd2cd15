//! The `struct page` of every frame of a zone, as the model keeps it: refcount, compound
//! order, the page's own cache line and who last used its data.
//!
//! What Linux does: `mem_map` (or the vmemmap) holds one 64-byte `struct page` per frame,
//! written when a block is handed out (`prep_new_page`), referenced (`page_ref_inc`) or freed.
//! What we simplify: only the fields the worlds read, stored in chunks made on the first
//! write (performance only: every frame reads the same as with one flat array).

use super::super::buddy::Pfn;
use super::super::cache::PageData;
use super::super::cacheline::CacheLine;

/// What the model keeps of one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct PageMeta {
    /// The `struct page` line.
    pub line: CacheLine,
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
