//! The uncertainty band of a seed table: a button that starts it in the worker pool (the number
//! of runs and their estimated time said before it starts: nothing heavy happens on page load),
//! its progress, ETA and Stop as samples arrive (the band drawn so far widens with each), what it is ("band: N samples of the catalogue constants inside their sourced
//! ranges"), a drawn bar per cell (the model band beside the seeds' spread and the seed's
//! number, [`band_bar`]) and, where the band is wide, core's computed "the model cannot tell"
//! line.

use crate::run::plan::{self, duration_text, eta_text};
use crate::run::{pool_size, start_band, stop_band, use_band, use_ticker, BAND_SAMPLES};
use skblab_core::validate::Bands;
use skblab_core::{Experiment, Reproduction};
use std::rc::Rc;
use yew::prelude::*;

/// Bar size in CSS pixels.
const BAR_W: f64 = 120.0;
const BAR_H: f64 = 16.0;

/// One cell's bar: the model band (shaded), the seeds' [min-max] (dark, if a multi-seed
/// reproduction has one), the seed post's number (a red tick) and the simulated value (a dot),
/// on an axis from the lowest to the highest of them.
pub fn band_bar(band: [f64; 2], spread: Option<[f64; 2]>, measured: f64, simulated: f64) -> Html {
    let mut all = vec![band[0], band[1], measured, simulated];
    all.extend(spread.iter().flatten());
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = ((hi - lo) * 0.06).max(hi.abs() * 1e-9).max(1e-12);
    let x = |v: f64| ((v - lo + pad) / (hi - lo + 2.0 * pad) * BAR_W).clamp(0.0, BAR_W);
    let rect = |[a, b]: [f64; 2], class: &'static str, y: f64, h: f64| {
        let w = (x(b) - x(a)).max(1.5);
        html! { <rect {class} x={format!("{:.1}", x(a))} y={format!("{y:.1}")} width={format!("{w:.1}")} height={format!("{h:.1}")} /> }
    };
    let spread_text = spread.map_or(String::new(), |[a, b]| format!(", seeds' spread {} to {}", num(a), num(b)));
    let title = format!(
        "model band {} to {}{spread_text}; seed {}; simulated {}",
        num(band[0]),
        num(band[1]),
        num(measured),
        num(simulated)
    );
    html! {
        <svg class="band-bar" data-testid="band-bar" width={BAR_W.to_string()} height={BAR_H.to_string()}
            viewBox={format!("0 0 {BAR_W} {BAR_H}")} role="img" aria-label={title.clone()}>
            <title>{ title }</title>
            { rect(band, "band-model", 2.0, BAR_H - 4.0) }
            if let Some(s) = spread { { rect(s, "band-seeds", 5.5, BAR_H - 11.0) } }
            <line class="band-seed-mark" x1={format!("{:.1}", x(measured))} x2={format!("{:.1}", x(measured))} y1="0" y2={BAR_H.to_string()} />
            <circle class="band-sim" cx={format!("{:.1}", x(simulated))} cy={(BAR_H / 2.0).to_string()} r="2.5" />
        </svg>
    }
}

fn num(v: f64) -> String {
    if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// What the band is, in one line.
pub fn band_label(b: &Bands) -> String {
    format!(
        "band: {} samples of the catalogue constants inside their sourced ranges ({} quantities, Latin hypercube, seed {})",
        b.ran,
        b.quantities.len(),
        b.seed
    )
}

#[derive(Properties, PartialEq)]
pub struct BandPanelProps {
    pub experiment: &'static str,
    /// The table the band is drawn on (for the "cannot tell" line).
    pub repro: Rc<Reproduction>,
    /// False where the table is not of the reproduction's parameters (the band is of those).
    #[prop_or(true)]
    pub at_seed: bool,
}

/// The band's button, progress, label and "cannot tell" line (under the seed table).
#[function_component(BandPanel)]
pub fn band_panel(props: &BandPanelProps) -> Html {
    let Ok(e) = skblab_core::find(props.experiment) else { return html! {} };
    let state = use_band(e);
    use_ticker(state.as_ref().is_some_and(|s| s.job.is_running()));
    if e.uncertain().is_empty() {
        return html! {};
    }
    let n_quantities = e.uncertain().len();
    let Some(s) = state else {
        let onclick = Callback::from(move |_| start_band(e, BAND_SAMPLES));
        let workers = pool_size().min(BAND_SAMPLES);
        let estimate =
            plan::run_estimate_ms(e, &e.reproduce_params(), 1) * f64::from(BAND_SAMPLES) / f64::from(workers);
        let on = if workers == 1 { "1 worker".to_string() } else { format!("{workers} workers") };
        return html! {
            <div class="band-panel" data-testid="band-panel">
                <button class="btn btn-small" type="button" {onclick} data-testid="band-start">{"Show uncertainty band"}</button>
                <span class="muted">{ format!(
                    " {BAND_SAMPLES} runs of the reproduction in the background workers, each with the {n_quantities} catalogue \
                    constants it rests on drawn inside their sourced ranges (estimated {} on {on})", duration_text(estimate) ) }</span>
            </div>
        };
    };
    let label = format!("{} of {} samples", s.job.done, s.job.total);
    let cannot =
        s.bands.as_ref().filter(|_| s.job.is_done() && props.at_seed).and_then(|b| b.cannot_tell(&props.repro));
    let eta = eta_text(s.job.eta_ms(crate::run::page_ms()));
    let on_stop = Callback::from(move |_: MouseEvent| stop_band(e));
    let on_again = Callback::from(move |_: MouseEvent| start_band(e, BAND_SAMPLES));
    html! {
        <div class="band-panel" data-testid="band-panel" data-done={s.job.is_done().to_string()}>
            if s.job.is_running() {
                <div class="run-progress">
                    <div class="run-bar" role="progressbar" aria-label="Band progress" aria-valuemin="0" aria-valuemax="100"
                        aria-valuenow={s.job.percent().to_string()} aria-valuetext={label.clone()} data-testid="band-progress">
                        <div class="run-bar-fill" style={format!("width: {}%", s.job.percent())}></div>
                    </div>
                    <span class="run-progress-text">{ label }</span>
                    <span class="run-eta" data-testid="band-eta">{ format!(" {eta}") }</span>
                    <button class="btn btn-small" type="button" onclick={on_stop} data-testid="band-stop"
                        aria-label="Stop the band">{"Stop"}</button>
                </div>
            }
            if s.job.is_stopped() {
                <p class="run-control" data-testid="band-stopped">{ format!("Stopped after {} of {} samples. ", s.job.done, s.job.total) }
                    <button class="btn btn-small" type="button" onclick={on_again} data-testid="band-restart">{"Run again"}</button></p>
            }
            if let (true, Some(t)) = (s.job.is_done(), s.job.total_ms) {
                <p class="muted" data-testid="band-time">{ format!("{} samples in {t:.0} ms on {} workers", s.job.total, s.job.workers) }</p>
            }
            if let Some(b) = &s.bands {
                <p class="band-label" data-testid="band-label">{ band_label(b) }{ if s.job.is_done() { "" } else { " (so far)" } }</p>
            }
            if !props.at_seed {
                <p class="muted">{"The band is of the seed's parameters (the Reproduce page); this table's settings differ."}</p>
            }
            if let Some(line) = cannot {
                <p class="band-cannot-tell" data-testid="band-cannot-tell">{ line }</p>
            } else if s.job.is_done() && props.at_seed {
                <p class="muted" data-testid="band-narrow">{"The band is narrow: every banded cell within ±25 % of its value and the table's own differences."}</p>
            }
            if let Some(e) = s.job.error() {
                <p class="run-error" role="alert">{ format!("No band: {e}") }</p>
            }
        </div>
    }
}

/// The band of `e`'s reproduction so far, if the learner asked for one.
#[hook]
pub fn use_bands_of(e: &'static dyn Experiment) -> Option<Rc<Bands>> {
    use_band(e).and_then(|s| s.bands.clone())
}
