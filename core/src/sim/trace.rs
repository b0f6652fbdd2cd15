//! Frames for the step-through player: the state of the machine after each event, as plain
//! data the web draws without recomputing anything.
//!
//! Each frame holds the simulated time, what happened in words, one lane per thread (its
//! CPU, whether it runs, spins on zone->lock, holds it or sleeps, and the kernel function it
//! is in), page-frag refills that happened in this step, every zone's lock holder and wait
//! queue (CPU ids, head first), and the /proc/buddyinfo line of every node.

use super::machine::CpuId;
use super::stream::Event;
use super::zone::Zone;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum LaneState {
    Running,
    Spinning,
    HoldingLock,
    Runnable,
    Sleeping,
}

impl LaneState {
    pub fn word(self) -> &'static str {
        match self {
            LaneState::Running => "runs",
            LaneState::Spinning => "spins",
            LaneState::HoldingLock => "holds zone->lock",
            LaneState::Runnable => "waits for its CPU",
            LaneState::Sleeping => "sleeps",
        }
    }
}

/// One thread in a frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lane {
    pub cpu: CpuId,
    /// "netperf 3", "netserver 3".
    pub thread: String,
    pub state: LaneState,
    /// Innermost kernel function of what it does now.
    pub function: String,
    /// Pages on this CPU's per-CPU lists (all zones).
    pub pcp_count: u32,
}

/// `skb_page_frag_refill()` installed a new page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefillMarker {
    pub cpu: CpuId,
    pub flow: u32,
    pub order: u32,
    pub pfn: u32,
    /// "per-cpu list" or "buddy (zone->lock)".
    pub source: &'static str,
}

/// A zone lock at the end of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LockView {
    pub node: u32,
    pub holder_cpu: Option<CpuId>,
    /// Waiting CPUs, head of the queue first.
    pub waiting_cpus: Vec<CpuId>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

/// Collects frames; handlers push notes and refills during a step.
#[derive(Debug, Clone, Default)]
pub struct TraceRecorder {
    pub frames: Vec<TraceFrame>,
    pub notes: Vec<String>,
    pub refills: Vec<RefillMarker>,
}

impl TraceRecorder {
    pub fn record(&mut self, time_ns: u64, event: Event, lanes: Vec<Lane>, zones: &[Zone]) {
        let event = if self.notes.is_empty() { default_text(event) } else { self.notes.join("; ") };
        self.notes.clear();
        let locks = zones
            .iter()
            .map(|z| LockView {
                node: z.node,
                holder_cpu: z.lock.holder().map(|h| h.cpu),
                waiting_cpus: z.lock.waiting_cpus(),
            })
            .collect();
        let buddyinfo = zones.iter().map(|z| z.free_area.buddyinfo_line(z.node, "Normal")).collect();
        self.frames.push(TraceFrame {
            index: self.frames.len() as u64,
            time_ns,
            event,
            lanes,
            refills: std::mem::take(&mut self.refills),
            locks,
            buddyinfo,
        });
    }
}

fn default_text(event: Event) -> String {
    match event {
        Event::Resume { thread } => format!("thread {thread} continues"),
        Event::LockGranted { node, thread } => format!("thread {thread} gets node {node} zone->lock"),
        Event::LockRelease { node, thread } => format!("thread {thread} releases node {node} zone->lock"),
    }
}
