//! The parameters of high-order-alloc: their specs (ranges, units, help, the kernel knob each
//! stands for), their typed form [`Input`], and the checks across parameters.

use super::world::{Placement, MAX_CPUS, MAX_FLOWS};
use crate::params::{at_most, cores_split_evenly, ParamError, ParamSpec, Params};
use crate::sim::machine::{MAX_SOCKETS, SERVER_2019};
use serde::Serialize;

crate::choice_enum! {
    /// Which frag order a run uses: the sysctl `net.core.high_order_alloc_disable`.
    pub enum FragOrder {
        /// sysctl = 0: order-3 (32 KiB) frags, order-0 fallback.
        Order3 = "order3",
        /// sysctl = 1: order-0 frags.
        Order0 = "order0",
    }
}

impl FragOrder {
    pub fn from_order(order: u32) -> FragOrder {
        if order == 0 {
            FragOrder::Order0
        } else {
            FragOrder::Order3
        }
    }
    pub(super) fn disable(self) -> bool {
        self == FragOrder::Order0
    }
}

crate::params_input! {
    /// Every parameter of a run, typed: the one place that reads them by name (each field is
    /// the parameter of its name). A [`StreamConfig`](super::StreamConfig) holds it.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    pub struct Input {
        /// Physical cores online, split evenly over the sockets; 1..=`MAX_CPUS`, at least one
        /// per socket.
        pub cpus: u32,
        pub sockets: u32,
        /// Whether the scheduler uses the SMT siblings once every online core has a thread.
        pub smt: bool,
        pub min_threads: u32,
        pub max_threads: u32,
        /// Linux ≥ 5.14: orders 1..3 on the per-CPU lists.
        pub pcp_high_order: bool,
        pub pcp_high: u32,
        pub pcp_batch: u32,
        pub msg_bytes: u32,
        pub sndbuf_bytes: u32,
        pub placement: Placement,
        /// net.ipv4.tcp_rx_skb_cache (5.2–5.15): recvmsg parks the consumed skb; the next softirq frees it.
        pub tcp_rx_skb_cache: bool,
        /// net.ipv4.tcp_tx_skb_cache (5.2–5.15): the acked skb is parked for the next sk_stream_alloc_skb.
        pub tcp_tx_skb_cache: bool,
        pub line_transfer_ns: u64,
        pub cross_socket_ns: u64,
        pub warmup_us: u64,
        pub measure_us: u64,
        /// Seeds per point: 1 is one run (the CLI's `run`); more give each cell's mean and spread.
        pub seeds: u32,
        /// At least 1: the spec's range starts at 1 (the hand-written reader's `.max(1)` was a
        /// no-op on validated parameters).
        pub profile_threads: u32,
        pub profile_order: FragOrder,
    }
}

impl Input {
    /// Every parameter at its default.
    pub fn defaults() -> Input {
        Input::from(&Params::new(super::ID, specs()))
    }
}

/// The cross-parameter rules the spec's ranges cannot say: the cores split evenly over the
/// sockets, `pcp_batch <= pcp_high`, and the sweep's flow range is not empty.
pub fn validate(i: &Input) -> Result<(), ParamError> {
    cores_split_evenly(i.cpus, i.sockets)?;
    // The kernel keeps batch below high (pageset_set_batch: high = 6 x batch); a batch above
    // high would drain more than the list may hold.
    let why = "a drain moves batch pages from a list of at most high";
    at_most("pcp_batch", i.pcp_batch, "pcp_high", i.pcp_high, why)?;
    at_most("min_threads", i.min_threads, "max_threads", i.max_threads, "")
}

/// The parameter spec.
pub fn specs() -> Vec<ParamSpec> {
    let m = SERVER_2019;
    vec![
        ParamSpec::sockets(2, MAX_SOCKETS as i64).help("CPU packages, each a NUMA node with its own zone and zone->lock."),
        ParamSpec::cores(56, MAX_CPUS as i64).help(
            "Physical cores online, split evenly over the sockets (a multiple of sockets; each core has an SMT sibling).",
        ),
        ParamSpec::int("min_threads", "flows", 1, (1, MAX_FLOWS as i64, 1))
            .help("The sweep starts at this many netperf/netserver pairs (at most max_threads).")
            .kernel("super_netperf"),
        ParamSpec::int("max_threads", "flows", 30, (1, MAX_FLOWS as i64, 1))
            .help("The sweep runs min_threads..max_threads netperf/netserver pairs (super_netperf N).")
            .kernel("super_netperf"),
        ParamSpec::boolean("pcp_high_order", false)
            .help("Linux 5.14+: orders 1..3 also go through the per-CPU lists (44042b449872).")
            .kernel("pcp_allowed_order()"),
        ParamSpec::smt(true).help("Use the SMT sibling of every core (Hyper-Threading) once all cores are busy."),
        ParamSpec::choice_of("placement", Placement::Spread)
            .help("spread: flows alternate sockets, pair on one socket; pack: fill socket 0 first; split: receiver on the other socket.")
            .kernel("select_task_rq_fair()"),
        ParamSpec::boolean("tcp_rx_skb_cache", false)
            .help("Linux 5.2-5.15: recvmsg parks the consumed skb; the next softirq (on lo: the sender's CPU) frees it.")
            .kernel("net.ipv4.tcp_rx_skb_cache"),
        ParamSpec::boolean("tcp_tx_skb_cache", false)
            .help("Linux 5.2-5.15: the acked skb is parked; the next sendmsg reuses it and drops its frags there.")
            .kernel("net.ipv4.tcp_tx_skb_cache"),
        ParamSpec::int("msg_bytes", "bytes", 16384, (4096, 65536, 4096))
            .help("Bytes per sendmsg(). 16 KiB is netperf's default (no -m: the send socket buffer it reads at start, tcp_wmem[1]); sends append to the tail skb up to the 64 KiB size goal while Nagle holds it.")
            .kernel("netperf -m / tcp size_goal"),
        ParamSpec::int("sndbuf_bytes", "bytes", 1 << 20, (1 << 17, 1 << 23, 1 << 16))
            .help("Bytes a flow may have in flight before netperf sleeps.")
            .kernel("sk->sk_sndbuf"),
        ParamSpec::int("pcp_batch", "pages", 63, (1, 512, 1))
            .help("Pages moved per refill or drain of a per-CPU list (63 since 4.19).")
            .kernel("pcp->batch"),
        ParamSpec::int("pcp_high", "pages", 378, (8, 8192, 1))
            .help("A per-CPU list is drained once it holds this many pages (6 x batch before 5.14).")
            .kernel("pcp->high"),
        ParamSpec::int("line_transfer_ns", "ns", m.line_same_socket_ns as i64, (10, 1000, 1))
            .help("Cost of pulling a cache line another core of the socket wrote: every zone->lock handoff pays it.")
            .kernel("cache-to-cache transfer (mesh)"),
        ParamSpec::int("cross_socket_ns", "ns", m.line_cross_socket_ns as i64, (10, 2000, 1))
            .help("Cost of pulling a line from the other socket.")
            .kernel("UPI snoop"),
        ParamSpec::int("warmup_us", "us", 300, (0, 10_000, 100))
            .help("Simulated time before measuring (socket buffers fill, lists reach steady state).")
            .kernel(""),
        ParamSpec::int("measure_us", "us", 2000, (100, 20_000, 100))
            .help("Simulated time measured per point (netperf ran 15 s). Below 1000 us a cell counts too few skbs to be steady (seed-to-seed spread up to 4-7 % at one flow): the summary flags it.")
            .kernel("netperf -l"),
        ParamSpec::int("seeds", "seeds", 1, (1, 10, 1))
            .help("Runs per point, on seeds seed, seed+1, ...: above 1 each cell is their mean and the chart draws their min-max spread as a band (the seed table's cells are single 15 s runs; one simulated run is 2 ms).")
            .kernel(""),
        ParamSpec::int("profile_threads", "flows", 20, (1, MAX_FLOWS as i64, 1))
            .help("Flow count of the perf report, lock stats and /proc views.")
            .kernel(""),
        ParamSpec::choice_of("profile_order", FragOrder::Order3)
            .help("Frag order of the perf report, lock stats and /proc views.")
            .kernel("net.core.high_order_alloc_disable"),
    ]
}
