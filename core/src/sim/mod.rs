//! The sim kernel: the mechanisms every allocator world runs on. Simulated CPUs contend for
//! cache lines and queued spinlocks over a buddy allocator with per-CPU page lists, one zone
//! per NUMA node.
//!
//! **The rule.** Mechanisms shared by worlds live here; a *world* (a workload with its
//! threads, its event enum, where its threads run, its profile call chains and its trace
//! frame) lives with its experiment, e.g. the TCP_STREAM world of seed 000 in
//! `crate::experiments::high_order_alloc::world`. Nothing here names a world.
//!
//! Map (each module opens with what Linux does, what we simplify, and the kernel code it
//! mirrors):
//! - [`engine`]: the generic event queue (integer ns, ordered by `(time, sequence)`).
//! - [`machine`]: a machine profile as data: topology (sockets, cores, SMT) and the physical
//!   constants every cost is built from; turbo and SMT clocks.
//! - [`cache`]: private L2s and socket L3s by capacity (LRU by counting each core's fills);
//!   where a page's data is found (own L2, another core's, L3, DRAM) and what a streaming
//!   copy of it costs.
//! - [`cacheline`]: one shared line (last writer), and what touching it costs by distance
//!   (SMT sibling, same socket, other socket, L3 once evicted).
//! - [`atomic_line`]: a line under locked RMWs: serialised, each pulling the line from the
//!   last writer, so contention grows with the writers; plain reads refetch after a write.
//! - [`qspinlock`]: FIFO spinlock with line-transfer handoff and /proc/lock_stat counters.
//! - [`buddy`]: `free_area[order]` over page frame numbers, split and merge, /proc/buddyinfo.
//! - [`pcp`]: per-CPU page lists (count/high/batch), /proc/zoneinfo pagesets.
//! - [`zone`]: a zone = buddy + zone->lock + pagesets + `struct page` state; rmqueue and the
//!   two free paths (`free_unref_page`, `__free_pages_ok`).
//! - [`page_frag`]: `skb_page_frag_refill` and the per-task frag.
//! - [`slub`]: SLUB kmem caches: per-CPU active slabs and freelists (fast path), slab pages
//!   with their own freelists (`__slab_free`, the slow path), the node's partial list under
//!   `list_lock`, slab pages from and to the zone.
//! - [`profile`]: simulated CPU time per call chain of a world, as a perf report.
//! - [`trace`]: the generic part of per-event frames for the step-through player.
//!
//! Lock order (outermost first; a lock may be taken only with the locks above it held or
//! none, like the comment blocks at the top of mm/page_alloc.c and mm/slub.c):
//!
//! ```text
//! 1. this CPU's per-CPU page lists (IRQs off; pcp->lock since 5.19) -- chosen before 2
//! 2.   zone->lock   -- inside 1 (rmqueue_bulk, free_pcppages_bulk) or alone; nothing nests
//!                     inside it, and a thread holds one zone's lock at a time
//! reserved for SLUB (not modelled yet), a chain beside 1-2 that never nests with it:
//! S1. this CPU's slab (kmem_cache_cpu, IRQs off)
//! S2.   kmem_cache_node->list_lock -- slab pages are allocated and freed with it dropped
//! ```
//!
//! Architecture invariants here: no floats in simulation state (only in statistics), no
//! hashing collections, no clock, no I/O; the only randomness is `crate::rng::Rng` forked
//! per thread from the run's seed.

pub mod atomic_line;
pub mod buddy;
pub mod cache;
pub mod cacheline;
pub mod engine;
pub mod machine;
pub mod page_frag;
pub mod pcp;
pub mod profile;
pub mod qspinlock;
pub mod skb;
pub mod slub;
pub mod trace;
pub mod zone;
