//! The sk_buffs of the TCP_STREAM world and the two per-socket skb caches of Linux 5.2–5.15:
//! `net.ipv4.tcp_rx_skb_cache` and `net.ipv4.tcp_tx_skb_cache` (both default off, as in the
//! kernel of seed 000).
//!
//! What Linux does (v5.2, Eric Dumazet, netdev 2019-03-22, "tcp: add one skb cache for tx",
//! 472c2e07eef0, and "tcp: add one skb cache for rx", 8b27dae5a2e8; sysctls since June 2019):
//! - Every tx skb is one `skbuff_fclone_cache` object (the sk_buff kept in the retransmit
//!   queue and its clone, which goes down the stack) and a `kmalloc-1024` head
//!   (`MAX_TCP_HEADER` plus `skb_shared_info`), allocated by `sk_stream_alloc_skb()` on the
//!   sender's CPU. The payload sits in page frags both sk_buffs share (`dataref`); whichever of
//!   the two is freed last drops the frag pages and frees the head and the fclone object.
//! - rx cache: `sk_eat_skb()` in `tcp_recvmsg()` parks the consumed skb in the socket
//!   (`sk->sk_rx_skb_cache`) instead of freeing it, if the slot is empty. The next
//!   `tcp_v4_rcv()` for that socket that finds it not owned by the user (no `recvmsg` holding
//!   `lock_sock`) takes the parked skb and frees it after processing the new packet. On
//!   loopback that softirq runs on the *sender's* CPU (`loopback_xmit` → `netif_rx` →
//!   `do_softirq` at the sender's `local_bh_enable`), the CPU whose page frag and slabs the
//!   skb came from: its frag pages go back to the sender's per-CPU list (order 0) and its
//!   slab objects to the sender's active slab (SLUB fast path). If the receiver holds the
//!   socket, the packet goes to the backlog and the parked skb stays.
//! - tx cache: `sk_wmem_free_skb()`, when an ACK frees an skb of the retransmit queue, parks
//!   it in `sk->sk_tx_skb_cache` if the slot is empty and the skb is not cloned (its clone
//!   already freed); the next `sk_stream_alloc_skb()` takes it back: `pskb_trim(skb, 0)`
//!   drops its frag pages *there*, on the sender's CPU, and the sk_buff and head are reused
//!   with no slab allocation or free. With the rx cache on, the clone is usually parked in
//!   the receiver when the ACK comes, so the skb is cloned and the tx cache is not filled.
//!
//! Without the caches both sk_buffs of a tx skb die where the ACK is processed (the world's
//! rule, `StreamSim::release_skb`): on the sender's CPU at `release_sock` while netperf owns
//! its socket, else on the receiver's. So on loopback a busy sender already frees its skbs
//! itself, and the rx cache changes where they die only when the sender sleeps and the
//! receiver does not own its socket when the next packet comes.
//!
//! What we simplify (beside the world's own simplifications): with the receiving socket owned,
//! the backlog work a real receiver does at `release_sock` stays in the sender's
//! `skb_tx_cycles`; slab pages come from a zone of
//! their own (their zone->lock is not the frag pages' one); and the slab time SLUB's model
//! computes is counted but not charged to the threads, because the fitted per-skb constants
//! already hold the default path's sk_buff work (see `StreamSim::charge_slub`). So the caches
//! change throughput through the frag pages (where their last `put_page` runs: per-CPU list
//! balance, zone->lock, struct page and buddy lines) and report their slab savings as counts
//! and ns. docs/high-order-alloc.md, "The skb caches", has the numbers.

use super::*;
use crate::sim::skb::{
    kmalloc_name, kmalloc_size, skb_data_align, FCLONE_BYTES, MAX_TCP_HEADER, PAGE_SIZE, SHINFO_2019_BYTES,
};
use crate::sim::slub::{CacheSpec, Caller, Obj, OpCost, Slub, SERVER_2019_SLUB};

/// The tx skb's linear part: `SKB_DATA_ALIGN(MAX_TCP_HEADER = 320) + SKB_DATA_ALIGN(sizeof(struct
/// skb_shared_info) = 320)` = 640 bytes, served by `kmalloc-1024`.
pub const HEAD_BYTES: u32 = kmalloc_size(skb_data_align(MAX_TCP_HEADER) + SHINFO_2019_BYTES);

/// The slab objects of one tx skb, allocated on `node`'s SLUB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Heads {
    node: u32,
    /// The CPU that allocated both objects.
    cpu: CpuId,
    fclone: Obj,
    head: Obj,
}

/// What the skbs and the two caches did in the measurement window.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SkbCacheStats {
    /// tx skbs `sk_stream_alloc_skb` built from SLUB (two objects each).
    pub skb_allocs: u64,
    /// tx skbs it took from the socket's tx cache instead.
    pub tx_reused: u64,
    /// skbs an ACK parked in the tx cache.
    pub tx_parked: u64,
    /// Consumed skbs `sk_eat_skb` parked in the rx cache.
    pub rx_parked: u64,
    /// Parked rx skbs the next softirq freed (on the sender's CPU).
    pub rx_freed_by_softirq: u64,
    /// Softirqs that found the receiver owning the socket, with an skb parked: it stayed.
    pub rx_owned_by_user: u64,
    /// sk_buff and head frees by SLUB path: this CPU's active slab, or `__slab_free`.
    pub slab_fast_frees: u64,
    pub slab_slow_frees: u64,
    /// Objects freed on the CPU that allocated them, of all objects freed.
    pub freed_on_alloc_cpu: u64,
    pub freed: u64,
    /// CPU cycles, and ns of line transfers and list_lock waits, SLUB's model gives these
    /// allocations and frees (counted, not charged: see `StreamSim::charge_slub`).
    pub slab_cycles: u64,
    pub slab_wait_ns: u64,
    /// Allocations the slab zone could not serve (the skb then goes without modelled heads).
    pub slab_alloc_failures: u64,
}

/// The world's sk_buff allocator and each flow's two cache slots.
#[derive(Debug, Clone)]
pub(super) struct SkbSide {
    rx_on: bool,
    tx_on: bool,
    /// One SLUB per node (skbuff_fclone_cache, kmalloc-1024).
    slub: Vec<Slub>,
    /// `sk->sk_rx_skb_cache` of each flow's receiving socket.
    rx_parked: Vec<Option<Skb>>,
    /// `sk->sk_tx_skb_cache` of each flow's sending socket.
    tx_parked: Vec<Option<Skb>>,
}

impl SkbSide {
    pub(super) fn new(cfg: &StreamConfig, n_cpus: usize) -> SkbSide {
        let m = &cfg.machine;
        let specs = [
            CacheSpec { name: "skbuff_fclone_cache", size: FCLONE_BYTES },
            CacheSpec { name: kmalloc_name(HEAD_BYTES), size: HEAD_BYTES },
        ];
        // Slab pages for every skb a flow can have in flight (sndbuf / msg, at least one per
        // message), the two parked ones, and an active slab per CPU and cache; 1<<20 at most.
        let per_flow = u64::from(cfg.input.sndbuf_bytes / cfg.input.msg_bytes.max(1)) + 4;
        let objects = u64::from(cfg.flows) * per_flow;
        let pages =
            objects * u64::from(FCLONE_BYTES + HEAD_BYTES) / u64::from(PAGE_SIZE) + 2 * n_cpus as u64 * 8 + 4096;
        let pages = (pages.div_ceil(1024) * 1024).min(1 << 20) as u32;
        // SLUB on seed 000's machine (the constants skb-cache's server uses too).
        let costs = SERVER_2019_SLUB;
        let slub = (0..m.sockets)
            .map(|node| {
                let zone = Zone::new(node, pages, n_cpus, cfg.input.pcp_high, cfg.input.pcp_batch, false);
                Slub::new(m, &specs, n_cpus, zone, costs)
            })
            .collect();
        let flows = cfg.flows as usize;
        SkbSide {
            rx_on: cfg.input.tcp_rx_skb_cache,
            tx_on: cfg.input.tcp_tx_skb_cache,
            slub,
            rx_parked: vec![None; flows],
            tx_parked: vec![None; flows],
        }
    }
}

impl StreamSim {
    pub(super) fn measuring(&self) -> bool {
        self.now_ns >= self.cfg.warmup_ns()
    }

    /// `sk_stream_alloc_skb()` for the sender's new tail skb: the parked tx skb if there is one
    /// (its frags are dropped here by `pskb_trim`: actions queued before `then`), else an
    /// sk_buff pair and a head from SLUB. True if actions were queued (the caller returns).
    pub(super) fn skb_alloc(&mut self, t: ThreadId, then: Action) -> bool {
        let f = self.threads[t as usize].flow as usize;
        if let Some(mut old) = self.skbs.tx_parked[f].take() {
            if self.measuring() {
                self.stats.skb.tx_reused += 1;
            }
            let heads = old.heads.take();
            self.threads[t as usize].skb.heads = heads;
            self.skb_note(f, "netperf", "sk_stream_alloc_skb reuses the tx-cached skb; pskb_trim drops its frags here");
            self.release_frags_on(t, old, Some(then));
            return true;
        }
        let cpu = self.threads[t as usize].cpu;
        let node = self.caches.socket(cpu);
        let now = self.now_ns;
        let m = &self.cfg.machine;
        let slub = &mut self.skbs.slub[node as usize];
        let mut cost = OpCost::default();
        let mut objs = [None, None];
        for (cache, obj) in objs.iter_mut().enumerate() {
            if let Ok((o, done)) = slub.alloc(Caller::new(m, cpu, now), cache as u16) {
                cost.add(done.cost);
                *obj = Some(o);
            }
        }
        let measuring = self.measuring();
        match objs {
            [Some(fclone), Some(head)] => {
                self.threads[t as usize].skb.heads = Some(Heads { node, cpu, fclone, head });
                if measuring {
                    self.stats.skb.skb_allocs += 1;
                }
            }
            _ => {
                // The slab zone is sized for every skb in flight; if it still runs dry the skb
                // goes on without heads (counted) rather than stopping the run.
                for o in objs.into_iter().flatten() {
                    let done = self.skbs.slub[node as usize].free(Caller::new(m, cpu, now), o);
                    cost.add(done.cost);
                }
                self.stats.skb.slab_alloc_failures += 1;
            }
        }
        self.charge_slub(cost);
        false
    }

    /// The receiver consumed its skb (`sk_eat_skb`, then the ACK's `sk_wmem_free_skb` of the
    /// original). True if a cache kept it (nothing is freed now); otherwise the caller frees
    /// the sk_buff pair, the head and the frags where the ACK is processed.
    pub(super) fn skb_consumed(&mut self, t: ThreadId) -> bool {
        let f = self.threads[t as usize].flow as usize;
        let measuring = self.measuring();
        if self.skbs.rx_on && self.skbs.rx_parked[f].is_none() {
            // The clone waits in the receiving socket; the ACK then frees the original, which
            // only drops the fclone and data references: nothing is freed yet.
            let skb = std::mem::take(&mut self.threads[t as usize].skb);
            self.skbs.rx_parked[f] = Some(skb);
            if measuring {
                self.stats.skb.rx_parked += 1;
            }
            self.skb_note(f, "netserver", "sk_eat_skb parks the skb in sk_rx_skb_cache");
            return true;
        }
        // The clone is freed (dataref 2 → 1); the ACK finds the original not cloned.
        if self.skbs.tx_on && self.skbs.tx_parked[f].is_none() {
            let skb = std::mem::take(&mut self.threads[t as usize].skb);
            self.skbs.tx_parked[f] = Some(skb);
            if measuring {
                self.stats.skb.tx_parked += 1;
            }
            self.skb_note(f, "netserver", "the ACK parks the acked skb in netperf's sk_tx_skb_cache");
            return true;
        }
        false
    }

    /// The softirq of the sender's push ran `tcp_v4_rcv()` for the receiving socket: if the
    /// receiver does not own it, the parked rx skb is freed here, on the sender's CPU.
    pub(super) fn skb_softirq(&mut self, t: ThreadId) {
        let f = self.threads[t as usize].flow as usize;
        if self.skbs.rx_parked[f].is_none() {
            return;
        }
        let r = self.flows[f].receiver;
        // Inside tcp_recvmsg (lock_sock held) from taking an skb to the end of the call.
        let owned = self.threads[r as usize].prog.contains(&Action::EndOp);
        if owned {
            if self.measuring() {
                self.stats.skb.rx_owned_by_user += 1;
            }
            return;
        }
        let mut skb = self.skbs.rx_parked[f].take().expect("checked");
        if self.measuring() {
            self.stats.skb.rx_freed_by_softirq += 1;
        }
        self.skb_note(f, "netperf", "tcp_v4_rcv in the softirq frees the receiver's cached rx skb");
        if let Some(h) = skb.heads.take() {
            self.free_heads(t, h);
        }
        self.release_frags_on(t, skb, None);
    }

    /// `kfree()` of the head and `kmem_cache_free()` of the sk_buff pair on `t`'s CPU.
    pub(super) fn free_heads(&mut self, t: ThreadId, h: Heads) {
        let cpu = self.threads[t as usize].cpu;
        let (m, now) = (&self.cfg.machine, self.now_ns);
        let measuring = now >= self.cfg.warmup_ns();
        let mut cost = OpCost::default();
        for obj in [h.head, h.fclone] {
            let slub = &mut self.skbs.slub[h.node as usize];
            let done = slub.free(Caller::new(m, cpu, now), obj);
            if measuring {
                let s = &mut self.stats.skb;
                s.freed += 1;
                if done.path.is_slow() {
                    s.slab_slow_frees += 1;
                } else {
                    s.slab_fast_frees += 1;
                }
                if cpu == h.cpu {
                    s.freed_on_alloc_cpu += 1;
                }
            }
            cost.add(done.cost);
        }
        self.charge_slub(cost);
    }

    /// A line of the trace player's notes (one format for every cache event).
    fn skb_note(&mut self, f: usize, who: &'static str, what: &'static str) {
        self.note(|| format!("{who} {f}: {what}"));
    }

    /// Counts the time SLUB's model gives these operations. It is not charged to the thread:
    /// the fitted per-skb constants (`skb_tx_cycles`, `skb_rx_cycles`) already contain the
    /// sk_buff allocation and free of the default path (caches off), so charging it again
    /// would count it twice; what the caches save in slab time is reported, not credited
    /// (docs/high-order-alloc.md, "The skb caches").
    fn charge_slub(&mut self, cost: OpCost) {
        if self.measuring() {
            let s = &mut self.stats.skb;
            s.slab_cycles += cost.cycles;
            s.slab_wait_ns += cost.line_ns + cost.spin_ns;
        }
    }
}

/// What the world's invariant checker (`invariants`) reads of the skb side.
impl SkbSide {
    pub(super) fn slubs(&self) -> &[Slub] {
        &self.slub
    }

    /// The skbs parked in the rx and tx caches.
    pub(super) fn parked(&self) -> impl Iterator<Item = &Skb> + '_ {
        self.rx_parked.iter().chain(&self.tx_parked).flatten()
    }
}

impl Heads {
    /// The node and the two slab objects (sk_buff pair, head).
    pub(super) fn objects(&self) -> (u32, [Obj; 2]) {
        (self.node, [self.fclone, self.head])
    }
}
