//! The home page's small first wasm (index.html loads it only for the home page URL): see
//! `skblab_web::pages::shell`.

fn main() {
    skblab_web::start_home();
}
