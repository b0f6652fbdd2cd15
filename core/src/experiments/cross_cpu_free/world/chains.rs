//! The call chains the worlds of `cross-cpu-free` charge simulated CPU time to (see
//! `crate::sim::profile`), one profile per CPU of each host.
//!
//! The command is the benchmark (`iperf` for udp-iperf, `netserver` for tcp-100g): softirqs
//! run on the exit of the interrupt in whatever task it interrupted, and perf charges them to
//! it; the `net_rx_action` chains are the softirq's. Chains are outermost first: udp-iperf's
//! with the names of a 3.x Xen guest (netfront), tcp-100g's with 6.x names; the skb's own
//! allocation and free (`__alloc_skb`, `__kfree_skb`, SLUB and the page allocator) are the
//! chains every skb world shares (`crate::sim::skb::skb_call_chains!`). The `*Spin` chains end
//! in `queued_spin_lock_slowpath` (2011's kernels spun in a ticket lock; the time is the same
//! list_lock or zone->lock wait). [`Stack::Idle`] (command `swapper`, the idle task) only
//! appears in the per-CPU report, for the part of the window a CPU did nothing.

use crate::sim::skb::skb_call_chains;

macro_rules! udp_rcv {
    ($tail:literal) => {
        concat!("net_rx_action;xennet_poll;netif_receive_skb;ip_rcv;ip_local_deliver;udp_rcv", $tail)
    };
}
macro_rules! tcp_rcv {
    ($tail:literal) => {
        concat!(
            "net_rx_action;__napi_poll;napi_complete_done;netif_receive_skb_list_internal;ip_list_rcv;tcp_v4_rcv",
            $tail
        )
    };
}
macro_rules! tcp_backlog {
    ($tail:literal) => {
        concat!(
            "net_rx_action;__napi_poll;process_backlog;__netif_receive_skb_one_core;ip_rcv;ip_local_deliver;tcp_v4_rcv",
            $tail
        )
    };
}
macro_rules! sendto {
    ($tail:literal) => {
        concat!("sys_sendto;sock_sendmsg;udp_sendmsg", $tail)
    };
}
macro_rules! udp_recv {
    ($tail:literal) => {
        concat!("sys_recvfrom;sock_recvmsg;udp_recvmsg", $tail)
    };
}
macro_rules! tcp_recv {
    ($tail:literal) => {
        concat!("__x64_sys_recvfrom;tcp_recvmsg", $tail)
    };
}

skb_call_chains! {
    alloc: "kmem_cache_alloc", slow: "__slab_alloc", pages: "__alloc_pages";
    /// Where a CPU of these worlds spends a nanosecond.
    pub enum Stack for ["iperf", "netserver", "swapper"] {
        /// udp-iperf's client: its syscalls (write and gettimeofday, both charged here).
        SendSyscall => sendto!(""),
        /// The UDP/IP send path to the driver.
        UdpSend => sendto!(";ip_send_skb;ip_local_out;ip_finish_output;dev_queue_xmit"),
        /// An event-channel upcall into the guest (netfront's interrupt, a wakeup IPI).
        XenUpcall => "xen_hypervisor_callback;xen_evtchn_do_upcall;handle_irq_event;xennet_interrupt",
        CopyFromUser => sendto!(";ip_make_skb;__ip_append_data;ip_generic_getfrag;copy_user_generic_string"),
        /// netfront's transmit and the hypervisor (grant, event channel).
        XenTx => sendto!(";ip_send_skb;dev_queue_xmit;dev_hard_start_xmit;xennet_start_xmit"),
        /// netfront's receive poll and the hypervisor's share of a received packet.
        XenRx => "net_rx_action;xennet_poll",
        UdpRcv => udp_rcv!(""),
        UdpWakeup => udp_rcv!(";sock_queue_rcv_skb;sock_def_readable;__wake_up_sync_key;try_to_wake_up"),
        /// The NIC driver and GRO, per frame.
        Driver => "net_rx_action;__napi_poll;napi_gro_receive",
        TcpRcv => tcp_rcv!(""),
        TcpWakeup => tcp_rcv!(";tcp_data_ready;sock_def_readable;__wake_up_sync_key;try_to_wake_up"),
        /// RFS on A: `get_rps_cpu` and the skb onto B's backlog (its lock), with A's share of
        /// the IPI `net_rps_send_ipi` sends at the end of the softirq.
        RpsEnqueue => "net_rx_action;__napi_poll;napi_complete_done;netif_receive_skb_list_internal;enqueue_to_backlog",
        /// RFS on B: the IPI that schedules its backlog (`rps_trigger_softirq`).
        RpsIpi => "sysvec_call_function_single;__flush_smp_call_function_queue;rps_trigger_softirq",
        /// RFS on B: the TCP receive from its backlog, and the reader's wakeup on the same CPU.
        TcpRcvBacklog => tcp_backlog!(""),
        TcpWakeupBacklog => tcp_backlog!(";tcp_data_ready;sock_def_readable;__wake_up_sync_key;try_to_wake_up"),
        UdpRecvSyscall => udp_recv!(""),
        UdpCopyToUser => udp_recv!(";skb_copy_datagram_iovec;copy_user_generic_string"),
        TcpRecvSyscall => tcp_recv!(""),
        TcpCopyToUser => tcp_recv!(";skb_copy_datagram_iter;_copy_to_iter;copy_user_enhanced_fast_string"),
        /// The reader's own work per datagram, in user space.
        App => "[user]",
        /// The reader links the skb onto the allocating CPU's defer list (its lock and line).
        DeferHandoff => "skb_attempt_defer_free",
        /// ... and kicks that CPU when the list is long.
        DeferKick => "skb_attempt_defer_free;smp_call_function_single_async",
        /// The kicked CPU takes the IPI and raises its softirq.
        DeferIpi => "sysvec_call_function_single;__flush_smp_call_function_queue;trigger_rx_softirq",
        /// net_rx_action takes the defer list (its lock and line); the frees follow.
        DeferFlush => "net_rx_action;skb_defer_free_flush",
        Idle => "cpu_startup_entry;do_idle",
    }
}
