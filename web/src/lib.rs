//! skblab-web: the browser app of skblab (Yew, built by Trunk).
//!
//! It turns UI input into experiment parameters, calls `skblab-core`, and draws what core
//! returns; it holds no simulation logic. Map of the crate:
//!
//! - pure modules (no yew, no browser; unit-tested natively with `cargo test -p skblab-web`):
//!   - [`route`]: the URL hash ⇄ [`route::Route`] + query;
//!   - [`page`]: the player's state and its reducer `apply(page, action)`, URL ⇄ state;
//!   - [`progress`]: steps done per lesson, as stored in localStorage;
//!   - [`ledger`]: the prediction ledger (first prediction, confidence, outcome per question);
//!   - [`practice`]: the practice of missed questions under way, as stored in localStorage;
//!   - [`charts`]: drawing functions generic over the plotters backend, and their data;
//!   - [`svg`](mod@svg): markup written as escaped text, inserted as one raw node (the large SVG views).
//! - browser side:
//!   - [`browser`]: the few browser calls (hash, storage, downloads);
//!   - [`hooks`]: where browser state enters Yew (URL, progress, dark mode, arrow keys);
//!   - [`components`]: the app shell, home, about, player, generic parameter panel, question;
//!   - [`store`]: the one subscription mechanism for state shared by components;
//!   - [`run`]: runs of any experiment (light ones here, heavy ones in the worker), cached;
//!   - [`views`]: the generic views core declares, and the table of custom views;
//!   - [`worker`]: the Web Worker (second binary) that runs any experiment's points.

pub mod browser;
pub mod charts;
pub mod cite;
pub mod components;
pub mod hooks;
pub mod ledger;
pub mod machine;
pub mod pages;
pub mod progress;
pub mod route;
pub mod run;
pub mod store;
pub mod svg;
pub mod views;
pub mod worker;

/// Mounts the full app on `<body>` (or beside a pre-rendered first view: [`browser::app_root`]).
pub fn start() {
    browser::register_service_worker();
    match browser::app_root() {
        Some(root) => yew::Renderer::<pages::app::App>::with_root(root).render(),
        None => yew::Renderer::<pages::app::App>::new().render(),
    };
}

/// Mounts the home page's small app on `<body>` (binary `skblab-home`; see
/// [`pages::shell`]).
pub fn start_home() {
    pages::shell::start();
}
