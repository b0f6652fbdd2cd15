//! The one subscription mechanism of the app: state shared by several components lives in a
//! module's `thread_local!` (the runs of [`crate::run`], the walk of ktls-recursion's stepping
//! views), and components that read it subscribe to its *topic* here; the owner calls
//! [`notify`] after every change and every subscriber redraws.
//!
//! Notification happens outside any borrow of the shared state, since a redraw reads it.

use std::cell::RefCell;
use yew::prelude::*;

/// The topics: one per shared state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    /// Runs in flight and finished ([`crate::run`]).
    Runs,
    /// The position of a step-through walk (custom views).
    Walk,
    /// Custom views' data ([`crate::run::use_view_data`]).
    Views,
    /// Uncertainty bands ([`crate::run::use_band`]).
    Bands,
    /// Measurement files' fits ([`crate::machine::job::use_fit`]).
    Machine,
}

impl Topic {
    /// Every topic, in the order a change of several notifies them.
    pub const ALL: [Topic; 5] = [Topic::Runs, Topic::Walk, Topic::Views, Topic::Bands, Topic::Machine];
}

#[derive(Default)]
struct Subscribers {
    list: Vec<(u64, Topic, Callback<()>)>,
    next_id: u64,
}

thread_local! {
    static SUBSCRIBERS: RefCell<Subscribers> = RefCell::default();
}

/// Redraws every subscriber of `topic`.
pub fn notify(topic: Topic) {
    let callbacks: Vec<Callback<()>> = SUBSCRIBERS
        .with(|s| s.borrow().list.iter().filter(|(_, t, _)| *t == topic).map(|(_, _, c)| c.clone()).collect());
    for c in callbacks {
        c.emit(());
    }
}

/// Number of live subscribers of `topic` (tests, debugging).
pub fn subscriber_count(topic: Topic) -> usize {
    SUBSCRIBERS.with(|s| s.borrow().list.iter().filter(|(_, t, _)| *t == topic).count())
}

/// Subscribes the calling component to `topic` for its lifetime; returns an id unique among
/// all subscriptions (stable across renders). `on_unsubscribe` runs after the component left.
#[hook]
pub fn use_topic(topic: Topic, on_unsubscribe: Option<fn(u64)>) -> u64 {
    let id = *use_state(|| {
        SUBSCRIBERS.with(|s| {
            let mut s = s.borrow_mut();
            s.next_id += 1;
            s.next_id
        })
    });
    let update = use_force_update();
    use_effect_with(id, move |&id| {
        let redraw = Callback::from(move |_| update.force_update());
        SUBSCRIBERS.with(|s| s.borrow_mut().list.push((id, topic, redraw)));
        move || {
            SUBSCRIBERS.with(|s| s.borrow_mut().list.retain(|(i, _, _)| *i != id));
            if let Some(f) = on_unsubscribe {
                f(id);
            }
        }
    });
    id
}
