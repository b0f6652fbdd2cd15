//! The figures of the rx skb cache patch (8b27dae5a2e8, quoted in seed 004), as data.
//!
//! "tcp_rr workload with 10,000 flows and 112 threads reach 9 Mpps instead of 8 Mpps": the
//! patch with its tx companion (472c2e07eef0). The post gives no error bars; 8.0 and 9.0 are
//! read as exact. Note: /work/shared/KERNEL-FACTS.md §7 could not confirm these figures from
//! the kernel tree; they are the seed post's quotation of the patch.

/// Flows and threads of the run.
pub const FLOWS: u32 = 10_000;
pub const THREADS: u32 = 112;
/// Mpps without and with the two caches.
pub const OFF_MPPS: f64 = 8.0;
pub const ON_MPPS: f64 = 9.0;

/// The gain the seed implies, in %.
pub fn gain_pct() -> f64 {
    (ON_MPPS / OFF_MPPS - 1.0) * 100.0
}
