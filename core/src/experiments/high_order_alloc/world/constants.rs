//! The constants of the TCP_STREAM world: the kernel's sizes and timeouts it follows, the
//! socket and wakeup lines it counts, the jitter assumption and the work bounds.

/// The kernel function of each entry of [`super::StreamStats::lock_ops`].
pub const LOCK_OPS: [&str; 5] =
    ["__rmqueue_smallest", "rmqueue_bulk", "free_one_page", "free_pcppages_bulk", "drain_all_pages"];

/// The size goal of an skb on loopback: with TSO/GSO `tcp_xmit_size_goal()` allows up to the
/// 64 KiB GSO maximum (lo's MTU is 64 KiB, so one MSS is nearly all of it). `tcp_sendmsg`
/// appends to the tail skb until it holds this much.
pub const SIZE_GOAL_BYTES: u32 = 65536;

/// What netserver asks of each `recvmsg()`: netperf's default receive size is the receive
/// socket buffer it reads at start (`nettest_bsd.c` `recv_tcp_stream`: `recv_size = lsr_size`),
/// `tcp_rmem[1]` = 131072 on Linux (`tcp_init()`). `tcp_recvmsg()` copies queued skbs until it
/// has this much or the queue is empty, so a lagging receiver takes several skbs per syscall.
pub const RECV_BYTES: u32 = 131072;

pub use crate::sim::skb::TCP_MSS_DEFAULT;

/// Whether the zones charge the lock holder's per-page work and the free-page counter
/// (`Zone::holder_work`: `check_new_page` per subpage under zone->lock, the tail pages at
/// `tail_page_cycles` instead of a per-CPU list operation each, `__mod_zone_freepage_state`'s
/// folds). Off until a joint refit of the TCP constants with it beats the committed fit
/// (docs/high-order-alloc.md, "The holder's work under zone->lock").
pub const HOLDER_WORK: bool = false;

/// Whether an order > 0 allocation reads the zone's `free_area` lines in
/// `zone_watermark_fast()` before it takes zone->lock (`Zone::watermark_check`), leaving
/// shared copies the next holder's stores must invalidate.
pub const WATERMARK_READS: bool = true;

/// Whether a CPU that arrives at zone->lock while a handoff is under way delays it
/// (`QSpinLock::arrivals_in_handoff`).
pub const ARRIVALS_IN_HANDOFF: bool = true;

/// Whether an MCS queue head with nobody behind it claims zone->lock with a locked cmpxchg
/// that waits for the line (`QSpinLock::claim_cmpxchg`).
pub const CLAIM_CMPXCHG: bool = true;

/// `tcp_measure_rcv_mss()` counts a short segment's length only from `TCP_MSS_DEFAULT` plus
/// the 20-byte base header, its length including its header (32 bytes with timestamps, as on
/// loopback); a shorter one always marks the ACK pushed.
pub const TCP_HEADER_BYTES: u32 = 32;

/// Lines of netserver's socket that the softirq queueing a segment and the reader both write,
/// counted on the 5.2 x86_64 `struct sock` (`include/net/sock.h`; our offsets, no pahole of
/// the seed's build: `sock_common` 0x88 bytes, then `sk_lock`, `sk_drops`, `sk_rcvlowat`,
/// `sk_error_queue`, `sk_rx_skb_cache`, `sk_receive_queue`, `sk_backlog`, `sk_forward_alloc`):
/// the line of `sk_lock` (0x88..0xa8: `bh_lock_sock` in `tcp_v4_rcv`, `lock_sock` in
/// `tcp_recvmsg`), the line of `sk_receive_queue` (0xd0) and `sk_backlog` with `sk_rmem_alloc`
/// (0xe8; `__skb_queue_tail` and `skb_set_owner_r` / `__skb_unlink` and `sock_rfree`), the
/// line of `sk_forward_alloc` (0x100; `sk_mem_charge` / `sk_mem_uncharge`), and the
/// `tcp_sock` line of `rcv_nxt` and `copied_seq`.
pub const RX_SOCK_LINES: u32 = 4;

/// Lines of netperf's socket an ACK from netserver's CPU writes (same layout): into the
/// backlog, the `sk_lock` line and the `sk_backlog` line (`sk_add_backlog`); processed at
/// once, the `sk_lock` line, the `sk_forward_alloc` line (`sk_mem_uncharge`), the line of
/// `tcp_rtx_queue` and `sk_wmem_queued` (`tcp_clean_rtx_queue`, `sk_wmem_free_skb`; counted
/// as one) and the `tcp_sock` line of `snd_una`. `tcp_sendmsg` writes the same four.
pub const TX_SOCK_BACKLOG_LINES: u32 = 2;
pub const TX_SOCK_LINES: u32 = 4;

/// Lines `try_to_wake_up()` pulls from the sleeper's CPU (5.2, same LLC: `ttwu_queue` takes
/// the remote `rq->lock`): the socket wait queue head's lock (`__wake_up_common_lock`, last
/// written by `prepare_to_wait`), the task's `pi_lock`, its `state` (set by
/// `set_current_state` before it slept), its `sched_entity` / `on_rq` line (dequeued by its
/// own CPU), the target `rq->lock` and `rq`/`cfs_rq` counters (`enqueue_task_fair`), and the
/// idle task's `TIF_NEED_RESCHED` line (`resched_curr`).
pub const WAKE_LINES_WAKER: u32 = 6;

/// Lines the woken CPU pulls back in `schedule()` and the return from the wait: its
/// `rq->lock` line, the `cfs_rq` counters, the task's `state` and `sched_entity` lines, and
/// the wait queue head (`finish_wait`).
pub const WAKE_LINES_WAKEE: u32 = 5;

/// The delayed-ACK timeout: `TCP_DELACK_MIN` = HZ/25 = 40 ms (`include/net/tcp.h`).
pub const DELACK_NS: u64 = 40_000_000;

/// Each syscall's cycles are scaled by a uniform factor in 0.90..=1.10 (cache misses,
/// interrupts, branch behaviour: a model assumption, not fitted), so threads never run in
/// lockstep and lock requests arrive the way they do on a real machine: not in a fixed order.
pub const JITTER_MIN_PERMILLE: u64 = 900;
pub const JITTER_SPAN_PERMILLE: u32 = 201;

/// At most this many events per thread per simulated µs (a syscall takes ≥ 1 µs and ≤ 40 events):
/// the hard cap of a run (a run takes about 1.3 at the default mesh: `runs::expected_events`).
pub const EVENTS_PER_THREAD_US: u64 = 64;

/// At most this many events in one run, whatever the size (about 10 s of native CPU time);
/// a run that reaches it stops early, truncated ([`crate::sim::world::World::outcome`]). The default sweep
/// runs about 60 000 events per run; 256 flows for 30 ms about 15 million.
pub const MAX_EVENTS_PER_RUN: u64 = 100_000_000;

/// Most flows in a run (512 threads).
pub const MAX_FLOWS: u32 = 256;

/// Most physical cores online.
pub const MAX_CPUS: u32 = 512;
