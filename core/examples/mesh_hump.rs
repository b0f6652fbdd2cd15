//! Why one flow's order-3 throughput rises as the mesh gets slower:
//! per `line_transfer_ns`, one flow, mean of seeds 1-3: Gbit/s, the receiver's busy share, the
//! share of last `put_page`s on the receiver's CPU, ACKs per 100 segments by what sent them,
//! zone->lock holds per 100 segments and their mean hold. docs/knob-audit.md quotes it:
//! `cargo run --release -p skblab-core --example mesh_hump [ns...] [order=0|3] [name=value...]`.
use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::sim::world::World as _;

mod common;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let order = if args.iter().any(|a| a == "order=0") { hoa::FragOrder::Order0 } else { hoa::FragOrder::Order3 };
    let (lines, mut settings) = common::numbers_and_settings(&args, vec![20u64, 30, 40, 50, 60, 80, 120]);
    settings.retain(|a| !a.starts_with("order="));
    println!("line_ns  Gbit/s  rcv_busy%  lastput_rcv%  acks_arrival acks_read acks_timer /100seg  backlogged/100seg  lock_holds/100seg  hold_ns");
    for ns in lines {
        let mut set = settings.clone();
        set.push(format!("line_transfer_ns={ns}"));
        let params = common::params(&set);
        let a = common::mean_over_seeds(&params, 1, order, |sim| {
            sim.run();
            let win = sim.cfg.measure_ns() as f64;
            let rep = sim.profile.report(String::new());
            let rcv: u64 = rep.entries.iter().filter(|e| e.command == "netserver").map(|e| e.ns).sum();
            let st = &sim.stats;
            let seg = st.segments.max(1) as f64 / 100.0;
            let holds: u64 = st.lock_ops.iter().sum();
            let hold_ns: u64 = st.lock_hold_ns.iter().sum();
            [
                sim.throughput_mbps() / 1000.0,
                rcv as f64 / win * 100.0,
                st.last_put_by_receiver as f64 / (st.last_put_by_receiver + st.last_put_by_sender).max(1) as f64
                    * 100.0,
                st.acks_on_arrival as f64 / seg,
                st.acks_on_read as f64 / seg,
                st.acks_by_timer as f64 / seg,
                st.acks_backlogged as f64 / seg,
                holds as f64 / seg,
                hold_ns as f64 / holds.max(1) as f64,
            ]
        });
        println!(
            "{ns:7}  {:6.2}  {:9.1}  {:12.1}  {:12.1} {:9.1} {:10.1}  {:17.1}  {:17.1}  {:7.1}",
            a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
        );
    }
}
