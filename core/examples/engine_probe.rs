use skblab_core::experiments::high_order_alloc::{self as hoa, FragOrder};
use skblab_core::Experiment;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let p = hoa::HighOrderAlloc.params_from(&args).unwrap();
    for n in [1u32, 2, 4, 8, 12, 16, 24, 30] {
        for o in [FragOrder::Order3, FragOrder::Order0] {
            let sim = hoa::simulate(&p, n, o, 1);
            let s = &sim.stats;
            let tx: u64 = s.tx_lines_from.iter().sum::<u64>().max(1);
            let rx: u64 = s.rx_lines_from.iter().sum::<u64>().max(1);
            let f = |v: &[u64; 7], t: u64| v.iter().map(|x| format!("{:.2}", *x as f64 / t as f64)).collect::<Vec<_>>().join(" ");
            let l = &sim.zones[0].lock.stats;
            println!("{n:>2} {:?} {:>7.0} tx[{}] rx[{}] lock acq {} hold_avg {:.0}ns spin {:.1}%", o, sim.throughput_mbps(), f(&s.tx_lines_from, tx), f(&s.rx_lines_from, rx), l.acquisitions, l.hold_ns_total as f64 / l.acquisitions.max(1) as f64, sim.profile.report(String::new()).spin_pct);
        }
    }
}
