//! What the workers answer: each reply goes to the owner of its task (a run's row or output, or
//! the kind of job the task is of: a view's data, a band's sample, a fit's progress and
//! report), then idle workers get the next tasks; a worker that crashes
//! or fails to load fails its task (and, before it was ever ready, the pool: its files are
//! missing, and spawning more would fail alike).

use super::pool::Owner;
use super::{fnv64, keep_idle, now_ms, pump, Changed, Client, CACHE_LEN, CLIENT};
use crate::store::Topic;
use crate::worker::Reply;
use skblab_core::{Row, RunOutput};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Worker `slot` posted `text`.
pub(super) fn on_reply(slot: u64, text: &str) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let reply = match serde_json::from_str::<Reply>(text) {
            Ok(r) => r,
            Err(e) => {
                let (owner, _) = c.pool.failed(slot);
                let mut changed = fail_owner(&mut c, owner, &format!("unreadable reply from the worker: {e}"), false);
                changed |= pump(&mut c);
                return changed;
            }
        };
        let mut changed = match reply {
            Reply::Ready => {
                c.pool.ready(slot);
                Changed::default()
            }
            Reply::Row { task, row, compute_ms } => match c.pool.answered(slot, task) {
                Some(Owner::Run { run, position: Some(p) }) => row_arrived(&mut c, run, p, row, compute_ms),
                _ => Changed::default(),
            },
            Reply::Done { task, output, compute_ms } => match c.pool.answered(slot, task) {
                Some(Owner::Run { run, position: None }) => run_done(&mut c, run, output, compute_ms),
                _ => Changed::default(),
            },
            Reply::Failed { task, message } => {
                let owner = c.pool.answered(slot, task).or_else(|| c.pool.free(slot));
                // The worker read the task and refused it (for a fit: the file is the problem).
                fail_owner(&mut c, owner, &message, true)
            }
            reply => {
                let task = reply.task().unwrap_or_default();
                let owner = if reply.answers() { c.pool.answered(slot, task) } else { c.pool.owner(slot, task) };
                match owner {
                    Some(Owner::Job { kind, id, part }) => {
                        c.kind_of(kind).map_or_else(Changed::default, |k| k.reply(id, part, reply))
                    }
                    _ => Changed::default(),
                }
            }
        };
        changed |= pump(&mut c);
        changed
    });
    changed.notify();
}

/// Worker `slot` crashed or failed to load.
pub(super) fn on_worker_error(slot: u64) {
    let changed = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let (owner, was_ready) = c.pool.failed(slot);
        let message = format!("the sweep worker ({}) failed to load or crashed", crate::worker::WORKER_URL);
        if !was_ready {
            c.pool.broken = Some(message.clone());
        }
        let mut changed = fail_owner(&mut c, owner, &message, false);
        changed |= pump(&mut c);
        changed
    });
    changed.notify();
}

/// The task of `owner` failed with `message`: `refused` by the worker that read it, or its
/// worker crashed or sent what cannot be read.
fn fail_owner(c: &mut Client, owner: Option<Owner>, message: &str, refused: bool) -> Changed {
    match owner {
        Some(Owner::Run { run, .. }) => {
            let Some(i) = c.runs.iter().position(|a| a.state.job.id == run) else { return Changed::default() };
            let a = c.runs.remove(i);
            let mut s = (*a.state).clone();
            s.job.fail(message);
            keep_idle(c, Rc::new(s));
            Changed::of(Topic::Runs)
        }
        Some(Owner::Job { kind, id, part }) => {
            c.kind_of(kind).map_or_else(Changed::default, |k| k.failed(id, part, message, refused))
        }
        None => Changed::default(),
    }
}

fn row_arrived(c: &mut Client, run: u64, position: u32, row: Row, compute_ms: f64) -> Changed {
    let Some(a) = c.runs.iter_mut().find(|a| a.state.job.id == run) else { return Changed::default() };
    if !a.sweep.arrived(position, row.clone()) {
        return Changed::default();
    }
    a.compute_ms += compute_ms;
    let mut s = (*a.state).clone();
    let index = s.key.experiment.points(&s.key.params).get(position as usize).map_or(position, |p| p.index);
    s.first_row_ms.get_or_insert(now_ms() - s.job.started_ms);
    s.rows.retain(|(i, _)| *i != index);
    s.rows.push((index, row));
    s.rows.sort_by_key(|(i, _)| *i);
    s.job.progress(s.rows.len() as u32, s.job.total);
    a.state = Rc::new(s);
    Changed::of(Topic::Runs).streamed()
}

fn run_done(c: &mut Client, run: u64, output: RunOutput, compute_ms: f64) -> Changed {
    let Some(i) = c.runs.iter().position(|a| a.state.job.id == run) else { return Changed::default() };
    let a = c.runs.remove(i);
    let mut s = (*a.state).clone();
    if s.rows.is_empty() {
        s.rows = output.rows.iter().cloned().enumerate().map(|(i, r)| (i as u32, r)).collect();
    }
    s.job.finish(now_ms());
    s.job.compute_ms = Some(a.compute_ms + compute_ms);
    let elapsed = s.job.total_ms.unwrap_or(0.0);
    let fnv = fnv64(&serde_json::to_string(&output).unwrap_or_default());
    s.output = Some(Rc::new(output));
    let msg = format!(
        "skblab: ran {} points of {} in {elapsed:.0} ms on {} workers (first point {:.0} ms, worker compute {:.0} ms{}); output fnv {fnv:016x}",
        s.rows.len(),
        s.key.experiment.id(),
        s.job.workers,
        s.first_row_ms.unwrap_or(0.0),
        s.job.compute_ms.unwrap_or(0.0),
        if s.cold_start { ", including worker start" } else { "" }
    );
    web_sys::console::info_1(&JsValue::from_str(&msg));
    let s = Rc::new(s);
    c.cache.retain(|x| x.key != s.key);
    c.cache.push(s);
    if c.cache.len() > CACHE_LEN {
        c.cache.remove(0);
    }
    Changed::of(Topic::Runs)
}
