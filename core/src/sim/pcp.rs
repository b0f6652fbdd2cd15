//! Per-CPU page lists (`struct per_cpu_pages`, the pagesets of /proc/zoneinfo).
//!
//! What Linux does (mm/page_alloc.c): each CPU keeps a small cache of free pages per zone so
//! that most allocations and frees touch no shared line and take no lock. `rmqueue_pcplist()`
//! pops from the head of the list; when the list is empty, `rmqueue_bulk()` moves `batch`
//! pages from the buddy lists under `zone->lock`. `free_unref_page()` pushes onto the head and,
//! once `count >= high`, `free_pcppages_bulk()` returns `batch` pages from the tail (the
//! coldest) to the buddy, again under `zone->lock`. Before Linux 5.14 only order-0 pages had
//! lists; commit 44042b449872 added lists for orders 1..PAGE_ALLOC_COSTLY_ORDER (3).
//!
//! What we simplify: one migrate type; `count` counts pages (a block of order o counts 2^o,
//! as in 5.14); a refill of order o moves `max(batch >> o, 2)` blocks, as in 5.14; a drain
//! takes blocks from the tails of the lists in round-robin order until `batch` pages are freed.

use super::buddy::Pfn;
use serde::Serialize;
use std::collections::VecDeque;

/// Orders that can have a list: 0..=PAGE_ALLOC_COSTLY_ORDER.
pub const PCP_ORDERS: usize = 4;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PerCpuPages {
    /// Pages on all lists.
    pub count: u32,
    pub high: u32,
    pub batch: u32,
    /// One list per order; front = head (hot), back = tail (cold).
    lists: [VecDeque<Pfn>; PCP_ORDERS],
    /// Where the next drain starts (the kernel's `pindex` round robin).
    drain_next: usize,
}

impl PerCpuPages {
    pub fn new(high: u32, batch: u32) -> Self {
        PerCpuPages { count: 0, high, batch, lists: Default::default(), drain_next: 0 }
    }

    pub fn pop(&mut self, order: usize) -> Option<Pfn> {
        let pfn = self.lists[order].pop_front()?;
        self.count -= 1 << order;
        Some(pfn)
    }

    /// Adds a block at the head; true if the list is now due for `free_pcppages_bulk()`.
    pub fn push(&mut self, pfn: Pfn, order: usize) -> bool {
        self.lists[order].push_front(pfn);
        self.count += 1 << order;
        self.count >= self.high
    }

    /// `rmqueue_bulk()` appends at the tail.
    pub fn push_tail(&mut self, pfn: Pfn, order: usize) {
        self.lists[order].push_back(pfn);
        self.count += 1 << order;
    }

    /// Blocks `rmqueue_bulk()` moves for one refill of `order`: `batch` for order 0, as in
    /// 5.14 `max(batch >> order, 2)` for higher orders, but never more pages than `high`
    /// (at least one block). The kernel's `high` is at least 4 × batch, so its refills never
    /// overshoot; with the model's free `pcp_high` (down to 8 pages) two order-3 blocks would
    /// leave a list at twice its `high`, so the model clamps (model choice, docs/high-order-alloc.md).
    pub fn refill_blocks(&self, order: usize) -> u32 {
        if order == 0 {
            self.batch.min(self.high)
        } else {
            (self.batch >> order).max(2).min((self.high >> order).max(1))
        }
    }

    /// Takes the coldest block of the next non-empty list (round robin), for a drain.
    pub fn take_cold(&mut self) -> Option<(Pfn, usize)> {
        for i in 0..PCP_ORDERS {
            let order = (self.drain_next + i) % PCP_ORDERS;
            if let Some(pfn) = self.lists[order].pop_back() {
                self.count -= 1 << order;
                self.drain_next = (order + 1) % PCP_ORDERS;
                return Some((pfn, order));
            }
        }
        None
    }

    /// Every listed block, with its order.
    pub fn blocks(&self) -> impl Iterator<Item = (Pfn, usize)> + '_ {
        self.lists.iter().enumerate().flat_map(|(o, l)| l.iter().map(move |&p| (p, o)))
    }

    /// `count` equals the pages listed and stays below `high` plus one block of the largest
    /// cached order (a high-order free may push it over `high` until the drain runs, as
    /// 44042b449872 notes; with order 0 only, `count <= high`).
    pub fn check_invariants(&self) -> Result<(), String> {
        let listed: u32 = self.lists.iter().enumerate().map(|(o, l)| (l.len() as u32) << o).sum();
        if listed != self.count {
            return Err(format!("pcp count {} but {listed} pages listed", self.count));
        }
        let largest = (0..PCP_ORDERS).rev().find(|&o| !self.lists[o].is_empty()).unwrap_or(0);
        if self.count >= self.high + (1 << largest) {
            return Err(format!("pcp count {} above high {}", self.count, self.high));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drain_takes_cold_pages_round_robin() {
        let mut p = PerCpuPages::new(20, 8);
        for pfn in 0..3 {
            p.push(pfn, 0);
        }
        p.push(8, 3);
        assert_eq!(p.count, 11);
        assert_eq!(p.take_cold(), Some((0, 0)));
        assert_eq!(p.take_cold(), Some((8, 3)));
        assert_eq!(p.take_cold(), Some((1, 0)));
        assert_eq!(p.refill_blocks(0), 8);
        assert_eq!(p.refill_blocks(3), 2);
        p.check_invariants().unwrap();
    }
}
