//! Benchmark, not a test: simulated events per second of the `high-order-alloc` sweep under
//! wasm32 in headless Chromium, and the wasm heap it needed. Compiled only with the `bench`
//! feature; run it with `make bench` (scripts/bench.sh), which also runs the native benchmark
//! (core/examples/bench_sim.rs) so the two can be compared.
#![cfg(feature = "bench")]

use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::Experiment;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window().expect("a window").performance().expect("performance").now()
}

fn wasm_heap_bytes() -> f64 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    let buffer: js_sys::ArrayBuffer = memory.buffer().unchecked_into();
    buffer.byte_length() as f64
}

#[wasm_bindgen_test]
fn bench_high_order_alloc_sweep() {
    let params = hoa::HighOrderAlloc.defaults();
    let mut best_ms = f64::MAX;
    let mut events = 0u64;
    for round in 0..3 {
        let start = now_ms();
        let mut first_ms = 0.0;
        events = hoa::bench_sweep_events(&params, 1, |n| {
            if n == 1 {
                first_ms = now_ms() - start;
            }
        });
        let ms = now_ms() - start;
        best_ms = best_ms.min(ms);
        console_log!("wasm sweep round {round}: {ms:.1} ms (first point {first_ms:.2} ms), {events} events");
    }
    console_log!(
        "wasm best sweep {best_ms:.1} ms, {:.2} M events/s, wasm memory {:.1} MiB",
        events as f64 / best_ms / 1e3,
        wasm_heap_bytes() / 1048576.0
    );
}
