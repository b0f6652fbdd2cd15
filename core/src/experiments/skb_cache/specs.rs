//! The parameter specs of `skb-cache`: names, units, defaults, ranges, help and the kernel knob each stands for.

use super::*;

/// The parameter spec.
pub fn specs() -> Vec<ParamSpec> {
    vec![
        ParamSpec::int("flows", "flows", i64::from(seed::FLOWS), (1, 1_000_000, 1))
            .help("TCP connections, one request in flight each (tcp_rr). At most 16,384 are simulated (the seed's 10,000 all are: the slab turnover depends on the skbs in flight per CPU); beyond that each simulated flow stands for flows/16,384 sockets, whose state ages out of L2 and L3 as theirs would: more sockets, more cache misses per request; latency_us adds the queueing of the flows not simulated by Little's law (one transaction time each).")
            .kernel("netperf -t TCP_RR, many instances"),
        ParamSpec::int("threads", "threads", i64::from(seed::THREADS), (1, 2048, 1))
            .help("Server threads (epoll loops), thread t pinned to CPU t mod CPUs; at most 4 per logical CPU. Several threads on a CPU share it: smaller epoll batches and a context switch when the running one has nothing ready.")
            .kernel(""),
        ParamSpec::boolean("tcp_rx_skb_cache", false)
            .help("8b27dae5a2e8 (v5.2): recvmsg parks the consumed skb in the socket; the next softirq of that socket frees it, on the CPU that took the interrupt. A sysctl since June 2019 (default off); removed in 5.16.")
            .kernel("net.ipv4.tcp_rx_skb_cache"),
        ParamSpec::boolean("tcp_tx_skb_cache", false)
            .help("472c2e07eef0 (v5.2): tcp_ack parks the acked skb in the socket and the next sendmsg reuses it: no free, no allocation. A sysctl since June 2019 (default off); removed in 5.16.")
            .kernel("net.ipv4.tcp_tx_skb_cache"),
        ParamSpec::boolean("rps", false)
            .help("RPS/RFS: the driver allocates on the IRQ CPU, then steers the packet to the application's CPU, which runs the TCP receive path and recvmsg.")
            .kernel("rps_cpus / rps_sock_flow_entries"),
        ParamSpec::int("rx_queues", "queues", 112, (1, 256, 1))
            .help("NIC receive queues (RSS channels), each with its interrupt on its own CPU, spread evenly over the CPUs; at most one per CPU. Default one per logical CPU (mlx5 opens one channel per completion vector, ASSUMPTION). Fewer queues than CPUs: a few CPUs allocate every rx skb while all of them free, so the allocating CPUs refill and the freeing CPUs flush their arrays under list_lock (SLAB), or the freeing CPUs' partial lists overflow under it (SLUB).")
            .kernel("ethtool -L eth0 combined N"),
        ParamSpec::int("request_bytes", "bytes", 1, (1, 65_536, 1))
            .help("Request size. Up to 256 bytes the driver copies it into the skb head; larger requests carry one page per 1448-byte frame (GRO merges up to 45).")
            .kernel("netperf -r REQ,RESP"),
        ParamSpec::int("response_bytes", "bytes", 1, (1, 65_536, 1))
            .help("Response size: copied into the sending thread's 32 KB page frag; the tx skb holds a reference per frag.")
            .kernel("netperf -r REQ,RESP"),
        ParamSpec::sockets(2, 4).help("CPU packages (NUMA nodes; the allocator keeps per-node lists and, on SLAB, alien caches between nodes)."),
        ParamSpec::int("cpus", "cores", 28, (1, 64, 1)).help("Physical cores per socket.").kernel(""),
        ParamSpec::smt(true).help("Two hardware threads per core (Hyper-Threading)."),
        ParamSpec::choice_of("allocator", Allocator::Slab)
            .help("The slab allocator. slab: mm/slab.c, which the seed's 2019 server ran (merge bdaba8959e92's cover letter: \"slab has to drain alien caches\"): per-CPU arrays, and a free of another node's object goes to that node's alien cache, flushed under the node's locks. slub: mm/slub.c, the default since 2.6.23 (a0acd8208076) and the only one since SLAB's removal in 6.8: per-CPU slabs and partial lists; a free to a slab that is not the CPU's own is __slab_free, list_lock when the slab changes list.")
            .kernel("CONFIG_SLAB / CONFIG_SLUB"),
        ParamSpec::choice_of("rx_head", RxHead::Frag)
            .help("Where a small receive head comes from. frag: a piece of the receiving CPU's 32 KiB NAPI page fragment, as __napi_alloc_skb took every head up to a page from 3.19 (fd11a83dd363) to 5.10, the seed's 5.2 among them: freeing it is a put_page on that page, not a slab free. kmalloc: __alloc_skb's kmalloc head, as heads up to SKB_WITH_OVERHEAD(1024) are since 3226b158e67c (Linux 5.11).")
            .kernel("__napi_alloc_skb (3.19-5.10 / 5.11+)"),
        ParamSpec::choice_of("tx_head", TxHead::Frag)
            .help("What the head of a response's skb holds. frag: headers only, the payload copied into the thread's page frag, as since 472c2e07eef0 (the tx cache's commit, Linux 5.2). linear: the first skb of a write carries up to 1,408 bytes of payload in a 2 KiB kmalloc head (3613b3dbd1ad, Linux 4.9, to the parent of 472c2e07eef0): the kernel of the seed's 8 Mpps, whose reproduce row runs it. Not with tcp_tx_skb_cache, which came with frag.")
            .kernel("tcp_sendmsg_locked: select_size (4.9-5.1) / 472c2e07eef0 (5.2+)"),
        ParamSpec::int("warmup_us", "us", 2000, (0, 10_000, 100))
            .help("Simulated time before measuring, at least; the warm-up goes on until every simulated flow has completed two round trips (a closed loop slower than the warm-up is then past its first cycle). With allocator = slub, SLUB's partial lists start in their long-run state.")
            .kernel(""),
        ParamSpec::int("measure_us", "us", 2000, (200, 20_000, 100))
            .help("Simulated time measured. Work per run is bounded by the window and a cap of 3,000,000 events.")
            .kernel(""),
    ]
}
