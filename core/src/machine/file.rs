//! The measurement file of a real Linux machine: the versioned JSON `skblab measure` writes,
//! its types, and [`parse`], the one way in (text → [`Measurement`], or one line saying what is
//! wrong, where in the file). The CLI hands it the file it wrote or was given; the page, the
//! file the reader picked.

use super::plan;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The version of the file format [`parse`] reads; a file of another version is refused.
pub const SCHEMA_VERSION: u32 = 1;
/// The largest file accepted, bytes (a full run with perf stacks is a few hundred KB).
pub const MAX_FILE_BYTES: usize = 4 << 20;
/// The longest text kept in a suite (a /proc file, folded stacks), bytes.
pub const MAX_TEXT_BYTES: usize = 512 << 10;
/// Most cells of a suite, and samples of a cell.
pub const MAX_CELLS: usize = 256;
pub const MAX_SAMPLES: usize = 64;
/// The largest measured value a cell may carry, in any unit the suites use (Mbit/s, µs,
/// packets/s, bytes): fifteen orders of magnitude above what a loopback measures, and far
/// enough below `f64::MAX` that every scale and axis drawn from it stays finite.
pub const MAX_VALUE: f64 = 1e15;

/// One measurement file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    pub schema_version: u32,
    /// What wrote it (`skblab measure` and its version).
    pub tool: String,
    /// A free note: `smoke` files say so here (a run on a busy machine is not a reference).
    #[serde(default)]
    pub note: String,
    /// When it was taken (UTC, RFC 3339), as the CLI read the clock.
    pub taken: String,
    pub kernel: Kernel,
    pub machine: Machine,
    /// Suite name → its results (`layout`, `stream`, `udp`, `rr`, `state`).
    pub suites: BTreeMap<String, Suite>,
}

/// The running kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kernel {
    /// `uname -r`.
    pub release: String,
    /// `uname -v`.
    #[serde(default)]
    pub version: String,
    /// Sysctls read at the start (name → value), e.g. `net.core.high_order_alloc_disable`.
    #[serde(default)]
    pub sysctls: BTreeMap<String, String>,
}

/// The machine's facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// Online CPUs.
    pub cpus: u32,
    /// `/proc/cpuinfo`'s model name.
    pub model: String,
    /// Vendor, family and model numbers (`GenuineIntel family 6 model 207`): a guest's model
    /// name may hide the CPU, these do not.
    #[serde(default)]
    pub cpu: String,
    /// The catalogue family the CLI recognised (`zen5-guest`: AMD family 26 under a
    /// hypervisor, `milan-guest`, `genoa-guest`, `emr-guest`; empty: none of the catalogue's families).
    #[serde(default)]
    pub family: String,
    /// The hypervisor flag and vendor if any (`KVM`, ...; empty on bare metal).
    #[serde(default)]
    pub hypervisor: String,
    /// Whether `perf` found hardware counters (a guest often has none).
    #[serde(default)]
    pub pmu: bool,
}

/// One suite's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// The exact commands run, in order, as a shell would read them.
    pub commands: Vec<String>,
    pub cells: Vec<Cell>,
    /// Raw texts kept as measured (name → text): /proc files before and after, folded stacks.
    #[serde(default)]
    pub texts: BTreeMap<String, String>,
}

/// One measured quantity at one setting, its samples and their summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    /// Unique within its suite, e.g. `tcp-1flow-64k-order3`.
    pub id: String,
    /// What is measured (`throughput`, `datagrams`, `latency`, `size`).
    pub metric: String,
    pub unit: String,
    /// The setting, name → value (`flows`, `msg_bytes`, `order`, `same_cpu`, ...).
    #[serde(default)]
    pub setting: BTreeMap<String, f64>,
    pub samples: Vec<Sample>,
    /// Median, min and max over the clean samples (all samples when none is clean).
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// One run of a cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    pub value: f64,
    /// CPU time of processes other than the measurement's own during the run, percent of all
    /// CPUs' time (from /proc/stat).
    #[serde(default)]
    pub foreign_cpu_pct: f64,
    /// Over the limit: the run was repeated and this is the last attempt, kept and marked.
    #[serde(default)]
    pub contaminated: bool,
    /// Attempts it took (1: clean the first time).
    #[serde(default = "one")]
    pub attempts: u32,
}

fn one() -> u32 {
    1
}

/// Median, min and max of `values` (the mean of the two middle ones for an even count);
/// `None` when empty.
pub fn summary(values: &[f64]) -> Option<(f64, f64, f64)> {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = match n {
        0 => return None,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    };
    Some((median, v[0], v[n - 1]))
}

impl Cell {
    /// A cell with its summary computed from `samples` (clean ones when any).
    pub fn new(id: &str, metric: &str, unit: &str, setting: &[(&str, f64)], samples: Vec<Sample>) -> Cell {
        let mut c = Cell {
            id: id.to_string(),
            metric: metric.to_string(),
            unit: unit.to_string(),
            setting: setting.iter().map(|&(k, v)| (k.to_string(), v)).collect(),
            samples,
            median: 0.0,
            min: 0.0,
            max: 0.0,
        };
        (c.median, c.min, c.max) = c.recomputed().unwrap_or((0.0, 0.0, 0.0));
        c
    }
    fn recomputed(&self) -> Option<(f64, f64, f64)> {
        let clean: Vec<f64> = self.samples.iter().filter(|s| !s.contaminated).map(|s| s.value).collect();
        let all: Vec<f64> = self.samples.iter().map(|s| s.value).collect();
        summary(if clean.is_empty() { &all } else { &clean })
    }
    /// Whether every sample was contaminated.
    pub fn contaminated(&self) -> bool {
        !self.samples.is_empty() && self.samples.iter().all(|s| s.contaminated)
    }
    /// A setting's value.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.setting.get(name).copied()
    }
}

impl Measurement {
    /// The file as pretty JSON (what `skblab measure` writes).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a measurement serializes") + "\n"
    }
    /// The cells of `suite` (empty when the file has no such suite).
    pub fn cells(&self, suite: &str) -> &[Cell] {
        self.suites.get(suite).map_or(&[], |s| s.cells.as_slice())
    }
}

/// Reads a measurement file's text from `reader` (the file the CLI opened): at most
/// [`MAX_FILE_BYTES`] + 1 bytes are read, so a larger file, `/dev/zero` or a pipe that never
/// ends is refused at that point instead of read whole; then the bytes must be UTF-8.
pub fn read_limited(reader: impl std::io::Read) -> Result<String, String> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    reader.take(MAX_FILE_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!(
            "the file is larger than {MAX_FILE_BYTES} bytes, the most a measurement may have (a full run with perf stacks is a few hundred KB)"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (an invalid byte at offset {}): expected the JSON that `skblab measure` writes",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Parses and validates a measurement file: the one way in, for the CLI and the page. The
/// error is one line naming what is wrong (where in the file, which cell, what is allowed).
pub fn parse(text: &str) -> Result<Measurement, String> {
    if text.len() > MAX_FILE_BYTES {
        return Err(format!("the file is {} bytes, more than the {MAX_FILE_BYTES} a measurement may have", text.len()));
    }
    if text.trim().is_empty() {
        return Err("the file is empty: expected the JSON that `skblab measure` writes".to_string());
    }
    let Unique(value) = serde_json::from_str(text).map_err(|e| one_line(&format!("not valid JSON: {e}")))?;
    let Some(obj) = value.as_object() else {
        return Err(format!(
            "not a measurement: the file is JSON but not an object with schema_version {SCHEMA_VERSION}"
        ));
    };
    match obj.get("schema_version") {
        None => {
            return Err(format!(
                "not a measurement: no schema_version (expected the file `skblab measure` writes, version {SCHEMA_VERSION})"
            ))
        }
        Some(v) if v.as_u64() != Some(u64::from(SCHEMA_VERSION)) => {
            return Err(format!(
                "schema_version {} is not supported: this skblab reads version {SCHEMA_VERSION}",
                short(&v.to_string())
            ))
        }
        Some(_) => {}
    }
    let m: Measurement =
        serde_json::from_value(value).map_err(|e| one_line(&format!("not a valid measurement: {e}")))?;
    check(&m)?;
    Ok(m)
}

/// The checks the types cannot say: bounded sizes, finite non-negative numbers, unique ids,
/// summaries that match their samples.
fn check(m: &Measurement) -> Result<(), String> {
    if m.machine.cpus == 0 || m.machine.cpus > 4096 {
        return Err(format!("machine.cpus {} is not a CPU count (1..=4096)", m.machine.cpus));
    }
    if m.kernel.release.trim().is_empty() {
        return Err("kernel.release is empty: expected `uname -r`".to_string());
    }
    if m.suites.is_empty() {
        return Err(format!(
            "no suites: the file measured nothing (expected one or more of {})",
            plan::SUITES.join(", ")
        ));
    }
    for (name, s) in &m.suites {
        if !plan::SUITES.contains(&name.as_str()) {
            return Err(format!("unknown suite '{}': expected one of {}", short(name), plan::SUITES.join(", ")));
        }
        check_suite(name, s)?;
        match name.as_str() {
            "sched" => check_sched(s)?,
            "stream" => check_stream(s)?,
            "layout" => check_layout(s)?,
            _ => {}
        }
    }
    Ok(())
}

fn check_suite(name: &str, s: &Suite) -> Result<(), String> {
    if s.cells.len() > MAX_CELLS {
        return Err(format!("suite {name}: {} cells, more than {MAX_CELLS}", s.cells.len()));
    }
    if let Some((k, _)) = s.texts.iter().find(|(_, t)| t.len() > MAX_TEXT_BYTES) {
        return Err(format!("suite {name}: text '{}' longer than {MAX_TEXT_BYTES} bytes", short(k)));
    }
    let mut seen = std::collections::BTreeSet::new();
    for c in &s.cells {
        let at = format!("suite {name}, cell '{}'", short(&c.id));
        if c.id.is_empty() || !seen.insert(c.id.as_str()) {
            return Err(format!("{at}: the id is empty or not unique (expected an id no other cell of the suite has)"));
        }
        if c.samples.is_empty() || c.samples.len() > MAX_SAMPLES {
            return Err(format!("{at}: {} samples, expected 1..={MAX_SAMPLES}", c.samples.len()));
        }
        let numbers = c.samples.iter().flat_map(|x| [x.value, x.foreign_cpu_pct]).chain(c.setting.values().copied());
        if let Some(bad) = numbers.chain([c.median, c.min, c.max]).find(|x| !x.is_finite() || *x < 0.0) {
            return Err(format!("{at}: {} is not a finite non-negative number", number(bad)));
        }
        let values = c.samples.iter().map(|x| x.value).chain([c.median, c.min, c.max]);
        if let Some(big) = values.into_iter().find(|x| *x > MAX_VALUE) {
            return Err(format!("{at}: the value {big:e} is not a measurement (expected at most {MAX_VALUE:e})"));
        }
        let (median, min, max) = c.recomputed().unwrap_or_default();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
        if !(close(median, c.median) && close(min, c.min) && close(max, c.max)) {
            return Err(format!(
                "{at}: median/min/max {}/{}/{} do not match its samples ({}/{}/{})",
                number(c.median),
                number(c.min),
                number(c.max),
                number(median),
                number(min),
                number(max)
            ));
        }
    }
    Ok(())
}

/// The longest wait a sched cell may report, µs: a second per round trip or message is no
/// wakeup but a stalled machine.
pub const MAX_SCHED_US: f64 = 1e6;

/// The sched suite taken strictly: only its known cells, each with its metric, unit and
/// setting names ([`plan::SCHED_CELLS`]); whole counts; every sample a positive time under
/// [`MAX_SCHED_US`]; only the idle texts it keeps.
fn check_sched(s: &Suite) -> Result<(), String> {
    let names = || plan::SCHED_CELLS.iter().map(|c| c.0).collect::<Vec<_>>().join(", ");
    if let Some(k) = s.texts.keys().find(|k| !plan::IDLE_TEXTS.iter().any(|(n, _)| n == k)) {
        return Err(format!("suite sched: unknown text '{}' (expected the cpuidle and halt-polling files)", short(k)));
    }
    for c in &s.cells {
        let at = format!("suite sched, cell '{}'", short(&c.id));
        let Some(&(_, metric, unit)) = plan::SCHED_CELLS.iter().find(|k| k.0 == c.id) else {
            return Err(format!("{at}: not a sched cell (expected one of {})", names()));
        };
        if c.metric != metric || c.unit != unit {
            return Err(format!(
                "{at}: metric '{}' in '{}', expected '{metric}' in '{unit}'",
                short(&c.metric),
                short(&c.unit)
            ));
        }
        let count = match metric {
            "message" => "messages",
            "waker_call" => "wakeups",
            _ => "round_trips",
        };
        let mut keys: Vec<&str> = c.setting.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut want = vec!["pinned_cpus", count];
        want.sort_unstable();
        if keys != want {
            return Err(format!("{at}: setting {{{}}}, expected {{{}}}", short(&keys.join(", ")), want.join(", ")));
        }
        let whole = |x: f64, max: f64| x.fract() == 0.0 && x <= max;
        if !(whole(c.setting["pinned_cpus"], 4096.0) && whole(c.setting[count], 1e9) && c.setting[count] >= 1.0) {
            return Err(format!("{at}: pinned_cpus must be a whole 0..=4096 and {count} a whole 1..=1e9"));
        }
        if let Some(v) = c.samples.iter().map(|x| x.value).find(|v| !(*v > 0.0 && *v <= MAX_SCHED_US)) {
            return Err(format!(
                "{at}: {} us is not a wait (expected more than 0 and at most {MAX_SCHED_US:e} us)",
                number(v)
            ));
        }
    }
    Ok(())
}

/// The most flows of a stream cell: the stream world simulates up to 16 (`skblab measure`
/// writes at most 8).
pub const MAX_STREAM_FLOWS: f64 = 16.0;

/// The stream suite taken strictly, as the fit simulates its cells: throughput in Mbit/s, and
/// the setting `{flows, msg_bytes, order}` with values the stream world runs as given (whole
/// flows in 1..=16, sends a multiple of 4 KiB up to 64 KiB, order 0 or 3). A cell outside
/// them would be predicted at other values than the ones it names, without a word.
fn check_stream(s: &Suite) -> Result<(), String> {
    let want = plan::stream_cell(&plan::Options::default(), 1, 64, 3);
    for c in &s.cells {
        let at = format!("suite stream, cell '{}'", short(&c.id));
        if c.metric != want.metric || c.unit != want.unit {
            return Err(format!(
                "{at}: metric '{}' in '{}', expected '{}' in '{}'",
                short(&c.metric),
                short(&c.unit),
                want.metric,
                want.unit
            ));
        }
        let keys: Vec<&str> = c.setting.keys().map(String::as_str).collect();
        if keys != ["flows", "msg_bytes", "order"] {
            return Err(format!("{at}: setting {{{}}}, expected {{flows, msg_bytes, order}}", short(&keys.join(", "))));
        }
        let whole_in = |x: f64, max: f64| x.fract() == 0.0 && (1.0..=max).contains(&x);
        let (flows, bytes, order) = (c.setting["flows"], c.setting["msg_bytes"], c.setting["order"]);
        if !(whole_in(flows, MAX_STREAM_FLOWS) && whole_in(bytes / 4096.0, 16.0) && (order == 0.0 || order == 3.0)) {
            return Err(format!(
                "{at}: flows {}, msg_bytes {}, order {}: expected flows a whole 1..={MAX_STREAM_FLOWS}, msg_bytes a multiple of 4096 in 4096..=65536 and order 0 or 3",
                number(flows),
                number(bytes),
                number(order)
            ));
        }
    }
    Ok(())
}

/// The layout suite taken strictly: only the cells `skblab measure` writes (the sizes the fit
/// holds the model's layout against), each in its unit.
fn check_layout(s: &Suite) -> Result<(), String> {
    let known = plan::plan("layout", &plan::Options::default()).map(|p| p.cells).unwrap_or_default();
    for c in &s.cells {
        let at = format!("suite layout, cell '{}'", short(&c.id));
        let Some(k) = known.iter().find(|k| k.id == c.id) else {
            let names: Vec<&str> = known.iter().map(|k| k.id.as_str()).collect();
            return Err(format!("{at}: not a layout cell (expected one of {})", names.join(", ")));
        };
        if c.metric != k.metric || c.unit != k.unit || !c.setting.is_empty() {
            return Err(format!(
                "{at}: metric '{}' in '{}' with {} settings, expected '{}' in '{}' with none",
                short(&c.metric),
                short(&c.unit),
                c.setting.len(),
                k.metric,
                k.unit
            ));
        }
    }
    Ok(())
}

/// A number of the file as a message shows it: short (`1e300` or `1e-300`, not three hundred
/// digits).
fn number(x: f64) -> String {
    if x == 0.0 || (1e-6..1e9).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// User text as an error may echo it (bounded, no control characters).
fn short(s: &str) -> String {
    crate::params::echo(s)
}

fn one_line(s: &str) -> String {
    crate::params::echo_within(s, 300)
}

/// A JSON value whose objects repeat no key: serde_json keeps the last of two equal keys
/// silently, so `{"cpus": 2, "cpus": 4096}` would mean whatever the reader picked. Parsed
/// like [`serde_json::Value`] (its depth limit too), refused at the second key.
struct Unique(serde_json::Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Unique, D::Error> {
        d.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> serde::de::Visitor<'de> for UniqueVisitor {
    type Value = serde_json::Value;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut v = Vec::new();
        while let Some(Unique(x)) = seq.next_element()? {
            v.push(x);
        }
        Ok(serde_json::Value::Array(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut m = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if m.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "the key '{}' appears twice in one object (expected each key once)",
                    short(&key)
                )));
            }
            let Unique(v) = map.next_value()?;
            m.insert(key, v);
        }
        Ok(serde_json::Value::Object(m))
    }
}
