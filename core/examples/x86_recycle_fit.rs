//! Fits the x86 host's two workload constants jointly to the XDP paper's six Linux forwarding
//! rates on 1–6 cores before the fix (page-frag-free's table `xdp-fwd-x86`): for each driver
//! recycling rate (`recycle_pct`), the stack's per-packet cycles (`rx_pkt_cycles`) that give
//! the one-core rate exactly (one core has no contention: its rate is the clock over the
//! per-packet work, linear in the cycles), then the errors on all six. The best pair is the
//! value of `machines::X86_RECYCLE` and `machines::X86_RX`. Usage:
//! `x86_recycle_fit [from] [to] [seeds]` (defaults 0, 100, 1):
//! `cargo run --release -p skblab-core --example x86_recycle_fit -- 40 100 3`.

use skblab_core::calibrate;
use skblab_core::experiments::page_frag_free::machines::{machine, ForwardingBox, MachineKind};
use skblab_core::experiments::page_frag_free::validate::XDP_FWD_MPPS;
use skblab_core::experiments::page_frag_free::{machine_defaults, summary_on, Fix};
use skblab_core::params::Value;

/// The mean before-the-fix rate on `cpus` cores with `recycle` % recycling and `rx` cycles.
fn rate(rx: u64, recycle: u32, cpus: u32, seeds: &[u64]) -> f64 {
    let b = ForwardingBox { rx_pkt_cycles: rx, ..machine(MachineKind::X86Bench).clone() };
    let mut p = machine_defaults(MachineKind::X86Bench);
    p.set("recycle_pct", Value::Int(i64::from(recycle))).expect("inside the spec");
    p.set("cpus", Value::Int(i64::from(cpus))).expect("inside the spec");
    seeds.iter().map(|&s| summary_on(&b, &p, Fix::Before, s).mpps).sum::<f64>() / seeds.len() as f64
}

/// The cycles that give the paper's one-core rate at `recycle` %: 1/rate is linear in them.
fn one_core_rx(recycle: u32, seeds: &[u64]) -> u64 {
    let (a, b) = (1200u64, 2400u64);
    let (ia, ib) = (1.0 / rate(a, recycle, 1, seeds), 1.0 / rate(b, recycle, 1, seeds));
    let slope = (ib - ia) / (b - a) as f64;
    let rx = a as f64 + (1.0 / XDP_FWD_MPPS[0] - ia) / slope;
    rx.round().max(1.0) as u64
}

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (from, to) = (args.first().copied().unwrap_or(0), args.get(1).copied().unwrap_or(100).min(100));
    let seeds = calibrate::seeds(1, args.get(2).copied().unwrap_or(1));
    let values: Vec<u32> = (from..=to).collect();
    let fits = calibrate::par_map(&values, |&r| {
        let rx = one_core_rx(r, &seeds);
        let errs: Vec<f64> = (1..=XDP_FWD_MPPS.len() as u32)
            .map(|c| (rate(rx, r, c, &seeds) / XDP_FWD_MPPS[c as usize - 1] - 1.0) * 100.0)
            .collect();
        (r, rx, errs)
    });
    let mut best = (f64::INFINITY, 0, 0);
    println!("recycle_pct  rx_pkt_cycles  rms %  mape %  errors by cores 1..6 (%)");
    for (r, rx, errs) in fits {
        let rms = (errs.iter().map(|e| e * e).sum::<f64>() / errs.len() as f64).sqrt();
        let mape = errs.iter().map(|e| e.abs()).sum::<f64>() / errs.len() as f64;
        let list: Vec<String> = errs.iter().map(|e| format!("{e:+.1}")).collect();
        println!("{r:>11}  {rx:>13}  {rms:>5.2}  {mape:>6.2}  {}", list.join(" "));
        if rms < best.0 {
            best = (rms, r, rx);
        }
    }
    println!("best: recycle_pct = {}, rx_pkt_cycles = {} (rms {:.2} %)", best.1, best.2, best.0);
}
