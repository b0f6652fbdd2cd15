//! The two machines of this lesson, built from the machine catalogue ([`crate::sim::catalogue`]):
//! a core family for the hardware, a kernel era for the kernel's path costs, and the few
//! constants of the workload's own network (link rate, wire latency, ring size).
//!
//! The 2011 machines of seed 001 were Xen PV guests (Ian Campbell worked on Xen's netfront
//! at Citrix; the post runs iperf between two hosts of a lab network). The post does not say
//! which CPU, how many vCPUs, or which link: the catalogue's Westmere/Xen entry (an X5670
//! class core) is an ASSUMPTION about the CPU, 1 GbE one about the link; docs/cross-cpu-free.md
//! lists them. Nothing here is fitted to seed 001: its two numbers are a prediction. tcp-100g's
//! host is the catalogue's Skylake-SP with its 2019 kernel entry; its reader's CPU pays the
//! entry's TCP work per GRO skb from a NIC (`tcp_rx_gro_skb_cycles`, from a measured zero-copy
//! receive), not the per-segment costs seed 000's loopback fit gives the loopback worlds.

use crate::sim::catalogue::{
    Basis, Family, KernelCosts, Quantity, SKYLAKE_SP, SKYLAKE_SP_2019, WESTMERE_XEN, WESTMERE_XEN_2011,
};
use crate::sim::ddio::Ddio;
use crate::sim::machine::MachineProfile;
use crate::sim::slab_common::AllocatorCosts;
use crate::sim::slub::SlubCosts;
use serde::Serialize;

/// A host: its catalogue family and kernel era, and its network.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HostProfile {
    pub name: &'static str,
    pub family: Family,
    pub kernel: KernelCosts,
    /// Link rate in Mbit/s. Workload ASSUMPTION: 1 GbE for the 2011 lab (the 1200-byte run
    /// "basically identical" fits a wire-bound link); 100 Gbit/s for tcp-100g.
    pub link_mbps: u64,
    /// One-way time from the end of transmission to the receiver's NIC (switch, dom0 bridge).
    /// Workload ASSUMPTION: 20 µs (5 µs for tcp-100g); it sets only latency, not rate.
    pub wire_latency_ns: u64,
    /// Transmit ring slots (netfront's one-page ring: NET_TX_RING_SIZE = 256).
    pub tx_ring: u32,
    /// iperf 2's own user-space work per datagram (client: sequence number and timestamp into
    /// the datagram, ReportPacket; server: sequence and jitter bookkeeping). Workload
    /// ASSUMPTION: [`IPERF_USER_CYCLES`].
    pub iperf_user_cycles: u64,
    /// Syscalls iperf 2 makes per datagram on each side: write()/recvfrom() and gettimeofday().
    /// Workload ASSUMPTION: 2 — a 2011 PV guest's `xen` clocksource had no vsyscall read, so
    /// gettimeofday() entered the kernel (range 1..2: [`IPERF_SYSCALLS`]).
    pub iperf_syscalls: u64,
    /// Cores whose LLC the NIC's DMA writes go to (Intel DDIO, [`crate::sim::ddio`]); 0: the
    /// copy's source is not modelled, the copy runs at `copy_bytes_per_kcycle` alone (the
    /// 2011 Xen guests, whose netback copies into the guest's pages).
    pub llc_cores: u64,
}

/// The LLC ways the IIO may allocate into (DDIO's write-allocate).
pub const DDIO_WAYS: Quantity = Quantity {
    value: 2.0,
    min: 2.0,
    max: 4.0,
    unit: "ways",
    basis: Basis::Secondary,
    source: "IIO_LLC_WAYS (MSR 0xC8B) default 0x600, two ways, on Skylake-SP (Farshin et al., Reexamining Direct Cache Access, USENIX ATC 2020); tuning guides raise it",
};

/// Ways of Skylake-SP's LLC.
pub const LLC_WAYS: Quantity = Quantity {
    value: 11.0,
    min: 11.0,
    max: 11.0,
    unit: "ways",
    basis: Basis::Secondary,
    source: "1.375 MB 11-way L3 slice per core, non-inclusive (Anandtech 11550 p4, 2017)",
};

/// Cores of tcp-100g's receiving socket, which set its LLC's size.
pub const LLC_CORES_100G: Quantity = Quantity {
    value: 28.0,
    min: 14.0,
    max: 28.0,
    unit: "cores",
    basis: Basis::Assumed,
    source: "68822bdf76f1's post names no CPU: the family's parts run from the 14-core Gold 6132 to the 28-core Platinum 8176/8180, whose MLC latencies the family's entries are",
};

/// The share of `tcp_rx_gro_skb_cycles` in the softirq receive (ip_rcv .. tcp_queue_rcv, the
/// ACK); the rest is tcp_recvmsg's per-skb work. It decides only which CPU pays what without
/// RFS: with RFS both halves run on the reader's CPU.
pub const TCP_RX_SOFTIRQ_SHARE_PCT: Quantity = Quantity {
    value: 50.0,
    min: 30.0,
    max: 70.0,
    unit: "%",
    basis: Basis::Assumed,
    source: "the zero-copy receive's thread time (93ab6cc69162) does not separate them: tcp_v4_rcv's lookup, tcp_rcv_established, the queueing and the ACK against tcp_recvmsg's unlink, tcp_rcv_space_adjust and tcp_cleanup_rbuf, work of the same order: half, either way by up to 20 points",
};

/// iperf's user-space cycles per datagram: no figure found; a few hundred to a few thousand.
pub const IPERF_USER_CYCLES: Quantity = Quantity {
    value: 800.0,
    min: 300.0,
    max: 3000.0,
    unit: "cycles",
    basis: Basis::Assumed,
    source: "iperf 2 UDP loop: header fill, ReportPacket ring, per-datagram accounting; no measurement found",
};

/// Syscalls per datagram on each side (write or recvfrom, and gettimeofday).
pub const IPERF_SYSCALLS: Quantity = Quantity {
    value: 2.0,
    min: 1.0,
    max: 2.0,
    unit: "syscalls",
    basis: Basis::Assumed,
    source: "iperf 2 timestamps every datagram; PV guests got a vDSO clock only with pvclock (2016+)",
};

/// The 2011 Xen guests of seed 001.
pub const XEN_GUEST_2011: HostProfile = HostProfile {
    name: "Xen PV guest on Westmere-EP, 2011 (seed 001; CPU and link assumed)",
    family: WESTMERE_XEN,
    kernel: WESTMERE_XEN_2011,
    link_mbps: 1000,
    wire_latency_ns: 20_000,
    tx_ring: 256,
    iperf_user_cycles: IPERF_USER_CYCLES.int(),
    iperf_syscalls: IPERF_SYSCALLS.int(),
    llc_cores: 0,
};

/// The 100 Gbit/s receiver of tcp-100g: the test of Eric Dumazet's "net: generalize skb
/// freeing deferral to per-cpu lists" (68822bdf76f1, v5.19; netdev, 2022-04-22, Message-ID
/// 20220422201237.416238-1-eric.dumazet@gmail.com): "a pair of hosts with 100Gbit NIC, RFS
/// enabled", one TCP_STREAM flow, 49,685 → 73,076 Mbit/s. The post names no CPU: the
/// catalogue's Skylake-SP is an ASSUMPTION (the closest family of a 2022 server; Damato's
/// net-next measurements of January 2022 are on one), its 2019 kernel entry (5.x with the
/// mitigations) stands for 5.18. Every hardware and kernel-path value is the catalogue's.
pub const SERVER_100G: HostProfile = HostProfile {
    name: "100 Gbit/s RFS receiver, 2022 (tcp-100g, 68822bdf76f1's test; Skylake-SP assumed)",
    family: SKYLAKE_SP,
    kernel: SKYLAKE_SP_2019,
    link_mbps: 100_000,
    wire_latency_ns: 5_000,
    tx_ring: 1024,
    iperf_user_cycles: 0,
    iperf_syscalls: 1,
    llc_cores: LLC_CORES_100G.int(),
};

impl HostProfile {
    /// The sim kernel's machine for this host: one socket of `cpus` vCPUs, no SMT, every
    /// hardware and kernel-path field from the catalogue.
    pub fn machine(&self, cpus: u32) -> MachineProfile {
        MachineProfile::from_catalogue(self.name, &self.family, &self.kernel, 1, cpus.max(1), 1)
    }

    /// SLUB's costs in this era: fast and slow path from the catalogue's slub_* entries,
    /// list work as one lock round trip, a new slab's freelist at a fast path per object.
    pub fn slub(&self) -> SlubCosts {
        let k = &self.kernel;
        SlubCosts {
            shared: AllocatorCosts {
                init_object_cycles: k.slub_fast_cycles.int(),
                ..AllocatorCosts::from_catalogue(k)
            },
            list_cycles: k.spin_lock_cycles.int(),
        }
    }

    /// Core clock (a guest of 2011 runs at the base clock: the catalogue's all-core value).
    pub fn cpu_mhz(&self) -> u64 {
        self.family.turbo_all_core_mhz.int()
    }

    /// Cycles to ns at this profile's clock.
    pub fn ns(&self, cycles: u64) -> u64 {
        crate::sim::machine::cycles_to_ns(cycles, self.cpu_mhz())
    }

    /// TCP receive in softirq per GRO skb (ip_rcv .. tcp_queue_rcv, the ACK): its share
    /// ([`TCP_RX_SOFTIRQ_SHARE_PCT`]) of the era's TCP work per GRO skb from a NIC,
    /// `tcp_rx_gro_skb_cycles` (one GRO skb is one segment through tcp_v4_rcv).
    pub fn tcp_rx_skb_cycles(&self) -> u64 {
        (self.kernel.tcp_rx_gro_skb_cycles.value * TCP_RX_SOFTIRQ_SHARE_PCT.value / 100.0).round() as u64
    }

    /// tcp_recvmsg's work per GRO skb consumed (the unlink, tcp_rcv_space_adjust,
    /// tcp_cleanup_rbuf; the syscall, the copy and the frees apart): the rest of
    /// `tcp_rx_gro_skb_cycles`.
    pub fn tcp_recvmsg_skb_cycles(&self) -> u64 {
        self.kernel.tcp_rx_gro_skb_cycles.int().saturating_sub(self.tcp_rx_skb_cycles())
    }

    /// The DDIO ways of this host's LLC (`None`: not modelled): `DDIO_WAYS` of `LLC_WAYS` of
    /// an LLC of `l3_bytes_per_core` × `llc_cores`.
    pub fn ddio(&self) -> Option<Ddio> {
        if self.llc_cores == 0 {
            return None;
        }
        let llc = self.family.l3_bytes_per_core.int() * self.llc_cores;
        Some(Ddio::new(llc * DDIO_WAYS.int() / LLC_WAYS.int(), DDIO_WAYS.int() as u32))
    }

    /// Cycles of copying `bytes`.
    pub fn copy_cycles(&self, bytes: u64) -> u64 {
        bytes * 1000 / self.family.copy_bytes_per_kcycle.int().max(1)
    }
}
