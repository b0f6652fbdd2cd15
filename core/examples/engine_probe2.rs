use skblab_core::experiments::high_order_alloc::{self as hoa, FragOrder, StreamSim};
use skblab_core::sim::machine::SERVER_2019;
use skblab_core::Experiment;
fn main() {
    let mut m = SERVER_2019;
    for a in std::env::args().skip(1) {
        let (k, v) = a.split_once('=').unwrap();
        let v: u64 = v.parse().unwrap();
        match k {
            "mhz" => m.turbo_all_core_mhz = v,
            "line" => m.line_same_socket_ns = v,
            "copy" => m.copy_bytes_per_kcycle = v,
            "tx" => m.skb_tx_cycles = v,
            "rx" => m.skb_rx_cycles = v,
            "frag" => m.frag_cycles = v,
            "mlp" => m.copy_mlp = v,
            "page" => m.page_op_cycles = v,
            _ => panic!("{k}"),
        }
    }
    let p = hoa::HighOrderAlloc.defaults();
    for n in [1u32, 4, 9, 16, 30] {
        let r = |o| {
            let mut s = StreamSim::new(hoa::config_on(m.clone(), &p, n, o), 1);
            s.run();
            s.throughput_mbps() / 1000.0
        };
        print!("{n}: {:.0}/{:.0}  ", r(FragOrder::Order3), r(FragOrder::Order0));
    }
    println!();
}
