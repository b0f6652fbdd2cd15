//! The "table" view and the reproduce page's section: the worker's sweep beside seed 000, row by
//! row as points arrive, with error badges, MAPE per column, crossover and plateau.
//!
//! Core's `reproduce()` runs the whole sweep itself; here the sweep comes from the worker, so
//! [`reproduction_of`] pairs its points with core's seed table and uses core's `crossover` and
//! `plateau` — the same comparison, no simulation.

use super::sweep::{use_sweep, SweepProgress};
use super::HoaProps;
use crate::components::reproduce::ReproTable;
use crate::worker::PointMsg;
use skblab_core::experiments::high_order_alloc::{crossover, plateau, seed_table, specs, ID};
use skblab_core::output::{ReproCell, ReproRow};
use skblab_core::{Params, Reproduction, DEFAULT_SEED};
use std::rc::Rc;
use yew::prelude::*;

type Rows = [(u32, f64, f64)];

fn fmt_crossover(rows: &Rows) -> String {
    crossover(rows).map_or("none".to_string(), |n| format!("{n} flows"))
}

fn fmt_plateau(rows: &Rows) -> String {
    plateau(rows).map_or("n/a".to_string(), |(n, v)| format!("{v:.0} Mbit/s at {n} flows"))
}

/// The seed beside the simulated points (flow counts the seed has); crossover and plateau
/// once the sweep is `complete`.
pub fn reproduction_of(points: &[PointMsg], complete: bool) -> Reproduction {
    let seed = seed_table();
    let rows = points
        .iter()
        .filter_map(|p| {
            let s = seed.rows.iter().find(|r| r.threads == p.threads)?;
            let cell = |metric, measured: u32, simulated: f64| ReproCell {
                metric,
                measured: f64::from(measured),
                simulated: simulated.round(),
            };
            Some(ReproRow {
                label: p.threads.to_string(),
                cells: vec![
                    cell("order3_mbps", s.order3_mbps, p.order3_mbps),
                    cell("order0_mbps", s.order0_mbps, p.order0_mbps),
                ],
            })
        })
        .collect();
    let mut notes = Vec::new();
    if complete {
        let seed_rows: Vec<(u32, f64, f64)> =
            seed.rows.iter().map(|r| (r.threads, f64::from(r.order3_mbps), f64::from(r.order0_mbps))).collect();
        let sim_rows: Vec<(u32, f64, f64)> = points.iter().map(|p| (p.threads, p.order3_mbps, p.order0_mbps)).collect();
        notes.push(format!(
            "crossover (order-0 ahead from here on): seed {}, sim {}",
            fmt_crossover(&seed_rows),
            fmt_crossover(&sim_rows)
        ));
        notes.push(format!(
            "order-3 peak over 20..30 flows: seed {}, sim {}",
            fmt_plateau(&seed_rows),
            fmt_plateau(&sim_rows)
        ));
    }
    Reproduction { experiment: ID, citation: seed.citation, key_name: "threads", rows, notes }
}

#[function_component(TableView)]
pub fn table_view(props: &HoaProps) -> Html {
    let state = use_sweep(&props.params, props.seed);
    let repro = use_memo(state.clone(), |s| Rc::new(reproduction_of(&s.points, s.is_done())));
    html! {
        <section class="hoa-view card-flat" aria-label="Simulation beside seed 000">
            <strong>{"Simulation beside seed 000 (Mbit/s)"}</strong>
            if !state.is_done() {
                <p class="muted">{ format!("sweeping: {} of {} flow counts", state.points.len(), state.n_points) }</p>
            }
            <ReproTable repro={(*repro).clone()} partial={!state.is_done()} />
        </section>
    }
}

/// The reproduce page's section: the default parameters and seed, swept in the worker.
#[function_component(ReproduceDefaults)]
pub fn reproduce_defaults() -> Html {
    let params = use_memo((), |_| Params::defaults(&specs()));
    let state = use_sweep(&params, DEFAULT_SEED);
    let repro = use_memo(state.clone(), |s| Rc::new(reproduction_of(&s.points, s.is_done())));
    html! {
        <div class="hoa-view">
            <SweepProgress state={state.clone()} />
            <ReproTable repro={(*repro).clone()} testid={format!("repro-table-{ID}")} partial={!state.is_done()} />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(threads: u32, o3: f64, o0: f64) -> PointMsg {
        PointMsg { threads, order3_mbps: o3, order0_mbps: o0, order3_spin_pct: 0.0, order0_spin_pct: 0.0 }
    }

    #[test]
    fn pairs_points_with_the_seed_and_skips_flow_counts_it_lacks() {
        let points = [point(1, 49_979.0, 37_267.0), point(2, 108_619.5, 76_286.0), point(31, 1.0, 1.0)];
        let r = reproduction_of(&points, false);
        assert_eq!(r.rows.len(), 2);
        assert_eq!(r.rows[1].cells[0].simulated, 108_620.0);
        assert!((r.rows[1].cells[0].error_pct() - 10.0).abs() < 0.01);
        assert!(r.notes.is_empty());
        assert_eq!(r.mape_pct("order0_mbps"), Some(0.0));
    }

    #[test]
    fn complete_sweeps_get_crossover_and_plateau() {
        let points: Vec<PointMsg> =
            seed_table().rows.iter().map(|r| point(r.threads, r.order3_mbps.into(), r.order0_mbps.into())).collect();
        let r = reproduction_of(&points, true);
        assert_eq!(r.max_abs_error_pct(), 0.0);
        assert!(r.notes[0].contains("seed 9 flows, sim 9 flows"), "{:?}", r.notes);
        assert!(r.notes[1].contains("611610 Mbit/s at 29 flows"), "{:?}", r.notes);
    }
}
