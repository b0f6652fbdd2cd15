//! A pinned run ("compare two runs"): the run the learner keeps as A while moving
//! knobs. It is its resolved parameters and seed, and travels in the page's URL under
//! [`super::PIN_KEY`] in the CLI's own terms (`skblab_core::replay::settings`).

use super::{DEFAULT_SEED, SEED_KEY};
use skblab_core::params::echo;
use skblab_core::{Experiment, Params};

/// A pinned run: resolved parameters and seed (a run is a function of them).
#[derive(Debug, Clone)]
pub struct Pin {
    pub params: Params,
    pub seed: u64,
}

impl PartialEq for Pin {
    fn eq(&self, other: &Self) -> bool {
        self.seed == other.seed && self.params.iter().eq(other.params.iter())
    }
}

impl Pin {
    /// Its URL form: the fewest `name=value` settings that resolve to it, then `seed=N`.
    pub fn to_query(&self, e: &dyn Experiment) -> String {
        let mut parts = skblab_core::replay::settings(e, &self.params);
        parts.push(format!("{SEED_KEY}={}", self.seed));
        parts.join(",")
    }

    /// Reads [`Pin::to_query`]'s form; a one-line error naming what is wrong.
    pub fn from_query(e: &dyn Experiment, text: &str) -> Result<Pin, String> {
        let mut params = e.defaults();
        let mut seed = DEFAULT_SEED;
        for part in text.split(',').filter(|p| !p.is_empty()).take(64) {
            let (name, value) = part.split_once('=').ok_or_else(|| format!("'{}' is not name=value", echo(part)))?;
            if name == SEED_KEY {
                seed = skblab_core::params::parse_whole(value, 0, u64::MAX)
                    .map_err(|_| format!("bad seed '{}'", echo(value)))?;
            } else {
                params.set_text(name, value).map_err(|err| err.to_string())?;
            }
        }
        e.validate(&params).map_err(|err| err.to_string())?;
        Ok(Pin { params: e.resolve(&params), seed })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{apply, Action, Page};
    use crate::pages::{resolve, View};
    use crate::route;

    fn page(hash: &str) -> Page {
        match resolve(&route::parse(hash)).0 {
            View::Player(p) => p,
            _ => panic!("not a player page: {hash}"),
        }
    }

    #[test]
    fn a_pinned_run_travels_in_the_url() {
        let p = page("#/play/page-frag-free?machine=x86-bench&seed=3");
        let pinned = apply(&p, Action::Pin);
        let moved = apply(&pinned, Action::SetParam { name: "fix".into(), text: "after".into() });
        let url = route::format(&moved.location());
        assert!(url.contains("pin=machine%3Dx86-bench%2Cseed%3D3"), "{url}");
        let back = page(&url);
        assert!(back.notices.is_empty(), "{:?}", back.notices);
        assert!(back == moved, "{url}");
        let pin = back.pin.as_ref().expect("pinned");
        assert_eq!((pin.params.choice("machine"), pin.params.choice("fix"), pin.seed), ("x86-bench", "before", 3));
        assert!(apply(&back, Action::Unpin).pin.is_none());
        for bad in ["cpus%3D9999", "nonsense", "seed%3D-1", "cpus%3D3%2Csockets%3D2"] {
            let b = page(&format!("#/play/page-frag-free?pin={bad}"));
            assert!(b.pin.is_none() && b.notices.iter().any(|n| n.contains("pinned run")), "{bad}: {:?}", b.notices);
        }
    }
}
