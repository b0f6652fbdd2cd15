//! The parameter specs of `page-frag-free`: names, units, defaults, ranges, help and the kernel knob each stands for;
//! and the warm-up a run really simulates (`warmup_us` is a minimum).

use super::*;

/// The parameter spec (defaults: the router; unset topology knobs follow the machine).
pub fn specs() -> Vec<ParamSpec> {
    let r = &machines::ROUTER;
    vec![
        ParamSpec::choice_of("machine", MachineKind::Router)
            .help("router: the 2018 2-socket box of the report; x86-bench: the micro-benchmark host; cortex-a53: 4 cores, 1 Gbit. Unset knobs take the machine's values.")
            .kernel(""),
        ParamSpec::choice_of("fix", Fix::Before)
            .help("before: page_frag_free frees to the buddy under zone->lock (Linux before 5.0; 4.19.y until Dec 2019); after: order-0 pages through the per-CPU lists (65895b67ad27).")
            .kernel("page_frag_free()"),
        ParamSpec::sockets(i64::from(r.cpu.sockets), MAX_BOX_SOCKETS)
            .help("CPU packages, each a NUMA node with its own zone and zone->lock."),
        ParamSpec::cores(i64::from(r.cores), 64).help("Physical cores online, split evenly over the sockets."),
        ParamSpec::smt(r.smt).help("Use both hardware threads of every core."),
        ParamSpec::int("rx_queues", "queues", i64::from(r.rx_queues), (1, 128, 1))
            .help("RX queues (RSS), queue q polled by logical CPU q (mod the CPUs online: more queues than CPUs share them).")
            .kernel("ethtool -L combined"),
        ParamSpec::choice_of("tx_irq", r.tx_irq)
            .help("same: TX completions polled on the receiving CPU; remote: on a CPU of the other socket (or half the cores away), so pages are allocated and freed on different CPUs.")
            .kernel("/proc/irq/*/smp_affinity"),
        ParamSpec::int("packet_bytes", "bytes", i64::from(r.packet_bytes), (64, 1500, 1))
            .help("Frame size. A page holds the driver's packets per page whatever the frame (mlx5: two 2 KiB strides per 4 KiB page; the A53's NIC: one), so bigger frames mean fewer pages per second at line rate.")
            .kernel("pktgen pkt_size"),
        ParamSpec::int("line_gbps", "Gbit/s", i64::from(r.line_gbps), (1, 400, 1))
            .help("Line rate of the ingress NIC (sets the offered load when offered_kpps is 0).")
            .kernel("ethtool speed"),
        ParamSpec::int("offered_kpps", "kpps", i64::from(r.offered_kpps), (0, 200_000, 10))
            .help("Offered load in thousands of packets per second; 0 = line rate for the frame size. Unset: the router's carried load (fitted to the seed, no drop); the two benchmarks flood the link (0).")
            .kernel("pktgen rate"),
        ParamSpec::int("recycle_pct", "%", i64::from(r.recycle_pct), (0, 100, 1))
            .help("Share of RX pages the driver recycles itself (never reaching the page allocator). Unset: the router's and the A53's 0 (the report's was ineffective); x86-bench's 48, fitted with its stack cycles to the XDP paper's forwarding rates on 1-6 cores before the fix.")
            .kernel("mlx5e_rx_cache_get()"),
        ParamSpec::int("pcp_batch", "pages", 63, (1, 512, 1))
            .help("Pages moved per refill or drain of a per-CPU list (63 since 4.19); at most pcp_high.")
            .kernel("pcp->batch"),
        ParamSpec::int("pcp_high", "pages", 378, (8, 8192, 1))
            .help("A per-CPU list is drained once it holds this many pages (6 x batch = 378 in 4.19-5.13; from 5.14 set from the low watermark, from 6.7 auto-tuned).")
            .kernel("pcp->high"),
        ParamSpec::int("warmup_us", "us", 10_000, (0, 20_000, 100))
            .help("Simulated time before measuring, at least: a per-CPU list needs pcp_high frees to reach its steady state, so a light load warms up longer, until each freeing CPU has freed pcp_high pages (at most 100 ms).")
            .kernel(""),
        ParamSpec::int("measure_us", "us", 5000, (100, 20_000, 100))
            .help("Simulated time measured (each run is capped at 20 million events).")
            .kernel(""),
    ]
}

/// The longest warm-up a light load extends the run to ([`Input::warmup_us_run`]): 100 ms
/// keeps a 56-CPU box under a million idle events; below about 250 kpps offered the
/// steady-state note still explains the missing numbers.
pub const MAX_WARMUP_US: u64 = 100_000;

impl Input {
    /// The warm-up a run simulates: `warmup_us`, or longer when the offered load is too light
    /// for each freeing CPU to free `pcp_high` pages (its per-CPU list's steady state, which
    /// the results' guard asks for) by the window's end; at most [`MAX_WARMUP_US`]. A quarter
    /// more than the guard's need: a CPU's share of the frees varies.
    pub fn warmup_us_run(&self) -> u64 {
        let freeing = u64::from(self.rx_queues.min(self.logical_cpus()).max(1));
        let pps = self.offered_pps().max(1);
        let need_us = (u64::from(self.pcp_high) * 5 / 4 * freeing).saturating_mul(1_000_000).div_ceil(pps);
        self.warmup_us.max(need_us.saturating_sub(self.measure_us).min(MAX_WARMUP_US))
    }
}
