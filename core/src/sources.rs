//! The seed posts: the five mailing-list messages whose numbers skblab reproduces. Lessons, the
//! about page and several experiments cite them from here so that every number in the product
//! names its source. A citation only one experiment uses (a patch, a commit) lives in that
//! experiment's folder, beside its seed data: adding an experiment does not edit this file.

use crate::output::Citation;

/// Seed 000: the order-3 vs order-0 TCP_STREAM table over 1..30 flows.
pub const SEED_000: Citation = Citation {
    list: "netdev",
    date: "2019-06-14",
    author: "Eric Dumazet",
    subject: "[PATCH net 4/4] net: add high_order_alloc_disable sysctl/static key",
    message_id: "20190614232221.248392-5-edumazet@google.com",
};

/// Seed 001: Ian Campbell's shinfo arithmetic and the 64-byte UDP iperf runs.
pub const SEED_001: Citation = Citation {
    list: "netdev",
    date: "2011-12-07",
    author: "Ian Campbell",
    subject: "Re: [PATCH 0/4] skb paged fragment destructors",
    message_id: "not shown in the archived copy; thread of 2011-11-09",
};

/// Seed 002: page_frag_free() through the per-CPU lists (commit 65895b67ad27).
pub const SEED_002: Citation = Citation {
    list: "netdev / linux-mm",
    date: "2018-11-07",
    author: "Tariq Toukan, quoting Aaron Lu's patch",
    subject: "Re: [PATCH v2 1/2] mm/page_alloc: free order-0 pages through PCP in page_frag_free()",
    message_id: "ec2e45bb-5c28-8f89-5bb5-041f68f79b51@mellanox.com",
};

/// Seed 003: tcp_memory_allocated as a percpu_counter.
pub const SEED_003: Citation = Citation {
    list: "linux-kernel / netdev",
    date: "2018-09-06",
    author: "Olof Johansson",
    subject: "Re: [PATCH] net/sock: move memory_allocated over to percpu_counter variables",
    message_id: "CAOesGMgRrb4D2S_qWwgo00iNxbCL9EEGfhD5Ji-2HMWuZeq0Yw@mail.gmail.com",
};

/// Seed 004: the rx skb cache and the kTLS stack overflow report.
pub const SEED_004: Citation = Citation {
    list: "netdev",
    date: "2019 (after 5.1-rc2; not shown), reply to the patch of 2019-03-22",
    author: "Jakub Kicinski (his fix 4a9c2e3746e6 quotes the same oops)",
    subject: "Re: tcp: add one skb cache for rx (reply to the patch)",
    message_id: "not shown in the archived copy",
};

/// All seed posts, in seed order.
pub const SEEDS: [Citation; 5] = [SEED_000, SEED_001, SEED_002, SEED_003, SEED_004];
