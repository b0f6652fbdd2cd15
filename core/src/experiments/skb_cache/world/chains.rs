//! The call chains the tcp_rr world charges simulated time to (see `crate::sim::profile`).
//!
//! One command, `tcp_rr` (neper's request/response benchmark): on a server where every CPU
//! runs its threads, softirqs run on the exit of an interrupt in whatever thread it
//! interrupted, and perf charges them to it; the `net_rx_action` chains are the softirq's.
//! Chains are 5.2-era x86_64 paths, outermost first; the skb's own allocation and free
//! (`__alloc_skb`, `__kfree_skb`, SLUB and the page allocator) are the chains every skb world
//! shares (`crate::sim::skb::skb_call_chains!`). The `*Spin` chains end in
//! `queued_spin_lock_slowpath` (list_lock or zone->lock). Line transfers are charged to the function that touches the line.

use crate::sim::skb::skb_call_chains;

macro_rules! rcv {
    ($tail:literal) => {
        concat!("net_rx_action;__netif_receive_skb_core;ip_rcv;ip_local_deliver;tcp_v4_rcv", $tail)
    };
}
macro_rules! recv {
    ($tail:literal) => {
        concat!("entry_SYSCALL_64;do_syscall_64;__x64_sys_recvfrom;tcp_recvmsg", $tail)
    };
}
macro_rules! send {
    ($tail:literal) => {
        concat!("entry_SYSCALL_64;do_syscall_64;__x64_sys_sendto;tcp_sendmsg;tcp_sendmsg_locked", $tail)
    };
}

macro_rules! slab_free {
    ($tail:literal) => {
        concat!("__kfree_skb;kfree_skbmem;kmem_cache_free;___cache_free", $tail)
    };
}
macro_rules! spin {
    ($chain:expr) => {
        concat!($chain, ";_raw_spin_lock;queued_spin_lock_slowpath")
    };
}

skb_call_chains! {
    alloc: "kmem_cache_alloc_node", slow: "___slab_alloc", pages: "__alloc_pages_nodemask";
    /// Where a CPU of this world spends a nanosecond.
    pub enum Stack for ["tcp_rr"] {
        /// The driver's part of the softirq (poll, skb build, GRO), before RPS.
        Driver => "net_rx_action;mlx5e_napi_poll;napi_gro_receive",
        /// The TCP receive path with the ACK of the previous response.
        TcpRcv => rcv!(""),
        /// The delayed ACK scheduled for the request (`sk_reset_timer` → `mod_timer`).
        DelackTimer => rcv!(";tcp_rcv_established;__tcp_ack_snd_check;tcp_send_delayed_ack;sk_reset_timer;mod_timer"),
        /// The socket lines the softirq writes.
        TcpRcvSockLines => rcv!(";tcp_rcv_established"),
        /// 3.19-5.10: the head carved from this CPU's NAPI page fragment (no atomic: the
        /// cache's `pagecnt_bias` is decremented).
        HeadFrag => "net_rx_action;mlx5e_napi_poll;__napi_alloc_skb;page_frag_alloc",
        /// ... and when its 32 KiB page is used up: the page's refcount settled against the
        /// bias, and a new order-3 page unless every head of the old one was freed.
        HeadFragRefill => "net_rx_action;mlx5e_napi_poll;__napi_alloc_skb;page_frag_alloc;__page_frag_cache_refill;__alloc_pages_nodemask",
        HeadFragRefillSpin => spin!("net_rx_action;mlx5e_napi_poll;__napi_alloc_skb;page_frag_alloc;__page_frag_cache_refill;__alloc_pages_nodemask"),
        /// A page-fragment head freed: `put_page` on its page (the struct page line and an
        /// atomic), and the order-3 page to the buddy when it was the last reference.
        HeadPut => "__kfree_skb;skb_release_all;skb_release_data;skb_free_head;page_frag_free",
        HeadPageFree => "__kfree_skb;skb_release_all;skb_release_data;skb_free_head;page_frag_free;__free_pages_ok;free_one_page",
        HeadPageFreeSpin => spin!("__kfree_skb;skb_release_all;skb_release_data;skb_free_head;page_frag_free;__free_pages_ok;free_one_page"),
        /// Enqueue on the target CPU's backlog and the RPS IPI.
        Rps => "net_rx_action;mlx5e_napi_poll;napi_gro_receive;netif_receive_skb_internal;enqueue_to_backlog",
        /// The socket state only the softirq uses (the lookup, the receive-side fields).
        RcvSockState => rcv!(";__inet_lookup_established"),
        Wakeup => rcv!(";tcp_rcv_established;tcp_data_ready;sock_def_readable;__wake_up_sync_key;try_to_wake_up"),
        /// epoll_wait's syscall, once per batch of ready sockets.
        EpollWait => "entry_SYSCALL_64;do_syscall_64;__x64_sys_epoll_wait;do_epoll_wait",
        /// neper's two `epoll_ctl(EPOLL_CTL_MOD)` per transaction (EPOLLIN → EPOLLOUT → EPOLLIN)
        /// and the EPOLLOUT event the first makes ready.
        EpollCtl => "entry_SYSCALL_64;do_syscall_64;__x64_sys_epoll_ctl;ep_modify",
        /// The socket state only the process uses (the file, the epoll item, send-side fields).
        AppSockState => "entry_SYSCALL_64;do_syscall_64;__x64_sys_epoll_wait;do_epoll_wait;ep_poll;ep_send_events_proc;ep_item_poll;tcp_poll",
        /// A switch to another thread of this CPU when the running one has nothing ready.
        ContextSwitch => "entry_SYSCALL_64;do_syscall_64;__x64_sys_epoll_wait;do_epoll_wait;ep_poll;schedule_hrtimeout_range;schedule;__schedule",
        /// A thread woken from its sleep in epoll_wait: its CPU's `schedule()` to it.
        Schedule => "entry_SYSCALL_64;do_syscall_64;__x64_sys_epoll_wait;do_epoll_wait;ep_poll;schedule_hrtimeout_range;schedule;__schedule;finish_task_switch",
        /// The response's retransmit-timer re-arm and tail-loss-probe arm (`tcp_rearm_rto`,
        /// `tcp_schedule_loss_probe`), both `sk_reset_timer` → `mod_timer` on one timer.
        XmitTimers => send!(";tcp_push;__tcp_push_pending_frames;tcp_write_xmit;sk_reset_timer;mod_timer"),
        /// The recvmsg and sendmsg syscalls, tcp_recvmsg, the TCP send path and the NIC's
        /// transmit, and one epoll event, of one transaction.
        Syscalls => "entry_SYSCALL_64;do_syscall_64",
        RecvSockLines => recv!(";lock_sock_nested"),
        /// Reading the skb pulls its lines from the CPU that built it.
        RecvSkbLines => recv!(""),
        CopyToUser => recv!(";skb_copy_datagram_iter;copy_user_enhanced_fast_string"),
        CopyFromUser => send!(";skb_copy_to_page_nocache;copy_user_enhanced_fast_string"),
        /// The tx cache: the parked skb taken back.
        ReuseSkbLines => send!(";sk_stream_alloc_skb"),
        /// A page-frag reference taken for the response's payload (with the struct page line).
        FragGet => send!(";page_ref_inc"),
        /// A page-frag reference dropped (free, or pskb_trim of a reused skb).
        FragPut => "skb_release_data;__skb_frag_unref;put_page",
        /// The lines of the skb `__kfree_skb` writes before its objects go back.
        SkbFreeLines => "__kfree_skb;skb_release_all;skb_release_head_state",
        /// SLAB (mm/slab.c, 5.2): an empty array refilled from the node's shared array or
        /// slabs under its `list_lock`, or from a new slab.
        SlabRefill => "__alloc_skb;kmem_cache_alloc_node;cache_alloc_refill",
        SlabRefillSpin => spin!("__alloc_skb;kmem_cache_alloc_node;cache_alloc_refill"),
        /// SLAB: a full array's oldest batch to the shared array or the slabs (`list_lock`).
        SlabFlush => slab_free!(";cache_flusharray"),
        SlabFlushSpin => spin!(slab_free!(";cache_flusharray")),
        /// SLAB: another node's object into this node's alien cache for it (its own lock).
        SlabAlien => slab_free!(";cache_free_alien;__cache_free_alien"),
        SlabAlienSpin => spin!(slab_free!(";cache_free_alien;__cache_free_alien")),
        /// SLAB: a full alien cache drained under the remote node's `list_lock`.
        SlabAlienDrain => slab_free!(";cache_free_alien;__cache_free_alien;__drain_alien_cache"),
        SlabAlienDrainSpin => spin!(slab_free!(";cache_free_alien;__cache_free_alien;__drain_alien_cache")),
    }
}

impl Stack {
    /// SLUB's slow path (`___slab_alloc`, `__slab_free`), SLAB's (refill, flush, alien
    /// frees) and the lock waits: what the
    /// report's "slab ns per request" counts.
    pub const SLOW_AND_SPIN: [Stack; 14] = [
        Stack::SlabRefill,
        Stack::SlabRefillSpin,
        Stack::SlabFlush,
        Stack::SlabFlushSpin,
        Stack::SlabAlien,
        Stack::SlabAlienSpin,
        Stack::SlabAlienDrain,
        Stack::SlabAlienDrainSpin,
        Stack::SlabAllocSlow,
        Stack::SlabFreeSlow,
        Stack::SlabAllocSpin,
        Stack::SlabFreeSpin,
        Stack::PageAllocSpin,
        Stack::PageFreeSpin,
    ];
}
