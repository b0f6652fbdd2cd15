//! Who is the bottleneck in `high-order-alloc`, and where the frag pages die: per flow count
//! and order (default parameters, mean of seeds 1-3), per-flow Gbit/s, the share of the
//! measured window netperf and netserver are busy, the share of the senders' copy lines found
//! in their own L2, the share of last `put_page`s that ran on the receiver's CPU, and the
//! share of page frag refills served in place (the task held the last reference).
//! docs/high-order-alloc.md ("Where the ACK is processed") quotes it:
//! `cargo run --release -p skblab-core --example flow_balance [flows...] [name=value...]`.
use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::sim::world::World as _;

mod common;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Arguments: flow counts, and parameter settings (`name=value`, e.g. `cpus=112`).
    let (flows, settings) = common::numbers_and_settings(&args, vec![1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20]);
    let params = common::params(&settings);
    println!("flows order  Gbit/s/flow  snd_busy%  rcv_busy%  tx_own%  lastput_rcv%  frag_reuse%");
    for n in flows {
        for order in [hoa::FragOrder::Order3, hoa::FragOrder::Order0] {
            let [gbit, snd_busy, rcv_busy, tx_own, lastput_rcv, frag_reuse] =
                common::mean_over_seeds(&params, n, order, |sim| {
                    sim.run();
                    let win = sim.cfg.measure_ns() as f64 * n as f64;
                    let rep = sim.profile.report(String::new());
                    let snd: u64 = rep.entries.iter().filter(|e| e.command == "netperf").map(|e| e.ns).sum();
                    let rcv: u64 = rep.entries.iter().filter(|e| e.command == "netserver").map(|e| e.ns).sum();
                    let st = &sim.stats;
                    let tx: u64 = st.tx_lines_from.iter().sum();
                    let refills = st.frag_reuses + st.order3_allocs + st.order0_allocs;
                    [
                        sim.throughput_mbps() / 1000.0 / n as f64,
                        snd as f64 / win * 100.0,
                        rcv as f64 / win * 100.0,
                        st.tx_lines_from[0] as f64 / tx.max(1) as f64 * 100.0,
                        st.last_put_by_receiver as f64
                            / (st.last_put_by_receiver + st.last_put_by_sender).max(1) as f64
                            * 100.0,
                        st.frag_reuses as f64 / refills.max(1) as f64 * 100.0,
                    ]
                });
            let order = format!("{order:?}");
            println!(
                "{n:>5} {order:>5}  {gbit:>10.2}  {snd_busy:>9.1}  {rcv_busy:>9.1}  {tx_own:>7.1}  {lastput_rcv:>11.1}  {frag_reuse:>11.1}"
            );
        }
    }
}
