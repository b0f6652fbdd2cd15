//! The comparison's points: each measured number beside the model's prediction from the
//! catalogue and after the fit, its error and verdict ([`MachinePoint`], [`MachineReport`]),
//! and the points that need no stream run of their own: the rr cells ([`super::rr`]),
//! skb-layout's preset against pahole, and the suites not predicted, with why. (The idle
//! point is read from the fit's stream runs: [`super::fit`].)

use super::file::{Cell, Measurement};
use super::profile::profile;
use crate::experiments::skb_layout::preset;
use crate::sim::catalogue::{FamilyId, KernelCosts};
use serde::{Deserialize, Serialize};

/// A measured median below this, in the cell's unit (a bit per second in Mbit/s, a millionth
/// of a byte), is zero for the comparison: an error relative to it is no percentage, so the
/// point has none (`NaN`, JSON `null`) and its verdict says `measured zero`.
pub const MEASURED_ZERO: f64 = 1e-6;

/// One fitted constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fitted {
    pub name: String,
    pub value: f64,
    pub range: [f64; 2],
    pub unit: String,
    pub catalogue: f64,
}

impl Fitted {
    /// Whether the fit ended on (within 2 % of) a bound of its sourced range: the model could
    /// not reach the fit cells inside it, so the fitted column shows no fit the model explains.
    pub fn at_bound(&self) -> bool {
        self.value <= self.range[0] * 1.02 || self.value >= self.range[1] * 0.98
    }
}

/// One measured number beside the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachinePoint {
    pub suite: String,
    pub cell: String,
    pub unit: String,
    pub measured: f64,
    pub measured_min: f64,
    pub measured_max: f64,
    /// After the fit (for `layout`: the preset, nothing is fitted).
    pub predicted: f64,
    /// (predicted − measured) / measured in percent; `NaN` (JSON `null`) when the measured
    /// median is zero ([`MEASURED_ZERO`]).
    #[serde(with = "percentage")]
    pub error_pct: f64,
    /// From the catalogue alone, before any fit.
    pub predicted_catalogue: f64,
    /// As `error_pct`, for the catalogue's prediction.
    #[serde(with = "percentage")]
    pub error_catalogue_pct: f64,
    pub used_for_fit: bool,
    /// Every sample of the cell was contaminated (a busy machine).
    pub contaminated: bool,
    /// `within spread` (the prediction lies in the measured min–max), `measured zero` (outside
    /// it, and no percentage to judge by), `agrees` (|error| ≤ 10 %), `close` (≤ 25 %) or
    /// `misses`.
    pub verdict: String,
    /// The setting (flows, msg_bytes, order, ...), for charts.
    pub setting: std::collections::BTreeMap<String, f64>,
}

/// The whole comparison (Deserialize: the page gets it from its worker as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineReport {
    pub machine: String,
    pub kernel: String,
    pub profile: String,
    pub fitted: Vec<Fitted>,
    pub points: Vec<MachinePoint>,
    /// Measured cells with no prediction, each `suite: why`.
    pub not_predicted: Vec<String>,
    pub notes: Vec<String>,
}

/// (predicted − measured) / measured in percent, or `NaN` when `measured` is zero or so near it
/// ([`MEASURED_ZERO`]) that the ratio is no percentage (or not finite).
pub fn error_pct(predicted: f64, measured: f64) -> f64 {
    let e = (predicted - measured) / measured * 100.0;
    if measured.abs() < MEASURED_ZERO || !e.is_finite() {
        f64::NAN
    } else {
        e
    }
}

/// A percentage that may be undefined: `NaN` is written as JSON `null` and read back.
mod percentage {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_none()
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

pub(super) fn point(suite: &str, c: &Cell, predicted: f64, catalogue: f64, used: bool) -> MachinePoint {
    let err = |p: f64| error_pct(p, c.median);
    let verdict = if (c.min..=c.max).contains(&predicted) {
        "within spread"
    } else if err(predicted).is_nan() {
        "measured zero"
    } else if err(predicted).abs() <= 10.0 {
        "agrees"
    } else if err(predicted).abs() <= 25.0 {
        "close"
    } else {
        "misses"
    };
    MachinePoint {
        suite: suite.to_string(),
        cell: c.id.clone(),
        unit: c.unit.clone(),
        measured: c.median,
        measured_min: c.min,
        measured_max: c.max,
        predicted,
        error_pct: err(predicted),
        predicted_catalogue: catalogue,
        error_catalogue_pct: err(catalogue),
        used_for_fit: used,
        contaminated: c.contaminated(),
        verdict: verdict.to_string(),
        setting: c.setting.clone(),
    }
}

/// The most CPUs the rr cells are predicted on (a file with more says so in a note).
pub(super) const RR_MAX_CPUS: u32 = 256;

/// The rr cells ([`super::rr`]): with the catalogue's `tcp_skb_cycles` and with the fitted one.
pub(super) fn rr_points(
    m: &Measurement,
    family: FamilyId,
    kernel: &KernelCosts,
    (catalogue_cycles, tcp_skb_cycles): (f64, f64),
) -> Vec<MachinePoint> {
    let cpus = m.machine.cpus.clamp(1, RR_MAX_CPUS);
    let (cat, fit) = (profile(cpus, family, catalogue_cycles), profile(cpus, family, tcp_skb_cycles));
    m.cells("rr")
        .iter()
        .map(|c| {
            point("rr", c, super::rr::predict_cell(&fit, kernel, c), super::rr::predict_cell(&cat, kernel, c), false)
        })
        .collect()
}

/// skb-layout's 6.x x86_64 preset against pahole's sizes.
pub(super) fn layout_points(m: &Measurement) -> Vec<MachinePoint> {
    let input = preset("linux-6.4-x86_64").input.clone();
    let l = input.layout();
    m.cells("layout")
        .iter()
        .filter_map(|c| {
            let model = match c.id.as_str() {
                "sk_buff" => input.sk_buff_bytes,
                "skb_shared_info" => l.shinfo_bytes,
                "max_skb_frags" => l.max_skb_frags,
                "page_size" => input.page_size_bytes,
                _ => return None,
            } as f64;
            Some(point("layout", c, model, model, false))
        })
        .collect()
}

pub(super) fn not_predicted(m: &Measurement) -> Vec<String> {
    let why = |s: &str| {
        match s {
        "udp" => "cross-cpu-free's worlds are two hosts over a wire (Xen netfront, a NIC); loopback inside one guest, where the sender's CPU also runs the receive softirq, is not one of them",
        "state" => "kept as measured (buddyinfo, zoneinfo, slabinfo, perf stacks); its pageset high/batch feed the stream prediction and its stacks' idle share is the idle point's measurement",
        "sched" => "what waiting costs (pipe and ring round trips, messaging, the waker's wake call): the source of the guests' wake_latency_ns (the dd ring across vCPUs over the one on one vCPU) and, with its wake cells, of this file's ipi_send_ns, so not predicted from it",
        _ => "no model",
    }
    };
    m.suites
        .keys()
        .filter(|s| !matches!(s.as_str(), "stream" | "layout" | "rr"))
        .map(|s| format!("{s}: {}", why(s)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Fitted;

    #[test]
    fn a_fit_within_two_percent_of_a_bound_is_at_it() {
        let f = |value| Fitted { name: "x".into(), value, range: [100.0, 1000.0], unit: "ns".into(), catalogue: 300.0 };
        assert_eq!((f(101.0).at_bound(), f(300.0).at_bound(), f(990.0).at_bound()), (true, false, true));
    }
}
