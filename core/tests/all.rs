//! The integration tests of skblab-core, as one test binary: one link instead of one per
//! file (a change to core relinks this binary and `estimate`, not forty). Each file of this
//! folder is a module here; `tidy` checks that none is left out. `estimate.rs` stays its own
//! binary: it counts the events every world of the process handles, so no other test may run
//! a world beside it. One file's tests: a filter on its module, `cargo test -p skblab-core
//! --features cli --test all -- registry::` (a filter is a substring: that one matches
//! `fuzz_registry::` too).

mod common;

mod advisories;
mod bands;
mod catalogue;
mod catalogue_doc;
#[cfg(feature = "cli")]
mod cli;
mod cross_cpu_free;
mod differential;
mod docs;
mod fuzz_registry;
mod fuzz_sim;
mod high_order_alloc_fidelity;
mod high_order_alloc_knobs;
mod high_order_alloc_model;
mod high_order_alloc_props;
mod high_order_alloc_skb_cache;
mod high_order_alloc_sndbuf;
#[cfg(feature = "cli")]
mod jobs;
mod ktls_recursion;
mod machine_report_text;
mod machine_rr;
mod meaningful;
mod measure;
#[cfg(feature = "cli")]
mod measure_cli;
mod measure_hostile;
mod monotone;
mod page_frag_free;
mod pahole;
mod percpu_counter_batch;
mod percpu_counter_fidelity;
mod percpu_counter_hz;
mod percpu_counter_knobs;
mod percpu_counter_model;
mod percpu_counter_stream;
mod registry;
mod replay;
#[cfg(feature = "cli")]
mod reproduce_fixtures;
mod skb_cache;
mod skb_cache_steady;
mod skb_cache_timers;
mod skb_cache_tx_head;
mod skb_cache_wait;
mod stream_shared_write;
mod stream_waiting;
mod tidy;
mod validate;
