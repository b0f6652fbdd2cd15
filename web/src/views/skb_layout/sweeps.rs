//! Chart data for the `skb-layout` lesson, read off core's layout arithmetic.
//!
//! Each function sweeps one knob of a resolved [`LayoutInput`] and asks core for the layout at
//! every point; nothing here computes a size itself (architecture invariant 4).

use crate::charts::sweep::{Series, Sweep};
use skblab_core::experiments::skb_layout::{Layout, LayoutInput};

/// The MTU range of the MTU chart: the minimum IPv4 MTU to jumbo frames (and further when the
/// learner's MTU is larger).
pub const MTU_SWEEP_MIN_BYTES: u64 = 68;
pub const MTU_SWEEP_MAX_BYTES: u64 = 9000;
/// Bytes between two points of the MTU sweep: fine enough to show every size-class step.
pub const MTU_SWEEP_STEP_BYTES: u64 = 8;
/// MAX_SKB_FRAGS range of the frags chart (the spec's range).
pub const FRAGS_SWEEP_MAX: u64 = 64;

fn sweep(input: &LayoutInput, xs: &[u64], set: impl Fn(&mut LayoutInput, u64)) -> Vec<Layout> {
    xs.iter()
        .map(|&x| {
            let mut point = input.clone();
            set(&mut point, x);
            point.layout()
        })
        .collect()
}

fn size_series(layouts: &[Layout]) -> Vec<Series> {
    vec![
        Series {
            name: "kmalloc object (bytes)".into(),
            ys: layouts.iter().map(|l| l.kmalloc_bucket_bytes as f64).collect(),
        },
        Series { name: "head requested (bytes)".into(), ys: layouts.iter().map(|l| l.head_bytes as f64).collect() },
    ]
}

fn half_page(input: &LayoutInput) -> Option<(String, f64)> {
    let half = input.page_size_bytes / 2;
    Some((format!("half page ({half} B)"), half as f64))
}

/// Head size and kmalloc object size against the MTU, the other settings as given.
pub fn mtu_sweep(input: &LayoutInput) -> Sweep {
    let top = MTU_SWEEP_MAX_BYTES.max(input.mtu_bytes);
    let step = MTU_SWEEP_STEP_BYTES.max(top / 2000);
    let mut xs: Vec<u64> = (MTU_SWEEP_MIN_BYTES..=top).step_by(step as usize).collect();
    if xs.last() != Some(&top) {
        xs.push(top);
    }
    let layouts = sweep(input, &xs, |p, mtu| p.mtu_bytes = mtu);
    Sweep {
        caption: "Head buffer vs MTU".into(),
        x_label: "MTU (bytes)".into(),
        y_label: "bytes".into(),
        xs: xs.iter().map(|&x| x as f64).collect(),
        series: size_series(&layouts),
        hline: half_page(input),
        marker_x: Some(input.mtu_bytes as f64),
        overlays: Vec::new(),
        x_range: None,
        dots: false,
        bands: Vec::new(),
        pinned: None,
    }
}

/// Head size and kmalloc object size against MAX_SKB_FRAGS (set explicitly at each point).
pub fn frags_sweep(input: &LayoutInput) -> Sweep {
    let xs: Vec<u64> = (1..=FRAGS_SWEEP_MAX).collect();
    let layouts = sweep(input, &xs, |p, frags| p.max_skb_frags = frags);
    Sweep {
        caption: "Head buffer vs MAX_SKB_FRAGS".into(),
        x_label: "MAX_SKB_FRAGS".into(),
        y_label: "bytes".into(),
        xs: xs.iter().map(|&x| x as f64).collect(),
        series: size_series(&layouts),
        hline: half_page(input),
        marker_x: Some(input.effective_max_skb_frags() as f64),
        overlays: Vec::new(),
        x_range: None,
        dots: false,
        bands: Vec::new(),
        pinned: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::{sweep::draw_sweep, Theme};
    use plotters::prelude::*;
    use skblab_core::experiments::skb_layout::{preset, LayoutInput};

    fn ian_18() -> LayoutInput {
        preset("frag-destructor-2011").input.clone()
    }

    #[test]
    fn mtu_sweep_reads_core_and_marks_the_current_mtu() {
        let s = mtu_sweep(&ian_18());
        assert_eq!(s.xs.first(), Some(&68.0));
        assert_eq!(s.xs.last(), Some(&9000.0));
        assert_eq!(s.marker_x, Some(1500.0));
        assert_eq!(s.hline.as_ref().map(|h| h.1), Some(2048.0));
        let at_1500 = s.xs.iter().position(|x| *x == 1500.0).expect("1500 is a sweep point");
        assert_eq!(s.series[0].ys[at_1500], 4096.0, "Ian: 18 frags of 24 B spill into kmalloc-4k");
        assert_eq!(s.series[1].ys[at_1500], 2112.0);
    }

    #[test]
    fn frags_sweep_crosses_half_a_page_between_16_and_18() {
        let s = frags_sweep(&ian_18());
        assert_eq!(s.marker_x, Some(18.0));
        assert_eq!(s.series[0].ys[15], 2048.0, "16 frags: kmalloc-2k");
        assert_eq!(s.series[0].ys[17], 4096.0, "18 frags: kmalloc-4k");
    }

    #[test]
    fn charts_render_to_svg() {
        for data in [mtu_sweep(&ian_18()), frags_sweep(&ian_18())] {
            let mut svg = String::new();
            {
                let area = SVGBackend::with_string(&mut svg, (720, 400)).into_drawing_area();
                draw_sweep(&area, &data, &Theme::DARK).expect("chart draws");
            }
            assert!(svg.contains(&data.caption) && svg.contains("half page (2048 B)"), "{svg}");
            assert!(svg.matches("<polyline").count() >= 2);
        }
    }
}
