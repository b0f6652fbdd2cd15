//! The views every experiment gets from its [`ViewSpec`]s, drawn from the run alone: the
//! result table, the seed comparison, text views, charts of columns, plots of the output's own
//! series ([`skblab_core::Plot`]) and flame graphs ([`super::flame`]). A heavy run fills them
//! row by row as the worker's points arrive (progress bar on the chart and the comparison).

use super::ViewCtx;
use crate::charts::columns::{add_model_bands, column_chart};
use crate::components::chart::Chart;
use crate::components::repro_table::ReproTable;
use crate::components::results::Results;
use crate::run::RunProgress;
use skblab_core::{ChartSpec, ViewSpec};
use std::rc::Rc;
use yew::prelude::*;

/// Draws a non-custom view.
pub fn render(spec: &ViewSpec, ctx: &ViewCtx) -> Html {
    let ctx = ctx.clone();
    match spec {
        ViewSpec::Table { .. } => html! { <Results output={ctx.run.table()} /> },
        ViewSpec::Compare { id } => html! { <CompareView {ctx} id={*id} /> },
        ViewSpec::Text { id, texts } => html! { <TextsView {ctx} id={*id} texts={*texts} /> },
        ViewSpec::Chart { id, chart } => html! { <ColumnChart {ctx} id={*id} spec={chart.clone()} /> },
        ViewSpec::Flame { id, flames } => html! { <super::flame::FlameView {ctx} id={*id} flames={*flames} /> },
        ViewSpec::Plot { id, plots, .. } => html! { <PlotsView {ctx} id={*id} plots={*plots} /> },
        ViewSpec::Custom { id } => html! { <p class="muted">{ format!("(custom view '{id}')") }</p> },
    }
}

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub ctx: ViewCtx,
    pub id: &'static str,
    pub spec: ChartSpec,
}

/// A chart of columns, filled as rows arrive, with the seed's points if the spec asks.
#[function_component(ColumnChart)]
pub fn column_chart_view(props: &ChartProps) -> Html {
    let ctx = &props.ctx;
    let e = ctx.experiment;
    let run = ctx.run.clone();
    // The model band (the learner started it beside the seed table) is of the reproduction's
    // parameters: drawn here only at those.
    let at_seed = ctx.resolved == e.resolve(&e.reproduce_params());
    let band = crate::components::bands::use_bands_of(e).filter(|_| at_seed);
    let pinned = ctx.pinned.clone();
    let data = use_memo((run.clone(), props.spec.clone(), band, pinned), move |(run, spec, band, pinned)| {
        let points = e.points(&run.key.params);
        let x_range = match (points.first(), points.last()) {
            (Some(a), Some(b)) if points.len() > 1 => Some((a.x as f64, b.x as f64)),
            _ => None,
        };
        let mut chart = column_chart(spec, &run.table(), e.seed_output().as_ref(), x_range);
        if let Some(b) = band {
            add_model_bands(&mut chart, spec, b);
        }
        // The pinned run A: its rows so far, dashed beside B's.
        if let Some(a) = pinned {
            chart.pin(&column_chart(spec, &a.table(), None, None));
        }
        Rc::new(chart)
    });
    html! {
        <Chart data={crate::components::chart::ChartData::from((*data).clone())} dark={ctx.dark}
            caption={props.spec.title} name={format!("{}-{}", e.id(), props.id)}
            testid={format!("chart-{}", props.id)} points={Some(run.rows.len())}>
            <RunProgress state={run.clone()} />
        </Chart>
    }
}

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub ctx: ViewCtx,
    pub id: &'static str,
}

/// The seed post's table beside the run's rows so far (notes once the run is complete).
#[function_component(CompareView)]
pub fn compare_view(props: &CompareProps) -> Html {
    let ctx = &props.ctx;
    let e = ctx.experiment;
    let repro = use_memo((ctx.run.clone(), ctx.resolved.clone()), move |(run, params)| {
        e.compare(params, &run.table()).map(|mut r| {
            if !run.job.is_done() {
                r.notes.clear();
            }
            Rc::new(r)
        })
    });
    let run = &ctx.run;
    // The band is of the reproduction's parameters: drawn on this table only at those.
    let at_seed = ctx.resolved == e.resolve(&e.reproduce_params());
    html! {
        <section class="compare-view" aria-label="Simulation beside the seed">
            if run.in_worker && !run.job.is_done() {
                <RunProgress state={run.clone()} />
            }
            if let Some(repro) = (*repro).clone() {
                <ReproTable {repro} partial={!run.job.is_done()} bands={run.job.is_done()} {at_seed} />
            } else {
                <p class="muted">{ format!("(no seed table for {})", e.id()) }</p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct TextsProps {
    pub ctx: ViewCtx,
    pub id: &'static str,
    pub texts: &'static [&'static str],
}

/// Text views of the output (a perf report, /proc files), one under the other; with a run
/// pinned, A's beside B's ([`super::text_diff`]).
#[function_component(TextsView)]
pub fn texts_view(props: &TextsProps) -> Html {
    let run = &props.ctx.run;
    let Some(out) = run.output.clone() else {
        return html! {
            <figure class="card-flat text-views" data-testid={format!("text-{}", props.id)}>
                { crate::run::waiting_note(run) }
            </figure>
        };
    };
    let views = props.texts.iter().filter_map(|id| out.view(id));
    // With a run pinned as A (done): each view of A beside B's, the lines that differ marked.
    let pinned = props.ctx.pinned_output();
    html! {
        <figure class="card-flat text-views" data-testid={format!("text-{}", props.id)}>
            { for views.enumerate().map(|(i, v)| html! {
                <details open={i == 0} data-testid={format!("text-view-{}", v.id)}>
                    <summary>{ &v.title }</summary>
                    if let Some(a) = pinned.as_ref().and_then(|a| a.view(&v.id)) {
                        { super::text_diff::side_by_side_html(&v.id, &v.title, &a.text, &v.text) }
                    } else {
                        <pre class="text-pre" tabindex="0">{ &v.text }</pre>
                    }
                </details>
            }) }
        </figure>
    }
}

#[derive(Properties, PartialEq)]
pub struct PlotsProps {
    pub ctx: ViewCtx,
    pub id: &'static str,
    pub plots: &'static [&'static str],
}

/// The output's plots (a quantity over simulated time...), one under the other, once the run
/// is done (they come from its `finish`).
#[function_component(PlotsView)]
pub fn plots_view(props: &PlotsProps) -> Html {
    let run = &props.ctx.run;
    let e = props.ctx.experiment;
    // One Rc per plot and run, so a re-render does not redraw the canvases.
    let ids = props.plots;
    // With a run pinned as A (done), each plot draws A's lines too.
    let plots = use_memo((run.clone(), props.ctx.pinned_output()), move |(run, a)| {
        let out = run.output.clone();
        let pin = |p: &skblab_core::Plot| match a.as_ref().and_then(|a| a.plot(&p.id)) {
            Some(pa) => crate::charts::plot::with_pinned(p, pa),
            None => p.clone(),
        };
        out.map(|out| ids.iter().filter_map(|id| out.plot(id)).map(|p| Rc::new(pin(p))).collect::<Vec<_>>())
    });
    let Some(plots) = (*plots).clone() else {
        return html! {
            <figure class="card-flat" data-testid={format!("plot-{}", props.id)}>
                // (a failed run: the note below says why, once)
                if run.in_worker && run.job.error().is_none() {
                    <RunProgress state={run.clone()} />
                }
                { crate::run::waiting_note(run) }
            </figure>
        };
    };
    html! {
        <div data-testid={format!("plot-{}", props.id)}>
            { for plots.into_iter().map(|p| {
                let points = p.lines.iter().map(|l| l.points.len()).sum::<usize>();
                html! {
                    <Chart data={crate::components::chart::ChartData::from(p.clone())} dark={props.ctx.dark}
                        caption={p.title.clone()} name={format!("{}-{}", e.id(), p.id)}
                        testid={format!("plot-canvas-{}", p.id)} points={Some(points)} />
                }
            }) }
        </div>
    }
}
