//! The free walk: `tcp_disconnect` freeing the socket's skbs, one simulated call at a time,
//! with the stack model underneath.
//!
//! What Linux does (net/core/skbuff.c, 5.1): `kfree_skb` drops `skb->users`; the last
//! reference calls `__kfree_skb` → `skb_release_all` → `skb_release_data`, which drops
//! `shinfo->dataref` (a clone's shared data survives until its last skb goes), puts the page
//! frags, frees the `frag_list` with `kfree_skb_list` — which calls `kfree_skb` on each list
//! member, so the walk *recurses once per frag_list nesting level* — and finally frees the
//! head. `kfree_skbmem` then frees the descriptor.
//!
//! What we simplify: the walk is an explicit machine (a `Vec` of simulated frames with a
//! cursor each), never Rust recursion, so an 8192-level chain cannot overflow *our* stack in
//! a browser. Putting all frags of a data block is one leaf call (`__free_pages_ok` →
//! `free_one_page`, as in the seed's oops; our simplification: the kernel reaches the page
//! allocator only for the last reference of a page). The iterative fix (OURS, hypothetical)
//! replaces the recursion into a frag_list by a work list (FIFO) drained at the bottom of the
//! walk. On overflow the walk
//! stops: what is not yet freed stays allocated (the real kernel oopses there).

use super::graph::{DataId, RootCall, SkbGraph, SkbId};
use super::stack::{function_name, Symbol};
use super::stack::{FrameSizes, Func, StackEntry};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Most trace frames recorded for the step-through player; the walk itself goes on.
pub const TRACE_FRAMES_MAX: usize = 20_000;

/// How the walk is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WalkConfig {
    pub sizes: FrameSizes,
    pub thread_size_bytes: u64,
    /// Free nested frag_lists with a work list instead of recursing.
    pub iterative: bool,
    /// CONFIG_VMAP_STACK: a guard page below the stack turns an overflow into an oops.
    pub vmap_stack: bool,
}

/// Where the walk ran off the stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overflow {
    /// The function whose frame did not fit.
    #[serde(deserialize_with = "function_name")]
    pub function: Symbol,
    pub frame_bytes: u64,
    /// Nesting level of the skb being freed (root = 1).
    pub level: u32,
    pub skb: Option<SkbId>,
    /// Bytes the stack would have needed with that frame: more than THREAD_SIZE.
    pub needed_bytes: u64,
    /// True with CONFIG_VMAP_STACK: the guard page faulted.
    pub guard_page_hit: bool,
    /// The stack at the fault, outermost first, including the frame that did not fit.
    pub stack: Vec<StackEntry>,
}

/// One event of the walk, for the step-through player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TraceEvent {
    Call {
        #[serde(deserialize_with = "function_name")]
        function: Symbol,
        frame_bytes: u64,
    },
    Return {
        #[serde(deserialize_with = "function_name")]
        function: Symbol,
    },
    /// Something happened inside the current frame (a refcount dropped, memory freed).
    Note,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceFrame {
    pub event: TraceEvent,
    /// Bytes in use after the event (the push that overflows shows what it needed).
    pub stack_used_bytes: u64,
    /// The skb whose free is in progress.
    pub node: Option<SkbId>,
    pub level: u32,
    pub text: String,
    pub overflow: bool,
}

/// What the walk did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WalkResult {
    pub overflow: Option<Overflow>,
    /// Deepest frag_list nesting level the walk entered.
    pub depth_reached: u32,
    pub stack_used_bytes_max: u64,
    /// Stack bytes in use when the walk entered level k (index k - 1) for the first time.
    pub level_stack_bytes: Vec<u64>,
    /// Descriptors freed, in order.
    pub skbs_freed: Vec<SkbId>,
    /// Data blocks released, in order, each with how many skbs had been freed before it
    /// (an index into `skbs_freed`), so tests can check the refcount order.
    pub data_freed: Vec<(DataId, usize)>,
    /// Calls made (frames pushed, including the one that overflowed).
    pub calls: u64,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    func: Func,
    bytes: u64,
    skb: SkbId,
    level: u32,
    cursor: usize,
}

/// The walk machine. Owns the graph it frees.
pub struct Walker {
    pub graph: SkbGraph,
    cfg: WalkConfig,
    base: Vec<StackEntry>,
    base_bytes: u64,
    stack: Vec<Frame>,
    used_bytes: u64,
    todo: VecDeque<(SkbId, u32)>,
    result: WalkResult,
    trace: Option<Vec<TraceFrame>>,
}

impl Walker {
    pub fn new(graph: SkbGraph, cfg: WalkConfig, record_trace: bool) -> Walker {
        let base = cfg.sizes.base_frames();
        let base_bytes = base.iter().map(|e| e.frame_bytes).sum();
        let result = WalkResult {
            overflow: None,
            depth_reached: 0,
            stack_used_bytes_max: base_bytes,
            level_stack_bytes: Vec::new(),
            skbs_freed: Vec::new(),
            data_freed: Vec::new(),
            calls: 0,
        };
        let trace = record_trace.then(Vec::new);
        Walker {
            graph,
            cfg,
            base,
            base_bytes,
            stack: Vec::new(),
            used_bytes: base_bytes,
            todo: VecDeque::new(),
            result,
            trace,
        }
    }

    /// The frames below the walk (the close() path), outermost first.
    pub fn base(&self) -> &[StackEntry] {
        &self.base
    }

    /// Runs `tcp_disconnect`'s frees to the end or to the overflow.
    pub fn run(mut self) -> (WalkResult, Option<Vec<TraceFrame>>, SkbGraph) {
        if self.base_bytes > self.cfg.thread_size_bytes {
            self.overflow_at(Func::TcpDisconnect, 0, 0, None);
        }
        let roots = self.graph.roots.clone();
        for root in roots {
            if self.result.overflow.is_some() {
                break;
            }
            let (func, bytes) = match root.call {
                RootCall::ReceiveQueuePurge => (Func::KfreeSkb, self.cfg.sizes.kfree_skb_bytes),
                RootCall::RxSkbCache => (Func::KfreeSkbInner, self.cfg.sizes.root_kfree_skb_bytes),
            };
            self.push(func, bytes, root.skb, 1);
            self.run_to_base();
            while let Some((skb, level)) = self.todo.pop_front() {
                if self.result.overflow.is_some() {
                    break;
                }
                self.push(Func::KfreeSkb, self.cfg.sizes.kfree_skb_bytes, skb, level);
                self.run_to_base();
            }
        }
        (self.result, self.trace, self.graph)
    }

    fn run_to_base(&mut self) {
        while !self.stack.is_empty() && self.result.overflow.is_none() {
            self.advance();
        }
    }

    fn push(&mut self, func: Func, bytes: u64, skb: SkbId, level: u32) {
        self.result.calls += 1;
        if self.used_bytes + bytes > self.cfg.thread_size_bytes {
            self.overflow_at(func, bytes, level, Some(skb));
            return;
        }
        self.used_bytes += bytes;
        self.result.stack_used_bytes_max = self.result.stack_used_bytes_max.max(self.used_bytes);
        if level > self.result.depth_reached {
            self.result.depth_reached = level;
            self.result.level_stack_bytes.push(self.used_bytes);
        }
        self.stack.push(Frame { func, bytes, skb, level, cursor: 0 });
        self.record(TraceEvent::Call { function: func.name(), frame_bytes: bytes }, || {
            format!("call {}(skb {skb}), frame {bytes} B", func.name())
        });
    }

    fn pop(&mut self) {
        let f = self.stack.pop().expect("bug: pop of an empty walk stack");
        self.used_bytes -= f.bytes;
        if self.trace.is_some() {
            self.record_for(
                f.skb,
                f.level,
                TraceEvent::Return { function: f.func.name() },
                format!("return from {}", f.func.name()),
            );
        }
    }

    fn overflow_at(&mut self, func: Func, bytes: u64, level: u32, skb: Option<SkbId>) {
        let mut stack = self.base.clone();
        stack.extend(self.stack.iter().map(|f| StackEntry::new(f.func, f.bytes)));
        stack.push(StackEntry::new(func, bytes));
        let needed_bytes = self.used_bytes + bytes;
        let guard_page_hit = self.cfg.vmap_stack;
        self.result.stack_used_bytes_max = self.result.stack_used_bytes_max.max(needed_bytes);
        self.result.overflow = Some(Overflow {
            function: func.name(),
            frame_bytes: bytes,
            level,
            skb,
            needed_bytes,
            guard_page_hit,
            stack,
        });
        if let Some(t) = self.trace.as_mut() {
            let what = if guard_page_hit {
                "guard page hit: kernel stack overflow"
            } else {
                "ran past the stack end (no guard page)"
            };
            t.push(TraceFrame {
                event: TraceEvent::Call { function: func.name(), frame_bytes: bytes },
                stack_used_bytes: needed_bytes,
                node: skb,
                level,
                text: format!(
                    "call {} needs {needed_bytes} B > THREAD_SIZE {} B: {what}",
                    func.name(),
                    self.cfg.thread_size_bytes
                ),
                overflow: true,
            });
        }
    }

    /// Records a trace frame about the top frame; `text` is only built when recording.
    fn record(&mut self, event: TraceEvent, text: impl FnOnce() -> String) {
        if self.trace.is_some() {
            let top = *self.stack.last().expect("bug: record with an empty stack");
            self.record_for(top.skb, top.level, event, text());
        }
    }

    fn record_for(&mut self, skb: SkbId, level: u32, event: TraceEvent, text: String) {
        let used = self.used_bytes;
        if let Some(t) = self.trace.as_mut().filter(|t| t.len() < TRACE_FRAMES_MAX) {
            t.push(TraceFrame { event, stack_used_bytes: used, node: Some(skb), level, text, overflow: false });
        }
    }

    fn next_cursor(&mut self) -> (Frame, usize) {
        let top = self.stack.last_mut().expect("bug: advance with an empty stack");
        let c = top.cursor;
        top.cursor += 1;
        (*top, c)
    }

    /// One step of the function on top of the stack.
    fn advance(&mut self) {
        let (f, cursor) = self.next_cursor();
        let inl = self.cfg.sizes.inlined_bytes;
        match (f.func, cursor) {
            (Func::KfreeSkb, 0) => self.kfree_skb(f),
            (Func::KfreeSkbInner, 0) => self.push(Func::SkbReleaseAll, inl, f.skb, f.level),
            (Func::KfreeSkbInner, _) => self.kfree_skbmem(f),
            (Func::SkbReleaseAll, 0) => {
                self.push(Func::SkbReleaseData, self.cfg.sizes.skb_release_data_bytes, f.skb, f.level)
            }
            (Func::SkbReleaseData, c) => self.skb_release_data(f, c),
            (Func::KfreeSkbList, c) => self.kfree_skb_list(f, c),
            (Func::FreePagesOk, 0) => self.push(Func::FreeOnePage, self.cfg.sizes.free_one_page_bytes, f.skb, f.level),
            _ => self.pop(),
        }
    }

    /// `kfree_skb`: drop one user; the last one frees (via the inlined `__kfree_skb`).
    fn kfree_skb(&mut self, f: Frame) {
        let s = &mut self.graph.skbs[f.skb as usize];
        assert!(!s.freed && s.users > 0, "bug: kfree_skb of freed skb {}", f.skb);
        s.users -= 1;
        let users = s.users;
        if users > 0 {
            self.record(TraceEvent::Note, || format!("skb {}: users -> {users}, still in use", f.skb));
            self.pop();
        } else {
            self.record(TraceEvent::Note, || format!("skb {}: last user gone", f.skb));
            self.push(Func::KfreeSkbInner, self.cfg.sizes.inlined_bytes, f.skb, f.level);
        }
    }

    /// `kfree_skbmem`: the descriptor itself goes back to its slab.
    fn kfree_skbmem(&mut self, f: Frame) {
        let s = &mut self.graph.skbs[f.skb as usize];
        // `__kfree_skb` may only be called on the last reference.
        assert!(s.users <= 1 && !s.freed, "bug: __kfree_skb of skb {} with {} users", f.skb, s.users);
        s.users = 0;
        s.freed = true;
        self.result.skbs_freed.push(f.skb);
        self.record(TraceEvent::Note, || format!("kfree_skbmem: skb {} freed", f.skb));
        self.pop();
    }

    fn skb_release_data(&mut self, f: Frame, cursor: usize) {
        let data = self.graph.skbs[f.skb as usize].data;
        match cursor {
            0 => {
                let d = &mut self.graph.data[data as usize];
                d.dataref -= 1;
                let (left, frags) = (d.dataref, d.nr_frags);
                if left > 0 {
                    self.record(TraceEvent::Note, || format!("data {data}: dataref -> {left}, shared data kept"));
                    self.pop();
                } else if frags > 0 {
                    self.record(TraceEvent::Note, || format!("data {data}: put_page x{frags} frags"));
                    self.push(Func::FreePagesOk, self.cfg.sizes.free_pages_ok_bytes, f.skb, f.level);
                }
            }
            1 => {
                if !self.graph.data[data as usize].frag_list.is_empty() {
                    self.release_frag_list(f, data);
                }
            }
            _ => {
                self.graph.data[data as usize].freed = true;
                self.result.data_freed.push((data, self.result.skbs_freed.len()));
                self.record(TraceEvent::Note, || format!("skb_free_head: data {data} freed"));
                self.pop();
            }
        }
    }

    /// The frag_list: recurse through `kfree_skb_list`, or hand it to the work list.
    fn release_frag_list(&mut self, f: Frame, data: DataId) {
        if self.cfg.iterative {
            let list = self.graph.data[data as usize].frag_list.clone();
            let n = list.len();
            self.todo.extend(list.into_iter().map(|c| (c, f.level + 1)));
            self.record(TraceEvent::Note, || format!("frag_list of {n} skbs queued on the work list"));
        } else {
            self.push(Func::KfreeSkbList, self.cfg.sizes.inlined_bytes, f.skb, f.level);
        }
    }

    /// `kfree_skb_list`: `kfree_skb` on each list member, in order.
    fn kfree_skb_list(&mut self, f: Frame, cursor: usize) {
        let data = self.graph.skbs[f.skb as usize].data;
        match self.graph.data[data as usize].frag_list.get(cursor).copied() {
            Some(child) => self.push(Func::KfreeSkb, self.cfg.sizes.kfree_skb_bytes, child, f.level + 1),
            None => self.pop(),
        }
    }
}

/// Runs the walk without a trace.
pub fn walk(graph: SkbGraph, cfg: WalkConfig) -> (WalkResult, SkbGraph) {
    let (result, _, graph) = Walker::new(graph, cfg, false).run();
    (result, graph)
}
