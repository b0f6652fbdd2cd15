//! One module per experiment (one per lesson). Each exports a unit struct implementing
//! [`Model`](crate::model::Model) (the platform sees it as an [`Experiment`]) and the typed
//! data its custom views draw.
//!
//! The registry lives here, beside the `pub mod` lines: adding an experiment is its module,
//! one line in [`REGISTRY`] and its row in this table (in registry order; `core/tests/docs.rs`
//! holds the table to the registry):
//!
//! | id | module | what it reproduces |
//! |---|---|---|
//! | `skb-layout` | `skb_layout/` | the head buffer's size arithmetic and kmalloc class (seed 001) |
//! | `high-order-alloc` | `high_order_alloc/` | order-3 vs order-0 page frags under zone->lock, TCP_STREAM 1..30 flows (seed 000) |
//! | `page-frag-free` | `page_frag_free/` | TX completion freeing pages under zone->lock, and the per-CPU-list fix (seed 002) |
//! | `cross-cpu-free` | `cross_cpu_free/` | SLUB's cross-CPU free and the split shinfo cache (seed 001) |
//! | `skb-cache` | `skb_cache/` | the per-socket rx/tx skb caches of 5.2, tcp_rr 8 to 9 Mpps, and the memory they pin (seed 004) |
//! | `percpu-counter` | `percpu_counter/` | tcp_memory_allocated as an atomic, a percpu_counter or per-CPU reserves (seed 003) |
//! | `ktls-recursion` | `ktls_recursion/` | the recursive frag_list free that overflows the kernel stack (seed 004) |

pub mod cross_cpu_free;
pub mod high_order_alloc;
pub mod ktls_recursion;
pub mod page_frag_free;
pub mod percpu_counter;
pub mod skb_cache;
pub mod skb_layout;

use crate::experiment::Experiment;
use crate::params::ParamError;

/// Every experiment, in lesson order.
pub static REGISTRY: &[&dyn Experiment] = &[
    &skb_layout::SkbLayout,
    &high_order_alloc::HighOrderAlloc,
    &page_frag_free::PageFragFree,
    &cross_cpu_free::CrossCpuFree,
    &skb_cache::SkbCache,
    &percpu_counter::PercpuCounter,
    &ktls_recursion::KtlsRecursion,
];

/// Every experiment, in lesson order.
pub fn experiments() -> &'static [&'static dyn Experiment] {
    REGISTRY
}

/// Looks an experiment up by id; the error lists the known ids.
pub fn find(id: &str) -> Result<&'static dyn Experiment, ParamError> {
    REGISTRY.iter().copied().find(|e| e.id() == id).ok_or_else(|| ParamError::UnknownExperiment {
        id: id.to_string(),
        known: REGISTRY.iter().map(|e| e.id().to_string()).collect(),
    })
}
