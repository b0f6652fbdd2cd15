//! SLUB's paths in `skb-cache`, seen from outside the simulation (issue #23, finding 5): the
//! summed `CONFIG_SLUB_STATS` counters of one run (seed 1), list_lock acquisitions per 1000
//! requests and the mean wait of an acquisition. docs/knob-audit.md quotes it:
//! `cargo run --release -p skblab-core --example slab_probe [name=value...]`.
use skblab_core::experiments::skb_cache as sc;
use skblab_core::Experiment;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let p = sc::SkbCache.params_from(&args).unwrap();
    let input = sc::Input::from(&p);
    let (r, _s) = sc::run_input(&input, sc::profile::SERVER_2019_RR, 1);
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
