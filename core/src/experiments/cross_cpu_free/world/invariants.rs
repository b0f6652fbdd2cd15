//! The invariants of `cross-cpu-free`'s worlds after every event (`make fuzz-sim`), apart
//! from the model: both hosts' SLUB (`Slub::check_invariants`: objects, slabs, lists,
//! zone, locks), the objects of every skb the world holds allocated and held once, the pages
//! of held tcp skbs referenced, the queues within their bounds (netfront ring, socket buffer,
//! TCP window) and sleeping readers with empty queues.

use super::{Sim, Skb, Workload, RX_RING, TCP_WINDOW_SKBS, UDP_RCVBUF_BYTES};
use crate::sim::slub::Obj;

fn objs<'a>(skbs: impl Iterator<Item = &'a Skb>) -> Vec<Obj> {
    skbs.flat_map(|s| s.objs.iter().flatten().copied()).collect()
}

impl Sim {
    /// What [`crate::sim::world::World::check`] checks for this world.
    pub(super) fn invariants(&self) -> Result<(), String> {
        self.tx.slub.check_invariants().map_err(|e| format!("sender: {e}"))?;
        self.rx.slub.check_invariants().map_err(|e| format!("receiver: {e}"))?;
        // Skbs in `Deliver` events are not listed: held ⊆ allocated, not equal.
        let mut tx = objs(self.tx_inflight.iter().flatten().map(|(_, s)| s));
        self.tx.slub.check_held(&mut tx, false).map_err(|e| format!("sender: {e}"))?;
        let rx_skbs = || self.sockq.iter().flatten().chain(&self.defer_list);
        let mut rx = objs(rx_skbs());
        self.rx.slub.check_held(&mut rx, false).map_err(|e| format!("receiver: {e}"))?;
        for s in rx_skbs() {
            for k in 0..s.pages as usize {
                let pfn = self.pages.get(s.first_page + k).copied();
                if pfn.is_none_or(|p| self.rx.slub.zone.page_ref(p) == 0) {
                    return Err(format!("skb {}: frag page {k} not referenced", s.id));
                }
            }
        }
        if self.backlog.len() > RX_RING {
            return Err(format!("{} packets on a ring of {RX_RING}", self.backlog.len()));
        }
        let truesize = u64::from(self.cfg.input.datagram_bytes) + 768;
        for (r, q) in self.sockq.iter().enumerate() {
            if self.sleeping[r] && !q.is_empty() {
                return Err(format!("reader {r} sleeps with {} skbs queued", q.len()));
            }
            match self.cfg.input.workload {
                Workload::UdpIperf if self.sock_bytes[r] != q.len() as u64 * truesize => {
                    return Err(format!("reader {r}: {} bytes counted for {} skbs", self.sock_bytes[r], q.len()));
                }
                Workload::UdpIperf if self.sock_bytes[r] > UDP_RCVBUF_BYTES => {
                    return Err(format!("reader {r}: {} bytes beyond the socket buffer", self.sock_bytes[r]));
                }
                Workload::Tcp100g if q.len() > TCP_WINDOW_SKBS => {
                    return Err(format!("{} skbs queued beyond the window", q.len()));
                }
                _ => {}
            }
        }
        Ok(())
    }
}
