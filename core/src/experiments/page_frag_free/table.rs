//! The result table of page-frag-free: its columns, when each is meaningful, the row of a
//! pair before and after the fix, and the views and notes of a run.

use super::machines::ForwardingBox;
use super::runs::{drop_pct, pair_worlds, Pair, RunSummary, Shares};
use super::{Fix, Input, ID, WIRE_OVERHEAD_BYTES};
use crate::model::Runner;
use crate::output::{mark_row, round, Cell, Column, Meaning, Row, RunOutput, TextView, MISSING};
use crate::params::Choice;
use crate::sim::qspinlock::LOCK_STAT_HEADER;

const COLUMNS: [(&str, &str); 15] = [
    ("mpps", "Mpps"),
    ("gbps", "Gbit/s"),
    ("mpps_before", "Mpps"),
    ("mpps_after", "Mpps"),
    ("gain_pct", "%"),
    ("napi_consume_skb_pct", "%"),
    ("free_pages_ok_pct", "%"),
    ("free_one_page_pct", "%"),
    ("free_one_page_self_pct", "%"),
    ("spin_free_pct", "%"),
    ("spin_pct", "%"),
    ("free_pcppages_bulk_pct", "%"),
    ("rmqueue_bulk_pct", "%"),
    ("zone_lock_per_kpkt", "acquisitions"),
    ("drop_pct", "%"),
];

pub(super) fn columns() -> Vec<Column> {
    let mut c = vec![Column::new("fix", "")];
    c.extend(COLUMNS.iter().map(|(n, u)| {
        match *n {
            "gain_pct" => Column::new(n, u)
                .signed("after vs before the fix: slightly negative when the allocator does not matter (jitter)"),
            _ => Column::new(n, u),
        }
    }));
    c
}

fn round2(v: f64) -> Cell {
    Cell::Float(round(v, 2))
}

/// What the bases of [`meanings`] count.
const FORWARDED: &str = "packets forwarded in the measured window";
const FORWARDED_BOTH: &str = "packets forwarded in the window by each kernel (before and after the fix)";
const OFFERED: &str = "packets offered in the window";
const STEADY: &str = "pages freed per freeing CPU since the start (pcp_high: a per-CPU list's steady state)";
const UNCAPPED: &str = "runs, before and after, that reached the end of their window (a cap of 20,000,000 events)";

/// When each column means something: throughput and shares need packets counted, the
/// before/after columns in both runs, the drop share offered packets; all of them the
/// per-CPU lists in their steady state and runs the event cap did not stop.
pub(super) fn meanings(i: &Input) -> Vec<Meaning> {
    let n = Meaning::MIN_COUNTED;
    let mut m = vec![Meaning::always("fix", "a parameter")];
    for (name, _) in COLUMNS {
        let what = match name {
            "mpps_before" | "mpps_after" | "gain_pct" => FORWARDED_BOTH,
            "drop_pct" => OFFERED,
            _ => FORWARDED,
        };
        m.push(Meaning::at_least(name, n, what));
        m.push(Meaning::at_least(name, u64::from(i.pcp_high), STEADY));
        m.push(Meaning::at_least(name, 2, UNCAPPED));
    }
    m
}

/// What one pair counted, for [`meanings`].
fn counts(i: &Input, p: &Pair) -> [(&'static str, u64); 5] {
    let chosen = if i.fix == Fix::Before { &p.before } else { &p.after };
    let both = p.before.stats.forwarded.min(p.after.stats.forwarded);
    let offered = (i.offered_pps() as f64 * i.measure_us as f64 / 1e6) as u64;
    // Pages each TX-completing CPU freed since the start: the window's rate over the whole run.
    let freeing_cpus = u64::from(i.rx_queues.min(i.logical_cpus()).max(1));
    let steady = both.saturating_mul(i.warmup_us_run() + i.measure_us) / i.measure_us.max(1) / freeing_cpus;
    let uncapped = [&p.before, &p.after].iter().filter(|r| !r.outcome.truncated).count() as u64;
    [
        (FORWARDED, chosen.stats.forwarded),
        (FORWARDED_BOTH, both),
        (OFFERED, offered),
        (STEADY, steady),
        (UNCAPPED, uncapped),
    ]
}

pub(super) fn row_of(i: &Input, p: &Pair) -> Row {
    let mut row = row_values(i, p);
    mark_row(&mut row, &columns(), &meanings(i), &counts(i, p));
    row
}

fn row_values(i: &Input, p: &Pair) -> Row {
    let chosen = if i.fix == Fix::Before { &p.before } else { &p.after };
    let s = Shares::of(&chosen.flame);
    let pkts = chosen.stats.forwarded.max(1) as f64;
    let wire_bits = (f64::from(i.packet_bytes) + WIRE_OVERHEAD_BYTES as f64) * 8.0;
    vec![
        Cell::Text(i.fix.name().to_string()),
        Cell::Float(round(chosen.mpps, 3)),
        round2(chosen.mpps * wire_bits / 1000.0),
        Cell::Float(round(p.before.mpps, 3)),
        Cell::Float(round(p.after.mpps, 3)),
        round2(p.gain_pct),
        round2(s.napi_consume_skb),
        round2(s.free_pages_ok),
        round2(s.free_one_page),
        round2(s.free_one_page_self),
        round2(s.spin_free),
        round2(s.spin_all),
        round2(s.free_pcppages_bulk),
        round2(s.rmqueue_bulk),
        round2(chosen.stats.zone_lock_calls() as f64 * 1000.0 / pkts),
        round2(drop_pct(i, chosen)),
    ]
}

/// A run on `b` (the input's machine with perturbed constants): its row and views.
pub(super) fn run_on(b: &ForwardingBox, i: &Input, seed: u64) -> RunOutput {
    let p = pair_worlds(b, i, seed, &mut Runner::plain());
    let mut out = RunOutput::new(ID, seed, columns());
    out.push_row(row_of(i, &p));
    decorate(&mut out, i, &p);
    out
}

/// The views of the pair `p` (the chosen fix's perf report, lock stats and pagesets, the
/// flame graphs before and after) and the output's notes.
pub(super) fn decorate(out: &mut RunOutput, i: &Input, p: &Pair) {
    let chosen = if i.fix == Fix::Before { &p.before } else { &p.after };
    let l = &chosen.lock;
    let lock_stat = format!(
        "{LOCK_STAT_HEADER}\n{:>24}: {:>10} {:>10} {:>12.2} {:>14.2} {:>10} {:>12.2} {:>14.2}\n",
        "&zone->lock (all nodes)",
        l.contentions,
        l.acq_bounces,
        l.wait_ns_max as f64 / 1000.0,
        l.wait_ns_total as f64 / 1000.0,
        l.acquisitions,
        l.hold_ns_max as f64 / 1000.0,
        l.hold_ns_total as f64 / 1000.0,
    );
    let fx = i.fix.name();
    // A rate the table does not show (too few packets counted) is not quoted in a title either.
    let row = out.rows.first().cloned().unwrap_or_default();
    let shown =
        |col: &str| COLUMNS.iter().position(|(n, _)| *n == col).is_none_or(|k| row.get(k + 1) != Some(&Cell::Missing));
    let mpps = |col: &str, v: f64| if shown(col) { format!("{v:.2} Mpps") } else { format!("Mpps {MISSING}") };
    out.views = vec![
        TextView::new(
            "perf",
            format!("perf report, {fx} the fix: {}", mpps("mpps", chosen.mpps)),
            chosen.perf_text.clone(),
        ),
        TextView::new(
            "lock_stat",
            format!("/proc/lock_stat, zone->lock, {fx} the fix, whole run with warmup (times in us)"),
            lock_stat,
        ),
        TextView::new(
            "zoneinfo",
            format!("/proc/zoneinfo pagesets (first two busy CPUs), {fx} the fix"),
            chosen.zoneinfo.clone(),
        ),
    ];
    out.flames = vec![p.before.flame.clone(), p.after.flame.clone(), chosen.flame.clone()];
    out.flames[0].title = format!("before the fix: {}", mpps("mpps_before", p.before.mpps));
    out.flames[1].title = format!("after the fix: {}", mpps("mpps_after", p.after.mpps));
    // The chosen kernel's profile again, as the one graph that follows the `fix` knob.
    out.flames[2].id = "current".to_string();
    out.flames[2].title = format!("{fx} the fix: {}", mpps("mpps", chosen.mpps));
    // The counts the row was marked by: each note names the condition that failed.
    out.note_missing_counted(&meanings(i), &[&counts(i, p)]);
    if let Some(note) = overload_note(i, chosen).filter(|_| shown("drop_pct") && shown("mpps")) {
        out.notes.push(note);
    }
    if let Some(note) = drop_note(i, chosen).filter(|_| shown("drop_pct")) {
        out.notes.push(note);
    }
}

/// Drops above this share of the offered load are said in a note: the box carries a small
/// fraction of what the link offers (a valid setting, but one a reader should not take for a
/// forwarding measurement).
pub const OVERLOAD_DROP_PCT: f64 = 90.0;

/// Drops above this share of the offered load are explained in a note by where they happen.
pub const DROP_NOTE_PCT: f64 = 1.0;

/// Where a run past its knee loses packets, and what that does to zone->lock: the NIC drops
/// on a full RX ring before any CPU works on a packet (the carried load plateaus), a full send
/// queue drops after the stack's work and the receiving CPU frees the page (`kfree_skb` →
/// `page_frag_free`, under its own node's zone->lock before the fix), which mixes both
/// sockets' CPUs in that lock's FIFO queue: each handoff across sockets costs two
/// cross-socket line transfers, so the lock passes fewer pages per second.
fn drop_note(i: &Input, s: &RunSummary) -> Option<String> {
    let drop = drop_pct(i, s);
    let st = &s.stats;
    let pct = |n: u64| n as f64 * 100.0 / st.offered.max(1) as f64;
    let passes = st.zone_lock_calls().max(1) as f64;
    (drop >= DROP_NOTE_PCT).then(|| {
        format!(
            "drop_pct = {drop:.1} %: {:.1} % of the offered packets dropped by the NIC on a full RX ring (rx_out_of_buffer, no CPU work), {:.1} % on a full send queue after the stack's work (kfree_skb by the receiving CPU); zone->lock went across sockets in {:.0} % of its passes (two cross-socket line transfers each)",
            pct(st.rx_dropped),
            pct(st.tx_dropped),
            st.cross_socket_passes as f64 * 100.0 / passes
        )
    })
}

/// The note of a run that drops most of its offered load, if it does.
fn overload_note(i: &Input, s: &RunSummary) -> Option<String> {
    let drop = drop_pct(i, s);
    (drop >= OVERLOAD_DROP_PCT && s.stats.forwarded > 0).then(|| {
        format!(
            "drop_pct = {drop:.1} %: the box forwards {:.3} Mpps of the {:.3} Mpps offered (the RX rings overflow; the offered load is far above what it can carry)",
            s.mpps,
            i.offered_pps() as f64 / 1e6
        )
    })
}
