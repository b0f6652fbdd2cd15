// Entry script of the sweep Web Worker (spawned by the page as a classic worker, see
// web/src/worker.rs). Trunk builds the `worker` binary as `worker.js` (no-modules glue that only
// defines `wasm_bindgen`) and `worker_bg.wasm`; this loads both and starts the wasm, whose
// `main` installs the message handler. Trunk's own `data-loader-shim` does the same but with
// an init call that wasm-bindgen 0.2.130 flags as deprecated (a console warning).
importScripts('./worker.js');
wasm_bindgen({ module_or_path: './worker_bg.wasm' });
