//! `skb-cache`'s `tx_head` (docs/skb-cache.md, "The seed's kernel and the model's"): before
//! 472c2e07eef0 the first skb of a write carried up to `SKB_WITH_OVERHEAD(2048 -
//! MAX_TCP_HEADER)` bytes of payload in a 2 KiB kmalloc head; from it on, the head holds
//! headers only and the payload goes to the task's page frag. The seed's 8 Mpps ran the
//! former. What moves between the two is what the kernel would move: no page-frag reference
//! per response, and a head from a cache whose per-CPU array moves 12 objects a batch, not 27.

use skblab_core::experiments::skb_cache::{self as sc, world, SkbCache, TxHead};
use skblab_core::Experiment;

use crate::common;

/// The sizes follow the kernel's arithmetic: 1,408 bytes of payload room, a kmalloc-2048
/// head; a 1-byte response takes no page frag, a larger one frags for what the head cannot hold.
#[test]
fn the_linear_head_holds_a_small_response_and_frags_the_rest() {
    assert_eq!(world::LINEAR_PAYLOAD_BYTES, 1408);
    assert_eq!(world::tx_head_bytes_of(TxHead::Linear), 2048);
    assert_eq!(world::tx_head_bytes_of(TxHead::Frag), 1024);
    assert_eq!(world::tx_frags_of(TxHead::Linear, 1), 0);
    assert_eq!(world::tx_frags_of(TxHead::Linear, 1408), 0);
    assert_eq!(world::tx_frags_of(TxHead::Linear, 1409), 1);
    assert_eq!(world::tx_frags_of(TxHead::Frag, 1), 1);
    assert_eq!(world::tx_frags_of(TxHead::Linear, 65_536), world::tx_frags(65_536 - 1408));
}

/// The tx cache came with the frag layout: asking for both is a one-line error.
#[test]
fn the_tx_cache_with_a_linear_head_is_refused() {
    let e = SkbCache.params_from(&["tx_head=linear".into(), "tcp_tx_skb_cache=true".into()]).unwrap_err();
    assert!(!e.to_string().contains('\n') && e.to_string().contains("tx_head"), "{e}");
    assert!(SkbCache.params_from(&["tx_head=linear".into(), "tcp_rx_skb_cache=true".into()]).is_ok());
}

/// Knob: the linear head drops the response's page-frag reference (fewer line transfers per
/// request) and takes its head from kmalloc-2048, whose arrays refill in batches of 12 (more
/// refills under `list_lock` per request); the seed's reproduce row runs it.
#[test]
fn a_linear_head_trades_frag_lines_for_slab_refills() {
    let run = |head: &str| {
        let p = common::params(&SkbCache, &["measure_us=1000", "warmup_us=1000", head]);
        let (r, s) = sc::run_input(&sc::Input::from(&p), sc::profile::SERVER_2019_RR, 1);
        let req = r.requests.max(1) as f64;
        (s, r.slab.allocmiss as f64 / req)
    };
    let ((frag, frag_refills), (linear, linear_refills)) = (run("tx_head=frag"), run("tx_head=linear"));
    println!(
        "frag / linear: line ns per request {:.0} / {:.0}, refills per request {frag_refills:.4} / {linear_refills:.4}, spin {:.2} / {:.2} %",
        frag.line_ns_per_request, linear.line_ns_per_request, frag.spin_pct, linear.spin_pct
    );
    assert!(linear.line_ns_per_request < frag.line_ns_per_request);
    assert!(linear_refills > frag_refills);
    assert!(linear.slab_ns_per_request > frag.slab_ns_per_request);
    let [off, on] = sc::seed_inputs();
    assert_eq!((off.tx_head, on.tx_head), (TxHead::Linear, TxHead::Frag));
}
