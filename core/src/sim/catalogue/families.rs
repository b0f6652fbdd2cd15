//! The core families of the catalogue (see [`super`]): the hardware, one `Family` each.

use super::{q, Basis, Family, FamilyId, Part};

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
    copy_bytes_per_kcycle: q(15000.0, 8000.0, 32000.0, "bytes/kcycle", Basis::Fitted(&["seed000"]), "an earlier fit to seed 000 (14,983, rounded), kept: no memcpy/copy_user figure for Skylake-SP was found; cached memset on Skylake client is 27.7 B/cycle at 4 KB (prototype-kernel xdp25_eval_generic_xdp_tx.rst, 2017): a copy moves 8-32 B/cycle"),
    copy_mlp: q(10.0, 6.0, 16.0, "lines in flight", Secondary, "10-12 L1 fill buffers, 16 L2 superqueue entries per core (Intel optimization manual, Skylake-SP)"),
    copy_write_shared_ps: None,
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
    copy_bytes_per_kcycle: SKYLAKE_SP.copy_bytes_per_kcycle.with_source("seed 000's fit on Skylake-SP carried over: no memcpy/copy_user figure for Broadwell-EP was found, and both cores copy with the same fast-string microcode through 32 B/cycle L1 load and store paths"),
    copy_mlp: q(10.0, 6.0, 16.0, "lines in flight", Secondary, "10 L1 fill buffers, 16 superqueue entries (Intel optimization manual, Haswell/Broadwell)"),
    copy_write_shared_ps: None,
    turbo_max_mhz: q(3300.0, 3300.0, 4000.0, "MHz", Secondary, "E5-2680 v4 3.3 GHz max turbo (Intel spec; brand string 2.40 GHz base); E5-1650 v4 3.6 GHz base, 4.0 turbo"),
    turbo_all_core_mhz: q(2900.0, 2400.0, 3300.0, "MHz", Assumed, "all-core turbo not found: the E5-2680 v4's 2.4 GHz base and 3.3 GHz max bound it; 2.9 GHz, about the middle, as no source says which end a busy socket sits at"),
    smt_slowdown_pct: q(160.0, 130.0, 200.0, "%", Assumed, "as Skylake-SP: the same two-thread Hyper-Threading, the siblings sharing one core's ports and L1/L2; no Broadwell-EP figure"),
};

/// Jesper Brouer's testlab host of the XDP paper (page-frag-free's x86 bench): one socket,
/// six cores. Its clock is the part's, not the family's (the family's are an E5-2680 v4's).
pub const E5_1650_V4: Part = Part {
    family: FamilyId::BroadwellEp,
    name: "Xeon E5-1650 v4",
    turbo_max_mhz: q(3804.0, 3600.0, 4000.0, "MHz", Measured, "perf stat -C0 cycles over 1 s: 3,804,456,431 while CPU 0 alone ran XDP forwarding (xdp-paper benchmarks/bench04_fwd.org, Jesper Brouer's E5-1650 v4, commit 6dcc4e0, 2018-06-21); Intel spec 3.6 GHz base, 4.0 GHz max turbo"),
    turbo_all_core_mhz: q(3804.0, 3600.0, 3804.0, "MHz", Measured, "perf stat -C3 cycles over 1 s: 3,804,377,863 with four of the six cores 96-100 % busy in softirq (XDP_DROP, four RX queues; CPU 0, 2.75 % idle, 3,728,030,288: xdp-paper benchmarks/bench01_baseline.org); six busy cores not measured; Intel's 3.6 GHz base is the floor"),
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
        "no copy figure found: Westmere loads and stores 16 B/cycle, and a fast-string copy of L2-resident data moves somewhat less than that, ~10 B/cycle",
    ),
    copy_mlp: q(10.0, 6.0, 10.0, "lines in flight", Secondary, "10 line-fill buffers (7-cpu.com)"),
    copy_write_shared_ps: None,
    turbo_max_mhz: q(2930.0, 2930.0, 3330.0, "MHz", Secondary, "X5670 2.93 GHz base (brand string); turbo not found"),
    turbo_all_core_mhz: q(2930.0, 2930.0, 3060.0, "MHz", Assumed, "the X5670's 2.93 GHz base: a 2011 Xen host's turbo policy is not known, and the base is what every core holds with all busy"),
    smt_slowdown_pct: q(160.0, 130.0, 200.0, "%", Assumed, "as Skylake-SP: the same two-thread Hyper-Threading sharing one core; no Westmere figure"),
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
    line_llc_ns: q(30.0, 15.0, 40.0, "ns", Assumed, "no L3: the cluster's shared L2; its load-to-use not found: ~20-40 cycles of an in-order core's L2 at 1.2 GHz, 15-33 ns"),
    dram_ns: q(150.0, 100.0, 200.0, "ns", Assumed, "no A53 board DRAM latency found: LPDDR2/3 boards behind a simple memory controller, assumed ~1.5-2x a server's 80 ns"),
    dram_remote_ns: q(150.0, 100.0, 200.0, "ns", Assumed, "one node: no remote DRAM; the local value, so nothing can read a remote cost different from it"),
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
        "no A53 figure found: an LDXR/STXR pair with barriers on an owned line, 10-40 cycles at 1.2 GHz; ~20 cycles, 16 ns",
    ),
    copy_bytes_per_kcycle: q(
        1630.0,
        1000.0,
        3000.0,
        "bytes/kcycle",
        Secondary,
        "bw_mem 8M bcopy 1956.71 MB/s, one thread (TI SPRADG0A, 2024) at 1.2 GHz",
    ),
    copy_mlp: q(3.0, 2.0, 4.0, "lines in flight", Assumed, "no A53 figure: an in-order core stalls on use, so a copy keeps only its load/store buffer's few misses (2-4) in flight"),
    copy_write_shared_ps: None,
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
    dram_ns: q(100.0, 80.0, 140.0, "ns", Assumed, "not found for EPYC 9005: DDR5 behind an IO die, between Skylake-SP's measured 73-91 ns (one die) and Rome's 122-134 ns (Anandtech 14694 p7, IO die and DDR4)"),
    dram_remote_ns: q(190.0, 180.0, 200.0, "ns", Measured, "other socket 191.6 ns, Dual EPYC 9654 (Zen 4 proxy, KCORES)"),
    l2_bytes: q(1048576.0, 1048576.0, 1048576.0, "bytes", Secondary, "1 MB 16-way L2 (chipsandcheese, 2024-08-14)"),
    l3_bytes_per_core: q(4194304.0, 4194304.0, 4194304.0, "bytes", Secondary, "32 MB per 8-core CCD (chipsandcheese)"),
    locked_rmw_ns: q(2.0, 1.0, 5.0, "ns", Assumed, "not found (`skblab measure` does not measure it): ~8 cycles at 4.1 GHz, a locked add on an owned L1 line assumed cheaper on Zen than Intel's measured 13-17 cycles (Skylake-SP, Broadwell-EP), the range up to Intel's"),
    copy_bytes_per_kcycle: q(32000.0, 16000.0, 64000.0, "bytes/kcycle", Assumed, "not found: a copy both loads and stores each byte, so half of Zen 5's 64 B/cycle L1 load path, 32 B/cycle"),
    copy_mlp: q(16.0, 10.0, 24.0, "lines in flight", Assumed, "Zen 5 fill buffers not found: Skylake-SP's 16 L2 superqueue entries (Intel optimization manual), a newer core keeping at least as many"),
    copy_write_shared_ps: None,
    turbo_max_mhz: q(4100.0, 3000.0, 4100.0, "MHz", Secondary, "EPYC 9755 4.1 GHz peak (Tom's Hardware); the guest's clock is the host's"),
    turbo_all_core_mhz: q(3500.0, 2500.0, 4100.0, "MHz", Assumed, "EPYC 9005 all-core clock not found: below the 9755's 4.1 GHz peak, a shared cloud host's cores mostly busy; 3.5 GHz, the range down to a dense part's ~2.5 GHz"),
    smt_slowdown_pct: q(160.0, 100.0, 200.0, "%", Assumed, "the vCPUs may or may not be SMT siblings: Skylake-SP's two-thread slowdown if they are, the range down to 100 (separate cores)"),
};

/// AMD Zen 3 server (EPYC 7003 "Milan", CPUID family 25 model 1) under KVM, 2 vCPUs: one of
/// this project's measured guests (its model name, "AMD EPYC", hides the part).
pub const MILAN_GUEST: Family = Family {
    id: FamilyId::MilanGuest,
    name: "AMD Zen 3 (EPYC 7003 Milan) KVM guest, 2 vCPUs",
    line_smt_ns: q(10.2, 10.2, 10.5, "ns", Measured, "c2c CAS between SMT siblings 10.2 ns (10.2-10.5), Dual EPYC 7763 (KCORES/core-to-core-latency-plus results, @456cc116)"),
    line_same_socket_ns: q(24.9, 20.3, 30.4, "ns", Measured, "c2c CAS within one 8-core CCD: median 24.9 ns (20.3-30.4) over 1792 pairs, Dual EPYC 7763 (KCORES @456cc116); the two vCPUs' placement on the host is not known"),
    line_cross_socket_ns: q(124.2, 85.3, 268.7, "ns", Measured, "c2c CAS across CCDs of one socket: median 124.2 ns (85.3 to 268.7 at the 95th percentile), the other socket 303.6; Dual EPYC 7763 (KCORES @456cc116)"),
    line_llc_ns: q(13.0, 10.0, 17.0, "ns", Assumed, "Zen 3 server L3 load-to-use not found in the sources searched: Rome's 16 MB CCX L3 is ~34 cycles, 10.27 ns (Anandtech 14694 p7, EPYC 7742), Milan's 32 MB 8-core L3 a few cycles more"),
    dram_ns: q(122.0, 110.0, 134.0, "ns", Secondary, "Rome's full random 122 ns at 128 MB, 134 ns at 512 MB, NPS1 (Anandtech 14694 p7): Milan keeps Rome's IO die and DDR4-3200; no Milan figure found"),
    dram_remote_ns: q(200.0, 160.0, 250.0, "ns", Assumed, "not found; one socket is simulated, so nothing reads it: Rome's local 122 ns plus a socket hop (Zen 4's other socket is 191.6 ns, KCORES)"),
    l2_bytes: q(524288.0, 524288.0, 524288.0, "bytes", Secondary, "512 KiB L2 per core (EPYC 7763 per WikiChip, as summarised at 0x10.sh 'Some materials about Zen3, AMD EPYC 7763 and 7773x', 2023-10-25; EPYC 7543 the same, igamesnews)"),
    l3_bytes_per_core: q(4194304.0, 4194304.0, 4194304.0, "bytes", Secondary, "32 MB L3 per 8-core CCD, shared by all eight (0x10.sh, citing WikiChip and AMD's launch)"),
    locked_rmw_ns: q(2.0, 1.0, 5.0, "ns", Assumed, "not found; as zen5-guest: the same Zen locked-RMW design on an owned line, at a similar clock"),
    copy_bytes_per_kcycle: q(32000.0, 16000.0, 64000.0, "bytes/kcycle", Assumed, "not found; as zen5-guest: Zen 3 also loads two 256-bit words per cycle, and a copy gets half the load path"),
    copy_mlp: q(16.0, 10.0, 24.0, "lines in flight", Assumed, "Zen 3 fill buffers not found: as zen5-guest (Skylake-SP's 16 superqueue entries as the floor of a server core)"),
    copy_write_shared_ps: None,
    turbo_max_mhz: q(3500.0, 3400.0, 3700.0, "MHz", Secondary, "Milan parts boost to 3.4-3.7 GHz (EPYC 7543: 2.8 GHz base, 3.7 GHz boost, igamesnews 'EPYC Milan vs Intel Xeon Platinum'); the guest's name hides the part"),
    turbo_all_core_mhz: q(3000.0, 2450.0, 3500.0, "MHz", Assumed, "Milan all-core clock not found: between a 64-core part's 2.45 GHz base and the 3.5 GHz boost, about the middle as no source says which end"),
    smt_slowdown_pct: q(160.0, 100.0, 200.0, "%", Assumed, "the vCPUs may or may not be SMT siblings: Skylake-SP's two-thread slowdown if they are, the range down to 100 (separate cores)"),
};

/// Intel Emerald Rapids (5th-gen Xeon Scalable, CPUID family 6 model 207) under KVM, 2 vCPUs:
/// one of this project's measured guests ("Intel(R) Xeon(R) Processor" hides the part).
pub const EMR_GUEST: Family = Family {
    id: FamilyId::EmrGuest,
    name: "Intel Emerald Rapids (Xeon 5th gen) KVM guest, 2 vCPUs",
    line_smt_ns: q(7.6, 7.3, 13.1, "ns", Assumed, "no Sapphire/Emerald Rapids SMT figure found: as Skylake-SP (shared L1/L2 of one core)"),
    line_same_socket_ns: q(55.3, 36.4, 72.4, "ns", Measured, "c2c CAS over the mesh: median 55.3 ns (36.4-72.4) over 630 pairs, Xeon W9-3475X (Sapphire Rapids, KCORES/core-to-core-latency-plus @456cc116): SPR proxy, EMR has two dies instead of four"),
    line_cross_socket_ns: q(134.0, 100.0, 200.0, "ns", Assumed, "no EMR UPI figure found: as Skylake-SP's other socket; one socket is simulated"),
    line_llc_ns: q(33.0, 25.0, 40.0, "ns", Assumed, "SPR/EMR L3 load-to-use not found in the sources searched: above Skylake-SP's 20-30 ns (a larger mesh)"),
    dram_ns: q(110.0, 90.0, 130.0, "ns", Assumed, "DDR5 idle latency on SPR/EMR not found: above Skylake-SP's measured 73-91 ns, as a larger mesh lies between core and memory controller"),
    dram_remote_ns: q(180.0, 150.0, 220.0, "ns", Assumed, "not found; one socket is simulated, so nothing reads it: the local 110 ns plus a UPI hop (Skylake-SP's remote is 59 ns above its local)"),
    l2_bytes: q(2097152.0, 2097152.0, 2097152.0, "bytes", Secondary, "2 MB L2 per core (Xeon Platinum 8580: 60 cores, 120 MB L2, 300 MB L3; notizieinlinea, 2023, from Yuuki_Ans's leak; Sapphire Rapids the same, hardwaretimes)"),
    l3_bytes_per_core: q(5242880.0, 5000000.0, 5242880.0, "bytes", Secondary, "5 MB L3 per core: 300 MB over 60 cores (8580) and 320 MB over 64 (8592+; techopse, Tom's Hardware review 2023-12-14)"),
    locked_rmw_ns: q(6.0, 4.0, 8.0, "ns", Assumed, "not found; as Skylake-SP's measured 6.0-6.2 ns: an Intel lock-prefixed RMW on an owned line drains the store buffer as a full fence, on Golden Cove as on Skylake"),
    copy_bytes_per_kcycle: SKYLAKE_SP.copy_bytes_per_kcycle.with_source("seed 000's fit on Skylake-SP carried over: no copy figure for Sapphire/Emerald Rapids was found; the same fast-string copy (rep movsb), a newer core at least as fast, the range up to 32 B/cycle"),
    copy_mlp: q(16.0, 10.0, 48.0, "lines in flight", Assumed, "Golden/Raptor Cove fill buffers not found in the sources searched: Skylake-SP's 16 superqueue entries as the floor of a newer core, the range up to 48"),
    copy_write_shared_ps: None,
    turbo_max_mhz: q(3900.0, 3800.0, 4000.0, "MHz", Secondary, "Xeon Platinum 8592+ 3.9 GHz boost, 1.9 GHz base (techopse, engineering sample); SPR's 8480 boosts to 3.8 GHz (chipsandcheese 'Golden Cove hits servers'); the guest's name hides the part"),
    turbo_all_core_mhz: q(2900.0, 1900.0, 3900.0, "MHz", Assumed, "all-core clock not found: between the 8592+'s 1.9 GHz base and its 3.9 GHz boost"),
    smt_slowdown_pct: q(160.0, 100.0, 200.0, "%", Assumed, "the vCPUs may or may not be SMT siblings"),
};

/// AMD Zen 4 server (EPYC 9004 "Genoa", CPUID family 25 model 17) under KVM, 2 vCPUs: one of
/// this project's measured guests (its model name, "AMD EPYC", hides the part).
pub const GENOA_GUEST: Family = Family {
    id: FamilyId::GenoaGuest,
    name: "AMD Zen 4 (EPYC 9004 Genoa) KVM guest, 2 vCPUs",
    line_smt_ns: q(10.3, 10.3, 10.4, "ns", Measured, "c2c CAS between SMT siblings: median 10.3 ns (10.3-10.4) over 96 pairs, Dual EPYC 9454 (KCORES/core-to-core-latency-plus results, @456cc116); the two vCPUs' placement on the host is not known"),
    line_same_socket_ns: q(27.1, 24.2, 33.9, "ns", Measured, "c2c CAS within one 8-core CCD: median 27.1 ns (24.2-33.9) over 672 pairs, Dual EPYC 9654 (KCORES @456cc116); the two vCPUs' placement on the host is not known"),
    line_cross_socket_ns: q(99.3, 85.2, 153.6, "ns", Measured, "c2c CAS across CCDs of one socket: median 99.3 ns (85.2-153.6) over 8448 pairs, the other socket 191.6; Dual EPYC 9654 (KCORES @456cc116)"),
    line_llc_ns: q(13.5, 10.0, 16.0, "ns", Secondary, "Zen 4's L3 about 50 cycles, our derivation (Chips and Cheese, 'Genoa-X: Server V-Cache Round 2', 2023-07-17: Milan-X's 50-cycle L3, V-Cache adds 4 cycles per AMD at ISSCC 2023) at Genoa's ~3.7 GHz, 13.5 ns; a desktop Zen 4 at 5+ GHz shows 10.1 ns (AIDA64 on a Ryzen 9 7900X, appuals)"),
    dram_ns: q(125.0, 110.0, 140.0, "ns", Assumed, "no Genoa figure in ns found: Chips and Cheese (2023-07-17) finds Genoa-X's memory latency near Sapphire Rapids' and above Milan-X's; Milan's 122 ns (Rome's, Anandtech 14694 p7) a little more, DDR5 behind the IO die"),
    dram_remote_ns: q(190.0, 180.0, 200.0, "ns", Measured, "one socket is simulated, so nothing reads it: the other socket's c2c CAS 191.6 ns (182.8-200.9), Dual EPYC 9654 (KCORES @456cc116)"),
    l2_bytes: q(1048576.0, 1048576.0, 1048576.0, "bytes", Secondary, "1 MB L2 per core (svethardware.cz and 3dfxzone on Genoa's CCDs, 2022-11; a Genoa engineering sample's Geekbench record, 2022-05)"),
    l3_bytes_per_core: q(4194304.0, 4194304.0, 4194304.0, "bytes", Secondary, "32 MB L3 per 8-core CCD, shared by all eight (svethardware.cz, 3dfxzone, tech2sports, 2022-11)"),
    locked_rmw_ns: q(2.0, 1.0, 5.0, "ns", Assumed, "not found; as zen5-guest: the same Zen locked-RMW design on an owned line, at a similar clock"),
    copy_bytes_per_kcycle: q(14000.0, 11200.0, 21400.0, "bytes/kcycle", Measured, "measured on this project's 2-vCPU Genoa KVM guest (Linux 6.18.44): rep movsb from a hot 4, 16 or 64 KiB source into a 0.5 or 1 MiB ring only that vCPU touches (tools/copy-rfo, modes own and ownstep; bash tools/copy-rfo/run.sh 3, 2026-12-07, data/copy-rfo/2026-12-07-amd-epyc-f25m17.txt): median 20.1 ns per KiB over 36 runs (13.1-25.0), 14,000 bytes per 1000 cycles at the measured 3,650 MHz (11,200-21,400); user space, so without copy_from_user's SMAP toggles"),
    copy_mlp: q(16.0, 10.0, 24.0, "lines in flight", Assumed, "Zen 4 fill buffers not found: as zen5-guest (Skylake-SP's 16 superqueue entries as the floor of a server core)"),
    copy_write_shared_ps: Some(q(6000.0, 4200.0, 34000.0, "ps", Measured, "measured on this project's 2-vCPU Genoa KVM guest (Linux 6.18.44, FSRM): rep movsb of 4, 16 or 64 KiB into a 0.5 or 1 MiB ring (inside both L2s) that the other vCPU had just copied out, lock-step, less the same with that reader on the writer's vCPU (tools/copy-rfo, modes xstep and samestep; bash tools/copy-rfo/run.sh 3, 2026-12-07, data/copy-rfo/2026-12-07-amd-epyc-f25m17.txt): median +96 ns per KiB over 18 run pairs, 6.0 ns per 64-byte line; 4.2 at the fastest pair, 34 in the slow mode a third of the pairs fell in")),
    turbo_max_mhz: q(3700.0, 3500.0, 4100.0, "MHz", Secondary, "EPYC 9654 2.4 GHz base, 3.7 GHz boost (TechPowerUp's database via llmperf.net; fanaticosdelhardware, 2022); Genoa-X's cores ran at ~3.7 GHz in Chips and Cheese's test (2023-07-17); the guest's name hides the part"),
    turbo_all_core_mhz: q(3650.0, 3600.0, 3700.0, "MHz", Measured, "measured on this project's Zen 4 guest with both vCPUs busy: 3,650 MHz (3,608-3,658 over its runs), a chain of dependent 1-cycle adds per ns of thread CPU time (tools/buddy-lock/clock.c, run by tools/buddy-lock/run.sh, 2026-12-07; docs/calibration.md); the guest's cpuinfo 2596 MHz is the host's TSC rate, not the core clock; the part itself is not known"),
    smt_slowdown_pct: q(160.0, 100.0, 200.0, "%", Assumed, "the vCPUs may or may not be SMT siblings: Skylake-SP's two-thread slowdown if they are, the range down to 100 (separate cores)"),
};
