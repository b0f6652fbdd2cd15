//! The call chains the TCP_STREAM world charges simulated time to (see `crate::sim::profile`).
//!
//! Command 0 is netperf (the sender), command 1 netserver (the receiver). Chains are the
//! 5.2-era x86_64 call paths below the syscall, outermost first; the `*Spin` chains end in
//! `queued_spin_lock_slowpath`, the zone->lock wait.

use crate::sim::profile::call_chains;

call_chains! {
    /// Where a thread of this world spends a nanosecond.
    pub enum Stack for ["netperf", "netserver"] {
        SendSyscall => "tcp_sendmsg",
        CopyFromUser => "tcp_sendmsg;_copy_from_iter_full;copy_user_enhanced_fast_string",
        FragFill => "tcp_sendmsg;skb_fill_page_desc",
        PcpAlloc => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist;rmqueue;rmqueue_pcplist",
        RmqueueBulk => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist;rmqueue;rmqueue_pcplist;rmqueue_bulk",
        RmqueueBulkSpin => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist;rmqueue;rmqueue_pcplist;rmqueue_bulk;_raw_spin_lock;queued_spin_lock_slowpath",
        Rmqueue => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist;rmqueue;__rmqueue_smallest",
        Watermark => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist;__zone_watermark_ok",
        RmqueueSpin => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist;rmqueue;_raw_spin_lock_irqsave;queued_spin_lock_slowpath",
        PrepCompound => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist;prep_new_page;prep_compound_page",
        PutPage => "put_page",
        FreePagesPrepare => "put_page;__put_page;free_pages_prepare",
        FreeUnrefPage => "put_page;__put_page;free_unref_page",
        FreePcpBulk => "put_page;__put_page;free_unref_page;free_unref_page_commit;free_pcppages_bulk",
        FreePcpBulkSpin => "put_page;__put_page;free_unref_page;free_unref_page_commit;free_pcppages_bulk;_raw_spin_lock;queued_spin_lock_slowpath",
        FreeOnePage => "put_page;__put_page;__free_pages_ok;free_one_page",
        FreeOnePageSpin => "put_page;__put_page;__free_pages_ok;free_one_page;_raw_spin_lock;queued_spin_lock_slowpath",
        DrainAll => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;__alloc_pages_slowpath;drain_all_pages;drain_pages_zone;free_pcppages_bulk",
        DrainAllSpin => "tcp_sendmsg;skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;__alloc_pages_slowpath;drain_all_pages;drain_pages_zone;free_pcppages_bulk;_raw_spin_lock;queued_spin_lock_slowpath",
        TcpXmit => "tcp_sendmsg;tcp_push;tcp_write_xmit;__tcp_transmit_skb;ip_queue_xmit;loopback_xmit",
        TcpTransmit => "tcp_sendmsg;tcp_push;tcp_write_xmit;__tcp_transmit_skb;ip_queue_xmit;loopback_xmit;do_softirq;net_rx_action;tcp_v4_rcv",
        Wakeup => "sock_def_readable;__wake_up_common;try_to_wake_up",
        RecvSyscall => "tcp_recvmsg",
        CopyToUser => "tcp_recvmsg;skb_copy_datagram_iter;copy_user_enhanced_fast_string",
        CopyFrag => "tcp_recvmsg;skb_copy_datagram_iter",
        Schedule => "schedule;__schedule",
    }
}
