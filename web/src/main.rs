//! The web app's entry point: Trunk builds this binary to wasm32 and loads it from index.html.

fn main() {
    skblab_web::start();
}
