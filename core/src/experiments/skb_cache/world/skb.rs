//! An skb's life on the sim kernel: its sk_buff and head allocated from the SLUB of the
//! allocating CPU's node, its pages and page-frag references, and its free on whichever CPU
//! frees it (SLUB's path for the sk_buff goes to the lane view); with the socket, skb and
//! `struct page` lines each step pulls from the CPU that last wrote them.

use super::{Lane, Sim, Skb, Stack, MAX_LANES};
use crate::sim::cache::PageData;
use crate::sim::cacheline::CacheLine;
use crate::sim::machine::{cycles_to_ns, CpuId};
use crate::sim::slub::{AllocPath, Obj};

impl Sim {
    pub(super) fn node(&self, cpu: CpuId) -> u32 {
        self.m.pos(cpu).socket
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
        let w = cycles_to_ns(self.slub_costs.page_op_cycles, self.mhz[cpu as usize]);
        self.add(stack, w);
        w + self.lines(stack, line)
    }

    /// The sk_buff and its head from `cpu`'s node, with the time taken; `None` (everything
    /// taken given back) when the zone has no slab left for one of them, as
    /// `__alloc_skb` returns NULL on a failed `kmem_cache_alloc_node`.
    pub(super) fn alloc_skb(&mut self, t: u64, cpu: CpuId, rx: bool, f: u32) -> (Option<Skb>, u64) {
        let node = self.node(cpu);
        let caches: [u16; 2] = if rx { [0, 2] } else { [1, 3] };
        let mut ns = 0;
        let mut objs = [Obj { cache: 0, slab: 0, idx: 0 }; 2];
        for (i, &c) in caches.iter().enumerate() {
            let Ok((obj, d)) = self.slub[node as usize].alloc(&self.m, cpu, c, t + ns) else {
                for obj in &objs[..i] {
                    let d = self.slub[node as usize].free(&self.m, cpu, *obj, t + ns);
                    ns += self.charge(cpu, Stack::SlabFree, d.cost);
                }
                return (None, ns);
            };
            let stack = if d.path == AllocPath::Fast { Stack::SlabAlloc } else { Stack::SlabAllocSlow };
            ns += self.charge(cpu, stack, d.cost);
            objs[i] = obj;
        }
        let mut line = CacheLine::UNTOUCHED;
        line.touch(&self.m, &self.caches, cpu);
        let mut skb = Skb { alloc_cpu: cpu, node, objs, pages: Vec::new(), tx_frags: 0, line, lane: None };
        if self.run_state.measuring() && self.res.lanes.len() < MAX_LANES && f % 97 == 0 {
            skb.lane = Some(self.res.lanes.len());
            self.res.lanes.push(Lane {
                rx,
                flow: f,
                alloc_cpu: cpu,
                free_cpu: None,
                where_freed: if rx { "not yet" } else { "in flight" },
                path: "",
            });
        }
        (Some(skb), ns)
    }

    pub(super) fn free_skb(&mut self, t: u64, cpu: CpuId, mut skb: Skb, where_freed: &'static str) -> u64 {
        let mut ns = self.skb_lines(t, cpu, &mut skb, Stack::SkbFreeLines);
        for &(node, pfn) in &skb.pages {
            let c = self.slub[node as usize].free_pages(&self.m, cpu, t + ns, pfn, 0);
            ns += self.charge(cpu, Stack::PageFree, c);
        }
        for _ in 0..skb.tx_frags {
            ns += self.frag_put(t + ns, cpu, skb.alloc_cpu, Stack::FragPut);
        }
        let mut path = "fast";
        for (i, obj) in skb.objs.iter().enumerate() {
            let d = self.slub[skb.node as usize].free(&self.m, cpu, *obj, t + ns);
            let stack = if d.path.is_slow() { Stack::SlabFreeSlow } else { Stack::SlabFree };
            ns += self.charge(cpu, stack, d.cost);
            if i == 0 {
                path = d.path.name();
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
