//! SLUB's paths in `skb-cache`, seen from outside the simulation: the
//! summed `CONFIG_SLUB_STATS` counters of one run (seed 1), list_lock acquisitions per 1000
//! requests and the mean wait of an acquisition; the requests waiting for the driver and the rx
//! skbs held (time-averaged), the busy share and the spin shares; `SEED=N` picks the seed.
//! docs/knob-audit.md quotes it: `cargo run --release -p skblab-core --example slab_probe [name=value...]`.
use skblab_core::experiments::skb_cache as sc;
use skblab_core::Experiment;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let p = sc::SkbCache.params_from(&args).unwrap();
    let input = sc::Input::from(&p);
    let seed = std::env::var("SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let (r, sum) = sc::run_input(&input, sc::profile::SERVER_2019_RR, seed);
    let s = &r.slub;
    let req = r.requests.max(1) as f64;
    println!(
        "requests {} window {} ns  Mreq/s {:.2}",
        r.requests,
        r.measure_ns,
        r.requests as f64 / r.measure_ns as f64 * 1e3
    );
    println!("{:#?}", s);
    println!(
        "flows {} cpus {}: waiting for the driver {:.1}, rx skbs held {:.1} ({:.1} per CPU); {} partial slabs taken off-node",
        r.sim_flows,
        r.n_cpus,
        r.waiting_for_driver,
        r.rx_skbs_held,
        r.rx_skbs_held / f64::from(r.n_cpus),
        r.off_node_partial_allocs
    );
    let busy = r.busy_ns.max(1) as f64;
    let slab_spin = r.profile.ns_of(&[sc::Stack::SlabAllocSpin, sc::Stack::SlabFreeSpin]) as f64;
    println!(
        "busy {:.1} %  spin_pct {:.3} %  slab spin {:.3} %  list_lock wait {:.3} % of busy",
        sum.busy_pct,
        sum.spin_pct,
        slab_spin / busy * 100.0,
        s.list_lock_wait_ns as f64 / busy * 100.0
    );
    println!(
        "list_lock {} contended {}  per 1000 req: {:.2}  wait ns/acq {:.1}",
        r.list_lock,
        r.list_lock_contended,
        r.list_lock as f64 / req * 1000.0,
        s.list_lock_wait_ns as f64 / s.list_lock.max(1) as f64
    );
    println!(
        "alloc_slowpath/req {:.3} free_slowpath/req {:.3} cpu_partial_drain/req {:.4} alloc_from_partial/req {:.4}",
        s.alloc_slowpath as f64 / req,
        s.free_slowpath as f64 / req,
        s.cpu_partial_drain as f64 / req,
        s.alloc_from_partial as f64 / req
    );
}
