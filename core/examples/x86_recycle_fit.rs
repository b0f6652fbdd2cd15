//! Scans the x86 host's driver recycling (`recycle_pct`) against the XDP paper's six Linux
//! forwarding rates on 1–6 cores before the fix (page-frag-free's table `xdp-fwd-x86`) and
//! prints, per value, the root-mean-square and mean absolute relative errors; the best is the
//! value of `machines::X86_RECYCLE`. Usage: `x86_recycle_fit [from] [to] [seeds]` (defaults 0,
//! 100, 1): `cargo run --release -p skblab-core --example x86_recycle_fit -- 80 100 3`.

use skblab_core::calibrate;
use skblab_core::experiments::page_frag_free::machines::{machine, MachineKind};
use skblab_core::experiments::page_frag_free::validate::XDP_FWD_MPPS;
use skblab_core::experiments::page_frag_free::{machine_defaults, summary_on, Fix};
use skblab_core::params::Value;

fn main() {
    let args: Vec<u32> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (from, to) = (args.first().copied().unwrap_or(0), args.get(1).copied().unwrap_or(100).min(100));
    let seeds = calibrate::seeds(1, args.get(2).copied().unwrap_or(1));
    let b = machine(MachineKind::X86Bench);
    let points: Vec<(u32, u32, u64)> = (from..=to)
        .flat_map(|r| (1..=XDP_FWD_MPPS.len() as u32).map(move |c| (r, c)))
        .flat_map(|(r, c)| seeds.iter().map(move |&s| (r, c, s)))
        .collect();
    let mpps = calibrate::par_map(&points, |&(r, cpus, seed)| {
        let mut p = machine_defaults(MachineKind::X86Bench);
        p.set("recycle_pct", Value::Int(i64::from(r))).expect("inside the spec");
        p.set("cpus", Value::Int(i64::from(cpus))).expect("inside the spec");
        summary_on(b, &p, Fix::Before, seed).mpps
    });
    let per_value = XDP_FWD_MPPS.len() * seeds.len();
    let mut best = (f64::INFINITY, 0);
    println!("recycle_pct  rms %  mape %  errors by cores 1..6 (%)");
    for (k, chunk) in mpps.chunks(per_value).enumerate() {
        let r = from + k as u32;
        let errs: Vec<f64> = chunk
            .chunks(seeds.len())
            .zip(XDP_FWD_MPPS)
            .map(|(c, m)| (c.iter().sum::<f64>() / c.len() as f64 / m - 1.0) * 100.0)
            .collect();
        let rms = (errs.iter().map(|e| e * e).sum::<f64>() / errs.len() as f64).sqrt();
        let mape = errs.iter().map(|e| e.abs()).sum::<f64>() / errs.len() as f64;
        let list: Vec<String> = errs.iter().map(|e| format!("{e:+.1}")).collect();
        println!("{r:>11}  {rms:>5.2}  {mape:>6.2}  {}", list.join(" "));
        if rms < best.0 {
            best = (rms, r);
        }
    }
    println!("best: recycle_pct = {} (rms {:.2} %)", best.1, best.0);
}
