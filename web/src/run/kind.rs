//! Kinds of jobs besides the runs of experiments — a custom view's heavy data, an uncertainty
//! band, a machine fit, and whatever comes next — plug into the pool through one interface,
//! [`JobKind`]: the pool asks each kind for its next task in the order of
//! [`JobKind::priority`] and hands every reply and failure to the kind its task came from.
//! A kind keeps its own store (its [`Job`](super::Job)s and what they computed); the run store
//! holds one of each, made on first use ([`change`], [`read`]), so the pool knows no kind by
//! name and a feature folder (`crate::machine`) adds its own.

use super::pool::{Owner, Pool};
use super::{pump, Changed, Client, CLIENT};
use crate::worker::{Reply, Request};
use std::any::{Any, TypeId};

/// Where the visible run's tasks go in the pool's order: kinds of a lower
/// [`JobKind::priority`] go before it, the others after it and before background runs.
pub const VISIBLE_RUN: u8 = 2;

/// A kind of job the worker pool runs.
pub trait JobKind: Any {
    /// Its place in the pool's order (see [`VISIBLE_RUN`]).
    fn priority(&self) -> u8;
    /// Tasks that could start now.
    fn available(&self) -> usize;
    /// The next task, numbered `task`: the request, and the job (its id) and part it is for.
    fn next_task(&mut self, task: u64) -> Option<(Request, u64, u32)>;
    /// A reply to part `part` of job `id`: its answer, or a progress report when more follow.
    fn reply(&mut self, id: u64, part: u32, reply: Reply) -> Changed;
    /// Part `part` of job `id` failed: `refused`, the worker read the task and refused it;
    /// else its worker crashed or could not load.
    fn failed(&mut self, id: u64, part: u32, message: &str, refused: bool) -> Changed;
    /// No worker can run: every job waiting for one fails with `message`.
    fn fail_pending(&mut self, message: &str) -> Changed;
}

/// What a kind may do to the pool while it changes its store: stop the tasks of its job `id`
/// (their workers are terminated at once; a task cannot be interrupted otherwise).
pub struct Stopper<'a> {
    pool: &'a mut Pool,
    kind: TypeId,
}

impl Stopper<'_> {
    pub fn stop(&mut self, id: u64) {
        let kind = self.kind;
        self.pool.terminate(|o| matches!(o, Owner::Job { kind: k, id: i, .. } if *k == kind && *i == id));
    }

    /// The pool's size (for estimates).
    pub fn pool_size(&mut self) -> u32 {
        self.pool.size()
    }
}

impl Client {
    /// Where the store of kind `K` is, made on first use (the stores are kept in priority order).
    fn index_of<K: JobKind + Default>(&mut self) -> usize {
        if !self.kinds.iter().any(|k| (**k).type_id() == TypeId::of::<K>()) {
            self.kinds.push(Box::<K>::default());
            self.kinds.sort_by_key(|k| k.priority());
        }
        self.kinds.iter().position(|k| (**k).type_id() == TypeId::of::<K>()).expect("made above")
    }

    /// The store of kind `kind` (a task's owner), if it has one.
    pub(super) fn kind_of(&mut self, kind: TypeId) -> Option<&mut Box<dyn JobKind>> {
        self.kinds.iter_mut().find(|k| (***k).type_id() == kind)
    }
}

/// Changes the store of kind `K` with `f`, which may stop its jobs' tasks; when `f` says
/// something changed, idle workers get the next tasks and the page redraws what changed.
pub fn change<K: JobKind + Default, R>(f: impl FnOnce(&mut K, &mut Stopper<'_>) -> Option<(R, Changed)>) -> Option<R> {
    let (r, changed) = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let c = &mut *c;
        let i = c.index_of::<K>();
        let store = (c.kinds[i].as_mut() as &mut dyn Any).downcast_mut::<K>().expect("the kind's own type");
        let (r, mut changed) = f(store, &mut Stopper { pool: &mut c.pool, kind: TypeId::of::<K>() })?;
        changed |= pump(c);
        Some((r, changed))
    })?;
    changed.notify();
    Some(r)
}

/// Changes the store of kind `K` (made on first use) with `f`, without a redraw or a new
/// task: for what the caller reads at once (light data computed on the spot).
pub fn with<K: JobKind + Default, R>(f: impl FnOnce(&mut K) -> R) -> R {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let i = c.index_of::<K>();
        f((c.kinds[i].as_mut() as &mut dyn Any).downcast_mut::<K>().expect("the kind's own type"))
    })
}

/// Reads the store of kind `K` (`None` before its first use).
pub fn read<K: JobKind, R>(f: impl FnOnce(&K) -> R) -> Option<R> {
    CLIENT.with(|c| {
        let c = c.borrow();
        let k = c.kinds.iter().find(|k| (***k).type_id() == TypeId::of::<K>())?;
        Some(f((k.as_ref() as &dyn Any).downcast_ref::<K>().expect("the kind's own type")))
    })
}

/// The next task of the kinds whose priority is in `range`, as task `task`.
pub(super) fn next_task(c: &mut Client, task: u64, range: std::ops::Range<u8>) -> Option<(Request, Owner)> {
    c.kinds.iter_mut().filter(|k| range.contains(&k.priority())).find_map(|k| {
        let kind = (**k).type_id();
        let (request, id, part) = k.next_task(task)?;
        Some((request, Owner::Job { kind, id, part }))
    })
}
