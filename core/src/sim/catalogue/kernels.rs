//! The kernel-path costs of the catalogue (see [`super`]): one `KernelCosts` per kernel era ×
//! core family. [`SKYLAKE_SP_2018`] names every field; the others name the fields whose
//! figure or source differs from it and take the rest from it (the same borrowed figure with
//! the same source text: the Westmere/Xen 2011 UDP costs, the Intel per-CPU
//! counter costs, the Skylake-SP 2019 NIC costs).

use super::{q, Basis, Era, FamilyId, KernelCosts, Quantity};
use Basis::{Absent, Assumed, Estimate, Measured};

/// Seed 000's TCP fit (`skblab calibrate high-order-alloc` on Skylake-SP 2019): the work per
/// segment sent. Entries without a TCP figure of their own carry this value, still marked as
/// the fit it is, with why it carries over.
const SEED000_TCP_SKB: Quantity = q(14894.0, 3000.0, 40000.0, "cycles", Basis::Fitted(&["seed000"]), "fitted by `skblab calibrate high-order-alloc` (seed 000, 16 KiB sends, Linux ACK rules), per segment; no per-segment figure was found: 1-10 us of a loopback segment's round through the stack");
/// Seed 000's fit of the receiver's work per skb consumed (see [`SEED000_TCP_SKB`]).
const SEED000_TCP_RECVMSG: Quantity = q(8815.0, 1000.0, 40000.0, "cycles", Basis::Fitted(&["seed000"]), "fitted by `skblab calibrate high-order-alloc` (seed 000, Linux ACK rules), per skb consumed, syscall excluded; no figure found");
/// Seed 000's fit of one frag-loop iteration (see [`SEED000_TCP_SKB`]).
const SEED000_TCP_FRAG: Quantity = q(
    279.0,
    20.0,
    600.0,
    "cycles",
    Basis::Fitted(&["seed000"]),
    "fitted by `skblab calibrate high-order-alloc` (seed 000): one iteration of the frag loop",
);

/// The per-CPU counter's fast path on Intel server cores: time_bench figures of Intel cores of
/// 2014-2025 (proxies for every Intel entry alike: the same few instructions).
const INTEL_PERCPU_ADD: Quantity = q(15.0, 8.0, 30.0, "cycles", Estimate, "direct call 2.15 ns (E5-2695, 5c9f42c), preempt_disable+enable 0.36-4.29 ns (c13c513, 3440f09), this_cpu_inc 1 cycle (Siewior <20250408105922.1135150-1-bigeasy@linutronix.de>), Intel cores of 2014-2025, at 2.4-3.8 GHz: 8-30 cycles");
/// The per-CPU counter's fold on Intel server cores (see [`INTEL_PERCPU_ADD`]).
const INTEL_PERCPU_FOLD: Quantity = q(75.0, 55.0, 110.0, "cycles", Estimate, "spin_lock+unlock 37 cycles (E5-1650 v4, <3c8e4f86-87e2-470d-84d8-86c70b3e2fcc@kernel.org>) + local_irq_save/restore 37 cycles (i7-4790K, fbd02630c6e3; 14.84 ns on E5-2695, 3440f09)");
/// One inlined per-CPU add with preempt toggles on Intel cores (see [`INTEL_PERCPU_ADD`]).
const INTEL_THIS_CPU_OP: Quantity = q(3.0, 1.0, 8.0, "cycles", Estimate, "this_cpu_inc 1 cycle (Siewior <20250408105922.1135150-1-bigeasy@linutronix.de>) plus preempt_disable/enable without PREEMPT_COUNT 0.36 ns (c13c513)");

/// Why an entry of 2011 or 2018 carries seed 000's TCP fit: nothing it runs sends TCP.
const TCP_CARRIED_UNUSED: &str = "seed 000's fit on Skylake-SP 2019 carried over: no experiment sends TCP on a 2011 or 2018 entry (their seeds forward packets, count socket memory or send UDP), so no prediction reads it here; the same tcp_output/tcp_input code, and no per-segment figure for this family";
/// Why this project's guests carry seed 000's TCP fit.
const TCP_CARRIED_GUEST: &str = "seed 000's fit on Skylake-SP 2019 carried over as the catalogue-alone prediction of this project's 6.x guests (the same tcp_output/tcp_input code; no per-segment figure for this family); `skblab calibrate --machine` refits tcp_skb_cycles on a measured file's 64 KiB stream cells";

/// The receiving CPU's TCP work per GRO skb from a NIC, from the receiving thread's CPU time
/// of a zero-copy receive (nothing copied), less what the worlds charge apart. Only tcp-100g
/// reads it; the entries that take it from Skylake-SP 2018 carry it unread.
const TCP_RX_GRO_SKB: Quantity = q(
    5700.0,
    3900.0,
    11600.0,
    "cycles",
    Estimate,
    "93ab6cc69162 (Eric Dumazet, tcp: implement mmap() for zero copy receive, net-next 2018-04-16, v4.18): mlx4 40 Gbit, MTU 4168 (4096-byte segments), one flow, the receiving thread's user+sys time (tcp_mmap, getrusage RUSAGE_THREAD) 45.47 us per MiB with mmap() instead of a copy, at 34.2 Gbit; GRO stops an skb below 64 KiB (skb_gro_receive), at most 15 such segments, so at least 17.07 skbs per MiB: at most 2.664 us per skb, 7,727 cycles at the family's 2.9 GHz; less what the worlds charge apart, 15 page frees (15 x pcp_op 104), the sk_buff's free (slub_fast 25 + skb_cycles/2 200) and the syscalls of each 512 KiB chunk (3 x 700 / 8.5 skbs): 5,700; min 3,900 if the page mapping and its zap (no figure) cost as much as the frees; max 11,600, nothing subtracted and half again for TCP receive run in the NIC's softirq outside the thread; other families' entries carry it unread (only tcp-100g reads it)",
);

/// One TCP socket-timer re-arm with its caller's timeout (`tcp_timer_rearm_cycles`), measured on
/// this project's Zen 4 guest: the CPU time of a loopback TCP ping-pong inside
/// `tcp_send_delayed_ack`, `tcp_rearm_rto` and `tcp_schedule_loss_probe` with their
/// `sk_reset_timer` → `__mod_timer`, per call, at the guest's measured clock.
const TCP_TIMER_REARM_CYCLES: f64 = 219.0;
const TCP_TIMER_REARM_MIN: f64 = 118.0;
const TCP_TIMER_REARM_MAX: f64 = 341.0;
const TCP_TIMER_REARM_SOURCE: &str = "measured on this project's 2-vCPU Zen 4 guest, Linux 6.18.44, with tools/timer-cost/run.sh 20 (data/timer-cost/2026-12-07-amd-epyc-f25m17.txt; perf record -a -g -e cpu-clock of sockperf ping-pong over loopback TCP, 64-byte messages, 532,451 round trips, the machine loaded by builds): 179.6 ns per side per transaction in the three re-arms (the delayed ACK 53.9 ns, the RTO 32.3, the loss probe 93.4, each with its caller's timeout computation), 59.9 ns per call, 219 cycles at the guest's measured 3,650 MHz (earlier runs: 60.0 and 67.6 ns); the range is the three kinds' spread";
/// The same figure carried to the other entries.
const TCP_TIMER_REARM_CARRIED: &str = "carried over from this project's Zen 4 guest (Linux 6.18, loopback sockperf ping-pong under perf, tools/timer-cost/run.sh: 59.9 ns, 219 cycles per re-arm with its caller's timeout): the same tcp_send_delayed_ack / tcp_rearm_rto / tcp_schedule_loss_probe and __mod_timer code (the 4.8 timer wheel's same-bucket return, taken by 99 % of the re-arms) at the same cycles on this core and kernel; the range from the three kinds' spread (118-341) to 2x for another core and kernel";

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
    tcp_skb_cycles: SEED000_TCP_SKB,
    tcp_rx_share_pct: q(50.0, 30.0, 70.0, "%", Assumed, "loopback netperf: the softirq receive is about half the stack's time (ptesarik, SIGILLatum local-ip-performance, 2024-05-31: >3 s of 10 s in net_rx_action on each side)"),
    tcp_recvmsg_skb_cycles: SEED000_TCP_RECVMSG,
    tcp_frag_cycles: SEED000_TCP_FRAG,
    tcp_rx_gro_skb_cycles: TCP_RX_GRO_SKB.with_source("as Skylake-SP 2018 (93ab6cc69162's zero-copy receive, 45.47 us per MiB of the receiving thread's time, at most 2.664 us per GRO skb, less the frees and syscalls charged apart): the receive path then ran tcp_v4_rcv and tcp_mmap (not tcp_recvmsg; the commit names no CPU, the family's 2.9 GHz assumed), the same receive code in 5.x, whose mitigations are in syscall_cycles, charged apart"),
    wake_latency_ns: q(3000.0, 1000.0, 10000.0, "ns", Assumed, "bare metal: a CPU idle for less than C6's 600 us target residency sleeps in C1 (exit 2 us) or C1E (10 us) (intel_idle skx_cstates, drivers/idle/intel_idle.c, read at v5.2; the menu governor may also pick the POLL state); MWAIT idle sets TIF_POLLING_NRFLAG and monitors the thread flags (mwait_idle_with_hints, arch/x86/include/asm/mwait.h), so try_to_wake_up's store wakes it with no IPI; which of the two the menu governor picks is not known: 3 us, nearer C1"),
    idle_exit_ns: q(40000.0, 2000.0, 133000.0, "ns", Assumed, "intel_idle skx_cstates exit latencies C1 2 us, C1E 10, C6 133 (drivers/idle/intel_idle.c): which state an idle CPU sleeps in is not known, so a value between C1E's and C6's, Broadwell-EP's C3 40 us, the range all three"),
    nic_rx_pkt_cycles: q(400.0, 250.0, 600.0, "cycles", Estimate, "mlx5 RX to generic XDP drop at 8.17 Mpps = 122.5 ns per packet on an i7-6700K (Skylake core, 4 GHz), minus kmem_cache_alloc 4.9 ns and the kfree_skb path 18.3 ns: ~99 ns, ~400 cycles (Brouer, prototype-kernel xdp25_eval_generic_xdp_tx.rst, 2017)"),
    nic_tx_pkt_cycles: q(400.0, 300.0, 600.0, "cycles", Estimate, "mlx5 generic-XDP XDP_TX at 4.57 Mpps = 218.6 ns per packet against XDP_DROP at 8.41 Mpps = 118.9 ns on an i7-6700K (Skylake core, 4 GHz, 4.12-era generic XDP, Brouer, prototype-kernel xdp25_eval_generic_xdp_tx.rst, 2017): ~100 ns, ~400 cycles for netdev_pick_tx, the tx queue's lock, mlx5e_xmit with a doorbell per packet (no xmit_more) and DMA map, and the TX completion, the skb's free moved rather than added; no qdisc in it (generic_xdp_tx bypasses it); the range for the runs' spread (95.6-104.5 ns) at 4.0-4.2 GHz and an uncore doorbell that does not scale with the clock"),
    epoll_event_cycles: q(200.0, 100.0, 400.0, "cycles", Assumed, "no figure found: ep_item_poll (tcp_poll) plus a 12-byte copy to user and two list moves per event"),
    context_switch_cycles: q(2500.0, 1000.0, 5000.0, "cycles", Assumed, "no figure found for 2019 Skylake-SP: schedule() between two threads of one process, with the 2019 mitigations' return-stack and IBPB-free paths, 0.3-1.3 us at 3.8 GHz"),
    tcp_timer_rearm_cycles: q(TCP_TIMER_REARM_CYCLES, TCP_TIMER_REARM_MIN, 2.0 * TCP_TIMER_REARM_CYCLES, "cycles", Estimate, TCP_TIMER_REARM_CARRIED),
    rps_enqueue_cycles: q(600.0, 300.0, 1500.0, "cycles", Assumed, "no figure found: the backlog's spin_lock (37 cycles) and the list add, plus a share of an IPI send (an APIC write, a few hundred cycles) per packet"),
    ..SKYLAKE_SP_2018
};

/// Kernel-path costs of 4.x kernels (2018, before the 5.0 page allocator changes) on Skylake-SP:
/// seed 002's router (4.19). No Skylake-SP allocator timing was found: the page-allocator
/// values are Broadwell-EP's time_bench figures (same core generation's allocator code, a
/// proxy), the others as Skylake-SP 2019 without the 2019 syscall mitigations.
pub const SKYLAKE_SP_2018: KernelCosts = KernelCosts {
    family: FamilyId::SkylakeSp,
    era: Era::Linux2018,
    pcp_op_cycles: q(104.0, 90.0, 136.0, "cycles", Measured, "Broadwell proxy: order-0 alloc+free through the PCP 207 cycles, E5-1650 v4 (prototype-kernel 4c41fe0); 231-272 on 4.6 (<20160415144402.5fbe7a1e@redhat.com): half a pair each"),
    buddy_step_cycles: q(30.0, 15.0, 60.0, "cycles", Estimate, "as Skylake-SP 2019 (order-3 alloc+free 524 cycles on 1 CPU with ~8 list steps and the lock, <20160415144402.5fbe7a1e@redhat.com)"),
    compound_tail_cycles: q(8.0, 4.0, 20.0, "cycles", Estimate, "page_bench01 on 4.6.0-rc1 (Brouer <20160415144402.5fbe7a1e@redhat.com>): alloc+free pairs of order 9 8,398 cycles (16.4 per 4 KiB page), order 8 16.0, order 7 18.2: ~16 per subpage per pair, half at each end"),
    slub_fast_cycles: q(25.0, 21.0, 30.0, "cycles", Measured, "as Skylake-SP 2019 (<20150617142613.11791.76008.stgit@devil>, <20200618113121.78a6a2ca@carbon>)"),
    slub_slow_cycles: q(45.0, 25.0, 60.0, "cycles", Measured, "as Skylake-SP 2019 (prototype-kernel 279020c)"),
    spin_lock_cycles: q(37.0, 31.0, 41.0, "cycles", Measured, "as Skylake-SP 2019: 37 cycles E5-1650 v4, 31 Gold 6140"),
    syscall_cycles: q(700.0, 400.0, 1500.0, "cycles", Assumed, "as Broadwell-EP 2018: 4.x entry/exit ~100 ns (getpid 191 ns on Skylake-X with 2019 mitigations and audit rules is the upper end, Oracle Linux blog 2023) plus fd lookup and socket locking, ~0.2 us at 3-3.5 GHz"),
    wakeup_cycles: q(4000.0, 2000.0, 8000.0, "cycles", Assumed, "as Skylake-SP 2019: the same try_to_wake_up + schedule() code on the same core, 1-2 us of a cross-CPU wakeup"),
    tcp_skb_cycles: SEED000_TCP_SKB.with_source(TCP_CARRIED_UNUSED),
    tcp_rx_share_pct: q(50.0, 30.0, 70.0, "%", Assumed, "as Skylake-SP 2019: the same split of one loopback segment between the transmit half and the softirq receive (ptesarik's >3 s of 10 s in net_rx_action on each side, 2024), no figure for 4.x"),
    tcp_recvmsg_skb_cycles: SEED000_TCP_RECVMSG.with_source(TCP_CARRIED_UNUSED),
    tcp_frag_cycles: SEED000_TCP_FRAG.with_source(TCP_CARRIED_UNUSED),
    tcp_rx_gro_skb_cycles: TCP_RX_GRO_SKB,
    skb_cycles: q(400.0, 200.0, 800.0, "cycles", Assumed, "as Westmere/Xen 2011: the same code (__alloc_skb's init, the shinfo memset and skb_release_all), no figure for either family; a 2011 estimate in cycles holds within its range on a later core of similar IPC"),
    udp_send_cycles: q(2500.0, 1200.0, 5000.0, "cycles", Assumed, "as Westmere/Xen 2011: the same code (udp_sendmsg .. dev_queue_xmit), no figure for either family; a 2011 estimate in cycles holds within its range on a later core of similar IPC"),
    udp_rcv_cycles: q(1500.0, 800.0, 3000.0, "cycles", Assumed, "as Westmere/Xen 2011: the same code (netif_receive_skb .. sock_queue_rcv_skb), no figure for either family; a 2011 estimate in cycles holds within its range on a later core of similar IPC"),
    udp_recvmsg_cycles: q(1000.0, 500.0, 2500.0, "cycles", Assumed, "as Westmere/Xen 2011: the same code (skb_recv_datagram, checksum, skb_free_datagram_locked), no figure for either family; a 2011 estimate in cycles holds within its range on a later core of similar IPC"),
    pv_net_tx_cycles: q(0.0, 0.0, 0.0, "cycles", Absent, "bare metal: no Xen PV network layer, so no cost (0 by construction)"),
    pv_net_rx_cycles: q(0.0, 0.0, 0.0, "cycles", Absent, "bare metal: no Xen PV network layer, so no cost (0 by construction)"),
    pv_upcall_cycles: q(0.0, 0.0, 0.0, "cycles", Absent, "bare metal: no Xen PV event channels, so no cost (0 by construction)"),
    wake_latency_ns: q(
        3000.0,
        1000.0,
        10000.0,
        "ns",
        Assumed,
        "bare metal or HVM: the IPI and leaving a shallow idle state (intel_idle C1 2 us, C1E 10 us), a few us",
    ),
    ipi_send_ns: q(
        300.0,
        100.0,
        1000.0,
        "ns",
        Assumed,
        "bare metal: one x2APIC ICR write (a WRMSR) and the wake list's entry, a few hundred ns (our estimate, no figure); unread on this entry and those that take it from here (the Xen 2011 and Arm entries included): only the machine comparison's stream runs charge waiting, on the guest families",
    ),
    percpu_add_cycles: INTEL_PERCPU_ADD,
    percpu_fold_cycles: INTEL_PERCPU_FOLD,
    this_cpu_op_cycles: INTEL_THIS_CPU_OP,
    timer_fire_cycles: q(300.0, 150.0, 1000.0, "cycles", Assumed, "as Broadwell-EP 2018: the same expire_timers / tcp_write_timer early exit, a lock pair and an atomic measured alike on both cores"),
    tcp_timer_rearm_cycles: q(TCP_TIMER_REARM_CYCLES, TCP_TIMER_REARM_MIN, 2.0 * TCP_TIMER_REARM_CYCLES, "cycles", Estimate, TCP_TIMER_REARM_CARRIED),
    idle_exit_ns: q(
        40000.0,
        2000.0,
        133000.0,
        "ns",
        Assumed,
        "as Skylake-SP 2019 (intel_idle skx_cstates C1 2 us, C1E 10, C6 133): which state an idle CPU sleeps in is not known",
    ),
    nic_rx_pkt_cycles: q(400.0, 250.0, 600.0, "cycles", Assumed, "as Skylake-SP 2019, whose estimate is from a Skylake-core i7-6700K (mlx5, 4.12-era): the same core and driver path; no experiment on a 2018 entry reads it (the forwarding worlds keep their own driver costs)"),
    nic_tx_pkt_cycles: q(400.0, 300.0, 600.0, "cycles", Estimate, "as Skylake-SP 2019, whose estimate is from a Skylake-core i7-6700K (mlx5 generic-XDP XDP_TX against XDP_DROP, 4.12-era): the same core and driver path; no experiment on a 2018 entry reads it"),
    epoll_event_cycles: q(200.0, 100.0, 400.0, "cycles", Assumed, "as Skylake-SP 2019: the same ep_send_events loop on the same core"),
    context_switch_cycles: q(2500.0, 1000.0, 5000.0, "cycles", Assumed, "as Skylake-SP 2019: the same schedule() between threads of one process; 4.x's lighter mitigations are inside the range"),
    rps_enqueue_cycles: q(600.0, 300.0, 1500.0, "cycles", Assumed, "as Skylake-SP 2019: the same backlog lock and IPI send on the same core"),
};

/// Kernel-path costs of 2016–2018 kernels on Broadwell-EP: seed 003, seed 002's x86 bench.
pub const BROADWELL_EP_2018: KernelCosts = KernelCosts {
    family: FamilyId::BroadwellEp,
    pcp_op_cycles: q(104.0, 90.0, 136.0, "cycles", Measured, "order-0 alloc+free through the PCP 207 cycles, E5-1650 v4 (prototype-kernel 4c41fe0); 231-272 on 4.6: half a pair each"),
    buddy_step_cycles: q(30.0, 15.0, 60.0, "cycles", Estimate, "as Skylake-SP 2019 (same allocator, <20160415144402.5fbe7a1e@redhat.com>)"),
    slub_fast_cycles: q(30.0, 24.0, 30.0, "cycles", Measured, "SLUB alloc+free 60 cycles per pair, E5-1650 v4 (<20200618113121.78a6a2ca@carbon>); 48 on E5-2695 (279020c)"),
    slub_slow_cycles: q(45.0, 25.0, 60.0, "cycles", Measured, "93 vs 48 cycles per pair beyond the per-CPU slab (279020c, E5-2695)"),
    spin_lock_cycles: q(37.0, 31.0, 41.0, "cycles", Measured, "spin_lock+unlock 37 cycles, E5-1650 v4 (<3c8e4f86-87e2-470d-84d8-86c70b3e2fcc@kernel.org>); 41 on E5-2695 (5c9f42c)"),
    syscall_cycles: q(700.0, 400.0, 1500.0, "cycles", Assumed, "no figure found: syscall entry/exit ~100 ns before the 2019 mitigations (getpid 191 ns on Skylake-X with them and audit rules, Oracle Linux blog 2023, the upper end), plus fd lookup and socket locking: ~0.2 us at 2.9-3.5 GHz"),
    wake_latency_ns: q(3000.0, 1000.0, 10000.0, "ns", Assumed, "bare metal: the IPI and leaving a shallow idle state (intel_idle bdw_cstates C1 2 us, C1E 10 us), a few us"),
    timer_fire_cycles: q(300.0, 150.0, 1000.0, "cycles", Assumed, "no figure found: bh_lock_sock+unlock 37 cycles, sock_put one atomic 17 cycles (<3c8e4f86-87e2-470d-84d8-86c70b3e2fcc@kernel.org>), and a few dozen instructions in each of 5 call levels: ~54 measured plus ~250 for the rest"),
    idle_exit_ns: q(40000.0, 2000.0, 133000.0, "ns", Assumed, "intel_idle bdw_cstates exit latencies C1 2 us, C1E 10, C3 40, C6 133 (drivers/idle/intel_idle.c): which state the CPUs sleep in is not known; C3's, the middle"),
    ..SKYLAKE_SP_2018
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
    buddy_step_cycles: q(30.0, 15.0, 60.0, "cycles", Estimate, "as Skylake-SP 2019 (order-3 alloc+free 524 cycles on 1 CPU with ~8 list steps and the lock, <20160415144402.5fbe7a1e@redhat.com>): the same list operations, in cycles, on a 2011 core"),
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
    skb_cycles: q(400.0, 200.0, 800.0, "cycles", Assumed, "no figure found: __alloc_skb init + shinfo memset and skb_release_all, a few hundred cycles"),
    udp_send_cycles: q(2500.0, 1200.0, 5000.0, "cycles", Assumed, "no per-datagram UDP send figure found: udp_sendmsg to dev_queue_xmit, a few thousand cycles in 2011"),
    udp_rcv_cycles: q(1500.0, 800.0, 3000.0, "cycles", Assumed, "no figure found: netif_receive_skb .. sock_queue_rcv_skb, about 1-2 thousand cycles"),
    udp_recvmsg_cycles: q(1000.0, 500.0, 2500.0, "cycles", Assumed, "no figure found: skb_recv_datagram, checksum, skb_free_datagram_locked"),
    pv_net_tx_cycles: q(4000.0, 1500.0, 10000.0, "cycles", Assumed, "Menon et al. (USENIX ATC 2006), Santos et al. (USENIX ATC 2008): PV netfront costs a few us per packet on 2006-08 CPUs; a notify hypercall each packet when the backend keeps up"),
    pv_net_rx_cycles: q(3000.0, 1500.0, 8000.0, "cycles", Assumed, "the same few-us PV netfront cost as pv_net_tx (Menon et al. 2006, Santos et al. 2008), less one notify: grant end + slot refill (page + grant) + header pull, the notify batched over the ring"),
    pv_upcall_cycles: q(2000.0, 1000.0, 5000.0, "cycles", Assumed, "a KVM exit is ~2,000 cycles (SplitX, Nehalem X5570 proxy); a PV upcall bounces through Xen and returns by hypercall"),
    wake_latency_ns: q(10000.0, 3000.0, 50000.0, "ns", Assumed, "a blocked vCPU must be scheduled again by Xen's credit scheduler: several to tens of us"),
    ..SKYLAKE_SP_2018
};

/// Kernel-path costs of 2018 kernels on the Cortex-A53 (seed 002).
pub const CORTEX_A53_2018: KernelCosts = KernelCosts {
    family: FamilyId::CortexA53,
    pcp_op_cycles: q(
        150.0,
        100.0,
        250.0,
        "cycles",
        Assumed,
        "no A53 figure: an in-order core runs the ~100-cycle x86 path 1-2x slower",
    ),
    buddy_step_cycles: q(40.0, 20.0, 80.0, "cycles", Assumed, "no A53 figure: x86's ~30-cycle list step (Skylake-SP 2019's estimate) run by a 2-wide in-order core, 1-2x slower; 40, the lower end, as the step is a few dependent loads and stores"),
    compound_tail_cycles: q(12.0, 6.0, 30.0, "cycles", Assumed, "no A53 figure: x86's 8 cycles per tail page (page_bench01's per-page slope) run by a 2-wide in-order core, 1-2x slower: a few stores to one struct page"),
    slub_fast_cycles: q(40.0, 25.0, 60.0, "cycles", Assumed, "no A53 figure: x86's measured 21-30 cycles (half a SLUB alloc+free pair) 1-2x slower in order; the this_cpu cmpxchg_double is an LDXP/STXP pair on arm64"),
    slub_slow_cycles: q(60.0, 30.0, 100.0, "cycles", Assumed, "no A53 figure: x86's measured ~45 extra cycles per pair beyond the per-CPU slab, 1-2x slower in order"),
    spin_lock_cycles: q(50.0, 30.0, 80.0, "cycles", Assumed, "no A53 figure: lock and unlock are two exclusive pairs (or LDADDA with LSE, absent on the A53) with acquire/release barriers; x86's measured 31-41 cycles scaled by 1-2x"),
    syscall_cycles: q(800.0, 400.0, 1500.0, "cycles", Assumed, "no A53 figure: an arm64 svc entry/exit without KPTI is cheaper than x86's but the core is in order; x86's ~700-cycle assumption (Broadwell-EP 2018), a little slower"),
    percpu_add_cycles: q(15.0, 8.0, 30.0, "cycles", Assumed, "no Arm figure: the Intel estimate's few instructions (a call, the preempt toggles, a per-CPU add through tpidr_el1), the in-order core's 1-2x inside its range"),
    percpu_fold_cycles: q(75.0, 55.0, 110.0, "cycles", Assumed, "no Arm figure: the Intel estimate (a lock pair and the IRQ flags save/restore), the in-order core's 1-2x inside its range"),
    this_cpu_op_cycles: q(3.0, 1.0, 8.0, "cycles", Assumed, "no Arm figure: the Intel estimate of one per-CPU add with preempt toggles"),
    wakeup_cycles: q(4000.0, 2000.0, 8000.0, "cycles", Assumed, "no A53 figure: the same try_to_wake_up + schedule() code as x86's 1-2 us; no experiment wakes tasks on this entry (seed 002 forwards in softirq)"),
    ..SKYLAKE_SP_2018
};

/// The waker's side of a wakeup IPI in a KVM guest (`ipi_send_ns`).
const GUEST_IPI_SEND: &str = "KVM guest, x2APIC, no IPI virtualization: 4,338 cycles on average from the ICR write of the sending vCPU to the target vCPU having handled the IPI (kvm-unit-tests vmexit/ipi, 2 vCPUs, target spinning, not halted; Zeng Guang, [PATCH v4 0/6] IPI virtualization support for VM, kvm list 2021-08-09, <20210809032925.3548-1-guang.zeng@intel.com>), 1.4-2.2 us at 2-3 GHz (the clock is not given): the exit of the write is part of it; with a halted target the exit also wakes that vCPU's thread on the host (kvm_vcpu_kick), a host try_to_wake_up of about half this catalogue's wakeup_cycles (try_to_wake_up + schedule()), so up to 5 us; 2 us, the round trip's middle. Ours: the figure is from an Intel VT-x host (IPI virtualization is VT-x's) and is used for AMD SVM/AVIC guests too, and the whole round trip is charged to the waker. The Genoa guest measured 6.5 us on its own host (tools/wake-cost); not carried over to guests of other hosts, whose exit cost is their host's (its CPU, KVM, halt polling): a file whose sched suite has the wake cells uses its own";

/// Kernel-path costs of 6.x kernels on this project's Zen 5 guests.
pub const ZEN5_GUEST_2026: KernelCosts = KernelCosts {
    family: FamilyId::Zen5Guest,
    era: Era::Linux2026,
    pcp_op_cycles: q(104.0, 60.0, 200.0, "cycles", Assumed, "no Zen figure for 6.x: as Broadwell-EP's measured 207-cycle PCP pair (E5-1650 v4, prototype-kernel 4c41fe0), the same rmqueue_pcplist / free_unref_page code; the range allows a core 1.7x faster or 2x slower"),
    buddy_step_cycles: q(30.0, 15.0, 83.0, "cycles", Estimate, "estimated from a Zen 4 guest (this project's 2-vCPU KVM guest, Linux 6.18, 3,650 MHz measured; tools/buddy-lock/run.sh, 2026-12-07, loaded machine): a merge step of __free_one_page under zone->lock 22.8 ns or 83 cycles with its line misses, a split step of expand 42-53 ns (medians over 9 runs of the slope over the step count; the runs range -30 to 103 ns per merge step): the median read as an upper value for the step's instructions, 83 cycles (ours: a median of a loaded machine is not a bound); Skylake-SP 2019's 30-cycle estimate kept inside it"),
    slub_fast_cycles: q(80.0, 60.0, 92.0, "cycles", Measured, "SLUB alloc+free 153-184 cycles per pair on Ryzen 7 1700, 5.8-rc1 (<20200619103247.7b8bc9ad@carbon>): Zen 1 proxy"),
    slub_slow_cycles: q(45.0, 25.0, 90.0, "cycles", Assumed, "as Skylake-SP 2019's measured ~45 extra cycles per pair (prototype-kernel 279020c): the same ___slab_alloc code; no Zen figure, the range up to twice (Zen 1's fast path was 2.5x Intel's)"),
    spin_lock_cycles: q(37.0, 20.0, 60.0, "cycles", Assumed, "as Skylake-SP 2019's measured 31-37 cycles (qspinlock lock+unlock on an owned line): no Zen figure; the range covers a cheaper or a dearer locked RMW"),
    percpu_add_cycles: q(15.0, 8.0, 30.0, "cycles", Assumed, "no AMD figure: the Intel estimate's few instructions (a call, the preempt toggles, a gs-relative add) on a core of similar width"),
    percpu_fold_cycles: q(75.0, 55.0, 110.0, "cycles", Assumed, "no AMD figure: the Intel estimate (a lock pair and the IRQ flags save/restore) on a core of similar width"),
    this_cpu_op_cycles: q(3.0, 1.0, 8.0, "cycles", Assumed, "no AMD figure: the Intel estimate of one gs-relative add with preempt toggles"),
    syscall_cycles: q(1000.0, 400.0, 2000.0, "cycles", Assumed, "no figure for a 6.x KVM guest: between the pre-2019 ~700 cycles and Skylake-SP 2019's 1,500 (getpid 191-217 ns with mitigations), as a 6.x kernel on Zen needs fewer of Intel's mitigations but adds its own return thunks"),
    wakeup_cycles: q(4000.0, 2000.0, 8000.0, "cycles", Assumed, "as Skylake-SP: the same try_to_wake_up + schedule() code; a KVM guest's IPI exit is in ipi_send_ns (the waker's side) and wake_latency_ns (the wakee's), not here"),
    tcp_skb_cycles: SEED000_TCP_SKB.with_source(TCP_CARRIED_GUEST),
    tcp_recvmsg_skb_cycles: SEED000_TCP_RECVMSG.with_source(TCP_CARRIED_GUEST),
    tcp_frag_cycles: SEED000_TCP_FRAG.with_source(TCP_CARRIED_GUEST),
    pv_net_tx_cycles: q(0.0, 0.0, 0.0, "cycles", Absent, "a KVM guest (virtio): no Xen PV network layer, so no cost (0 by construction)"),
    pv_net_rx_cycles: q(0.0, 0.0, 0.0, "cycles", Absent, "a KVM guest (virtio): no Xen PV network layer, so no cost (0 by construction)"),
    pv_upcall_cycles: q(0.0, 0.0, 0.0, "cycles", Absent, "a KVM guest (virtio): no Xen PV event channels, so no cost (0 by construction)"),
    wake_latency_ns: q(3000.0, 1000.0, 10000.0, "ns", Assumed, "not measured on this family: bare metal's few us (an IPI, a shallow idle state); a halted vCPU's exit through the host can take more (the Milan and Emerald Rapids guests measured 6.5 and 29.7-61.6 us), the range up to 10 us"),
    ipi_send_ns: q(2000.0, 1000.0, 5000.0, "ns", Estimate, GUEST_IPI_SEND),
    idle_exit_ns: q(40000.0, 2000.0, 133000.0, "ns", Assumed, "not measured on this family: Skylake-SP's middle value (intel_idle C1E 10 us .. C6 133 us) for want of a guest figure; the Milan and Emerald Rapids guests' halted vCPUs exit in 6.5-61.6 us (29.7 in the quiet 2026-12-07 measurement)"),
    ..SKYLAKE_SP_2018
};

/// Kernel-path costs of 6.x kernels on this project's Zen 3 (Milan) guests: the Zen 5
/// guest's, but for the wakeup of a halted vCPU, estimated from this family's measured
/// loopback request/response.
pub const MILAN_GUEST_2026: KernelCosts = KernelCosts {
    family: FamilyId::MilanGuest,
    wake_latency_ns: q(6500.0, 2000.0, 13000.0, "ns", Estimate, "at most one wakeup per half of a loopback TCP round trip: sockperf pp --tcp, one flow, avg-lat 13.02 us on this family's 2-vCPU KVM guest (data/measurements/2026-12-02-amd-epyc-f25m1.json, rr suite), sockperf's half round trip (src/client.cpp divides by 2 without --full-rtt), each half one wakeup and the TCP work: 6.5 us, half of it; not measured with the sched suite yet, so that file's rr cells are not predicted independently of it"),
    idle_exit_ns: q(6500.0, 2000.0, 13000.0, "ns", Estimate, "a halted vCPU leaves HLT through the host (VM exit, the host's halt polling, VM entry): as wake_latency_ns"),
    ..ZEN5_GUEST_2026
};

/// Kernel-path costs of 6.x kernels on this project's Emerald Rapids guests: the Zen 5
/// guest's, but for the wakeup of a halted vCPU, measured on such a guest with the sched suite.
pub const EMR_GUEST_2026: KernelCosts = KernelCosts {
    family: FamilyId::EmrGuest,
    percpu_add_cycles: INTEL_PERCPU_ADD,
    percpu_fold_cycles: INTEL_PERCPU_FOLD,
    this_cpu_op_cycles: INTEL_THIS_CPU_OP,
    wake_latency_ns: q(EMR_WAKE_NS, EMR_WAKE_MIN_NS, EMR_WAKE_MAX_NS, "ns", Measured, EMR_WAKE_SOURCE),
    idle_exit_ns: q(EMR_WAKE_NS, 1000.0, EMR_WAKE_MAX_NS, "ns", Estimate, "a halted vCPU (cpuidle driver haltpoll, guest_halt_poll_ns=0: no polling in the guest) leaves HLT through the host: as wake_latency_ns; bare metal Sapphire/Emerald Rapids exits C1 in 1 us, C1E in 2, C6 in 290 (intel_idle.c spr_cstates, which Emerald Rapids uses; C1E per commit 1548fac47a11)"),
    ..ZEN5_GUEST_2026
};

/// The Emerald Rapids guest's cross-CPU wakeup: half of (the dd ring's round trip across the
/// two vCPUs less its round trip on one), from the committed quiet measurement of such a
/// guest; the range up to the earlier runs on a loaded machine.
const EMR_WAKE_NS: f64 = 29675.0;
const EMR_WAKE_MIN_NS: f64 = 29675.0;
const EMR_WAKE_MAX_NS: f64 = 136400.0;
const EMR_WAKE_SOURCE: &str = "measured on a 2-vCPU Emerald Rapids KVM guest with skblab measure sched (data/measurements/2026-12-07-intel-xeon-f6m207.json, cells ring-cross-cpu and ring-same-cpu: two dd bs=1 pinned by taskset, one byte around two FIFOs, across vCPUs 1 and 0 and on vCPU 0 alone, 20,000 round trips, the commands in the file; 0-4.5 % foreign CPU): medians 62.30 and 2.96 us per round trip, (62.30 - 2.96) / 2 = 29.7 us per wakeup; earlier runs of the same cells gave 126.0-134.2 us across (61.6 per wakeup, load average 1-4) and 159.7-266.1 us on a loaded machine (data/measurements/2026-12-06-intel-xeon-f6m207.json, up to 136 us per wakeup); cpuidle haltpoll with guest_halt_poll_ns=0 (the host's halt polling is not visible from inside)";

/// Kernel-path costs of 6.x kernels on this project's Zen 4 (Genoa) guests: the Zen 5 guest's,
/// but for the wakeup of a halted vCPU, measured on such a guest with the sched suite, and its
/// waker's side, measured with tools/wake-cost.
pub const GENOA_GUEST_2026: KernelCosts = KernelCosts {
    family: FamilyId::GenoaGuest,
    tcp_timer_rearm_cycles: q(
        TCP_TIMER_REARM_CYCLES,
        TCP_TIMER_REARM_MIN,
        TCP_TIMER_REARM_MAX,
        "cycles",
        Measured,
        TCP_TIMER_REARM_SOURCE,
    ),
    ipi_send_ns: q(GENOA_IPI_NS, GENOA_IPI_MIN_NS, GENOA_IPI_MAX_NS, "ns", Measured, GENOA_IPI_SOURCE),
    wake_latency_ns: q(GENOA_WAKE_NS, GENOA_WAKE_MIN_NS, GENOA_WAKE_MAX_NS, "ns", Measured, GENOA_WAKE_SOURCE),
    idle_exit_ns: q(
        GENOA_WAKE_NS,
        2000.0,
        GENOA_WAKE_MAX_NS,
        "ns",
        Estimate,
        "a halted vCPU leaves HLT through the host (VM exit, the host's halt polling, VM entry): as wake_latency_ns",
    ),
    ..ZEN5_GUEST_2026
};

/// The Genoa guest's cross-CPU wakeup: half of (the dd ring's round trip across the two vCPUs
/// less its round trip on one), from the committed quiet measurement of such a guest; the
/// range over its three runs of each cell.
const GENOA_WAKE_NS: f64 = 17358.0;
const GENOA_WAKE_MIN_NS: f64 = 17160.0;
const GENOA_WAKE_MAX_NS: f64 = 18272.0;
const GENOA_WAKE_SOURCE: &str = "measured on a 2-vCPU Genoa KVM guest with skblab measure sched (data/measurements/2026-12-07-amd-epyc-f25m17.json, cells ring-cross-cpu and ring-same-cpu: two dd bs=1 pinned by taskset, one byte around two FIFOs, across vCPUs 1 and 0 and on vCPU 0 alone, 20,000 round trips, three runs each, 0-3.3 % foreign CPU): medians 40.25 and 5.54 us per round trip, (40.25 - 5.54) / 2 = 17.4 us per wakeup; the runs' extremes give 17.2-18.3";

/// The Genoa guest's waker side of a cross-vCPU wakeup: the waker's own call when the wakee
/// sleeps on the other, idle vCPU less the same call waking a wakee on its own vCPU, medians
/// of tools/wake-cost on this project's Genoa guest; the range over its runs and idle gaps.
const GENOA_IPI_NS: f64 = 6539.0;
const GENOA_IPI_MIN_NS: f64 = 4989.0;
const GENOA_IPI_MAX_NS: f64 = 17095.0;
const GENOA_IPI_SOURCE: &str = "measured on this project's 2-vCPU Genoa KVM guest (Firecracker, cpuidle haltpoll with guest_halt_poll_ns=0, PV IPIs: kvm_send_ipi_mask, a hypercall; Linux 6.18.44) with tools/wake-cost (bash tools/wake-cost/run.sh 3, 2026-12-07, data/wake-cost/2026-12-07-amd-epyc-f25m17.txt; load average 13-14 from other builds): the waker's write(2) to a pipe whose reader sleeps on the other vCPU, idle 50 us, median 8.53 us (runs 8.51-8.68), less the same write waking a reader on the waker's own vCPU (SCHED_IDLE, no preemption) 1.99 us: 6.54 us per wakeup, the IPI's send with its VM exit and the remote wake list; the range: eventfd and futex at 50 us idle 4.99 and 5.27 us, and longer idle periods up to 17.1 us (pipe, 2 ms: the host has put the halted vCPU's thread to sleep)";
