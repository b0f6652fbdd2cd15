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
use crate::route::{self, Route};
use crate::run;
use seeds::{use_progress, Progress};
use skblab_core::output::Citation;
use skblab_core::{Experiment, DEFAULT_SEED};
use table::SeedTable;
use yew::prelude::*;

mod seeds;
mod table;

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
                <p class="muted" data-testid="repro-estimate">{ estimate_line(n) }</p>
            </header>
            { for (0..skblab_core::sources::SEEDS.len()).map(|k| html! { <SeedPost index={k} seeds={n} /> }) }
        </div>
    }
}

/// The page's work, said before it starts: every reproduced experiment's
/// `reproduce_estimate` over `n` seeds (the CLI's estimate) on the pool's workers.
fn estimate_line(n: u32) -> String {
    let workers = run::pool_size().max(1);
    let ms: f64 = (0..skblab_core::sources::SEEDS.len())
        .flat_map(post_experiments)
        .map(|(e, _, _)| run::plan::estimate_ms(e, &e.reproduce_estimate(u64::from(n)), workers))
        .sum();
    let on = if workers == 1 { "1 worker".to_string() } else { format!("{workers} workers") };
    format!("Every table's seeds: estimated {} on {on}.", run::plan::duration_text(ms))
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

#[cfg(test)]
mod tests {
    use super::table::{key_label, metric_label};
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
