//! What `skblab validate` knows of seed 001's table for `cross-cpu-free`, the quantities its
//! bands sample, and the knob relations the real system fixes in sign.
//!
//! Seed 001 has **two independent numbers**: the datagram counts before and after the split
//! (13,820,376 and 13,645,857 in 60 s). The Mbit/s figures (118, 116) are those counts × 64 B ×
//! 8 / 60 s, rounded: derived, not independent; "basically identical" at 1200 B gives no number.
//! Two numbers pay for no fitted constant (one per three), so nothing is fitted: every cost
//! comes from the catalogue (Westmere/Xen, 2011) or is a workload assumption with a range, and
//! the table is a **prediction**.

use super::profile::{HostProfile, IPERF_SYSCALLS, IPERF_USER_CYCLES, XEN_GUEST_2011};
use super::{reproduce_on, seed, ID};
use crate::calibrate::tables::{mape, TableCheck, TableSpec};
use crate::experiment::Monotone;
use crate::sim::catalogue::Quantity;

/// The short name of seed 001's datagram table.
pub const TABLE: &str = "seed001-xcpu";

/// The short name of the table of 68822bdf76f1 (tcp-100g).
pub const DEFER_TABLE: &str = "defer-100g";

/// Eric Dumazet's test of skb_attempt_defer_free (netdev, 2022-04-22, "[PATCH v2 net-next]
/// net: generalize skb freeing deferral to per-cpu lists",
/// <20220422201237.416238-1-eric.dumazet@gmail.com>): 10 runs of one TCP_STREAM flow between
/// two hosts with 100 Gbit NICs, RFS on, average Mbit/s before and after the patch.
pub const DEFER_BEFORE_MBPS: f64 = 49_685.0;
pub const DEFER_AFTER_MBPS: f64 = 73_076.0;

/// The tables as the bookkeeping sees them.
pub fn tables() -> Vec<TableSpec> {
    vec![
        TableSpec {
            experiment: ID,
            table: TABLE,
            title: "seed 001: iperf -u -l 64 datagrams in 60 s between two hosts (Xen guests assumed), before and after the shinfo split",
            targets: 2,
            arithmetic: false,
            fitted: Vec::new(),
        },
        TableSpec {
            experiment: ID,
            table: DEFER_TABLE,
            title:
                "68822bdf76f1 (2022): one TCP_STREAM flow over 100 Gbit, Mbit/s without and with skb_attempt_defer_free",
            targets: 2,
            arithmetic: false,
            fitted: Vec::new(),
        },
    ]
}

/// The settings of the deferral table's runs: tcp-100g, without or with deferral.
pub fn defer_params(defer: bool) -> crate::Params {
    use crate::experiment::Experiment as _;
    let settings = ["workload=tcp-100g".to_string(), format!("defer_free={defer}")];
    super::CrossCpuFree.params_from(&settings).expect("valid tcp-100g settings")
}

/// The prediction error of the tcp-100g runs against Eric's two averages.
fn check_defer(seeds: &[u64]) -> TableCheck {
    use crate::experiment::Experiment as _;
    let mbps = |defer: bool| {
        let params = defer_params(defer);
        let per_seed = crate::calibrate::par_map(seeds, |&s| {
            super::CrossCpuFree.run(&params, s).column_f64("mbps")[0].unwrap_or(0.0)
        });
        let sum: f64 = per_seed.iter().sum();
        sum / seeds.len().max(1) as f64
    };
    let (b, a) = (mbps(false), mbps(true));
    let (sb, sa) = (DEFER_BEFORE_MBPS, DEFER_AFTER_MBPS);
    TableCheck {
        in_sample_mape: Some(mape(&[(b, sb), (a, sa)])),
        out_of_sample_mape: None,
        curve_mape: None,
        errors: vec![
            format!("without deferral mbps: {:+.1} % ({b:.0} vs {sb:.0})", (b / sb - 1.0) * 100.0),
            format!("with deferral mbps: {:+.1} % ({a:.0} vs {sa:.0})", (a / sa - 1.0) * 100.0),
            format!(
                "deferral's change: {:+.1} % vs {:+.1} %",
                (a / b - 1.0) * 100.0,
                (sa / sb - 1.0) * 100.0
            ),
        ],
        gaps: vec![
            "the post names no CPU: Skylake-SP with the 2019 kernel entry assumed".into(),
            "the TCP receive and recvmsg on the reader's CPU B cost tcp_rx_gro_skb_cycles, estimated from a 2018 zero-copy receive on a 40 Gbit NIC (93ab6cc69162, an upper bound): about 2 us per GRO skb; with the syscall and the backlog IPI, B spends 3.0 us per skb beside the copy after deferral, where Eric's after-profile leaves under 0.5 us".into(),
            "the copy reads the payload from the LLC's DDIO ways or, once later DMA evicted it, DRAM (about 1.9 us per skb, near the 2.2 us Eric's profile implies): 29 % of B's time before deferral and 39 % after, where Eric's is 58 % and 81 %: docs/cross-cpu-free.md".into(),
        ],
    }
}

/// The prediction error on the mean over `seeds`: both counts, and the change in points.
pub fn check_table(table: &str, seeds: &[u64]) -> Option<TableCheck> {
    if table == DEFER_TABLE {
        return Some(check_defer(seeds));
    }
    if table != TABLE {
        return None;
    }
    let runs: Vec<_> = crate::calibrate::par_map(seeds, |&s| reproduce_on(XEN_GUEST_2011, s));
    let n = runs.len().max(1) as f64;
    let mean = |row: usize| runs.iter().map(|r| r.rows[row].cells[0].simulated).sum::<f64>() / n;
    let (b, a) = (mean(0), mean(1));
    let (sb, sa) = (seed::BEFORE_DATAGRAMS as f64, seed::AFTER_DATAGRAMS as f64);
    let change = (a / b - 1.0) * 100.0;
    let seed_change = (seed::ratio() - 1.0) * 100.0;
    Some(TableCheck {
        in_sample_mape: Some(mape(&[(b, sb), (a, sa)])),
        out_of_sample_mape: None,
        curve_mape: None,
        errors: vec![
            format!("64 B before datagrams: {:+.1} % ({b:.0} vs {sb:.0})", (b / sb - 1.0) * 100.0),
            format!("64 B after datagrams: {:+.1} % ({a:.0} vs {sa:.0})", (a / sa - 1.0) * 100.0),
            format!("split's change: {change:+.2} % vs {seed_change:+.2} % ({:+.2} points)", change - seed_change),
        ],
        gaps: vec![
            "the post does not say the hosts were Xen guests, nor their CPU, vCPU placement or link: Westmere/Xen and 1 GbE assumed".into(),
            "no published PV netfront, UDP path or iperf per-datagram cost: assumed with wide ranges (bands)".into(),
        ],
    })
}

/// Every constant the 64-byte runs depend on, with its range: the catalogue's Westmere/Xen
/// hardware and 2011 kernel entries, then iperf's own work (workload assumptions).
pub fn uncertain() -> Vec<(&'static str, Quantity)> {
    let (f, k) = (&XEN_GUEST_2011.family, &XEN_GUEST_2011.kernel);
    vec![
        ("line_same_socket_ns", f.line_same_socket_ns),
        ("copy_bytes_per_kcycle", f.copy_bytes_per_kcycle),
        ("turbo_all_core_mhz", f.turbo_all_core_mhz),
        ("slub_fast_cycles", k.slub_fast_cycles),
        ("slub_slow_cycles", k.slub_slow_cycles),
        ("syscall_cycles", k.syscall_cycles),
        ("wakeup_cycles", k.wakeup_cycles),
        ("skb_cycles", k.skb_cycles),
        ("udp_send_cycles", k.udp_send_cycles),
        ("udp_rcv_cycles", k.udp_rcv_cycles),
        ("udp_recvmsg_cycles", k.udp_recvmsg_cycles),
        ("pv_net_tx_cycles", k.pv_net_tx_cycles),
        ("pv_net_rx_cycles", k.pv_net_rx_cycles),
        ("pv_upcall_cycles", k.pv_upcall_cycles),
        ("wake_latency_ns", k.wake_latency_ns),
        ("iperf_user_cycles", IPERF_USER_CYCLES),
        ("iperf_syscalls", IPERF_SYSCALLS),
    ]
}

/// The 2011 profile with [`uncertain`]'s quantities set to `values` (same order).
pub fn perturbed(values: &[f64]) -> Option<HostProfile> {
    if values.len() != uncertain().len() {
        return None;
    }
    let mut p = XEN_GUEST_2011;
    let (f, k) = (&mut p.family, &mut p.kernel);
    let v = |i: usize, q: Quantity| q.with_value(values[i]);
    f.line_same_socket_ns = v(0, f.line_same_socket_ns);
    f.copy_bytes_per_kcycle = v(1, f.copy_bytes_per_kcycle);
    f.turbo_all_core_mhz = v(2, f.turbo_all_core_mhz);
    k.slub_fast_cycles = v(3, k.slub_fast_cycles);
    k.slub_slow_cycles = v(4, k.slub_slow_cycles);
    k.syscall_cycles = v(5, k.syscall_cycles);
    k.wakeup_cycles = v(6, k.wakeup_cycles);
    k.skb_cycles = v(7, k.skb_cycles);
    k.udp_send_cycles = v(8, k.udp_send_cycles);
    k.udp_rcv_cycles = v(9, k.udp_rcv_cycles);
    k.udp_recvmsg_cycles = v(10, k.udp_recvmsg_cycles);
    k.pv_net_tx_cycles = v(11, k.pv_net_tx_cycles);
    k.pv_net_rx_cycles = v(12, k.pv_net_rx_cycles);
    k.pv_upcall_cycles = v(13, k.pv_upcall_cycles);
    k.wake_latency_ns = v(14, k.wake_latency_ns);
    p.iperf_user_cycles = values[15].round().max(0.0) as u64;
    p.iperf_syscalls = values[16].round().max(1.0) as u64;
    Some(p)
}

/// Knob relations the real system fixes in sign.
pub fn monotone() -> Vec<Monotone> {
    vec![
        Monotone {
            param: "reader_work_ns",
            column: "datagrams",
            rises: false,
            tolerance_pct: 0.5,
            why: "a slower reader can only take fewer datagrams (UDP has no flow control: the rest are lost)",
            // A dispatcher saturated on waking sleeping readers delivers more when they are
            // slower: a busy reader needs no wakeup (docs/cross-cpu-free.md, Knobs).
            unless: &[("consumer", "dispatcher")],
        },
        Monotone {
            param: "datagram_bytes",
            column: "datagrams",
            rises: false,
            tolerance_pct: 1.0,
            why: "a bigger datagram costs more copy and more wire time, never less",
            // With the reader on the interrupt CPU and more arrivals than it can read, the
            // softirq's work on datagrams that are then dropped at the full socket takes the
            // reader's time (receive livelock): fewer, bigger datagrams leave it more
            // (docs/cross-cpu-free.md, Knobs).
            unless: &[("consumer", "same")],
        },
        Monotone {
            param: "datagram_bytes",
            column: "mbps",
            rises: true,
            tolerance_pct: 1.0,
            why: "per-datagram costs dominate: goodput grows with payload up to the link's payload share",
            unless: &[],
        },
    ]
}
