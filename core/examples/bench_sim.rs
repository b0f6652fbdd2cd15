//! Benchmark of the simulation engine: the full `high-order-alloc` sweep (1..30 flows × 2
//! orders, default parameters, seed 1), timed natively. Rerun with:
//! `cargo run --release -p skblab-core --example bench_sim`
//! (the clock is read here, at the edge, never inside core). One thread: the figure is the
//! engine's speed, not the machine's core count. The last line is `native: <float> M events/s`.
#![expect(clippy::disallowed_types, clippy::disallowed_methods, reason = "a benchmark reads the clock")]

use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::Experiment;
use std::time::Instant;

fn main() {
    let params = hoa::HighOrderAlloc.defaults();
    let mut best = f64::MAX;
    let mut events = 0;
    for _ in 0..3 {
        let start = Instant::now();
        let mut first_ms = 0.0;
        events = hoa::bench_sweep_events(&params, 1, |n| {
            if n == 1 {
                first_ms = start.elapsed().as_secs_f64() * 1000.0;
            }
        });
        let secs = start.elapsed().as_secs_f64();
        best = best.min(secs);
        println!("sweep: {:.1} ms (first point {first_ms:.2} ms), {events} events", secs * 1000.0);
    }
    let rate = events as f64 / best / 1e6;
    println!("best sweep {:.1} ms, {rate:.1} M events/s", best * 1000.0);
    let start = Instant::now();
    let t = hoa::traced_run(&params, 4, hoa::FragOrder::Order3, 1, 2000);
    println!("traced run: {} frames in {:.1} ms", t.frames.len(), start.elapsed().as_secs_f64() * 1000.0);
    // The line `make bench` (scripts/bench.sh) and the performance checks read.
    println!("native: {rate:.2} M events/s");
}
