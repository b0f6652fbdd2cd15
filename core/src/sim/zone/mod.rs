//! A memory zone (`struct zone`): the buddy lists, `zone->lock`, one pageset per CPU, and the
//! `struct page` of every frame (refcount, compound order, and who last wrote its cache line).
//!
//! What Linux does (mm/page_alloc.c): `rmqueue()` serves pcp-allowed orders from the CPU's
//! list (`rmqueue_pcplist`) and every other order from the buddy under `zone->lock`;
//! `free_the_page()` sends pcp-allowed orders to `free_unref_page()` and the others to
//! `__free_pages_ok()` → `free_one_page()`, which takes `zone->lock`. In 2019 only order 0
//! was pcp-allowed; since 5.14 (44042b449872) orders up to 3 are.
//!
//! What we simplify: one zone per NUMA node (ZONE_NORMAL), no watermarks or reclaim (an
//! empty zone is a failed allocation, a value). Costs: every operation reports the cycles of
//! its bookkeeping and the ns of the cache lines it pulls (each `struct page` is one line;
//! the `free_area` fields sit on the lines of their byte offsets, `area_lines.rs`). A buddy call under the lock pays for exactly
//! the lines it reads or writes: the list head of every order it visits, the block's struct
//! page and its list neighbours, each merge partner (`FreeArea::touched`). The zone's vmstat
//! counters are per-CPU diffs in 5.2 (no shared line). With `holder_work` the zone also
//! charges what the holder does per page and per pass beyond the list steps (`holder_work.rs`).
//! Lock order: `zone->lock` is taken with the pageset already chosen (IRQs off), and nothing
//! else is taken under it.
//!
//! Files: `mod.rs` (here: the zone, rmqueue and the two free paths, its invariants and
//! /proc/zoneinfo), `pages.rs` (every frame's `struct page`), `holder_work.rs` (the holder's
//! per-page work and the free-page counter), `watermark.rs` (the lockless watermark check
//! before an order > 0 allocation, whose reads share the lines the lock holders write),
//! `area_lines.rs` (which line of `free_area[]` each field sits on).

mod area_lines;
mod holder_work;
mod pages;
mod watermark;

use super::buddy::{AreaField, FreeArea, Pfn, MAX_ORDER};
use super::cache::{Caches, Source, LINE_BYTES, SOURCES};
use super::cacheline::SharedLine;
use super::machine::{CpuId, MachineProfile};
use super::pcp::{PerCpuPages, PCP_ORDERS};
use super::qspinlock::QSpinLock;
use holder_work::FreePageCounter;
use pages::Pages;

/// Work done under the lock: cycles at the holder's clock plus ns of line transfers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cost {
    pub cycles: u64,
    pub line_ns: u64,
}

impl Cost {
    pub fn add(&mut self, o: Cost) {
        self.cycles += o.cycles;
        self.line_ns += o.line_ns;
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    pub node: u32,
    pub lock: QSpinLock,
    pub free_area: FreeArea,
    pub pcp: Vec<PerCpuPages>,
    /// Pages handed to callers and not yet freed (neither buddy nor pcp).
    pub in_use_pages: u64,
    /// Pages held by the rest of the system (page cache, slab...) from the start.
    pub other_pages: u64,
    /// Which orders the pagesets cache (true = Linux ≥ 5.14).
    pub pcp_high_order: bool,
    /// Every frame's `struct page` (refcount, order, its line) and who last used its data.
    pages: Pages,
    /// The lines of `struct zone`'s `free_area[]` by byte offset (`area_lines.rs`): list
    /// heads and `nr_free`, written by the holder of `zone->lock` and read by every
    /// allocator's watermark check.
    area_line: area_lines::AreaLines,
    /// Whether the buddy charges the holder's per-page work and the free-page counter
    /// (`holder_work.rs`); off: the list steps and lines only.
    pub holder_work: bool,
    /// NR_FREE_PAGES, with the holder's work.
    free_pages: FreePageCounter,
}

impl Zone {
    pub fn new(node: u32, n_pages: u32, n_cpus: usize, pcp_high: u32, pcp_batch: u32, pcp_high_order: bool) -> Self {
        Zone::with_free_area(node, FreeArea::new(n_pages), 0, n_cpus, (pcp_high, pcp_batch), pcp_high_order)
    }

    /// A zone whose free memory is fragmented like a long-running server's
    /// ([`FreeArea::new_fragmented`]: the first quarter cut up, half of it in use).
    pub fn fragmented(
        node: u32,
        n_pages: u32,
        n_cpus: usize,
        pcp: (u32, u32),
        pcp_high_order: bool,
        rng: &mut crate::rng::Rng,
    ) -> Self {
        let (fa, other) = FreeArea::new_fragmented(n_pages, n_pages / 4, rng);
        Zone::with_free_area(node, fa, other, n_cpus, pcp, pcp_high_order)
    }

    fn with_free_area(
        node: u32,
        free_area: FreeArea,
        other_pages: u64,
        n_cpus: usize,
        pcp: (u32, u32),
        pcp_high_order: bool,
    ) -> Self {
        let n = free_area.n_pages() as usize;
        Zone {
            node,
            lock: QSpinLock::new("&zone->lock"),
            free_area,
            pcp: vec![PerCpuPages::new(pcp.0, pcp.1); n_cpus],
            in_use_pages: 0,
            other_pages,
            pcp_high_order,
            pages: Pages::new(n),
            area_line: std::array::from_fn(|_| SharedLine::default()),
            holder_work: false,
            free_pages: FreePageCounter::new(n_cpus),
        }
    }

    /// `pcp_allowed_order()` of the modelled kernel.
    pub fn pcp_allowed(&self, order: usize) -> bool {
        order == 0 || (self.pcp_high_order && order < PCP_ORDERS)
    }

    /// Cost of writing the `struct page` line of `pfn` from `cpu` (the line moves to `cpu`).
    pub fn touch_page(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId, pfn: Pfn) -> u64 {
        self.touch_page_capped(m, caches, cpu, pfn, u64::MAX)
    }

    /// Like [`Zone::touch_page`], but a bulk list walk (`rmqueue_bulk`, `free_pcppages_bulk`)
    /// overlaps its misses: model assumption, each block costs at most an L3 hit.
    fn touch_page_capped(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId, pfn: Pfn, cap_ns: u64) -> u64 {
        self.pages.get_mut(pfn).line.touch(m, caches, cpu, self.node).min(cap_ns)
    }

    /// `cpu` copies bytes `start_bytes..end_bytes` of the block at `pfn` in (`write`, the
    /// sender's `copy_from_user` into a frag) or out (the receiver's `copy_to_user`): lines
    /// per [`Source`] they came from ([`Caches::access`], page by page).
    pub fn copy_data(
        &mut self,
        caches: &mut Caches,
        cpu: CpuId,
        pfn: Pfn,
        (start_bytes, end_bytes): (u32, u32),
        write: bool,
    ) -> [u32; SOURCES] {
        let page_bytes = super::machine::PAGE_SIZE;
        let mut by = [0u32; SOURCES];
        let mut at = start_bytes;
        while at < end_bytes {
            let page = self.pages.get_mut(pfn + at / page_bytes);
            let upto = ((at / page_bytes + 1) * page_bytes).min(end_bytes);
            let lines = (upto - at).div_ceil(LINE_BYTES);
            let src: Source = caches.access(&mut page.data, cpu, self.node, lines, write);
            by[src as usize] += lines;
            at = upto;
        }
        by
    }

    pub fn page_ref(&self, pfn: Pfn) -> u32 {
        self.pages.get(pfn).refcount
    }

    pub fn page_order(&self, pfn: Pfn) -> usize {
        usize::from(self.pages.get(pfn).order)
    }

    /// `page_ref_inc()`.
    pub fn get_page(&mut self, pfn: Pfn) {
        let r = &mut self.pages.get_mut(pfn).refcount;
        assert!(*r > 0, "bug: get_page on a free page {pfn}");
        *r += 1;
    }

    /// `put_page()` without the free: true if this was the last reference.
    pub fn put_page_testzero(&mut self, pfn: Pfn) -> bool {
        let r = &mut self.pages.get_mut(pfn).refcount;
        assert!(*r > 0, "bug: put_page on a free page {pfn}");
        *r -= 1;
        *r == 0
    }

    /// Hands a block to a caller: refcount 1, compound order recorded (prep_new_page).
    fn prep_new_page(&mut self, pfn: Pfn, order: usize) {
        let page = self.pages.get_mut(pfn);
        page.refcount = 1;
        page.order = order as u8;
        self.in_use_pages += 1 << order;
    }

    /// A freed block leaves the caller.
    fn unprep(&mut self, pfn: Pfn, order: usize) {
        assert_eq!(self.page_ref(pfn), 0, "bug: freeing pfn {pfn} with references");
        self.in_use_pages -= 1 << order;
    }

    /// `rmqueue_pcplist()` fast path: no lock. `None` means the list is empty (refill first).
    pub fn pcp_alloc(&mut self, cpu: CpuId, order: usize) -> Option<Pfn> {
        let pfn = self.pcp[cpu as usize].pop(order)?;
        self.prep_new_page(pfn, order);
        Some(pfn)
    }

    /// `free_unref_page_commit()`: onto this CPU's list; true if a bulk free is due.
    pub fn pcp_free(&mut self, cpu: CpuId, pfn: Pfn, order: usize) -> bool {
        self.unprep(pfn, order);
        self.pcp[cpu as usize].push(pfn, order)
    }

    /// The lines the last buddy call touched ([`FreeArea::touched`], `orders_touched`), each at
    /// its distance; struct pages capped at `cap_ns` (a bulk walk overlaps or prefetches its
    /// misses), `prefetched` free (already in this CPU's cache). The read of a buddy that did
    /// not merge ([`FreeArea::probe`]) runs alongside the list-head reads: the longer of the two.
    fn buddy_lines(
        &mut self,
        m: &MachineProfile,
        caches: &Caches,
        cpu: CpuId,
        cap_ns: u64,
        prefetched: Option<Pfn>,
    ) -> u64 {
        let mut ns = 0;
        for k in 0..self.free_area.touched.len() {
            let pfn = self.free_area.touched[k];
            let cap = if Some(pfn) == prefetched { 0 } else { cap_ns };
            ns += self.touch_page_capped(m, caches, cpu, pfn, cap);
        }
        let area_ns = self.area_fields_ns(m, caches, cpu);
        let probe_ns = match self.free_area.probe {
            Some(pfn) => self.touch_page_capped(m, caches, cpu, pfn, if Some(pfn) == prefetched { 0 } else { cap_ns }),
            None => 0,
        };
        ns + area_ns.max(probe_ns)
    }

    /// The `free_area` fields the last buddy call used ([`FreeArea::area_fields`]), each on
    /// its line ([`area_lines::line_of`]): written, or only read (an empty list tried). Within
    /// an order the fields' misses overlap (their addresses do not depend on each other:
    /// model assumption); the orders a split or merge visits are paid in turn. A line a
    /// pass already wrote is its own when written again.
    fn area_fields_ns(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> u64 {
        const WRITES: [AreaField; 3] = [AreaField::HeadNext, AreaField::HeadPrev, AreaField::NrFree];
        let mut ns = 0;
        for o in 0..MAX_ORDER {
            let mut order_ns = 0;
            for f in WRITES {
                if self.free_area.used(o, f) {
                    order_ns = order_ns.max(self.area_line[area_lines::line_of(o, f)].write(m, caches, cpu));
                }
            }
            let read = AreaField::HeadRead;
            if self.free_area.used(o, read) && !WRITES.iter().any(|&f| self.free_area.used(o, f)) {
                order_ns = order_ns.max(self.area_line[area_lines::line_of(o, read)].read(m, caches, cpu));
            }
            ns += order_ns;
        }
        ns
    }

    /// Under zone->lock: `__rmqueue_smallest()` for a caller (the non-pcp path of `rmqueue`):
    /// the list heads of every order tried, the block and its list neighbours, and per split
    /// step the half put back (and the first entry it goes in front of).
    pub fn rmqueue_locked(
        &mut self,
        m: &MachineProfile,
        caches: &Caches,
        cpu: CpuId,
        order: usize,
    ) -> (Option<Pfn>, Cost) {
        let found = self.free_area.alloc(order);
        let mut cost = Cost { cycles: m.buddy_step_cycles, line_ns: self.buddy_lines(m, caches, cpu, u64::MAX, None) };
        let Some((pfn, work)) = found else { return (None, cost) };
        cost.cycles += m.buddy_step_cycles * u64::from(work.steps);
        cost.cycles += self.check_new_pages_cycles(m, order);
        // 5.2's rmqueue() does the counter just after spin_unlock (IRQs still off); the model
        // keeps it in the hold (model assumption: it folds at most once per ~threshold pages).
        cost.line_ns += self.mod_free_pages(m, caches, cpu, -(1 << order));
        self.prep_new_page(pfn, order);
        (Some(pfn), cost)
    }

    /// Under zone->lock: `rmqueue_bulk()` into `cpu`'s list. Returns blocks moved and cost.
    /// Model assumption: the walk overlaps its misses, each struct page costs at most an L3 hit.
    pub fn rmqueue_bulk(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId, order: usize) -> (u32, Cost) {
        let want = self.pcp[cpu as usize].refill_blocks(order);
        let mut cost = Cost::default();
        let mut got = 0;
        while got < want {
            let found = self.free_area.alloc(order);
            cost.line_ns += self.buddy_lines(m, caches, cpu, m.line_llc_ns, None);
            let Some((pfn, work)) = found else { break };
            cost.cycles += m.buddy_step_cycles * u64::from(1 + work.steps);
            self.pcp[cpu as usize].push_tail(pfn, order);
            got += 1;
        }
        // `__mod_zone_page_state(zone, NR_FREE_PAGES, -(i << order))`, once, under the lock.
        cost.line_ns += self.mod_free_pages(m, caches, cpu, -((got as i32) << order));
        (got, cost)
    }

    /// Under zone->lock: `free_one_page()` → `__free_one_page()` (the `__free_pages_ok` path):
    /// per merge step the buddy's struct page (`page_is_buddy`) and its list neighbours, then
    /// the list head and first entry the merged block goes in front of.
    pub fn free_one_page(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId, pfn: Pfn, order: usize) -> Cost {
        self.unprep(pfn, order);
        self.free_block(m, caches, cpu, (pfn, order), u64::MAX, false)
    }

    /// `__free_one_page()` of one block; its lines capped at `cap_ns`, the first `prefetched`
    /// touched struct pages free.
    fn free_block(
        &mut self,
        m: &MachineProfile,
        caches: &Caches,
        cpu: CpuId,
        (pfn, order): (Pfn, usize),
        cap_ns: u64,
        prefetched: bool,
    ) -> Cost {
        let work = self.free_area.free(pfn, order);
        let own = self.touch_page_capped(m, caches, cpu, pfn, if prefetched { 0 } else { cap_ns });
        // free_pcppages_bulk() prefetched the page and its buddy at the block's order.
        let prefetched = prefetched.then_some(pfn ^ (1 << order));
        let line_ns = own + self.buddy_lines(m, caches, cpu, cap_ns, prefetched);
        // __free_one_page(): __mod_zone_freepage_state() before the merge loop.
        let vmstat_ns = self.mod_free_pages(m, caches, cpu, 1 << order);
        Cost { cycles: m.buddy_step_cycles * u64::from(1 + work.steps), line_ns: line_ns + vmstat_ns }
    }

    /// Under zone->lock: `free_pcppages_bulk()`: `batch` pages from `cpu`'s list to the buddy.
    /// It prefetches each page's buddy before it takes the lock (97334162e4d7, 4.18), so the
    /// page and its first buddy are in cache; the list neighbours are not (their misses
    /// overlap: at most an L3 hit each, model assumption).
    pub fn free_pcppages_bulk(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> Cost {
        let mut cost = Cost::default();
        let mut freed = 0;
        let batch = self.pcp[cpu as usize].batch;
        while freed < batch {
            let Some((pfn, order)) = self.pcp[cpu as usize].take_cold() else { break };
            cost.add(self.free_block(m, caches, cpu, (pfn, order), m.line_llc_ns, true));
            freed += 1 << order;
        }
        cost
    }

    /// Outside the lock, before a block of `order` > 0 is handed out or freed:
    /// `prep_compound_page()` / `free_pages_prepare()` write every tail page's struct page
    /// (compound_head, flags checks): one line and, per tail, `tail_page_cycles` with the
    /// holder's work (page_bench01's per-page slope), else one page operation.
    pub fn compound_pages(
        &mut self,
        m: &MachineProfile,
        caches: &Caches,
        cpu: CpuId,
        pfn: Pfn,
        order: usize,
    ) -> (u64, u64) {
        let mut line_ns = 0;
        for p in pfn + 1..pfn + (1 << order) {
            line_ns += self.touch_page(m, caches, cpu, p);
        }
        (self.subpage_cycles(m) * ((1 << order) - 1), line_ns)
    }

    /// Under zone->lock: `drain_all_pages()` for this zone, done by the CPU whose allocation
    /// failed (the kernel runs `drain_pages_zone()` on every CPU, each taking zone->lock; the
    /// model folds them into one hold). Every per-CPU list goes back to the buddy, so pages
    /// another CPU hoards can satisfy the retry. Returns the pages freed and the cost.
    pub fn drain_all_pcp(&mut self, m: &MachineProfile, caches: &Caches, cpu: CpuId) -> (u64, Cost) {
        let mut cost = Cost::default();
        let mut freed = 0u64;
        for c in 0..self.pcp.len() {
            while let Some((pfn, order)) = self.pcp[c].take_cold() {
                // Another CPU's list: its struct pages are that CPU's lines (no prefetch).
                cost.add(self.free_block(m, caches, cpu, (pfn, order), u64::MAX, false));
                freed += 1 << order;
            }
        }
        (freed, cost)
    }

    pub fn pcp_pages(&self) -> u64 {
        self.pcp.iter().map(|p| u64::from(p.count)).sum()
    }

    /// Page conservation (buddy + pagesets + in use = zone), the buddy's own invariants, every
    /// pageset's invariants, no block both in a pageset and in use, no referenced block free
    /// in the buddy, the referenced blocks' pages within the pages in use, and the lock's queue.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut referenced = 0u64;
        for pfn in 0..self.free_area.n_pages() {
            let r = self.page_ref(pfn);
            if r == 0 {
                continue;
            }
            if self.free_area.is_free_block(pfn) {
                return Err(format!("node {}: page {pfn} has {r} references but is free in the buddy", self.node));
            }
            referenced += 1 << self.page_order(pfn);
        }
        if referenced > self.in_use_pages {
            return Err(format!("node {}: {referenced} pages referenced but {} in use", self.node, self.in_use_pages));
        }
        let free = self.free_area.check_invariants().map_err(|e| format!("node {} buddy: {e}", self.node))?;
        let total = free + self.pcp_pages() + self.in_use_pages + self.other_pages;
        if total != u64::from(self.free_area.n_pages()) {
            return Err(format!(
                "node {}: pages not conserved: {free} free + {} pcp + {} in use + {} other != {}",
                self.node,
                self.pcp_pages(),
                self.in_use_pages,
                self.other_pages,
                self.free_area.n_pages()
            ));
        }
        for (cpu, p) in self.pcp.iter().enumerate() {
            p.check_invariants().map_err(|e| format!("node {} cpu {cpu}: {e}", self.node))?;
            if let Some((pfn, _)) = p.blocks().find(|&(pfn, _)| self.page_ref(pfn) != 0) {
                return Err(format!("node {} cpu {cpu}: pcp page {pfn} still referenced", self.node));
            }
        }
        self.lock.check_invariants()
    }

    /// The pageset part of /proc/zoneinfo for the CPUs listed.
    pub fn zoneinfo_pagesets(&self, cpus: &[CpuId]) -> String {
        let mut s = format!(
            "Node {}, zone   Normal\n  pages free     {}\n  pagesets\n",
            self.node,
            self.free_area.free_pages()
        );
        for &cpu in cpus {
            let p = &self.pcp[cpu as usize];
            s.push_str(&format!(
                "    cpu: {cpu}\n              count: {}\n              high:  {}\n              batch: {}\n",
                p.count, p.high, p.batch
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn order0_goes_through_pcp_in_batches() {
        let m = SERVER_2019;
        let mut z = Zone::new(0, 4096, 4, 12, 4, false);
        assert!(z.pcp_allowed(0) && !z.pcp_allowed(3));
        assert_eq!(z.pcp_alloc(1, 0), None);
        let c = Caches::new(&m);
        let (got, _) = z.rmqueue_bulk(&m, &c, 1, 0);
        assert_eq!(got, 4);
        let pfn = z.pcp_alloc(1, 0).unwrap();
        z.check_invariants().unwrap();
        assert!(z.put_page_testzero(pfn));
        assert!(!z.pcp_free(2, pfn, 0));
        z.check_invariants().unwrap();
        assert_eq!(z.pcp[1].count, 3);
        assert_eq!(z.pcp[2].count, 1);
    }

    #[test]
    fn frag_copies_find_data_by_distance() {
        let m = SERVER_2019;
        let mut c = Caches::new(&m);
        let mut z = Zone::new(0, 1024, 4, 12, 4, false);
        let at = |by: [u32; SOURCES], s: Source| by[s as usize];
        // Never written: DRAM of this node, 64 lines per page.
        assert_eq!(at(z.copy_data(&mut c, 1, 8, (0, 8192), true), Source::Dram), 128);
        // The receiver on CPU 2 reads it from CPU 1's L2 over the mesh.
        assert_eq!(at(z.copy_data(&mut c, 2, 8, (0, 4096), false), Source::SameSocket), 64);
        // CPU 1 writes again: its own L2 still has the lines (CPU 2's copy is invalidated by
        // the home slice, not waited for); CPU 3 has to bring them into its L2.
        assert_eq!(at(z.copy_data(&mut c, 1, 8, (0, 4096), true), Source::Own), 64);
        assert_eq!(at(z.copy_data(&mut c, 3, 8, (0, 4096), true), Source::SameSocket), 64);
    }

    #[test]
    fn the_buddy_probe_overlaps_the_list_head_read() {
        let m = SERVER_2019;
        let c = Caches::new(&m);
        let mut z = Zone::new(0, 1024, 4, 12, 4, false);
        // CPU 1 takes two order-3 blocks that are each other's buddies (one split of the zone).
        let a = z.rmqueue_locked(&m, &c, 1, 3).0.unwrap();
        let b = z.rmqueue_locked(&m, &c, 1, 3).0.unwrap();
        assert_eq!(a ^ 8, b);
        // CPU 2 frees a while b is in use: no merge. a's struct page, free_area[3] and b's
        // struct page were all last written by CPU 1 (a mesh transfer each), but the read of b
        // (page_is_buddy) runs alongside the list-head read: two transfers, not three.
        assert!(z.put_page_testzero(a));
        let cost = z.free_one_page(&m, &c, 2, a, 3);
        assert_eq!(z.free_area.probe, Some(b));
        assert!(!z.free_area.touched.contains(&b));
        assert_eq!(cost.line_ns, 2 * m.line_same_socket_ns);
        z.check_invariants().unwrap();
    }

    #[test]
    fn a_colder_buddy_line_costs_more_per_merge_step() {
        // CPU 1 splits an order-10 block down to two order-3 buddies a and b (the halves it
        // puts back are its lines) and frees b; CPU 2 frees a, which merges seven times back
        // to order 10, each buddy's struct page pulled from CPU 1 over the mesh.
        let free_a = |mesh_ns: u64| {
            let mut m = SERVER_2019;
            m.line_same_socket_ns = mesh_ns;
            let c = Caches::new(&m);
            let mut z = Zone::new(0, 1024, 4, 12, 4, false);
            let a = z.rmqueue_locked(&m, &c, 1, 3).0.unwrap();
            let b = z.rmqueue_locked(&m, &c, 1, 3).0.unwrap();
            assert!(z.put_page_testzero(b));
            z.free_one_page(&m, &c, 1, b, 3);
            assert!(z.put_page_testzero(a));
            let cost = z.free_one_page(&m, &c, 2, a, 3);
            assert_eq!(z.free_area.nr_free()[10], 1);
            cost
        };
        let (near, far) = (free_a(50), free_a(100));
        // The same steps; at least one line more per merge step at the larger distance.
        assert_eq!(near.cycles, far.cycles);
        assert_eq!(near.cycles, SERVER_2019.buddy_step_cycles * 8);
        assert!(far.line_ns >= near.line_ns + 7 * 50, "{far:?} vs {near:?}");
    }

    #[test]
    fn order3_takes_the_buddy_path() {
        let m = SERVER_2019;
        let mut z = Zone::new(0, 1024, 2, 12, 4, false);
        let c = Caches::new(&m);
        let (pfn, cost) = z.rmqueue_locked(&m, &c, 0, 3);
        let pfn = pfn.unwrap();
        assert_eq!(cost.cycles, m.buddy_step_cycles * 8);
        assert!(z.put_page_testzero(pfn));
        z.free_one_page(&m, &c, 1, pfn, 3);
        z.check_invariants().unwrap();
        assert_eq!(z.free_area.nr_free()[10], 1);
    }
}
