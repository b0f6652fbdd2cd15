//! The skb graph: sk_buffs, their shared data (head + `skb_shared_info`), page frags,
//! `frag_list` chains, clones and refcounts — and the kTLS receive of seed 004 that chains
//! TCP skbs together through their shared `frag_list`.
//!
//! What Linux does (include/linux/skbuff.h, net/core/skbuff.c): an `sk_buff` is a small
//! descriptor with a reference count `users`; its data (the head buffer with
//! `skb_shared_info` at its end) is separately refcounted by `shinfo->dataref`. The shared
//! info holds the page frags and `frag_list`, a singly linked list of further skbs. A clone
//! (`skb_clone`) is a new descriptor on the *same* data (`dataref` + 1), so a clone shares its
//! original's frags and frag_list: writing a clone's `skb_shinfo()->frag_list` writes the
//! original's. `skb_unclone` (`pskb_expand_head`) gives a cloned skb data of its own.
//!
//! strparser (net/strparser/strparser.c `__strp_recv`, kTLS receive) cuts the TCP stream into
//! messages (TLS records). A message's head is a clone of the TCP skb the record starts in;
//! when the record goes on into the next TCP skb, strparser appends clones of the following
//! TCP skbs to the head's frag_list. Before its first append it must own that frag_list:
//! - 4e485d06bb8c "strparser: Call skb_unclone conditionally" (2018; in 4.19) unclones the
//!   head only if it already has a frag_list. A fresh head has none, so strparser appends to
//!   the frag_list of the *TCP skb's* shared info. The next record starts in the last TCP skb
//!   of this one, whose clone is already on this frag_list, and appends to *that* TCP skb's
//!   shared frag_list: every TCP skb a record crosses hangs one level below the previous one.
//! - 4a9c2e3746e6 "net: strparser: partially revert ..." (Jakub Kicinski, 2019) unclones the
//!   head always: the message's frag_list is strparser's own, and TCP skbs are never linked.
//!
//! kTLS pauses strparser after each record until the reader has consumed it
//! (`tls_queue` → `strp_pause`), so records are built and freed in order. `tcp_read_sock`
//! eats a TCP skb (`sk_eat_skb`) once strparser has taken all its bytes. With the rx skb
//! cache (8b27dae5a2e8, 5.2-rc; `sk->sk_rx_skb_cache`) `sk_eat_skb` parks the skb in the
//! socket instead of freeing it when the cache is empty; `tcp_v4_rcv` frees the parked skb
//! only when a packet arrives while no task owns the socket; `tcp_disconnect` frees it with
//! `__kfree_skb`. A parked TCP skb keeps its shared info, so every TCP skb chained below it
//! stays allocated: the chain grows with the data received until close() frees it.
//!
//! What we simplify, and what is OUR ASSUMPTION:
//! - the wire stream is records of one size back to back (plaintext + [`TLS_RECORD_OVERHEAD_BYTES`]),
//!   cut into TCP skbs of one size (the last of each shorter); the receive queue holds each TCP
//!   skb as it arrived (no coalescing);
//! - the reader consumes every record before close (the GET completes), so the receive queue
//!   is empty at close;
//! - the cache parks the first TCP skb strparser consumes and keeps it until close: no packet
//!   finds the socket unowned afterwards, so `tcp_v4_rcv` never frees it (the seed's oops says
//!   the cached skb was freed at close, not how long it was parked);
//! - pages are not modelled one by one: a data block's frags are released by one leaf call.
//!
//! Frees before close are refcount bookkeeping only ([`SkbGraph::kfree_skb_offstack`]): the
//! stack is modelled for the close() walk ([`super::walk`]), but how deep a frag_list release
//! went during the transfer is counted ([`Transfer::free_levels_max`]).

use crate::params::Choice;
use serde::{Deserialize, Serialize};

/// Most TCP skbs one scenario may receive; bounds the work in a browser.
pub const TCP_SKBS_MAX: u32 = 8192;
/// Most TLS records one scenario may receive.
pub const RECORDS_MAX: u32 = 65536;
/// Bytes a TLS 1.2 AES-GCM record adds to its plaintext on the wire: 5-byte record header,
/// 8-byte explicit nonce, 16-byte tag (RFC 5246, RFC 5288). kTLS receive in 5.1 handles
/// AES-GCM records.
pub const TLS_RECORD_OVERHEAD_BYTES: u64 = 29;

/// Index of an skb descriptor in [`SkbGraph::skbs`].
pub type SkbId = u32;
/// Index of a data block (head + shinfo) in [`SkbGraph::data`].
pub type DataId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkbKind {
    /// Allocated with its own data (`alloc_skb`).
    Head,
    /// Made by `skb_clone`: shares another skb's data (until `skb_unclone`).
    Clone,
}

/// What an skb stands for in the scenario (for labels in the drawing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkbRole {
    /// A TCP skb as received (on the receive queue, then freed or parked in the rx cache).
    Tcp,
    /// strparser's clone of a TCP skb, on a message's frag_list.
    StrpClone,
    /// strparser's message head: a clone of the TCP skb its record starts in (with
    /// 4a9c2e3746e6, unclone'd to data of its own before the first append).
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
    /// Freed by `kfree_skbmem` (in the walk, or before close).
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
    /// `__kfree_skb(sk->sk_rx_skb_cache)` in `tcp_disconnect`.
    RxSkbCache,
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
        let data = self.new_data(nr_frags, Vec::new());
        let id = self.skbs.len() as SkbId;
        self.skbs.push(Skb { id, kind: SkbKind::Head, role, data, users: 1, freed: false });
        id
    }

    fn new_data(&mut self, nr_frags: u32, frag_list: Vec<SkbId>) -> DataId {
        let id = self.data.len() as DataId;
        self.data.push(SkbData { id, dataref: 1, nr_frags, frag_list, freed: false });
        id
    }

    /// `skb_clone`: a new descriptor on the same data.
    pub fn skb_clone(&mut self, orig: SkbId, role: SkbRole) -> SkbId {
        let data = self.skbs[orig as usize].data;
        assert!(!self.data[data as usize].freed, "bug: clone of skb {orig} whose data is freed");
        self.data[data as usize].dataref += 1;
        let id = self.skbs.len() as SkbId;
        self.skbs.push(Skb { id, kind: SkbKind::Clone, role, data, users: 1, freed: false });
        id
    }

    /// `skb_get`: one more reference on the descriptor.
    pub fn skb_get(&mut self, skb: SkbId) {
        self.skbs[skb as usize].users += 1;
    }

    /// `skb_cloned`: the skb shares its data with another skb.
    pub fn skb_cloned(&self, skb: SkbId) -> bool {
        self.data[self.skbs[skb as usize].data as usize].dataref > 1
    }

    /// `skb_unclone` (`pskb_expand_head`): a cloned skb gets data of its own, with references
    /// on the same page frags and on the members of its frag_list (`skb_clone_fraglist`); the
    /// shared data loses one reference (and is released if that was the last, off the stack).
    /// Returns the deepest level of that release (as [`SkbGraph::kfree_skb_offstack`]; 0 if
    /// the skb was not cloned).
    pub fn skb_unclone(&mut self, skb: SkbId) -> u32 {
        if !self.skb_cloned(skb) {
            return 0;
        }
        let old = self.skbs[skb as usize].data;
        let (nr_frags, list) = {
            let d = &self.data[old as usize];
            (d.nr_frags, d.frag_list.clone())
        };
        for &m in &list {
            self.skb_get(m);
        }
        let new = self.new_data(nr_frags, list);
        self.skbs[skb as usize].data = new;
        self.data_put_offstack(old)
    }

    /// Appends `child` to the frag_list of `parent`'s data (which may be shared: that is the
    /// point). The list takes over the caller's reference on `child`.
    pub fn frag_list_append(&mut self, parent: SkbId, child: SkbId) {
        let data = self.skbs[parent as usize].data;
        assert!(!self.data[data as usize].freed, "bug: append to freed data {data}");
        assert_ne!(self.skbs[child as usize].data, data, "bug: skb {child} appended to its own data's frag_list");
        self.data[data as usize].frag_list.push(child);
    }

    /// `kfree_skb` before close: drop a reference; the last one frees the descriptor and drops
    /// a data reference, and the data's last reference puts its frags and frees its frag_list
    /// members the same way. Refcount bookkeeping only, no stack (a work list, not recursion).
    /// Returns the deepest frag_list level it reached, as the kernel's recursion would: 1 for
    /// the skb itself, 2 for the members of its data's frag_list (if that data was released),
    /// and so on.
    pub fn kfree_skb_offstack(&mut self, skb: SkbId) -> u32 {
        self.release(vec![(skb, 1)], Vec::new())
    }

    /// Drops one reference on `data` off the stack (as [`SkbGraph::kfree_skb_offstack`]).
    fn data_put_offstack(&mut self, data: DataId) -> u32 {
        self.release(Vec::new(), vec![(data, 1)])
    }

    fn release(&mut self, mut skbs: Vec<(SkbId, u32)>, mut datas: Vec<(DataId, u32)>) -> u32 {
        let mut deepest = 0;
        loop {
            if let Some((data, level)) = datas.pop() {
                let d = &mut self.data[data as usize];
                assert!(!d.freed && d.dataref > 0, "bug: put of freed data {data}");
                deepest = deepest.max(level);
                d.dataref -= 1;
                if d.dataref == 0 {
                    d.freed = true;
                    skbs.extend(d.frag_list.iter().map(|&c| (c, level + 1)));
                }
            } else if let Some((skb, level)) = skbs.pop() {
                let s = &mut self.skbs[skb as usize];
                assert!(!s.freed && s.users > 0, "bug: kfree_skb of freed skb {skb}");
                deepest = deepest.max(level);
                s.users -= 1;
                if s.users == 0 {
                    s.freed = true;
                    datas.push((s.data, level));
                }
            } else {
                return deepest;
            }
        }
    }

    /// The skbs on `skb`'s data's frag_list.
    pub fn children(&self, skb: SkbId) -> &[SkbId] {
        &self.data[self.skbs[skb as usize].data as usize].frag_list
    }

    /// Levels of frag_list nesting from each skb down (a lone skb is 1), for every skb
    /// reachable from the roots (0 elsewhere). The data graph is acyclic ([`Self::check_invariants`]).
    fn levels_below(&self) -> Vec<u32> {
        let mut below = vec![0u32; self.skbs.len()];
        // Post-order over an explicit stack: (skb, children pushed yet).
        let mut stack: Vec<(SkbId, bool)> = self.roots.iter().map(|r| (r.skb, false)).collect();
        while let Some((skb, expanded)) = stack.pop() {
            if below[skb as usize] > 0 {
                continue;
            }
            if expanded {
                let deepest = self.children(skb).iter().map(|&c| below[c as usize]).max().unwrap_or(0);
                below[skb as usize] = deepest + 1;
            } else {
                stack.push((skb, true));
                stack.extend(self.children(skb).iter().filter(|&&c| below[c as usize] == 0).map(|&c| (c, false)));
            }
        }
        below
    }

    /// Deepest frag_list nesting below the roots (a lone skb is level 1; no roots: 0).
    pub fn nesting_levels(&self) -> u32 {
        let below = self.levels_below();
        self.roots.iter().map(|r| below[r.skb as usize]).max().unwrap_or(0)
    }

    pub fn live_skbs(&self) -> usize {
        self.skbs.iter().filter(|s| !s.freed).count()
    }

    /// Structural invariants: every live data block's dataref counts the live skbs on it;
    /// freed data has no live skb; a live data block's frag_list holds live skbs; the graph of
    /// data blocks through their frag_lists has no cycle.
    pub fn check_invariants(&self) {
        let mut live_users = vec![0u32; self.data.len()];
        for s in &self.skbs {
            live_users[s.data as usize] += u32::from(!s.freed);
        }
        for d in &self.data {
            let live = live_users[d.id as usize];
            if d.freed {
                assert_eq!(live, 0, "bug: data {} freed while {live} skbs still use it", d.id);
            } else {
                assert_eq!(d.dataref, live, "bug: data {} dataref {} but {live} live skbs", d.id, d.dataref);
                for &c in &d.frag_list {
                    assert!(!self.skbs[c as usize].freed, "bug: freed skb {c} on live data {}'s frag_list", d.id);
                }
            }
        }
        // Cycle check: colour the data blocks (0 new, 1 on the path, 2 done), iteratively.
        let mut colour = vec![0u8; self.data.len()];
        for start in 0..self.data.len() {
            if colour[start] != 0 {
                continue;
            }
            let mut stack = vec![(start, 0usize)];
            colour[start] = 1;
            while let Some(&mut (d, ref mut next)) = stack.last_mut() {
                match self.data[d].frag_list.get(*next) {
                    Some(&c) => {
                        *next += 1;
                        let cd = self.skbs[c as usize].data as usize;
                        assert_ne!(colour[cd], 1, "bug: frag_list cycle through data {cd}");
                        if colour[cd] == 0 {
                            colour[cd] = 1;
                            stack.push((cd, 0));
                        }
                    }
                    None => {
                        colour[d] = 2;
                        stack.pop();
                    }
                }
            }
        }
    }
}

crate::choice_enum! {
    /// Which fix the scenario runs with.
    #[serde(rename_all = "kebab-case")]
    pub enum Fix {
        /// The seed's kernel: strparser after 4e485d06bb8c (the head unclone'd only if it
        /// already has a frag_list), so messages are built on the TCP skbs' shared frag_list.
        None = "none",
        /// The merged fix, 4a9c2e3746e6 "net: strparser: partially revert 'strparser: Call
        /// skb_unclone conditionally'": strparser always unclones the head before its first
        /// append, so a message's frag_list is its own.
        StrparserUnclone = "strparser-unclone",
        /// OURS, hypothetical: a free that walks nested frag_lists with a work list instead of
        /// recursing (one level of frames on the stack however deep the chain). No such kernel
        /// patch was merged for this report.
        IterativeFree = "iterative-free",
        /// OURS, hypothetical: THREAD_SIZE doubled — the same recursion, a later cliff.
        BiggerStack = "bigger-stack",
    }
}

/// Every fix, in option order.
pub const FIXES: &[Fix] = <Fix as Choice>::ALL;

impl Fix {
    pub fn name(self) -> &'static str {
        Choice::name(self)
    }

    /// Whether strparser unclones every head before its first append (4a9c2e3746e6).
    pub fn strparser_unclones(self) -> bool {
        self == Fix::StrparserUnclone
    }
}

/// The receive a run simulates: the wire stream, how it is cut, and the kernel's choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    /// Bytes on the wire: TLS records back to back, each `record_wire_bytes` (the last shorter).
    pub wire_bytes: u64,
    pub record_wire_bytes: u64,
    /// Bytes of the stream per TCP skb on the receive queue (the last one shorter).
    pub tcp_skb_bytes: u64,
    /// Page frags of each TCP skb.
    pub nr_frags: u32,
    /// strparser as 4a9c2e3746e6 left it (always unclone the head), else as 4e485d06bb8c.
    pub strparser_unclones: bool,
    /// `sk->sk_rx_skb_cache` in use (5.2-rc with RPS off; `net.ipv4.tcp_rx_skb_cache=1` in 5.2 – 5.15).
    pub rx_cache: bool,
}

impl Scenario {
    /// TCP skbs the stream arrives in.
    pub fn tcp_skbs(&self) -> u32 {
        self.wire_bytes.div_ceil(self.tcp_skb_bytes.max(1)) as u32
    }

    /// TLS records in the stream.
    pub fn records(&self) -> u32 {
        self.wire_bytes.div_ceil(self.record_wire_bytes.max(1)) as u32
    }
}

/// What the receive left behind, and what it did on the way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Transfer {
    /// Every skb and data block; the live ones are what close() frees, from `roots`.
    pub graph: SkbGraph,
    pub tcp_skbs: u32,
    pub records: u32,
    /// Deepest frag_list level a free reached before close (1 = the freed skb itself, 2 = the
    /// members of its frag_list, ...), as kTLS freed consumed records and TCP freed eaten skbs:
    /// each level is one recursion of `kfree_skb` on whatever stack ran that free.
    pub free_levels_max: u32,
}

/// Runs the receive of `sc`: TCP skbs arrive as strparser needs them, strparser builds each
/// record (head = clone of the TCP skb it starts in, clones of the following TCP skbs on the
/// head's frag_list), TCP eats each skb whose bytes strparser has all taken, and the reader
/// consumes (frees) each record before strparser goes on. Then `tcp_disconnect`'s roots: the
/// rx cache's skb, if one is parked (the receive queue is empty: every record was read).
pub fn build_scenario(sc: &Scenario) -> Transfer {
    let (tcp_skbs, records) = (sc.tcp_skbs(), sc.records());
    assert!(tcp_skbs <= TCP_SKBS_MAX && records <= RECORDS_MAX, "bug: scenario over its bounds: {sc:?}");
    let (w, s, r) = (sc.wire_bytes, sc.tcp_skb_bytes.max(1), sc.record_wire_bytes.max(1));
    let mut g = SkbGraph::default();
    let mut tcp: Vec<SkbId> = Vec::with_capacity(tcp_skbs as usize);
    let mut cache: Option<SkbId> = None;
    let mut deepest = 0u32;
    let skb_end = |i: u64| ((i + 1) * s).min(w);
    // `sk_eat_skb`: park the skb in an empty rx cache, else `__kfree_skb` it.
    let mut eat = |g: &mut SkbGraph, skb: SkbId, deepest: &mut u32| {
        if sc.rx_cache && cache.is_none() {
            cache = Some(skb);
        } else {
            *deepest = (*deepest).max(g.kfree_skb_offstack(skb));
        }
    };
    let mut start = 0u64;
    while start < w {
        let end = (start + r).min(w);
        let (first, last) = (start / s, (end - 1) / s);
        while tcp.len() as u64 <= last {
            tcp.push(g.alloc_skb(sc.nr_frags, SkbRole::Tcp));
        }
        let head = g.skb_clone(tcp[first as usize], SkbRole::StrpHead);
        if last > first {
            // The first TCP skb's bytes are all taken: tcp_read_sock eats it before the next
            // one reaches strparser.
            eat(&mut g, tcp[first as usize], &mut deepest);
            // The first append: 4e485d06bb8c unclones only a head with a frag_list (a fresh
            // head has none, so the list is the TCP skb's shared one); 4a9c2e3746e6 always.
            if sc.strparser_unclones || !g.children(head).is_empty() {
                deepest = deepest.max(g.skb_unclone(head));
            }
            // (A head that still had a frag_list here would get a new head above it; in this
            // scenario no head has one at its first append.)
            assert!(g.children(head).is_empty(), "bug: strparser's wrap branch is not modelled");
            for i in first + 1..=last {
                let clone = g.skb_clone(tcp[i as usize], SkbRole::StrpClone);
                g.frag_list_append(head, clone);
                if i < last || end == skb_end(i) {
                    eat(&mut g, tcp[i as usize], &mut deepest);
                }
            }
        } else if end == skb_end(first) {
            eat(&mut g, tcp[first as usize], &mut deepest);
        }
        // The record goes to kTLS; the reader consumes it before strparser reads on.
        deepest = deepest.max(g.kfree_skb_offstack(head));
        start = end;
    }
    if let Some(skb) = cache {
        g.roots.push(Root { skb, call: RootCall::RxSkbCache });
    }
    Transfer { graph: g, tcp_skbs, records, free_levels_max: deepest }
}
