//! One module per experiment (one per lesson). Each exports a unit struct implementing
//! [`Model`](crate::model::Model) (the platform sees it as an [`Experiment`]) and the typed
//! data its custom views draw.
//!
//! The registry lives here, beside the `pub mod` lines: adding an experiment is its module
//! and one line in [`REGISTRY`].

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
