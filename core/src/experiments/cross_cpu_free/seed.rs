//! Seed 001's measured runs, as data (Ian Campbell, netdev, 2011-12-07, "Re: [PATCH 0/4] skb
//! paged fragment destructors"): `iperf -c qarun -m -t 60 -u -b 10000M -l 64` between two
//! hosts (Xen guests: our assumption, the post does not say), before and after splitting
//! skb_shared_info into its own cache.
//!
//! Used only to compare (reproduce, calibration, tests). The model never reads it.

/// iperf's run length.
pub const SEED_SECONDS: u64 = 60;
/// "Sent 13820376 datagrams", 118 Mbit/s, before the split.
pub const BEFORE_DATAGRAMS: u64 = 13_820_376;
pub const BEFORE_MBPS: f64 = 118.0;
/// "Sent 13645857 datagrams", 116 Mbit/s, with the split.
pub const AFTER_DATAGRAMS: u64 = 13_645_857;
pub const AFTER_MBPS: f64 = 116.0;
/// "With 1200 byte datagrams I get basically identical throughput": no number given; we
/// read it as a change of 0 %.
pub const CHANGE_1200_PCT: f64 = 0.0;

/// after / before = 0.98737.
pub fn ratio() -> f64 {
    AFTER_DATAGRAMS as f64 / BEFORE_DATAGRAMS as f64
}
