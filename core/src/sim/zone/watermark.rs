//! The watermark check every allocation runs before it takes `zone->lock`, and what its reads
//! cost the lock holders.
//!
//! What Linux does (mm/page_alloc.c): `get_page_from_freelist()` calls `zone_watermark_fast()`
//! for each zone it tries. For order 0 that reads `zone_page_state(zone, NR_FREE_PAGES)`
//! (`zone->vm_stat`) and returns; for order > 0 it goes on to `__zone_watermark_ok()`, which
//! since 4.4 (97a16fc82a7c, "mm, page_alloc: only enforce watermarks for order-0
//! allocations") checks the order-0 watermark and then walks `free_area[o]` for o = order,
//! order + 1, … until one has a free block: `nr_free`, then `list_empty()` of the
//! `MIGRATE_PCPTYPES` list heads (before 4.4 it summed `nr_free` of the orders below instead).
//! 4.19 and 5.2 have the same walk (5.2 adds the `MIGRATE_HIGHATOMIC` list for
//! `ALLOC_HARDER`). None of it takes the lock, so every allocating CPU takes a shared copy of
//! the `free_area` lines that each holder of `zone->lock` writes (`list_del`, `list_add`,
//! `nr_free`): in 5.2's `struct zone` they sit between `ZONE_PADDING(_pad1_)` and the lock.
//!
//! What the model does: [`Zone::watermark_check`] reads each order's `nr_free` and, at the
//! first order with a free block, its list head, on the lines their offsets give
//! (`area_lines.rs`; a [`SharedLine`] each, `crate::sim::cacheline`) at the moment the world says the allocation is attempted; the next
//! holder's store to a line someone read since its last write pays the ownership request on
//! top of the load ([`SharedLine::write`]). One CPU alone reads its own lines: nothing changes.
//! The more CPUs allocate, the more often a holder finds its lines shared.
//!
//! What we simplify: the watermark numbers and `lowmem_reserve` (read-mostly lines no one
//! writes in these loads) are free; one migratetype, so the first order with `nr_free` > 0
//! ends the walk; a reader that reads while a holder is in the middle of its pass does not
//! slow that pass (the pass's lines are priced when the lock is granted), only the next one.
//!
//! [`SharedLine`]: crate::sim::cacheline::SharedLine
//! [`SharedLine::write`]: crate::sim::cacheline::SharedLine::write

use super::super::cache::Caches;
use super::super::machine::{CpuId, MachineProfile};
use super::area_lines::line_of;
use super::Zone;
use crate::sim::buddy::AreaField;

impl Zone {
    /// `zone_watermark_fast()` of an allocation of `order` by `cpu`, before zone->lock: the
    /// `free_area[o]` lines from `order` up to the first order with a free block, and with the
    /// holder's work on `zone->vm_stat` (the free-page counter's shared line). The loads'
    /// addresses do not depend on each other, so their misses overlap (model assumption): the
    /// cost is the slowest line. Order 0 reads only the counter. Returns the ns.
    pub fn watermark_check(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId, order: usize) -> u64 {
        let mut ns = if self.holder_work { self.free_pages.vm_stat_read(m, caches, cpu) } else { 0 };
        if order == 0 {
            return ns;
        }
        let nr_free = self.free_area.nr_free();
        for (o, &free) in nr_free.iter().enumerate().skip(order) {
            ns = ns.max(self.area_line[line_of(o, AreaField::NrFree)].read(m, caches, cpu));
            if free > 0 {
                // list_empty(&area->free_list[MIGRATE_UNMOVABLE]): its `next`.
                ns = ns.max(self.area_line[line_of(o, AreaField::HeadRead)].read(m, caches, cpu));
                break;
            }
        }
        ns
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::sim::buddy::MAX_ORDER;
    use crate::sim::machine::SERVER_2019;

    /// CPU 1 allocates and frees an order-3 block `passes` times under the lock (checking the
    /// watermark first if `check`), and before each pass `readers` other CPUs check the
    /// watermark. Returns the ns of the lines the passes after the first pay under the lock
    /// (the first finds the zone's lines untouched: a first read makes the store that follows
    /// it free, which only moves an L3 hit out of the lock).
    fn hold_line_ns(readers: CpuId, check: bool, passes: u32) -> u64 {
        let m = SERVER_2019;
        let c = Caches::new(&m);
        let mut z = Zone::new(0, 4096, 16, 12, 4, false);
        let mut ns = 0;
        let others = |z: &mut Zone| {
            for r in 0..readers {
                z.watermark_check(&m, &c, 2 + r, 3);
            }
        };
        for pass in 0..passes {
            others(&mut z);
            if check {
                z.watermark_check(&m, &c, 1, 3);
            }
            let (pfn, alloc) = z.rmqueue_locked(&m, &c, 1, 3);
            let pfn = pfn.unwrap();
            others(&mut z);
            assert!(z.put_page_testzero(pfn));
            let free = z.free_one_page(&m, &c, 1, pfn, 3);
            if pass > 0 {
                ns += alloc.line_ns + free.line_ns;
            }
        }
        z.check_invariants().unwrap();
        ns
    }

    #[test]
    fn one_cpu_alone_pays_what_it_paid_without_the_check() {
        assert_eq!(hold_line_ns(0, true, 20), hold_line_ns(0, false, 20));
    }

    #[test]
    fn more_allocating_cpus_make_the_holders_lines_dearer() {
        let (alone, one, four) = (hold_line_ns(0, true, 20), hold_line_ns(1, true, 20), hold_line_ns(4, true, 20));
        // Every pass's free_area[3] store now invalidates the readers' copies: a mesh transfer
        // each, whatever the number of readers on the socket (they are snooped at once).
        assert!(one > alone, "{one} vs {alone}");
        assert!(four >= one, "{four} vs {one}");
        assert!(one - alone >= 2 * 19 * SERVER_2019.line_same_socket_ns, "{one} vs {alone}");
    }

    /// CPU 1 takes and gives back an order-3 block `passes` times while order 4 keeps a free
    /// block; before each pass `readers` other CPUs check an order-4 watermark. Returns the
    /// line ns of the passes after the first.
    fn order3_passes_with_order4_readers(readers: CpuId, passes: u32) -> u64 {
        let m = SERVER_2019;
        let c = Caches::new(&m);
        let mut z = Zone::new(0, 1024, 8, 12, 4, false);
        // One split of the order-10 block leaves one free block at each order 3..9; take the
        // order-3 one too and give it back, so order 3 has a block and order 4 one.
        let a = z.rmqueue_locked(&m, &c, 1, 3).0.unwrap();
        let b = z.rmqueue_locked(&m, &c, 1, 3).0.unwrap();
        assert!(z.put_page_testzero(b));
        z.free_one_page(&m, &c, 1, b, 3);
        let mut ns = 0;
        for pass in 0..passes {
            for r in 0..readers {
                z.watermark_check(&m, &c, 2 + r, 4);
            }
            let (pfn, alloc) = z.rmqueue_locked(&m, &c, 1, 3);
            assert_eq!(pfn, Some(b));
            assert!(z.put_page_testzero(b));
            let free = z.free_one_page(&m, &c, 1, b, 3);
            if pass > 0 {
                ns += alloc.line_ns + free.line_ns;
            }
        }
        assert_eq!(z.free_area.nr_free()[4], 1);
        assert!(z.page_ref(a) > 0);
        z.check_invariants().unwrap();
        ns
    }

    #[test]
    fn an_order4_reader_shares_the_line_of_order3s_nr_free() {
        // CPU 1 alone pays nothing for its own lines.
        assert_eq!(order3_passes_with_order4_readers(0, 10), 0);
        // A CPU checking order 4 reads order 4's list head, on the line of order 3's nr_free
        // (area_lines.rs): CPU 1's allocation now finds that line shared, and its nr_free
        // store pays the ownership request (a mesh transfer; the readers are snooped at once)
        // every pass. With one line per order the reader never touched order 3's line.
        let mesh = SERVER_2019.line_same_socket_ns;
        assert_eq!(order3_passes_with_order4_readers(1, 10), 9 * mesh);
        assert_eq!(order3_passes_with_order4_readers(3, 10), 9 * mesh);
    }

    #[test]
    fn the_check_walks_up_to_the_first_order_with_a_free_block() {
        let m = SERVER_2019;
        let c = Caches::new(&m);
        // A fresh zone of 1024 pages has one order-10 block: an order-3 check reads nr_free
        // of orders 3 to 10 and order 10's list head, in parallel (one L3 hit for untouched
        // lines), on the lines of their offsets (area_lines.rs); the lines are shared after.
        let mut z = Zone::new(0, 1024, 4, 12, 4, false);
        assert_eq!(z.watermark_check(&m, &c, 2, 3), m.line_llc_ns);
        let read: Vec<usize> = (0..z.area_line.len()).filter(|&l| z.area_line[l].readers().any(|r| r == 2)).collect();
        assert_eq!(read, [5, 6, 8, 9, 10, 12, 13, 15]);
        assert_eq!(MAX_ORDER, 11);
        // Order 0 reads no free_area line.
        assert_eq!(z.watermark_check(&m, &c, 3, 0), 0);
    }
}
