//! The rr suite predicted: `sockperf ping-pong --tcp` over 127.0.0.1, `flows` client/server
//! pairs at once ([`super::plan`]'s `rr` cells). sockperf's `avg-lat` is half the mean round
//! trip (`client_statistics` in sockperf's src/client.cpp divides each round trip by 2
//! unless `--full-rtt`; the suite does not pass it), so a cell is one half trip.
//!
//! What Linux does: one half trip is the sender's `sendmsg` (syscall, `tcp_sendmsg` into a
//! fresh skb, `tcp_write_xmit`, IP, `loopback_xmit`), the receive softirq run on the
//! sender's CPU when it re-enables bottom halves (`ip_rcv` .. `tcp_v4_rcv`, the queueing and
//! `sock_def_readable`'s sync wakeup of the blocked reader), then the reader's CPU running it
//! (`sim::sched`: on the waker's CPU, or on another one after the IPI and that CPU's exit
//! from idle) and its `recvmsg` returning the bytes; the reply is the next half trip, the
//! other way. The sender meanwhile enters its own `recvmsg` and sleeps in `sk_wait_data`.
//!
//! What we simplify: a half trip is the sum of those steps on its critical path (the
//! sender's own return and sleep overlap the wakeup when the reader runs elsewhere, and
//! precede it when both share a CPU, where they are the syscall counted once per `recvmsg`);
//! the per-segment costs are the ones the stream prediction runs on (`syscall_cycles`,
//! `tcp_skb_cycles` both halves, `tcp_recvmsg_skb_cycles`, `tcp_frag_cycles` once, `skb_cycles`
//! and a SLUB alloc and free of the head), the message's bytes cost nothing. Placement: the
//! pairs' runnable tasks spread over the CPUs; while a CPU is left idle each wakeup goes to
//! one (a remote wakeup from idle), once every CPU has a pair the wakee stays with its
//! waker and pairs beyond one per CPU queue behind each other (a half trip takes
//! `flows / cpus` of them). The clock is the turbo of the busy CPUs
//! ([`MachineProfile::socket_mhz`]).

use super::file::Cell;
use crate::sim::catalogue::KernelCosts;
use crate::sim::machine::{cycles_to_ns, MachineProfile};
use crate::sim::sched::{ping_pong, WakeCosts, WakePath};

/// One half trip of one pair, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfTrip {
    /// The sender's `sendmsg` with the loopback transmit and the softirq receive.
    pub send_ns: f64,
    /// The reader's `recvmsg` after it runs again.
    pub recv_ns: f64,
    /// Where the reader ran and what waking it cost.
    pub wake: WakePath,
    /// Pairs sharing one CPU's turn (1: one pair per CPU or fewer).
    pub queued: f64,
}

impl HalfTrip {
    /// The half round trip sockperf reports, ns.
    pub fn total_ns(&self) -> f64 {
        let one = self.send_ns + self.wake.waker_ns + self.wake.latency_ns + self.wake.wakee_ns + self.recv_ns;
        one * self.queued
    }
}

/// A half trip of `flows` pairs on `p`'s CPUs with `k`'s kernel costs (`p` carries the TCP
/// per-segment cost, the catalogue's or a fitted one), both tasks of each pair pinned to one
/// CPU when `pinned_together`.
pub fn half_trip(p: &MachineProfile, k: &KernelCosts, flows: u32, pinned_together: bool) -> HalfTrip {
    let cpus = p.n_cpus().max(1);
    let flows = flows.max(1);
    let busy = if pinned_together { 1 } else { flows.min(cpus) };
    let mhz = p.socket_mhz(busy);
    let ns = |cycles: u64| cycles_to_ns(cycles, mhz) as f64;
    let head = 2 * k.slub_fast_cycles.int() + k.skb_cycles.int();
    let send_ns = ns(p.syscall_cycles + p.skb_tx_cycles + p.frag_cycles + head);
    let recv_ns = ns(p.syscall_cycles + p.skb_rx_cycles);
    let costs = WakeCosts::from_kernel(k, mhz);
    let others = if pinned_together { 0 } else { (flows - 1).min(cpus - 1) as usize };
    // The CPU a remote wakee leaves has been idle for about one half trip of work.
    let idle_ns = send_ns + recv_ns + costs.ttwu_ns + costs.schedule_ns + costs.shallow_exit_ns;
    let wake = ping_pong(cpus as usize, others, pinned_together, &costs, idle_ns);
    let queued = if pinned_together { f64::from(flows) } else { (f64::from(flows) / f64::from(cpus)).max(1.0) };
    HalfTrip { send_ns, recv_ns, wake, queued }
}

/// The predicted value of one rr cell, µs (what sockperf's `avg-lat` reports).
pub fn predict_cell(p: &MachineProfile, k: &KernelCosts, c: &Cell) -> f64 {
    let flows = c.get("flows").unwrap_or(1.0).round().clamp(1.0, 64.0) as u32;
    half_trip(p, k, flows, false).total_ns() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::catalogue::{self, Era, FamilyId, EMR_GUEST_2026};

    fn emr(cpus: u32) -> MachineProfile {
        MachineProfile::from_catalogue("t", catalogue::family(FamilyId::EmrGuest), &EMR_GUEST_2026, 1, cpus, 1)
    }

    #[test]
    fn one_pair_on_two_cpus_pays_a_remote_wakeup_from_idle_and_two_pairs_do_not() {
        let k = catalogue::kernel(FamilyId::EmrGuest, Era::Linux2026).unwrap();
        let one = half_trip(&emr(2), k, 1, false);
        assert!(one.wake.remote && one.wake.from_idle);
        let two = half_trip(&emr(2), k, 2, false);
        assert!(!two.wake.remote && two.wake.latency_ns == 0.0 && two.queued == 1.0);
        assert!(one.total_ns() > two.total_ns() + k.wake_latency_ns.value * 0.9);
        // Four pairs on two CPUs queue two deep.
        assert_eq!(half_trip(&emr(2), k, 4, false).queued, 2.0);
    }
}
