//! The Web Worker binary: Trunk builds it as `worker.js` (index.html, `data-type="worker"`);
//! the page spawns it to run long sweeps off the main thread (see `skblab_web::worker`).

fn main() {
    skblab_web::worker::serve();
}
