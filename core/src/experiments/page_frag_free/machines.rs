//! The three machines of seed 002 as data: one [`ForwardingBox`] value each, run by the same
//! world. A box is a CPU ([`MachineProfile`], built by `MachineProfile::from_catalogue` from its
//! core family and kernel era in [`crate::sim::catalogue`]: topology, clock, cache-line costs,
//! buddy and per-CPU-list work) plus the workload: the per-packet work of its network stack
//! and driver and the load it carries. No hardware or kernel-path constant lives here.
//!
//! What is known and what is assumed (docs/page-frag-free.md has the sources and ranges):
//! - **router** — Paweł Staszewski's 2018 Linux router (reported by Aaron Lu and Jesper
//!   Dangaard Brouer in seed 002): mlx5 100 Gbit NICs, RX page recycling ineffective, the perf
//!   call graph of the seed, "the page allocator cannot keep up at these speeds". Assumed:
//!   two Skylake-SP sockets of 14 cores with Hyper-Threading (56 logical CPUs), one RX queue
//!   per logical CPU, TX completions on the other socket (two NICs, one per socket), a full
//!   BGP table, 800-byte average packets. Its thread's traffic figures were not found in the
//!   stored archives: the carried load is the one constant fitted to the seed ([`ROUTER_LOAD`]).
//! - **x86-bench** — Jesper's micro-benchmark (+7 %, "lock contention is gone") on his testlab
//!   host, the Xeon E5-1650 v4 (Broadwell-EP, 6 cores) with ConnectX-5 of the XDP paper. Assumed:
//!   64-byte IP forwarding over 6 cores without Hyper-Threading, TX completion on the receiving
//!   CPU, the generator flooding the link (his benchmarks measure the forwarded rate under a
//!   flood: TRex at `-m 100%` in xdp-paper bench04_fwd.org). The driver's page recycling is
//!   fitted to the paper's Linux-forwarding rates on this host before the fix ([`X86_RECYCLE`]).
//! - **cortex-a53** — Ilias Apalodimas's test (~+11 %, `__free_pages_ok` gone from perf top):
//!   a 1 Gbit interface (socionext netsec, single queue), 64-byte packets. Assumed: 4 cores of
//!   the catalogue's A53, one CPU doing RX and TX completion, no contention: the gain is the
//!   buddy free path's own cost.
//!
//! Caches: the world owns a [`crate::sim::cache::Caches`] sized from each box's L2 and L3 (the
//! catalogue), as the SLUB worlds do. Forwarding streams no data through the cores' caches (the
//! NIC writes packets by DMA, the stack reads a few header lines), so a `struct page` line stays
//! with its last writer: a CPU that touches it after another pays the transfer by distance.

use crate::sim::catalogue::{
    q, Basis, Quantity, BROADWELL_EP, BROADWELL_EP_2018, CORTEX_A53, CORTEX_A53_2018, E5_1650_V4, SKYLAKE_SP,
    SKYLAKE_SP_2018,
};
use crate::sim::machine::MachineProfile;
use serde::Serialize;

crate::choice_enum! {
    /// Which machine a run simulates.
    pub enum MachineKind {
        /// The 2018 x86 router of the report (2 sockets, mlx5 100 Gbit).
        Router = "router",
        /// Jesper's testlab host (E5-1650 v4, 6 cores, ConnectX-5), 64-byte forwarding flood.
        X86Bench = "x86-bench",
        /// Cortex-A53, single-queue 1 Gbit NIC.
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
    /// Topology, clock, cache-line latencies, `buddy_step_cycles` and `page_op_cycles` (one
    /// per-CPU list operation with its IRQ save/restore and migratetype lookup): the catalogue.
    pub cpu: MachineProfile,
    /// Defaults of the run's knobs on this box.
    pub cores: u32,
    pub smt: bool,
    pub rx_queues: u32,
    pub tx_irq: TxIrq,
    pub line_gbps: u32,
    pub packet_bytes: u32,
    /// The offered load, kpps (0: line rate for the frame size, a generator's flood).
    pub offered_kpps: u32,
    /// RX, routing and transmit of one packet (driver RX, GRO, ip_forward, FIB lookup,
    /// neighbour, qdisc, driver xmit), without the TX completion and page allocator work.
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
    /// Taking a page from the driver's own recycle cache (`mlx5e_rx_cache_get`).
    pub rx_cache_cycles: u64,
    /// Share of RX pages the driver recycles itself, % (the `recycle_pct` knob's default).
    pub recycle_pct: u32,
    /// Packets the driver places in one 4 KiB page ([`MLX5_PKTS_PER_PAGE`], [`NETSEC_PKTS_PER_PAGE`]).
    pub pkts_per_page: u32,
}

impl ForwardingBox {
    /// `__free_pages_ok` outside the lock: free_pages_prepare, IRQ save/restore and the
    /// pageblock's migratetype, the same work `free_unref_page` does around its list add, so
    /// one per-CPU-list operation's cycles (the catalogue's `pcp_op_cycles`, no own constant).
    pub fn free_pages_ok_cycles(&self) -> u64 {
        self.cpu.page_op_cycles
    }
}

/// Packets per 4 KiB page on mlx5 at a 1,500-byte MTU without an XDP program, the driver
/// of the router and of the x86 host (ConnectX-5). The legacy RQ cuts its pages into
/// fragments of `frag_stride` = `roundup_pow_of_two(SKB_DATA_ALIGN(headroom + hardware MTU) +
/// SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))`, 2,048 bytes, and `mlx5e_init_frags_partition`
/// gives consecutive ring entries the fragments of one page, marking the last `last_in_page`
/// (069d11465a80 "net/mlx5e: RX, Enhance legacy Receive Queue memory scheme", en_main.c);
/// `mlx5e_get_rx_frag` allocates the page only for the fragment at offset 0, every packet built
/// from a fragment takes a `page_ref_inc`, and `mlx5e_put_rx_frag` releases the driver's reference
/// at the last fragment (en_rx.c). The striding RQ's linear-SKB mode uses strides of the same size
/// (619a8f2a42f1 "net/mlx5e: Use linear SKB in Striding RQ"). Both commits are of 2018, in the
/// tree before 4.18 (inferred from the XDP paper's 4.18 pre-release running them; no tag listing
/// read); with an XDP program the fragment is a whole page. The frame size does not change it:
/// a 64-byte packet also takes a 2 KiB stride.
pub const MLX5_PKTS_PER_PAGE: u32 = 2;

/// Packets per page on the A53's NIC: one. Assumed, for the driver Ilias Apalodimas was
/// converting at the time (socionext netsec on page_pool: one page per descriptor, `desc_len =
/// PAGE_SIZE - NETSEC_RX_BUF_NON_DATA`, from the later netsec.c diffs read; commit not
/// identified). netsec in 4.20 (4acb20b46214 "net: socionext: different approach on DMA") took
/// 1,920-byte fragments from `napi_alloc_frag`, whose 32 KiB order-3 pages the fix does not
/// touch (only order-0 pages go to `free_unref_page`); a gain from the fix means order-0 pages,
/// which is what page_pool gives.
pub const NETSEC_PKTS_PER_PAGE: u32 = 1;

/// The modelled TX completion and allocator work of one packet on one CPU of the XDP paper's
/// mlx5 host (tx_cq + napi consume + release_data + page_frag_free, and a PCP alloc and a PCP
/// free at 104 cycles each per page of [`MLX5_PKTS_PER_PAGE`] packets): what its whole-path
/// forwarding cost includes besides [`ForwardingBox::rx_pkt_cycles`].
pub const TX_AND_ALLOC_CYCLES: f64 = 150.0 + 28.0 + 20.0 + 25.0 + 2.0 * 104.0 / MLX5_PKTS_PER_PAGE as f64;

/// The clock of the XDP paper's one forwarding core: the E5-1650 v4 with one busy core,
/// 3,804 MHz by the paper's own `perf stat` on CPU 0 (the catalogue's [`E5_1650_V4`]). Its
/// brand clock, 3.6 GHz, would undercount the cycles by 5 %.
pub const FWD_MHZ: f64 = E5_1650_V4.turbo_max_mhz.value;

/// Linux IP forwarding, whole path, one core of the E5-1650 v4 with ConnectX-5
/// (xdp-paper benchmarks/bench04_fwd.org, 2018): 1,739,672 pps with one route (2,187 cycles per
/// packet at [`FWD_MHZ`]), 1,373,550 pps with a full BGP table (2,769 cycles).
pub const FWD_SINGLE_ROUTE_CYCLES: f64 = FWD_MHZ * 1e6 / 1_739_672.0;
pub const FWD_FULL_TABLE_CYCLES: f64 = FWD_MHZ * 1e6 / 1_373_550.0;

/// The router's stack work per packet: the full-table cost less the modelled TX completion and
/// allocator work; the range runs from the single-route cost to 20 % above the full table.
pub const ROUTER_RX: Quantity = q(
    FWD_FULL_TABLE_CYCLES - TX_AND_ALLOC_CYCLES,
    FWD_SINGLE_ROUTE_CYCLES - TX_AND_ALLOC_CYCLES,
    1.2 * (FWD_FULL_TABLE_CYCLES - TX_AND_ALLOC_CYCLES),
    "cycles",
    Basis::Estimate,
    "xdp-paper bench04_fwd.org: Linux forwarding 1.37 Mpps/core with a full BGP table, E5-1650 v4 at its measured 3,804 MHz (2,769 cycles), less 327 cycles of modelled TX completion + PCP alloc/free (two packets per page)",
);
/// The x86 bench's (a benchmark routes one prefix): fitted jointly with [`X86_RECYCLE`] to the
/// XDP paper's six rates, the one-core rate fixing it exactly (`cargo run --release -p
/// skblab-core --example x86_recycle_fit`). The one-route cost less the work the model charges
/// besides depends on how that work splits between the recycled path and the allocator
/// before the fix, which is what the recycling says. Range: the one-route cost less 431
/// modelled cycles at per-CPU-list costs, to the full-table cost less the same.
pub const X86_RX: Quantity = q(
    1892.0,
    FWD_SINGLE_ROUTE_CYCLES - TX_AND_ALLOC_CYCLES,
    FWD_FULL_TABLE_CYCLES - TX_AND_ALLOC_CYCLES,
    "cycles",
    Basis::Fitted(&["xdp-fwd-x86"]),
    "fitted (xdp-fwd-x86) with recycle_pct: xdp-paper bench04_fwd.org, 1.74 Mpps on one core, 2,187 cycles at the measured 3,804 MHz, less the modelled work at 48 % recycling",
);
/// The A53's: no A53 forwarding figure was found; an in-order core at 1.5-3x the x86 cycles.
pub const A53_RX: Quantity = q(
    2.0 * X86_RX.min,
    1.5 * X86_RX.min,
    3.0 * X86_RX.min,
    "cycles",
    Basis::Assumed,
    "no A53 per-packet figure found: 2x the x86 single-route stack cycles (in-order, narrower core), 1.5-3x",
);
/// mlx5e_poll_tx_cq per packet (CQE read, DMA unmap without IOMMU).
pub const TX_CQ: Quantity = q(
    150.0,
    50.0,
    400.0,
    "cycles",
    Basis::Assumed,
    "no per-packet TX completion figure found: a CQE line and an unmap, 50-400 cycles",
);
/// napi_consume_skb + skb_release_data self: Brouer's whole kfree_skb path 18.3 ns at ~4 GHz
/// (73 cycles) less page_frag_free's 6.2 ns (25 cycles): 48 cycles, split 28 / 20 (assumed).
pub const NAPI_CONSUME: Quantity = q(28.0, 15.0, 60.0, "cycles", Basis::Estimate, "kfree_skb path 18.3 ns less page_frag_free 6.2 ns at 8.17 Mpps, i7-6700K, mlx5 (prototype-kernel xdp25_eval_generic_xdp_tx.rst, 2017): 48 cycles, 28 of them napi_consume_skb (split assumed)");
pub const RELEASE_DATA: Quantity = q(
    20.0,
    10.0,
    40.0,
    "cycles",
    Basis::Estimate,
    "as napi_consume_skb: the other 20 of the 48 cycles (split assumed)",
);
/// page_frag_free self on a line the CPU owns: 6.2 ns in Brouer's profile at ~4 GHz.
pub const PAGE_FRAG_FREE: Quantity = q(25.0, 20.0, 60.0, "cycles", Basis::Measured, "page_frag_free 6.2 ns per packet in a perf profile at 8.17 Mpps, i7-6700K 4.0-4.2 GHz, mlx5 (xdp25_eval_generic_xdp_tx.rst)");
/// page_pool direct recycling: 19 cycles (E5-1650 v4), 17 (Gold 6140).
pub const RX_CACHE: Quantity = q(
    19.0,
    17.0,
    24.0,
    "cycles",
    Basis::Measured,
    "page_pool direct recycle 19 cycles E5-1650 v4 (<3c8e4f86-87e2-470d-84d8-86c70b3e2fcc@kernel.org>), 17 Gold 6140",
);
/// The router's carried load, kpps: fitted to the seed's perf shares with no more than 1 %
/// drop (the thread's own traffic figures were not found). Range: the 28 cores' forwarding
/// capacity at the sourced per-packet cost bounds it from above; a loaded 100 Gbit router of
/// 800-byte packets carries at least a few Mpps.
pub const ROUTER_LOAD: Quantity = q(6030.0, 1500.0, 15_000.0, "kpps", Basis::Fitted(&["seed002-router"]), "fitted (seed002-router) with drop <= 1 %: Paweł Staszewski's thread (spinics netdev msg531362) was not in the stored archives");
/// The x86 host's driver recycling, % of RX pages that never reach the page allocator: fitted
/// to the XDP paper's six Linux-forwarding rates on 1–6 cores of this host *before* the fix
/// (table `xdp-fwd-x86`; `cargo run --release -p skblab-core --example x86_recycle_fit`
/// fits it with [`X86_RX`]). Without recycling the model caps six cores at 4.78 Mpps where the
/// paper measured 9.29, scaling almost linearly: the real box met little zone->lock contention. Jesper's reply to the
/// fix (Message-ID `20181105105525.1f78c661@redhat.com`) says the contention "have been hiding
/// behind the driver level recycle tricks for micro-benchmarking". Range: 0 (no recycling) to
/// 100 (the allocator never sees a page).
pub const X86_RECYCLE: Quantity = q(48.0, 0.0, 100.0, "%", Basis::Fitted(&["xdp-fwd-x86"]), "fitted (xdp-fwd-x86): xdp-paper benchmarks/bench04_fwd.org, Linux forwarding, single route, 1-6 cores, kernel 4.18 pre-release (before 65895b67ad27): 1.74 / 3.37 / 4.98 / 6.49 / 7.85 / 9.29 Mpps");

/// The 2018 router of the report.
pub const ROUTER: ForwardingBox = ForwardingBox {
    kind: MachineKind::Router,
    name: "2018 x86 router: 2 x 14-core Skylake-SP, HT, mlx5 100 Gbit (assumed)",
    cpu: MachineProfile::from_catalogue("2x14-core Skylake-SP router", &SKYLAKE_SP, &SKYLAKE_SP_2018, 2, 14, 2),
    cores: 28,
    smt: true,
    rx_queues: 56,
    tx_irq: TxIrq::Remote,
    line_gbps: 100,
    // "Normal users traffic": an Internet mix averages several hundred bytes (assumption).
    packet_bytes: 800,
    offered_kpps: ROUTER_LOAD.int() as u32,
    rx_pkt_cycles: ROUTER_RX.int(),
    tx_cq_cycles: TX_CQ.int(),
    napi_consume_cycles: NAPI_CONSUME.int(),
    release_data_cycles: RELEASE_DATA.int(),
    page_frag_free_cycles: PAGE_FRAG_FREE.int(),
    rx_cache_cycles: RX_CACHE.int(),
    recycle_pct: 0,
    pkts_per_page: MLX5_PKTS_PER_PAGE,
};

/// Jesper Dangaard Brouer's testlab host (see the module doc).
pub const X86_BENCH: ForwardingBox = ForwardingBox {
    kind: MachineKind::X86Bench,
    name: "x86 micro-benchmark host: Xeon E5-1650 v4 (Broadwell-EP), 6 cores, no HT, mlx5 100 Gbit (assumed)",
    cpu: MachineProfile::from_catalogue("6-core Broadwell-EP", &BROADWELL_EP, &BROADWELL_EP_2018, 1, 6, 1)
        .on_part(&E5_1650_V4),
    cores: 6,
    smt: false,
    rx_queues: 6,
    tx_irq: TxIrq::Same,
    line_gbps: 100,
    packet_bytes: 64,
    offered_kpps: 0,
    rx_pkt_cycles: X86_RX.int(),
    tx_cq_cycles: TX_CQ.int(),
    napi_consume_cycles: NAPI_CONSUME.int(),
    release_data_cycles: RELEASE_DATA.int(),
    page_frag_free_cycles: PAGE_FRAG_FREE.int(),
    rx_cache_cycles: RX_CACHE.int(),
    recycle_pct: X86_RECYCLE.int() as u32,
    pkts_per_page: MLX5_PKTS_PER_PAGE,
};

/// Ilias Apalodimas's Cortex-A53 box (see the module doc).
pub const CORTEX_A53_BOX: ForwardingBox = ForwardingBox {
    kind: MachineKind::CortexA53,
    name: "Cortex-A53: 4 cores, 1 Gbit, single-queue NIC (assumed)",
    cpu: MachineProfile::from_catalogue("4-core Cortex-A53", &CORTEX_A53, &CORTEX_A53_2018, 1, 4, 1),
    cores: 4,
    smt: false,
    rx_queues: 1,
    tx_irq: TxIrq::Same,
    line_gbps: 1,
    packet_bytes: 64,
    offered_kpps: 0,
    rx_pkt_cycles: A53_RX.int(),
    tx_cq_cycles: TX_CQ.int(),
    napi_consume_cycles: NAPI_CONSUME.int(),
    release_data_cycles: RELEASE_DATA.int(),
    page_frag_free_cycles: PAGE_FRAG_FREE.int(),
    rx_cache_cycles: RX_CACHE.int(),
    recycle_pct: 0,
    pkts_per_page: NETSEC_PKTS_PER_PAGE,
};

/// The box of `kind`.
pub fn machine(kind: MachineKind) -> &'static ForwardingBox {
    match kind {
        MachineKind::Router => &ROUTER,
        MachineKind::X86Bench => &X86_BENCH,
        MachineKind::CortexA53 => &CORTEX_A53_BOX,
    }
}

/// The workload quantities of `kind`'s box, by field name (docs and the bands walk these).
pub fn workload(kind: MachineKind) -> Vec<(&'static str, Quantity)> {
    let rx = match kind {
        MachineKind::Router => ROUTER_RX,
        MachineKind::X86Bench => X86_RX,
        MachineKind::CortexA53 => A53_RX,
    };
    let mut out = vec![
        ("rx_pkt_cycles", rx),
        ("tx_cq_cycles", TX_CQ),
        ("napi_consume_cycles", NAPI_CONSUME),
        ("release_data_cycles", RELEASE_DATA),
        ("page_frag_free_cycles", PAGE_FRAG_FREE),
    ];
    match kind {
        MachineKind::Router => out.push(("offered_kpps", ROUTER_LOAD)),
        MachineKind::X86Bench => out.push(("recycle_pct", X86_RECYCLE)),
        MachineKind::CortexA53 => {}
    }
    out
}
