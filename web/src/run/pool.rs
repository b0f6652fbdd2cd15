//! The worker pool: up to `min(navigator.hardwareConcurrency, 8)` identical sweep workers
//! ([`crate::worker`]), spawned when there is work for them (one first, the rest once it is
//! ready), each given one task at a time.
//! The run store ([`super`]) says which task comes next; the pool only posts it, remembers
//! who it is for, and terminates workers when a run is stopped (a task cannot be interrupted
//! otherwise: a worker computes it inside one message handler).
//!
//! `localStorage["skblab-workers"]` (1 to 8) overrides the size: the e2e tests and the
//! benchmark compare one worker with the pool.

use crate::worker::{Request, WORKER_URL};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker};

/// The most workers the page starts.
pub const MAX_WORKERS: u32 = 8;
/// The localStorage key that overrides the pool's size.
pub const SIZE_KEY: &str = "skblab-workers";

/// Who a task is for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Owner {
    /// A run's point at `position`, or its `finish()`/whole run (`None`).
    Run { run: u64, position: Option<u32> },
    /// Part `part` of job `id` of a kind of job ([`super::kind::JobKind`]): a view's data, a
    /// band's sample, a machine fit.
    Job { kind: std::any::TypeId, id: u64, part: u32 },
}

struct Busy {
    task: u64,
    owner: Owner,
}

struct Slot {
    id: u64,
    worker: Worker,
    /// The worker said `Ready`: messages posted before are lost.
    ready: bool,
    busy: Option<Busy>,
}

/// The workers.
#[derive(Default)]
pub(super) struct Pool {
    slots: Vec<Slot>,
    next_slot: u64,
    next_task: u64,
    size: Option<u32>,
    /// A worker failed before it was ready (its script or wasm did not load): no more spawns.
    pub broken: Option<String>,
}

/// The pool's size: the override, else `min(hardwareConcurrency, 8)`.
fn size_now() -> u32 {
    if let Some(n) = crate::browser::storage_get(SIZE_KEY).and_then(|s| s.trim().parse::<u32>().ok()) {
        return n.clamp(1, MAX_WORKERS);
    }
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    (cores as u32).clamp(1, MAX_WORKERS)
}

impl Pool {
    pub fn size(&mut self) -> u32 {
        *self.size.get_or_insert_with(size_now)
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Workers spawned and not ready yet.
    pub fn starting(&self) -> usize {
        self.slots.iter().filter(|s| !s.ready).count()
    }

    /// Some worker is ready (its files loaded).
    pub fn any_ready(&self) -> bool {
        self.slots.iter().any(|s| s.ready)
    }

    /// A ready worker with no task.
    pub fn has_idle(&self) -> bool {
        self.slots.iter().any(|s| s.ready && s.busy.is_none())
    }

    /// Posts `request` to an idle worker (there must be one: [`Pool::has_idle`]).
    pub fn dispatch(&mut self, request: Request, owner: Owner) -> Result<(), String> {
        let slot = self.slots.iter_mut().find(|s| s.ready && s.busy.is_none()).ok_or("bug: no idle worker")?;
        let task = request.task();
        let text = serde_json::to_string(&request).expect("requests serialize");
        slot.worker.post_message(&JsValue::from_str(&text)).map_err(|e| format!("cannot post to the worker: {e:?}"))?;
        slot.busy = Some(Busy { task, owner });
        Ok(())
    }

    /// A fresh task number.
    pub fn task_id(&mut self) -> u64 {
        self.next_task += 1;
        self.next_task
    }

    /// Starts one more worker (classic script: see TOOLCHAIN.md, the worker trap); its replies
    /// go to `on_reply` and a crash or a failed load to `on_error`, with the worker's slot.
    pub fn spawn(&mut self, on_reply: fn(u64, &str), on_error: fn(u64)) -> Result<(), String> {
        let worker = Worker::new(WORKER_URL).map_err(|e| format!("cannot start the sweep worker: {e:?}"))?;
        self.next_slot += 1;
        let id = self.next_slot;
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            if let Some(text) = e.data().as_string() {
                on_reply(id, &text);
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        on_message.forget();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_: web_sys::Event| on_error(id));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
        self.slots.push(Slot { id, worker, ready: false, busy: None });
        Ok(())
    }

    /// Worker `id` is ready.
    pub fn ready(&mut self, id: u64) {
        if let Some(s) = self.slots.iter_mut().find(|s| s.id == id) {
            s.ready = true;
        }
    }

    /// The task worker `id` answered, if `task` is the one it was given (it is free again).
    pub fn answered(&mut self, id: u64, task: u64) -> Option<Owner> {
        let slot = self.slots.iter_mut().find(|s| s.id == id)?;
        match &slot.busy {
            Some(b) if b.task == task => slot.busy.take().map(|b| b.owner),
            _ => None,
        }
    }

    /// Who task `task` of worker `id` is for, if it is that worker's task (it stays busy: a
    /// progress reply, more follow).
    pub fn owner(&self, id: u64, task: u64) -> Option<Owner> {
        let busy = self.slots.iter().find(|s| s.id == id)?.busy.as_ref()?;
        (busy.task == task).then_some(busy.owner)
    }

    /// Frees worker `id` whatever its task (it answered one it could not read).
    pub fn free(&mut self, id: u64) -> Option<Owner> {
        self.slots.iter_mut().find(|s| s.id == id)?.busy.take().map(|b| b.owner)
    }

    /// Worker `id` failed: it is gone; its task's owner, and whether it had ever been ready.
    pub fn failed(&mut self, id: u64) -> (Option<Owner>, bool) {
        let Some(i) = self.slots.iter().position(|s| s.id == id) else { return (None, true) };
        let slot = self.slots.remove(i);
        slot.worker.terminate();
        (slot.busy.map(|b| b.owner), slot.ready)
    }

    /// Terminates every worker whose task `stop` selects; how many.
    pub fn terminate(&mut self, stop: impl Fn(&Owner) -> bool) -> usize {
        let before = self.slots.len();
        self.slots.retain(|s| {
            let hit = s.busy.as_ref().is_some_and(|b| stop(&b.owner));
            if hit {
                s.worker.terminate();
            }
            !hit
        });
        before - self.slots.len()
    }
}
