//! Why one flow's order-3 throughput rises as the mesh gets slower:
//! per `line_transfer_ns`, one flow, mean of seeds 1-3: Gbit/s, the receiver's busy share, the
//! share of last `put_page`s on the receiver's CPU, ACKs per 100 segments by what sent them,
//! zone->lock holds per 100 segments and their mean hold. docs/knob-audit.md quotes it:
//! `cargo run --release -p skblab-core --example mesh_hump [ns...] [order=0|3] [name=value...]`.
use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::sim::world::World as _;
use skblab_core::Experiment;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let order = if args.iter().any(|a| a == "order=0") { hoa::FragOrder::Order0 } else { hoa::FragOrder::Order3 };
    let settings: Vec<String> = args.iter().filter(|a| a.contains('=') && !a.starts_with("order=")).cloned().collect();
    let lines: Vec<u64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let lines = if lines.is_empty() { vec![20, 30, 40, 50, 60, 80, 120] } else { lines };
    println!("line_ns  Gbit/s  rcv_busy%  lastput_rcv%  acks_arrival acks_read acks_timer /100seg  backlogged/100seg  lock_holds/100seg  hold_ns");
    for ns in lines {
        let mut set = settings.clone();
        set.push(format!("line_transfer_ns={ns}"));
        let params = hoa::HighOrderAlloc.params_from(&set).unwrap_or_else(|e| panic!("{e}"));
        let mut acc = [0.0f64; 9];
        let seeds = 1..=3u64;
        let k = seeds.clone().count() as f64;
        for seed in seeds {
            let mut sim = hoa::StreamSim::new(hoa::config(&params, 1, order), seed);
            sim.run();
            let win = sim.cfg.measure_ns as f64;
            let rep = sim.profile.report(String::new());
            let rcv: u64 = rep.entries.iter().filter(|e| e.command == "netserver").map(|e| e.ns).sum();
            let st = &sim.stats;
            let seg = st.segments.max(1) as f64 / 100.0;
            let holds: u64 = st.lock_ops.iter().sum();
            let hold_ns: u64 = st.lock_hold_ns.iter().sum();
            acc[0] += sim.throughput_mbps() / 1000.0;
            acc[1] += rcv as f64 / win * 100.0;
            acc[2] += st.last_put_by_receiver as f64 / (st.last_put_by_receiver + st.last_put_by_sender).max(1) as f64
                * 100.0;
            acc[3] += st.acks_on_arrival as f64 / seg;
            acc[4] += st.acks_on_read as f64 / seg;
            acc[5] += st.acks_by_timer as f64 / seg;
            acc[6] += st.acks_backlogged as f64 / seg;
            acc[7] += holds as f64 / seg;
            acc[8] += hold_ns as f64 / holds.max(1) as f64;
        }
        let a: Vec<f64> = acc.iter().map(|v| v / k).collect();
        println!(
            "{ns:7}  {:6.2}  {:9.1}  {:12.1}  {:12.1} {:9.1} {:10.1}  {:17.1}  {:17.1}  {:7.1}",
            a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
        );
    }
}
