//! The two machine profiles of this lesson, as data: every constant with its unit, its
//! source or range, and whether `skblab calibrate cross-cpu-free` fits it.
//!
//! The 2011 machines of seed 001 were Xen PV guests (Ian Campbell worked on Xen's netfront
//! at Citrix; the post runs iperf between two hosts of a lab network). The post does not say
//! which CPU, how many vCPUs, or which link; what we assume is marked ASSUMPTION and listed
//! in docs/cross-cpu-free.md.

use crate::sim::machine::{MachineProfile, SERVER_2019};
use crate::sim::slub::SlubCosts;
use serde::Serialize;

/// Per-packet work and the SLUB and hardware constants of one machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HostProfile {
    pub name: &'static str,
    /// Core clock. ASSUMPTION (2011): a Westmere-class Xeon at 2.93 GHz.
    pub cpu_mhz: u64,
    /// A send or receive syscall with its protocol work: entry/exit, socket lookup,
    /// udp_sendmsg → ip_make_skb → dev_queue_xmit, or udp_recvmsg → skb_recv_datagram.
    pub syscall_cycles: u64,
    /// Protocol receive in softirq: netif_receive_skb → ip_rcv → udp_rcv → sock_queue_rcv_skb.
    pub stack_rx_cycles: u64,
    /// sk_buff bookkeeping apart from the allocator: __alloc_skb's init and the shinfo memset,
    /// skb_release_head_state / skb_release_data (half at allocation, half at free).
    pub skb_cycles: u64,
    /// copy_from_user / copy_to_user, bytes per 1000 cycles.
    pub copy_bytes_per_kcycle: u64,
    /// try_to_wake_up of a sleeping reader (with the reschedule IPI), charged to the waker.
    pub wakeup_cycles: u64,
    /// From a wakeup to the woken reader running on its (idle) CPU. ASSUMPTION: 10 µs for a
    /// 2011 Xen guest (an idle vCPU is blocked in the hypervisor and must be scheduled again),
    /// 3 µs on bare metal (IPI + leaving a shallow idle state).
    pub wake_latency_ns: u64,
    /// Per-packet hypervisor and netfront cost of a transmit: grant, ring slot, the event
    /// channel notify hypercall, tx_buf_gc. FITTED (udp-iperf).
    pub xen_tx_ns: u64,
    /// Receive-side netfront cost per packet, in percent of `xen_tx_ns`. ASSUMPTION: 50 %
    /// (netback grant-copies into pages the guest posted in advance and notifies once per
    /// batch, so the guest does less per packet than on transmit).
    pub xen_rx_pct: u64,
    /// Link rate in Mbit/s (ASSUMPTION for 2011: 1 GbE; 100 Gbit/s for tcp-100g).
    pub link_mbps: u64,
    /// One-way time from the end of transmission to the receiver's NIC (switch, dom0).
    pub wire_latency_ns: u64,
    /// Transmit ring slots (NET_TX_RING_SIZE = 256 for netfront's one-page ring).
    pub tx_ring: u32,
    pub slub: SlubCosts,
    /// Cache-line transfer between two cores of the socket.
    pub line_ns: u64,
}

/// The 2011 Xen guests of seed 001.
pub const XEN_GUEST_2011: HostProfile = HostProfile {
    name: "Xen PV guest, 2011 (seed 001; CPU and link assumed)",
    cpu_mhz: 2933,
    syscall_cycles: 2400,
    stack_rx_cycles: 1500,
    skb_cycles: 400,
    copy_bytes_per_kcycle: 4000,
    wakeup_cycles: 1500,
    wake_latency_ns: 10_000,
    xen_tx_ns: 3275,
    xen_rx_pct: 50,
    link_mbps: 1000,
    wire_latency_ns: 20_000,
    tx_ring: 256,
    slub: SlubCosts {
        fast_cycles: 80,
        slow_cycles: 150,
        list_cycles: 80,
        init_object_cycles: 30,
        page_op_cycles: 100,
        buddy_cycles: 40,
    },
    line_ns: 40,
};

/// The 100 Gbit/s receiver of the tcp-100g workload (a 2022-class server, 6.x kernel). Not
/// fitted: no seed table to fit it to; every constant is a sourced or assumed value.
pub const SERVER_100G: HostProfile = HostProfile {
    name: "100 Gbit/s server, 2022 (tcp-100g; not fitted)",
    cpu_mhz: 3000,
    syscall_cycles: 1500,
    stack_rx_cycles: 2500,
    skb_cycles: 300,
    copy_bytes_per_kcycle: 6000,
    wakeup_cycles: 2000,
    wake_latency_ns: 3_000,
    xen_tx_ns: 0,
    xen_rx_pct: 0,
    link_mbps: 100_000,
    wire_latency_ns: 5_000,
    tx_ring: 1024,
    slub: SlubCosts {
        fast_cycles: 40,
        slow_cycles: 150,
        list_cycles: 80,
        init_object_cycles: 30,
        page_op_cycles: 80,
        buddy_cycles: 40,
    },
    line_ns: 70,
};

impl HostProfile {
    /// The sim kernel's machine for this host: one socket of `cpus` cores, no turbo, no SMT,
    /// line costs of this profile.
    pub fn machine(&self, cpus: u32) -> MachineProfile {
        MachineProfile {
            name: self.name,
            sockets: 1,
            cores_per_socket: cpus.max(1),
            threads_per_core: 1,
            turbo_max_mhz: self.cpu_mhz,
            turbo_all_core_mhz: self.cpu_mhz,
            line_same_socket_ns: self.line_ns,
            line_cross_socket_ns: self.line_ns * 2,
            line_same_core_ns: self.line_ns / 4,
            line_llc_ns: self.line_ns / 3,
            buddy_step_cycles: self.slub.buddy_cycles,
            page_op_cycles: self.slub.page_op_cycles,
            wakeup_cycles: self.wakeup_cycles,
            ..SERVER_2019
        }
    }

    /// Cycles to ns at this profile's clock.
    pub fn ns(&self, cycles: u64) -> u64 {
        crate::sim::machine::cycles_to_ns(cycles, self.cpu_mhz)
    }

    /// Cycles of copying `bytes`.
    pub fn copy_cycles(&self, bytes: u64) -> u64 {
        bytes * 1000 / self.copy_bytes_per_kcycle.max(1)
    }
}
