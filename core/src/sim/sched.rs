//! Tasks that block and are woken: where the wakee runs, and what the wakeup costs the waker,
//! the wire between the CPUs and the wakee.
//!
//! What Linux does (6.x; `kernel/sched/fair.c` read in the form it has after aa3ee4f0b754,
//! "sched/fair: Fixup wake_up_sync() vs DELAYED_DEQUEUE", merged for 6.16, the form the
//! 6.18 guests run; Tingjia Cao's report of 2025-10-28 against v6.18-rc3,
//! <CABcWv98gu6HqbOEoOPBL4tJrcGmU=1x3=fN3Fpho8wiY+D22CQ@mail.gmail.com>, describes the same
//! code): a reader that finds its receive queue empty sleeps in `sk_wait_data`, a sender
//! that finds its send buffer full in `sk_stream_wait_memory`; both release the socket and
//! call `schedule()`. The data's arrival (`sock_def_readable` →
//! `wake_up_interruptible_sync_poll`, a *sync* wakeup: the waker says it is about to sleep)
//! or the ACK that frees buffer space (`sk_stream_write_space`) calls `try_to_wake_up`,
//! which asks `select_task_rq_fair` for the wakee's CPU:
//! - a task allowed on one CPU only goes there (`select_task_rq` in core.c);
//! - `wake_affine` between the waker's CPU (`this_cpu`) and the wakee's previous one:
//!   `wake_affine_idle` takes `this_cpu` if it is idle and shares the LLC (then `prev` if
//!   that is idle too), `this_cpu` on a sync wakeup when the waker is its only runnable task,
//!   else `prev` if it is idle; otherwise `wake_affine_weight` compares loads;
//! - `select_idle_sibling(p, prev, target)` then keeps `target` only if it is idle; else an
//!   idle `prev` that shares the LLC; else `p->recent_used_cpu` if idle; else the first idle
//!   CPU of the LLC scanned from `target + 1` (`select_idle_cpu`); else `target`.
//!
//! So a sync wakeup's `this_cpu` is refused while the waker still runs on it: on a machine
//! with an idle CPU the wakee goes there (the report above calls it a bug; 6.18 does it).
//! A remote wakee is queued on its CPU's wake list (`ttwu_queue_wakelist`) and that CPU gets
//! an IPI unless it polls (`set_nr_if_polling`). An idle CPU leaves its idle state first: on
//! bare metal the exit latency of the C-state the cpuidle governor chose (intel_idle's
//! tables: Skylake-SP C1 2 us, C1E 10 us, C6 133 us with a 600 us target residency), on a
//! KVM guest the vCPU executed HLT, and either the guest polled (cpuidle `haltpoll`:
//! `guest_halt_poll_ns`, 0 on the measured guests; enabling it writes `MSR_KVM_POLL_CONTROL`
//! = 0, which turns the host's polling off) or the host's `kvm_vcpu_halt`
//! (virt/kvm/kvm_main.c) polled for `vcpu->halt_poll_ns` (unchanged when a halt ends inside
//! the window, grown when it ends after the window but below the maximum, shrunk when it
//! exceeds the maximum) and then blocked the vCPU thread in `kvm_vcpu_block` → `schedule()`; the IPI is
//! an APIC write the host turns into a kick of that thread, which wakes on a host CPU and
//! enters the guest with the interrupt injected. Then the wakee's CPU runs `schedule()` and
//! the wakee returns from its syscall.
//!
//! What we simplify: one LLC (every simulated CPU shares it; the measured guests have two
//! vCPUs), no SMT preference, no `wake_wide` (a 1:1 ping-pong is never wide), no
//! `recent_used_cpu` apart from the scan, and `wake_affine_weight` as a comparison of
//! runnable counts. A CPU is idle or runs tasks (no polling idle task, no preempted vCPU:
//! `vcpu_is_preempted`). What a wakeup costs is three numbers of the catalogue
//! (`KernelCosts`): `wakeup_cycles`, half of it `try_to_wake_up` on the waker (the IPI's
//! send included) and half the wakee's `schedule()`, as the TCP_STREAM world splits it;
//! `wake_latency_ns`, from the IPI to the woken task running on an idle CPU that sleeps in a
//! shallow state (on a guest: the halted vCPU resumed by its host); and `idle_exit_ns`, the
//! exit of the deep state an idle CPU reaches when it expects to stay idle at least
//! [`DEEP_RESIDENCY_NS`] (the measured guests have one idle state, HLT, and both figures
//! alike). A wakeup of an idle CPU also costs the waker the IPI's send (`ipi_send_ns`; on a
//! KVM guest its exit), during which the wakee's CPU is already leaving its idle state: the
//! exits count from the start of the send. The host's halt polling is a window
//! ([`WakeCosts::host_poll_ns`]): a wakeup that ends a halt inside it costs no exit. Pure
//! functions, deterministic.

use super::catalogue::KernelCosts;
use super::machine::cycles_to_ns;

/// Target residency of the deepest state whose exit is `idle_exit_ns`: the cpuidle governor
/// picks it only for an idle period expected to last at least this long (intel_idle.c
/// `skx_cstates`, C6: `target_residency = 600`, `exit_latency = 133`); shorter periods
/// sleep in a shallow state, woken in `wake_latency_ns`.
pub const DEEP_RESIDENCY_NS: u64 = 600_000;

/// What one CPU is doing when a wakeup looks at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuView {
    /// Tasks on its runqueue, the running one included (0: idle).
    pub nr_running: u32,
}

impl CpuView {
    pub const IDLE: CpuView = CpuView { nr_running: 0 };
    /// `available_idle_cpu`: nothing runs or waits there.
    pub fn idle(self) -> bool {
        self.nr_running == 0
    }
}

/// One wakeup as `try_to_wake_up` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wakeup {
    /// The CPU the waker runs on (`smp_processor_id()`).
    pub waker_cpu: usize,
    /// The CPU the wakee last ran on (`task_cpu(p)`).
    pub prev_cpu: usize,
    /// `WF_SYNC`: the waker is about to sleep (`sock_def_readable`, pipes).
    pub sync: bool,
    /// The wakee's allowed CPUs (`p->cpus_ptr`); empty: every CPU.
    pub allowed: Vec<usize>,
}

/// Why [`select_cpu`] chose its CPU (the branch of `select_task_rq_fair` that returned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Allowed on one CPU only.
    Pinned,
    /// `target` (the waker's CPU or `prev`, as `wake_affine` said) was idle.
    IdleTarget,
    /// `prev` was idle and shares the LLC.
    IdlePrev,
    /// The LLC scan found an idle CPU.
    IdleSibling,
    /// Nothing idle: `target` itself.
    Target,
}

fn allowed(w: &Wakeup, cpu: usize) -> bool {
    w.allowed.is_empty() || w.allowed.contains(&cpu)
}

/// `wake_affine`: `this_cpu` or `prev` as the target of `select_idle_sibling`.
fn wake_affine(cpus: &[CpuView], w: &Wakeup) -> usize {
    let (this, prev) = (w.waker_cpu, w.prev_cpu);
    if this == prev || !allowed(w, this) {
        return prev;
    }
    // wake_affine_idle()
    if cpus[this].idle() {
        return if cpus[prev].idle() { prev } else { this };
    }
    if w.sync && cpus[this].nr_running == 1 {
        return this;
    }
    if cpus[prev].idle() {
        return prev;
    }
    // wake_affine_weight(), as runnable counts: with a sync wakeup the waker's own load is
    // taken off this_cpu; a tie goes to this_cpu (sync: `prev_eff_load += 1`; otherwise the
    // WA_BIAS scaling of prev's load by 100 + (imbalance_pct - 100) / 2).
    let here = cpus[this].nr_running.saturating_sub(u32::from(w.sync)) + 1;
    if here <= cpus[prev].nr_running {
        this
    } else {
        prev
    }
}

/// The wakee's CPU, as `select_task_rq_fair` chooses it on one LLC of `cpus`.
pub fn select_cpu(cpus: &[CpuView], w: &Wakeup) -> (usize, Choice) {
    if w.allowed.len() == 1 {
        return (w.allowed[0], Choice::Pinned);
    }
    let target = wake_affine(cpus, w);
    let prev = w.prev_cpu;
    if cpus[target].idle() && allowed(w, target) {
        return (target, Choice::IdleTarget);
    }
    if prev != target && cpus[prev].idle() && allowed(w, prev) {
        return (prev, Choice::IdlePrev);
    }
    // select_idle_cpu(): from target + 1, wrapping.
    let n = cpus.len();
    if let Some(c) = (1..n).map(|k| (target + k) % n).find(|&c| cpus[c].idle() && allowed(w, c)) {
        return (c, Choice::IdleSibling);
    }
    (target, Choice::Target)
}

/// What waking costs on one machine, in ns.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct WakeCosts {
    /// `try_to_wake_up` on the waker: the CPU choice, the enqueue or the wake-list entry and
    /// the IPI's send (half of `wakeup_cycles`).
    pub ttwu_ns: f64,
    /// The wakee's CPU switching to it (`schedule()`: the other half of `wakeup_cycles`).
    pub schedule_ns: f64,
    /// From the IPI to the wakee's CPU running again, out of a shallow idle state
    /// (`wake_latency_ns`).
    pub shallow_exit_ns: f64,
    /// The same out of the deep state (`idle_exit_ns`).
    pub deep_exit_ns: f64,
    /// A halt that ends within this long was polled for (the host's `halt_poll_ns` on a KVM
    /// guest, the guest's `guest_halt_poll_ns`): its wakeup costs no exit.
    pub host_poll_ns: f64,
    /// The waker's CPU sending the wakeup IPI to another, idle CPU (`ipi_send_ns`): on a KVM
    /// guest the exit of the send. The exits above count from the start of the send (the
    /// guests' figures are whole wakeups), so the wakee's CPU runs `exit − ipi_send_ns` after
    /// the waker is done with it, never earlier than that.
    pub ipi_send_ns: f64,
}

impl WakeCosts {
    /// The catalogue's costs at `mhz` (the clock of the CPUs involved), no polling.
    pub fn from_kernel(k: &KernelCosts, mhz: u64) -> WakeCosts {
        let half = cycles_to_ns(k.wakeup_cycles.int(), mhz) as f64 / 2.0;
        WakeCosts {
            ttwu_ns: half,
            schedule_ns: half,
            shallow_exit_ns: k.wake_latency_ns.value,
            deep_exit_ns: k.idle_exit_ns.value,
            host_poll_ns: 0.0,
            ipi_send_ns: k.ipi_send_ns.value,
        }
    }

    /// The exit of a CPU that has been idle for `idle_ns` when the IPI reaches it (the
    /// governor chose by the period it expected, which we take to be the one it got).
    pub fn exit_ns(&self, idle_ns: f64) -> f64 {
        if idle_ns <= self.host_poll_ns {
            0.0
        } else if idle_ns >= DEEP_RESIDENCY_NS as f64 {
            self.deep_exit_ns
        } else {
            self.shallow_exit_ns
        }
    }
}

/// One wakeup's cost, split as the time line sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WakePath {
    pub cpu: usize,
    pub choice: Choice,
    /// Another CPU than the waker's: an IPI went out.
    pub remote: bool,
    /// The wakee's CPU was idle and had to leave its idle state.
    pub from_idle: bool,
    /// Time the waker's CPU spends (`try_to_wake_up`, and the IPI's send to an idle CPU).
    pub waker_ns: f64,
    /// From the end of the waker's `try_to_wake_up` until the wakee's CPU may run it: what
    /// is left of the idle exit, which counts from the IPI's send (0 on the waker's own CPU).
    pub latency_ns: f64,
    /// The wakee's CPU switching to it.
    pub wakee_ns: f64,
}

/// Wakes a task: its CPU ([`select_cpu`]) and what that costs, the wakee's CPU having been
/// idle `idle_ns` if it is idle.
pub fn wake(cpus: &[CpuView], w: &Wakeup, c: &WakeCosts, idle_ns: f64) -> WakePath {
    let (cpu, choice) = select_cpu(cpus, w);
    let remote = cpu != w.waker_cpu;
    let from_idle = remote && cpus[cpu].idle();
    let ipi = if from_idle { c.ipi_send_ns } else { 0.0 };
    WakePath {
        cpu,
        choice,
        remote,
        from_idle,
        waker_ns: c.ttwu_ns + ipi,
        latency_ns: if from_idle { (c.exit_ns(idle_ns) - ipi).max(0.0) } else { 0.0 },
        wakee_ns: c.schedule_ns,
    }
}

/// A ping-pong pair's steady state on `n_cpus` CPUs, with `other_busy` of the other CPUs
/// kept busy by other work: where the wakee of each half trip runs. Each side blocks after
/// its send (sync wakeup), so its own CPU idles unless something else runs there.
pub fn ping_pong(n_cpus: usize, other_busy: usize, pinned_together: bool, c: &WakeCosts, idle_ns: f64) -> WakePath {
    // The waker runs alone on CPU 0; the wakee last ran on CPU 1 unless both are pinned to
    // CPU 0; CPUs from 2 on, and CPU 1 when `other_busy` covers it, run other tasks.
    let n = n_cpus.max(1);
    let prev = if pinned_together || n == 1 { 0 } else { 1 };
    let mut cpus = vec![CpuView::IDLE; n];
    cpus[0].nr_running = 1;
    for (k, cpu) in cpus.iter_mut().enumerate().skip(1) {
        if k <= other_busy {
            cpu.nr_running = 1;
        }
    }
    let w =
        Wakeup { waker_cpu: 0, prev_cpu: prev, sync: true, allowed: if pinned_together { vec![0] } else { vec![] } };
    wake(&cpus, &w, c, idle_ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::catalogue::{EMR_GUEST_2026, SKYLAKE_SP_2019};

    fn views(running: &[u32]) -> Vec<CpuView> {
        running.iter().map(|&n| CpuView { nr_running: n }).collect()
    }
    fn sync_wake(this: usize, prev: usize) -> Wakeup {
        Wakeup { waker_cpu: this, prev_cpu: prev, sync: true, allowed: vec![] }
    }

    #[test]
    fn a_sync_wakeup_leaves_the_busy_waker_cpu_for_an_idle_prev() {
        // 6.18: wake_affine_idle says this_cpu, select_idle_sibling refuses it (not idle).
        assert_eq!(select_cpu(&views(&[1, 0]), &sync_wake(0, 1)), (1, Choice::IdlePrev));
        // Both last ran on CPU 0, CPU 1 idle: the scan finds it.
        assert_eq!(select_cpu(&views(&[1, 0]), &sync_wake(0, 0)), (1, Choice::IdleSibling));
        // Nothing idle: the waker's CPU (the sync wakeup's target).
        assert_eq!(select_cpu(&views(&[1, 1]), &sync_wake(0, 1)), (0, Choice::Target));
        // An idle waker CPU (a wakeup from an interrupt on an idle CPU) sharing the LLC.
        assert_eq!(select_cpu(&views(&[0, 1]), &sync_wake(0, 1)), (0, Choice::IdleTarget));
    }

    #[test]
    fn a_pinned_task_goes_to_its_cpu_whatever_is_idle() {
        let w = Wakeup { waker_cpu: 0, prev_cpu: 0, sync: true, allowed: vec![0] };
        assert_eq!(select_cpu(&views(&[1, 0, 0]), &w), (0, Choice::Pinned));
        // The waker's CPU not allowed: no wake_affine, prev is the target.
        let w = Wakeup { waker_cpu: 0, prev_cpu: 2, sync: false, allowed: vec![1, 2] };
        assert_eq!(select_cpu(&views(&[1, 1, 0]), &w), (2, Choice::IdleTarget));
        assert_eq!(select_cpu(&views(&[1, 0, 1]), &w), (1, Choice::IdleSibling));
    }

    #[test]
    fn without_sync_a_busier_waker_cpu_sends_the_wakee_to_prev() {
        let w = Wakeup { waker_cpu: 0, prev_cpu: 1, sync: false, allowed: vec![] };
        assert_eq!(select_cpu(&views(&[3, 1]), &w), (1, Choice::Target));
        assert_eq!(select_cpu(&views(&[1, 2]), &w), (0, Choice::Target));
    }

    #[test]
    fn a_remote_idle_wakee_pays_the_exit_and_a_local_one_does_not() {
        let c = WakeCosts::from_kernel(&EMR_GUEST_2026, 3900);
        let cross = ping_pong(2, 0, false, &c, 20_000.0);
        assert!(cross.remote && cross.from_idle && cross.cpu == 1);
        // The waker sends the IPI; the exit counts from the send.
        assert_eq!(cross.waker_ns - c.ttwu_ns, EMR_GUEST_2026.ipi_send_ns.value);
        assert_eq!(cross.waker_ns - c.ttwu_ns + cross.latency_ns, EMR_GUEST_2026.wake_latency_ns.value);
        let pinned = ping_pong(2, 0, true, &c, 20_000.0);
        assert!(!pinned.remote && !pinned.from_idle && pinned.latency_ns == 0.0);
        // The other CPU busy: the wakee stays with the waker.
        let busy = ping_pong(2, 1, false, &c, 20_000.0);
        assert!(!busy.remote && busy.latency_ns == 0.0);
        assert_eq!(busy.choice, Choice::Target);
        // try_to_wake_up + schedule() is the catalogue's wakeup_cycles.
        let want = cycles_to_ns(EMR_GUEST_2026.wakeup_cycles.int(), 3900) as f64;
        assert!((busy.waker_ns + busy.wakee_ns - want).abs() < 1.0);
    }

    #[test]
    fn the_exit_follows_the_idle_period_and_the_poll_window() {
        let mut c = WakeCosts::from_kernel(&SKYLAKE_SP_2019, 3000);
        assert_eq!(c.exit_ns(50_000.0), SKYLAKE_SP_2019.wake_latency_ns.value);
        assert_eq!(c.exit_ns(1_000_000.0), SKYLAKE_SP_2019.idle_exit_ns.value);
        c.host_poll_ns = 60_000.0;
        assert_eq!(c.exit_ns(50_000.0), 0.0);
        assert_eq!(c.exit_ns(70_000.0), SKYLAKE_SP_2019.wake_latency_ns.value);
        // Raising either exit raises the wakeup that pays it.
        let base = wake(&views(&[1, 0]), &sync_wake(0, 1), &c, 1_000_000.0).latency_ns;
        c.deep_exit_ns *= 2.0;
        assert!(wake(&views(&[1, 0]), &sync_wake(0, 1), &c, 1_000_000.0).latency_ns > base);
    }
}
