//! The 2019 server of seed 004 as data: the machine and every kernel-path cost from the
//! catalogue ([`crate::sim::catalogue`]), and the few workload constants of tcp_rr. Nothing
//! here is fitted to seed 004: its two numbers (8 and 9 Mpps) are a prediction.
//!
//! Eric Dumazet's tcp_rr numbers come from "servers with large number of cores", a host with
//! 112 hyperthreads. Seed 000 (same author, same months) ran on "56 x86 cores"; we assume the
//! same machine: Skylake-SP, 2 × 28 cores with SMT, a 2019 kernel ([`SKYLAKE_SP`],
//! [`SKYLAKE_SP_2019`]). The per-request work is composed from the catalogue: the NIC driver's
//! receive and transmit per packet, the TCP per-skb receive and transmit halves of seed 000's
//! fit (`tcp_skb_cycles` split by `tcp_rx_share_pct`), tcp_recvmsg's per-skb work, one
//! syscall each for recvmsg and sendmsg, epoll_wait per batch and per event, the socket
//! timers' re-arms the kernel makes per transaction, context switches and wakeups, and SLAB or
//! SLUB ([`SlabCosts::from_catalogue`], [`SlubCosts::from_catalogue`]).

use crate::sim::catalogue::{Family, KernelCosts, SKYLAKE_SP, SKYLAKE_SP_2019};
use crate::sim::machine::MachineProfile;
use crate::sim::slab::SlabCosts;
use crate::sim::slub::SlubCosts;
use serde::Serialize;

crate::choice_enum! {
    /// Where a small receive head comes from (the `rx_head` parameter).
    pub enum RxHead {
        /// A piece of the receiving CPU's NAPI page fragment (`__napi_alloc_skb` →
        /// `page_frag_alloc` on `napi_alloc_cache`), as every head up to a page was from
        /// 3.19 to 5.10: freeing it is a `put_page` on the fragment's 32 KiB page.
        Frag = "frag",
        /// kmalloc (`__alloc_skb`), as heads up to `SKB_WITH_OVERHEAD(1024)` are since
        /// 3226b158e67c (Linux 5.11): freeing it is a slab free.
        Kmalloc = "kmalloc",
    }
}

crate::choice_enum! {
    /// What the head of a tcp_rr response's skb holds (the `tx_head` parameter).
    pub enum TxHead {
        /// Headers only (`sk_stream_alloc_skb(sk, 0, ...)`): a kmalloc-1024 head, the payload
        /// copied into the task's page frag, as since 472c2e07eef0 (Linux 5.2).
        Frag = "frag",
        /// The first skb of a write carries up to `SKB_WITH_OVERHEAD(2048 - MAX_TCP_HEADER)`
        /// bytes of payload in a 2 KiB kmalloc head (`select_size` / `linear_payload_sz`,
        /// 3613b3dbd1ad, Linux 4.9, to 472c2e07eef0's parent): the kernel of seed 004's
        /// 8 Mpps, before the tx cache's commit took the payload out of the head.
        Linear = "linear",
    }
}

crate::choice_enum! {
    /// The slab allocator a kernel was built with (the `allocator` parameter).
    pub enum Allocator {
        /// mm/slab.c: per-CPU arrays, shared arrays, alien caches ([`crate::sim::slab`]).
        Slab = "slab",
        /// mm/slub.c with per-CPU partial slabs ([`crate::sim::slub`], one per node).
        Slub = "slub",
    }
}

/// The server's catalogue entries and the workload constants of tcp_rr.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RrProfile {
    pub name: &'static str,
    /// The cores (line transfers, caches, clocks, SMT).
    pub family: Family,
    /// The kernel's path costs.
    pub kernel: KernelCosts,
    /// Socket cache lines both the softirq and the process write per request (sk_lock,
    /// receive queue, rcv_nxt/copied_seq, write queue and ACK state). ASSUMPTION: 4 (2-8).
    pub sock_lines: u64,
    /// Socket state lines only one side uses per request (the softirq: the receive-side
    /// fields of tcp_sock, the route and the inet hash entry; the process: the file, the epoll
    /// item, the send-side fields). ASSUMPTION: 8 per side (4-16): a 2019 tcp_sock is about
    /// 2 KB (32 lines), a request uses a fraction of it.
    pub sock_private_lines: u64,
    /// sk_buff lines a free or a reuse writes (users, the head fields skb_release clears, the
    /// shinfo dataref line). ASSUMPTION: 3.
    pub skb_lines: u64,
    /// epoll_wait's `maxevents` (neper's tcp_rr passes a fixed array). ASSUMPTION: 256.
    pub max_events: u64,
    /// `epoll_ctl(EPOLL_CTL_MOD)` calls the server makes per transaction. neper's tcp_rr
    /// server switches a flow's interest from EPOLLIN to EPOLLOUT once the request is read and
    /// back to EPOLLIN once the response is sent, level-triggered: two per transaction
    /// (google/neper `rr.c` `rr_server_state_0`/`_2` → `flow.c` `flow_mod`, 92e91f0 of
    /// 2019-07-25; the same two calls in `tcp_rr.c` of the 2016 initial commit b02eb2f).
    pub epoll_mods_per_request: u64,
    /// Socket-timer re-arms (`sk_reset_timer` → `mod_timer`) the softirq makes per request:
    /// the request's data, not ACKed at once in pingpong mode, schedules the delayed ACK
    /// (`__tcp_ack_snd_check` → `tcp_send_delayed_ack`); its ACK of the last response empties
    /// the retransmit queue, and `tcp_rearm_rto` then only clears `icsk_pending` (no timer
    /// call: `INET_CSK_CLEAR_TIMERS` is not defined). Counted from net/ipv4/tcp_input.c and
    /// include/net/inet_connection_sock.h, 4.19-5.4: 1.
    pub rx_timer_mods: u64,
    /// Socket-timer re-arms the response's send makes: `tcp_event_new_data_sent` re-arms the
    /// retransmit timer (`tcp_rearm_rto`, as nothing was in flight), then `tcp_write_xmit`
    /// arms the tail loss probe on the same timer (`tcp_schedule_loss_probe`, tcp_sack and
    /// tcp_early_retrans at their defaults); the delayed ACK the response carries only clears
    /// its flag (`tcp_event_ack_sent`). Counted from net/ipv4/tcp_output.c, 4.19-5.4: 2.
    pub tx_timer_mods: u64,
    /// From a response leaving the server to the client's next request arriving: wire both
    /// ways plus the client's own stack. ASSUMPTION: 25 µs.
    pub client_turnaround_ns: u64,
    /// NIC link rate, Mbit/s. ASSUMPTION: 100 Gbit/s (a 2019 server NIC; the post does not say).
    pub link_mbps: u64,
    /// The slab allocator of the server's kernel.
    pub allocator: Allocator,
    /// Where the kernel takes small receive heads from.
    pub rx_head: RxHead,
    /// What a response skb's head holds.
    pub tx_head: TxHead,
}

/// The 2019 tcp_rr server (seed 004) on seed 000's machine.
pub const SERVER_2019_RR: RrProfile = RrProfile {
    name: "2x28-core Skylake-SP server, 112 threads, 2019 kernel (seed 004, machine of seed 000)",
    family: SKYLAKE_SP,
    kernel: SKYLAKE_SP_2019,
    sock_lines: 4,
    sock_private_lines: 8,
    skb_lines: 3,
    max_events: 256,
    epoll_mods_per_request: 2,
    rx_timer_mods: 1,
    tx_timer_mods: 2,
    client_turnaround_ns: 25_000,
    link_mbps: 100_000,
    // Seed 004's own cover letter (bdaba8959e92's merge): "the asymetric alloc/free pattern
    // for which slab has to drain alien caches": the server ran SLAB.
    allocator: Allocator::Slab,
    // 5.2's __napi_alloc_skb carved every head up to a page from the NAPI page fragment.
    rx_head: RxHead::Frag,
    // 5.2 with the tx cache's commit: headers only, the payload in page frags.
    tx_head: TxHead::Frag,
};

impl RrProfile {
    /// The machine: the catalogue's family and era on `sockets` × `cores` cores, with or
    /// without SMT (seed 000's server at 2 × 28 with SMT).
    pub fn machine(&self, sockets: u32, cores: u32, smt: bool) -> MachineProfile {
        MachineProfile::from_catalogue(self.name, &self.family, &self.kernel, sockets, cores, if smt { 2 } else { 1 })
    }
    /// SLUB's costs on this kernel.
    pub fn slub(&self) -> SlubCosts {
        SlubCosts::from_catalogue(&self.kernel)
    }
    /// SLAB's costs on this kernel.
    pub fn slab(&self) -> SlabCosts {
        SlabCosts::from_catalogue(&self.kernel)
    }
    /// NIC driver receive per request (napi poll .. GRO), before RPS could move the rest.
    pub fn nic_rx_cycles(&self) -> u64 {
        self.kernel.nic_rx_pkt_cycles.int()
    }
    /// The TCP receive half of one skb: ip_rcv .. tcp_v4_rcv, tcp_ack of the previous
    /// response, queueing on the socket (`tcp_skb_cycles` × `tcp_rx_share_pct`).
    pub fn tcp_rx_cycles(&self) -> u64 {
        let k = &self.kernel;
        (k.tcp_skb_cycles.value * k.tcp_rx_share_pct.value / 100.0).round() as u64
    }
    /// The TCP transmit half: tcp_sendmsg's per-skb work, tcp_write_xmit, IP output.
    pub fn tcp_tx_cycles(&self) -> u64 {
        let k = &self.kernel;
        (k.tcp_skb_cycles.value * (100.0 - k.tcp_rx_share_pct.value) / 100.0).round() as u64
    }
    /// The process's fixed work per transaction: recvmsg and sendmsg syscalls, tcp_recvmsg's
    /// per-skb work, the TCP transmit half, the NIC's transmit and completion, one epoll event.
    pub fn app_cycles(&self) -> u64 {
        let k = &self.kernel;
        2 * k.syscall_cycles.int()
            + k.tcp_recvmsg_skb_cycles.int()
            + self.tcp_tx_cycles()
            + k.nic_tx_pkt_cycles.int()
            + k.epoll_event_cycles.int()
    }
    /// The softirq's socket-timer work per request: the delayed ACK's re-arm.
    pub fn rx_timer_cycles(&self) -> u64 {
        self.rx_timer_mods * self.kernel.tcp_timer_rearm_cycles.int()
    }
    /// The response's socket-timer work: the retransmit timer's re-arm and the loss probe's.
    pub fn tx_timer_cycles(&self) -> u64 {
        self.tx_timer_mods * self.kernel.tcp_timer_rearm_cycles.int()
    }
    /// The server's `epoll_ctl(EPOLL_CTL_MOD)` work per transaction and the EPOLLOUT event the
    /// first of them makes ready. In 5.2 (fs/eventpoll.c) the syscall takes `ep->mtx`, finds the
    /// item in the epoll's tree and calls `ep_modify`, which polls the socket (`ep_item_poll` →
    /// `tcp_poll`) and, as a socket with send space is writable, puts the item on the ready list
    /// under `ep->lock`; the next `epoll_wait` reports it (polling the socket again). ASSUMPTION
    /// (ours): a call costs `syscall_cycles` (entry, exit, fd lookups, the mutex) plus
    /// `epoll_event_cycles` (one socket poll and the list moves), and the EPOLLOUT event one more
    /// `epoll_event_cycles`; the response is sent at once rather than from that later event.
    pub fn epoll_ctl_cycles(&self) -> u64 {
        let k = &self.kernel;
        let mods = self.epoll_mods_per_request;
        mods * (k.syscall_cycles.int() + k.epoll_event_cycles.int()) + mods.min(1) * k.epoll_event_cycles.int()
    }
}
