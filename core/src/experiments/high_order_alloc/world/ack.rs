//! The receiver's ACKs as Linux 5.2 sends them: `tcp_measure_rcv_mss` and
//! `__tcp_ack_snd_check` when data arrives, the delayed-ACK timer, and the sender's
//! processing of an ACK (`snd_una` moves when its socket takes it).

use super::*;

impl StreamSim {
    /// The segment's receive half in the softirq (`tcp_rcv_established` on netserver's
    /// socket): `tcp_event_data_recv()` → `tcp_measure_rcv_mss()`, then
    /// `__tcp_ack_snd_check()`: an ACK at once when more than one `rcv_mss` came since the
    /// last ACK (`rcv_nxt - rcv_wup > rcv_mss`; the window test is taken as passed: the
    /// receive window is not modelled), else the delayed-ACK timer. An ACK sent here is sent
    /// in netperf's own context, which owns its socket: it goes to netperf's backlog.
    pub(super) fn data_arrived(&mut self, t: ThreadId, f: usize, len: u32) {
        let now = self.now_ns;
        let flow = &mut self.flows[f];
        let ack = &mut flow.ack;
        // tcp_measure_rcv_mss() (net/ipv4/tcp_input.c).
        let lss = ack.last_seg_size;
        ack.last_seg_size = 0;
        if len >= ack.rcv_mss {
            ack.rcv_mss = len;
        } else {
            let counted = len + TCP_HEADER_BYTES >= TCP_MSS_DEFAULT + 20;
            if counted {
                ack.last_seg_size = len;
            }
            if counted && len == lss {
                ack.rcv_mss = len;
            } else {
                ack.pushed = true;
            }
        }
        ack.scheduled = true;
        if flow.sent_bytes - ack.wup_bytes > u64::from(ack.rcv_mss) {
            if self.now_ns >= self.cfg.warmup_ns() {
                self.stats.acks_on_arrival += 1;
            }
            self.send_ack(t, f, true);
        } else if ack.delack_at_ns.is_none() {
            let at = now + DELACK_NS;
            ack.delack_at_ns = Some(at);
            if ack.delack_queued_ns.is_none() {
                self.queue_delack(f, at);
            }
        }
    }

    /// Puts flow `f`'s one delayed-ACK event in the queue at `at`, unless the run ends first.
    fn queue_delack(&mut self, f: usize, at: u64) {
        if at < self.end_ns() {
            self.flows[f].ack.delack_queued_ns = Some(at);
            self.queue.schedule(at, Event::DelAck { flow: f as u32 });
        }
    }

    /// `tcp_send_ack()` of netserver's socket: it acknowledges everything received
    /// (`rcv_wup = rcv_nxt`, pending ACK state cleared, the delayed-ACK timer stopped). The
    /// ACK's softirq runs on the sending CPU and calls `tcp_v4_rcv()` for netperf's socket:
    /// into its backlog when netperf owns the socket (always when `in_sender` is true: the
    /// ACK was sent from netperf's own push), else processed at once by `t`.
    pub(super) fn send_ack(&mut self, t: ThreadId, f: usize, in_sender: bool) {
        let flow = &mut self.flows[f];
        let ack_seq = flow.sent_bytes;
        flow.ack = RcvAck { wup_bytes: ack_seq, delack_at_ns: None, pushed: false, scheduled: false, ..flow.ack };
        if in_sender || self.sender_owns_socket(f) {
            if !in_sender {
                self.sock_lines(t, f, true, TX_SOCK_BACKLOG_LINES, Stack::RecvSyscall);
                if self.now_ns >= self.cfg.warmup_ns() {
                    self.stats.acks_backlogged += 1;
                }
            }
            self.flows[f].backlog_ack = Some(ack_seq);
            self.note(|| format!("netserver {f}: the ACK of {ack_seq} finds netperf's socket owned: to its backlog"));
            return;
        }
        self.process_ack(t, f, ack_seq);
    }

    /// The delayed-ACK timer fired (`tcp_delack_timer_handler`): the ACK goes to netperf's
    /// backlog, and a sleeping netperf is woken to process it (model simplification: the
    /// timer's CPU does no other work; at 40 ms it never fires in the default windows).
    pub(super) fn on_delack(&mut self, f: usize) {
        let flow = &mut self.flows[f];
        flow.ack.delack_queued_ns = None;
        match flow.ack.delack_at_ns {
            Some(at) if at > self.now_ns => return self.queue_delack(f, at),
            Some(at) if at == self.now_ns => {}
            _ => return,
        }
        flow.ack.delack_at_ns = None;
        if !flow.ack.scheduled {
            return;
        }
        if self.now_ns >= self.cfg.warmup_ns() {
            self.stats.acks_by_timer += 1;
        }
        let ack_seq = flow.sent_bytes;
        flow.ack = RcvAck { wup_bytes: ack_seq, pushed: false, scheduled: false, ..flow.ack };
        flow.backlog_ack = Some(ack_seq);
        let s = flow.sender;
        if self.threads[s as usize].state == ThreadState::Blocked {
            self.wake(s);
        }
    }

    /// `tcp_ack()` on netperf's socket, on `t`'s CPU: `snd_una` moves to `ack_seq`,
    /// `tcp_clean_rtx_queue()` frees every skb the ACK covers (the data of those netserver
    /// has read; the others keep their data until the read frees the clone) and uncharges
    /// `sk_wmem_queued`; `tcp_check_space()` wakes a netperf sleeping for buffer space once
    /// half of it is free.
    pub(super) fn process_ack(&mut self, t: ThreadId, f: usize, ack_seq: u64) {
        let flow = &mut self.flows[f];
        if ack_seq <= flow.acked_bytes {
            return;
        }
        let stack =
            if self.threads[t as usize].role == Role::Netperf { Stack::SendSyscall } else { Stack::RecvSyscall };
        self.sock_lines(t, f, true, TX_SOCK_LINES, stack);
        let flow = &mut self.flows[f];
        flow.inflight_bytes -= ack_seq - flow.acked_bytes;
        flow.acked_bytes = ack_seq;
        for skb in flow.queue.iter_mut() {
            if skb.end_seq > ack_seq {
                break;
            }
            skb.acked = true;
        }
        while self.flows[f].rtx.front().is_some_and(|s| s.end_seq <= ack_seq) {
            let mut skb = self.flows[f].rtx.pop_front().expect("checked");
            if let Some(h) = skb.heads.take() {
                self.free_heads(t, h);
            }
            self.release_frags_on(t, skb, None);
        }
        let flow = &self.flows[f];
        let s = flow.sender;
        if s != t && self.threads[s as usize].state == ThreadState::Blocked && self.write_space(flow.inflight_bytes) {
            // sk_stream_write_space: wake_up_interruptible_poll, not sync.
            self.wake_from(t, s, false);
        }
    }
}
