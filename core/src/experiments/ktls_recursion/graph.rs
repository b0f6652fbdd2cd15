//! The skb graph: sk_buffs, their shared data (head + `skb_shared_info`), page frags,
//! `frag_list` chains, clones and refcounts — and the kTLS receive scenario that nests them.
//!
//! What Linux does (include/linux/skbuff.h, net/core/skbuff.c): an `sk_buff` is a small
//! descriptor with a reference count `users`; its data (the head buffer with
//! `skb_shared_info` at its end) is separately refcounted by `shinfo->dataref`. The shared
//! info holds the page frags and `frag_list`, a singly linked list of further skbs. A clone
//! (`skb_clone`) is a new descriptor on the *same* data (`dataref` + 1), so a clone shares
//! its original's frags and frag_list. strparser (net/strparser/strparser.c `__strp_recv`,
//! used by kTLS receive) builds a message by chaining clones of TCP skbs on the head's
//! frag_list; when the head *already has* a frag_list it allocates a new empty head, points
//! its frag_list at the old head, and appends further clones after the old head — one more
//! level of nesting (documented: the comment "We can't append to an sk_buff that already
//! has a frag_list" in that function).
//!
//! What we simplify, and what is OUR ASSUMPTION (not documented anywhere we could find):
//! the scenario makes strparser wrap once per TLS record, because the rx skb cache
//! (`sk->sk_rx_skb_cache`, 8b27dae5a2e8) keeps the consumed message alive instead of
//! letting it be freed, so the next record is built on top of it. That yields one level
//! per record, and `tcp_disconnect` frees the whole chain from the cache with
//! `__kfree_skb` — which the 5.2 source really does (`__kfree_skb(sk->sk_rx_skb_cache)`).
//! The real cause of the 2019 overflow was never pinned down in the sources we have.
//! Pages are not modelled one by one: a data block's frags are released by one leaf call.

use crate::params::Choice;
use serde::{Deserialize, Serialize};

/// Most nesting levels (TLS records) one scenario may build; bounds the work in a browser.
pub const NESTING_DEPTH_MAX: u32 = 8192;

/// Index of an skb descriptor in [`SkbGraph::skbs`].
pub type SkbId = u32;
/// Index of a data block (head + shinfo) in [`SkbGraph::data`].
pub type DataId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkbKind {
    /// Allocated with its own data (`alloc_skb`).
    Head,
    /// Made by `skb_clone`: shares another skb's data.
    Clone,
}

/// What an skb stands for in the scenario (for labels in the drawing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkbRole {
    /// A TCP segment as received.
    Tcp,
    /// strparser's clone of a TCP skb, chained on a message's frag_list.
    StrpClone,
    /// strparser's message head (an unclone'd copy of a TCP skb with its page frags).
    StrpHead,
    /// Built by a test.
    Other,
}

/// An `sk_buff` descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skb {
    pub id: SkbId,
    pub kind: SkbKind,
    pub role: SkbRole,
    pub data: DataId,
    /// `skb->users`.
    pub users: u32,
    /// `skb->cloned`: set on both the original and the clone by `skb_clone`.
    pub cloned: bool,
    /// Freed by `kfree_skbmem` (or before close, in the scenario).
    pub freed: bool,
}

/// A head buffer with its `skb_shared_info`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkbData {
    pub id: DataId,
    /// `shinfo->dataref`: how many skbs point at this data.
    pub dataref: u32,
    /// `shinfo->nr_frags`.
    pub nr_frags: u32,
    /// `shinfo->frag_list`, in list order.
    pub frag_list: Vec<SkbId>,
    /// Released by `skb_release_data` (frags put, frag_list freed, head freed).
    pub freed: bool,
}

/// How a socket-owned skb gets freed at close.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootCall {
    /// `__skb_queue_purge(&sk->sk_receive_queue)` → `kfree_skb`.
    ReceiveQueuePurge,
    /// `__kfree_skb(sk->sk_rx_skb_cache)`.
    RxSkbCache,
    /// `kfree_skb(ctx->recv_pkt)` (`tls_sw_release_resources_rx`): the record strparser handed
    /// to kTLS that the reader has not consumed yet. Without the rx cache this is what still
    /// holds the message at close (OUR ASSUMPTION: the reader closes with one record unread,
    /// as the scenario does with the cache on).
    TlsRecvPkt,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    pub skb: SkbId,
    pub call: RootCall,
}

/// All skbs and data blocks, plus the socket's references freed by `tcp_disconnect`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SkbGraph {
    pub skbs: Vec<Skb>,
    pub data: Vec<SkbData>,
    /// In the order `tcp_disconnect` frees them.
    pub roots: Vec<Root>,
}

impl SkbGraph {
    /// `alloc_skb` with `nr_frags` page frags attached.
    pub fn alloc_skb(&mut self, nr_frags: u32, role: SkbRole) -> SkbId {
        let data = self.data.len() as DataId;
        self.data.push(SkbData { id: data, dataref: 1, nr_frags, frag_list: Vec::new(), freed: false });
        let id = self.skbs.len() as SkbId;
        self.skbs.push(Skb { id, kind: SkbKind::Head, role, data, users: 1, cloned: false, freed: false });
        id
    }

    /// `skb_clone`: a new descriptor on the same data.
    pub fn skb_clone(&mut self, orig: SkbId, role: SkbRole) -> SkbId {
        let data = self.skbs[orig as usize].data;
        self.data[data as usize].dataref += 1;
        self.skbs[orig as usize].cloned = true;
        let id = self.skbs.len() as SkbId;
        self.skbs.push(Skb { id, kind: SkbKind::Clone, role, data, users: 1, cloned: true, freed: false });
        id
    }

    /// `skb_get`: one more reference on the descriptor.
    pub fn skb_get(&mut self, skb: SkbId) {
        self.skbs[skb as usize].users += 1;
    }

    /// Appends `child` to the frag_list of `parent`'s data. The child must be older than
    /// the parent (so the graph stays acyclic) and on no other list.
    pub fn frag_list_append(&mut self, parent: SkbId, child: SkbId) {
        assert!(child < parent, "bug: frag_list child {child} must be older than parent {parent}");
        let data = self.skbs[parent as usize].data;
        self.data[data as usize].frag_list.push(child);
    }

    /// Drops a descriptor that was consumed and freed before close (its last user gone):
    /// outside the walk we model, so it does not touch the stack. Only for skbs whose data
    /// stays alive through a clone.
    pub fn drop_before_close(&mut self, skb: SkbId) {
        let s = &mut self.skbs[skb as usize];
        assert!(!s.freed && s.users == 1, "bug: drop_before_close of a shared or freed skb {skb}");
        s.users = 0;
        s.freed = true;
        let d = &mut self.data[s.data as usize];
        assert!(d.dataref > 1, "bug: drop_before_close would free data {}", d.id);
        d.dataref -= 1;
    }

    /// The data blocks that `skb`'s data chains to through its frag_list.
    pub fn children(&self, skb: SkbId) -> &[SkbId] {
        &self.data[self.skbs[skb as usize].data as usize].frag_list
    }

    /// Deepest frag_list nesting below the roots (a lone skb is level 1).
    pub fn nesting_levels(&self) -> u32 {
        // Children are older (smaller ids) than parents, so one pass in id order works.
        let mut depth = vec![1u32; self.skbs.len()];
        for id in 0..self.skbs.len() {
            let below = self.children(id as SkbId).iter().map(|c| depth[*c as usize]).max().unwrap_or(0);
            depth[id] = below + 1;
        }
        self.roots.iter().map(|r| depth[r.skb as usize]).max().unwrap_or(0)
    }

    pub fn live_skbs(&self) -> usize {
        self.skbs.iter().filter(|s| !s.freed).count()
    }

    /// Structural invariants: frag_list children are older than their parent and listed
    /// once; every live data block's dataref counts the live skbs on it; freed data has no
    /// live skb.
    pub fn check_invariants(&self) {
        let mut listed = vec![false; self.skbs.len()];
        let mut newest_owner = vec![0; self.data.len()];
        let mut live_users = vec![0u32; self.data.len()];
        for s in &self.skbs {
            newest_owner[s.data as usize] = s.id;
            live_users[s.data as usize] += u32::from(!s.freed);
        }
        for d in &self.data {
            for &c in &d.frag_list {
                assert!(!listed[c as usize], "bug: skb {c} is on two frag_lists");
                listed[c as usize] = true;
                assert!(c < newest_owner[d.id as usize], "bug: frag_list child {c} not older than its owner");
            }
            let live = live_users[d.id as usize];
            if d.freed {
                assert_eq!(live, 0, "bug: data {} freed while {live} skbs still use it", d.id);
            } else {
                assert_eq!(d.dataref, live, "bug: data {} dataref {} but {live} live skbs", d.id, d.dataref);
            }
        }
    }
}

crate::choice_enum! {
    /// Which fix the scenario runs with.
    #[serde(rename_all = "kebab-case")]
    pub enum Fix {
        /// Linux 5.1-rc with the rx skb cache on: the seed's setup.
        None = "none",
        /// No rx cache: each consumed message is freed at once (what `tcp_rx_skb_cache=0`
        /// gives from June 2019, and every kernel since 5.16).
        NoRxCache = "no-rx-cache",
        /// A free that walks nested frag_lists with a work list instead of recursing
        /// (a hypothetical fix: one stack frame per level no matter how deep).
        IterativeFree = "iterative-free",
        /// strparser appends to the existing frag_list instead of wrapping (no nesting).
        StrparserFlatten = "strparser-flatten",
        /// THREAD_SIZE doubled: the same recursion, a later cliff.
        BiggerStack = "bigger-stack",
    }
}

/// Every fix, in option order.
pub const FIXES: &[Fix] = <Fix as Choice>::ALL;

impl Fix {
    pub fn name(self) -> &'static str {
        Choice::name(self)
    }

    /// Whether the consumed message stays alive in the rx cache (our nesting assumption).
    fn nests(self) -> bool {
        matches!(self, Fix::None | Fix::IterativeFree | Fix::BiggerStack)
    }
}

/// The socket at close after `records` TLS records went through strparser with `fix`.
/// Each TCP skb carries `nr_frags` page frags. The last TCP skb is still on the receive
/// queue and shares its data with strparser's clone of it.
pub fn build_scenario(records: u32, fix: Fix, nr_frags: u32) -> SkbGraph {
    assert!(records <= NESTING_DEPTH_MAX, "bug: {records} records exceed NESTING_DEPTH_MAX");
    let mut g = SkbGraph::default();
    let mut message: Option<SkbId> = None;
    let mut flat_clones = Vec::new();
    let mut last_tcp = None;
    // Without the cache every consumed message was freed at once; only the last is left.
    let first = if fix == Fix::NoRxCache { records.saturating_sub(1) } else { 0 };
    for _record in first..records {
        let tcp = g.alloc_skb(nr_frags, SkbRole::Tcp);
        let clone = g.skb_clone(tcp, SkbRole::StrpClone);
        if let Some(prev) = last_tcp.replace(tcp) {
            g.drop_before_close(prev);
        }
        if fix == Fix::StrparserFlatten {
            flat_clones.push(clone);
            continue;
        }
        // __strp_recv: a head that already has a frag_list gets a new head above it. The
        // head is strparser's skb_unclone()d copy of the record's first TCP skb: its own
        // data with references on the same page frags (over loopback, the sender's order-3
        // page_frag pages), so every level frees pages before it walks its frag_list.
        let head = g.alloc_skb(nr_frags, SkbRole::StrpHead);
        if let Some(old) = message.filter(|_| fix.nests()) {
            g.frag_list_append(head, old);
        }
        g.frag_list_append(head, clone);
        message = Some(head);
    }
    if !flat_clones.is_empty() {
        // Flattening: one head, every clone appended to its frag_list in arrival order.
        let head = g.alloc_skb(nr_frags, SkbRole::StrpHead);
        for c in flat_clones {
            g.frag_list_append(head, c);
        }
        message = Some(head);
    }
    if let Some(tcp) = last_tcp {
        g.roots.push(Root { skb: tcp, call: RootCall::ReceiveQueuePurge });
    }
    if let Some(head) = message {
        // With the cache on, the consumed message is parked there; without it, kTLS still
        // holds the last record it was handed.
        let call = if fix == Fix::NoRxCache { RootCall::TlsRecvPkt } else { RootCall::RxSkbCache };
        g.roots.push(Root { skb: head, call });
    }
    g
}
