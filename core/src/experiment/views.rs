//! The views of a run, as data: what the page draws from the
//! [`RunOutput`](crate::output::RunOutput) alone ([`ViewSpec`], [`ChartSpec`]), and what a
//! custom view asks for beyond it ([`ViewQuery`]) and gets back ([`ViewData`]: a typed value
//! here, JSON across the worker boundary).

use super::{Cost, Experiment};
use crate::params::Params;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A line chart of result columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartSpec {
    pub title: &'static str,
    /// The x column.
    pub x: &'static str,
    /// The y columns, one line each, with their legend labels.
    pub ys: &'static [(&'static str, &'static str)],
    /// Axis label of y (with its unit) and the divisor from the column's unit to it
    /// (e.g. Mbit/s columns drawn in Gbit/s: 1000).
    pub y_label: &'static str,
    pub y_divisor: f64,
    pub x_label: &'static str,
    /// Draw the seed post's points of the same columns as markers.
    pub seed_overlay: bool,
}

/// A view of a run, as data: the web app draws every kind but `Custom` from the
/// [`RunOutput`](crate::output::RunOutput) alone. Lesson steps name views by [`ViewSpec::id`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ViewSpec {
    /// Every column of the result table, with CSV/JSON export.
    Table { id: &'static str },
    /// The seed post's numbers beside the simulation's ([`Experiment::compare`]).
    Compare { id: &'static str },
    /// Text views of the output (by [`crate::TextView::id`]), one under the other.
    Text { id: &'static str, texts: &'static [&'static str] },
    /// A line chart of columns.
    Chart { id: &'static str, chart: ChartSpec },
    /// A diagram no chart can draw: the web app's custom view (experiment id, `id`).
    Custom { id: &'static str },
    /// Flame graphs of simulated profiles ([`crate::RunOutput::flames`] by id), side by side
    /// (e.g. before and after a fix), each with zoom, search and an SVG export; the folded
    /// stacks are its text alternative.
    Flame { id: &'static str, flames: &'static [&'static str] },
    /// Plots of series that are not the result table's columns ([`crate::RunOutput::plots`]
    /// by id), one under the other. `shows` lists the result columns a plot lets the reader
    /// work out (a marked delay, ...), so a lesson question on one of them must veil it.
    Plot { id: &'static str, plots: &'static [&'static str], shows: &'static [&'static str] },
}

impl ViewSpec {
    pub fn id(&self) -> &'static str {
        match self {
            ViewSpec::Table { id }
            | ViewSpec::Compare { id }
            | ViewSpec::Text { id, .. }
            | ViewSpec::Chart { id, .. }
            | ViewSpec::Custom { id }
            | ViewSpec::Flame { id, .. }
            | ViewSpec::Plot { id, .. } => id,
        }
    }
}

/// Which data a custom view asks for: a name the experiment knows (a view's id, or the name of
/// data several views share) and the view's own inputs beyond the run's parameters (the trace
/// player's flow count), each checked by the experiment against a bound.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ViewQuery {
    pub name: String,
    pub args: BTreeMap<String, i64>,
}

impl ViewQuery {
    pub fn new(name: &str) -> ViewQuery {
        ViewQuery { name: name.to_string(), args: BTreeMap::new() }
    }

    /// The query with the input `name` set to `value`.
    pub fn with(mut self, name: &str, value: i64) -> ViewQuery {
        self.args.insert(name.to_string(), value);
        self
    }

    /// The input `name` if it was given and lies in `lo..=hi`.
    pub fn arg_in(&self, name: &str, lo: i64, hi: i64) -> Option<i64> {
        self.args.get(name).copied().filter(|v| (lo..=hi).contains(v))
    }
}

type AnyValue = dyn Any + Send + Sync;

/// A custom view's data: the typed value core computed (on the page's main thread for light
/// data), or its JSON text (as it came back from the sweep worker). [`ViewData::decode`] gives
/// the value as the view's own type: by a downcast when it is the type core made, else by
/// reading the JSON (a view may read core's payload into a struct of its own). Equal only to
/// itself (a cheap identity for props).
#[derive(Clone)]
pub struct ViewData(Inner);

#[derive(Clone)]
enum Inner {
    Value { value: Arc<AnyValue>, to_json: fn(&AnyValue) -> String },
    Json(Arc<str>),
}

fn json_of<T: Serialize + 'static>(value: &AnyValue) -> String {
    let value = value.downcast_ref::<T>().expect("ViewData pairs a value with the encoder of its type");
    serde_json::to_string(value).expect("view data serializes")
}

impl ViewData {
    /// Data computed here.
    pub fn new<T: Serialize + Send + Sync + 'static>(value: T) -> ViewData {
        ViewData::from_arc(Arc::new(value))
    }

    pub fn from_arc<T: Serialize + Send + Sync + 'static>(value: Arc<T>) -> ViewData {
        ViewData(Inner::Value { value, to_json: json_of::<T> })
    }

    /// Data as JSON text (from the worker).
    pub fn from_json(text: impl Into<Arc<str>>) -> ViewData {
        ViewData(Inner::Json(text.into()))
    }

    /// The JSON text of the data (what crosses the worker boundary).
    pub fn to_json(&self) -> String {
        match &self.0 {
            Inner::Value { value, to_json } => to_json(value.as_ref()),
            Inner::Json(text) => text.to_string(),
        }
    }

    /// The value itself, if it was computed here as a `T`.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        match &self.0 {
            Inner::Value { value, .. } => value.clone().downcast::<T>().ok(),
            Inner::Json(_) => None,
        }
    }

    /// The data as `T`: the value itself if it is a `T`, else `T` read from the JSON.
    pub fn decode<T: DeserializeOwned + Send + Sync + 'static>(&self) -> Result<Arc<T>, String> {
        if let Some(v) = self.get::<T>() {
            return Ok(v);
        }
        serde_json::from_str(&self.to_json()).map(Arc::new).map_err(|e| format!("unreadable view data: {e}"))
    }
}

impl PartialEq for ViewData {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Inner::Value { value: a, .. }, Inner::Value { value: b, .. }) => Arc::ptr_eq(a, b),
            (Inner::Json(a), Inner::Json(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl std::fmt::Debug for ViewData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Inner::Value { .. } => f.write_str("ViewData(value)"),
            Inner::Json(text) => write!(f, "ViewData({} bytes of JSON)", text.len()),
        }
    }
}

/// The view-data query of one seed's [`Experiment::reproduce_figures`]: the page's workers
/// compute a seed's share of a reproduction as they compute a heavy view's data.
pub const REPRODUCE_FIGURES: &str = "reproduce-figures";

/// [`Experiment::view_data`], or one seed's [`Experiment::reproduce_figures`] for a query named
/// [`REPRODUCE_FIGURES`] (the seed is the run's).
pub fn view_data_of(e: &dyn Experiment, params: &Params, seed: u64, query: &ViewQuery) -> Option<ViewData> {
    if query.name == REPRODUCE_FIGURES {
        return e.reproduce_figures(seed).map(ViewData::new);
    }
    e.view_data(params, seed, query)
}

/// Where [`view_data_of`] may run: [`Experiment::view_cost`], or the figures' own cost.
pub fn view_cost_of(e: &dyn Experiment, params: &Params, query: &ViewQuery) -> Cost {
    if query.name == REPRODUCE_FIGURES {
        return e.reproduce_figures_cost().unwrap_or(Cost::Light);
    }
    e.view_cost(params, query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_data_downcasts_to_its_own_type_and_reads_json_into_another() {
        #[derive(Debug, PartialEq, Serialize)]
        struct Mine {
            a: u32,
            name: &'static str,
        }
        #[derive(Debug, PartialEq, Deserialize)]
        struct Theirs {
            name: String,
        }
        let d = ViewData::new(Mine { a: 3, name: "x" });
        assert_eq!(d.get::<Mine>().unwrap().a, 3);
        assert_eq!(d.decode::<Theirs>().unwrap().name, "x");
        let json = ViewData::from_json(d.to_json());
        assert_eq!(*json.decode::<Theirs>().unwrap(), Theirs { name: "x".into() });
        assert!(json.decode::<Vec<u8>>().unwrap_err().starts_with("unreadable view data"));
        assert_eq!(d, d.clone());
        assert_ne!(d, ViewData::new(Mine { a: 3, name: "x" }));
    }

    #[test]
    fn view_query_args_are_bounded() {
        let q = ViewQuery::new("trace").with("flows", 4);
        assert_eq!(q.arg_in("flows", 1, 8), Some(4));
        assert_eq!(q.arg_in("flows", 1, 3), None);
        assert_eq!(q.arg_in("order", 0, 3), None);
    }
}
