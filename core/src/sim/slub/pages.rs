//! The slab pages' side of the page allocator: `alloc_pages()` and `__free_pages()` on the
//! zone (the PCP list for pcp-allowed orders, the buddy otherwise), with zone->lock held over
//! the work it covers (through [`super::SerialLock`]).

use super::{OpCost, Slub};
use crate::sim::buddy::Pfn;
use crate::sim::machine::{CpuId, MachineProfile};

impl Slub {
    /// `alloc_pages(order)` on `cpu`: the PCP list for pcp-allowed orders (refilled under
    /// zone->lock when empty), the buddy under zone->lock otherwise.
    pub fn alloc_pages(&mut self, m: &MachineProfile, cpu: CpuId, now_ns: u64, order: usize) -> (Option<Pfn>, OpCost) {
        let k = self.costs;
        let mut cost = OpCost { cycles: k.page_op_cycles, ..OpCost::default() };
        if self.zone.pcp_allowed(order) {
            if let Some(p) = self.zone.pcp_alloc(cpu, order) {
                cost.line_ns += self.zone.touch_page(m, &self.cpu_caches, cpu, p);
                return (Some(p), cost);
            }
            let (moved, zc) = self.zone.rmqueue_bulk(m, &self.cpu_caches, cpu, order);
            self.under_zone_lock(m, cpu, now_ns, (zc.line_ns, k.buddy_cycles * u64::from(moved.max(1))), &mut cost);
            let p = self.zone.pcp_alloc(cpu, order);
            if let Some(p) = p {
                cost.line_ns += self.zone.touch_page(m, &self.cpu_caches, cpu, p);
            }
            return (p, cost);
        }
        let (p, zc) = self.zone.rmqueue_locked(m, &self.cpu_caches, cpu, order);
        self.under_zone_lock(m, cpu, now_ns, (zc.line_ns, zc.cycles), &mut cost);
        (p, cost)
    }

    /// Work of `work` = (line ns, cycles) done under zone->lock by `cpu` at `now_ns`: the
    /// lock is held that long, the CPU first waits its turn; all of it lands in `cost`.
    fn under_zone_lock(&mut self, m: &MachineProfile, cpu: CpuId, now_ns: u64, work: (u64, u64), cost: &mut OpCost) {
        let (line_ns, cycles) = work;
        let hold = line_ns + Self::ns(cycles, m.turbo_max_mhz);
        let (wait, _) = self.zone_timing.hold(&mut self.zone.lock, m, cpu, now_ns, hold);
        cost.spin_ns += wait;
        cost.line_ns += line_ns;
        cost.cycles += cycles;
    }

    /// `__free_pages(pfn, order)` on `cpu` (the last reference): PCP list or buddy.
    pub fn free_pages(&mut self, m: &MachineProfile, cpu: CpuId, now_ns: u64, pfn: Pfn, order: usize) -> OpCost {
        let k = self.costs;
        let mut cost = OpCost { cycles: k.page_op_cycles, ..OpCost::default() };
        cost.line_ns += self.zone.touch_page(m, &self.cpu_caches, cpu, pfn);
        let last = self.zone.put_page_testzero(pfn);
        debug_assert!(last, "bug: slab page with other references");
        if self.zone.pcp_allowed(order) {
            if self.zone.pcp_free(cpu, pfn, order) {
                let zc = self.zone.free_pcppages_bulk(m, &self.cpu_caches, cpu);
                self.under_zone_lock(m, cpu, now_ns, (zc.line_ns, zc.cycles), &mut cost);
            }
            return cost;
        }
        let zc = self.zone.free_one_page(m, &self.cpu_caches, cpu, pfn, order);
        self.under_zone_lock(m, cpu, now_ns, (zc.line_ns, zc.cycles), &mut cost);
        cost
    }
}
