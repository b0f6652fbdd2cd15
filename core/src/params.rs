//! Parameter specs and validation, shared by every experiment.
//!
//! An experiment describes its knobs as data ([`ParamSpec`]): name, unit, range, step, default,
//! help text and the kernel name the knob stands for. The CLI turns that data into `--set`
//! handling, the web app into its generated parameter panel, and the lessons checker into
//! range checks of every lesson preset. Bad input is rejected once, here, with a message that
//! names the parameter, the value and the allowed range ([`ParamError`]). An experiment reads
//! the values through one typed `Input` struct declared with
//! [`params_input!`](crate::params_input) (each field named as its parameter).
//!
//! Here: the specs, their values and errors, and [`Params`] (a run's values bound to its
//! experiment's spec, with the wire form pages and files carry). `input.rs`: the typed
//! `Input` and its macro. `text.rs`: the one integer syntax of every input and how messages
//! echo user text.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

mod input;
mod text;
pub use input::{FromParam, ModelInput};
pub use text::{
    echo, echo_within, escape, is_invisible, parse_decimal, parse_whole, DecimalError, DECIMAL_FORM, ECHO_MAX_CHARS,
};

/// What values a parameter accepts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ParamKind {
    /// An integer in `min..=max` on the grid `min + k * step` (what `skblab params` and the
    /// panel's slider offer is exactly what validation accepts).
    Int { min: i64, max: i64, step: i64 },
    /// A power of two in `min..=max` (page sizes, cache lines).
    Pow2 { min: i64, max: i64 },
    /// `true` or `false`, exactly (no other spelling: what `skblab params` documents).
    Bool,
    /// One of a fixed list of names.
    Choice { options: &'static [&'static str] },
}

/// A parameter value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Choice(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
            Value::Choice(v) => write!(f, "{v}"),
        }
    }
}

/// A parameter whose values are the variants of an enum. [`choice_enum!`](crate::choice_enum) declares the enum
/// and this list together, so names, options and parsing cannot drift apart (no parallel name
/// arrays).
pub trait Choice: Copy + PartialEq + 'static {
    /// The variants, in option order.
    const ALL: &'static [Self];
    /// Their names (as in `--set`, URLs and lesson files), in the same order.
    const NAMES: &'static [&'static str];

    fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|v| *v == self).expect("every variant is listed")]
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().position(|n| *n == name).map(|i| Self::ALL[i])
    }
}

/// Declares an enum whose variants are a choice parameter's values, with their names (such an
/// enum is also a field type of [`params_input!`](crate::params_input), through [`FromParam`]):
///
/// ```
/// skblab_core::choice_enum! {
///     /// Where flows run.
///     pub enum Placement { Spread = "spread", Pack = "pack" }
/// }
/// use skblab_core::params::Choice;
/// assert_eq!(Placement::from_name("pack"), Some(Placement::Pack));
/// assert_eq!(Placement::Spread.name(), "spread");
/// ```
#[macro_export]
macro_rules! choice_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)?
    }) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
        $(#[$meta])*
        $vis enum $name { $($(#[$vmeta])* $variant),+ }

        impl $crate::params::Choice for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            const NAMES: &'static [&'static str] = &[$($text),+];
        }
    };
}

/// One knob of an experiment, as data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamSpec {
    /// Name used by `--set name=value`, URLs and lesson presets (snake_case, unit last).
    pub name: &'static str,
    /// Unit shown next to the value ("bytes", "ns", "threads", "" for none).
    pub unit: &'static str,
    pub kind: ParamKind,
    pub default: Value,
    /// One sentence for tooltips and `skblab params`.
    pub help: &'static str,
    /// What the knob is called in Linux (a macro, sysctl, struct field), for grepping.
    pub kernel_name: &'static str,
}

impl ParamSpec {
    /// An integer parameter.
    pub const fn int(name: &'static str, unit: &'static str, default: i64, range: (i64, i64, i64)) -> Self {
        ParamSpec {
            name,
            unit,
            kind: ParamKind::Int { min: range.0, max: range.1, step: range.2 },
            default: Value::Int(default),
            help: "",
            kernel_name: "",
        }
    }

    /// A power-of-two parameter.
    pub const fn pow2(name: &'static str, unit: &'static str, default: i64, range: (i64, i64)) -> Self {
        ParamSpec {
            name,
            unit,
            kind: ParamKind::Pow2 { min: range.0, max: range.1 },
            default: Value::Int(default),
            help: "",
            kernel_name: "",
        }
    }

    /// A boolean parameter.
    pub const fn boolean(name: &'static str, default: bool) -> Self {
        ParamSpec { name, unit: "", kind: ParamKind::Bool, default: Value::Bool(default), help: "", kernel_name: "" }
    }

    /// A choice among the variants of `C`, defaulting to `default`.
    pub fn choice_of<C: Choice>(name: &'static str, default: C) -> Self {
        ParamSpec {
            name,
            unit: "",
            kind: ParamKind::Choice { options: C::NAMES },
            default: Value::Choice(default.name().to_string()),
            help: "",
            kernel_name: "",
        }
    }

    /// A choice among `options`; the default is `options[default_index]`.
    pub fn choice(name: &'static str, options: &'static [&'static str], default_index: usize) -> Self {
        ParamSpec {
            name,
            unit: "",
            kind: ParamKind::Choice { options },
            default: Value::Choice(options[default_index].to_string()),
            help: "",
            kernel_name: "",
        }
    }

    /// `sockets`: CPU packages, each a NUMA node, 1..=`max`. The topology knobs (this, [`Self::cores`],
    /// [`Self::smt`]) mean the same machine in every experiment that has them; each gives its
    /// own help, what the knob does in its model.
    pub const fn sockets(default: i64, max: i64) -> Self {
        ParamSpec::int("sockets", "sockets", default, (1, max, 1)).kernel("/sys/devices/system/node")
    }

    /// `cpus`: physical cores online, 1..=`max`, split evenly over the sockets
    /// ([`cores_split_evenly`]).
    pub const fn cores(default: i64, max: i64) -> Self {
        ParamSpec::int("cpus", "cores", default, (1, max, 1)).kernel("/sys/devices/system/cpu/online")
    }

    /// `smt`: each core's second hardware thread (Hyper-Threading) online.
    pub const fn smt(default: bool) -> Self {
        ParamSpec::boolean("smt", default).kernel("CONFIG_SCHED_SMT")
    }

    pub const fn help(mut self, help: &'static str) -> Self {
        self.help = help;
        self
    }

    pub const fn kernel(mut self, kernel_name: &'static str) -> Self {
        self.kernel_name = kernel_name;
        self
    }

    /// Human-readable allowed range, used in error messages and `skblab params`.
    pub fn range_text(&self) -> String {
        match &self.kind {
            ParamKind::Int { min, max, step } if *step > 1 && min % step == 0 => {
                format!("a multiple of {step} in {min}..={max}")
            }
            ParamKind::Int { min, max, step } if *step > 1 => {
                format!("an integer in {min}..={max} in steps of {step} from {min}")
            }
            ParamKind::Int { min, max, .. } => format!("an integer in {min}..={max}"),
            ParamKind::Pow2 { min, max } => format!("a power of two in {min}..={max}"),
            ParamKind::Bool => "true or false".to_string(),
            ParamKind::Choice { options } => format!("one of {}", options.join(", ")),
        }
    }

    /// Parses and range-checks a textual value (from the CLI, a URL or a lesson file), exactly
    /// as `skblab params` documents it: an integer in plain decimal ([`parse_decimal`]: no
    /// whitespace of any kind, no `+`, no leading zeros), a boolean `true` or `false`, a
    /// choice's exact name. Every caller (`--set`, the page's URL, lesson files) goes
    /// through here, so they accept exactly the same texts.
    pub fn parse(&self, text: &str) -> Result<Value, ParamError> {
        let bad =
            |allowed: String| ParamError::BadValue { name: self.name.to_string(), value: text.to_string(), allowed };
        match &self.kind {
            ParamKind::Int { .. } | ParamKind::Pow2 { .. } => {
                let v = match parse_decimal(text) {
                    Ok(v) => v,
                    Err(DecimalError::NotDecimal) => return Err(bad(self.range_text())),
                    Err(DecimalError::NotCanonical) => {
                        return Err(bad(format!("{}, {DECIMAL_FORM}", self.range_text())));
                    }
                };
                let v = i64::try_from(v).map_err(|_| bad(self.range_text()))?;
                self.check(&Value::Int(v)).map(|_| Value::Int(v))
            }
            ParamKind::Bool => match text {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(bad(self.range_text())),
            },
            ParamKind::Choice { options } => options
                .iter()
                .find(|o| **o == text)
                .map(|o| Value::Choice(o.to_string()))
                .ok_or_else(|| bad(self.range_text())),
        }
    }

    /// Checks that an already typed value fits this spec.
    pub fn check(&self, value: &Value) -> Result<(), ParamError> {
        let ok = match (&self.kind, value) {
            (ParamKind::Int { min, max, step }, Value::Int(v)) => {
                (*min..=*max).contains(v) && (*step <= 1 || (v - min) % step == 0)
            }
            (ParamKind::Pow2 { min, max }, Value::Int(v)) => (*min..=*max).contains(v) && (*v as u64).is_power_of_two(),
            (ParamKind::Bool, Value::Bool(_)) => true,
            (ParamKind::Choice { options }, Value::Choice(c)) => options.contains(&c.as_str()),
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(ParamError::BadValue {
                name: self.name.to_string(),
                value: value.to_string(),
                allowed: self.range_text(),
            })
        }
    }
}

/// Why a parameter or experiment was rejected. Every variant renders as one line that says
/// what was wrong and what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    UnknownParam {
        experiment: String,
        name: String,
        known: Vec<String>,
    },
    BadValue {
        name: String,
        value: String,
        allowed: String,
    },
    Malformed {
        text: String,
    },
    UnknownExperiment {
        id: String,
        known: Vec<String>,
    },
    /// Values that are each in range but do not go together (e.g. `min_threads > max_threads`).
    Invalid {
        message: String,
    },
}

/// The rule of every experiment with both parameters: `cpus` online cores split evenly over
/// `sockets` (each socket a NUMA node with the same number of cores).
pub fn cores_split_evenly(cpus: u32, sockets: u32) -> Result<(), ParamError> {
    if cpus % sockets == 0 {
        return Ok(());
    }
    Err(ParamError::BadValue {
        name: "cpus".into(),
        value: cpus.to_string(),
        allowed: format!("a multiple of sockets ({sockets}): the cores split evenly over the sockets"),
    })
}

/// Parameter `name` (`value`) at most parameter `limit` (`limit_value`), with the reason the
/// message gives (none if empty): `pcp_batch <= pcp_high`, `min_threads <= max_threads`.
pub fn at_most(name: &str, value: u32, limit: &str, limit_value: u32, why: &str) -> Result<(), ParamError> {
    if value <= limit_value {
        return Ok(());
    }
    let why = if why.is_empty() { String::new() } else { format!(": {why}") };
    Err(ParamError::BadValue {
        name: name.into(),
        value: value.to_string(),
        allowed: format!("at most {limit} ({limit_value}){why}"),
    })
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::UnknownParam { experiment, name, known } => write!(
                f,
                "unknown parameter '{}' for experiment '{}'; known parameters: {}",
                echo(name),
                echo(experiment),
                known.join(", ")
            ),
            ParamError::BadValue { name, value, allowed } => {
                write!(f, "bad value '{}' for parameter '{}': expected {allowed}", echo(value), echo(name))
            }
            ParamError::Malformed { text } => {
                write!(f, "malformed setting '{}': expected name=value", echo(text))
            }
            ParamError::UnknownExperiment { id, known } => {
                write!(f, "unknown experiment '{}'; known experiments: {}", echo(id), known.join(", "))
            }
            // A message built by an experiment from validated values: already bounded (its length is
            // the experiment's), only escaped.
            ParamError::Invalid { message } => write!(f, "{}", escape(message)),
        }
    }
}

impl std::error::Error for ParamError {}

/// The spec a [`Params`] is bound to: its experiment's id and parameter specs.
#[derive(Debug)]
struct Spec {
    experiment: String,
    params: Vec<ParamSpec>,
}

/// A validated, complete set of parameter values for one experiment, bound to that
/// experiment's spec: setters validate against it, so they need no spec argument.
///
/// Every spec'd parameter has a value (the default unless set). `explicit` records which were
/// set by the user, so that experiments with presets can let explicit values win over the
/// preset's (see `skb_layout`).
#[derive(Debug, Clone)]
pub struct Params {
    spec: Arc<Spec>,
    values: BTreeMap<&'static str, Value>,
    explicit: BTreeSet<&'static str>,
}

/// Equal when they are of the same experiment with the same values and explicit marks.
impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.spec.experiment == other.spec.experiment && self.values == other.values && self.explicit == other.explicit
    }
}

impl Eq for Params {}

impl Params {
    /// All defaults of `experiment`'s spec (experiments offer `Experiment::defaults()`).
    pub fn new(experiment: &str, specs: Vec<ParamSpec>) -> Params {
        let values = specs.iter().map(|s| (s.name, s.default.clone())).collect();
        Params {
            spec: Arc::new(Spec { experiment: experiment.to_string(), params: specs }),
            values,
            explicit: BTreeSet::new(),
        }
    }

    /// Defaults overridden by `name=value` settings, each validated against `specs`. A
    /// parameter set twice is refused, as a repeated option or a repeated key of a
    /// measurement file is: keeping the last value silently would run what the user did not
    /// mean when the two differ.
    pub fn from_settings<S: AsRef<str>>(
        experiment: &str,
        specs: Vec<ParamSpec>,
        settings: &[S],
    ) -> Result<Params, ParamError> {
        let mut params = Params::new(experiment, specs);
        let mut given: Vec<(&str, &str)> = Vec::new();
        for setting in settings {
            let text = setting.as_ref();
            let (name, value) = text.split_once('=').ok_or_else(|| ParamError::Malformed { text: text.to_string() })?;
            params.set_text(name, value)?;
            if let Some((_, first)) = given.iter().find(|(n, _)| *n == name) {
                return Err(ParamError::Invalid {
                    message: format!(
                        "parameter '{name}' is set twice ('{}', then '{}'): set each parameter at most once",
                        echo(first),
                        echo(value)
                    ),
                });
            }
            given.push((name, value));
        }
        Ok(params)
    }

    /// The experiment these parameters belong to.
    pub fn experiment(&self) -> &str {
        &self.spec.experiment
    }

    /// The parameter specs they are checked against.
    pub fn specs(&self) -> &[ParamSpec] {
        &self.spec.params
    }

    fn find_spec(&self, name: &str) -> Result<&ParamSpec, ParamError> {
        find_spec(&self.spec.experiment, &self.spec.params, name)
    }

    /// Sets one parameter from text, validating it.
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<(), ParamError> {
        let spec = self.find_spec(name)?;
        let (name, value) = (spec.name, spec.parse(text)?);
        self.values.insert(name, value);
        self.explicit.insert(name);
        Ok(())
    }

    /// Sets one parameter from a typed value, validating it.
    pub fn set(&mut self, name: &str, value: Value) -> Result<(), ParamError> {
        let spec = self.find_spec(name)?;
        spec.check(&value)?;
        let name = spec.name;
        self.values.insert(name, value);
        self.explicit.insert(name);
        Ok(())
    }

    /// Forgets that `name` was set explicitly and restores its default.
    pub fn unset(&mut self, name: &str) {
        if let Ok(spec) = self.find_spec(name) {
            let (name, default) = (spec.name, spec.default.clone());
            self.values.insert(name, default);
            self.explicit.remove(name);
        }
    }

    /// Keeps the value but marks it as not chosen by the user (used when resolving presets).
    pub fn clear_explicit(&mut self, name: &str) {
        self.explicit.remove(name);
    }

    pub fn is_explicit(&self, name: &str) -> bool {
        self.explicit.contains(name)
    }

    /// The explicitly set parameters, in name order (what a URL needs to carry).
    pub fn explicit_values(&self) -> Vec<(&'static str, Value)> {
        self.explicit.iter().map(|n| (*n, self.values[n].clone())).collect()
    }

    pub fn value(&self, name: &str) -> &Value {
        self.values.get(name).unwrap_or_else(|| panic!("bug: parameter '{name}' is not in the spec"))
    }

    /// An integer parameter's value. Panics (a bug, not bad input) if `name` is not an
    /// integer parameter of the spec.
    pub fn int(&self, name: &str) -> i64 {
        match self.value(name) {
            Value::Int(v) => *v,
            other => panic!("bug: parameter '{name}' is {other:?}, not an integer"),
        }
    }

    pub fn bool(&self, name: &str) -> bool {
        match self.value(name) {
            Value::Bool(v) => *v,
            other => panic!("bug: parameter '{name}' is {other:?}, not a bool"),
        }
    }

    pub fn choice(&self, name: &str) -> &str {
        match self.value(name) {
            Value::Choice(v) => v,
            other => panic!("bug: parameter '{name}' is {other:?}, not a choice"),
        }
    }

    /// A choice parameter's value as its enum. Panics (a bug) if `name` is not a choice of `C`.
    pub fn choice_of<C: Choice>(&self, name: &str) -> C {
        let text = self.choice(name);
        C::from_name(text).unwrap_or_else(|| panic!("bug: '{text}' is not a value of parameter '{name}'"))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.values.iter().map(|(k, v)| (*k, v))
    }
}

/// [`Params`] as they cross a boundary (to the sweep worker, into JSON): typed values by name
/// and which were set explicitly. [`Params::from_wire`] validates them against the spec again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamsWire {
    pub values: BTreeMap<String, Value>,
    pub explicit: Vec<String>,
}

impl Params {
    pub fn to_wire(&self) -> ParamsWire {
        ParamsWire {
            values: self.values.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            explicit: self.explicit.iter().map(|k| k.to_string()).collect(),
        }
    }

    /// Typed values checked against `specs` (unknown names and bad values are errors;
    /// missing names take their defaults).
    pub fn from_wire(experiment: &str, specs: Vec<ParamSpec>, wire: &ParamsWire) -> Result<Params, ParamError> {
        let mut params = Params::new(experiment, specs);
        for (name, value) in &wire.values {
            params.set(name, value.clone())?;
        }
        params.explicit.clear();
        for name in &wire.explicit {
            let name = params.find_spec(name)?.name;
            params.explicit.insert(name);
        }
        Ok(params)
    }
}

fn find_spec<'a>(experiment: &str, specs: &'a [ParamSpec], name: &str) -> Result<&'a ParamSpec, ParamError> {
    specs.iter().find(|s| s.name == name).ok_or_else(|| ParamError::UnknownParam {
        experiment: experiment.to_string(),
        name: name.to_string(),
        known: specs.iter().map(|s| s.name.to_string()).collect(),
    })
}

#[cfg(test)]
mod tests;
