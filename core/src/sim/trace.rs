//! The generic part of the step-through player's frames: what every world shows.
//!
//! A world records one frame per event: the simulated time, what happened in words, one
//! [`Lane`] per simulated thread (its CPU, whether it runs, spins on a lock, holds it or
//! sleeps, and the kernel function it is in), every zone's lock holder and wait queue
//! ([`LockView`]) and the /proc/buddyinfo line of every node. The frame type itself belongs to
//! the world (it adds world-specific markers, e.g. the TCP_STREAM world's page-frag refills);
//! [`TraceRecorder`] collects frames of any type and the notes handlers leave during a step.

use super::machine::CpuId;
use super::zone::Zone;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lane {
    pub cpu: CpuId,
    /// The thread's name, e.g. "netperf 3".
    pub thread: String,
    pub state: LaneState,
    /// Innermost kernel function of what it does now.
    pub function: String,
    /// Pages on this CPU's per-CPU lists (all zones).
    pub pcp_count: u32,
}

/// A zone lock at the end of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockView {
    pub node: u32,
    pub holder_cpu: Option<CpuId>,
    /// Waiting CPUs, head of the queue first.
    pub waiting_cpus: Vec<CpuId>,
}

/// Every zone's lock, node order.
pub fn lock_views(zones: &[Zone]) -> Vec<LockView> {
    zones
        .iter()
        .map(|z| LockView {
            node: z.node,
            holder_cpu: z.lock.holder().map(|h| h.cpu),
            waiting_cpus: z.lock.waiting_cpus(),
        })
        .collect()
}

/// One /proc/buddyinfo line per node.
pub fn buddyinfo_lines(zones: &[Zone]) -> Vec<String> {
    zones.iter().map(|z| z.free_area.buddyinfo_line(z.node, "Normal")).collect()
}

/// Collects a world's frames `F`; handlers push notes during a step.
#[derive(Debug, Clone)]
pub struct TraceRecorder<F> {
    pub frames: Vec<F>,
    pub notes: Vec<String>,
}

impl<F> Default for TraceRecorder<F> {
    fn default() -> Self {
        TraceRecorder { frames: Vec::new(), notes: Vec::new() }
    }
}

impl<F> TraceRecorder<F> {
    /// The step's notes joined by "; ", or `default` if there were none; clears the notes.
    pub fn take_text(&mut self, default: impl FnOnce() -> String) -> String {
        let text = if self.notes.is_empty() { default() } else { self.notes.join("; ") };
        self.notes.clear();
        text
    }

    /// Index the next frame gets.
    pub fn next_index(&self) -> u64 {
        self.frames.len() as u64
    }
}
