//! The slab pages' side of the page allocator: `alloc_pages()` and `__free_pages()` on one
//! zone (the PCP list for pcp-allowed orders, the buddy otherwise), with zone->lock held over
//! the work it covers (through [`super::SerialLock`]). [`PageSide`] serves both slab
//! allocators: SLUB's one zone and each node's zone of SLAB (`sim::slab`).

use super::{Caller, OpCost, SerialLock, Slub};
use crate::sim::buddy::Pfn;
use crate::sim::cache::Caches;
use crate::sim::zone::Zone;

/// One zone as a slab allocator sees it: the zone, the timing of its lock, the CPUs' caches
/// and the page allocator's two costs (`page_op_cycles` per PCP operation or page refcount,
/// `buddy_cycles` per block moved under zone->lock).
pub(crate) struct PageSide<'a> {
    pub zone: &'a mut Zone,
    pub timing: &'a mut SerialLock,
    pub caches: &'a Caches,
    pub page_op_cycles: u64,
    pub buddy_cycles: u64,
}

impl PageSide<'_> {
    /// `alloc_pages(order)`: the PCP list for pcp-allowed orders (refilled under zone->lock
    /// when empty), the buddy under zone->lock otherwise.
    pub fn alloc_pages(&mut self, at: Caller<'_>, order: usize) -> (Option<Pfn>, OpCost) {
        let Caller { m, cpu, .. } = at;
        let mut cost = OpCost { cycles: self.page_op_cycles, ..OpCost::default() };
        if self.zone.pcp_allowed(order) {
            if let Some(p) = self.zone.pcp_alloc(cpu, order) {
                cost.line_ns += self.zone.touch_page(m, self.caches, cpu, p);
                return (Some(p), cost);
            }
            let (moved, zc) = self.zone.rmqueue_bulk(m, self.caches, cpu, order);
            let work = (zc.line_ns, self.buddy_cycles * u64::from(moved.max(1)));
            self.under_zone_lock(at, work, &mut cost);
            let p = self.zone.pcp_alloc(cpu, order);
            if let Some(p) = p {
                cost.line_ns += self.zone.touch_page(m, self.caches, cpu, p);
            }
            return (p, cost);
        }
        let (p, zc) = self.zone.rmqueue_locked(m, self.caches, cpu, order);
        self.under_zone_lock(at, (zc.line_ns, zc.cycles), &mut cost);
        (p, cost)
    }

    /// Work of `work` = (line ns, cycles) done under zone->lock by the caller: the lock is
    /// held that long, the CPU first waits its turn; all of it lands in `cost`.
    fn under_zone_lock(&mut self, at: Caller<'_>, work: (u64, u64), cost: &mut OpCost) {
        let Caller { m, cpu, now_ns } = at;
        let (line_ns, cycles) = work;
        let hold = line_ns + super::super::machine::cycles_to_ns(cycles, m.turbo_max_mhz.max(1));
        let (wait, _) = self.timing.hold(&mut self.zone.lock, m, cpu, now_ns, hold);
        cost.spin_ns += wait;
        cost.line_ns += line_ns;
        cost.cycles += cycles;
    }

    /// `__free_pages(pfn, order)` (the last reference): PCP list or buddy.
    pub fn free_pages(&mut self, at: Caller<'_>, pfn: Pfn, order: usize) -> OpCost {
        let Caller { m, cpu, .. } = at;
        let mut cost = OpCost { cycles: self.page_op_cycles, ..OpCost::default() };
        cost.line_ns += self.zone.touch_page(m, self.caches, cpu, pfn);
        let last = self.zone.put_page_testzero(pfn);
        debug_assert!(last, "bug: slab page with other references");
        if self.zone.pcp_allowed(order) {
            if self.zone.pcp_free(cpu, pfn, order) {
                let zc = self.zone.free_pcppages_bulk(m, self.caches, cpu);
                self.under_zone_lock(at, (zc.line_ns, zc.cycles), &mut cost);
            }
            return cost;
        }
        let zc = self.zone.free_one_page(m, self.caches, cpu, pfn, order);
        self.under_zone_lock(at, (zc.line_ns, zc.cycles), &mut cost);
        cost
    }
}

impl Slub {
    /// The zone of this `Slub` as a `PageSide`.
    fn pages(&mut self) -> PageSide<'_> {
        PageSide {
            zone: &mut self.zone,
            timing: &mut self.zone_timing,
            caches: &self.cpu_caches,
            page_op_cycles: self.costs.shared.page_op_cycles,
            buddy_cycles: self.costs.shared.buddy_cycles,
        }
    }

    /// `alloc_pages(order)` (`PageSide::alloc_pages`).
    pub fn alloc_pages(&mut self, at: Caller<'_>, order: usize) -> (Option<Pfn>, OpCost) {
        self.pages().alloc_pages(at, order)
    }

    /// `__free_pages(pfn, order)` (`PageSide::free_pages`).
    pub fn free_pages(&mut self, at: Caller<'_>, pfn: Pfn, order: usize) -> OpCost {
        self.pages().free_pages(at, pfn, order)
    }
}
