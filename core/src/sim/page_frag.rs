//! The per-task page fragment TCP sendmsg copies into (`current->task_frag`).
//!
//! What Linux does (net/core/sock.c `skb_page_frag_refill`, since 5640f7685831 in 3.7): a
//! task keeps one page and an offset. If the task holds the only reference left, the page is
//! reused from offset 0; if it has room, it is used as is; otherwise the task drops its
//! reference (`put_page`) and allocates a new page: order 3 (32 KiB, `SKB_FRAG_PAGE_ORDER`)
//! with `__GFP_NORETRY`, falling back to order 0, or order 0 directly when
//! `net.core.high_order_alloc_disable=1` (ce27ec60648d, 2019). Each new skb frag pointing
//! into the page takes a reference (`page_ref_inc`); a contiguous append extends the last
//! frag instead (`skb_can_coalesce`).
//!
//! What we simplify: the page is named by (node, pfn); this module only decides, the caller
//! (the workload) performs allocations and frees so that they take the right locks at the
//! right simulated time.

use super::buddy::Pfn;
use super::machine::PAGE_SIZE;
use serde::Serialize;

/// SKB_FRAG_PAGE_ORDER = get_order(32768).
pub const SKB_FRAG_PAGE_ORDER: usize = 3;

/// A page (block head) somewhere in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PageRef {
    pub node: u32,
    pub pfn: Pfn,
    pub order: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageFrag {
    pub page: Option<PageRef>,
    pub offset_bytes: u32,
    pub size_bytes: u32,
}

/// What `skb_page_frag_refill()` needs done before the copy can go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refill {
    /// The frag has room (possibly after a reset to offset 0).
    Ready,
    /// Drop the task's reference to this page, then allocate.
    PutAndAlloc(PageRef),
    /// No page yet: allocate.
    Alloc,
}

impl PageFrag {
    /// The decision of `skb_page_frag_refill()`, given the page's current refcount.
    pub fn refill(&mut self, page_ref_count: u32) -> Refill {
        let Some(page) = self.page else { return Refill::Alloc };
        if page_ref_count == 1 {
            self.offset_bytes = 0;
            return Refill::Ready;
        }
        if self.offset_bytes < self.size_bytes {
            return Refill::Ready;
        }
        self.page = None;
        Refill::PutAndAlloc(page)
    }

    pub fn install(&mut self, page: PageRef) {
        self.page = Some(page);
        self.offset_bytes = 0;
        self.size_bytes = PAGE_SIZE << page.order;
    }

    pub fn room_bytes(&self) -> u32 {
        self.size_bytes - self.offset_bytes
    }
}

/// The order the first allocation try uses.
pub fn first_order(high_order_alloc_disable: bool) -> usize {
    if high_order_alloc_disable {
        0
    } else {
        SKB_FRAG_PAGE_ORDER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refill_reuses_only_when_sole_owner() {
        let mut f = PageFrag::default();
        assert_eq!(f.refill(0), Refill::Alloc);
        let p = PageRef { node: 0, pfn: 8, order: 3 };
        f.install(p);
        assert_eq!(f.room_bytes(), 32768);
        f.offset_bytes = 32768;
        assert_eq!(f.refill(1), Refill::Ready);
        assert_eq!(f.offset_bytes, 0);
        f.offset_bytes = 32768;
        assert_eq!(f.refill(2), Refill::PutAndAlloc(p));
        assert_eq!(f.page, None);
        assert_eq!(first_order(true), 0);
    }
}
