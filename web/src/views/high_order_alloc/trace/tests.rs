//! The trace view of core's trace data: the buddyinfo diff, the lanes and the transport's frames.

use super::lanes::{lane_label, LaneGeom, NARROW_CELL_MIN_W, NARROW_WINDOW_MIN};
use super::*;
use crate::views::fit;
use skblab_core::experiments::high_order_alloc::{HighOrderAlloc, TRACE_EVENTS};
use skblab_core::Experiment;

/// Core's trace data of a small run, read as this view reads it (from its JSON).
fn traced(flows: u32) -> Trace {
    let query = ViewQuery::new("trace").with("flows", flows.into()).with("order", 3);
    let data = HighOrderAlloc.view_data(&HighOrderAlloc.defaults(), 1, &query).expect("trace data");
    let trace = skblab_core::ViewData::from_json(data.to_json()).decode::<Trace>().expect("the view reads it");
    (*trace).clone()
}

#[test]
fn diff_marks_changed_counts_and_keeps_spacing() {
    let got = diff_tokens("Node 0, zone Normal  1  2  3", "Node 0, zone Normal  1  4  3");
    let text: String = got.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(text, "Node 0, zone Normal  1  4  3");
    let changed: Vec<&str> = got.iter().filter(|t| t.1).map(|t| t.0.as_str()).collect();
    assert_eq!(changed, ["4"]);
}

#[test]
fn a_small_trace_is_bounded_and_has_lanes_locks_and_buddyinfo() {
    let trace = traced(DEFAULT_FLOWS);
    assert!(trace.frames.len() as u64 <= TRACE_EVENTS && !trace.frames.is_empty());
    let last = trace.frames.last().unwrap();
    assert_eq!(last.lanes.len(), 2 * DEFAULT_FLOWS as usize);
    assert!(!last.locks.is_empty() && !last.buddyinfo.is_empty());
    assert!(trace.frames.iter().any(|f| !f.refills.is_empty()), "some refill in the first events");
}

#[test]
fn the_lanes_locks_refills_and_buddyinfo_as_markup() {
    let trace = traced(DEFAULT_FLOWS);
    let pos = trace.frames.len() - 1;
    let frame = &trace.frames[pos];
    let lanes = lanes_svg(&trace, pos, Fit::Wide);
    assert!(lanes.starts_with("<svg class=\"hoa-lanes\" viewBox=\"0 0 650 "), "{lanes}");
    assert!(lanes.contains("data-testid=\"trace-lanes\"") && lanes.ends_with("</svg>"));
    let cells = lanes.matches("<rect class=\"st-").count();
    assert_eq!(cells, WINDOW.min(pos + 1) * frame.lanes.len(), "a cell per lane and frame of the window");
    assert_eq!(lanes.matches("<text ").count(), frame.lanes.len());
    let s = &mut String::new();
    lock_queues(s, &frame.locks);
    assert!(s.starts_with("<div data-testid=\"zone-lock-queue\">") && s.contains("zone-&gt;lock:"));
    s.clear();
    refills(s, &trace, pos, frame);
    assert!(s.contains("data-testid=\"trace-refills\"") && s.contains("page-frag refills so far: "));
    s.clear();
    buddyinfo(s, frame, None);
    assert!(s.contains("data-testid=\"buddyinfo\" tabindex=\"0\">Node 0, zone") && !s.contains("<mark"), "{s}");
    assert!(lane_table(frame).matches("<tr>").count() == frame.lanes.len() + 1);
}

#[test]
fn a_narrow_box_gets_lanes_of_its_width_with_every_label_beside_its_row() {
    let trace = traced(8);
    let pos = trace.frames.len() - 1;
    let lanes = lanes_svg(&trace, pos, Fit::Narrow(300.0));
    let labels: Vec<String> = trace.frames[pos].lanes.iter().map(lane_label).collect();
    let g = LaneGeom::new(Fit::Narrow(300.0), &labels);
    assert!((g.label_w + g.cells_w - 300.0).abs() < 1e-9, "as wide as the box");
    assert!(lanes.contains(&format!("viewBox=\"0 0 {} ", g.label_w + g.cells_w)) && lanes.contains("data-fit=\"narrow\""));
    assert!(g.window >= NARROW_WINDOW_MIN && g.cells_w / g.window as f64 >= NARROW_CELL_MIN_W);
    assert!(labels.iter().all(|l| fit::mono_w(l, fit::SMALL_FONT) + 4.0 <= g.label_w), "labels fit their column");
    assert_eq!(lanes.matches("font-size: 11.5px").count(), labels.len());
    assert_eq!(lanes.matches("<rect class=\"st-").count(), g.window.min(pos + 1) * labels.len());
}
