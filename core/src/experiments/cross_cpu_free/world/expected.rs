//! The events a run of `cross-cpu-free` is expected to take, from its configuration alone:
//! the rate of each stage (sender, receiver's interrupt CPU, readers) from the profile's
//! per-packet cycles, the slowest setting the pace, times the events each packet makes and the
//! simulated time (warm-up, window and the drain of a slow reader's socket). An expectation
//! for the estimate and the page's cost, not a bound: the world's own cap bounds the work.

use super::{udp_wire_bytes, Config, Consumer, Workload, DRAIN_MAX_NS, GRO_FRAMES, RX_RING, UDP_RCVBUF_BYTES};
use crate::sim::skb::TCP_MSS;

/// Events per datagram sent while the wire is idle: `Send`, `Arrive` and two of netfront's
/// `TxIrq` (one per `rsp_event` set by the send's `xennet_tx_buf_gc()`, one when the datagram
/// is the one `rsp_event` names). When the link sets the pace the datagram queues behind
/// others and is rarely the one named: one `TxIrq` fewer.
const SENT_EVENTS: f64 = 4.0;
/// Per datagram the interrupt CPU takes: `Irq` and `Deliver` (and with the reader on the same
/// CPU, an `Irq` put off behind the reader).
const TAKEN_EVENTS: f64 = 2.0;
/// Per tcp skb: `Irq`, `Deliver`, `Read`, and half the time the reader's read that finds the
/// socket empty.
const TCP_SKB_EVENTS: f64 = 3.5;

/// The expected events of one run of `cfg`.
pub fn expected_events(cfg: &Config) -> u64 {
    let time_ns = (cfg.warmup_ns() + cfg.measure_ns()) as f64;
    let events = match cfg.input.workload {
        Workload::UdpIperf => udp_events(cfg, time_ns),
        Workload::Tcp100g => tcp_events(cfg, time_ns),
    };
    events.ceil() as u64
}

/// udp-iperf: the clients send at their CPU's or the link's pace; the interrupt CPU takes what
/// it can (the rest is dropped at the ring); the readers read what they can (the rest is
/// dropped at the socket); a full ring and a full socket are drained after the window while
/// the clients go on sending. A reader that keeps up reads twice per datagram (the second
/// read finds the socket empty and sleeps), one that falls behind once; with the reader on the
/// interrupt CPU, the two take turns once the reader falls behind.
fn udp_events(cfg: &Config, time_ns: f64) -> f64 {
    let p = cfg.profile;
    let k = &p.kernel;
    let objs = 2 + u64::from(cfg.input.shinfo_split);
    let bytes = u64::from(cfg.input.datagram_bytes);
    let slub = objs * k.slub_fast_cycles.int();
    let syscalls = k.syscall_cycles.int() * p.iperf_syscalls;
    let client = p.ns(p.iperf_user_cycles + syscalls + k.udp_send_cycles.int() + k.skb_cycles.int())
        + p.ns(p.copy_cycles(bytes) + k.pv_net_tx_cycles.int() + 2 * slub);
    let wire = (udp_wire_bytes(cfg.input.datagram_bytes) * 8 * 1000).div_ceil(p.link_mbps.max(1));
    let irq = p.ns(k.pv_net_rx_cycles.int() + k.skb_cycles.int() / 2 + k.udp_rcv_cycles.int() + slub);
    let reader = p.ns(syscalls + k.udp_recvmsg_cycles.int() + p.copy_cycles(bytes) + p.iperf_user_cycles)
        + p.ns(k.skb_cycles.int() / 2 + objs * k.slub_slow_cycles.int())
        + cfg.input.reader_work_ns;
    let per_ns = |n: u64, ns: u64| n as f64 / ns.max(1) as f64;
    let n = u64::from(cfg.input.consumers.max(1));
    let link_bound = per_ns(n, client) > per_ns(1, wire);
    let sent = per_ns(n, client).min(per_ns(1, wire));
    let same = cfg.input.consumer == Consumer::Same;
    let mut wakeups = 0.0;
    let (irq, taken, read) = if same && sent > per_ns(1, irq + reader) {
        (irq + reader, per_ns(1, irq + reader), per_ns(1, irq + reader))
    } else if same {
        (irq, sent, sent)
    } else {
        // A reader on its own CPU that keeps up sleeps once its socket is empty; the interrupt
        // CPU wakes it (try_to_wake_up, `wakeup_cycles`) and it runs `wake_latency_ns` later,
        // reading what queued meanwhile: one wakeup per 1 + (latency + a read) × its share of
        // the rate datagrams, paid by the interrupt CPU, which sets that rate (a fixed point).
        let (wake, cycle) = (p.ns(k.wakeup_cycles.int()) as f64, (k.wake_latency_ns.int() + reader) as f64);
        let mut taken = sent.min(per_ns(1, irq));
        for _ in 0..16 {
            let keeps_up = taken <= per_ns(n, reader);
            wakeups = if keeps_up { 1.0 / (1.0 + cycle * taken / n as f64) } else { 0.0 };
            taken = sent.min(1.0 / (irq as f64 + wakeups * wake).max(1.0));
        }
        let irq = irq + (wakeups * wake) as u64;
        (irq, taken, taken.min(per_ns(n, reader)))
    };
    // What piles up over the run: the clients' transmit rings (sends the link has not carried
    // yet), the receiver's ring and each reader's socket; the last two are drained after the
    // window, the clients sending on meanwhile.
    let rings = (per_ns(n, client) - sent) * time_ns;
    let tx_fill = rings.clamp(0.0, (n * u64::from(p.tx_ring)) as f64);
    let rx_ring = ((sent - taken) * time_ns).clamp(0.0, RX_RING as f64);
    let behind = same || read < taken * 0.99;
    // A slow reader also gets its share of the ring.
    let queued = (taken - read) * time_ns + if behind { rx_ring } else { 0.0 };
    let socket = (queued / n as f64).clamp(0.0, (UDP_RCVBUF_BYTES / (bytes + 768)) as f64);
    let drain = (rx_ring * irq as f64).max(socket * reader as f64).min(DRAIN_MAX_NS as f64);
    let per_sent = SENT_EVENTS - f64::from(u8::from(link_bound));
    let per_taken = TAKEN_EVENTS + f64::from(u8::from(same));
    // Each read takes a datagram; a reader that sleeps reads once more to find its socket empty.
    let per_read = if behind {
        1.0
    } else if same {
        2.0
    } else {
        1.0 + wakeups
    };
    (time_ns + drain) * (per_sent * sent + per_taken * taken + per_read * read) + tx_fill
}

/// tcp-100g: one GRO skb of [`GRO_FRAMES`] frames at the pace of the link, CPU A (driver, a
/// page per frame, the skb; the TCP receive without RFS, the steering with it) or CPU B
/// (the TCP receive with RFS, recvmsg, the copy, the frees).
fn tcp_events(cfg: &Config, time_ns: f64) -> f64 {
    let p = cfg.profile;
    let k = &p.kernel;
    let frames = u64::from(GRO_FRAMES);
    let slub = 2 * k.slub_fast_cycles.int();
    let wire = (u64::from(TCP_MSS + 52 + 38) * 8 * frames * 1000).div_ceil(p.link_mbps.max(1));
    let (rcv_a, rcv_b) =
        if cfg.input.rfs { (k.rps_enqueue_cycles.int(), p.tcp_rx_skb_cycles()) } else { (p.tcp_rx_skb_cycles(), 0) };
    let a = p.ns(frames * (k.nic_rx_pkt_cycles.int() + k.pcp_op_cycles.int()) + k.skb_cycles.int() / 2 + slub)
        + p.ns(rcv_a);
    let b = p.ns(k.syscall_cycles.int() + p.tcp_recvmsg_skb_cycles() + p.copy_cycles(u64::from(TCP_MSS) * frames))
        + p.ns(k.skb_cycles.int() / 2 + slub + frames * k.pcp_op_cycles.int() + rcv_b);
    time_ns * TCP_SKB_EVENTS / wire.max(a).max(b).max(1) as f64
}
