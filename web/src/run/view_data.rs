//! Custom views' data in the run store: core's `Experiment::view_data` of a run's key and a
//! [`ViewQuery`], computed where core's `view_cost` says — light data right here, the first
//! time a view asks; heavy data in the worker pool (before any run's next point) —
//! and kept like finished runs, so that going back to a step costs nothing.
//!
//! Views only read it through [`use_view_data`], as their own type: core's value itself when
//! the view reads core's type, else the view's struct read from the data's JSON (once: the
//! entry then keeps the view's value).

use super::job::Job;
use super::kind::{self, JobKind};
use super::{Changed, RunKey};
use crate::store::{self, Topic};
use crate::worker::{Reply, Request, RunSpec};
use serde::de::DeserializeOwned;
use serde::Serialize;
use skblab_core::experiment::view_cost_of;
use skblab_core::{Cost, ViewData, ViewQuery};
use std::sync::Arc;
use yew::prelude::*;

/// Finished entries kept.
const CACHE_LEN: usize = 16;

/// What identifies a view's data: the run's key and the query.
#[derive(Clone, PartialEq, Debug)]
struct ViewKey {
    run: RunKey,
    query: ViewQuery,
}

/// One view's data as a job of one part (its id is the number the worker echoes), and the data
/// once done.
struct Entry {
    key: ViewKey,
    job: Job,
    data: Option<ViewData>,
    /// Given to a worker.
    sent: bool,
    /// Views of a page's list ([`use_view_data_list`]) that show it (see [`release`]).
    held: u32,
}

/// Every entry, oldest first.
#[derive(Default)]
pub(super) struct Views {
    entries: Vec<Entry>,
    next_id: u64,
}

impl Views {
    fn find(&self, key: &ViewKey) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == *key)
    }

    /// Adds an entry, finished if `data` is given (else the worker's to compute), dropping the
    /// oldest finished ones beyond [`CACHE_LEN`].
    fn push(&mut self, key: ViewKey, data: Option<Result<ViewData, String>>) -> u64 {
        self.next_id += 1;
        let mut entry = Entry { key, job: Job::new(self.next_id, 1, 0.0), data: None, sent: false, held: 0 };
        if let Some(result) = data {
            entry.settle(result);
        }
        self.entries.push(entry);
        while self.entries.iter().filter(|e| !e.job.is_running()).count() > CACHE_LEN {
            let Some(oldest) = self.entries.iter().position(|e| !e.job.is_running()) else { break };
            self.entries.remove(oldest);
        }
        self.next_id
    }
}

impl Entry {
    /// The data is in, or why there is none.
    fn settle(&mut self, result: Result<ViewData, String>) {
        match result {
            Ok(data) => {
                self.data = Some(data);
                self.job.finish(0.0);
            }
            Err(e) => self.job.fail(&e),
        }
    }

    /// The finished result (`None` while the worker computes it).
    fn result(&self) -> Option<Result<ViewData, String>> {
        match (self.job.error(), &self.data) {
            (Some(e), _) => Some(Err(e.to_string())),
            (None, Some(data)) => Some(Ok(data.clone())),
            (None, None) => None,
        }
    }
}

/// A view's data as far as it has come.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewLoad<T> {
    /// The worker computes it.
    Waiting,
    Ready(Arc<T>),
    /// Why there is none (the run's parameters were refused, the worker failed, ...).
    Failed(String),
}

impl<T> ViewLoad<T> {
    /// The note a view shows instead of its drawing while there is no data (`None` once ready);
    /// `view-pending` while it is coming (a pre-rendered first view stays until none is left).
    pub fn note(&self) -> Option<Html> {
        match self {
            ViewLoad::Waiting => Some(html! { <p class="muted view-pending">{ "computing this view's data…" }</p> }),
            ViewLoad::Ready(_) => None,
            ViewLoad::Failed(e) => Some(html! { <p class="run-error">{ format!("No data: {e}") }</p> }),
        }
    }
}

/// Light data, computed now.
fn compute(key: &ViewKey) -> Result<ViewData, String> {
    let (e, params) = (key.run.experiment, &key.run.params);
    e.validate(params).map_err(|err| err.to_string())?;
    skblab_core::experiment::view_data_of(e, params, key.run.seed, &key.query)
        .ok_or_else(|| format!("{} has no data {:?}", e.id(), key.query.name))
}

impl JobKind for Views {
    /// Before any run's next point: a view waits for its data.
    fn priority(&self) -> u8 {
        0
    }

    fn available(&self) -> usize {
        self.entries.iter().filter(|e| e.job.is_running() && !e.sent).count()
    }

    /// The oldest request waiting for a worker.
    fn next_task(&mut self, task: u64) -> Option<(Request, u64, u32)> {
        let e = self.entries.iter_mut().find(|e| e.job.is_running() && !e.sent)?;
        e.sent = true;
        let run = RunSpec::new(e.key.run.experiment, &e.key.run.params, e.key.run.seed);
        Some((Request::View { task, run, query: e.key.query.clone() }, e.job.id, 0))
    }

    fn reply(&mut self, id: u64, _: u32, reply: Reply) -> Changed {
        match reply {
            Reply::View { data, .. } => self.arrived(id, Ok(ViewData::from_json(data.get().to_string()))),
            _ => Changed::default(),
        }
    }

    fn failed(&mut self, id: u64, _: u32, message: &str, _: bool) -> Changed {
        self.arrived(id, Err(message.to_string()))
    }

    fn fail_pending(&mut self, message: &str) -> Changed {
        for e in self.entries.iter_mut().filter(|e| e.job.is_running()) {
            e.job.fail(message);
        }
        Changed::of(Topic::Views)
    }
}

impl Views {
    /// The data of request `id` arrived (or why not).
    fn arrived(&mut self, id: u64, result: Result<ViewData, String>) -> Changed {
        if let Some(e) = self.entries.iter_mut().find(|e| e.job.id == id) {
            e.settle(result);
        }
        Changed::of(Topic::Views)
    }
}

/// Asks the pool for heavy data, unless it was asked for already.
fn request(key: &ViewKey) {
    kind::change::<Views, ()>(|views, _| {
        if views.find(key).is_some() {
            return None;
        }
        let refused = key.run.experiment.validate(&key.run.params).err().map(|e| Err(e.to_string()));
        views.push(key.clone(), refused);
        Some(((), Changed::of(Topic::Views)))
    });
}

/// One more view of a list shows `key`'s data.
fn hold(key: &ViewKey) {
    kind::with::<Views, _>(|views| {
        if let Some(e) = views.entries.iter_mut().find(|e| e.key == *key) {
            e.held += 1;
        }
    });
}

/// One view of a list less shows `key`'s data: once none does (the page left, fewer seeds),
/// data still being computed is dropped and its worker stopped: nothing computes for no one.
fn release(key: &ViewKey) {
    kind::change::<Views, ()>(|views, stopper| {
        let i = views.entries.iter().position(|e| e.key == *key)?;
        let e = &mut views.entries[i];
        e.held = e.held.saturating_sub(1);
        if e.held > 0 || !e.job.is_running() {
            return None;
        }
        stopper.stop(views.entries.remove(i).job.id);
        Some(((), Changed::of(Topic::Views)))
    });
}

/// The data of `key` as `T`, computing light data now; `None` while heavy data is pending or
/// was never asked for.
fn lookup<T: Serialize + DeserializeOwned + Send + Sync + 'static>(key: &ViewKey) -> Option<Result<Arc<T>, String>> {
    let heavy = view_cost_of(key.run.experiment, &key.run.params, &key.query) == Cost::Heavy;
    kind::with::<Views, _>(|views| {
        if views.find(key).is_none() && !heavy {
            // Not notified: the caller draws the data right away.
            views.push(key.clone(), Some(compute(key)));
        }
        let entry = views.entries.iter_mut().find(|e| e.key == *key)?;
        let value = entry.result()?.and_then(|d| d.decode::<T>());
        // Keep the view's own value, so that the JSON is read once.
        if let Ok(v) = &value {
            if entry.data.as_ref().is_some_and(|d| d.get::<T>().is_none()) {
                entry.data = Some(ViewData::from_arc(v.clone()));
            }
        }
        Some(value)
    })
}

/// The data `query` of the run `run`, as the view's type `T` (core's payload type, or the
/// view's own struct of the fields it reads): light data at once, heavy data from the worker
/// (the view redraws when it arrives).
#[hook]
pub fn use_view_data<T>(run: RunKey, query: ViewQuery) -> ViewLoad<T>
where
    T: Serialize + DeserializeOwned + Send + Sync + 'static,
{
    store::use_topic(Topic::Views, None);
    let key = ViewKey { run, query };
    {
        let key = key.clone();
        use_effect_with(key, |key| {
            if view_cost_of(key.run.experiment, &key.run.params, &key.query) == Cost::Heavy {
                request(key);
            }
        });
    }
    match lookup::<T>(&key) {
        None => ViewLoad::Waiting,
        Some(Ok(v)) => ViewLoad::Ready(v),
        Some(Err(e)) => ViewLoad::Failed(e),
    }
}

/// The data of each of `keys` (a run's key and a query), as [`use_view_data`] gives one: for
/// a page that asks for a varying number of them (one seed's share of a reproduction each).
#[hook]
pub fn use_view_data_list<T>(keys: Vec<(RunKey, ViewQuery)>) -> Vec<ViewLoad<T>>
where
    T: Serialize + DeserializeOwned + Send + Sync + 'static,
{
    store::use_topic(Topic::Views, None);
    let keys: Vec<ViewKey> = keys.into_iter().map(|(run, query)| ViewKey { run, query }).collect();
    use_effect_with(keys.clone(), |keys| {
        let heavy: Vec<ViewKey> = keys
            .iter()
            .filter(|k| view_cost_of(k.run.experiment, &k.run.params, &k.query) == Cost::Heavy)
            .cloned()
            .collect();
        for key in &heavy {
            request(key);
            hold(key);
        }
        move || heavy.iter().for_each(release)
    });
    keys.iter()
        .map(|key| match lookup::<T>(key) {
            None => ViewLoad::Waiting,
            Some(Ok(v)) => ViewLoad::Ready(v),
            Some(Err(e)) => ViewLoad::Failed(e),
        })
        .collect()
}
