//! The few browser calls the app makes: the URL hash, localStorage, colour scheme, downloads.
//!
//! Only hooks, effects and event callbacks call these; models and `Default`s never do. Every
//! call tolerates a missing API (private mode, no storage) by doing nothing or returning `None`:
//! a browser quirk must not take the lesson down.

use wasm_bindgen::JsCast;
use web_sys::{window, HtmlAnchorElement};

/// `location.hash`, e.g. `#/lesson/skb-layout/2?mtu=9000` (empty string if none).
pub fn current_hash() -> String {
    window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Replaces the current history entry's URL (a control moved: no new history entry).
pub fn replace_hash(hash: &str) {
    if let Some(history) = window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(hash));
    }
}

/// Navigates to `hash` as a link would: a history entry and a `hashchange`, so the app
/// resolves the page again (a page whose props come from the URL, such as the Reproduce
/// page's seeds). `push_hash` adds the entry without the event, for a page that keeps its own
/// state in step with the URL.
pub fn go_hash(hash: &str) {
    if let Some(location) = window().map(|w| w.location()) {
        let _ = location.set_hash(hash);
    }
}

/// Adds a history entry (a new step: the back button returns to the previous one). Once a
/// new version has taken over (`window.skblabUpdateReady`, set by the loader in Trunk.toml;
/// the frame's banner says "the next page you open loads it"), it navigates as a link would
/// instead ([`go_hash`]): the loader reloads on that `hashchange`, so a new step opens in the
/// new version as a link's page does.
pub fn push_hash(hash: &str) {
    let Some(w) = window() else { return };
    let key = wasm_bindgen::JsValue::from_str("skblabUpdateReady");
    if js_sys::Reflect::get(&w, &key).ok().and_then(|v| v.as_bool()) == Some(true) {
        go_hash(hash);
    } else if let Ok(history) = w.history() {
        let _ = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(hash));
    }
}

fn storage() -> Option<web_sys::Storage> {
    window().and_then(|w| w.local_storage().ok().flatten())
}

pub fn storage_get(key: &str) -> Option<String> {
    storage().and_then(|s| s.get_item(key).ok().flatten())
}

pub fn storage_set(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

/// [`storage_set`] that says whether the browser kept it (no storage, or over its quota: no).
pub fn storage_try_set(key: &str, value: &str) -> bool {
    storage().is_some_and(|s| s.set_item(key, value).is_ok())
}

pub fn storage_remove(key: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(key);
    }
}

/// A JavaScript error as one line of text.
fn js_error(e: &wasm_bindgen::JsValue) -> String {
    let message = js_sys::Reflect::get(e, &"message".into()).ok().and_then(|m| m.as_string());
    message.or_else(|| e.as_string()).unwrap_or_else(|| "the browser refused".to_string())
}

/// The text at `url` (same origin: the CSP's connect-src 'self'), or why not.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let w = window().ok_or("no window")?;
    let response = JsFuture::from(w.fetch_with_str(url)).await.map_err(|e| js_error(&e))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| "no response".to_string())?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(|e| js_error(&e))?).await.map_err(|e| js_error(&e))?;
    text.as_string().ok_or_else(|| "not text".to_string())
}

/// The text of a file the reader picked (read here, in the page: nothing is uploaded).
pub async fn blob_text(blob: &web_sys::Blob) -> Result<String, String> {
    let text = wasm_bindgen_futures::JsFuture::from(blob.text()).await.map_err(|e| js_error(&e))?;
    text.as_string().ok_or_else(|| "not text".to_string())
}

/// This tab's session storage: what should last until the tab closes, across the home page's
/// handover to the full app (pages/shell.rs), but not beyond.
fn session() -> Option<web_sys::Storage> {
    window().and_then(|w| w.session_storage().ok().flatten())
}

pub fn session_get(key: &str) -> Option<String> {
    session().and_then(|s| s.get_item(key).ok().flatten())
}

pub fn session_set(key: &str, value: &str) {
    if let Some(s) = session() {
        let _ = s.set_item(key, value);
    }
}

fn dark_query() -> Option<web_sys::MediaQueryList> {
    window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
}

/// True if the system asks for a dark colour scheme.
pub fn prefers_dark() -> bool {
    dark_query().is_some_and(|q| q.matches())
}

/// The media query to listen to for colour-scheme changes.
pub fn dark_media_query() -> Option<web_sys::MediaQueryList> {
    dark_query()
}

/// Saves `text` as a file named `filename` (through a temporary object URL).
pub fn download_text(filename: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    download_url(filename, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Saves a `data:` or object URL as a file named `filename`.
pub fn download_url(filename: &str, url: &str) {
    let Some(document) = window().and_then(|w| w.document()) else { return };
    let Ok(element) = document.create_element("a") else { return };
    let Ok(anchor) = element.dyn_into::<HtmlAnchorElement>() else { return };
    anchor.set_href(url);
    anchor.set_download(filename);
    anchor.click();
}

/// Scrolls the page to its top (a new page opens at its beginning, not where the last one was).
pub fn scroll_to_top() {
    if let Some(w) = window() {
        w.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// Moves keyboard focus to the element `id` (which should have tabindex="-1") and scrolls it
/// into view, as a page change does for a screen-reader or keyboard user.
pub fn focus_element(id: &str) {
    let element = window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id));
    if let Some(el) = element.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        el.scroll_into_view();
        let _ = el.focus();
    }
}

/// Where the full app mounts: `<body>`, or, when index.html's loader has drawn a step's
/// pre-rendered first view there (`<div id="first">`, scripts/prerender.mjs), a new
/// `<div id="app">` after it, so that the static view stays until the app's own views are
/// drawn (the loader then removes it). `None` outside a browser.
pub fn app_root() -> Option<web_sys::Element> {
    let document = window()?.document()?;
    let body: web_sys::Element = document.body()?.into();
    if document.get_element_by_id("first").is_none() {
        return Some(body);
    }
    let root = document.create_element("div").ok()?;
    root.set_id("app");
    body.append_child(&root).ok()?;
    Some(root)
}

/// The viewport's width in CSS pixels (`None` outside a browser).
pub fn viewport_width() -> Option<f64> {
    window()?.inner_width().ok()?.as_f64()
}

/// Registers the service worker (`sw.js`, next to index.html) that lets the app load offline
/// after the first visit, by its absolute path (the page's directory, not resolved against
/// whatever the document's URL is). Browsers without service workers (or in an insecure
/// context) skip it.
pub fn register_service_worker() {
    let Some(w) = window() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let script = format!("{}sw.js", path.rfind('/').map_or("/", |i| &path[..=i]));
    let navigator = w.navigator();
    let has_sw = js_sys::Reflect::has(&navigator, &wasm_bindgen::JsValue::from_str("serviceWorker")).unwrap_or(false);
    if has_sw {
        // The outcome changes nothing for the page (online it works without the worker), but a
        // rejection must be handled, or it is an uncaught error in the console.
        let promise = navigator.service_worker().register(&script);
        // Called once at start: the one small closure may live as long as the page.
        let ignore = wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(|_| {});
        let _ = promise.catch(&ignore);
        ignore.forget();
    }
}

/// Writes `text` to the clipboard; `done(true)` once it is there, `done(false)` if the browser
/// refused (no clipboard API, no permission) — the caller then shows the text to copy by hand.
pub fn copy_text(text: &str, done: impl Fn(bool) + 'static) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsValue;
    let done = std::rc::Rc::new(done);
    let promise = window()
        .map(|w| w.navigator())
        .and_then(|n| js_sys::Reflect::get(&n, &JsValue::from_str("clipboard")).ok())
        .filter(|c| !c.is_undefined() && !c.is_null())
        .and_then(|c| {
            let write = js_sys::Reflect::get(&c, &JsValue::from_str("writeText")).ok()?;
            let write: js_sys::Function = write.dyn_into().ok()?;
            write.call1(&c, &JsValue::from_str(text)).ok()?.dyn_into::<js_sys::Promise>().ok()
        });
    let Some(promise) = promise else { return done(false) };
    let (ok, failed) = (done.clone(), done);
    let on_ok = Closure::once(move |_: JsValue| ok(true));
    let on_err = Closure::once(move |_: JsValue| failed(false));
    let _ = promise.then2(&on_ok, &on_err);
    // The promise settles once; the two small closures are kept until then (leaked: a click each).
    on_ok.forget();
    on_err.forget();
}

/// The page's full URL.
pub fn current_url() -> String {
    window().and_then(|w| w.location().href().ok()).unwrap_or_default()
}
