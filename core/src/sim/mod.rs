//! The sim kernel: the mechanisms every allocator world runs on. Simulated CPUs contend for
//! cache lines and queued spinlocks over a buddy allocator with per-CPU page lists, one zone
//! per NUMA node.
//!
//! **The rule.** Mechanisms shared by worlds live here; a *world* (a workload with its
//! threads, its event enum, where its threads run, its profile call chains and its trace
//! frame) lives with its experiment, e.g. the TCP_STREAM world of seed 000 in
//! high-order-alloc's `world.rs`. Nothing here names a world or an experiment. Every world
//! runs on [`world`]'s skeleton: it supplies its event enum and `handle`, the one run loop
//! (warm-up, measurement window, event cap) is there.
//!
//! Map (each module opens with what Linux does, what we simplify, and the kernel code it
//! mirrors):
//! - [`engine`]: the generic event queue (integer ns, ordered by `(time, sequence)`).
//! - [`world`]: the skeleton of every world: the measurement window, the event cap, the
//!   `World` trait with the one `step`/`run`/`run_for`, and the `Outcome` of a run.
//! - [`machine`]: a machine profile as data: topology (sockets, cores, SMT) and the physical
//!   constants every cost is built from; turbo and SMT clocks.
//! - [`cache`]: private L2s and socket L3s by capacity (LRU by counting each core's fills);
//!   where a page's data is found (own L2, another core's, L3, DRAM) and what a streaming
//!   copy of it costs.
//! - [`cacheline`]: one shared line (last writer), and what touching it costs by distance
//!   (SMT sibling, same socket, other socket, L3 once evicted).
//! - [`ddio`]: the LLC ways a NIC's DMA writes fill (Intel DDIO), and which payload lines a
//!   core still finds there when it copies them.
//! - [`atomic_line`]: a line under locked RMWs: serialised, each pulling the line from the
//!   last writer, so contention grows with the writers; plain reads refetch after a write.
//! - [`qspinlock`]: FIFO spinlock with line-transfer handoff and /proc/lock_stat counters;
//!   the event-driven lock idiom (`LockEvents`, `request`, `release`).
//! - [`buddy`]: `free_area[order]` over page frame numbers, split and merge, /proc/buddyinfo.
//! - [`pcp`]: per-CPU page lists (count/high/batch), /proc/zoneinfo pagesets.
//! - [`zone`]: a zone = buddy + zone->lock + pagesets + `struct page` state; rmqueue and the
//!   two free paths (`free_unref_page`, `__free_pages_ok`); the holder's per-page work.
//! - [`page_frag`]: `skb_page_frag_refill` and the per-task frag.
//! - [`skb`]: an sk_buff's sizes (`SKB_DATA_ALIGN`, kmalloc classes, the shared info per
//!   era) and the call chains of its allocation and free that skb worlds share.
//! - [`slub`]: SLUB kmem caches: per-CPU active slabs and freelists (fast path), slab pages
//!   with their own freelists (`__slab_free`, the slow path), the node's partial list under
//!   `list_lock`, slab pages from and to the zone.
//! - [`slab`]: SLAB as 5.2 had it, over several nodes: per-CPU array caches (fast path), each
//!   node's shared array and slab lists under its `list_lock`, alien caches for objects of
//!   other nodes drained under the remote node's `list_lock`, slab pages from and to each
//!   node's zone.
//! - [`slab_common`]: what SLAB and SLUB count alike (per-CPU counters summed, objects
//!   allocated).
//! - [`sched`]: a task blocked and woken: the wakee's CPU as `select_task_rq_fair` chooses it
//!   (sync wakeups, idle prev, idle sibling, pinned), the IPI and the idle CPU's exit (a
//!   C-state, or a halted vCPU resumed by its host), the wakee's `schedule()`.
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
//! SLUB ([`slub`]), a chain beside 1-2 that never nests with it:
//! S1. this CPU's slab (kmem_cache_cpu, IRQs off)
//! S2.   kmem_cache_node->list_lock -- slab pages are allocated and freed with it dropped
//!                     (their zone->lock is then taken alone)
//! SLAB ([`slab`]), another chain beside 1-2 that never nests with it:
//! L1. this CPU's array_cache (IRQs off)
//! L2.   an alien cache's lock (alc->lock) -- only in __cache_free_alien and its drain
//! L3.     kmem_cache_node->list_lock -- the remote node's inside L2; slab pages are
//!                     allocated and freed with no slab lock held
//! ```
//!
//! **Which lock idiom a world uses.** Both drive the same [`qspinlock::QSpinLock`] (FIFO
//! handoff, line transfers, /proc/lock_stat); they differ in when the holder's work is known.
//! - *Event-driven* ([`qspinlock::LockEvents`]: `LockGranted` / `LockRelease` events,
//!   `QSpinLock::request` and `QSpinLock::release`): when the work under the lock reads state
//!   that other threads change while this one spins, so it must run at the moment of the
//!   grant: the zone's free lists in high-order-alloc and page-frag-free, whose threads
//!   advance event by event on their own clocks. The grant's handler does the work, charges
//!   the hold and schedules the release. (percpu-counter's fold lock is this idiom without
//!   the `LockGranted` event: its request and release events run the fold at once, dated at
//!   the grant, since nothing else touches the fold's state during the line transfer.)
//! - *Compute-at-start* ([`slub::SerialLock`]): when a world computes every piece of
//!   work whole at its start time and the CPU is busy until it ends (cross-cpu-free,
//!   skb-cache, every SLUB path): the hold is known when the lock is asked for, so the wait
//!   is computed at once and no event is scheduled. A new world uses this unless its critical
//!   section depends on the moment of the grant.
//!
//! Architecture invariants here: no floats in simulation state (only in statistics), no
//! hashing collections, no clock, no I/O; the only randomness is `crate::rng::Rng` forked
//! per thread from the run's seed.

pub mod atomic_line;
pub mod buddy;
pub mod cache;
pub mod cacheline;
pub mod catalogue;
pub mod catalogue_doc;
pub mod ddio;
pub mod engine;
pub mod machine;
pub mod page_frag;
pub mod pcp;
pub mod profile;
pub mod qspinlock;
pub mod sched;
pub mod skb;
pub mod slab;
pub mod slab_common;
pub mod slub;
pub mod trace;
pub mod world;
pub mod zone;
