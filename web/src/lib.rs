//! skblab-web: the browser app of skblab — a Yew 0.23 (CSR) app that Trunk builds from the
//! repository's `index.html` (`make serve`). It turns UI input into experiment parameters, calls
//! `skblab-core`, and draws what core returns; it holds no simulation logic.
//!
//! Three binaries: `skblab-web` (the full app, [`start`]), `skblab-home` (the home page's small
//! first wasm, [`pages::shell`]) and `worker` (the Web Worker of [`worker`], built with the
//! `wasm-worker` profile at opt-level 3 and spawned as a classic script through
//! `static/sweep-worker.js`).
//!
//! Map of the crate, one folder per kind of thing and one per feature:
//!
//! - [`pages`]: one module per route (home, the playground's list, about, the lesson player,
//!   Reproduce, Validation), the app that picks the page for the URL ([`pages::resolve`], pure)
//!   and the frame around it; the player folder holds its pure reducer (`player/state.rs`).
//! - [`components`]: widgets the pages and views are built from — parameter panel, question,
//!   results table, canvas chart, notices, exports, the CLI line, compare, uncertainty bands,
//!   verdict badges, the seed table, the step-through transport.
//! - [`views`]: every experiment's views — the generic ones core declares, and one module of
//!   custom views per experiment (the only place the web names an experiment).
//! - [`charts`]: pure drawing, generic over the plotters backend (canvas in the browser, SVG in
//!   the tests), and what a chart says in words and as a table.
//! - [`run`]: the run store — every job (a run, a custom view's data, an uncertainty band, and
//!   kinds a feature plugs in, like the machine fit) moves through one state machine, light work
//!   computed here, heavy work in the worker pool, cached — and the hooks pages read it with.
//! - [`machine`]: "Your machine" as one feature: its page, chart, fit job, worker side and saved
//!   file.
//! - [`worker`]: the Web Worker's side: the request/reply protocol and the serve loop.
//!
//! Modules shared by several of these stay at the top: [`route`] (URL hash ⇄ route, pure),
//! [`browser`] (the few browser calls) and [`hooks`] (where browser state enters Yew), [`store`]
//! (the one subscription mechanism for shared state), [`progress`], [`ledger`] and [`review`] (the learner's
//! records as localStorage keeps them, pure), [`cite`] (citations as links) and
//! [`svg`](mod@svg) (markup written as escaped text, one raw node per large SVG view).
//!
//! Tests: `cargo test -p skblab-web` runs the pure modules, the chart drawing and
//! `tests/*.rs` natively; `scripts/wasm-test.sh` runs `tests/*.rs` again in headless Chromium
//! (wasm-bindgen-test; `webdriver.json` holds Chromium's flags, read from `web/`).

pub mod browser;
pub mod charts;
pub mod cite;
pub mod components;
pub mod hooks;
pub mod ledger;
pub mod machine;
pub mod pages;
pub mod progress;
pub mod review;
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
