//! Typed parameters: an experiment's `Input` struct declared once, with [`params_input!`](crate::params_input).
//!
//! Each field's name IS its parameter's name (`stringify!`), and its type picks how the value
//! is read ([`FromParam`]: integers, bools, and every [`Choice`] enum). The macro writes the
//! `impl From<&Params>` that reads every field and `Input::NAMES`, the names in field order,
//! which the registry test compares with the experiment's spec (`Experiment::input_names`):
//! a field without a spec, a spec without a field or a misspelt name fails a test instead of
//! panicking in a run or reading the wrong knob.

use super::{Choice, Params};

/// An experiment's typed parameters ([`params_input!`](crate::params_input) implements it):
/// read from validated [`Params`], with the parameter names it reads (the registry test
/// checks that they are exactly the names of the spec).
pub trait ModelInput: for<'a> From<&'a Params> + Send + Sync {
    /// The parameter names the input reads.
    fn names() -> &'static [&'static str];
}

/// A type one parameter's value reads into. Panics (a bug, not bad input) if the parameter is
/// not in the spec or is of another kind: [`Params`] holds only values its spec accepts.
pub trait FromParam: Sized {
    fn from_param(params: &Params, name: &str) -> Self;
}

impl FromParam for i64 {
    fn from_param(params: &Params, name: &str) -> i64 {
        params.int(name)
    }
}

/// `as u32`: the spec's range keeps the value inside `u32` (what every `Input` did by hand).
impl FromParam for u32 {
    fn from_param(params: &Params, name: &str) -> u32 {
        params.int(name) as u32
    }
}

/// `as u64`: the spec's range keeps the value non-negative.
impl FromParam for u64 {
    fn from_param(params: &Params, name: &str) -> u64 {
        params.int(name) as u64
    }
}

impl FromParam for bool {
    fn from_param(params: &Params, name: &str) -> bool {
        params.bool(name)
    }
}

/// A choice's option name, for choices declared by a name list ([`ParamSpec::choice`](super::ParamSpec::choice)).
impl FromParam for String {
    fn from_param(params: &Params, name: &str) -> String {
        params.choice(name).to_string()
    }
}

/// Every choice enum ([`choice_enum!`](crate::choice_enum) or a hand-written [`Choice`]).
impl<C: Choice> FromParam for C {
    fn from_param(params: &Params, name: &str) -> C {
        params.choice_of(name)
    }
}

/// Declares an experiment's typed `Input` once: the struct, `impl From<&Params>` reading each
/// field from the parameter of the same name, and `NAMES`, the parameter names in field order.
///
/// ```
/// use skblab_core::params::{ParamSpec, Params};
/// skblab_core::choice_enum! {
///     pub enum Placement { Spread = "spread", Pack = "pack" }
/// }
/// skblab_core::params_input! {
///     /// Every parameter of a run, typed.
///     #[derive(Debug, PartialEq)]
///     pub struct Input {
///         pub cpus: u32,
///         pub smt: bool,
///         pub placement: Placement,
///     }
/// }
/// let specs = vec![
///     ParamSpec::int("cpus", "cores", 8, (1, 64, 1)),
///     ParamSpec::boolean("smt", true),
///     ParamSpec::choice_of("placement", Placement::Pack),
/// ];
/// let input = Input::from(&Params::new("x", specs));
/// assert_eq!(input, Input { cpus: 8, smt: true, placement: Placement::Pack });
/// assert_eq!(Input::NAMES, ["cpus", "smt", "placement"]);
/// ```
#[macro_export]
macro_rules! params_input {
    ($(#[$meta:meta])* $vis:vis struct $name:ident {
        $($(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty),+ $(,)?
    }) => {
        $(#[$meta])*
        $vis struct $name { $($(#[$fmeta])* $fvis $field: $ty),+ }

        impl $name {
            /// The parameter names, one per field, in field order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),+];
        }

        impl $crate::params::ModelInput for $name {
            fn names() -> &'static [&'static str] {
                $name::NAMES
            }
        }

        impl From<&$crate::params::Params> for $name {
            fn from(p: &$crate::params::Params) -> $name {
                $name { $($field: <$ty as $crate::params::FromParam>::from_param(p, stringify!($field))),+ }
            }
        }
    };
}
