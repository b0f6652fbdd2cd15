//! The stream of charges and reclaims 4.x socket memory accounting makes of a workload: which
//! sends call `__sk_mem_raise_allocated()` or `sk_forced_mem_schedule()` and with how many
//! pages, which timer reclaims the socket's forward alloc, how long after the send it fires on
//! the timer wheel, and how many connections idle that long. Nothing here is a rate chosen
//! for the accounting: the workload is sends per connection, their size and the round trip,
//! and the rest is Linux 4.19's rules (the seed's era), replayed
//! charge by charge for one exchange ([`exchange_at`]).
//!
//! The rules, from include/net/sock.h, net/core/sock.c, net/core/skbuff.c, net/ipv4/tcp.c,
//! tcp_output.c, tcp_input.c and tcp_timer.c at v4.19:
//! - **Forward alloc in pages.** `sk_wmem_schedule()` / `sk_rmem_schedule()` pass when the
//!   size fits `sk_forward_alloc`; otherwise `__sk_mem_schedule(sk, size, kind)` adds
//!   `sk_mem_pages(size)` = ⌈size / SK_MEM_QUANTUM⌉ pages for the *whole* size (not the
//!   deficit: that is 6.0's 7c80b038d23e) and charges them to `tcp_memory_allocated` in
//!   `__sk_mem_raise_allocated()`. `sk_forced_mem_schedule()` (tcp_output.c) does the same
//!   without the limit checks, through `sk_memory_allocated_add()` directly: for the first skb
//!   of a write when both queues are empty (`sk_stream_alloc_skb(…, first_skb)`, 4.15+), and
//!   for the skb `tso_fragment()` / `tcp_fragment()` split off when `tcp_write_xmit()` sends
//!   part of an skb. `sk_mem_uncharge()` only gives bytes back, unless the socket then holds
//!   2 MiB, when it returns 1 MiB at once.
//! - **What a send charges.** The skb head is `alloc_skb_fclone(MAX_TCP_HEADER + linear)`;
//!   `__alloc_skb()` sets `truesize = SKB_TRUESIZE(SKB_WITH_OVERHEAD(ksize(data)))`, the whole
//!   kmalloc object ([`alloc_skb_truesize`]). The first skb of a write has a linear part
//!   (`linear_payload_sz()`); the rest of the data is copied into page frags cut from
//!   `sk_page_frag()` = `current->task_frag` (32 KiB order-3 pages, `SKB_FRAG_PAGE_ORDER`),
//!   shared by the task's sockets, one `sk_wmem_schedule(copy)` per chunk. `tcp_write_xmit()`
//!   sends `tcp_tso_autosize()` segments per skb: `sk_pacing_rate >> sk_pacing_shift` bytes
//!   (about 1 ms of data), at least `tcp_min_tso_segs` = 2.
//! - **Reclaim at a timer.** `tcp_write_timer_handler()` ends with `sk_mem_reclaim()` (every
//!   whole page), whether or not an event was pending; `tcp_delack_timer_handler()` starts with
//!   `sk_mem_reclaim_partial()` (all but ≤ 1 page, only when more than a page is spare). Both
//!   timers stay armed when their event is cancelled (`INET_CSK_CLEAR_TIMERS` is not defined).
//!   4890b686f408 (6.0) removed both reclaims.
//! - **When the write timer fires.** `tcp_write_xmit()` arms the loss probe
//!   (`tcp_schedule_loss_probe()`, bb4d991a28cc) 2·srtt + `TCP_TIMEOUT_MIN` (2 jiffies) ahead,
//!   2·srtt + `TCP_RTO_MIN` (capped by the RTO) when one packet is out; every ACK that leaves
//!   data in flight re-arms it (`tcp_ack()` → `tcp_set_xmit_timer()`), the last one only clears
//!   `icsk_pending`. After an idle gap longer than the RTO, slow start restarts at the initial
//!   window (`tcp_cwnd_restart()` halves cwnd once per RTO of idle, never below `TCP_INIT_CWND`
//!   10; we take it back at 10, true once the gap is long enough for the grown window), so a response goes out in flights
//!   ([`flights`]) and the timer fires one flight's round trip or more after the send: a
//!   16 KiB response (12 segments) goes as 10 + 2, the ACKs of the first re-arm it at srtt,
//!   and it fires 3·srtt + 2 jiffies after the send. The timer wheel's level is set by the
//!   last arm's delta (`mod_timer`), 2·srtt + 2 jiffies.
//! - **The timer wheel** (kernel/time/timer.c since 4.8) fires a timer `d` jiffies ahead on
//!   its level's granularity ([`crate::experiments::percpu_counter::world::wheel_granularity`]).
//!
//! What we simplify: the ACKs of one flight arrive together, one round trip after it left, one
//! per two segments (and the last), and a flight goes out when the previous one is all acked;
//! the receiver ACKs every two segments at once (the client's delayed ACK for a lone last
//! segment is not modelled); the request is one frame (`RX_TRUESIZE`) read before the response
//! is written; a response longer than one skb is written whole before the first flight leaves;
//! the task's page frag is never freed between responses (other responses of the task still
//! hold it), so each response starts where the last one ended; every timer of an exchange
//! expires on the wheel level of the one that reclaims last. Sends per connection are spaced
//! uniformly at random around their mean (the world's arrivals), so the share of gaps longer
//! than the reclaim's delay τ is 1 − λτ/2 (0 once λτ ≥ 2).

use crate::sim::skb::{kmalloc_size, skb_data_align, MAX_TCP_HEADER_4_19, SHINFO_2019_BYTES, SKBUFF_HEAD_CACHE_BYTES};

/// `SK_MEM_QUANTUM` (include/net/sock.h, 4.x): PAGE_SIZE, the unit of `sk_forward_alloc`
/// charges and of `tcp_memory_allocated`.
pub const SK_MEM_QUANTUM: u64 = 4096;
/// `sk_mem_uncharge()` (4.x): at this much forward alloc the socket returns
/// [`SK_RECLAIM_CHUNK`] at once.
pub const SK_RECLAIM_THRESHOLD: u64 = 1 << 21;
pub const SK_RECLAIM_CHUNK: u64 = 1 << 20;
/// `__alloc_skb(size)`'s truesize (net/core/skbuff.c, 4.19): the head is kmalloc'ed for
/// `SKB_DATA_ALIGN(size) + SKB_DATA_ALIGN(sizeof(struct skb_shared_info))`, then
/// `size = SKB_WITH_OVERHEAD(ksize(data))` and `truesize = SKB_TRUESIZE(size)`: the kmalloc
/// object (mm/slab_common.c's classes, `sim::skb::kmalloc_size`) plus `struct sk_buff`.
pub const fn alloc_skb_truesize(size: u64) -> u64 {
    let ksize = kmalloc_size(skb_data_align(size as u32) + SHINFO_2019_BYTES);
    (ksize - SHINFO_2019_BYTES + SKBUFF_HEAD_CACHE_BYTES + SHINFO_2019_BYTES) as u64
}

/// Truesize of an skb `sk_stream_alloc_skb(sk, 0, …)` allocates (a later skb of a write, or
/// the one `tso_fragment()` splits off): 304 bytes aligned to 320, + 320 of shared info = 640,
/// which kmalloc rounds up to a 1,024-byte object: 1,280.
pub const TX_SKB_TRUESIZE: u64 = alloc_skb_truesize(MAX_TCP_HEADER_4_19 as u64);
/// `linear_payload_sz(first_skb)` (net/ipv4/tcp.c since 3613b3dbd1ad, 4.15): the first skb of
/// a write when both queues are empty keeps `SKB_WITH_OVERHEAD(2048 - MAX_TCP_HEADER)` bytes of
/// payload in its head.
pub const FIRST_SKB_LINEAR: u64 = 2048 - (MAX_TCP_HEADER_4_19 as u64) - SHINFO_2019_BYTES as u64;
/// Its truesize: a 2,048-byte object, 2,304.
pub const FIRST_SKB_TRUESIZE: u64 = alloc_skb_truesize(FIRST_SKB_LINEAR.div_ceil(4) * 4 + (MAX_TCP_HEADER_4_19 as u64));
/// `GSO_MAX_SIZE` (include/linux/netdevice.h): 65,536.
pub const GSO_MAX_SIZE: u64 = 65_536;
/// The page frag a copy is cut from: `SKB_FRAG_PAGE_ORDER` 3, 32 KiB (`skb_page_frag_refill`).
pub const PFRAG_BYTES: u64 = 32_768;
/// `sk_page_frag_refill()` asks `skb_page_frag_refill(32U, …)`: a page with fewer bytes
/// left is replaced.
pub const PFRAG_REFILL_BYTES: u64 = 32;
/// Truesize of a one-frame request as a 4.x NIC driver hands it up: a half page (2 KiB) of
/// page frag plus `struct sk_buff` (256). ASSUMED: drivers of the era (ixgbe, mlx4, i40e) split
/// 4 KiB pages into 2 KiB receive buffers.
pub const RX_TRUESIZE: u64 = 2_304;
/// Payload of one 1500-byte Ethernet frame with TCP timestamps: what makes a send one packet.
pub const MSS_BYTES: u64 = 1_448;
/// `TCP_INIT_CWND` (include/net/tcp.h): 10 segments, where slow start restarts after idle.
pub const TCP_INIT_CWND: u64 = 10;
/// `sysctl_tcp_min_tso_segs` (4.19 default): 2.
pub const TCP_MIN_TSO_SEGS: u64 = 2;
/// `sk_pacing_shift` (4.16+ default): 10, the TSO skb is about 1 ms of the pacing rate.
pub const SK_PACING_SHIFT: u32 = 10;
/// `sysctl_tcp_pacing_ss_ratio` (4.19 default): 200 %, the pacing rate in slow start.
pub const TCP_PACING_SS_RATIO_PCT: u64 = 200;
/// `TCP_RTO_MIN` (include/net/tcp.h): 200 ms.
pub const TCP_RTO_MIN_US: u64 = 200_000;
/// `TCP_TIMEOUT_MIN` (include/net/tcp.h): 2 jiffies.
pub const TCP_TIMEOUT_MIN_JIFFIES: u64 = 2;
/// Responses replayed to average over where the task's page frag stands ([`exchange`]).
pub const FRAG_CYCLE_MAX: u64 = 512;

/// The charges and reclaims of exchanges (one, or the sum of several).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Exchange {
    /// `__sk_mem_raise_allocated()` calls and the pages they charge.
    pub raises: u64,
    pub raise_pages: u64,
    /// `sk_forced_mem_schedule()` charges and their pages.
    pub forced: u64,
    pub forced_pages: u64,
    /// `__sk_mem_reduce_allocated()` calls (timers, and 1 MiB returns at 2 MiB) and pages.
    pub reduces: u64,
    pub reduce_pages: u64,
}

/// One socket's forward alloc and the calls its charges make.
struct Acct {
    fw: u64,
    ex: Exchange,
}

impl Acct {
    /// `sk_wmem_schedule()` / `sk_rmem_schedule()` then `sk_mem_charge()`.
    fn schedule(&mut self, size: u64) {
        if size > self.fw {
            let n = size.div_ceil(SK_MEM_QUANTUM);
            self.ex.raises += 1;
            self.ex.raise_pages += n;
            self.fw += n * SK_MEM_QUANTUM;
        }
        self.fw -= size;
    }

    /// `sk_forced_mem_schedule()` then `sk_mem_charge()`.
    fn forced(&mut self, size: u64) {
        if size > self.fw {
            let n = size.div_ceil(SK_MEM_QUANTUM);
            self.ex.forced += 1;
            self.ex.forced_pages += n;
            self.fw += n * SK_MEM_QUANTUM;
        }
        self.fw -= size;
    }

    /// `sk_mem_uncharge()`: at 2 MiB it returns 1 MiB at once.
    fn uncharge(&mut self, size: u64) {
        self.fw += size;
        if self.fw >= SK_RECLAIM_THRESHOLD {
            self.reclaim_bytes(SK_RECLAIM_CHUNK);
        }
    }

    /// `__sk_mem_reclaim(sk, amount)`: the whole pages of `amount`.
    fn reclaim_bytes(&mut self, amount: u64) {
        let n = amount / SK_MEM_QUANTUM;
        if n > 0 {
            self.fw -= n * SK_MEM_QUANTUM;
            self.ex.reduces += 1;
            self.ex.reduce_pages += n;
        }
    }
}

/// An skb of the response: payload, truesize, bytes of payload in its head.
#[derive(Debug, Clone, Copy)]
struct Skb {
    len: u64,
    truesize: u64,
    headlen: u64,
}

/// `tcp_xmit_size_goal()` with TSO: `sk_gso_max_size - 1 - MAX_TCP_HEADER`, whole segments.
pub fn size_goal_bytes() -> u64 {
    (GSO_MAX_SIZE - 1 - (MAX_TCP_HEADER_4_19 as u64)) / MSS_BYTES * MSS_BYTES
}

/// `tcp_tso_autosize()`: segments per transmitted skb, `sk_pacing_rate >> sk_pacing_shift`
/// bytes and at least `tcp_min_tso_segs`. The pacing rate is the one the last ACK of the
/// previous response set (`tcp_update_pacing_rate()`: mss × cwnd / srtt × 200 % in slow
/// start), cwnd having grown from the initial window by that response's segments.
pub fn tso_segs(send_bytes: u64, srtt_us: u64) -> u64 {
    let cwnd = TCP_INIT_CWND + send_bytes.div_ceil(MSS_BYTES);
    let rate = MSS_BYTES * cwnd * 1_000_000 * TCP_PACING_SS_RATIO_PCT / 100 / srtt_us.max(1);
    ((rate >> SK_PACING_SHIFT) / MSS_BYTES).max(TCP_MIN_TSO_SEGS).min(size_goal_bytes() / MSS_BYTES)
}

/// The flights of a response of `segs` segments after an idle restart: the initial window,
/// doubling each round trip (slow start grows cwnd by the segments acked).
pub fn flights(segs: u64) -> Vec<u64> {
    let (mut out, mut left, mut cwnd) = (Vec::new(), segs, TCP_INIT_CWND);
    while left > 0 {
        let f = left.min(cwnd);
        out.push(f);
        left -= f;
        cwnd *= 2;
    }
    out
}

/// The response's skbs as `tcp_sendmsg_locked()` builds them, charging as it goes; the task's
/// page frag starts at `frag_off` and the offset after the copy is returned.
fn write(a: &mut Acct, send_bytes: u64, mut frag_off: u64) -> (Vec<Skb>, u64) {
    let goal = size_goal_bytes();
    // The first skb of a write with both queues empty: forced, with a linear part.
    a.forced(FIRST_SKB_TRUESIZE);
    let head = send_bytes.min(FIRST_SKB_LINEAR);
    let mut skbs = vec![Skb { len: head, truesize: FIRST_SKB_TRUESIZE, headlen: head }];
    let mut left = send_bytes - head;
    while left > 0 {
        if skbs.last().is_some_and(|s| s.len >= goal) {
            a.schedule(TX_SKB_TRUESIZE);
            skbs.push(Skb { len: 0, truesize: TX_SKB_TRUESIZE, headlen: 0 });
        }
        if PFRAG_BYTES - frag_off < PFRAG_REFILL_BYTES {
            frag_off = 0;
        }
        let skb = skbs.last_mut().expect("bug: a write without an skb");
        let copy = left.min(goal - skb.len).min(PFRAG_BYTES - frag_off);
        a.schedule(copy);
        skb.len += copy;
        skb.truesize += copy;
        frag_off += copy;
        left -= copy;
    }
    (skbs, frag_off)
}

/// `tcp_write_xmit()` sends `segs` segments from the head of `queue` in skbs of at most
/// `max_segs`, splitting an skb with `tso_fragment()` (or `tcp_fragment()` when it has head
/// data) whenever less than all of it goes: the new skb is forced-charged. Returns the sent
/// skbs (the flight).
fn transmit(a: &mut Acct, queue: &mut Vec<Skb>, mut segs: u64, max_segs: u64) -> Vec<Skb> {
    let mut flight = Vec::new();
    while segs > 0 && !queue.is_empty() {
        let skb = queue[0];
        let in_skb = skb.len.div_ceil(MSS_BYTES);
        let take = in_skb.min(max_segs).min(segs);
        segs -= take;
        if take == in_skb {
            flight.push(queue.remove(0));
            continue;
        }
        let len = take * MSS_BYTES;
        let nsize = skb.headlen.saturating_sub(len);
        let buff_truesize = alloc_skb_truesize(nsize.div_ceil(4) * 4 + (MAX_TCP_HEADER_4_19 as u64));
        a.forced(buff_truesize);
        let nlen = skb.len - len - nsize;
        queue[0] = Skb { len: skb.len - len, truesize: buff_truesize + nlen, headlen: nsize };
        flight.push(Skb { len, truesize: skb.truesize - nlen, headlen: skb.headlen - nsize });
    }
    flight
}

/// `usecs_to_jiffies` (rounds up).
fn jiffies(us: u64, hz: u32) -> u64 {
    (us * u64::from(hz)).div_ceil(1_000_000)
}

fn jiffies_us(j: u64, hz: u32) -> u64 {
    j * 1_000_000 / u64::from(hz)
}

/// Which timer returns the forward alloc last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reclaimer {
    /// `tcp_write_timer` (the seed's path): the loss-probe timer left armed.
    Write,
    /// `tcp_delack_timer`: fires after the response is acked and before the write timer.
    Delack,
}

/// When the two timers of an exchange expire: the write timer's last arm (µs after the send)
/// and its delta (jiffies, which sets its wheel level), the delayed-ACK timer's delta.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timers {
    pub write_armed_us: u64,
    pub write_jiffies: u64,
    pub delack_jiffies: u64,
}

impl Timers {
    pub fn write_us(&self, hz: u32) -> u64 {
        self.write_armed_us + jiffies_us(self.write_jiffies, hz)
    }

    pub fn delack_us(&self, hz: u32) -> u64 {
        jiffies_us(self.delack_jiffies, hz)
    }
}

/// The timers of a response of `send_bytes` with `srtt_us` at `hz`. The loss probe is re-armed
/// by the last ACK that leaves data in flight: the last flight's next-to-last ACK if it has
/// more than one, else the previous flight's ACKs (or the send itself for a single flight
/// acked at once). One packet then out: 2·srtt + `TCP_RTO_MIN`, never past the RTO (srtt +
/// 4·rttvar, rttvar ≥ `TCP_RTO_MIN`/4); more: 2·srtt + `TCP_TIMEOUT_MIN`. The server's
/// delayed-ACK timer was armed `TCP_ATO_MIN` (HZ/25 jiffies) after the request (the server
/// answers within its ato, so it stays in pingpong mode and delays its ACKs).
pub fn timers(send_bytes: u64, srtt_us: u64, hz: u32) -> Timers {
    let segs = send_bytes.div_ceil(MSS_BYTES).max(1);
    let fl = flights(segs);
    let last = *fl.last().expect("bug: a response with no flight");
    let acks_last = last.div_ceil(2);
    let (rounds, out) = if acks_last >= 2 {
        (fl.len() as u64, last - 2 * (acks_last - 1))
    } else if fl.len() >= 2 {
        (fl.len() as u64 - 1, last)
    } else {
        (0, segs)
    };
    let two_srtt = jiffies(2 * srtt_us, hz);
    let write_jiffies = if out == 1 {
        (two_srtt + jiffies(TCP_RTO_MIN_US, hz)).min(jiffies(srtt_us + TCP_RTO_MIN_US, hz))
    } else {
        two_srtt + TCP_TIMEOUT_MIN_JIFFIES
    };
    Timers { write_armed_us: rounds * srtt_us, write_jiffies, delack_jiffies: u64::from(hz / 25).max(1) }
}

/// One exchange after a reclaim (the forward alloc at 0: every charge is whole pages and every
/// byte is uncharged, so a reclaim leaves none), with the task's page frag at `frag_off`: the
/// request, the response's skbs and chunks, its flights and their ACKs, the two timers in
/// time order. Returns the calls, which timer reclaimed last, and the frag offset after it.
pub fn exchange_at(send_bytes: u64, srtt_us: u64, hz: u32, frag_off: u64) -> (Exchange, Reclaimer, u64) {
    let mut a = Acct { fw: 0, ex: Exchange::default() };
    // The request: sk_rmem_schedule at tcp_data_queue, uncharged when the application reads it.
    a.schedule(RX_TRUESIZE);
    a.uncharge(RX_TRUESIZE);
    let (mut queue, frag_after) = write(&mut a, send_bytes, frag_off);
    let max_segs = tso_segs(send_bytes, srtt_us);
    let fl = flights(send_bytes.div_ceil(MSS_BYTES).max(1));
    let t = timers(send_bytes, srtt_us, hz);
    let (write_us, delack_us) = (t.write_us(hz), t.delack_us(hz));
    let mut in_flight = transmit(&mut a, &mut queue, fl[0], max_segs);
    let (mut delack_done, mut reclaimer) = (false, Reclaimer::Write);
    let delack = |a: &mut Acct, reclaimer: &mut Reclaimer| {
        let before = a.ex.reduces;
        if a.fw > SK_MEM_QUANTUM {
            a.reclaim_bytes(a.fw - 1);
        }
        if a.ex.reduces > before {
            *reclaimer = Reclaimer::Delack;
        }
    };
    for k in 0..fl.len() {
        let ack_us = (k as u64 + 1) * srtt_us;
        if !delack_done && delack_us < ack_us {
            delack(&mut a, &mut reclaimer);
            delack_done = true;
        }
        for skb in std::mem::take(&mut in_flight) {
            a.uncharge(skb.truesize);
        }
        if let Some(&next) = fl.get(k + 1) {
            in_flight = transmit(&mut a, &mut queue, next, max_segs);
        }
    }
    if !delack_done && delack_us < write_us {
        delack(&mut a, &mut reclaimer);
    }
    // tcp_write_timer_handler() → sk_mem_reclaim(): every whole page.
    let before = a.ex.reduces;
    a.reclaim_bytes(a.fw);
    if a.ex.reduces > before {
        reclaimer = Reclaimer::Write;
    }
    (a.ex, reclaimer, frag_after)
}

/// The exchanges of `send_bytes` responses summed over [`FRAG_CYCLE_MAX`] responses of the
/// task (or one cycle of the page frag's offset, if shorter), so that the chunks follow where
/// the shared frag stands; and how many responses that is.
pub fn exchange(send_bytes: u64, srtt_us: u64, hz: u32) -> (Exchange, u64, Reclaimer) {
    let (mut sum, mut off, mut n, mut reclaimer) = (Exchange::default(), 0, 0, Reclaimer::Write);
    while n < FRAG_CYCLE_MAX {
        let (e, r, next) = exchange_at(send_bytes, srtt_us, hz, off);
        sum.raises += e.raises;
        sum.raise_pages += e.raise_pages;
        sum.forced += e.forced;
        sum.forced_pages += e.forced_pages;
        sum.reduces += e.reduces;
        sum.reduce_pages += e.reduce_pages;
        reclaimer = r;
        off = next;
        n += 1;
        if off == 0 || off == PFRAG_BYTES {
            break;
        }
    }
    (sum, n, reclaimer)
}

/// The accounting stream of a workload, per connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    /// Reclaims per hour (every one returns whole pages).
    pub timers_per_hour: u32,
    /// Charges per hour: `__sk_mem_raise_allocated` calls and `sk_forced_mem_schedule` ones.
    pub raises_per_hour: u32,
    /// Of those, the forced ones (`sk_forced_mem_schedule`), per million charges.
    pub forced_ppm: u32,
    /// A raise charges 1..=this many pages (uniform), so their mean is the exchanges'.
    pub raise_pages_max: u32,
    /// Pages of a forced charge (the mean, rounded).
    pub forced_pages: u32,
    /// The reclaiming timer's delta at its last arm (jiffies: its wheel level), and which.
    pub timeout_jiffies: u64,
    pub reclaimer: Reclaimer,
    /// µs from the send to the reclaiming timer's expiry, half a wheel bucket late on average.
    pub tau_us: u64,
    /// Gaps between sends longer than τ, per million.
    pub idle_ppm: u64,
}

/// The stream of `sends_per_min` sends of `send_bytes` per connection with `srtt_us` at `hz`.
/// A send re-arms the timer only after a reclaim, so only exchanges that begin after a gap
/// longer than τ raise; those that follow sooner find the forward alloc the last one left.
pub fn stream(sends_per_min: u32, send_bytes: u64, srtt_us: u64, hz: u32) -> Stream {
    let (ex, n, reclaimer) = exchange(send_bytes, srtt_us, hz);
    let t = timers(send_bytes, srtt_us, hz);
    let (timeout_jiffies, at_us) = match reclaimer {
        Reclaimer::Write => (t.write_jiffies, t.write_us(hz)),
        Reclaimer::Delack => (t.delack_jiffies, t.delack_us(hz)),
    };
    let gran = super::world::wheel_granularity(timeout_jiffies);
    let tau_us = at_us + gran * 1_000_000 / (2 * u64::from(hz));
    // Uniform gaps on (0, 2/λ): P(gap > τ) = 1 − λτ/2.
    let lambda_tau_half_ppm = u64::from(sends_per_min) * tau_us / 120;
    let idle_ppm = 1_000_000u64.saturating_sub(lambda_tau_half_ppm);
    // Exchanges per hour that end in a reclaim, × the n responses the sums are over.
    let cycles_x_n = u64::from(sends_per_min) * 60 * idle_ppm / 1_000_000;
    let per_hour = |count: u64| (cycles_x_n * count / n) as u32;
    let charges = ex.raises + ex.forced;
    Stream {
        timers_per_hour: per_hour(ex.reduces),
        raises_per_hour: per_hour(charges),
        forced_ppm: (ex.forced * 1_000_000 / charges.max(1)) as u32,
        raise_pages_max: ((2 * ex.raise_pages).div_ceil(ex.raises.max(1))).saturating_sub(1).max(1) as u32,
        forced_pages: ex.forced_pages.div_ceil(ex.forced.max(1)).max(1) as u32,
        timeout_jiffies,
        reclaimer,
        tau_us,
        idle_ppm,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truesizes_follow_kmalloc() {
        // 304 + 320 = 640 → a 1,024-byte object; the first skb's 1,728 + 320 → 2,048.
        assert_eq!((TX_SKB_TRUESIZE, FIRST_SKB_TRUESIZE, FIRST_SKB_LINEAR), (1280, 2304, 1424));
        assert_eq!(size_goal_bytes(), 45 * 1448);
    }

    #[test]
    fn a_16k_response_at_the_start_of_a_frag() {
        // Request: 1 page. First skb forced from the request's page (2,304 ≤ 4,096); the
        // 14,960 bytes left in one chunk raise sk_mem_pages(14960) = 4 pages; the 2-MSS skbs
        // of the first flight split off 5 skbs of 1,280, the third of which needs a page.
        let (e, r, off) = exchange_at(16_384, 50_000, 1000, 0);
        assert_eq!((e.raises, e.raise_pages, e.forced, e.forced_pages), (2, 5, 1, 1));
        assert_eq!((e.reduces, e.reduce_pages, r, off), (1, 6, Reclaimer::Write, 14_960));
        // 4 MiB: the ACKs bring the forward alloc to 2 MiB and it returns 1 MiB, more than once.
        assert!(exchange_at(4 << 20, 50_000, 1000, 0).0.reduces >= 3);
    }

    #[test]
    fn every_page_charged_is_returned() {
        for bytes in [1_000, 2_048, 16_384, 100_000, 262_144, 1 << 20, 3 << 20] {
            for (srtt, off) in [(50_000, 0), (100, 20_000), (150_000, 32_000)] {
                let (e, _, _) = exchange_at(bytes, srtt, 1000, off);
                assert_eq!(e.reduce_pages, e.raise_pages + e.forced_pages, "{bytes} B, srtt {srtt}");
            }
        }
    }

    #[test]
    fn the_write_timer_fires_three_round_trips_after_a_16k_send() {
        // 12 segments: flights of 10 and 2; the first flight's ACKs re-arm it at srtt.
        assert_eq!(flights(12), vec![10, 2]);
        let t = timers(16_384, 50_000, 1000);
        assert_eq!((t.write_armed_us, t.write_jiffies, t.write_us(1000)), (50_000, 102, 152_000));
        // One packet: 2·srtt + 200 ms, capped by the RTO (srtt + 200 ms).
        assert_eq!(timers(1_000, 100, 1000).write_jiffies, 201);
        assert_eq!(tso_segs(16_384, 50_000), 2);
        assert_eq!(tso_segs(16_384, 100), 45);
    }

    #[test]
    fn the_delayed_ack_timer_reclaims_only_more_than_a_page() {
        // One packet in a datacenter: the ACK is back long before the delayed-ACK timer, but
        // the socket then holds exactly the request's page, which sk_mem_reclaim_partial()
        // leaves: the write timer (201 jiffies) returns it.
        assert_eq!(exchange_at(1_000, 100, 1000, 0).1, Reclaimer::Write);
        // 64 KiB over 50 ms: at 40 ms the first flight's split skbs left more than a page
        // spare, so the delayed-ACK timer returns some before the write timer the rest.
        let (e, r, _) = exchange_at(65_536, 50_000, 1000, 0);
        assert_eq!(r, Reclaimer::Write);
        assert!(e.reduces >= 1);
    }
}
