//! An skb's life on the sim kernel: its sk_buff and head allocated from the SLUB of the
//! allocating CPU's node, its pages and page-frag references, and its free on whichever CPU
//! frees it (SLUB's path for the sk_buff goes to the lane view); with the socket, skb and
//! `struct page` lines each step pulls from the CPU that last wrote them.

use super::super::profile::RxHead;
use super::{HeadPage, Lane, NapiFrag, Sim, Skb, Stack, MAX_LANES};
use crate::sim::buddy::Pfn;
use crate::sim::cache::PageData;
use crate::sim::cacheline::CacheLine;
use crate::sim::machine::{cycles_to_ns, CpuId};
use crate::sim::page_frag::SKB_FRAG_PAGE_ORDER;
use crate::sim::slab;
use crate::sim::slub::{AllocPath, Caller, Done, Obj, OpCost, Reach};
use crate::sim::zone::Zone;

impl Sim {
    pub(super) fn node(&self, cpu: CpuId) -> u32 {
        self.m.pos(cpu).socket
    }

    /// Node `node`'s zone, whichever allocator holds it.
    pub(super) fn zone(&self, node: u32) -> &Zone {
        match &self.slab {
            Some(s) => &s.zones[node as usize],
            None => &self.slub[node as usize].zone,
        }
    }

    /// An order-0 page of `node`'s zone for `cpu` (a receive frame's page).
    pub(super) fn alloc_page(&mut self, t: u64, cpu: CpuId, node: u32) -> (Option<Pfn>, OpCost) {
        self.alloc_pages(t, cpu, node, 0)
    }

    /// A block of `order` of `node`'s zone for `cpu`.
    fn alloc_pages(&mut self, t: u64, cpu: CpuId, node: u32, order: usize) -> (Option<Pfn>, OpCost) {
        match &mut self.slab {
            Some(s) => s.alloc_pages(Caller::new(&self.m, cpu, t), node as usize, order),
            None => self.slub[node as usize].alloc_pages(Caller::new(&self.m, cpu, t), order),
        }
    }

    /// `put_page` of the last reference to an order-0 page of `node`'s zone.
    pub(super) fn free_page(&mut self, t: u64, cpu: CpuId, node: u32, pfn: Pfn) -> OpCost {
        self.free_pages(t, cpu, node, pfn, 0)
    }

    /// The last reference to a block of `order` of `node`'s zone dropped on `cpu`.
    fn free_pages(&mut self, t: u64, cpu: CpuId, node: u32, pfn: Pfn, order: usize) -> OpCost {
        match &mut self.slab {
            Some(s) => s.free_pages(Caller::new(&self.m, cpu, t), node as usize, pfn, order),
            None => self.slub[node as usize].free_pages(Caller::new(&self.m, cpu, t), pfn, order),
        }
    }

    /// `lines` lines came into `cpu`'s L2 from elsewhere: they count against its capacity
    /// (and its socket's L3) in [`crate::sim::cache`], so that what this world touches ages out.
    fn fill(&mut self, cpu: CpuId, lines: u64) {
        let node = self.node(cpu);
        self.caches.access(&mut PageData::default(), cpu, node, lines as u32, true);
    }

    /// The socket lines `f`'s softirq or thread writes, charged to `stack`.
    pub(super) fn sock_lines(&mut self, _now: u64, cpu: CpuId, f: u32, stack: Stack) -> u64 {
        let lines = self.cfg.profile.sock_lines;
        let one = self.flows[f as usize].sock.touch(&self.m, &self.caches, cpu);
        if one > 0 {
            self.fill(cpu, lines);
        }
        self.lines(stack, one * lines)
    }

    /// The socket state only this side of `f` uses (`rx`: the softirq's, else the process's):
    /// its lines from wherever the capacity model says they are, a simulated flow standing for
    /// [`super::Config::scale`] sockets (so that its lines age as a real socket's would).
    pub(super) fn sock_private(&mut self, cpu: CpuId, f: u32, rx: bool, stack: Stack) -> u64 {
        let lines = self.cfg.profile.sock_private_lines;
        // The socket was allocated on the node of the thread that accepted it.
        let home = self.node(self.flows[f as usize].app_cpu);
        let fl = &mut self.flows[f as usize];
        let d = if rx { &mut fl.sock_rx } else { &mut fl.sock_app };
        let src = self.caches.access_sampled(d, cpu, home, lines as u32, true, self.scale);
        let ns = self.m.source_ns(src) * lines;
        self.lines(stack, ns)
    }

    /// The lines of `skb` a free, a read or a reuse writes, charged to `stack`.
    pub(super) fn skb_lines(&mut self, _now: u64, cpu: CpuId, skb: &mut Skb, stack: Stack) -> u64 {
        let lines = self.cfg.profile.skb_lines;
        let one = skb.line.touch(&self.m, &self.caches, cpu);
        if one > 0 {
            self.fill(cpu, lines);
        }
        self.lines(stack, one * lines)
    }

    /// A get_page/put_page (`stack`: [`Stack::FragGet`] or [`Stack::FragPut`]) on the
    /// `struct page` of `owner`'s current tx page frag.
    pub(super) fn frag_put(&mut self, _now: u64, cpu: CpuId, owner: CpuId, stack: Stack) -> u64 {
        let line = self.frag_line[owner as usize].touch(&self.m, &self.caches, cpu);
        let w = cycles_to_ns(self.slub_costs.shared.page_op_cycles, self.mhz[cpu as usize]);
        self.add(stack, w);
        w + self.lines(stack, line)
    }

    /// One object of `cache` for `cpu`, as 5.x `___slab_alloc` finds it with `NUMA_NO_NODE`
    /// (every skb allocation: `__alloc_skb`, `kmalloc_reserve`): the freelist and active slab
    /// of the node it is on, then the CPU's partial slabs — one list in the kernel, whatever
    /// the slabs' nodes, so a slab of the other node that this CPU froze by a remote free is
    /// allocated from here too (ASSUMPTION: the active slab's node first, then the others; the
    /// kernel takes the list's head) — then `get_partial_node` on the CPU's own node, another
    /// node's list (`get_any_partial`), or a new slab on the own node. The node of the object and what it cost (the lines of a miss included).
    fn slab_alloc(&mut self, t: u64, cpu: CpuId, cache: u16) -> Result<(u32, Obj, Done<AllocPath>), OpCost> {
        if let Some(s) = &mut self.slab {
            // SLAB: always from the CPU's own node (`____cache_alloc`, `cache_alloc_refill`).
            let (obj, d) = s.alloc(Caller::new(&self.m, cpu, t), cache).map_err(|_| OpCost::default())?;
            let path = match d.path {
                slab::AllocPath::Fast => AllocPath::Fast,
                slab::AllocPath::Shared => AllocPath::Refill,
                slab::AllocPath::Slabs => AllocPath::Partial,
                slab::AllocPath::Grow => AllocPath::NewSlab,
            };
            let node = s.node_of(obj) as u32;
            return Ok((node, obj, Done { path, cost: d.cost, slab_owner: d.slab_owner, slab_pfn: d.slab_pfn }));
        }
        let home = self.node(cpu);
        let cur = self.cur_node[cpu as usize][cache as usize];
        let mut spent = OpCost::default();
        let order = std::iter::once(cur).chain(std::iter::once(home).filter(|&h| h != cur));
        let others: Vec<u32> = order.chain((0..self.slub.len() as u32).filter(|&n| n != cur && n != home)).collect();
        for n in others {
            match self.slub[n as usize].alloc_within(Caller::new(&self.m, cpu, t + spent.line_ns), cache, Reach::Cpu) {
                Ok((obj, mut d)) => {
                    self.cur_node[cpu as usize][cache as usize] = n;
                    d.cost.add(spent);
                    return Ok((n, obj, d));
                }
                Err(c) => spent.add(c),
            }
        }
        // get_partial(): this node's list, then (get_any_partial, `remote_node_defrag_ratio`
        // 1000 of 1024: ASSUMPTION, always) another node's with more than `min_partial` slabs.
        let remote = (0..self.slub.len() as u32).filter(|&n| n != home);
        for n in std::iter::once(home).chain(remote) {
            let s = &self.slub[n as usize];
            if n != home && s.node_partial_slabs(cache) <= s.caches[cache as usize].min_partial {
                continue;
            }
            match self.slub[n as usize].alloc_within(Caller::new(&self.m, cpu, t + spent.line_ns), cache, Reach::Node) {
                Ok((obj, mut d)) => {
                    self.cur_node[cpu as usize][cache as usize] = n;
                    d.cost.add(spent);
                    return Ok((n, obj, d));
                }
                Err(c) => spent.add(c),
            }
        }
        match self.slub[home as usize].alloc(Caller::new(&self.m, cpu, t + spent.line_ns), cache) {
            Ok((obj, mut d)) => {
                self.cur_node[cpu as usize][cache as usize] = home;
                d.cost.add(spent);
                Ok((home, obj, d))
            }
            Err(_) => Err(spent),
        }
    }

    /// The sk_buff and its head for `cpu` ([`Sim::slab_alloc`]), with the time taken; `None`
    /// (everything taken given back) when the zone has no slab left for one of them, as
    /// `__alloc_skb` returns NULL on a failed `kmem_cache_alloc_node`.
    pub(super) fn alloc_skb(&mut self, t: u64, cpu: CpuId, rx: bool, f: u32) -> (Option<Skb>, u64) {
        let frag_head = rx && self.cfg.profile.rx_head == RxHead::Frag;
        let caches: &[u16] = match (rx, frag_head) {
            (true, true) => &[0],
            (true, false) => &[0, 2],
            (false, _) => &[1, 3],
        };
        let mut ns = 0;
        let mut objs = [Obj { cache: 0, slab: 0, idx: 0 }; 2];
        let mut nodes = [0; 2];
        let mut head = None;
        if frag_head {
            let (page, a) = self.napi_frag_alloc(t, cpu);
            ns += a;
            let Some(page) = page else { return (None, ns) };
            head = Some(page);
        }
        for (i, &c) in caches.iter().enumerate() {
            let (node, obj, d) = match self.slab_alloc(t + ns, cpu, c) {
                Ok(r) => r,
                Err(spent) => {
                    ns += self.charge(cpu, Stack::SlabAllocSlow, spent);
                    for (obj, &n) in objs[..i].iter().zip(&nodes) {
                        ns += self.slab_free(t + ns, cpu, n, *obj).1;
                    }
                    if let Some(page) = head {
                        ns += self.head_put(t + ns, cpu, page);
                    }
                    return (None, ns);
                }
            };
            let stacks = match Stack::slab_alloc(d.path) {
                Stack::SlabAllocSlow if self.slab.is_some() => (Stack::SlabRefill, Stack::SlabRefillSpin),
                stack => (stack, stack.spin()),
            };
            ns += self.charge_to(cpu, stacks, d.cost);
            objs[i] = obj;
            nodes[i] = node;
        }
        let mut line = CacheLine::UNTOUCHED;
        line.touch(&self.m, &self.caches, cpu);
        let mut skb = Skb { alloc_cpu: cpu, nodes, objs, pages: Vec::new(), tx_frags: 0, head, line, lane: None };
        if self.run_state.measuring() && self.res.lanes.len() < MAX_LANES && f % 97 == 0 {
            skb.lane = Some(self.res.lanes.len());
            self.res.lanes.push(Lane {
                rx,
                flow: f,
                alloc_cpu: cpu,
                free_cpu: None,
                where_freed: if rx { "not yet" } else { "in flight" }.into(),
                path: "".into(),
            });
        }
        (Some(skb), ns)
    }

    /// `kmem_cache_free()` of `obj` (on `node`'s slab) on `cpu`: its path and the ns taken. A
    /// CPU's partial slabs are one list over the nodes (see [`Sim::slab_alloc`]): this node's
    /// `put_cpu_partial` counts the `pobjects` of `cpu`'s lists on the other nodes, and a drain
    /// it starts drains them too, each under its node's `list_lock`.
    fn slab_free(&mut self, t: u64, cpu: CpuId, node: u32, obj: Obj) -> (&'static str, u64) {
        if let Some(s) = &mut self.slab {
            // SLAB: `cache_free_alien` routes another node's object to the alien cache.
            let d = s.free(Caller::new(&self.m, cpu, t), obj);
            let stacks = match d.path {
                slab::FreePath::Fast => (Stack::SlabFree, Stack::SlabFreeSpin),
                slab::FreePath::FlushShared | slab::FreePath::FlushSlabs => (Stack::SlabFlush, Stack::SlabFlushSpin),
                slab::FreePath::Alien => (Stack::SlabAlien, Stack::SlabAlienSpin),
                slab::FreePath::AlienDrain => (Stack::SlabAlienDrain, Stack::SlabAlienDrainSpin),
            };
            return (d.path.name(), self.charge_to(cpu, stacks, d.cost));
        }
        let nodes = self.slub.len();
        if nodes > 1 {
            let peers = (0..nodes)
                .filter(|&n| n != node as usize)
                .map(|n| self.slub[n].cpu_partial_pobjects(obj.cache, cpu))
                .sum();
            self.slub[node as usize].set_peer_pobjects(obj.cache, cpu, peers);
        }
        let drains = self.slub[node as usize].cpu_partial_drains(obj.cache, cpu);
        let d = self.slub[node as usize].free(Caller::new(&self.m, cpu, t), obj);
        let stack = Stack::slab_free(d.path);
        let mut ns = self.charge(cpu, stack, d.cost);
        if self.slub[node as usize].cpu_partial_drains(obj.cache, cpu) > drains {
            for n in (0..nodes).filter(|&n| n != node as usize) {
                let c = self.slub[n].drain_cpu_partial(Caller::new(&self.m, cpu, t + ns), obj.cache);
                ns += self.charge(cpu, Stack::SlabFreeSlow, c);
            }
        }
        (d.path.name(), ns)
    }

    pub(super) fn free_skb(&mut self, t: u64, cpu: CpuId, mut skb: Skb, where_freed: &'static str) -> u64 {
        let mut ns = self.skb_lines(t, cpu, &mut skb, Stack::SkbFreeLines);
        for &(node, pfn) in &skb.pages {
            let c = self.free_page(t + ns, cpu, node, pfn);
            ns += self.charge(cpu, Stack::PageFree, c);
        }
        for _ in 0..skb.tx_frags {
            ns += self.frag_put(t + ns, cpu, skb.alloc_cpu, Stack::FragPut);
        }
        let mut path = "fast";
        if let Some(page) = skb.head {
            ns += self.head_put(t + ns, cpu, page);
        }
        for i in 0..if skb.head.is_some() { 1 } else { 2 } {
            let (p, w) = self.slab_free(t + ns, cpu, skb.nodes[i], skb.objs[i]);
            ns += w;
            if i == 0 {
                path = p;
            }
        }
        if self.run_state.measuring() {
            self.res.skbs_freed += 1;
            if cpu == skb.alloc_cpu {
                self.res.freed_on_alloc_cpu += 1;
            }
        }
        self.lane_free(&skb, cpu, where_freed, path);
        ns
    }
}

/// 3.19-5.10's page-fragment heads: `page_frag_alloc()` on the receiving CPU's
/// `napi_alloc_cache` and `page_frag_free()` wherever the skb dies (mm/page_alloc.c; 5.2's
/// `__napi_alloc_skb` takes every head up to `SKB_WITH_OVERHEAD(PAGE_SIZE)` there).
impl Sim {
    /// A head for `cpu` from its NAPI fragment: the cache's bias decremented, no atomic and no
    /// `struct page` line, at the cost of a per-CPU fast path (the catalogue's
    /// `slub_fast_cycles`: ASSUMPTION, the same kind of work). When the page is used up, its
    /// refcount is settled against the bias (an atomic on its line): if every head was freed
    /// the page is reused, else it is left to its last `put_page` and an order-3 page comes
    /// from the zone (its order-0 fallback is not modelled). `None` when the zone has none.
    fn napi_frag_alloc(&mut self, t: u64, cpu: CpuId) -> (Option<(u32, u32)>, u64) {
        let c = cpu as usize;
        let mut ns = self.work(cpu, Stack::HeadFrag, self.slub_costs.shared.fast_cycles);
        if self.napi[c].left == 0 {
            if let Some(page) = self.napi[c].page.take() {
                let hp = self.head_pages.get_mut(&page).expect("a CPU's fragment page is tracked");
                let line = hp.line.touch(&self.m, &self.caches, cpu);
                let reuse = hp.refs == 0;
                hp.current = reuse;
                ns += self.lines(Stack::HeadFragRefill, line);
                if reuse {
                    self.napi[c] = NapiFrag { page: Some(page), left: self.heads_per_page };
                }
            }
            if self.napi[c].page.is_none() {
                let node = self.node(cpu);
                let (pfn, cost) = self.alloc_pages(t + ns, cpu, node, SKB_FRAG_PAGE_ORDER);
                ns += self.charge_to(cpu, (Stack::HeadFragRefill, Stack::HeadFragRefillSpin), cost);
                let Some(pfn) = pfn else { return (None, ns) };
                let mut line = CacheLine::UNTOUCHED;
                line.touch(&self.m, &self.caches, cpu);
                self.head_pages.insert((node, pfn), HeadPage { refs: 0, current: true, line });
                self.napi[c] = NapiFrag { page: Some((node, pfn)), left: self.heads_per_page };
            }
        }
        let page = self.napi[c].page.expect("refilled above");
        self.napi[c].left -= 1;
        self.head_pages.get_mut(&page).expect("tracked").refs += 1;
        (Some(page), ns)
    }

    /// `page_frag_free()` of a head on `page`, on `cpu`: `put_page` (an atomic on the page's
    /// line, wherever it was last written) and, for the last reference of a page its CPU has
    /// moved on from, `__free_pages_ok` of the order-3 page (zone->lock: 5.2 keeps per-CPU
    /// lists for order 0 only).
    pub(super) fn head_put(&mut self, t: u64, cpu: CpuId, page: (u32, u32)) -> u64 {
        let hp = self.head_pages.get_mut(&page).expect("a head's page is tracked");
        hp.refs -= 1;
        let line = hp.line.touch(&self.m, &self.caches, cpu);
        let free = hp.refs == 0 && !hp.current;
        let w = cycles_to_ns(self.slub_costs.shared.page_op_cycles, self.mhz[cpu as usize]);
        self.add(Stack::HeadPut, w);
        let mut ns = w + self.lines(Stack::HeadPut, line);
        if free {
            self.head_pages.remove(&page);
            let c = self.free_pages(t + ns, cpu, page.0, page.1, SKB_FRAG_PAGE_ORDER);
            ns += self.charge_to(cpu, (Stack::HeadPageFree, Stack::HeadPageFreeSpin), c);
        }
        ns
    }
}
