//! The holder's work: what a zone charges, with [`Zone::holder_work`] on, beyond the list
//! steps and the lines of the buddy's own bookkeeping.
//!
//! What Linux does (mm/page_alloc.c, mm/vmstat.c, 5.2): `check_new_pages()` runs
//! `check_new_page()` on every subpage of a block taken under `zone->lock`;
//! `prep_compound_page()` and `free_pages_prepare()` write every tail page's struct page
//! outside it; `__mod_zone_freepage_state()` adds to NR_FREE_PAGES in the CPU's
//! `vm_stat_diff`, which folds into two shared lines (`zone->vm_stat`, `vm_zone_stat`) past
//! `stat_threshold` (`calculate_normal_threshold()`).
//!
//! What we simplify: `tail_page_cycles` per subpage (page_bench01's per-page slope), and the
//! global counter's line kept per zone (it underprices a fold right after the other node's).
//! With the holder's work off, a subpage costs one page operation and the counter nothing.

use super::super::cache::Caches;
use super::super::cacheline::SharedLine;
use super::super::machine::{CpuId, MachineProfile, PAGE_SIZE};
use super::Zone;

/// NR_FREE_PAGES: each CPU's `vm_stat_diff` (`struct per_cpu_pageset`), folded into the shared
/// counters when it passes the threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FreePageCounter {
    diff: Vec<i32>,
    /// `zone->vm_stat[]` and the global `vm_zone_stat[]`: the lines a fold writes (the first
    /// also read by every allocation's watermark check).
    line: [SharedLine; 2],
}

impl FreePageCounter {
    pub fn new(n_cpus: usize) -> FreePageCounter {
        FreePageCounter { diff: vec![0; n_cpus], line: [SharedLine::default(), SharedLine::default()] }
    }

    /// `zone_page_state(zone, NR_FREE_PAGES)`: a read of `zone->vm_stat`'s line.
    pub fn vm_stat_read(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> u64 {
        self.line[0].read(m, caches, cpu)
    }
}

impl Zone {
    /// `calculate_normal_threshold()` (mm/vmstat.c, 4.x-5.x) for this zone: 2 × fls(online
    /// CPUs) × (1 + fls(managed MiB / 128)), at most 125.
    pub fn stat_threshold(&self) -> i32 {
        let fls = |x: u64| 64 - x.leading_zeros() as i32;
        let mem = (u64::from(self.free_area.n_pages()) * u64::from(PAGE_SIZE)) >> 27;
        (2 * fls(self.pcp.len() as u64) * (1 + fls(mem))).min(125)
    }

    /// `__mod_zone_freepage_state()` → `__mod_zone_page_state(zone, NR_FREE_PAGES, delta)`
    /// on `cpu`: the per-CPU diff, and past `stat_threshold` the fold, two `atomic_long_add`s
    /// on lines every CPU of the machine writes. Returns the lines' ns.
    pub(super) fn mod_free_pages(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId, delta: i32) -> u64 {
        if !self.holder_work {
            return 0;
        }
        let t = self.stat_threshold();
        let counter = &mut self.free_pages;
        let x = counter.diff[cpu as usize] + delta;
        if x > t || x < -t {
            counter.diff[cpu as usize] = 0;
            return counter.line.iter_mut().map(|l| l.write(m, caches, cpu)).sum();
        }
        counter.diff[cpu as usize] = x;
        0
    }

    /// Cycles of `check_new_pages()` under the lock for a block of `order` handed to a
    /// caller: `check_new_page()` on every subpage of an order > 0 block (their lines: the
    /// caller's).
    pub(super) fn check_new_pages_cycles(&self, m: &MachineProfile, order: usize) -> u64 {
        if self.holder_work && order > 0 {
            m.tail_page_cycles << order
        } else {
            0
        }
    }

    /// Cycles of the per-subpage work of an order > 0 block outside the lock
    /// (`tail_page_cycles`, else the older charge of one page operation).
    pub(super) fn subpage_cycles(&self, m: &MachineProfile) -> u64 {
        if self.holder_work {
            m.tail_page_cycles
        } else {
            m.page_op_cycles
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn the_holder_work_prices_subpages_and_folds_the_free_page_counter() {
        let m = SERVER_2019;
        let c = Caches::new(&m);
        let run = |holder_work: bool| {
            let mut z = Zone::new(0, 1024, 4, 12, 4, false);
            z.holder_work = holder_work;
            let (pfn, alloc) = z.rmqueue_locked(&m, &c, 1, 3);
            let pfn = pfn.unwrap();
            let tails = z.compound_pages(&m, &c, 1, pfn, 3).0;
            assert!(z.put_page_testzero(pfn));
            let free = z.free_one_page(&m, &c, 2, pfn, 3);
            z.check_invariants().unwrap();
            (alloc, tails, free)
        };
        let (alloc_off, tails_off, free_off) = run(false);
        let (alloc_on, tails_on, free_on) = run(true);
        // check_new_page() on each of the 8 subpages under the lock; 7 tails outside at the
        // per-subpage cost instead of a per-CPU list operation each.
        assert_eq!(alloc_on.cycles - alloc_off.cycles, 8 * m.tail_page_cycles);
        assert_eq!((tails_off, tails_on), (7 * m.page_op_cycles, 7 * m.tail_page_cycles));
        // 4 CPUs and 4 MiB: stat_threshold 2 × fls(4) × (1 + fls(0)) = 6, so every order-3
        // pass folds. CPU 1's fold wrote zone->vm_stat and vm_zone_stat first (two L3 misses,
        // in the hold); CPU 2's free pulls both lines from CPU 1 over the mesh.
        assert_eq!(Zone::new(0, 1024, 4, 12, 4, false).stat_threshold(), 6);
        assert_eq!(alloc_on.line_ns - alloc_off.line_ns, 2 * m.line_llc_ns);
        assert_eq!(free_on.line_ns - free_off.line_ns, 2 * m.line_same_socket_ns);
        assert_eq!(free_on.cycles, free_off.cycles);
    }

    #[test]
    fn the_free_page_counter_folds_past_the_kernels_threshold() {
        let m = SERVER_2019;
        let c = Caches::new(&m);
        // Seed 000's zone: 2^17 pages (512 MiB) and 112 CPUs: 2 × fls(112) × (1 + fls(4)) = 56.
        let mut z = Zone::new(0, 1 << 17, 112, 12, 4, false);
        assert_eq!(z.stat_threshold(), 56);
        z.holder_work = true;
        // An alloc and a free on one CPU cancel in its diff: nothing folds.
        for _ in 0..20 {
            let pfn = z.rmqueue_locked(&m, &c, 3, 3).0.unwrap();
            assert!(z.put_page_testzero(pfn));
            z.free_one_page(&m, &c, 3, pfn, 3);
        }
        assert_eq!(z.free_pages.line[0].line.owner(), None);
        // Allocations alone: -8 per pass, past -56 on the 8th.
        let folds: Vec<bool> = (0..8)
            .map(|_| {
                z.rmqueue_locked(&m, &c, 3, 3);
                z.free_pages.line[0].line.owner().is_some()
            })
            .collect();
        assert_eq!(folds, [false, false, false, false, false, false, false, true]);
        z.check_invariants().unwrap();
    }
}
