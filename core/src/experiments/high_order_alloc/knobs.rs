//! What high-order-alloc does not know and which way its knobs must move: the catalogue
//! quantities a reproduction depends on that were not fitted (their sourced ranges make the
//! uncertainty band, `skblab reproduce --bands N`), a run with them set, and the knob relations
//! the real system fixes in sign (checked by `core/tests/high_order_alloc_knobs.rs`
//! and the registry-wide monotonicity test).

use super::runs::{machine_from, point_runs};
use super::{columns_for, row_of, HighOrderAlloc, Input, ID};
use crate::experiment::Monotone;
use crate::model::{Model, Runner};
use crate::output::RunOutput;
use crate::sim::catalogue::{Quantity, SKYLAKE_SP, SKYLAKE_SP_2019};
use crate::sim::machine::{MachineProfile, SERVER_2019};

/// The catalogue quantities the run depends on, by their catalogue names: the hand-set ones
/// and the four seed 000 fits (all sampled inside their sourced ranges by the bands; the
/// ±10 % sensitivity of `skblab validate` compares the hand-set ones with the fitted ones).
pub fn uncertain() -> Vec<(&'static str, Quantity)> {
    let (f, k) = (&SKYLAKE_SP, &SKYLAKE_SP_2019);
    vec![
        ("line_same_socket_ns", f.line_same_socket_ns),
        ("turbo_all_core_mhz", f.turbo_all_core_mhz),
        ("copy_bytes_per_kcycle", f.copy_bytes_per_kcycle),
        ("tcp_skb_cycles", k.tcp_skb_cycles),
        ("tcp_recvmsg_skb_cycles", k.tcp_recvmsg_skb_cycles),
        ("tcp_frag_cycles", k.tcp_frag_cycles),
        ("line_cross_socket_ns", f.line_cross_socket_ns),
        ("line_smt_ns", f.line_smt_ns),
        ("line_llc_ns", f.line_llc_ns),
        ("dram_ns", f.dram_ns),
        ("dram_remote_ns", f.dram_remote_ns),
        ("copy_mlp", f.copy_mlp),
        ("turbo_max_mhz", f.turbo_max_mhz),
        ("smt_slowdown_pct", f.smt_slowdown_pct),
        ("pcp_op_cycles", k.pcp_op_cycles),
        ("buddy_step_cycles", k.buddy_step_cycles),
        ("syscall_cycles", k.syscall_cycles),
        ("wakeup_cycles", k.wakeup_cycles),
    ]
}

/// The profile field a quantity of [`uncertain`] sets.
fn field<'a>(m: &'a mut MachineProfile, name: &str) -> &'a mut u64 {
    match name {
        "line_same_socket_ns" => &mut m.line_same_socket_ns,
        "turbo_all_core_mhz" => &mut m.turbo_all_core_mhz,
        "copy_bytes_per_kcycle" => &mut m.copy_bytes_per_kcycle,
        "tcp_skb_cycles" => &mut m.skb_tx_cycles,
        "tcp_recvmsg_skb_cycles" => &mut m.skb_rx_cycles,
        "tcp_frag_cycles" => &mut m.frag_cycles,
        "line_cross_socket_ns" => &mut m.line_cross_socket_ns,
        "line_smt_ns" => &mut m.line_same_core_ns,
        "line_llc_ns" => &mut m.line_llc_ns,
        "dram_ns" => &mut m.dram_ns,
        "dram_remote_ns" => &mut m.dram_remote_ns,
        "copy_mlp" => &mut m.copy_mlp,
        "turbo_max_mhz" => &mut m.turbo_max_mhz,
        "smt_slowdown_pct" => &mut m.smt_slowdown_pct,
        "pcp_op_cycles" => &mut m.page_op_cycles,
        "buddy_step_cycles" => &mut m.buddy_step_cycles,
        "syscall_cycles" => &mut m.syscall_cycles,
        "wakeup_cycles" => &mut m.wakeup_cycles,
        other => panic!("bug: '{other}' is not an uncertain quantity"),
    }
}

/// The table of a run with the quantities of [`uncertain`] set to `values` (same order; a
/// missing value keeps the catalogue's). `line_transfer_ns` and `cross_socket_ns` are
/// parameters too: at the catalogue's value (their default) they take the sampled one; any
/// other value is the reader's and stays.
pub fn run_perturbed(i: &Input, seed: u64, values: &[f64]) -> RunOutput {
    let mut m = SERVER_2019;
    for ((name, _), &v) in uncertain().iter().zip(values) {
        *field(&mut m, name) = v.max(1.0).round() as u64;
    }
    let mut i = i.clone();
    if i.line_transfer_ns == SERVER_2019.line_same_socket_ns {
        i.line_transfer_ns = m.line_same_socket_ns.clamp(10, 1000);
    }
    if i.cross_socket_ns == SERVER_2019.line_cross_socket_ns {
        i.cross_socket_ns = m.line_cross_socket_ns.clamp(10, 2000);
    }
    let m = machine_from(m, &i);
    let mut out = RunOutput::new(ID, seed, columns_for(&i));
    for point in HighOrderAlloc.points(&i) {
        let flows = point.x as u32;
        out.push_row(row_of(&i, flows, &point_runs(&m, &i, flows, seed, &mut Runner::plain())));
    }
    out
}

/// The knob relations the real system fixes in sign, for both columns.
pub fn monotone() -> Vec<Monotone> {
    let mut out = Vec::new();
    for column in ["order3_mbps", "order0_mbps"] {
        out.extend([
            Monotone {
                param: "line_transfer_ns",
                column,
                rises: false,
                tolerance_pct: 3.0,
                why: "every line another core wrote (lock handoffs, struct pages, the sockets' lines, a wakeup's, the receiver's copy) takes longer to arrive, and an L3 hit crosses the same mesh",
                unless: &[],
            },
            Monotone {
                param: "cross_socket_ns",
                column,
                rises: false,
                tolerance_pct: 3.0,
                why: "lines from the other socket take longer; nothing gets faster when UPI is slower",
                unless: &[],
            },
        ]);
        // Not declared: `cpus` rising. Idle cores spread a flow's sender and receiver off one
        // core (SMT siblings, or one CPU time-shared), and then the receiver's copy no longer
        // hits the sender's L2: every line crosses the mesh. On a slow mesh that costs more
        // than the CPU it frees. The registry-wide check found it (one socket,
        // line_transfer_ns=109, 173 flows: order-3 2,470 Gbit/s on 173 cores, 1,681 on 346),
        // and at 28 flows it is order-0 508 → 420 Gbit/s from 40 to 56 cores. At the
        // catalogue's mesh, adding cores never lowers throughput
        // (`core/tests/high_order_alloc_knobs.rs`, `idle_cores_never_lower_throughput`);
        // docs/knob-audit.md has the numbers.
    }
    out
}
