//! The parameters of `percpu-counter`: their spec (names, units, ranges, help, the kernel
//! name of each knob), `Input`, the one place that reads them by name into typed fields, and
//! the check that the cores split evenly over the sockets.

use super::{Counter, COSTS_2018, MAX_CORES, PAGE_BYTES, WORKLOAD};
use crate::params::{cores_split_evenly, ParamError, ParamSpec};
use crate::sim::machine::MAX_SOCKETS;

crate::params_input! {
    /// Every parameter of a run, typed: the one place that reads them by name.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Input {
        pub counter: Counter,
        pub sockets: u32,
        pub cpus: u32,
        pub smt: bool,
        pub connections: u32,
        pub sends_per_min: u32,
        pub send_bytes: u64,
        pub srtt_us: u64,
        pub hz: u32,
        pub skew_tick: bool,
        /// 0: the kernel's default, max(32, 2 × nr_cpus).
        pub batch: i64,
        pub reserve_bytes: i64,
        pub atomic_ns: u64,
        pub traffic_mb_s: u64,
        pub measure_us: u64,
        pub ram_gib: u32,
    }
}

impl Input {
    pub(super) fn threads(&self) -> u32 {
        if self.smt {
            2
        } else {
            1
        }
    }

    /// Logical CPUs with all `cpus` cores online.
    pub fn nr_cpus(&self) -> u32 {
        self.cpus * self.threads()
    }

    /// percpu_counter's batch at `nr_cpus`: the parameter, or lib/percpu_counter.c's
    /// `compute_batch_value()`: max(32, 2 × num_online_cpus).
    pub fn batch_at(&self, nr_cpus: u32) -> i64 {
        if self.batch > 0 {
            self.batch
        } else {
            default_batch(nr_cpus)
        }
    }

    pub fn reserve_pages(&self) -> i64 {
        (self.reserve_bytes / PAGE_BYTES).max(1)
    }
}

/// `SK_MEMORY_PCPU_RESERVE` (include/net/sock.h, 3cd3399dd7a8, v6.0): `1 << (20 - PAGE_SHIFT)`
/// pages, 1 MiB. The default reserve, and since 6.9 (12a686c2e761) the minimum of
/// `net.core.mem_pcpu_rsv`: the kernel refuses a smaller value with -EINVAL.
pub const MIN_RESERVE_BYTES: i64 = 1 << 20;

/// `compute_batch_value()` (lib/percpu_counter.c): max(32, 2 × nr_cpus).
pub fn default_batch(nr_cpus: u32) -> i64 {
    (2 * i64::from(nr_cpus)).max(32)
}

/// Cores online split evenly over the sockets.
pub fn validate(i: &Input) -> Result<(), ParamError> {
    cores_split_evenly(i.cpus, i.sockets)
}

/// The parameter spec.
pub fn specs() -> Vec<ParamSpec> {
    let r = WORKLOAD;
    let int = |q: crate::sim::catalogue::Quantity| q.int() as i64;
    vec![
        ParamSpec::choice_of("counter", Counter::PercpuCounter)
            .help("Which counter cpu_pct, the error columns and the perf report show: atomic (2018), percpu_counter (the patch), pcpu_reserve (6.0). The chart always shows all three.")
            .kernel("tcp_memory_allocated"),
        ParamSpec::sockets(2, MAX_SOCKETS as i64).help("CPU packages; a line from the other socket costs a UPI/QPI transfer."),
        ParamSpec::cores(28, MAX_CORES as i64)
            .help("Physical cores online (a multiple of sockets). The sweep runs 1/4, 1/2, 1, 2 and 4 times this."),
        ParamSpec::smt(true).help("Both hardware threads of every core online (Hyper-Threading): twice the CPUs."),
        ParamSpec::int("connections", "connections", int(r.connections), (1_000, 1_000_000, 1_000))
            .help("TCP connections, spread evenly over the CPUs (seed: ~150-200k).")
            .kernel("ss -s"),
        ParamSpec::int("sends_per_min", "/min", int(r.sends_per_min), (1, 1200, 1))
            .help("Responses each connection sends per minute, each after a one-frame request. Not in the seed: an assumption (see docs). The charges and reclaims follow from it by 4.x's rules.")
            .kernel("tcp_sendmsg"),
        ParamSpec::int("send_bytes", "bytes", int(r.send_bytes), (1024, 1 << 20, 1024))
            .help("Bytes per response: the pages __sk_mem_schedule charges (in skbs and 32 KiB page-frag chunks) and, one packet or more, which timer reclaims them.")
            .kernel("sk_wmem_schedule"),
        ParamSpec::int("srtt_us", "us", int(r.srtt_us), (50, 200_000, 50))
            .help("Smoothed round trip: the loss-probe timer is armed 2 x srtt + 2 jiffies after a send (200 ms more for one packet); it reclaims the forward alloc when it fires.")
            .kernel("tcp_schedule_loss_probe"),
        ParamSpec::int("hz", "Hz", 1000, (100, 1000, 50))
            .help("Timer ticks per second: expired timers run in bursts at each tick.")
            .kernel("CONFIG_HZ"),
        ParamSpec::boolean("skew_tick", false)
            .help("Offset each CPU's tick (boot option skew_tick=1) so the CPUs do not all reclaim at once.")
            .kernel("sched_skew_tick"),
        ParamSpec::int("batch", "pages", 0, (0, 1 << 20, 1))
            .help("percpu_counter batch; 0 = the kernel default max(32, 2 x nr_cpus). The error bound is batch x nr_cpus.")
            .kernel("percpu_counter_batch"),
        // The range starts at the sysctl's minimum: net/core/sysctl_net_core.c (12a686c2e761,
        // v6.9) has `.extra1 = &min_mem_pcpu_rsv` = SK_MEMORY_PCPU_RESERVE with
        // proc_dointvec_minmax, so fewer than 256 pages (4 KiB pages) is -EINVAL.
        ParamSpec::int("reserve_bytes", "bytes", MIN_RESERVE_BYTES, (MIN_RESERVE_BYTES, 64 << 20, PAGE_BYTES))
            .help("Linux 6.0 per-CPU reserve in front of the shared atomic. Default and minimum 1 MiB = SK_MEMORY_PCPU_RESERVE: since 6.9 the sysctl (in pages, 256 = 1 MiB) can only raise it; the commit's example is 16 MiB.")
            .kernel("net.core.mem_pcpu_rsv"),
        ParamSpec::int("atomic_ns", "ns", COSTS_2018.atomic_ns as i64, (1, 500, 1))
            .help("One locked RMW on a line the CPU already owns (catalogue: 4.8 ns on Broadwell): raise it for a platform with dearer atomics.")
            .kernel("lock xadd"),
        ParamSpec::int("traffic_mb_s", "MB/s", int(r.traffic_mb_s), (0, 50_000, 100))
            .help("What the rest of the server's work brings into each CPU's L2 per second: it evicts the counter's lines by capacity (256 KiB L2, 35 MiB L3 per socket). An assumption, 0.1-10 GB/s.")
            .kernel("perf stat -e l2_lines_in.all"),
        ParamSpec::int("ram_gib", "GiB", 256, (1, 4096, 1))
            .help("RAM of the server; tcp_mem is computed from it at boot as the kernel does (tcp_init_mem). 256 GiB is an assumption.")
            .kernel("net.ipv4.tcp_mem"),
        ParamSpec::int("measure_us", "us", 10_000, (100, 200_000, 100))
            .help("Simulated time per run; the tcp_mem ramp runs 1 ms more at most (each cut so that a run makes at most 100,000 counter updates; hard stop at 400,000 events).")
            .kernel(""),
    ]
}
