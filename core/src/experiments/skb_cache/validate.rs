//! What `skblab validate` and the bands know about seed 004: one table of two independent
//! numbers (8 and 9 Mpps; the gain is derived from them, not a third), nothing fitted to it —
//! a prediction from the catalogue — the catalogue quantities the prediction depends on and
//! the server with them set, and the knobs whose direction the real system fixes.

use super::profile::{RrProfile, SERVER_2019_RR};
use super::reproduce_on;
use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::experiment::Monotone;
use crate::sim::catalogue::Quantity;

/// The table's short name.
pub const TABLE: &str = "seed004";

/// The seed table: tcp_rr 8 → 9 Mpps, no constant fitted to it.
pub fn tables() -> Vec<TableSpec> {
    vec![TableSpec {
        experiment: super::ID,
        table: TABLE,
        title: "seed 004: tcp_rr, 10,000 flows, 112 threads, 8 Mpps without the skb caches, 9 with",
        targets: 2,
        arithmetic: false,
        fitted: Vec::new(),
    }]
}

/// The prediction's error on the mean over `seeds`, with the known gaps.
pub fn check(seeds: &[u64]) -> TableCheck {
    let per: Vec<_> = crate::calibrate::par_map(seeds, |&s| reproduce_on(SERVER_2019_RR, s));
    let mut mean = per.first().cloned().unwrap_or_else(|| reproduce_on(SERVER_2019_RR, 1));
    for (ri, row) in mean.rows.iter_mut().enumerate() {
        for (ci, cell) in row.cells.iter_mut().enumerate() {
            cell.simulated = per.iter().map(|r| r.rows[ri].cells[ci].simulated).sum::<f64>() / per.len().max(1) as f64;
        }
    }
    // The gain row is derived: the MAPE is over the two Mpps numbers only.
    mean.rows.retain(|r| r.label != "gain");
    let mut c = TableCheck::from_reproduction(&mean);
    c.gaps = vec![
        "epoll's per-event cost and the context switch are assumptions (no figure found); the NIC's transmit per packet is Brouer's mlx5 XDP_TX figure without a qdisc, and the socket timers' re-arm a loopback measurement on a 6.x Zen 4 guest".into(),
        "not charged, for want of a figure: the hardirq and NAPI re-arm per interrupt, the qdisc, and socket state beyond 20 lines per request".into(),
        "waiting is simulated (threads asleep in epoll_wait, wakeups, idle exits) but at 10,000 flows no thread sleeps and no CPU idles: the wake and idle-exit latencies do not move this table".into(),
        "tcp_skb_cycles is seed 000's loopback fit (64 KiB skbs), applied to one-segment tcp_rr skbs".into(),
        "SLAB's own costs (array push and pop, refill, flush, alien free) reuse SLUB's catalogue entries: no SLAB figure was found".into(),
        "rx heads are carved from the NAPI page fragment as __napi_alloc_skb did in 5.2; the mlx5 driver's own receive paths (build_skb on its pages) are not modelled".into(),
    ];
    c
}

/// The catalogue quantities the prediction depends on (name, quantity with its range).
pub fn uncertain() -> Vec<(&'static str, Quantity)> {
    let (f, k) = (&SERVER_2019_RR.family, &SERVER_2019_RR.kernel);
    vec![
        ("line_same_socket_ns", f.line_same_socket_ns),
        ("line_cross_socket_ns", f.line_cross_socket_ns),
        ("line_llc_ns", f.line_llc_ns),
        ("turbo_all_core_mhz", f.turbo_all_core_mhz),
        ("smt_slowdown_pct", f.smt_slowdown_pct),
        ("slub_fast_cycles", k.slub_fast_cycles),
        ("slub_slow_cycles", k.slub_slow_cycles),
        ("spin_lock_cycles", k.spin_lock_cycles),
        ("syscall_cycles", k.syscall_cycles),
        ("wakeup_cycles", k.wakeup_cycles),
        ("tcp_skb_cycles", k.tcp_skb_cycles),
        ("tcp_rx_share_pct", k.tcp_rx_share_pct),
        ("tcp_recvmsg_skb_cycles", k.tcp_recvmsg_skb_cycles),
        ("nic_rx_pkt_cycles", k.nic_rx_pkt_cycles),
        ("nic_tx_pkt_cycles", k.nic_tx_pkt_cycles),
        ("tcp_timer_rearm_cycles", k.tcp_timer_rearm_cycles),
        ("epoll_event_cycles", k.epoll_event_cycles),
        ("context_switch_cycles", k.context_switch_cycles),
        ("wake_latency_ns", k.wake_latency_ns),
        ("idle_exit_ns", k.idle_exit_ns),
    ]
}

/// The server with the quantities of [`uncertain`] set to `values` (same order).
pub fn perturbed(values: &[f64]) -> RrProfile {
    let mut p = SERVER_2019_RR;
    let (f, k) = (&mut p.family, &mut p.kernel);
    for ((name, _), &v) in uncertain().iter().zip(values) {
        let slot = match *name {
            "line_same_socket_ns" => &mut f.line_same_socket_ns,
            "line_cross_socket_ns" => &mut f.line_cross_socket_ns,
            "line_llc_ns" => &mut f.line_llc_ns,
            "turbo_all_core_mhz" => &mut f.turbo_all_core_mhz,
            "smt_slowdown_pct" => &mut f.smt_slowdown_pct,
            "slub_fast_cycles" => &mut k.slub_fast_cycles,
            "slub_slow_cycles" => &mut k.slub_slow_cycles,
            "spin_lock_cycles" => &mut k.spin_lock_cycles,
            "syscall_cycles" => &mut k.syscall_cycles,
            "wakeup_cycles" => &mut k.wakeup_cycles,
            "tcp_skb_cycles" => &mut k.tcp_skb_cycles,
            "tcp_rx_share_pct" => &mut k.tcp_rx_share_pct,
            "tcp_recvmsg_skb_cycles" => &mut k.tcp_recvmsg_skb_cycles,
            "nic_rx_pkt_cycles" => &mut k.nic_rx_pkt_cycles,
            "nic_tx_pkt_cycles" => &mut k.nic_tx_pkt_cycles,
            "tcp_timer_rearm_cycles" => &mut k.tcp_timer_rearm_cycles,
            "epoll_event_cycles" => &mut k.epoll_event_cycles,
            "wake_latency_ns" => &mut k.wake_latency_ns,
            "idle_exit_ns" => &mut k.idle_exit_ns,
            _ => &mut k.context_switch_cycles,
        };
        *slot = slot.with_value(v);
    }
    p
}

/// Knobs whose effect on a column the real system fixes in sign.
pub fn monotone() -> Vec<Monotone> {
    vec![
        Monotone {
            param: "flows",
            column: "line_ns_per_request",
            rises: true,
            tolerance_pct: 5.0,
            why: "more sockets per core: their state falls out of L2, then L3 (capacity), and each request fetches it from further",
            unless: &[],
        },
        Monotone {
            param: "rx_queues",
            column: "mpps",
            rises: true,
            tolerance_pct: 3.0,
            why: "more RX queues spread the driver and the TCP receive path over more CPUs: never fewer transactions",
            unless: &[],
        },
        Monotone {
            param: "request_bytes",
            column: "mpps",
            rises: false,
            // 3 %, as rx_queues: a step of a few bytes at 64 KB requests moves the rate less
            // than one run's spread between seeds (0.343 vs 0.353 Mpps seen at 65,300 and
            // 65,403 bytes, seed 3: the same frags, another draw).
            tolerance_pct: 3.0,
            why: "a larger request costs more copy and, beyond the copybreak, page frags: never more transactions",
            unless: &[],
        },
    ]
}
