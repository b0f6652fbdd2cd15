//! The TCP_STREAM world's invariants, checked after every event by `make fuzz-sim`: every
//! zone (`Zone::check_invariants`: buddy lists, pagesets, pages conserved, zone->lock's FIFO
//! queue) and every skb SLUB, the CPUs' run queues, every `zone->lock` holder and waiter a
//! thread with an operation on that zone (and every spinning thread on it, queued or
//! granted), page references (each page at least as referenced as the task frags and skb
//! frags the world holds; a page queued for freeing unreferenced), the skb objects held
//! allocated, and each flow's byte counters in order.

use super::{Action, Skb, StreamSim, ThreadState};
use crate::sim::machine::PAGE_SIZE;
use std::collections::BTreeMap;

impl StreamSim {
    /// Every skb the world holds where it can list it.
    fn held_skbs(&self) -> impl Iterator<Item = &Skb> + '_ {
        let threads = self.threads.iter().map(|t| &t.skb);
        let flows = self.flows.iter().flat_map(|f| f.queue.iter().chain(&f.rtx));
        threads.chain(flows).chain(self.skbs.parked())
    }

    /// What [`crate::sim::world::World::check`] checks for this world.
    pub(super) fn invariants(&self) -> Result<(), String> {
        self.check_invariants()?;
        for (node, s) in self.skbs.slubs().iter().enumerate() {
            s.check_invariants().map_err(|e| format!("skb slub {node}: {e}"))?;
            let mut held: Vec<_> = self
                .held_skbs()
                .filter_map(|k| k.heads.map(|h| h.objects()))
                .filter(|&(n, _)| n as usize == node)
                .flat_map(|(_, objs)| objs)
                .collect();
            s.check_held(&mut held, false).map_err(|e| format!("skb slub {node}: {e}"))?;
        }
        self.check_threads()?;
        self.check_page_refs()?;
        // One pending event per thread (its `Resume`), per flow (its delayed-ACK slot) and
        // per node (its zone->lock handoff): a queue longer than that keeps stale events.
        let bound = self.threads.len() + self.flows.len() + self.zones.len();
        if self.queue.len() > bound {
            return Err(format!("{} events queued, more than threads + flows + nodes = {bound}", self.queue.len()));
        }
        for (f, fl) in self.flows.iter().enumerate() {
            if fl.acked_bytes > fl.sent_bytes || fl.small_end_bytes > fl.sent_bytes {
                return Err(format!(
                    "flow {f}: acked {} or small end {} beyond sent {}",
                    fl.acked_bytes, fl.small_end_bytes, fl.sent_bytes
                ));
            }
        }
        Ok(())
    }

    /// Run queues name threads of their CPU; lock holders and waiters are threads with an
    /// operation on that zone, and spinning threads wait on it.
    fn check_threads(&self) -> Result<(), String> {
        for (c, slot) in self.cpus.iter().enumerate() {
            if let Some(&t) = slot.owner.iter().chain(&slot.runq).find(|&&t| self.threads[t as usize].cpu as usize != c)
            {
                return Err(format!("cpu {c} runs or queues thread {t} of cpu {}", self.threads[t as usize].cpu));
            }
        }
        for (n, z) in self.zones.iter().enumerate() {
            for w in z.lock.waiters().chain(z.lock.holder().as_ref()) {
                let op = self.threads.get(w.thread as usize).and_then(|t| t.locked_op);
                if op.is_none_or(|op| op.node() as usize != n) {
                    return Err(format!("thread {} on node {n}'s zone->lock without an operation there", w.thread));
                }
            }
        }
        for (i, th) in self.threads.iter().enumerate() {
            if th.state != ThreadState::Spinning {
                continue;
            }
            let Some(op) = th.locked_op else {
                return Err(format!("thread {i} spins without an operation"));
            };
            // Queued, or granted with the lock's line still on its way (the grant's event).
            let lock = &self.zones[op.node() as usize].lock;
            if !lock.waiters().chain(lock.holder().as_ref()).any(|w| w.thread as usize == i) {
                return Err(format!("thread {i} spins but is not on node {}'s zone->lock", op.node()));
            }
        }
        Ok(())
    }

    /// Each page is referenced at least as often as the references the world can see (the
    /// task frags, the frags of held skbs); a page a thread will free has none left and is not
    /// free yet; frags lie inside their page.
    fn check_page_refs(&self) -> Result<(), String> {
        let mut refs: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for th in &self.threads {
            if let Some(p) = th.pfrag.page {
                *refs.entry((p.node, p.pfn)).or_default() += 1;
            }
            // A queued free comes after the last put_page: its page has no reference left,
            // and is not free yet.
            for a in &th.prog {
                if let Action::FreePage { page } = a {
                    let z = &self.zones[page.node as usize];
                    if z.page_ref(page.pfn) != 0 || z.free_area.is_free_block(page.pfn) {
                        return Err(format!(
                            "node {} page {}: queued for freeing but referenced or free",
                            page.node, page.pfn
                        ));
                    }
                }
            }
        }
        for skb in self.held_skbs() {
            for fr in &skb.frags {
                if fr.start_bytes > fr.end_bytes || fr.end_bytes > PAGE_SIZE << fr.page.order {
                    return Err(format!(
                        "frag {}..{} outside its order-{} page",
                        fr.start_bytes, fr.end_bytes, fr.page.order
                    ));
                }
                *refs.entry((fr.page.node, fr.page.pfn)).or_default() += 1;
            }
        }
        for (&(node, pfn), &n) in &refs {
            let have = self.zones[node as usize].page_ref(pfn);
            if have < n {
                return Err(format!("node {node} page {pfn}: {have} references but the world holds {n}"));
            }
        }
        Ok(())
    }
}
