//! The worker's side of the "Your machine" page: a measurement file parsed by core's
//! `measure::parse` and fitted by core's `MachineFit`, one simulator run per step, with a
//! progress reply after each (the page draws the bar and the ETA from them). No parsing or
//! fitting of its own: the report is core's, so the page shows the CLI's numbers
//! (`skblab calibrate high-order-alloc --machine FILE --format json`) bit for bit.

use super::Reply;
use serde::{Deserialize, Serialize};
use skblab_core::machine::file::{self as measure, Machine, Measurement};
use skblab_core::machine::fit::MachineFit;

/// What the page shows of a measurement file before and beside its fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineFacts {
    pub machine: Machine,
    /// `uname -r` and `uname -v`.
    pub kernel: String,
    pub kernel_version: String,
    pub taken: String,
    pub tool: String,
    pub note: String,
    /// Each suite and its number of cells.
    pub suites: Vec<(String, usize)>,
}

impl MachineFacts {
    pub fn of(m: &Measurement) -> MachineFacts {
        MachineFacts {
            machine: m.machine.clone(),
            kernel: m.kernel.release.clone(),
            kernel_version: m.kernel.version.clone(),
            taken: m.taken.clone(),
            tool: m.tool.clone(),
            note: m.note.clone(),
            suites: m.suites.iter().map(|(name, s)| (name.clone(), s.cells.len())).collect(),
        }
    }
}

/// Parses `text` and fits it: [`Reply::MachineStart`] and one [`Reply::MachineProgress`] per
/// run go to `post`; the answer is [`Reply::Machine`], or [`Reply::Failed`] with the file's
/// problem in one line (core's message).
pub fn fit(task: u64, text: &str, post: &mut dyn FnMut(Reply)) -> Reply {
    let failed = |message: String| Reply::Failed { task, message };
    let m = match measure::parse(text) {
        Ok(m) => m,
        Err(e) => return failed(e),
    };
    let mut f = match MachineFit::new(&m) {
        Ok(f) => f,
        Err(e) => return failed(e),
    };
    let total = f.total() as u32;
    post(Reply::MachineStart { task, facts: MachineFacts::of(&m), total, events: f.estimate().events });
    // Every step runs at least one simulation: `total` steps finish it (bounded, whatever happens).
    for _ in 0..=f.total() {
        if f.finished() {
            break;
        }
        f.step();
        post(Reply::MachineProgress { task, done: f.done() as u32, total });
    }
    if !f.finished() {
        return failed(format!("the fit did not finish in {total} runs"));
    }
    Reply::Machine { task, report: Box::new(f.report()), compute_ms: 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skblab_core::machine::fit as machine;

    fn reference() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/measurements/2026-12-02-amd-epyc-f25m1.json"
        ))
        .unwrap()
    }

    fn round_trip(reply: &Reply) -> Reply {
        serde_json::from_str::<Reply>(&serde_json::to_string(reply).unwrap()).unwrap()
    }

    /// The worker's report, after crossing the boundary as JSON, is core's `fit` (the CLI's)
    /// bit for bit, and the progress replies count every run up to the total.
    #[test]
    fn the_reference_fit_is_cores_after_the_json_boundary() {
        let text = reference();
        let mut posted = Vec::new();
        let reply = round_trip(&fit(4, &text, &mut |r| posted.push(round_trip(&r))));
        let Reply::Machine { task: 4, report, .. } = reply else { panic!("not a report: {reply:?}") };
        let m = measure::parse(&text).unwrap();
        assert_eq!(*report, machine::fit(&m, &mut |_, _| {}).unwrap());
        let Some(Reply::MachineStart { facts, total, events, .. }) = posted.first() else { panic!("{posted:?}") };
        assert_eq!((facts.machine.cpus, facts.kernel.as_str()), (2, "6.18.44-fc-v1045"));
        assert!(*events > 0);
        let last = posted.last().unwrap();
        assert_eq!(*last, Reply::MachineProgress { task: 4, done: *total, total: *total });
        let dones: Vec<u32> = posted
            .iter()
            .filter_map(|r| match r {
                Reply::MachineProgress { done, .. } => Some(*done),
                _ => None,
            })
            .collect();
        assert!(dones.len() > 10 && dones.windows(2).all(|w| w[0] < w[1]), "{dones:?}");
    }

    #[test]
    fn a_broken_file_is_one_line_and_posts_nothing() {
        let text = reference();
        let wrong_version = text.replacen("\"schema_version\": 1", "\"schema_version\": 2", 1);
        let hostile = format!("{{\"schema_version\": 1, \"tool\": \"{}\"}}", "x".repeat(5 << 20));
        for bad in [&text[..text.len() / 2], wrong_version.as_str(), hostile.as_str(), "", "[1,2]"] {
            let mut posted = 0;
            let reply = fit(1, bad, &mut |_| posted += 1);
            let Reply::Failed { task: 1, message } = reply else { panic!("accepted: {reply:?}") };
            assert!(!message.contains('\n') && message.len() < 400, "{message}");
            assert_eq!(posted, 0);
        }
    }
}
