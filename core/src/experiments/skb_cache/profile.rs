//! The 2019 server of seed 004 as data: every constant with its unit, its source or range, and
//! whether `skblab calibrate skb-cache` fits it.
//!
//! Eric Dumazet's tcp_rr numbers (8 → 9 Mpps) come from "servers with large number of cores",
//! a host with 112 hyperthreads. Seed 000 (same author, same months) ran on "56 x86 cores";
//! we assume the same machine: the machine constants (clock, cache-line transfers, SMT, page
//! list work) are [`SERVER_2019`]'s, fitted by `skblab calibrate high-order-alloc`, and are
//! not fitted again here. This lesson fits three per-request costs only.

use crate::sim::machine::{MachineProfile, SERVER_2019};
use crate::sim::slub::{SlubCosts, SERVER_2019_SLUB};
use serde::Serialize;

/// Per-request work of tcp_rr and the SLUB constants of the server.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RrProfile {
    pub name: &'static str,
    /// Softirq work per incoming request: NIC poll and descriptor, GRO, ip_rcv, tcp_v4_rcv,
    /// tcp_ack of the previous response, socket enqueue. FITTED.
    pub bh_cycles: u64,
    /// Share of `bh_cycles` spent in the driver (napi poll, skb build, GRO) before RPS could
    /// move the rest to another CPU. ASSUMPTION: 30 %.
    pub driver_pct: u64,
    /// Process work per transaction on the application CPU: epoll_wait, recvmsg and sendmsg
    /// syscalls (entry/exit with 2019 mitigations), tcp_recvmsg, tcp_sendmsg,
    /// tcp_write_xmit, IP output, driver xmit and the TX completion. FITTED.
    pub app_cycles: u64,
    /// sk_buff bookkeeping beside the allocator (__alloc_skb init, skb_release_head_state),
    /// half at allocation, half at free. ASSUMPTION (the same value as cross-cpu-free).
    pub skb_cycles: u64,
    /// Enqueue on the target CPU's backlog and its share of the RPS IPI, per packet, on the
    /// CPU that received it. ASSUMPTION.
    pub rps_cycles: u64,
    /// Socket cache lines both the softirq and the process write per request (sk_lock,
    /// receive queue, rcv_nxt/copied_seq, write queue and ACK state). ASSUMPTION: 4.
    pub sock_lines: u64,
    /// sk_buff lines a free or a reuse writes (users, the head fields skb_release clears, the
    /// shinfo dataref line). ASSUMPTION: 3.
    pub skb_lines: u64,
    /// From a response leaving the server to the client's next request arriving: wire both
    /// ways plus the client's own stack. ASSUMPTION: 25 µs.
    pub client_turnaround_ns: u64,
    /// NIC link rate, Mbit/s. ASSUMPTION: 100 Gbit/s (a 2019 server NIC; the post does not say).
    pub link_mbps: u64,
    pub slub: SlubCosts,
}

/// The 2019 tcp_rr server (seed 004) on seed 000's machine.
pub const SERVER_2019_RR: RrProfile = RrProfile {
    name: "2x28-core x86 server, 112 threads (seed 004, machine of seed 000)",
    bh_cycles: 17_150,
    driver_pct: 30,
    app_cycles: 24_969,
    skb_cycles: 400,
    rps_cycles: 600,
    sock_lines: 4,
    skb_lines: 3,
    client_turnaround_ns: 25_000,
    link_mbps: 100_000,
    // __slab_free (`slow_cycles`) is refitted by `skblab calibrate skb-cache`.
    slub: SERVER_2019_SLUB,
};

impl RrProfile {
    /// The machine: seed 000's constants on `sockets` × `cores` cores, with or without SMT.
    pub fn machine(&self, sockets: u32, cores: u32, smt: bool) -> MachineProfile {
        MachineProfile {
            name: self.name,
            sockets,
            cores_per_socket: cores,
            threads_per_core: if smt { 2 } else { 1 },
            ..SERVER_2019
        }
    }
}
