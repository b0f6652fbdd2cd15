//! The call chains the forwarding world charges simulated time to (see `crate::sim::profile`).
//!
//! Command 0 is the NAPI softirq (`ksoftirqd`, the CPU is saturated), command 1 the idle task
//! (`swapper`). Chains are 4.19-era x86_64 paths of an mlx5 box, outermost first, written out
//! in full: the seed's perf graph folds several frames (tail calls: `skb_free_head` →
//! `skb_free_frag` → `page_frag_free` → `__free_pages_ok`), so it shows `__free_pages_ok`
//! right under `napi_consume_skb`; the inclusive shares of the frames it shows are the same.

use crate::sim::profile::call_chains;

macro_rules! rx {
    ($tail:literal) => {
        concat!("net_rx_action;mlx5e_napi_poll;mlx5e_poll_rx_cq", $tail)
    };
}
macro_rules! tx {
    ($tail:literal) => {
        concat!("net_rx_action;mlx5e_napi_poll;mlx5e_poll_tx_cq", $tail)
    };
}
macro_rules! pff {
    ($tail:literal) => {
        concat!(
            "net_rx_action;mlx5e_napi_poll;mlx5e_poll_tx_cq;napi_consume_skb;skb_release_all;skb_release_data;skb_free_head;page_frag_free",
            $tail
        )
    };
}

call_chains! {
    /// Where a CPU of this world spends a nanosecond.
    pub enum Stack for ["ksoftirqd", "swapper"] {
        RxDriver => rx!(";mlx5e_handle_rx_cqe"),
        RxForward => rx!(";mlx5e_handle_rx_cqe;napi_gro_receive;netif_receive_skb_internal;ip_rcv;ip_forward"),
        RxXmit => rx!(";mlx5e_handle_rx_cqe;napi_gro_receive;netif_receive_skb_internal;ip_rcv;ip_forward;ip_output;dev_queue_xmit;mlx5e_xmit"),
        RxCache => rx!(";mlx5e_post_rx_wqes;mlx5e_page_alloc_mapped;mlx5e_rx_cache_get"),
        PcpAlloc => rx!(";mlx5e_post_rx_wqes;mlx5e_page_alloc_mapped;__alloc_pages_nodemask;get_page_from_freelist;rmqueue_pcplist"),
        RmqueueBulk => rx!(";mlx5e_post_rx_wqes;mlx5e_page_alloc_mapped;__alloc_pages_nodemask;get_page_from_freelist;rmqueue_pcplist;rmqueue_bulk"),
        RmqueueBulkLock => rx!(";mlx5e_post_rx_wqes;mlx5e_page_alloc_mapped;__alloc_pages_nodemask;get_page_from_freelist;rmqueue_pcplist;rmqueue_bulk;_raw_spin_lock"),
        RmqueueBulkSpin => rx!(";mlx5e_post_rx_wqes;mlx5e_page_alloc_mapped;__alloc_pages_nodemask;get_page_from_freelist;rmqueue_pcplist;rmqueue_bulk;_raw_spin_lock;queued_spin_lock_slowpath"),
        TxCq => tx!(""),
        NapiConsume => tx!(";napi_consume_skb"),
        ReleaseData => tx!(";napi_consume_skb;skb_release_all;skb_release_data"),
        PageFragFree => pff!(""),
        FreePagesOk => pff!(";__free_pages_ok"),
        FreeOnePage => pff!(";__free_pages_ok;free_one_page"),
        FreeOnePageLock => pff!(";__free_pages_ok;free_one_page;_raw_spin_lock"),
        FreeOnePageSpin => pff!(";__free_pages_ok;free_one_page;_raw_spin_lock;queued_spin_lock_slowpath"),
        FreeUnref => pff!(";free_unref_page"),
        FreePcpBulk => pff!(";free_unref_page;free_unref_page_commit;free_pcppages_bulk"),
        FreePcpBulkLock => pff!(";free_unref_page;free_unref_page_commit;free_pcppages_bulk;_raw_spin_lock"),
        FreePcpBulkSpin => pff!(";free_unref_page;free_unref_page_commit;free_pcppages_bulk;_raw_spin_lock;queued_spin_lock_slowpath"),
        Idle => "do_idle;cpuidle_enter",
    }
}
