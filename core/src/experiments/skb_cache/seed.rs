//! The figures of the rx skb cache patch (8b27dae5a2e8, quoted in seed 004), as data.
//!
//! "tcp_rr workload with 10,000 flows and 112 threads reach 9 Mpps instead of 8 Mpps": the
//! patch with its tx companion (472c2e07eef0). The post gives no error bars; 8.0 and 9.0 are
//! read as exact. We could not confirm these figures from the kernel tree's commit message;
//! they are the seed post's quotation of the patch. The patches' citations follow the figures.

use crate::output::Citation;

/// Flows and threads of the run.
pub const FLOWS: u32 = 10_000;
pub const THREADS: u32 = 112;
/// Mpps without and with the two caches.
pub const OFF_MPPS: f64 = 8.0;
pub const ON_MPPS: f64 = 9.0;
/// `queued_spin_lock_slowpath` in % of the cycles in the tx commit's perf profile, before its
/// cache (472c2e07eef0's message).
pub const TX_COMMIT_SPIN_PCT: f64 = 20.69;

/// The gain the seed implies, in %.
pub fn gain_pct() -> f64 {
    (ON_MPPS / OFF_MPPS - 1.0) * 100.0
}

/// The rx skb cache patch, whose text seed 004 quotes (tcp_rr 8 → 9 Mpps).
pub const TCP_RX_SKB_CACHE: Citation = Citation {
    list: "netdev",
    date: "2019-03-22",
    author: "Eric Dumazet",
    subject: "tcp: add one skb cache for rx",
    message_id: "commit 8b27dae5a2e8 (v5.2)",
};

/// The tx companion: one skb per socket reused by sendmsg.
pub const TCP_TX_SKB_CACHE: Citation = Citation {
    list: "netdev",
    date: "2019-03-22",
    author: "Eric Dumazet",
    subject: "tcp: add one skb cache for tx",
    message_id: "commit 472c2e07eef0 (v5.2)",
};

/// The caches made opt-in sysctls, default off. The series gives the reason as "regressions for
/// some workloads, as reported by Feng Tang" (the kernel test robot's loopback netperf report);
/// the rx patch (ede61ca474a0) adds the memory reason ("huge increase of memory usage on hosts
/// with millions of sockets"), the tx patch (0b7d7f6b2208) the order-3 page-frag one.
pub const TCP_SKB_CACHE_SYSCTLS: Citation = Citation {
    list: "netdev",
    date: "2019-06-14",
    author: "Eric Dumazet",
    subject: "[PATCH net 0/4] tcp: add three static keys (ede61ca474a0, 0b7d7f6b2208)",
    message_id: "20190614232221.248392-1-edumazet@google.com",
};

/// The removal in 5.16.
pub const TCP_SKB_CACHE_REMOVAL: Citation = Citation {
    list: "netdev",
    date: "2021-09-22",
    author: "Eric Dumazet (posted by Paolo Abeni)",
    subject: "[PATCH net-next 4/4] tcp: remove sk_{tr}x_skb_cache (d8b81175e412, v5.16)",
    message_id: "f14bcb96638a4bccc5763233153702be689749e1.1632318035.git.pabeni@redhat.com",
};

/// What replaced them: deferred skb freeing on the allocating CPU. 5.17's f35f821935d8 kept a
/// per-socket list (`sk->defer_list`, flushed after `release_sock` or by the BH handler); only
/// 5.19's 68822bdf76f1 queues on per-CPU lists of `skb->alloc_cpu`.
pub const SKB_DEFER_FREE: Citation = Citation {
    list: "netdev",
    date: "2022-04-22",
    author: "Eric Dumazet",
    subject: "net: generalize skb freeing deferral to per-cpu lists (68822bdf76f1, v5.19; 5.17's f35f821935d8 was per socket)",
    message_id: "20220422201237.416238-1-eric.dumazet@gmail.com",
};
