//! The TCP_STREAM world's frame for the step-through player.
//!
//! The generic parts (lanes, lock views, buddyinfo, the recorder) come from
//! `crate::sim::trace`; this world adds the page-frag refills of the step and names its
//! events and threads (netperf k / netserver k).

use super::{Event, Role, StreamSim, ThreadState};
use crate::sim::engine::ThreadId;
use crate::sim::machine::CpuId;
use crate::sim::profile::CallChains;
use crate::sim::trace::{buddyinfo_lines, lock_views, Lane, LaneState, LockView, TraceRecorder};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// `skb_page_frag_refill()` installed a new page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefillMarker {
    pub cpu: CpuId,
    pub flow: u32,
    pub order: u32,
    pub pfn: u32,
    /// "per-cpu list" or "buddy (zone->lock)".
    pub source: Cow<'static, str>,
}

/// The machine after one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceFrame {
    pub index: u64,
    pub time_ns: u64,
    /// The event in words.
    pub event: String,
    pub lanes: Vec<Lane>,
    pub refills: Vec<RefillMarker>,
    pub locks: Vec<LockView>,
    /// One /proc/buddyinfo line per node.
    pub buddyinfo: Vec<String>,
}

/// The recorder and the refills of the current step.
#[derive(Debug, Clone, Default)]
pub(super) struct StreamTrace {
    pub recorder: TraceRecorder<TraceFrame>,
    pub refills: Vec<RefillMarker>,
}

fn default_text(event: Event) -> String {
    match event {
        Event::Resume { thread } => format!("thread {thread} continues"),
        Event::LockGranted { node, thread } => format!("thread {thread} gets node {node} zone->lock"),
        Event::LockRelease { node, thread } => format!("thread {thread} releases node {node} zone->lock"),
        Event::DelAck { flow } => format!("netserver {flow}: delayed-ACK timer"),
    }
}

impl StreamSim {
    pub(super) fn record_frame(&mut self, event: Event) {
        // A thread granted an uncontended lock owns it while the lock's line is still on its
        // way (until its LockGranted event): show it as the holder, as the lock view does.
        let holders: Vec<ThreadId> = self.zones.iter().filter_map(|z| z.lock.holder().map(|w| w.thread)).collect();
        let lanes = self
            .threads
            .iter()
            .enumerate()
            .map(|(i, th)| Lane {
                cpu: th.cpu,
                thread: format!("{} {}", if th.role == Role::Netperf { "netperf" } else { "netserver" }, th.flow),
                state: match th.state {
                    ThreadState::Running if th.locked_op.is_some() => LaneState::HoldingLock,
                    ThreadState::Running => LaneState::Running,
                    ThreadState::Spinning if holders.contains(&(i as ThreadId)) => LaneState::HoldingLock,
                    ThreadState::Spinning => LaneState::Spinning,
                    ThreadState::Blocked => LaneState::Sleeping,
                    ThreadState::Runnable => LaneState::Runnable,
                },
                function: th.doing.symbol().to_string(),
                pcp_count: self.zones.iter().map(|z| z.pcp[th.cpu as usize].count).sum(),
            })
            .collect();
        let (locks, buddyinfo) = (lock_views(&self.zones), buddyinfo_lines(&self.zones));
        let time_ns = self.now_ns;
        if let Some(tr) = &mut self.trace {
            let event = tr.recorder.take_text(|| default_text(event));
            let frame = TraceFrame {
                index: tr.recorder.next_index(),
                time_ns,
                event,
                lanes,
                refills: std::mem::take(&mut tr.refills),
                locks,
                buddyinfo,
            };
            tr.recorder.frames.push(frame);
        }
    }
}
