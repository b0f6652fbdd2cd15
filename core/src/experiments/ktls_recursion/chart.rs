//! The stack-vs-depth chart's data: peak stack and overflow per number of TCP skbs received,
//! for every fix (the page's "chart" view data, computed in the worker).

use super::{walk, Fix, KtlsInput, CHART_POINTS_MAX, FIXES};
use crate::params::Params;
use serde::{Deserialize, Serialize};

/// One point of the stack-vs-depth chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthPoint {
    /// TCP skbs received before close (the data received, in skbs).
    pub tcp_skbs: u32,
    /// Levels of frag_list nesting at close.
    pub levels: u32,
    pub stack_used_bytes_max: u64,
    pub overflow: bool,
    pub depth_reached: u32,
}

/// TCP skbs received, for the chart: 1, then every 16 up to 1024 (65 points).
pub fn chart_depths() -> Vec<u32> {
    std::iter::once(1).chain((16..=1024).step_by(16)).collect()
}

/// Peak stack per number of TCP skbs received under `fix` (other knobs from `input`). At
/// most [`CHART_POINTS_MAX`] points are computed, each receive at most [`TCP_SKBS_MAX`](super::TCP_SKBS_MAX) skbs.
pub fn stack_vs_depth(input: &KtlsInput, fix: Fix, depths: &[u32]) -> Vec<DepthPoint> {
    let input = input.with_fix(fix);
    depths
        .iter()
        .take(CHART_POINTS_MAX)
        .map(|&d| {
            let at = input.with_tcp_skbs(d);
            let g = at.graph();
            let levels = g.nesting_levels();
            let (r, _) = walk::walk(g, at.walk);
            DepthPoint {
                tcp_skbs: at.scenario.tcp_skbs(),
                levels,
                stack_used_bytes_max: r.stack_used_bytes_max,
                overflow: r.overflow.is_some(),
                depth_reached: r.depth_reached,
            }
        })
        .collect()
}

/// One line of the stack-vs-depth chart: a fix (by name) and its points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixSeries {
    pub fix: String,
    pub points: Vec<DepthPoint>,
}

/// The stack-vs-depth chart's data: every fix over [`chart_depths`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackVsDepth {
    /// The THREAD_SIZE the learner set (the `bigger-stack` fix doubles it for its own walk).
    pub thread_size_bytes: u64,
    /// Whether the rx skb cache was on for every line.
    pub tcp_rx_skb_cache: bool,
    pub series: Vec<FixSeries>,
}

impl StackVsDepth {
    /// Every fix in [`FIXES`] over [`chart_depths`], other knobs from `input`.
    pub fn of_input(input: &KtlsInput) -> StackVsDepth {
        let depths = chart_depths();
        let series =
            FIXES.iter().map(|&f| FixSeries { fix: f.name().to_string(), points: stack_vs_depth(input, f, &depths) });
        StackVsDepth {
            thread_size_bytes: input.thread_size_bytes,
            tcp_rx_skb_cache: input.scenario.rx_cache,
            series: series.collect(),
        }
    }

    /// [`StackVsDepth::of_input`] of validated `params` (the web's chart tests).
    pub fn of(params: &Params) -> StackVsDepth {
        StackVsDepth::of_input(&KtlsInput::from(params))
    }
}
