//! The reproduce page (`#/reproduce?seeds=N`): the five seed posts in order, each with its
//! citation and, under it, the tables of the experiments that reproduce it — the browser's
//! `skblab reproduce <id> --seeds N`, number for number.
//!
//! Each table is core's [`Experiment::reproduce_mean`] split into its per-seed shares: a run
//! of the reproduction parameters per seed ([`Experiment::reproduce_from_runs`]; heavy runs
//! in the worker pool, their points spread over the workers) or one seed's figures where the
//! table gathers several runs ([`Experiment::reproduce_from_figures`]; each seed a task of the
//! pool). Seeds are independent, so they all queue at once; the table fills as seeds finish
//! (the mean of those so far, said so) and is the CLI's once all are in. The page only lays
//! the numbers out, in the CLI's rounding (core's `fmt_num`).

use super::player::state::Page;
use super::{reproduce_href, MAX_REPRODUCE_SEEDS};
use crate::cite;
use crate::components::repro_table::error_class;
use crate::components::verdict::VerdictStrip;
use crate::route::{self, Route};
use crate::run::{self, RunKey, RunState, ViewLoad};
use crate::store::{self, Topic};
use skblab_core::experiment::REPRODUCE_FIGURES;
use skblab_core::output::{fmt_num, Citation, ReproCell, Reproduction};
use skblab_core::{Cost, Experiment, RunOutput, ViewQuery, DEFAULT_SEED};
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

/// A metric's column heading, with its unit (the CLI's units: the caption says so).
pub fn metric_label(metric: &str) -> String {
    let known = match metric {
        "order3_mbps" => "order-3, Mbit/s",
        "order0_mbps" => "order-0, Mbit/s",
        "share_pct" => "share of CPU time, %",
        "gain_pct" => "gain, %",
        "datagrams" => "datagrams in 60 s",
        "mbps" => "goodput, Mbit/s",
        "change_pct" => "change, %",
        "mpps" => "transactions, Mpps",
        "cpu_pct" => "CPU time, %",
        "depth_reached" => "nesting depth, levels",
        "head_unaligned_bytes" => "unaligned head, bytes",
        "max_skb_frags" => "MAX_SKB_FRAGS, frags",
        "shinfo_bytes" => "skb_shared_info, bytes",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_string();
    }
    let (name, unit) = match metric.rsplit_once('_') {
        Some((n, "mbps")) => (n, "Mbit/s"),
        Some((n, "pct")) => (n, "%"),
        Some((n, "bytes")) => (n, "bytes"),
        _ => return metric.replace('_', " "),
    };
    format!("{}, {unit}", name.replace('_', " "))
}

/// The row key's heading.
pub fn key_label(key: &str) -> String {
    match key {
        "threads" => "flows".to_string(),
        "row" => "frame / machine".to_string(),
        other => other.replace('_', " "),
    }
}

/// The seeds of a reproduction over `n` seeds: the CLI's, from the default seed on.
pub fn seed_list(n: u32) -> Vec<u64> {
    skblab_core::calibrate::seeds(DEFAULT_SEED, n)
}

#[derive(Properties, PartialEq)]
pub struct ReproducePageProps {
    pub seeds: u32,
}

/// `#/reproduce`.
#[function_component(ReproducePage)]
pub fn reproduce_page(props: &ReproducePageProps) -> Html {
    let n = props.seeds;
    let on_seeds = Callback::from(|e: Event| {
        let value = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
        if let Ok(n) = value.parse::<u32>() {
            crate::browser::go_hash(&reproduce_href(n));
        }
    });
    let options = (1..=MAX_REPRODUCE_SEEDS).map(|k| {
        html! { <option value={k.to_string()} selected={k == n}>{ k }</option> }
    });
    html! {
        <div class="reproduce-page" data-testid="reproduce-page" data-seeds={n.to_string()}>
            <header class="player-head">
                <p class="eyebrow">{"Reproduce"}</p>
                <h1>{"The five seed posts beside the model"}</h1>
                <p class="lead">
                    { "Each seed post's measured numbers beside the model's mean over the seeds, each simulated \
                    cell with its [min–max] over them, the error of each cell (green ≤ 5 %, amber ≤ 12 %, red beyond) \
                    and the mean absolute percentage error per column: the numbers of " }
                    <code>{ format!("skblab reproduce <id> --seeds {n}") }</code>
                    {". Each table's verdict says what its error means; "}
                    <a href={route::href(Route::Validation)} data-testid="reproduce-validation-link">
                        {"the validation page"}</a>
                    {" has the degrees of freedom, the out-of-sample errors and the curve baseline."}
                </p>
                <p class="repro-seeds">
                    <label for="repro-seeds">{"Seeds "}</label>
                    <select id="repro-seeds" data-testid="repro-seeds" onchange={on_seeds}>{ for options }</select>
                    <span class="muted">{ format!(" seeds {}, the CLI's default is 5", seed_text(&seed_list(n))) }</span>
                </p>
            </header>
            { for (0..skblab_core::sources::SEEDS.len()).map(|k| html! { <SeedPost index={k} seeds={n} /> }) }
        </div>
    }
}

fn seed_text(seeds: &[u64]) -> String {
    match seeds {
        [one] => one.to_string(),
        [first, .., last] => format!("{first} to {last}"),
        [] => String::new(),
    }
}

/// The experiments reproducing seed post `index`, in course order, with their lesson's slug
/// and title (the lesson index pairs a lesson with its experiment and seed).
pub fn post_experiments(index: usize) -> Vec<(&'static dyn Experiment, &'static str, &'static str)> {
    let code = format!("{index:03}");
    skblab_lessons::index()
        .iter()
        .filter(|l| l.seed == code)
        .filter_map(|l| Some((skblab_core::find(&l.experiment).ok()?, l.slug.as_str(), l.title.as_str())))
        .collect()
}

#[derive(Properties, PartialEq)]
struct SeedPostProps {
    index: usize,
    seeds: u32,
}

#[function_component(SeedPost)]
fn seed_post(props: &SeedPostProps) -> Html {
    let c = &skblab_core::sources::SEEDS[props.index];
    let code = format!("{:03}", props.index);
    let heading = format!("seed-post-{code}-title");
    html! {
        <section class="seed-post" data-testid={format!("seed-post-{code}")} aria-labelledby={heading.clone()}>
            <h2 id={heading}>{ format!("Seed {code}: ") }<span class="seed-subject">{ c.subject }</span></h2>
            { citation(c) }
            { for post_experiments(props.index).into_iter().map(|(e, slug, title)| html! {
                <ExperimentRepro experiment={Exp(e)} slug={slug} title={title} seeds={props.seeds} />
            }) }
        </section>
    }
}

/// A seed post's citation: list, date, author, subject and the Message-ID as a link (the
/// archive's subject search where the archived copy shows none).
fn citation(c: &Citation) -> Html {
    let id = match cite::href_of(c.message_id) {
        Some(href) => html! { <a href={href} rel="noopener noreferrer">{ c.message_id }</a> },
        None => html! { <>{ c.message_id }{" ("}
        <a href={cite::subject_search_href(c.list, c.subject)} rel="noopener noreferrer">{"search the archive"}</a>
        {")"}</> },
    };
    html! {
        <dl class="seed-cite" data-testid="seed-cite">
            <dt>{"list"}</dt><dd>{ c.list }</dd>
            <dt>{"date"}</dt><dd>{ c.date }</dd>
            <dt>{"author"}</dt><dd>{ c.author }</dd>
            <dt>{"subject"}</dt><dd>{ c.subject }</dd>
            <dt>{"Message-ID"}</dt><dd>{ id }</dd>
        </dl>
    }
}

/// An experiment as a prop (compared by id).
#[derive(Clone, Copy)]
struct Exp(&'static dyn Experiment);

impl PartialEq for Exp {
    fn eq(&self, other: &Self) -> bool {
        self.0.id() == other.0.id()
    }
}

#[derive(Properties, PartialEq)]
struct ExperimentProps {
    experiment: Exp,
    slug: AttrValue,
    title: AttrValue,
    seeds: u32,
}

/// One experiment's reproduction as far as its seeds have come.
struct Progress {
    repro: Option<Rc<Reproduction>>,
    /// Seeds in, and work done of the total (points of runs, or seeds of figures).
    seeds_done: usize,
    done: usize,
    total: usize,
    error: Option<String>,
    /// Heavy runs of the seeds (for Stop and Run again).
    keys: Vec<RunKey>,
    stopped: bool,
}

#[function_component(ExperimentRepro)]
fn experiment_repro(props: &ExperimentProps) -> Html {
    let e = props.experiment.0;
    let seeds = seed_list(props.seeds);
    let p = use_progress(e, &seeds);
    let started = use_mut_ref(|| (props.seeds, run::page_ms(), None::<f64>));
    let all_in = p.seeds_done == seeds.len();
    {
        let mut s = started.borrow_mut();
        if s.0 != props.seeds {
            *s = (props.seeds, run::page_ms(), None);
        }
        if all_in && s.2.is_none() {
            s.2 = Some(run::page_ms() - s.1);
        }
    }
    let (t0, took) = (started.borrow().1, started.borrow().2);
    run::use_ticker(!all_in && !p.stopped && p.error.is_none());
    let id = e.id();
    let play = {
        let page = Page::from_query(e, None, 0, &[], &mut Vec::new());
        let page = Page { params: e.reproduce_params(), ..page };
        route::format(&page.location())
    };
    let lesson = route::href(Route::Lesson { slug: props.slug.to_string(), step: 1 });
    html! {
        <section class="repro-section" data-testid={format!("reproduce-{id}")}
            aria-labelledby={format!("repro-{id}-title")}>
            <h3 id={format!("repro-{id}-title")}>{ props.title.clone() }</h3>
            <p class="repro-links">
                <a href={lesson} data-testid={format!("repro-{id}-lesson")}>{"Open the lesson"}</a>
                <a href={play} data-testid={format!("repro-{id}-play")}>{"Open in playground with these settings"}</a>
                <code class="muted">{ format!("skblab reproduce {id} --seeds {}", seeds.len()) }</code>
            </p>
            { progress_line(&p, seeds.len(), t0, took, id) }
            if let Some(repro) = p.repro.clone() {
                <SeedTable {repro} partial={(!all_in).then_some((p.seeds_done, seeds.len()))} />
            }
        </section>
    }
}

/// Progress, ETA and Stop while seeds run; the time all seeds took once they are in.
fn progress_line(p: &Progress, n: usize, t0: f64, took: Option<f64>, id: &str) -> Html {
    if let Some(e) = &p.error {
        return html! { <p class="run-error">{ format!("No reproduction: {e}") }</p> };
    }
    if let Some(ms) = took {
        let text = if n == 1 {
            format!("the seed in {:.1} s", ms / 1000.0)
        } else {
            format!("all {n} seeds in {:.1} s", ms / 1000.0)
        };
        return html! { <p class="muted repro-time" data-testid={format!("repro-{id}-time")} data-ms={format!("{ms:.0}")}>{ text }</p> };
    }
    let pct = (p.done * 100).checked_div(p.total).unwrap_or(0).min(99);
    let elapsed = run::page_ms() - t0;
    let eta = (p.done > 0).then(|| elapsed * (p.total - p.done.min(p.total)) as f64 / p.done as f64);
    let eta_text = eta.map_or(String::new(), |ms| format!(", about {} left", run::plan::duration_text(ms)));
    let keys = p.keys.clone();
    let (label, onclick) = if p.stopped {
        ("Run again", Callback::from(move |_| keys.iter().for_each(run::restart)))
    } else {
        ("Stop", Callback::from(move |_| keys.iter().for_each(run::stop)))
    };
    let text =
        format!("{} of {n} seeds in ({pct} %){}", p.seeds_done, if p.stopped { ", stopped".into() } else { eta_text });
    html! {
        <div class="run-progress" data-testid={format!("repro-{id}-progress")}>
            <div class="run-bar" role="progressbar" aria-label={format!("{id}: seeds simulated")} aria-valuemin="0"
                aria-valuemax="100" aria-valuenow={pct.to_string()}>
                <div class="run-bar-fill" style={format!("width: {pct}%")}></div>
            </div>
            <span class="run-progress-text">{ text }</span>
            if !p.keys.is_empty() {
                <button class="btn btn-small" type="button" {onclick}>{ label }</button>
            }
        </div>
    }
}

/// The reproduction of `e` over `seeds` as far as it has come, from core's per-seed shares.
#[hook]
fn use_progress(e: &'static dyn Experiment, seeds: &[u64]) -> Progress {
    let params = e.resolve(&e.reproduce_params());
    let figures = e.reproduce_figures_cost().is_some();
    let light = !figures && e.cost(&params) == Cost::Light;
    let key = |seed| RunKey { experiment: e, params: params.clone(), seed };
    let fig_keys: Vec<(RunKey, ViewQuery)> =
        if figures { seeds.iter().map(|&s| (key(s), ViewQuery::new(REPRODUCE_FIGURES))).collect() } else { Vec::new() };
    let run_keys: Vec<RunKey> = if figures || light { Vec::new() } else { seeds.iter().map(|&s| key(s)).collect() };
    let loads = run::use_view_data_list::<Vec<f64>>(fig_keys);
    let states = use_seed_runs(run_keys.clone());
    let seeds_key = seeds.to_vec();
    let light_repro =
        use_memo((e.id(), seeds_key), move |(_, seeds)| light.then(|| e.reproduce_mean(seeds).map(Rc::new)).flatten());
    if light {
        let repro = (*light_repro).clone();
        let error = repro.is_none().then(|| format!("{} has no seed table", e.id()));
        return Progress { repro, seeds_done: seeds.len(), done: 1, total: 1, error, keys: Vec::new(), stopped: false };
    }
    if figures {
        let mut p = Progress {
            repro: None,
            seeds_done: 0,
            done: 0,
            total: seeds.len(),
            error: None,
            keys: Vec::new(),
            stopped: false,
        };
        let (mut done_seeds, mut done_figs) = (Vec::new(), Vec::new());
        for (&seed, load) in seeds.iter().zip(&loads) {
            match load {
                ViewLoad::Ready(f) => {
                    done_seeds.push(seed);
                    done_figs.push((**f).clone());
                }
                ViewLoad::Failed(err) => p.error = Some(err.clone()),
                ViewLoad::Waiting => {}
            }
        }
        (p.seeds_done, p.done) = (done_seeds.len(), done_seeds.len());
        p.repro = e.reproduce_from_figures(&done_seeds, &done_figs).map(Rc::new);
        return p;
    }
    runs_progress(e, seeds, &states, run_keys)
}

fn runs_progress(
    e: &'static dyn Experiment,
    seeds: &[u64],
    states: &[Option<Rc<RunState>>],
    keys: Vec<RunKey>,
) -> Progress {
    let n_points = keys.first().map_or(1, |k| e.points(&k.params).len().max(1));
    let mut p = Progress {
        repro: None,
        seeds_done: 0,
        done: 0,
        total: seeds.len() * n_points,
        error: None,
        keys,
        stopped: false,
    };
    let (mut done_seeds, mut outputs): (Vec<u64>, Vec<RunOutput>) = (Vec::new(), Vec::new());
    for (&seed, state) in seeds.iter().zip(states) {
        let Some(s) = state else { continue };
        p.done += if s.is_done() { n_points } else { s.rows.len() };
        p.stopped |= s.stopped;
        if let Some(err) = &s.error {
            p.error = Some(err.clone());
        }
        if let Some(out) = &s.output {
            done_seeds.push(seed);
            outputs.push((**out).clone());
        }
    }
    p.seeds_done = done_seeds.len();
    p.repro = e.reproduce_from_runs(&done_seeds, &outputs).map(Rc::new);
    p
}

/// The heavy runs of `keys` in the pool's background; a finished run is kept here (the run
/// store's cache holds fewer runs than ten seeds of two experiments).
#[hook]
fn use_seed_runs(keys: Vec<RunKey>) -> Vec<Option<Rc<RunState>>> {
    store::use_topic(Topic::Runs, None);
    let kept = use_mut_ref(Vec::<Rc<RunState>>::new);
    let states: Vec<Option<Rc<RunState>>> =
        keys.iter().map(|k| kept.borrow().iter().find(|s| s.key == *k).cloned().or_else(|| run::state_of(k))).collect();
    for s in states.iter().flatten().filter(|s| s.is_done()) {
        if !kept.borrow().iter().any(|k| k.key == s.key) {
            kept.borrow_mut().push(s.clone());
        }
    }
    {
        let kept = kept.clone();
        // Every render: a no-op for runs kept, running, queued or stopped.
        use_effect(move || {
            for k in keys.into_iter().filter(|k| !kept.borrow().iter().any(|s| s.key == *k)) {
                run::want(k);
            }
        });
    }
    states
}

#[derive(Properties, PartialEq)]
struct SeedTableProps {
    repro: Rc<Reproduction>,
    /// Seeds in of all, while some are still running.
    partial: Option<(usize, usize)>,
}

/// The seed's numbers beside the model's mean [min–max], as the CLI prints them.
#[function_component(SeedTable)]
fn seed_table(props: &SeedTableProps) -> Html {
    let r = &props.repro;
    let metrics = r.metrics();
    let spread = r.rows.iter().flat_map(|row| &row.cells).any(|c| c.spread.is_some());
    let model = if spread { "model: mean [min–max]" } else { "model" };
    let groups = metrics.iter().map(|m| html! { <th scope="colgroup" colspan="3">{ metric_label(m) }</th> });
    let subs = metrics.iter().map(|_| {
        html! { <>
        <th scope="col" class="num">{"seed"}</th><th scope="col" class="num">{ model }</th>
        <th scope="col" class="num">{"error"}</th></> }
    });
    let mape = metrics.iter().map(|m| {
        let cell = r.mape_pct(m).map_or(html! {"–"}, |v| html! {
            <span class={classes!("err-badge", error_class(v))} data-metric={*m} data-kind="mape">{ format!("{v:.2} %") }</span>
        });
        html! { <><td colspan="2" class="num">{"MAPE"}</td><td class="num">{ cell }</td></> }
    });
    let so_far = props.partial.map_or(String::new(), |(k, n)| format!(" (mean of {k} of {n} seeds so far)"));
    let units = units_caption(&metrics);
    html! {
        <figure class="card-flat repro" data-testid={format!("repro-{}-table", r.experiment)}
            data-partial={props.partial.is_some().to_string()}>
            <figcaption class="repro-cite">{ format!("Seed: {}{units}", r.citation.one_line()) }</figcaption>
            <VerdictStrip experiment={r.experiment} />
            <div class="table-scroll" tabindex="0" role="region" aria-label={format!("{}: seed vs model", r.experiment)}>
                <table class="results grid repro-table">
                    <thead>
                        <tr><th scope="col" rowspan="2">{ key_label(r.key_name) }</th>{ for groups }</tr>
                        <tr>{ for subs }</tr>
                    </thead>
                    <tbody>{ for r.rows.iter().map(|row| row_html(row, &metrics)) }</tbody>
                    <tfoot><tr><th scope="row">{ format!("all{so_far}") }</th>{ for mape }</tr></tfoot>
                </table>
            </div>
            <ul class="repro-summary">
                <li data-kind="max-error">{ format!("max |error|{so_far}: {:.2} %", r.max_abs_error_pct()) }</li>
                { for r.notes.iter().map(|n| html! { <li>{ n }</li> }) }
            </ul>
        </figure>
    }
}

/// The caption's word on units: the CLI's (Mbit/s where the lessons chart Gbit/s).
fn units_caption(metrics: &[&str]) -> &'static str {
    if metrics.iter().any(|m| m.ends_with("_mbps")) {
        ". Throughputs in Mbit/s, the CLI's and the seed's unit (the lesson's charts show Gbit/s: 1 Gbit/s = 1000 Mbit/s)"
    } else {
        ""
    }
}

fn row_html(row: &skblab_core::output::ReproRow, metrics: &[&'static str]) -> Html {
    let by_metric: BTreeMap<&str, &ReproCell> = row.cells.iter().map(|c| (c.metric, c)).collect();
    let cells = metrics.iter().map(|m| match by_metric.get(m) {
        Some(c) => {
            let err = c.error_pct();
            html! { <>
                <td class="num" data-metric={*m} data-kind="seed">{ fmt_num(c.measured) }</td>
                <td class="num" data-metric={*m} data-kind="sim">{ fmt_num(c.simulated) }
                    if let Some([lo, hi]) = c.spread {
                        <span class="spread">{ format!(" [{}–{}]", fmt_num(lo), fmt_num(hi)) }</span>
                    }
                </td>
                <td class="num" data-metric={*m} data-kind="err">
                    <span class={classes!("err-badge", error_class(err))}>{ format!("{err:+.1} %") }</span></td>
            </> }
        }
        None => html! { <><td class="num">{"–"}</td><td class="num">{"–"}</td><td class="num">{"–"}</td></> },
    });
    html! { <tr data-label={row.label.clone()}><th scope="row">{ &row.label }</th>{ for cells }</tr> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_experiment_with_a_seed_table_is_under_one_seed_post() {
        let listed: Vec<&str> = (0..5).flat_map(post_experiments).map(|(e, _, _)| e.id()).collect();
        for e in skblab_core::experiments() {
            if e.reproduce(DEFAULT_SEED).is_some() {
                assert_eq!(listed.iter().filter(|id| **id == e.id()).count(), 1, "{}", e.id());
            }
        }
        assert_eq!(post_experiments(0)[0].0.id(), "high-order-alloc");
    }

    #[test]
    fn columns_have_human_names_with_units() {
        assert_eq!(metric_label("order3_mbps"), "order-3, Mbit/s");
        assert_eq!(metric_label("foo_bar_pct"), "foo bar, %");
        assert_eq!(metric_label("plain"), "plain");
        assert_eq!(key_label("threads"), "flows");
        assert_eq!(seed_list(5), vec![1, 2, 3, 4, 5]);
    }
}
