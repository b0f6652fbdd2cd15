//! The skb-cache sysctls in `high-order-alloc`'s TCP_STREAM world (#11): each moves the frees
//! the way the v5.2 code does, and the effects follow from where the frees run.
//!
//! Rerun: `cargo test -p skblab-core --test high_order_alloc_skb_cache`.

use skblab_core::experiments::high_order_alloc::{self as hoa, FragOrder, StreamSim};
use skblab_core::params::Params;

fn run(settings: &[&str], flows: u32, order: FragOrder, seed: u64) -> StreamSim {
    let mut all = vec!["measure_us=1000", "warmup_us=300"];
    all.extend_from_slice(settings);
    let p = Params::from_settings(hoa::ID, hoa::specs(), &all).expect("valid settings");
    hoa::simulate(&p, flows, order, seed)
}

fn zone_lock_per_gb(sim: &StreamSim) -> f64 {
    sim.stats.lock_ops.iter().sum::<u64>() as f64 / (sim.stats.copy_bytes as f64 / 1e9)
}

fn sender_put_share(sim: &StreamSim) -> f64 {
    let s = &sim.stats;
    s.last_put_by_sender as f64 / (s.last_put_by_sender + s.last_put_by_receiver).max(1) as f64
}

#[test]
fn rx_cache_moves_order0_frees_to_the_sender_and_off_the_zone_lock() {
    let off = run(&[], 4, FragOrder::Order0, 1);
    let on = run(&["tcp_rx_skb_cache=on"], 4, FragOrder::Order0, 1);
    // Without the cache every frag page dies on the receiver: its per-CPU list overflows
    // (free_pcppages_bulk) while the sender's runs dry (rmqueue_bulk), both under zone->lock.
    assert!(sender_put_share(&off) < 0.05, "off: sender share {}", sender_put_share(&off));
    assert!(zone_lock_per_gb(&off) > 1000.0, "off: {} zone->lock per GB", zone_lock_per_gb(&off));
    // With it the next softirq, on the sender's CPU, frees the parked skb: the pages return
    // to the list they came from and the lists stay balanced.
    assert!(sender_put_share(&on) > 0.9, "on: sender share {}", sender_put_share(&on));
    assert!(
        zone_lock_per_gb(&on) < zone_lock_per_gb(&off) / 10.0,
        "on: {} vs off {} zone->lock per GB",
        zone_lock_per_gb(&on),
        zone_lock_per_gb(&off)
    );
    assert!(on.stats.skb.rx_parked > 0 && on.stats.skb.rx_freed_by_softirq > 0);
    assert_eq!(off.stats.skb.rx_parked, 0);
}

#[test]
fn rx_cache_makes_the_slab_frees_local() {
    let off = run(&[], 2, FragOrder::Order3, 1);
    let on = run(&["tcp_rx_skb_cache=on"], 2, FragOrder::Order3, 1);
    let skbs = |s: &StreamSim| s.stats.skb.skb_allocs.max(1) as f64;
    // Off: both objects of every skb (fclone pair, head) are freed on the receiver: __slab_free.
    assert!(off.stats.skb.slab_slow_frees as f64 / skbs(&off) > 1.5);
    // On: freed by the sender's softirq into its own active slab: the fast path.
    assert!(on.stats.skb.slab_slow_frees as f64 / skbs(&on) < 0.2);
    assert!(on.stats.skb.freed_on_alloc_cpu * 10 > on.stats.skb.freed * 9);
}

#[test]
fn rx_cache_speeds_up_one_order3_flow() {
    // Order 3 always frees under zone->lock (before 5.14), but from the CPU that allocated:
    // the lock, buddy and struct page lines stop moving between two CPUs.
    let off = run(&[], 1, FragOrder::Order3, 2);
    let on = run(&["tcp_rx_skb_cache=on"], 1, FragOrder::Order3, 2);
    assert!(
        on.throughput_mbps() > off.throughput_mbps() * 1.02,
        "{} vs {}",
        on.throughput_mbps(),
        off.throughput_mbps()
    );
}

#[test]
fn tx_cache_reuses_the_acked_skb_unless_the_rx_cache_holds_its_clone() {
    let tx = run(&["tcp_tx_skb_cache=on"], 2, FragOrder::Order0, 1);
    let s = &tx.stats.skb;
    // Nearly every skb after the first comes from the cache: no slab allocation or free.
    assert!(s.tx_reused > 20 * s.skb_allocs.max(1), "{} reused, {} allocated", s.tx_reused, s.skb_allocs);
    assert_eq!(s.slab_slow_frees, 0);
    // pskb_trim in sendmsg drops the old frags: on the sender's CPU.
    assert!(sender_put_share(&tx) > 0.9);
    // With the rx cache too, the clone is parked when the ACK comes: skb_cloned(), so the
    // acked skb is freed and the tx cache stays empty (as in the kernel).
    let both = run(&["tcp_tx_skb_cache=on", "tcp_rx_skb_cache=on"], 2, FragOrder::Order0, 1);
    assert_eq!(both.stats.skb.tx_reused, 0);
    assert!(both.stats.skb.rx_parked > 0);
}

#[test]
fn caches_off_is_the_default_and_changes_nothing() {
    let d = Params::from_settings(hoa::ID, hoa::specs(), &[] as &[&str]).unwrap();
    assert!(!d.bool("tcp_rx_skb_cache") && !d.bool("tcp_tx_skb_cache"));
    let a = run(&[], 2, FragOrder::Order3, 3);
    let b = run(&["tcp_rx_skb_cache=off", "tcp_tx_skb_cache=off"], 2, FragOrder::Order3, 3);
    assert_eq!(a.throughput_mbps(), b.throughput_mbps());
    assert_eq!(a.stats, b.stats);
}
