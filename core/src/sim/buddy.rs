//! The buddy allocator of one zone: `free_area[order]` lists over page frame numbers.
//!
//! What Linux does (mm/page_alloc.c): free memory is kept as naturally aligned blocks of
//! 2^order pages, one free list per order. `__rmqueue_smallest()` takes the first block of the
//! smallest order that is not empty and `expand()` splits it, putting each upper half back on
//! the list one order down. `__free_one_page()` merges a freed block with its buddy
//! (`pfn ^ (1 << order)`) as long as the buddy is free and of the same order, then puts the
//! result at the head of its list. All of it runs under `zone->lock`.
//!
//! `__free_one_page()` puts the merged block at the tail instead when the buddy of the block
//! one order up is free (`buddy_merge_likely()`, 6dda9d55bf54 in 2.6.35, still in 5.2), so
//! blocks about to coalesce are handed out last.
//!
//! What we simplify: one migrate type, no pageblocks, no watermarks. The lists are intrusive, like `page->lru`: `next`/`prev` arrays indexed by pfn,
//! so removal of a merged buddy is O(1), exactly as in the kernel. Bookkeeping only: no memory.

use serde::Serialize;

/// Orders 0..MAX_ORDER-1 (MAX_ORDER = 11 before 6.4: blocks of up to 4 MiB).
pub const MAX_ORDER: usize = 11;
/// Page frame number within a zone.
pub type Pfn = u32;
const NIL: u32 = u32::MAX;
const NOT_FREE: u8 = u8::MAX;

/// A field of `struct free_area` a buddy call uses (one migratetype: `free_list[0]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AreaField {
    /// `free_list[mt].next` written (`list_add`, or `list_del` of the first entry).
    HeadNext = 0,
    /// `free_list[mt].prev` written (`list_add_tail`, `list_del` of the last entry, an
    /// add to an empty list).
    HeadPrev = 1,
    /// `nr_free` written (every add and del).
    NrFree = 2,
    /// `free_list[mt].next` read and found empty (`__rmqueue_smallest` trying an order).
    HeadRead = 3,
}

/// Bits per order in [`FreeArea::area_fields`].
pub const AREA_FIELDS: usize = 4;

/// What one allocation or free did, for the cost model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct BuddyWork {
    /// Split steps (`expand`) or merge steps (`__free_one_page`).
    pub steps: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreeArea {
    n_pages: u32,
    head: [u32; MAX_ORDER],
    /// Last entry of each list (`list_head.prev`), for `list_add_tail`.
    tail: [u32; MAX_ORDER],
    nr_free: [u64; MAX_ORDER],
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Order of the free block starting at this pfn (PageBuddy + page_order), or NOT_FREE.
    free_order: Vec<u8>,
    /// The `struct page`s the last [`FreeArea::alloc`] or [`FreeArea::free`] wrote or read
    /// (the block, its list neighbours, the buddies it merged with), in order; a pfn may repeat.
    pub touched: Vec<Pfn>,
    /// Bit `o` set if that call read or wrote `free_area[o]` (list head, `nr_free`).
    pub orders_touched: u16,
    /// Which fields of each `free_area[o]` that call wrote or only read: bits
    /// `AREA_FIELDS * o + f`, `f` one of [`AreaField`] (for the line each lives on).
    pub area_fields: u64,
    /// The last [`FreeArea::free`]'s `page_is_buddy()` read of a buddy that did not merge: its
    /// address depends only on pfn and order and the branch goes to `done_merging`, so the
    /// miss runs alongside the list_add's read of the list head (not in `touched`).
    pub probe: Option<Pfn>,
    /// Frees that put their block at the head / at the tail of its list, allocations that had
    /// to split a larger block (counters for the docs and tests).
    pub head_adds: u64,
    pub tail_adds: u64,
    pub splits: u64,
    /// Frees that merged with at least one buddy.
    pub merges: u64,
}

impl FreeArea {
    /// A zone of `n_pages` (a multiple of 2^(MAX_ORDER-1)), all free in max-order blocks.
    pub fn new(n_pages: u32) -> Self {
        let top = 1u32 << (MAX_ORDER - 1);
        assert!(n_pages > 0 && n_pages % top == 0, "bug: zone size {n_pages} is not a multiple of {top}");
        let n = n_pages as usize;
        let mut fa = FreeArea {
            n_pages,
            head: [NIL; MAX_ORDER],
            tail: [NIL; MAX_ORDER],
            nr_free: [0; MAX_ORDER],
            next: vec![NIL; n],
            prev: vec![NIL; n],
            free_order: vec![NOT_FREE; n],
            touched: Vec::new(),
            orders_touched: 0,
            area_fields: 0,
            probe: None,
            head_adds: 0,
            tail_adds: 0,
            splits: 0,
            merges: 0,
        };
        for pfn in (0..n_pages).step_by(top as usize).rev() {
            fa.list_add(pfn, MAX_ORDER - 1);
        }
        fa
    }

    /// A zone as a long-running server has it: the first `fragmented_pages` are cut into
    /// 4-page chunks, each held by other users, free, or partly free (so the low-order lists
    /// hold many blocks whose buddies are in use); the rest is free in max-order blocks.
    /// Returns the allocator and the pages other users hold. Model assumption
    /// (docs/high-order-alloc.md): 1/4 of the zone fragmented, half of that in use.
    pub fn new_fragmented(n_pages: u32, fragmented_pages: u32, rng: &mut crate::rng::Rng) -> (Self, u64) {
        let top = 1u32 << (MAX_ORDER - 1);
        let fragmented_pages = fragmented_pages.min(n_pages) / top * top;
        let mut fa = FreeArea::new(n_pages);
        // Take the whole fragmented range out, then give back the free pieces.
        for pfn in (0..fragmented_pages).step_by(top as usize) {
            fa.list_del(pfn, MAX_ORDER - 1);
        }
        let mut other = 0u64;
        for chunk in (0..fragmented_pages).step_by(4) {
            match rng.below(20) {
                0..=9 => other += 4,
                10..=13 => {
                    fa.free(chunk, 2);
                }
                14..=16 => {
                    fa.free(chunk + 2 * rng.below(2), 1);
                    other += 2;
                }
                _ => {
                    fa.free(chunk + rng.below(4), 0);
                    other += 3;
                }
            }
        }
        (fa, other)
    }

    pub fn n_pages(&self) -> u32 {
        self.n_pages
    }

    /// Free blocks per order (the numbers of /proc/buddyinfo).
    pub fn nr_free(&self) -> [u64; MAX_ORDER] {
        self.nr_free
    }

    pub fn free_pages(&self) -> u64 {
        self.nr_free.iter().enumerate().map(|(o, n)| n << o).sum()
    }

    fn list_add(&mut self, pfn: Pfn, order: usize) {
        let old = self.head[order];
        // The new entry, the old first entry (its lru.prev) and the list head.
        self.touched.push(pfn);
        if old != NIL {
            self.touched.push(old);
        }
        self.orders_touched |= 1 << order;
        self.mark(order, AreaField::HeadNext);
        self.mark(order, AreaField::NrFree);
        self.next[pfn as usize] = old;
        self.prev[pfn as usize] = NIL;
        if old != NIL {
            self.prev[old as usize] = pfn;
        } else {
            self.mark(order, AreaField::HeadPrev);
            self.tail[order] = pfn;
        }
        self.head[order] = pfn;
        self.free_order[pfn as usize] = order as u8;
        self.nr_free[order] += 1;
    }

    /// `list_add_tail()`: the block goes behind every other block of its order.
    fn list_add_tail(&mut self, pfn: Pfn, order: usize) {
        let old = self.tail[order];
        if old == NIL {
            self.list_add(pfn, order);
            return;
        }
        // The new entry, the old last entry (its lru.next) and the list head (its prev).
        self.touched.push(pfn);
        self.touched.push(old);
        self.orders_touched |= 1 << order;
        self.mark(order, AreaField::HeadPrev);
        self.mark(order, AreaField::NrFree);
        self.prev[pfn as usize] = old;
        self.next[pfn as usize] = NIL;
        self.next[old as usize] = pfn;
        self.tail[order] = pfn;
        self.free_order[pfn as usize] = order as u8;
        self.nr_free[order] += 1;
    }

    fn list_del(&mut self, pfn: Pfn, order: usize) {
        let (n, p) = (self.next[pfn as usize], self.prev[pfn as usize]);
        // The entry and both neighbours (or the head, for the first entry).
        self.touched.push(pfn);
        for x in [n, p] {
            if x != NIL {
                self.touched.push(x);
            }
        }
        self.orders_touched |= 1 << order;
        self.mark(order, AreaField::NrFree);
        if p == NIL {
            self.mark(order, AreaField::HeadNext);
            self.head[order] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        } else {
            self.mark(order, AreaField::HeadPrev);
            self.tail[order] = p;
        }
        self.free_order[pfn as usize] = NOT_FREE;
        self.nr_free[order] -= 1;
    }

    /// `__rmqueue_smallest()`: a block of 2^order pages, or `None` if no order ≥ `order` has one.
    pub fn alloc(&mut self, order: usize) -> Option<(Pfn, BuddyWork)> {
        self.touched.clear();
        self.probe = None;
        // __rmqueue_smallest reads the list head of every order it tries.
        let from = (order..MAX_ORDER).find(|&o| self.head[o] != NIL);
        let last = from.unwrap_or(MAX_ORDER - 1);
        self.orders_touched = ((1u32 << (last + 1)) - (1u32 << order)) as u16;
        self.area_fields = 0;
        for o in order..=last {
            self.mark(o, AreaField::HeadRead);
        }
        let from = from?;
        let pfn = self.head[from];
        self.list_del(pfn, from);
        let mut steps = 0;
        if from > order {
            self.splits += 1;
        }
        for o in (order..from).rev() {
            // expand(): the upper half goes back one order down.
            self.list_add(pfn + (1 << o), o);
            steps += 1;
        }
        Some((pfn, BuddyWork { steps }))
    }

    /// `__free_one_page()`: frees 2^order pages at `pfn`, merging with free buddies.
    pub fn free(&mut self, pfn: Pfn, order: usize) -> BuddyWork {
        assert!(pfn % (1 << order) == 0 && pfn < self.n_pages, "bug: free of unaligned block {pfn}/{order}");
        assert!(self.free_order[pfn as usize] == NOT_FREE, "bug: double free of pfn {pfn}");
        self.touched.clear();
        self.orders_touched = 0;
        self.area_fields = 0;
        self.probe = None;
        let (mut pfn, mut order, mut steps) = (pfn, order, 0);
        while order < MAX_ORDER - 1 {
            let buddy = pfn ^ (1 << order);
            // page_is_buddy() reads the buddy's struct page whether or not it merges.
            if self.free_order[buddy as usize] != order as u8 {
                self.probe = Some(buddy);
                break;
            }
            self.touched.push(buddy);
            self.list_del(buddy, order);
            pfn = pfn.min(buddy);
            order += 1;
            steps += 1;
        }
        self.merges += u64::from(steps > 0);
        // buddy_merge_likely() (6dda9d55bf54, 2.6.35): if the buddy of the block one order up
        // is free, this block's own buddy may come back soon and merge; the block goes to the
        // tail so it is not handed out first. page_is_buddy() reads that struct page; its
        // address depends only on pfn and order, so the miss overlaps the list_add misses
        // that follow (model assumption: it adds no latency and is not in `touched`).
        if order < MAX_ORDER - 2 {
            let higher_buddy = (pfn & !((1 << (order + 1)) - 1)) ^ (1 << (order + 1));
            if self.free_order[higher_buddy as usize] == (order + 1) as u8 {
                self.list_add_tail(pfn, order);
                self.tail_adds += 1;
                return BuddyWork { steps };
            }
        }
        self.head_adds += 1;
        self.list_add(pfn, order);
        BuddyWork { steps }
    }

    fn mark(&mut self, order: usize, f: AreaField) {
        self.area_fields |= 1 << (AREA_FIELDS * order + f as usize);
    }

    /// Whether the last call used field `f` of `free_area[order]` ([`FreeArea::area_fields`]).
    pub fn used(&self, order: usize, f: AreaField) -> bool {
        self.area_fields & (1 << (AREA_FIELDS * order + f as usize)) != 0
    }

    /// Whether a free block starts at `pfn` (for the checkers of what sits on top).
    pub fn is_free_block(&self, pfn: Pfn) -> bool {
        self.free_order.get(pfn as usize).is_some_and(|&o| o != NOT_FREE)
    }

    /// Walks every list: orders match, blocks aligned and in range, no overlap, no two free
    /// buddies left unmerged, counts match the lists. Returns the free pages counted.
    pub fn check_invariants(&self) -> Result<u64, String> {
        let mut covered = vec![false; self.n_pages as usize];
        let mut total = 0u64;
        for order in 0..MAX_ORDER {
            let (mut pfn, mut n, mut prev) = (self.head[order], 0u64, NIL);
            while pfn != NIL {
                let p = pfn as usize;
                if self.prev[p] != prev {
                    return Err(format!("order {order}: broken prev link at pfn {pfn}"));
                }
                if self.free_order[p] != order as u8 || pfn % (1 << order) != 0 || pfn + (1 << order) > self.n_pages {
                    return Err(format!("order {order}: bad block at pfn {pfn}"));
                }
                for c in &mut covered[p..p + (1 << order)] {
                    if *c {
                        return Err(format!("order {order}: block at pfn {pfn} overlaps another free block"));
                    }
                    *c = true;
                }
                let buddy = (pfn ^ (1 << order)) as usize;
                if order < MAX_ORDER - 1 && self.free_order[buddy] == order as u8 {
                    return Err(format!("order {order}: pfn {pfn} and its buddy {buddy} are both free, unmerged"));
                }
                n += 1;
                total += 1 << order;
                prev = pfn;
                pfn = self.next[p];
                if n > u64::from(self.n_pages) {
                    return Err(format!("order {order}: list has a cycle"));
                }
            }
            if prev != self.tail[order] {
                return Err(format!("order {order}: tail is {} but the list ends at {prev}", self.tail[order]));
            }
            if n != self.nr_free[order] {
                return Err(format!("order {order}: nr_free {} but {n} blocks listed", self.nr_free[order]));
            }
        }
        let marked = self.free_order.iter().filter(|&&o| o != NOT_FREE).count() as u64;
        let listed: u64 = self.nr_free.iter().sum();
        if marked != listed {
            return Err(format!("{marked} blocks marked free but {listed} listed"));
        }
        Ok(total)
    }

    /// One /proc/buddyinfo line.
    pub fn buddyinfo_line(&self, node: u32, zone: &str) -> String {
        let mut s = format!("Node {node}, zone {zone:>8}");
        for n in self.nr_free {
            s.push_str(&format!(" {n:>6}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_then_merge_restores_one_block() {
        let mut fa = FreeArea::new(1024);
        let (pfn, w) = fa.alloc(3).unwrap();
        assert_eq!((pfn, w.steps), (0, 7));
        assert_eq!(fa.nr_free()[3..10], [1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(fa.check_invariants().unwrap(), 1024 - 8);
        assert_eq!(fa.free(pfn, 3).steps, 7);
        assert_eq!(fa.nr_free()[10], 1);
        assert_eq!(fa.check_invariants().unwrap(), 1024);
    }

    #[test]
    fn a_block_whose_higher_buddy_is_free_goes_to_the_tail() {
        let mut fa = FreeArea::new(1024);
        // 0 and 8 in use; 16/4 taken, so the next order-3 block splits 32/5: 40/3 is free.
        assert_eq!(fa.alloc(3).unwrap().0, 0);
        assert_eq!(fa.alloc(3).unwrap().0, 8);
        assert_eq!(fa.alloc(4).unwrap().0, 16);
        assert_eq!(fa.alloc(3).unwrap().0, 32);
        // 16 comes back: its buddy (0/4) is in use and so is the order-5 buddy (32): head.
        fa.free(16, 4);
        assert_eq!((fa.head_adds, fa.tail_adds), (1, 0));
        assert_eq!(fa.probe, Some(0), "the buddy that did not merge is the probe, not touched");
        assert!(!fa.touched.contains(&0));
        // Freeing 0: its buddy 8 is in use, but the order-4 buddy of 0+8 (16) is free, so 0
        // may soon merge: it goes behind 40.
        fa.free(0, 3);
        assert_eq!((fa.head_adds, fa.tail_adds), (1, 1));
        fa.check_invariants().unwrap();
        assert_eq!(fa.alloc(3).unwrap().0, 40, "the head first");
        assert_eq!(fa.alloc(3).unwrap().0, 0);
        fa.free(0, 3);
        assert_eq!(fa.probe, Some(8));
        // 8 merges with 0, then with 16; the order-5 buddy 32 is in use: the probe.
        fa.free(8, 3);
        assert!(fa.touched.contains(&0) && fa.touched.contains(&16));
        assert_eq!(fa.probe, Some(32));
        for pfn in [32, 40] {
            fa.free(pfn, 3);
        }
        assert_eq!(fa.nr_free()[10], 1, "everything merged back");
        assert_eq!(fa.check_invariants().unwrap(), 1024);
    }

    #[test]
    fn exhaustion_is_a_value() {
        let mut fa = FreeArea::new(1024);
        assert!(fa.alloc(10).is_some());
        assert!(fa.alloc(0).is_none());
    }
}
