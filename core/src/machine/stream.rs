//! The stream world of a measurement: how a measured TCP_STREAM cell becomes a run of
//! high-order-alloc's world on the machine's profile (its parameters from the file's CPUs,
//! kernel and per-CPU lists; the cell's flows, send size and order; waiting from the
//! family's kernel costs), what one run gives ([`StreamRun`]: Mbit/s and idle shares), and
//! the state suite's measured idle share the idle point is held against.

use super::file::{Cell, Measurement};
use super::profile::profile;
use crate::experiments::high_order_alloc::{config_on, FragOrder, HighOrderAlloc, StreamSim, Waiting, MAX_CPUS};
use crate::sim::catalogue::{FamilyId, KernelCosts};
use crate::sim::world::World as _;
use crate::{Experiment as _, Params};

/// The seed of every simulated run (one seed: a cell's seed-to-seed spread is ~1–7 %,
/// docs/high-order-alloc.md, below the machine's own run-to-run spread).
pub const SEED: u64 = 1;

/// One simulated stream cell: Mbit/s, the idle share of the CPUs its threads ran on and
/// each CPU's (0..=1).
#[derive(Debug, Clone, Default)]
pub(super) struct StreamRun {
    pub(super) mbps: f64,
    pub(super) idle: f64,
    pub(super) idle_cpus: Vec<f64>,
}

/// The stream cell the state suite's recorded run repeats: 1 flow, 64 KiB sends, order 3.
pub(super) fn is_idle_run(c: &Cell) -> bool {
    c.get("flows") == Some(1.0) && c.get("msg_bytes") == Some(65536.0) && c.get("order") == Some(3.0)
}

/// The idle point's cell id.
pub const IDLE_CELL: &str = "idle-1flow-64k";

/// The state suite's measured idle share, percent: samples of its `perf record -a` whose
/// stack runs through `do_idle` (the idle task, `swapper`), over the samples the recording
/// took (`-F` per second × seconds × CPUs, read from its command; the folded text keeps only
/// the heaviest stacks, so its own sum may fall short), or over the folded sum when larger.
pub fn measured_idle_pct(m: &Measurement) -> Option<f64> {
    let state = m.suites.get("state")?;
    let folded = state.texts.get("perf_folded")?;
    let (idle, total) = super::tools::folded_idle_samples(folded);
    let expected = state.commands.iter().find_map(|c| super::tools::perf_record_samples(c, m.machine.cpus));
    let total = total.max(expected.unwrap_or(0.0));
    (total > 0.0).then(|| 100.0 * idle / total)
}

/// high-order-alloc's parameters for this machine: one socket of `cpus` cores, no SMT,
/// high-order per-CPU lists (5.14+), the measured pageset when the state suite has it.
pub(super) fn stream_params(m: &Measurement, notes: &mut Vec<String>) -> Result<Params, String> {
    let cpus = m.machine.cpus.min(MAX_CPUS);
    let major: u32 = m.kernel.release.split('.').next().and_then(|s| s.parse().ok()).unwrap_or(6);
    let mut set = vec![format!("sockets=1"), format!("cpus={cpus}"), "smt=false".to_string()];
    set.push(format!("pcp_high_order={}", major >= 6));
    let state = m.cells("state");
    let get = |id: &str| state.iter().find(|c| c.id == id).map(|c| c.median.round() as i64);
    match (get("pcp-high"), get("pcp-batch")) {
        (Some(h), Some(b)) => {
            let (high, batch) = (h.clamp(8, 8192), b.clamp(1, 512.min(h.clamp(8, 8192))));
            if (high, batch) != (h, b) {
                notes.push(format!(
                    "the state suite's per-CPU list high {h} and batch {b} are outside high-order-alloc's ranges (high 8..=8192 pages, batch 1..=512 and at most high): simulated with high {high} and batch {batch}"
                ));
            }
            set.push(format!("pcp_high={high}"));
            set.push(format!("pcp_batch={batch}"));
        }
        _ => notes.push("no state suite: the per-CPU lists use the 2019 server's high/batch".to_string()),
    }
    HighOrderAlloc.params_from(&set).map_err(|e| format!("cannot build this machine's run: {e}"))
}

/// One stream cell simulated on `family`'s cores, with waiting ([`Waiting`] from `kernel`):
/// Mbit/s and the idle share of the CPUs its threads ran on (0..=1).
pub(super) fn simulate(
    params: &Params,
    c: &Cell,
    cpus: u32,
    on: (FamilyId, &KernelCosts),
    tcp_skb_cycles: f64,
) -> StreamRun {
    let (family, kernel) = on;
    let mut p = params.clone();
    let bytes = c.get("msg_bytes").unwrap_or(16384.0).round().clamp(4096.0, 65536.0) as i64;
    if p.set("msg_bytes", crate::Value::Int(bytes / 4096 * 4096)).is_err() {
        return StreamRun::default();
    }
    let flows = flows_of(c);
    let order = FragOrder::from_order(c.get("order").unwrap_or(3.0).round() as u32);
    let cpus = cpus.clamp(1, MAX_CPUS);
    let machine = profile(cpus, family, tcp_skb_cycles);
    let mhz = machine.socket_mhz(flows.min(cpus));
    let mut cfg = config_on(machine, &p, flows, order);
    cfg.waiting = Some(Waiting::from_kernel(kernel, mhz));
    let mut sim = StreamSim::new(cfg, SEED);
    sim.run();
    StreamRun { mbps: sim.throughput_mbps(), idle: sim.idle_share_of_used(), idle_cpus: sim.idle_shares() }
}

/// A stream cell's flows, as simulated (1..=16).
pub(super) fn flows_of(c: &Cell) -> u32 {
    c.get("flows").unwrap_or(1.0).round().clamp(1.0, 16.0) as u32
}
