//! The stream of charges and reclaims 4.x socket memory accounting makes of a workload: which
//! sends call `__sk_mem_raise_allocated()` and with how many pages, which timer reclaims the
//! socket's forward alloc, how long after the send it fires on the timer wheel, and how many
//! connections idle that long. Nothing here is a rate chosen for the accounting: the
//! workload is sends per connection, their size and the round trip, and the rest is the
//! kernel's rules (Linux 4.13 to 5.19; the seed's 2018 kernel is one of them) with the
//! simplifications listed under "What we simplify".
//!
//! The rules, from include/net/sock.h, net/core/sock.c, net/ipv4/tcp.c and tcp_timer.c:
//! - **Forward alloc in pages.** `sk_wmem_schedule()` / `sk_rmem_schedule()` pass when the
//!   skb's truesize fits `sk_forward_alloc`; otherwise `__sk_mem_schedule()` adds
//!   `sk_mem_pages(size)` = ⌈size / SK_MEM_QUANTUM⌉ pages (`SK_MEM_QUANTUM` = PAGE_SIZE) to
//!   `sk_forward_alloc` and charges them to `tcp_memory_allocated` in
//!   `__sk_mem_raise_allocated()` (one `atomic_long_add_return`). `sk_mem_uncharge()` (the
//!   ACK freeing sent skbs, `tcp_recvmsg` freeing read ones) only gives bytes back to
//!   `sk_forward_alloc`: no atomic, unless the socket then holds 2 MiB, when it returns 1 MiB
//!   at once ("If we reach 2 MBytes, reclaim 1 MBytes right now", the 4.x comment). So a busy
//!   socket keeps what it was charged, up to ~2 MB: the "forward allocations" of the 6.0
//!   series' cover letter (20220609063412.2205738-1-eric.dumazet@gmail.com).
//! - **Reclaim at a timer.** `sk_mem_reclaim()` returns every whole page; `tcp_write_timer_handler()`
//!   ends with it, whether or not a timer event was pending, and `tcp_delack_timer_handler()`
//!   starts with `sk_mem_reclaim_partial()` (all but < 1 page). Both timers stay armed when
//!   their event is cancelled (`inet_csk_clear_xmit_timer()` only clears `icsk_pending` /
//!   `icsk_ack.pending`: `INET_CSK_CLEAR_TIMERS` is not defined), so each fires once after a
//!   send and reclaims. 4890b686f408 (6.0) removed both reclaims.
//! - **When the write timer fires.** After a send, `tcp_schedule_loss_probe()` (4.13+, after
//!   bb4d991a28cc) arms it 2·srtt + `TCP_TIMEOUT_MIN` (2 jiffies) ahead, or 2·srtt +
//!   `TCP_RTO_MIN` (200 ms) when one packet is out; each ACK that leaves data in flight
//!   re-arms it, the last one clears only `icsk_pending`. A send before it fires re-arms it
//!   further (`sk_reset_timer`, `mod_timer`): a connection busier than its timeout never
//!   reclaims. The delayed-ACK timer fires `TCP_ATO_MIN` (HZ/25 jiffies, 40 ms) after the
//!   request; it reclaims only if the response's ACK is back by then (else the skbs are
//!   still charged and there is less than a page spare) and only if it fires first.
//! - **The timer wheel** (kernel/time/timer.c since 4.8) fires a timer `d` jiffies ahead on
//!   its level's granularity ([`crate::experiments::percpu_counter::world::wheel_granularity`]).
//!
//! What we simplify: a charge that does not fit raises ⌈deficit / page⌉ pages, 6.0's rule
//! (7c80b038d23e), where 4.x raises `sk_mem_pages(size)` for the whole size (the same 2
//! raises and 5 pages at the default 16 KiB; fewer raises of more pages at other sizes); the
//! write timer's delay is counted from the send, where 4.x re-arms it from each ACK that
//! leaves data in flight (`tcp_ack` → `tcp_set_xmit_timer`) and a response sent after an
//! idle gap goes in two flights (slow start restarts at 10 segments), so it fires about
//! 3·srtt + 2 jiffies after the send; the forced charges of `sk_forced_mem_schedule()`
//! (`tso_fragment()`'s splits into 2-MSS TSO skbs at a 50 ms srtt, 4.15+'s first skb), a
//! second path to `tcp_memory_allocated`, are not modelled. Every send is `send_bytes`, preceded by a one-frame request read
//! before it; skbs of up to [`TSO_GOAL_BYTES`], their data copied in page-frag chunks of
//! up to [`PFRAG_BYTES`] (each chunk one `sk_wmem_schedule`); the forward alloc starts the
//! exchange at 0 (after a reclaim the spare is below a page). Sends per connection are
//! spaced uniformly at random around their mean (the world's arrivals), so the share of
//! gaps longer than the timer's delay τ is 1 − λτ/2 (0 once λτ ≥ 2).

/// `SK_MEM_QUANTUM` (include/net/sock.h, 4.x): PAGE_SIZE, the unit of `sk_forward_alloc`
/// charges and of `tcp_memory_allocated`.
pub const SK_MEM_QUANTUM: u64 = 4096;
/// `sk_mem_uncharge()` (4.x): at this much forward alloc the socket returns
/// [`SK_RECLAIM_CHUNK`] at once.
pub const SK_RECLAIM_THRESHOLD: u64 = 1 << 21;
pub const SK_RECLAIM_CHUNK: u64 = 1 << 20;
/// Truesize of the skb `sk_stream_alloc_skb()` allocates for TCP data (`alloc_skb_fclone` of
/// `MAX_TCP_HEADER`, 320 bytes on x86_64, + `SKB_DATA_ALIGN(sizeof(struct sk_buff))` 256 +
/// `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` 320: `SKB_TRUESIZE`), from the 4.19 struct
/// sizes (pahole). Ours: `__alloc_skb` takes the truesize of the head's kmalloc object (640
/// bytes round up to a 1,024-byte one: 1,280), which this leaves out.
pub const TX_SKB_TRUESIZE: u64 = 896;
/// Payload per skb: `tcp_xmit_size_goal()` with TSO, about 64 KiB (`GSO_MAX_SIZE` less headers).
pub const TSO_GOAL_BYTES: u64 = 65_536 - 320;
/// The page frag a copy is cut from (`sk_page_frag()`: `current->task_frag` in process
/// context, which the task's sockets share; `sk_page_frag_refill`, `SKB_FRAG_PAGE_ORDER` 3):
/// 32 KiB; ours: one copy chunk, one `sk_wmem_schedule(copy)`, per frag at most, as if the
/// frag were the socket's alone.
pub const PFRAG_BYTES: u64 = 32_768;
/// Truesize of a one-frame request as a 4.x NIC driver hands it up: a half page (2 KiB) of
/// page frag plus `struct sk_buff` (256). ASSUMED: drivers of the era (ixgbe, mlx4, i40e) split
/// 4 KiB pages into 2 KiB receive buffers.
pub const RX_TRUESIZE: u64 = 2_304;
/// Payload of one 1500-byte Ethernet frame with TCP timestamps: what makes a send one packet.
pub const MSS_BYTES: u64 = 1_448;
/// `TCP_RTO_MIN` (include/net/tcp.h): 200 ms.
pub const TCP_RTO_MIN_US: u64 = 200_000;
/// `TCP_TIMEOUT_MIN` (include/net/tcp.h): 2 jiffies.
pub const TCP_TIMEOUT_MIN_JIFFIES: u64 = 2;

/// One exchange after a reclaim: the raises it makes and the pages they charge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange {
    pub raises: u64,
    pub pages: u64,
    /// 1 MiB returns `sk_mem_uncharge()` makes when the ACKs bring the forward alloc to 2 MiB.
    pub uncharge_reclaims: u64,
}

/// Which timer returns the forward alloc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reclaimer {
    /// `tcp_write_timer` (the seed's path): the loss-probe timer left armed.
    Write,
    /// `tcp_delack_timer`: fires first and the response is acked by then.
    Delack,
}

/// The exchange's charges: the request (`sk_rmem_schedule(RX_TRUESIZE)`, uncharged when the
/// application reads it), then `send_bytes` in skbs and page-frag chunks, each
/// `sk_wmem_schedule()` raising ⌈deficit / page⌉ pages when it does not fit (ours: 6.0's
/// rule; 4.x raises ⌈size / page⌉, see the module's simplifications).
pub fn exchange(send_bytes: u64) -> Exchange {
    let (mut fw, mut raises, mut pages) = (0u64, 0u64, 0u64);
    let mut charge = |size: u64, fw: &mut u64| {
        if size > *fw {
            let n = (size - *fw).div_ceil(SK_MEM_QUANTUM);
            raises += 1;
            pages += n;
            *fw += n * SK_MEM_QUANTUM;
        }
        *fw -= size;
    };
    charge(RX_TRUESIZE, &mut fw);
    fw += RX_TRUESIZE;
    let mut left = send_bytes;
    while left > 0 {
        charge(TX_SKB_TRUESIZE, &mut fw);
        let mut in_skb = left.min(TSO_GOAL_BYTES);
        left -= in_skb;
        while in_skb > 0 {
            let copy = in_skb.min(PFRAG_BYTES);
            charge(copy, &mut fw);
            in_skb -= copy;
        }
    }
    // The ACKs give everything back to sk_forward_alloc; at 2 MiB it returns 1 MiB at once.
    let held = pages * SK_MEM_QUANTUM;
    let uncharge_reclaims =
        if held >= SK_RECLAIM_THRESHOLD { (held - SK_RECLAIM_THRESHOLD) / SK_RECLAIM_CHUNK + 1 } else { 0 };
    Exchange { raises, pages, uncharge_reclaims }
}

/// `usecs_to_jiffies` (rounds up).
fn jiffies(us: u64, hz: u32) -> u64 {
    (us * u64::from(hz)).div_ceil(1_000_000)
}

/// The timer that reclaims after a send of `send_bytes` with `srtt_us`, and how many jiffies
/// after the send it is armed.
pub fn reclaim_timer(send_bytes: u64, srtt_us: u64, hz: u32) -> (Reclaimer, u64) {
    let two_srtt = jiffies(2 * srtt_us, hz);
    let tlp = if send_bytes <= MSS_BYTES {
        // 2·srtt + TCP_RTO_MIN, but never past the RTO (srtt + 4·rttvar, rttvar ≥ TCP_RTO_MIN/4).
        (two_srtt + jiffies(TCP_RTO_MIN_US, hz)).min(jiffies(srtt_us + TCP_RTO_MIN_US, hz))
    } else {
        two_srtt + TCP_TIMEOUT_MIN_JIFFIES
    };
    let ato = u64::from(hz / 25).max(1);
    if ato < tlp && jiffies(srtt_us, hz) < ato {
        (Reclaimer::Delack, ato)
    } else {
        (Reclaimer::Write, tlp)
    }
}

/// The accounting stream of a workload, per connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    /// Reclaiming timer firings per hour (every one finds whole pages to return).
    pub timers_per_hour: u32,
    /// `__sk_mem_raise_allocated` calls per hour.
    pub raises_per_hour: u32,
    /// A raise charges 1..=this many pages (uniform), so their mean is the exchange's.
    pub raise_pages_max: u32,
    /// Jiffies from the send to the reclaiming timer's expiry, and which timer.
    pub timeout_jiffies: u64,
    pub reclaimer: Reclaimer,
    /// Gaps between sends longer than the timer's delay, per million.
    pub idle_ppm: u64,
}

/// The stream of `sends_per_min` sends of `send_bytes` per connection with `srtt_us` at `hz`.
/// A send re-arms the timer only after a reclaim, so only exchanges that begin after a gap
/// longer than τ (the timer's delay on the wheel, on average half a bucket late) raise;
/// those that follow sooner find the forward alloc the last exchange left.
pub fn stream(sends_per_min: u32, send_bytes: u64, srtt_us: u64, hz: u32) -> Stream {
    let (reclaimer, timeout_jiffies) = reclaim_timer(send_bytes, srtt_us, hz);
    let gran = super::world::wheel_granularity(timeout_jiffies);
    let tau_us = (timeout_jiffies * 2 + gran) * 1_000_000 / (2 * u64::from(hz));
    // Uniform gaps on (0, 2/λ): P(gap > τ) = 1 − λτ/2.
    let lambda_tau_half_ppm = u64::from(sends_per_min) * tau_us / 120;
    let idle_ppm = 1_000_000u64.saturating_sub(lambda_tau_half_ppm);
    let ex = exchange(send_bytes);
    let cycles_per_hour = u64::from(sends_per_min) * 60 * idle_ppm / 1_000_000;
    let mean_pages_x2 = (2 * ex.pages).div_ceil(ex.raises.max(1));
    Stream {
        timers_per_hour: (cycles_per_hour * (1 + ex.uncharge_reclaims)) as u32,
        raises_per_hour: (cycles_per_hour * ex.raises) as u32,
        raise_pages_max: mean_pages_x2.saturating_sub(1).max(1) as u32,
        timeout_jiffies,
        reclaimer,
        idle_ppm,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_16k_response_raises_twice_for_five_pages() {
        // Request: 1 page (2,304 B). Response: the skb fits the read request's page, the
        // 16 KiB chunk needs ⌈(16384 − 3200) / 4096⌉ = 4 more.
        assert_eq!(exchange(16_384), Exchange { raises: 2, pages: 5, uncharge_reclaims: 0 });
        assert_eq!(exchange(4 << 20).uncharge_reclaims, 3);
    }

    #[test]
    fn which_timer_reclaims() {
        // Internet srtt 50 ms: TLP 102 jiffies at HZ=1000 (the ACK is not back at 40 ms).
        assert_eq!(reclaim_timer(16_384, 50_000, 1000), (Reclaimer::Write, 102));
        // Datacenter: TLP 2 jiffies + 2·srtt, before the delayed ACK's 40.
        assert_eq!(reclaim_timer(16_384, 100, 1000), (Reclaimer::Write, 3));
        // One packet in a datacenter: TLP at 200 ms, the delayed-ACK timer first.
        assert_eq!(reclaim_timer(1_000, 100, 1000), (Reclaimer::Delack, 40));
    }
}
