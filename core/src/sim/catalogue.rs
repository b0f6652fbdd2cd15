//! The machine catalogue: one entry per **core family** (the hardware) and one per **kernel
//! era × family** (the kernel's own path costs), each physical quantity with its unit, a value,
//! the range its sources allow and where it comes from. Every experiment builds its machines
//! from here ([`profile`]); no experiment keeps its own copy of a hardware or kernel-path
//! constant, and `core/tests/catalogue.rs` checks that no two machine profiles of the registry
//! give the same quantity different values unless they are different hardware.
//!
//! How a value was obtained is its [`Basis`]: measured in a primary source, read in a
//! secondary one, our arithmetic on cited numbers, an assumption (named as such), or fitted —
//! and then by which seed tables, jointly ([`Basis::Fitted`]); `skblab validate` counts a
//! fitted constant against every table it was fitted to. docs/calibration.md is the readable
//! form of this file, with the sources in full.
//!
//! Conventions: a cache-line transfer is the load latency of a line another core holds
//! modified (the c2c CAS ping-pong's round trip ÷ 2, or Intel MLC's HITM latency); it is uncore
//! time and does not scale with the core clock. Kernel-path costs are in core cycles at the
//! clock the benchmark ran (Brouer's time_bench reports TSC cycles, equal to core cycles with
//! turbo off).

use serde::Serialize;

/// How a catalogue value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Read as measured data in the primary source (raw CSV, MLC output, a mail's numbers).
    Measured,
    /// From a secondary source: a review's table, a vendor spec sheet, a summary.
    Secondary,
    /// Our arithmetic on cited numbers (the source says which).
    Estimate,
    /// A model assumption: no source was found; the range says how unsure it is.
    Assumed,
    /// Fitted, inside the sourced range, jointly to the seed tables named (their short names
    /// as `skblab validate` prints them).
    Fitted(&'static [&'static str]),
}

/// One physical quantity: value, the range its sources allow, unit, basis and source.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Quantity {
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub unit: &'static str,
    pub basis: Basis,
    /// Where the value and its range come from, one line (list, date, Message-ID, commit,
    /// document); docs/calibration.md has the full references.
    pub source: &'static str,
}

const fn q(value: f64, min: f64, max: f64, unit: &'static str, basis: Basis, source: &'static str) -> Quantity {
    Quantity { value, min, max, unit, basis, source }
}

impl Quantity {
    /// The value rounded to a whole number (the worlds count integer ns and cycles).
    pub const fn int(&self) -> u64 {
        (self.value + 0.5) as u64
    }
    /// Whether this quantity was fitted to some table.
    pub fn is_fitted(&self) -> bool {
        matches!(self.basis, Basis::Fitted(_))
    }
    /// The tables a fitted quantity was fitted to (empty when not fitted).
    pub fn fitted_to(&self) -> &'static [&'static str] {
        match self.basis {
            Basis::Fitted(t) => t,
            _ => &[],
        }
    }
    /// The same quantity with another value (a fit's trial value, a band sample).
    pub const fn with_value(self, value: f64) -> Quantity {
        Quantity { value, ..self }
    }
}

crate::choice_enum! {
    /// A core family of the catalogue.
    pub enum FamilyId {
        /// Intel Xeon Scalable 1st gen (2017): seed 000's and seed 004's server, seed 002's router.
        SkylakeSp = "skylake-sp",
        /// Intel Xeon E5 v4 (2016): seed 003's dual Xeon, seed 002's x86 bench host.
        BroadwellEp = "broadwell-ep",
        /// Intel Xeon X56xx (2010–11) under Xen: seed 001.
        WestmereXen = "westmere-xen",
        /// Arm Cortex-A53 (in-order, one cluster): seed 002's A53 board.
        CortexA53 = "cortex-a53",
        /// AMD Zen 5 guest (2 vCPUs): the machines this project is built and tested on.
        Zen5Guest = "zen5-guest",
    }
}

/// The hardware of one core family.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Family {
    pub id: FamilyId,
    pub name: &'static str,
    /// A line last written by the SMT sibling (shared L1/L2).
    pub line_smt_ns: Quantity,
    /// A line last written by another core of the same socket (mesh, ring, cluster).
    pub line_same_socket_ns: Quantity,
    /// A line last written by a core of the other socket (UPI/QPI snoop).
    pub line_cross_socket_ns: Quantity,
    /// A line no private cache holds, from the socket's L3.
    pub line_llc_ns: Quantity,
    /// Idle DRAM latency, local node and the other node.
    pub dram_ns: Quantity,
    pub dram_remote_ns: Quantity,
    /// Private L2 per physical core, bytes.
    pub l2_bytes: Quantity,
    /// Shared L3 per core of a socket, bytes (0: no L3).
    pub l3_bytes_per_core: Quantity,
    /// One locked read-modify-write (`lock xadd`, `atomic_inc`) on a line the core owns.
    pub locked_rmw_ns: Quantity,
    /// Copy bandwidth of one core on data in its own L2 (`rep movsb`, copy_user), bytes per
    /// 1000 cycles.
    pub copy_bytes_per_kcycle: Quantity,
    /// Cache misses one core keeps in flight in a streaming copy (fill buffers, L2 streamer).
    pub copy_mlp: Quantity,
    /// Clock with one busy core (max turbo) and with every core of the socket busy.
    pub turbo_max_mhz: Quantity,
    pub turbo_all_core_mhz: Quantity,
    /// Slowdown of each of two busy SMT siblings, percent (160: 1.25× the core's throughput).
    pub smt_slowdown_pct: Quantity,
}

crate::choice_enum! {
    /// A kernel era: the path costs of the kernel the seed ran (mitigations, allocator shape).
    pub enum Era {
        /// 2.6.3x–3.x (2010–2011): seed 001.
        Linux2011 = "2011",
        /// 4.x (2016–2018): seeds 002 and 003.
        Linux2018 = "2018",
        /// 5.0–5.4 (2019), with the Meltdown/Spectre mitigations: seeds 000 and 004.
        Linux2019 = "2019",
        /// 6.x (2024–2026): this project's own machines.
        Linux2026 = "2026",
    }
}

/// The kernel's own path costs on one family in one era, in core cycles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KernelCosts {
    pub family: FamilyId,
    pub era: Era,
    /// One per-CPU page list operation (rmqueue_pcplist or free_unref_page with its IRQ
    /// save/restore and migratetype lookup; half an order-0 alloc+free pair).
    pub pcp_op_cycles: Quantity,
    /// Instructions of one buddy list step under zone->lock (list del/add, set_page_order on
    /// lines already fetched; their misses are counted as lines).
    pub buddy_step_cycles: Quantity,
    /// SLUB alloc or free fast path (kmem_cache_cpu, cmpxchg_double, tid): half a pair.
    pub slub_fast_cycles: Quantity,
    /// Extra work of `___slab_alloc` / `__slab_free` beyond the fast path, on lines already
    /// fetched (their transfers are counted by distance).
    pub slub_slow_cycles: Quantity,
    /// spin_lock + spin_unlock, uncontended, on an owned line.
    pub spin_lock_cycles: Quantity,
    /// One syscall's fixed cost (entry/exit with the era's mitigations, fd lookup,
    /// lock_sock/release_sock).
    pub syscall_cycles: Quantity,
    /// try_to_wake_up + the wakee's schedule().
    pub wakeup_cycles: Quantity,
    /// TCP work per segment sent (on loopback one skb of at most the size goal is one
    /// segment): tcp_write_xmit / __tcp_transmit_skb (the clone, headers), IP output,
    /// loopback_xmit and the softirq receive (ip_rcv, tcp_v4_rcv, queueing, sk_data_ready),
    /// all on the sender's CPU; whatever the segment's length (its bytes cost the copies).
    /// No published breakdown was found: fitted (seed 000).
    pub tcp_skb_cycles: Quantity,
    /// Share of `tcp_skb_cycles` in the receive half (softirq ip_rcv .. tcp_queue_rcv and the
    /// ACK), percent; the rest is the transmit half.
    pub tcp_rx_share_pct: Quantity,
    /// The receiving process's work per skb it consumes: tcp_recvmsg's unlink and free of
    /// the sk_buff, tcp_rcv_space_adjust, tcp_cleanup_rbuf and the ACK (the syscall's own
    /// entry/exit is `syscall_cycles`, once per recvmsg however many skbs it takes).
    pub tcp_recvmsg_skb_cycles: Quantity,
    /// Per frag on both sides: skb_fill_page_desc / the copy iterator stepping to a new frag.
    pub tcp_frag_cycles: Quantity,
}

use Basis::{Assumed, Estimate, Measured, Secondary};

/// Intel Skylake-SP (Xeon Platinum 8176/8180, Gold 6132/6140 class), 2 sockets, mesh, UPI.
pub const SKYLAKE_SP: Family = Family {
    id: FamilyId::SkylakeSp,
    name: "Intel Skylake-SP (Xeon Scalable 1st gen, 2 sockets, mesh, UPI)",
    line_smt_ns: q(7.6, 7.3, 13.1, "ns", Measured, "c2c CAS, SMT sibling: nviennot/core-to-core-latency CSVs Platinum 8275CL (8dee07c) and Dual Gold 6242 (96a943a); Cascade Lake proxy"),
    line_same_socket_ns: q(50.0, 41.2, 56.2, "ns", Measured, "Intel MLC L2->L2 HITM same socket 50.3 ns (Platinum 8180, FD.io CSIT test_environment_sut_calib_skx.rst @4f1ba73c), 49.7 (Gold 6132) and 49.9 (Gold 6140, KU Leuven VscDocumentation @f320f4f8); c2c CAS 41.2-56.2 ns (Cascade Lake proxies)"),
    line_cross_socket_ns: q(134.0, 108.5, 178.1, "ns", Measured, "c2c CAS other socket 134.1 / 141.4 ns (8275CL, Gold 6242); MLC remote HITM 108.5 (line homed in the writer's socket) to 178.1 ns (homed in the reader's), 8180 and Gold 6132"),
    line_llc_ns: q(26.0, 20.0, 30.0, "ns", Secondary, "L3 hit: 77 cycles Intel-stated, lmbench 54-56 cycles and 25-27 ns (Anandtech 11550 p4, 11544 p13, 2017)"),
    dram_ns: q(81.0, 72.7, 91.0, "ns", Measured, "MLC idle latency 81.1 / 72.7 ns (8180, CSIT), 79.8 / 77.4 (Gold 6132), 90.2 (Gold 6140); lmbench 89-91 ns"),
    dram_remote_ns: q(140.0, 130.6, 144.5, "ns", Measured, "MLC remote idle latency 144.5 / 139.6 ns (8180), 131.4 / 130.6 (Gold 6132), 144.3 (Gold 6140)"),
    l2_bytes: q(1048576.0, 1048576.0, 1048576.0, "bytes", Secondary, "1 MB 16-way private L2 (Anandtech 11550 p4)"),
    l3_bytes_per_core: q(1441792.0, 1441792.0, 1441792.0, "bytes", Secondary, "1.375 MB L3 per core, non-inclusive (Anandtech 11550 p4)"),
    locked_rmw_ns: q(6.1, 6.0, 6.2, "ns", Measured, "atomic_inc loop 13-14 TSC cycles, 6.0-6.2 ns, 2x Gold 6140 (Damato's data in Brouer's reply <33216f8e-0b9c-c701-0cdf-e96229bc03d6@redhat.com>, netdev, 2022-02-02)"),
    copy_bytes_per_kcycle: q(15000.0, 8000.0, 32000.0, "bytes/kcycle", Assumed, "no memcpy/copy_user figure for Skylake-SP was found; cached memset on Skylake client is 27.7 B/cycle at 4 KB (prototype-kernel xdp25_eval_generic_xdp_tx.rst, 2017): a copy moves 8-32 B/cycle"),
    copy_mlp: q(10.0, 6.0, 16.0, "lines in flight", Secondary, "10-12 L1 fill buffers, 16 L2 superqueue entries per core (Intel optimization manual, Skylake-SP)"),
    turbo_max_mhz: q(3800.0, 3700.0, 3800.0, "MHz", Secondary, "Platinum 8180/8176 max turbo 3.8 GHz (Anandtech 11544 p7); one busy thread measured 3779.5 MHz (LIKWID notes)"),
    turbo_all_core_mhz: q(2900.0, 2600.0, 3300.0, "MHz", Assumed, "all-core turbo not found in the sources: between the 8176's 2.1 GHz base plus the usual 0.5-1.2 GHz all-core uplift"),
    smt_slowdown_pct: q(160.0, 130.0, 200.0, "%", Assumed, "two busy hyperthreads give a core 1.0-1.5x the throughput of one: each runs 1.3-2x slower"),
};

/// Intel Broadwell-EP (Xeon E5-26xx v4 / E5-1650 v4), ring, QPI.
pub const BROADWELL_EP: Family = Family {
    id: FamilyId::BroadwellEp,
    name: "Intel Broadwell-EP (Xeon E5 v4, ring, QPI)",
    line_smt_ns: q(8.3, 7.5, 12.2, "ns", Measured, "c2c CAS SMT sibling 8.3 / 7.6 / 8.2 ns (nviennot CSVs Dual E5-2680 v4, E5-2695 v4, Dual E5-2630 v4)"),
    line_same_socket_ns: q(43.5, 33.1, 55.1, "ns", Measured, "c2c CAS same socket 45.2 / 43.5 / 39.2 ns (nviennot CSVs, E5-2680 v4, E5-2695 v4, E5-2630 v4); MLC HITM 39.2 ns same cluster (KU Leuven breniac)"),
    line_cross_socket_ns: q(118.1, 105.2, 145.0, "ns", Measured, "c2c CAS other socket 127.5 / 118.1 / 117.9 ns (nviennot CSVs); the README gives 118 ns for E5-2695 v4"),
    line_llc_ns: q(18.0, 14.0, 21.0, "ns", Secondary, "L3 hit 38-51 cycles (lmbench on E5-2699 v4, Anandtech 11544 p13) at 2.4-3.6 GHz"),
    dram_ns: q(75.0, 73.8, 95.0, "ns", Measured, "MLC 73.8-76.5 ns (E5-2680 v4, COD node, KU Leuven breniac); lmbench 95 ns"),
    dram_remote_ns: q(190.0, 184.6, 196.0, "ns", Measured, "MLC other socket 184.6-196.0 ns (KU Leuven breniac)"),
    l2_bytes: q(262144.0, 262144.0, 262144.0, "bytes", Secondary, "256 KB L2 per core (Anandtech 11544 p13)"),
    l3_bytes_per_core: q(2621440.0, 2621440.0, 2621440.0, "bytes", Secondary, "2.5 MB L3 per core, inclusive (Glenn Berry, 2017)"),
    locked_rmw_ns: q(4.8, 4.5, 6.0, "ns", Measured, "atomic_inc 17 cycles, 4.769 ns, E5-1650 v4 at 3.6 GHz (Brouer <3c8e4f86-87e2-470d-84d8-86c70b3e2fcc@kernel.org>, netdev, 2025-01-14)"),
    copy_bytes_per_kcycle: q(15000.0, 8000.0, 32000.0, "bytes/kcycle", Assumed, "no copy figure found; as Skylake-SP (same 32 B/cycle L1 paths)"),
    copy_mlp: q(10.0, 6.0, 16.0, "lines in flight", Secondary, "10 L1 fill buffers, 16 superqueue entries (Intel optimization manual, Haswell/Broadwell)"),
    turbo_max_mhz: q(3300.0, 3300.0, 4000.0, "MHz", Secondary, "E5-2680 v4 3.3 GHz max turbo (Intel spec; brand string 2.40 GHz base); E5-1650 v4 3.6 GHz base, 4.0 turbo"),
    turbo_all_core_mhz: q(2900.0, 2400.0, 3300.0, "MHz", Assumed, "all-core turbo not found: between the E5-2680 v4's 2.4 GHz base and its 3.3 GHz max"),
    smt_slowdown_pct: q(160.0, 130.0, 200.0, "%", Assumed, "as Skylake-SP"),
};

/// Intel Westmere-EP (Xeon X5650/X5670) under Xen: seed 001's guest.
pub const WESTMERE_XEN: Family = Family {
    id: FamilyId::WestmereXen,
    name: "Intel Westmere-EP (Xeon X56xx) under Xen",
    line_smt_ns: q(
        7.1,
        7.1,
        7.2,
        "ns",
        Measured,
        "c2c CAS SMT sibling 7.1 ns (nviennot CSV Dual X5650, 47795f2); X5650 proxy for X5670",
    ),
    line_same_socket_ns: q(37.2, 36.1, 38.2, "ns", Measured, "c2c CAS same socket 37.2 ns (36.1-38.2), Dual X5650"),
    line_cross_socket_ns: q(73.7, 68.4, 79.7, "ns", Measured, "c2c CAS other socket 73.7 ns (68.4-79.7), Dual X5650"),
    line_llc_ns: q(14.0, 13.0, 16.0, "ns", Secondary, "L3 40-46 cycles at 2.67-3.06 GHz (7-cpu.com Westmere, X5650)"),
    dram_ns: q(82.0, 75.0, 90.0, "ns", Estimate, "40 cycles + 67 ns at 2.67 GHz (7-cpu.com Westmere)"),
    dram_remote_ns: q(120.0, 110.0, 130.0, "ns", Estimate, "40 cycles + 105 ns at 2.67 GHz (7-cpu.com Westmere)"),
    l2_bytes: q(262144.0, 262144.0, 262144.0, "bytes", Secondary, "256 KB 8-way L2 (7-cpu.com)"),
    l3_bytes_per_core: q(2097152.0, 2097152.0, 2097152.0, "bytes", Secondary, "12 MB L3 over 6 cores (7-cpu.com)"),
    locked_rmw_ns: q(
        7.0,
        5.0,
        10.0,
        "ns",
        Assumed,
        "no Westmere figure found: ~20 cycles at 2.93 GHz, the Nehalem-era lock cost",
    ),
    copy_bytes_per_kcycle: q(
        10000.0,
        6000.0,
        16000.0,
        "bytes/kcycle",
        Assumed,
        "no copy figure found; 16 B/cycle L1 paths",
    ),
    copy_mlp: q(10.0, 6.0, 10.0, "lines in flight", Secondary, "10 line-fill buffers (7-cpu.com)"),
    turbo_max_mhz: q(2930.0, 2930.0, 3330.0, "MHz", Secondary, "X5670 2.93 GHz base (brand string); turbo not found"),
    turbo_all_core_mhz: q(2930.0, 2930.0, 3060.0, "MHz", Assumed, "a Xen guest of 2011: the base clock"),
    smt_slowdown_pct: q(160.0, 130.0, 200.0, "%", Assumed, "as Skylake-SP"),
};

/// Arm Cortex-A53, one cluster of 4 in-order cores, no L3.
pub const CORTEX_A53: Family = Family {
    id: FamilyId::CortexA53,
    name: "Arm Cortex-A53 (one cluster, in order)",
    line_smt_ns: q(
        36.7,
        36.7,
        53.3,
        "ns",
        Measured,
        "no SMT: a second thread of the cluster is another core (c2c CAS below)",
    ),
    line_same_socket_ns: q(
        36.7,
        36.7,
        53.3,
        "ns",
        Measured,
        "c2c CAS median 36.7 ns (36.7-53.3), BCM2837 1.2 GHz (KCORES/core-to-core-latency-plus @456cc116)",
    ),
    line_cross_socket_ns: q(36.7, 36.7, 53.3, "ns", Measured, "one cluster: no other socket"),
    line_llc_ns: q(30.0, 15.0, 40.0, "ns", Assumed, "no L3: the cluster's shared L2; load-to-use not found"),
    dram_ns: q(150.0, 100.0, 200.0, "ns", Assumed, "no A53 board DRAM latency found"),
    dram_remote_ns: q(150.0, 100.0, 200.0, "ns", Assumed, "one node: no remote DRAM"),
    l2_bytes: q(
        524288.0,
        131072.0,
        2097152.0,
        "bytes",
        Secondary,
        "L2 128 KiB-2 MiB per cluster, configurable per SoC (WikiChip cortex-a53; AMD UG1085); 512 KiB assumed",
    ),
    l3_bytes_per_core: q(0.0, 0.0, 0.0, "bytes", Secondary, "no L3: the cluster L2 is the last level"),
    locked_rmw_ns: q(
        16.0,
        8.0,
        33.0,
        "ns",
        Assumed,
        "no A53 figure found: an LDXR/STXR pair on an owned line, 10-40 cycles at 1.2 GHz",
    ),
    copy_bytes_per_kcycle: q(
        1630.0,
        1000.0,
        3000.0,
        "bytes/kcycle",
        Secondary,
        "bw_mem 8M bcopy 1956.71 MB/s, one thread (TI SPRADG0A, 2024) at 1.2 GHz",
    ),
    copy_mlp: q(3.0, 2.0, 4.0, "lines in flight", Assumed, "in-order core, a few outstanding misses"),
    turbo_max_mhz: q(1200.0, 1200.0, 1200.0, "MHz", Secondary, "BCM2837 1.2 GHz (KCORES CSV name)"),
    turbo_all_core_mhz: q(1200.0, 1200.0, 1200.0, "MHz", Secondary, "a fixed 1.2 GHz clock, no turbo"),
    smt_slowdown_pct: q(100.0, 100.0, 100.0, "%", Secondary, "no SMT on the A53: one thread per core"),
};

/// AMD Zen 5 guest with 2 vCPUs (this project's build and test machines).
pub const ZEN5_GUEST: Family = Family {
    id: FamilyId::Zen5Guest,
    name: "AMD Zen 5 (EPYC 9005) KVM guest, 2 vCPUs",
    line_smt_ns: q(20.9, 17.0, 26.1, "ns", Measured, "the two vCPUs' placement on the host is not known: within one CCD 20.9 / 23.3 ns (KCORES CSVs, Ryzen 9 9950X proxy)"),
    line_same_socket_ns: q(20.9, 17.0, 26.1, "ns", Measured, "c2c CAS within one CCD 20.9 ns (17.0-24.4) and 23.3 (17.5-26.1), Ryzen 9 9950X (KCORES)"),
    line_cross_socket_ns: q(80.0, 75.2, 235.5, "ns", Measured, "across CCDs 79.5 ns (75.2-82.6) in one 9950X dataset, 207.9 (184.6-235.5) in the other"),
    line_llc_ns: q(12.0, 8.0, 16.0, "ns", Assumed, "Zen 5 L3 load-to-use not found; ~50 cycles at 4 GHz"),
    dram_ns: q(100.0, 80.0, 140.0, "ns", Assumed, "not found for EPYC 9005"),
    dram_remote_ns: q(190.0, 180.0, 200.0, "ns", Measured, "other socket 191.6 ns, Dual EPYC 9654 (Zen 4 proxy, KCORES)"),
    l2_bytes: q(1048576.0, 1048576.0, 1048576.0, "bytes", Secondary, "1 MB 16-way L2 (chipsandcheese, 2024-08-14)"),
    l3_bytes_per_core: q(4194304.0, 4194304.0, 4194304.0, "bytes", Secondary, "32 MB per 8-core CCD (chipsandcheese)"),
    locked_rmw_ns: q(2.0, 1.0, 5.0, "ns", Assumed, "not found; `skblab measure` (issue #24) will measure it here"),
    copy_bytes_per_kcycle: q(32000.0, 16000.0, 64000.0, "bytes/kcycle", Assumed, "not found; 64 B/cycle L1 paths"),
    copy_mlp: q(16.0, 10.0, 24.0, "lines in flight", Assumed, "Zen 5 fill buffers not found: 10-24 as Intel server cores"),
    turbo_max_mhz: q(4100.0, 3000.0, 4100.0, "MHz", Secondary, "EPYC 9755 4.1 GHz peak (Tom's Hardware); the guest's clock is the host's"),
    turbo_all_core_mhz: q(3500.0, 2500.0, 4100.0, "MHz", Assumed, "EPYC 9005 all-core clock not found"),
    smt_slowdown_pct: q(160.0, 100.0, 200.0, "%", Assumed, "the vCPUs may or may not be SMT siblings"),
};

/// Every family, in [`FamilyId`] order.
pub const FAMILIES: [&Family; 5] = [&SKYLAKE_SP, &BROADWELL_EP, &WESTMERE_XEN, &CORTEX_A53, &ZEN5_GUEST];

/// The family of `id`.
pub fn family(id: FamilyId) -> &'static Family {
    FAMILIES.iter().find(|f| f.id == id).copied().unwrap_or(&SKYLAKE_SP)
}

/// Kernel-path costs of 2019 kernels (5.0–5.4, Meltdown/Spectre mitigations) on Skylake-SP:
/// seeds 000 and 004.
pub const SKYLAKE_SP_2019: KernelCosts = KernelCosts {
    family: FamilyId::SkylakeSp,
    era: Era::Linux2019,
    pcp_op_cycles: q(104.0, 90.0, 140.0, "cycles", Measured, "order-0 alloc+free through the PCP 207 cycles on E5-1650 v4 (prototype-kernel 4c41fe0, 2021), 231-272 on 4.6 (Brouer <20160415144402.5fbe7a1e@redhat.com>): half a pair each"),
    buddy_step_cycles: q(30.0, 15.0, 60.0, "cycles", Estimate, "order-3 alloc+free through the buddy 524 cycles on 1 CPU (<20160415144402.5fbe7a1e@redhat.com>) with ~8 list steps and the lock: a few dozen each"),
    slub_fast_cycles: q(25.0, 21.0, 30.0, "cycles", Measured, "SLUB alloc+free fast path 42-60 cycles per pair (<20150617142613.11791.76008.stgit@devil>, <20200618113121.78a6a2ca@carbon>)"),
    slub_slow_cycles: q(45.0, 25.0, 60.0, "cycles", Measured, "alloc 256 then free: 93 cycles per pair against 48 fast (prototype-kernel 279020c, E5-2695): ~45 extra per pair beyond the per-CPU slab"),
    spin_lock_cycles: q(37.0, 31.0, 41.0, "cycles", Measured, "spin_lock+unlock 37 cycles (E5-1650 v4, <3c8e4f86-87e2-470d-84d8-86c70b3e2fcc@kernel.org>), 31 (Gold 6140, <33216f8e-0b9c-c701-0cdf-e96229bc03d6@redhat.com>)"),
    syscall_cycles: q(1500.0, 700.0, 2000.0, "cycles", Estimate, "getpid round trip 191-217 ns on Skylake-X with audit rules (Oracle Linux blog, 2023-09-12) plus fd lookup and lock_sock/release_sock: 0.2-0.5 us at 3.8 GHz"),
    wakeup_cycles: q(4000.0, 2000.0, 8000.0, "cycles", Assumed, "try_to_wake_up + schedule(): 1-2 us of a cross-CPU wakeup"),
    tcp_skb_cycles: q(13791.0, 3000.0, 40000.0, "cycles", Basis::Fitted(&["seed000"]), "fitted by `skblab calibrate high-order-alloc` (seed 000, 16 KiB sends), per segment; no per-segment figure was found (CATALOGUE-SOURCES §8): 1-10 us of a loopback segment's round through the stack"),
    tcp_rx_share_pct: q(50.0, 30.0, 70.0, "%", Assumed, "loopback netperf: the softirq receive is about half the stack's time (ptesarik, SIGILLatum local-ip-performance, 2024-05-31: >3 s of 10 s in net_rx_action on each side)"),
    tcp_recvmsg_skb_cycles: q(5229.0, 1000.0, 40000.0, "cycles", Basis::Fitted(&["seed000"]), "fitted by `skblab calibrate high-order-alloc` (seed 000), per skb consumed, syscall excluded; no figure found"),
    tcp_frag_cycles: q(279.0, 20.0, 600.0, "cycles", Basis::Fitted(&["seed000"]), "fitted by `skblab calibrate high-order-alloc` (seed 000): one iteration of the frag loop"),
};

/// Kernel-path costs of 2016–2018 kernels on Broadwell-EP: seed 003, seed 002's x86 bench.
pub const BROADWELL_EP_2018: KernelCosts = KernelCosts {
    family: FamilyId::BroadwellEp,
    era: Era::Linux2018,
    pcp_op_cycles: q(104.0, 90.0, 136.0, "cycles", Measured, "order-0 alloc+free through the PCP 207 cycles, E5-1650 v4 (prototype-kernel 4c41fe0); 231-272 on 4.6: half a pair each"),
    buddy_step_cycles: q(30.0, 15.0, 60.0, "cycles", Estimate, "as Skylake-SP 2019 (same allocator, <20160415144402.5fbe7a1e@redhat.com>)"),
    slub_fast_cycles: q(30.0, 24.0, 30.0, "cycles", Measured, "SLUB alloc+free 60 cycles per pair, E5-1650 v4 (<20200618113121.78a6a2ca@carbon>); 48 on E5-2695 (279020c)"),
    slub_slow_cycles: q(45.0, 25.0, 60.0, "cycles", Measured, "93 vs 48 cycles per pair beyond the per-CPU slab (279020c, E5-2695)"),
    spin_lock_cycles: q(37.0, 31.0, 41.0, "cycles", Measured, "spin_lock+unlock 37 cycles, E5-1650 v4 (<3c8e4f86-87e2-470d-84d8-86c70b3e2fcc@kernel.org>); 41 on E5-2695 (5c9f42c)"),
    syscall_cycles: q(700.0, 400.0, 1500.0, "cycles", Assumed, "pre-mitigation syscall entry/exit ~100 ns plus fd lookup and socket locking"),
    wakeup_cycles: q(4000.0, 2000.0, 8000.0, "cycles", Assumed, "as Skylake-SP 2019"),
    tcp_skb_cycles: q(21798.0, 3000.0, 40000.0, "cycles", Assumed, "as Skylake-SP 2019 (no figure for this family)"),
    tcp_rx_share_pct: q(50.0, 30.0, 70.0, "%", Assumed, "as Skylake-SP 2019"),
    tcp_recvmsg_skb_cycles: q(2000.0, 1000.0, 40000.0, "cycles", Assumed, "as Skylake-SP 2019"),
    tcp_frag_cycles: q(279.0, 20.0, 600.0, "cycles", Assumed, "as Skylake-SP 2019"),
};

/// Kernel-path costs of a 2011 kernel in a Xen guest on Westmere: seed 001.
pub const WESTMERE_XEN_2011: KernelCosts = KernelCosts {
    family: FamilyId::WestmereXen,
    era: Era::Linux2011,
    pcp_op_cycles: q(
        120.0,
        90.0,
        200.0,
        "cycles",
        Estimate,
        "order-0 through the PCP ~141-150 ns per alloc+free on 2014 Xeons (time_bench_sample.c, 200f16f): half a pair",
    ),
    buddy_step_cycles: q(30.0, 15.0, 60.0, "cycles", Estimate, "as Skylake-SP"),
    slub_fast_cycles: q(
        24.0,
        21.0,
        30.0,
        "cycles",
        Measured,
        "SLUB alloc+free 48 cycles per pair, E5-2695, 2014 (279020c)",
    ),
    slub_slow_cycles: q(45.0, 25.0, 60.0, "cycles", Measured, "93 vs 48 cycles per pair (279020c)"),
    spin_lock_cycles: q(
        41.0,
        31.0,
        60.0,
        "cycles",
        Measured,
        "spin_lock+unlock 41 cycles, E5-2695, 2014 ticket locks (5c9f42c)",
    ),
    syscall_cycles: q(
        2000.0,
        1000.0,
        4000.0,
        "cycles",
        Assumed,
        "a PV guest's syscall bounces through the hypervisor; a KVM exit is ~2,000 cycles (SplitX, Nehalem proxy)",
    ),
    wakeup_cycles: q(4000.0, 2000.0, 8000.0, "cycles", Assumed, "as Skylake-SP 2019"),
    tcp_skb_cycles: q(21798.0, 3000.0, 40000.0, "cycles", Assumed, "as Skylake-SP 2019 (no figure for this family)"),
    tcp_rx_share_pct: q(50.0, 30.0, 70.0, "%", Assumed, "as Skylake-SP 2019"),
    tcp_recvmsg_skb_cycles: q(2000.0, 1000.0, 40000.0, "cycles", Assumed, "as Skylake-SP 2019"),
    tcp_frag_cycles: q(279.0, 20.0, 600.0, "cycles", Assumed, "as Skylake-SP 2019"),
};

/// Kernel-path costs of 2018 kernels on the Cortex-A53 (seed 002).
pub const CORTEX_A53_2018: KernelCosts = KernelCosts {
    family: FamilyId::CortexA53,
    era: Era::Linux2018,
    pcp_op_cycles: q(
        150.0,
        100.0,
        250.0,
        "cycles",
        Assumed,
        "no A53 figure: an in-order core runs the ~100-cycle x86 path 1-2x slower",
    ),
    buddy_step_cycles: q(40.0, 20.0, 80.0, "cycles", Assumed, "as x86, 1-2x slower in order"),
    slub_fast_cycles: q(40.0, 25.0, 60.0, "cycles", Assumed, "no A53 figure"),
    slub_slow_cycles: q(60.0, 30.0, 100.0, "cycles", Assumed, "no A53 figure"),
    spin_lock_cycles: q(50.0, 30.0, 80.0, "cycles", Assumed, "no A53 figure: two exclusive pairs and barriers"),
    syscall_cycles: q(800.0, 400.0, 1500.0, "cycles", Assumed, "no A53 figure"),
    wakeup_cycles: q(4000.0, 2000.0, 8000.0, "cycles", Assumed, "as x86: no A53 figure"),
    tcp_skb_cycles: q(21798.0, 3000.0, 40000.0, "cycles", Assumed, "as Skylake-SP 2019 (no figure for this family)"),
    tcp_rx_share_pct: q(50.0, 30.0, 70.0, "%", Assumed, "as Skylake-SP 2019"),
    tcp_recvmsg_skb_cycles: q(2000.0, 1000.0, 40000.0, "cycles", Assumed, "as Skylake-SP 2019"),
    tcp_frag_cycles: q(279.0, 20.0, 600.0, "cycles", Assumed, "as Skylake-SP 2019"),
};

/// Kernel-path costs of 6.x kernels on this project's Zen 5 guests.
pub const ZEN5_GUEST_2026: KernelCosts = KernelCosts {
    family: FamilyId::Zen5Guest,
    era: Era::Linux2026,
    pcp_op_cycles: q(104.0, 60.0, 200.0, "cycles", Assumed, "not measured here yet (issue #24); as Broadwell"),
    buddy_step_cycles: q(30.0, 15.0, 60.0, "cycles", Assumed, "as Skylake-SP"),
    slub_fast_cycles: q(80.0, 60.0, 92.0, "cycles", Measured, "SLUB alloc+free 153-184 cycles per pair on Ryzen 7 1700, 5.8-rc1 (<20200619103247.7b8bc9ad@carbon>): Zen 1 proxy"),
    slub_slow_cycles: q(45.0, 25.0, 90.0, "cycles", Assumed, "as Skylake-SP"),
    spin_lock_cycles: q(37.0, 20.0, 60.0, "cycles", Assumed, "as Skylake-SP"),
    syscall_cycles: q(1000.0, 400.0, 2000.0, "cycles", Assumed, "not measured here yet (issue #24)"),
    wakeup_cycles: q(4000.0, 2000.0, 8000.0, "cycles", Assumed, "as Skylake-SP"),
    tcp_skb_cycles: q(21798.0, 3000.0, 40000.0, "cycles", Assumed, "as Skylake-SP 2019 (no figure for this family)"),
    tcp_rx_share_pct: q(50.0, 30.0, 70.0, "%", Assumed, "as Skylake-SP 2019"),
    tcp_recvmsg_skb_cycles: q(2000.0, 1000.0, 40000.0, "cycles", Assumed, "as Skylake-SP 2019"),
    tcp_frag_cycles: q(279.0, 20.0, 600.0, "cycles", Assumed, "as Skylake-SP 2019"),
};

/// Every kernel-cost entry.
pub const KERNELS: [&KernelCosts; 5] =
    [&SKYLAKE_SP_2019, &BROADWELL_EP_2018, &WESTMERE_XEN_2011, &CORTEX_A53_2018, &ZEN5_GUEST_2026];

/// The kernel costs of `family` in `era`, if the catalogue has them.
pub fn kernel(family: FamilyId, era: Era) -> Option<&'static KernelCosts> {
    KERNELS.iter().find(|k| k.family == family && k.era == era).copied()
}

impl Family {
    /// Every quantity with its field name (the same-physics test and the docs walk this).
    pub fn quantities(&self) -> [(&'static str, Quantity); 14] {
        [
            ("line_smt_ns", self.line_smt_ns),
            ("line_same_socket_ns", self.line_same_socket_ns),
            ("line_cross_socket_ns", self.line_cross_socket_ns),
            ("line_llc_ns", self.line_llc_ns),
            ("dram_ns", self.dram_ns),
            ("dram_remote_ns", self.dram_remote_ns),
            ("l2_bytes", self.l2_bytes),
            ("l3_bytes_per_core", self.l3_bytes_per_core),
            ("locked_rmw_ns", self.locked_rmw_ns),
            ("copy_bytes_per_kcycle", self.copy_bytes_per_kcycle),
            ("copy_mlp", self.copy_mlp),
            ("turbo_max_mhz", self.turbo_max_mhz),
            ("turbo_all_core_mhz", self.turbo_all_core_mhz),
            ("smt_slowdown_pct", self.smt_slowdown_pct),
        ]
    }
}

impl KernelCosts {
    /// Every quantity with its field name.
    pub fn quantities(&self) -> [(&'static str, Quantity); 11] {
        [
            ("pcp_op_cycles", self.pcp_op_cycles),
            ("buddy_step_cycles", self.buddy_step_cycles),
            ("slub_fast_cycles", self.slub_fast_cycles),
            ("slub_slow_cycles", self.slub_slow_cycles),
            ("spin_lock_cycles", self.spin_lock_cycles),
            ("syscall_cycles", self.syscall_cycles),
            ("wakeup_cycles", self.wakeup_cycles),
            ("tcp_skb_cycles", self.tcp_skb_cycles),
            ("tcp_rx_share_pct", self.tcp_rx_share_pct),
            ("tcp_recvmsg_skb_cycles", self.tcp_recvmsg_skb_cycles),
            ("tcp_frag_cycles", self.tcp_frag_cycles),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_lies_in_its_range_and_every_entry_is_sourced() {
        let fams = FAMILIES.iter().flat_map(|f| f.quantities().map(|(n, q)| (f.name, n, q)));
        let kers = KERNELS.iter().flat_map(|k| k.quantities().map(|(n, q)| ("kernel", n, q)));
        for (who, name, q) in fams.chain(kers) {
            assert!(q.min <= q.value && q.value <= q.max, "{who} {name}: {} outside {}..={}", q.value, q.min, q.max);
            assert!(q.source.len() > 10 && !q.unit.is_empty(), "{who} {name}: no source or unit");
        }
    }

    #[test]
    fn ids_are_unique_and_found() {
        for f in FAMILIES {
            assert_eq!(family(f.id).id, f.id);
        }
        for k in KERNELS {
            assert_eq!(kernel(k.family, k.era).map(|x| x.era), Some(k.era));
        }
    }
}
