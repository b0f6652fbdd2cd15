//! The invariants of `skb-cache`'s world after every event (`make fuzz-sim`), apart from the
//! model: every node's SLUB or the SLAB (`Slub::check_invariants`, `Slab::check_invariants`:
//! objects, slabs, lists, zones, locks), object conservation (the skbs the flows and backlogs
//! hold are exactly the objects the allocator counts allocated), the rx frames' pages referenced, and the queues naming real flows
//! and threads, the counts of requests before the driver and rx skbs held equal to the queues'.

use super::{Sim, Skb};

impl Sim {
    /// Every skb the world holds (flows' slots, the RPS backlogs).
    fn held_skbs(&self) -> impl Iterator<Item = &Skb> + '_ {
        let slots = self.flows.iter().flat_map(|f| [&f.rx_queued, &f.rx_parked, &f.tx_inflight, &f.tx_parked]);
        slots.flatten().chain(self.stack_q.iter().flatten().map(|(_, s)| s))
    }

    /// What [`crate::sim::world::World::check`] checks for this world.
    pub(super) fn invariants(&self) -> Result<(), String> {
        for (node, s) in self.slub.iter().enumerate() {
            s.check_invariants().map_err(|e| format!("node {node}: {e}"))?;
            let mut held: Vec<_> = self
                .held_skbs()
                .flat_map(|k| k.nodes.into_iter().zip(k.objs).take(k.slab_objects()))
                .filter(|&(n, _)| n as usize == node)
                .map(|(_, o)| o)
                .collect();
            s.check_held(&mut held, true).map_err(|e| format!("node {node}: {e}"))?;
        }
        if let Some(s) = &self.slab {
            s.check_invariants()?;
            let mut held: Vec<_> = self.held_skbs().flat_map(|k| k.objs.into_iter().take(k.slab_objects())).collect();
            s.check_held(&mut held, true)?;
        }
        for k in self.held_skbs() {
            if let Some(&(node, pfn)) = k.pages.iter().find(|&&(n, p)| self.zone(n).page_ref(p) == 0) {
                return Err(format!("an skb's frame page {pfn} on node {node} is not referenced"));
            }
        }
        self.head_page_invariants()?;
        let flows = self.flows.len() as u32;
        let bad_flow = self.driver_q.iter().flatten().chain(self.thread_q.iter().flatten()).any(|&f| f >= flows)
            || self.stack_q.iter().flatten().any(|&(f, _)| f >= flows);
        if bad_flow {
            return Err(format!("a queue names a flow beyond the {flows} simulated"));
        }
        let waiting: usize = self.driver_q.iter().map(|q| q.len()).sum();
        let rx_held = self.flows.iter().filter(|f| f.rx_queued.is_some()).count()
            + self.stack_q.iter().map(|q| q.len()).sum::<usize>();
        if (waiting as u64, rx_held as u64) != (self.n_before_driver, self.n_rx_held) {
            return Err(format!(
                "counted {} requests before the driver and {} rx skbs held, the queues hold {waiting} and {rx_held}",
                self.n_before_driver, self.n_rx_held
            ));
        }
        for (c, r) in self.running.iter().enumerate() {
            if r.is_some_and(|t| !self.cpu_threads[c].contains(&t)) {
                return Err(format!("cpu {c} runs thread {r:?}, not one of its own"));
            }
        }
        Ok(())
    }
}

impl Skb {
    /// The slab objects it holds: the sk_buff, and the head unless it is a page fragment.
    fn slab_objects(&self) -> usize {
        if self.head.is_some() {
            1
        } else {
            2
        }
    }
}

impl Sim {
    /// Page-fragment heads: each tracked page's count is the heads held on it, a page no
    /// CPU uses any more has heads left, and every CPU's current page is tracked as such.
    fn head_page_invariants(&self) -> Result<(), String> {
        let mut counted = std::collections::BTreeMap::new();
        for page in self.held_skbs().filter_map(|k| k.head) {
            *counted.entry(page).or_insert(0u32) += 1;
        }
        for (page, hp) in &self.head_pages {
            let held = counted.get(page).copied().unwrap_or(0);
            if held != hp.refs {
                return Err(format!("fragment page {page:?}: {} heads counted, {held} held", hp.refs));
            }
            if hp.refs == 0 && !hp.current {
                return Err(format!("fragment page {page:?} has no head left and no CPU: it should be freed"));
            }
        }
        for n in self.napi.iter().filter_map(|n| n.page) {
            if !self.head_pages.get(&n).is_some_and(|hp| hp.current) {
                return Err(format!("a CPU's fragment page {n:?} is not tracked as current"));
            }
        }
        Ok(())
    }
}
