//! The three machines of seed 002 as data: one [`ForwardingBox`] value each, run by the same
//! world. A box is a CPU ([`MachineProfile`]: topology, clock, cache-line costs, buddy and
//! per-CPU-list work) plus the per-packet work of its network stack and driver.
//!
//! What is known and what is assumed (docs/page-frag-free.md has the sources and ranges):
//! - **router** — Paweł Staszewski's 2018 Linux router (reported by Aaron Lu and Jesper
//!   Dangaard Brouer in seed 002): mlx5 100 Gbit NICs, RX page recycling ineffective, the perf
//!   call graph of the seed. Assumed: two Skylake-SP sockets of 14 cores with Hyper-Threading
//!   (56 logical CPUs, e.g. Xeon Gold 6132 at 2.6 GHz), one RX queue per logical CPU, and the
//!   TX-completion interrupts of the egress NIC on the other socket (two NICs, each on its own
//!   socket), so a page allocated on one socket is freed on the other.
//! - **x86-bench** — Jesper's micro-benchmark (+7 %, "lock contention is gone"). Assumed: a
//!   pktgen-style 64-byte forwarding test through a single-socket host of his testlab
//!   (6 cores at 3.6 GHz, no Hyper-Threading, mlx5 100 Gbit, TX completion on the receiving
//!   CPU). Why this and not a one-CPU alloc/free loop: contention can only go away if several
//!   CPUs took the lock at once.
//! - **cortex-a53** — Ilias Apalodimas's test (~+11 %, `__free_pages_ok` gone from perf top):
//!   a 1 Gbit interface, 64-byte packets, Cortex-A53. Assumed: 4 in-order cores at 1.2 GHz, a
//!   single-queue NIC (one CPU does RX and TX completion), no contention: the gain is the
//!   buddy free path's own cost.
//!
//! Caches: the world owns a [`crate::sim::cache::Caches`] sized from each box's L2 and L3 (spec
//! sheets), as the SLUB worlds do. Forwarding streams no data through the cores' caches (the
//! NIC writes packets by DMA, the stack reads a few header lines), so nothing advances the fill
//! counts and a `struct page` line stays with its last writer: a CPU that touches it after
//! another pays the transfer by distance (`line_same_socket_ns`, `line_cross_socket_ns`).
//! Before the engine's capacity-based caches, a line aged out to the L3 after a fixed 60 µs
//! (`l2_residency_ns`); a forwarded page is freed a few µs after its allocation, so that age
//! rarely applied. Model assumption.
//!
//! Fitted constants (by `calibrate`, at most 8 per box) are marked "Fitted" below; the others
//! say where their value comes from.

use crate::sim::machine::MachineProfile;
use serde::Serialize;

crate::choice_enum! {
    /// Which machine a run simulates.
    pub enum MachineKind {
        /// The 2018 x86 router of the report (2 sockets, mlx5 100 Gbit).
        Router = "router",
        /// The x86 micro-benchmark host (assumed pktgen forwarding, 6 cores).
        X86Bench = "x86-bench",
        /// Cortex-A53, 4 cores at 1.2 GHz, 1 Gbit.
        CortexA53 = "cortex-a53",
    }
}

crate::choice_enum! {
    /// Where the TX completions of a packet received on CPU c are polled.
    pub enum TxIrq {
        /// On c itself: XPS picks c's TX queue, whose completion interrupt is c's.
        Same = "same",
        /// On the CPU half the machine away (the other socket on two sockets): the egress
        /// NIC's interrupts are bound to other CPUs, so alloc and free run on different CPUs.
        Remote = "remote",
    }
}

/// A forwarding box: the CPU and the per-packet work of its stack and driver. Cycles are at
/// the CPU's clock; the lock, list and cache-line mechanics come from `crate::sim`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ForwardingBox {
    pub kind: MachineKind,
    pub name: &'static str,
    /// Topology, clock, cache-line latencies, `buddy_step_cycles` (work per buddy block moved
    /// under zone->lock) and `page_op_cycles` (one per-CPU list add or remove). Its TCP fields
    /// are unused by this world (0).
    pub cpu: MachineProfile,
    /// Defaults of the run's knobs on this box.
    pub cores: u32,
    pub smt: bool,
    pub rx_queues: u32,
    pub tx_irq: TxIrq,
    pub line_gbps: u32,
    pub packet_bytes: u32,
    /// RX, routing and transmit of one packet (driver RX, GRO, ip_forward, neighbour,
    /// qdisc, driver xmit), without the page allocation.
    pub rx_pkt_cycles: u64,
    /// Per-packet TX completion in the driver (`mlx5e_poll_tx_cq`: CQE, DMA unmap).
    pub tx_cq_cycles: u64,
    /// `napi_consume_skb` itself: the sk_buff back to the NAPI skb cache.
    pub napi_consume_cycles: u64,
    /// `skb_release_data` itself (shinfo, frag walk, the head).
    pub release_data_cycles: u64,
    /// `page_frag_free` itself (virt_to_head_page, the refcount atomic); the miss on a
    /// `struct page` another CPU wrote is added by the cache-line model.
    pub page_frag_free_cycles: u64,
    /// `__free_pages_ok` outside the lock: free_pages_prepare, IRQ save/restore, the
    /// pageblock's migrate type.
    pub free_pages_ok_cycles: u64,
    /// Taking a page from the driver's own recycle cache (`mlx5e_rx_cache_get`).
    pub rx_cache_cycles: u64,
}

const fn cpu(name: &'static str, sockets: u32, cores: u32, threads: u32, mhz: u64) -> MachineProfile {
    MachineProfile {
        name,
        // Placeholders until the boxes are built from the catalogue (issue #22).
        family: crate::sim::catalogue::FamilyId::SkylakeSp,
        era: crate::sim::catalogue::Era::Linux2018,
        sockets,
        cores_per_socket: cores,
        threads_per_core: threads,
        turbo_max_mhz: mhz,
        turbo_all_core_mhz: mhz,
        line_same_socket_ns: 0,
        line_cross_socket_ns: 0,
        line_same_core_ns: 0,
        line_llc_ns: 0,
        dram_ns: 0,
        dram_remote_ns: 0,
        l2_bytes: 0,
        l3_bytes_per_core: 0,
        copy_mlp: 1,
        copy_bytes_per_kcycle: 0,
        syscall_cycles: 0,
        skb_tx_cycles: 0,
        skb_rx_cycles: 0,
        frag_cycles: 0,
        page_op_cycles: 0,
        buddy_step_cycles: 0,
        wakeup_cycles: 0,
        smt_slowdown_pct: 100,
    }
}

/// The 2018 router of the report.
pub const ROUTER: ForwardingBox = ForwardingBox {
    kind: MachineKind::Router,
    name: "2018 x86 router: 2 x 14-core Skylake-SP, HT, mlx5 100 Gbit (assumed)",
    cpu: MachineProfile {
        // Fixed 2.6 GHz: routers commonly pin the base clock (assumption).
        // Same-socket transfer: Fitted (mesh, 50..150 ns); cross-socket: UPI, literature.
        line_same_socket_ns: 68,
        line_cross_socket_ns: 180,
        line_same_core_ns: 8,
        line_llc_ns: 22,
        // Skylake-SP spec sheet: 1 MiB L2 per core, 1.375 MiB L3 per core. Nothing in this
        // world streams data through the cores (the NIC's DMA and the headers it reads are
        // not counted as traffic), so a struct page line stays with its last writer: see the
        // module doc.
        l2_bytes: 1 << 20,
        l3_bytes_per_core: 1408 << 10,
        // Fitted: buddy work per block under zone->lock (list add/del, flags), 10..80 cycles.
        buddy_step_cycles: 39,
        // One per-CPU list op: the seed-000 server's value (same core family).
        page_op_cycles: 105,
        // Two hardware threads of a core: 1.6x slower each (the seed-000 server's value).
        smt_slowdown_pct: 160,
        ..cpu("2x14-core Skylake-SP router", 2, 14, 2, 2600)
    },
    cores: 28,
    smt: true,
    rx_queues: 56,
    tx_irq: TxIrq::Remote,
    line_gbps: 100,
    // "Normal users traffic": an Internet mix averages several hundred bytes (assumption).
    packet_bytes: 800,
    rx_pkt_cycles: 23_268,
    tx_cq_cycles: 447,
    napi_consume_cycles: 595,
    release_data_cycles: 432,
    page_frag_free_cycles: 11,
    free_pages_ok_cycles: 183,
    rx_cache_cycles: 105,
};

/// Jesper Dangaard Brouer's micro-benchmark host (assumed, see the module doc).
pub const X86_BENCH: ForwardingBox = ForwardingBox {
    kind: MachineKind::X86Bench,
    name: "x86 micro-benchmark host: 6-core Broadwell at 3.6 GHz, no HT, mlx5 100 Gbit (assumed)",
    cpu: MachineProfile {
        line_same_socket_ns: 42,
        line_cross_socket_ns: 180,
        line_same_core_ns: 8,
        line_llc_ns: 18,
        // Broadwell spec sheet: 256 KiB L2 per core, 2.5 MiB L3 per core.
        l2_bytes: 256 << 10,
        l3_bytes_per_core: 2560 << 10,
        buddy_step_cycles: 30,
        page_op_cycles: 105,
        ..cpu("6-core Broadwell", 1, 6, 1, 3600)
    },
    cores: 6,
    smt: false,
    rx_queues: 6,
    tx_irq: TxIrq::Same,
    line_gbps: 100,
    packet_bytes: 64,
    rx_pkt_cycles: 9677,
    tx_cq_cycles: 300,
    napi_consume_cycles: 200,
    release_data_cycles: 150,
    page_frag_free_cycles: 60,
    free_pages_ok_cycles: 51,
    rx_cache_cycles: 105,
};

/// Ilias Apalodimas's Cortex-A53 box (assumed, see the module doc).
pub const CORTEX_A53: ForwardingBox = ForwardingBox {
    kind: MachineKind::CortexA53,
    name: "Cortex-A53: 4 cores at 1.2 GHz, 1 Gbit, single-queue NIC (assumed)",
    cpu: MachineProfile {
        line_same_socket_ns: 60,
        line_cross_socket_ns: 60,
        line_same_core_ns: 8,
        line_llc_ns: 30,
        // Cortex-A53: the cluster's shared L2 (512 KiB assumed, 128 KiB..2 MiB by SoC), no
        // L3; the model's per-core L2 only decides whether a line is still with its writer,
        // which without streaming traffic it always is.
        l2_bytes: 512 << 10,
        l3_bytes_per_core: 0,
        buddy_step_cycles: 40,
        page_op_cycles: 60,
        ..cpu("4-core Cortex-A53", 1, 4, 1, 1200)
    },
    cores: 4,
    smt: false,
    rx_queues: 1,
    tx_irq: TxIrq::Same,
    line_gbps: 1,
    packet_bytes: 64,
    rx_pkt_cycles: 1460,
    tx_cq_cycles: 150,
    napi_consume_cycles: 120,
    release_data_cycles: 80,
    page_frag_free_cycles: 40,
    free_pages_ok_cycles: 198,
    rx_cache_cycles: 60,
};

/// The box of `kind`.
pub fn machine(kind: MachineKind) -> &'static ForwardingBox {
    match kind {
        MachineKind::Router => &ROUTER,
        MachineKind::X86Bench => &X86_BENCH,
        MachineKind::CortexA53 => &CORTEX_A53,
    }
}
