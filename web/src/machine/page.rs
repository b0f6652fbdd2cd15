//! `#/machine`, "Your machine": the commands that measure a real Linux box (core's
//! `machine::fit::COMMANDS`, with a Copy button), a file picker and a paste box for the
//! file they write, the file's machine facts, and its fit — core's `MachineFit`, run in the
//! worker pool ([`super::job::start_fit`]) with progress, ETA and Stop — as a table of every
//! point and overlay charts of the stream suite ([`super::chart`]). The file is
//! parsed by core (in the worker), kept in localStorage ([`super::saved`]) and never uploaded;
//! without one, the project's own reference measurement (fetched, not compiled in) is shown.

use super::job::{current_fit, restart_fit, start_fit, stop_fit, use_fit, FitState};
use super::results::{facts_box, Results};
use super::saved::{self, Saved};
use crate::hooks::use_dark_mode;
use crate::run::{page_ms, plan, use_ticker};
use skblab_core::machine::file::MAX_FILE_BYTES;
use skblab_core::machine::fit::COMMANDS;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Where the build keeps the project's reference measurement (index.html copies
/// data/measurements/2026-12-02-amd-epyc-f25m1.json, the AMD guest's file, there; the service worker caches it).
pub const REFERENCE_URL: &str = "./2026-12-02-amd-epyc-f25m1.json";
/// What the page calls it.
pub const REFERENCE_LABEL: &str = "the reference measurement";
const PASTED_LABEL: &str = "pasted text";

/// A file the page was asked to fit, and whether it should be kept once core accepts it.
#[derive(Clone, PartialEq)]
struct Wanted {
    label: String,
    hash: u64,
    text: Rc<String>,
    /// Came from localStorage (dropped if core refuses it) or is to be saved there.
    from_storage: bool,
}

fn fit(label: &str, text: String, from_storage: bool, wanted: &UseStateHandle<Option<Wanted>>) {
    let text = Rc::new(text);
    let hash = crate::run::fnv64(&text);
    if label != REFERENCE_LABEL {
        wanted.set(Some(Wanted { label: label.to_string(), hash, text: text.clone(), from_storage }));
    }
    start_fit(label, text);
}

/// Fetches the reference (once per page: it is the same file) and fits it.
fn fit_reference(notices: UseStateHandle<Vec<String>>) {
    thread_local! {
        static TEXT: std::cell::RefCell<Option<Rc<String>>> = const { std::cell::RefCell::new(None) };
    }
    if let Some(text) = TEXT.with(|t| t.borrow().clone()) {
        return start_fit(REFERENCE_LABEL, text);
    }
    yew::platform::spawn_local(async move {
        match crate::browser::fetch_text(REFERENCE_URL).await {
            Ok(text) => {
                let text = Rc::new(text);
                TEXT.with(|t| *t.borrow_mut() = Some(text.clone()));
                start_fit(REFERENCE_LABEL, text);
            }
            Err(e) => {
                notices.set(vec![format!("The reference measurement could not be loaded ({e}); pick or paste a file.")])
            }
        }
    });
}

/// On the first view: the fit shown before (coming back to the page), else the kept file if
/// there is one (older or unreadable entries dropped with a notice), else the reference.
fn on_mount(notices: UseStateHandle<Vec<String>>, wanted: UseStateHandle<Option<Wanted>>) {
    let mut said = Vec::new();
    for key in saved::OLD_KEYS {
        if crate::browser::storage_get(key).is_some() {
            crate::browser::storage_remove(key);
            said.push(saved::dropped_notice("it was kept by an older version of this page"));
        }
    }
    if current_fit().is_none() {
        match crate::browser::storage_get(saved::KEY).map(|raw| Saved::decode(&raw)) {
            Some(Ok(s)) => fit(&s.name, s.text, true, &wanted),
            Some(Err(reason)) => {
                crate::browser::storage_remove(saved::KEY);
                said.push(saved::dropped_notice(&reason));
                fit_reference(notices.clone());
            }
            None => fit_reference(notices.clone()),
        }
    }
    if !said.is_empty() {
        notices.set(said);
    }
}

/// Keeps an accepted file in localStorage, drops a kept one core refuses (after each reply)
/// and then fits the reference, as for a kept entry that does not decode: the visit that
/// finds its kept file refused shows the reference under the notice, not an empty page. A
/// file just picked or pasted that core refuses keeps its error line on screen instead.
fn settle(s: &FitState, wanted: &UseStateHandle<Option<Wanted>>, notices: &UseStateHandle<Vec<String>>) {
    let Some(w) = (**wanted).clone().filter(|w| w.hash == s.hash) else { return };
    if s.rejected {
        wanted.set(None);
        if w.from_storage {
            crate::browser::storage_remove(saved::KEY);
            let reason = s.job.error().unwrap_or_default().to_string();
            notices.set(vec![saved::dropped_notice(&format!("core could not read it ({reason})"))]);
            fit_reference(notices.clone());
        }
    } else if s.facts.is_some() {
        if !w.from_storage && !crate::browser::storage_try_set(saved::KEY, &Saved::new(&w.label, &w.text).encode()) {
            notices.set(vec![format!(
                "{} is shown but could not be kept in this browser (no storage, or too big for it): it stays until you leave the page.",
                w.label
            )]);
        }
        wanted.set(None);
    }
}

/// `#/machine`.
#[function_component(MachinePage)]
pub fn machine_page() -> Html {
    let fit_state = use_fit();
    let notices = use_state(Vec::<String>::new);
    let wanted = use_state(|| None::<Wanted>);
    {
        let (notices, wanted) = (notices.clone(), wanted.clone());
        use_effect_with((), move |_| on_mount(notices, wanted));
    }
    {
        let (wanted, notices) = (wanted.clone(), notices.clone());
        let key = fit_state.as_ref().map(|s| (s.job.id, s.label.clone(), s.facts.is_some(), s.rejected));
        let state = fit_state.clone();
        use_effect_with(key, move |_| {
            if let Some(s) = state {
                settle(&s, &wanted, &notices);
            }
        });
    }
    let dark = use_dark_mode();
    html! {
        <div class="machine-page" data-testid="machine-page">
            <header class="player-head">
                <p class="eyebrow">{"Your machine"}</p>
                <h1>{"Hold the model against your own Linux box"}</h1>
                <p class="lead">
                    {"The lessons simulate machines from mailing-list posts that nobody here can touch. Your machine \
                      is one you can: the commands below measure it (TCP over loopback with iperf3, the kernel's \
                      struct sizes, its page lists) into one file, and this page predicts every measured number \
                      from the model's catalogue, fits one constant on one part of it, and shows how far the rest \
                      lands from what your kernel did. The file stays in this browser: nothing is uploaded."}
                </p>
            </header>
            <Commands />
            <FilePicker wanted={wanted.clone()} notices={notices.clone()} />
            if !notices.is_empty() {
                <ul class="notice-inline machine-notices" role="status" data-testid="machine-notice">
                    { for notices.iter().map(|n| html! { <li>{ n }</li> }) }
                </ul>
            }
            <Status state={fit_state.clone()} />
            if let Some(s) = &fit_state {
                if let Some(facts) = &s.facts { { facts_box(facts) } }
                if let Some(r) = &s.report { <Results report={r.clone()} {dark} /> }
            }
        </div>
    }
}

#[function_component(Commands)]
fn commands() -> Html {
    let copied = use_state(|| None::<bool>);
    let onclick = {
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| {
            let copied = copied.clone();
            crate::browser::copy_text(COMMANDS, move |ok| copied.set(Some(ok)));
        })
    };
    let said = match *copied {
        Some(true) => "Copied.",
        Some(false) => "The browser refused: select the text and copy it.",
        None => "",
    };
    html! {
        <section class="card-flat machine-commands">
            <div class="box-head">
                <h2>{"1. Measure your machine"}</h2>
                <button class="btn btn-small" type="button" {onclick} data-testid="machine-copy">{"Copy"}</button>
                <span class="muted" role="status" data-testid="machine-copied">{ said }</span>
            </div>
            <p class="muted">{"Linux, root (one sysctl is switched and restored), iperf3, sockperf, pahole and perf \
                installed; a quiet machine. About 6 minutes."}</p>
            <pre class="machine-pre" data-testid="machine-commands" tabindex="0">{ COMMANDS }</pre>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct PickerProps {
    wanted: UseStateHandle<Option<Wanted>>,
    notices: UseStateHandle<Vec<String>>,
}

/// A picked file: read here (never uploaded) and fitted; a file over core's size limit is not
/// even read.
fn on_file(wanted: UseStateHandle<Option<Wanted>>, notices: UseStateHandle<Vec<String>>) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let input: Option<web_sys::HtmlInputElement> = e.target().and_then(|t| t.dyn_into().ok());
        let Some(file) = input.as_ref().and_then(|i| i.files()).and_then(|f| f.get(0)) else { return };
        if let Some(i) = &input {
            i.set_value("");
        }
        let name = saved::file_label(&file.name());
        if file.size() > MAX_FILE_BYTES as f64 {
            let msg = format!(
                "{name}: the file is {} bytes, more than the {MAX_FILE_BYTES} a measurement may have",
                file.size()
            );
            return notices.set(vec![msg]);
        }
        let (wanted, notices) = (wanted.clone(), notices.clone());
        yew::platform::spawn_local(async move {
            match crate::browser::blob_text(&file).await {
                Ok(text) => {
                    notices.set(Vec::new());
                    fit(&name, text, false, &wanted);
                }
                Err(e) => notices.set(vec![format!("{name} could not be read: {e}")]),
            }
        });
    })
}

/// The file picker, the paste box and the reference button.
#[function_component(FilePicker)]
fn file_picker(props: &PickerProps) -> Html {
    let paste_ref = use_node_ref();
    let kept = crate::browser::storage_get(saved::KEY).is_some();
    let on_file = on_file(props.wanted.clone(), props.notices.clone());
    let on_paste = {
        let (wanted, notices, paste_ref) = (props.wanted.clone(), props.notices.clone(), paste_ref.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(area) = paste_ref.cast::<web_sys::HtmlTextAreaElement>() else { return };
            notices.set(Vec::new());
            fit(PASTED_LABEL, area.value(), false, &wanted);
        })
    };
    let on_reference = {
        let notices = props.notices.clone();
        Callback::from(move |_: MouseEvent| {
            notices.set(Vec::new());
            fit_reference(notices.clone());
        })
    };
    let on_forget = {
        let notices = props.notices.clone();
        Callback::from(move |_: MouseEvent| {
            crate::browser::storage_remove(saved::KEY);
            notices.set(vec!["Your file was removed from this browser.".to_string()]);
            fit_reference(notices.clone());
        })
    };
    html! {
        <section class="card-flat machine-input">
            <h2>{"2. Open the file it wrote"}</h2>
            <div class="machine-choose">
                <label for="machine-file">{"The measurement file (JSON): "}</label>
                <input id="machine-file" type="file" accept=".json,application/json"
                    onchange={on_file} data-testid="machine-file" />
                <button class="btn" type="button" onclick={on_reference} data-testid="machine-reference">
                    {"Show the reference measurement"}</button>
                if kept {
                    <button class="btn btn-quiet" type="button" onclick={on_forget} data-testid="machine-forget">
                        {"Forget my file"}</button>
                }
            </div>
            <details class="machine-paste-box">
                <summary>{"…or paste its text"}</summary>
                <label for="machine-paste" class="visually-hidden">{"Measurement file text"}</label>
                <textarea id="machine-paste" ref={paste_ref} rows="6" spellcheck="false"
                    placeholder="{\"schema_version\": 1, …}" data-testid="machine-paste" />
                <button class="btn btn-small btn-primary" type="button" onclick={on_paste}
                    data-testid="machine-paste-use">{"Fit the pasted text"}</button>
            </details>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct StatusProps {
    state: Option<Rc<FitState>>,
}

/// Where the fit is: loading, running (bar, ETA, Stop), stopped, failed, done (its time).
#[function_component(Status)]
fn status(props: &StatusProps) -> Html {
    use_ticker(props.state.as_ref().is_some_and(|s| s.job.is_running()));
    let Some(s) = props.state.as_deref() else {
        return html! { <p class="muted" data-testid="machine-loading">{"Loading the reference measurement…"}</p> };
    };
    if let Some(e) = s.job.error() {
        return html! { <p class="run-error machine-error" role="alert" data-testid="machine-error">{ format!("{}: {e}", s.label) }</p> };
    }
    if s.job.is_stopped() {
        let onclick = Callback::from(|_: MouseEvent| restart_fit());
        return html! {
            <div class="run-control" data-testid="machine-stopped">
                <span>{ format!("Stopped after {} of {} simulator runs.", s.job.done, s.job.total) }</span>
                <button class="btn btn-small" type="button" {onclick} data-testid="machine-restart">{"Fit again"}</button>
            </div>
        };
    }
    let pct = s.job.percent();
    let label = format!("{} of {} simulator runs", s.job.done, s.job.total);
    if let Some(total) = s.job.total_ms.filter(|_| s.report.is_some()) {
        let line = format!(
            "Fitted {} in {:.1} s in the worker ({} simulator runs, worker compute {:.1} s).",
            s.label,
            total / 1000.0,
            s.job.total,
            s.job.compute_ms.unwrap_or(0.0) / 1000.0
        );
        return html! { <p class="muted machine-time" data-testid="machine-time">{ line }</p> };
    }
    let eta =
        if s.facts.is_some() { plan::eta_text(s.job.eta_ms(page_ms())) } else { "reading the file…".to_string() };
    let onclick = Callback::from(|_: MouseEvent| stop_fit());
    html! {
        <div class="run-progress machine-progress">
            <div class="run-bar" role="progressbar" aria-label="Fit progress" aria-valuemin="0" aria-valuemax="100"
                aria-valuenow={pct.to_string()} aria-valuetext={label.clone()} data-testid="machine-progress"
                data-done={s.job.done.to_string()} data-total={s.job.total.to_string()}>
                <div class="run-bar-fill" style={format!("width: {pct}%")}></div>
            </div>
            <span>{ format!("Fitting {}: {label}", s.label) }</span>
            <span class="run-eta" data-testid="machine-eta">{ eta }</span>
            <button class="btn btn-small" type="button" {onclick} data-testid="machine-stop" aria-label="Stop the fit">{"Stop"}</button>
        </div>
    }
}
