//! The simulation engine shared by the allocator lessons: simulated CPUs that contend for
//! cache lines and a queued spinlock, a buddy allocator with per-CPU page lists per NUMA node,
//! the TCP page frag, and the TCP_STREAM-over-loopback workload of seed 000.
//!
//! Map (each module opens with what Linux does, what we simplify, and the kernel code it
//! mirrors):
//! - [`engine`]: the event queue (integer ns, ordered by `(time, sequence)`).
//! - [`machine`]: topology and the physical constants of a machine profile.
//! - [`qspinlock`]: FIFO spinlock with line-transfer handoff and /proc/lock_stat counters.
//! - [`buddy`]: `free_area[order]` over page frame numbers, split and merge, /proc/buddyinfo.
//! - [`pcp`]: per-CPU page lists (count/high/batch), /proc/zoneinfo pagesets.
//! - [`zone`]: a zone = buddy + zone->lock + pagesets + `struct page` state; rmqueue and the
//!   two free paths (`free_unref_page`, `__free_pages_ok`).
//! - [`page_frag`]: `skb_page_frag_refill` and the per-task frag.
//! - [`placement`]: where netperf/netserver run and at which clock.
//! - [`stream`]: the TCP_STREAM world: one `StreamSim` owns time, the queue, the RNG forks
//!   and every entity; `step()` processes one event, `run()` loops over it.
//! - [`profile`]: simulated CPU time per kernel call chain, as a perf report.
//! - [`trace`]: per-event frames for the step-through player.
//!
//! Architecture invariants here: no floats in simulation state (only in statistics), no
//! hashing collections, no clock, no I/O; the only randomness is `crate::rng::Rng` forked
//! per thread from the run's seed.

pub mod buddy;
pub mod cacheline;
pub mod engine;
pub mod machine;
pub mod page_frag;
pub mod pcp;
pub mod profile;
pub mod qspinlock;
pub mod trace;
pub mod zone;
