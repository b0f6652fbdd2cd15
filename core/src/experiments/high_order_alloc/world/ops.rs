//! The syscalls of the TCP_STREAM model, one handler per [`Action`] (the end of a syscall,
//! sleeping and waking are in `sched.rs`; the operations under zone->lock in `zone_ops.rs`).
//!
//! Sender (`tcp_sendmsg`): syscall work, then for every chunk `skb_page_frag_refill()`
//! (reuse, or `put_page` of the old page and a new allocation), `page_ref_inc` and the copy,
//! then `tcp_push` → loopback → softirq → the receiver's queue, and at the end `release_sock`
//! (the ACKs in the socket's backlog free their skbs here). Receiver (`tcp_recvmsg`): syscall
//! work, the copy out, the clone's free, the ACK: processed at once on this CPU if netperf
//! does not own its socket (`skb_release_data()`: one `put_page` per frag, and the free of
//! every page whose last reference it drops), else queued to netperf's backlog.

use super::*;

// The handlers below run an action's private work (`StreamSim::work`, `StreamSim::advance`)
// at once when it would be the next action anyway: it only advances this thread's own clock
// (never the global one) and charges the profile, so running it now or popping it next from
// `prog` is the same, minus a push and a pop. Work queued behind a sync action stays queued.
// Not in `zone_op`: its actions run after the lock is released, which resets the cursor.

impl StreamSim {
    /// `tcp_sendmsg()` entry: wait for socket buffer space, then copy `msg_bytes` into the
    /// tail skb (new skbs as each reaches the size goal), then `tcp_push()`.
    pub(super) fn begin_send(&mut self, t: ThreadId) -> bool {
        let msg = self.cfg.input.msg_bytes;
        let f = self.threads[t as usize].flow as usize;
        if let Some(ack_seq) = self.flows[f].backlog_ack.take() {
            // An ACK queued while netperf could not process it (its own last push, the
            // delayed-ACK timer): `sk_stream_wait_memory` releases the socket before it
            // sleeps, and `release_sock` processes it.
            self.run_next(t, &[Action::BeginSend]);
            self.process_ack(t, f, ack_seq);
            return true;
        }
        if self.flows[f].inflight_bytes + u64::from(msg) > u64::from(self.cfg.input.sndbuf_bytes) {
            // sk_stream_wait_memory(): a held tail goes out first (tcp_push with
            // TCP_NAGLE_PUSH before sleeping), so the receiver always has something to ack.
            if self.threads[t as usize].skb.len_bytes > 0 {
                let [a, b, c] = self.xmit_actions();
                self.run_next(t, &[a, b, c, Action::BeginSend]);
                return true;
            }
            self.note(|| format!("netperf {f} sleeps: socket buffer full (sk_stream_wait_memory)"));
            self.block(t, Action::BeginSend);
            return false;
        }
        self.flows[f].inflight_bytes += u64::from(msg);
        self.sock_lines(t, f, true, TX_SOCK_LINES, Stack::SendSyscall);
        let syscall = self.cfg.machine.syscall_cycles;
        let th = &mut self.threads[t as usize];
        th.jitter_permille = JITTER_MIN_PERMILLE + u64::from(th.rng.below(JITTER_SPAN_PERMILLE));
        self.note(|| format!("netperf {f} enters tcp_sendmsg({msg} bytes)"));
        self.work(t, syscall, Stack::SendSyscall);
        self.run_next(t, &[Action::FillFrags { remaining_bytes: msg }, Action::TcpPush, Action::EndOp]);
        true
    }

    /// `tcp_push()` at the end of `tcp_sendmsg()` (and again after `release_sock` ran the
    /// backlog's ACKs, `tcp_data_snd_check`): a full skb goes out; a partial tail goes out
    /// unless Nagle holds it. netperf leaves Nagle on (no `-D`), and Linux's test is Minshall's
    /// (`tcp_nagle_check` → `tcp_minshall_check`): a segment shorter than the size goal waits
    /// while an earlier short one is unacknowledged (on loopback: not yet read by netserver),
    /// and the next `sendmsg` appends to it (`tcp_sendmsg_locked` copies into the write
    /// queue's tail skb up to the size goal).
    pub(super) fn tcp_push(&mut self, t: ThreadId) {
        let th = &self.threads[t as usize];
        let len = th.skb.len_bytes;
        if len == 0 {
            return;
        }
        let flow = &self.flows[th.flow as usize];
        let small_unacked = flow.small_end_bytes > flow.acked_bytes;
        if len >= SIZE_GOAL_BYTES || !small_unacked {
            self.transmit(t);
        } else {
            let f = th.flow;
            self.note(|| format!("netperf {f}: {len}-byte tail skb held (Nagle: a short segment is unacked)"));
        }
    }

    /// One segment's work (an skb of at most the size goal is one segment on loopback): the
    /// transmit half (`tcp_write_xmit`, `__tcp_transmit_skb`, IP, `loopback_xmit`) and the
    /// softirq receive half (`ip_rcv` .. `tcp_v4_rcv`, queueing, `sk_data_ready`), both on
    /// the sender's CPU; `tcp_rx_share_pct` of the catalogue splits the profile between them.
    fn xmit_actions(&self) -> [Action; 3] {
        let m = &self.cfg.machine;
        let share = crate::sim::catalogue::kernel(m.family, m.era).map_or(50, |k| k.tcp_rx_share_pct.int());
        let rx = m.skb_tx_cycles * share / 100;
        [
            Action::Work { cycles: m.skb_tx_cycles - rx, stack: Stack::TcpXmit },
            Action::Work { cycles: rx, stack: Stack::TcpTransmit },
            Action::Push,
        ]
    }

    /// The tail skb goes out now.
    fn transmit(&mut self, t: ThreadId) {
        let acts = self.xmit_actions();
        self.run_next(t, &acts);
    }

    pub(super) fn fill_frags(&mut self, t: ThreadId, remaining_bytes: u32) {
        if remaining_bytes == 0 {
            return;
        }
        if self.threads[t as usize].skb.len_bytes >= SIZE_GOAL_BYTES {
            // The tail skb reached the size goal: it goes out (`tcp_push_one`), the copy goes
            // on into a new one.
            let [a, b, c] = self.xmit_actions();
            self.run_next(t, &[a, b, c, Action::FillFrags { remaining_bytes }]);
            return;
        }
        let skb = &self.threads[t as usize].skb;
        if skb.len_bytes == 0 && skb.heads.is_none() && self.skb_alloc(t, Action::FillFrags { remaining_bytes }) {
            return;
        }
        let m = &self.cfg.machine;
        let th = &mut self.threads[t as usize];
        let refs = th.pfrag.page.map_or(0, |p| self.zones[p.node as usize].page_ref(p.pfn));
        let was_full = th.pfrag.page.is_some() && th.pfrag.room_bytes() == 0;
        let order = first_order(self.cfg.high_order_alloc_disable);
        match th.pfrag.refill(refs) {
            Refill::Ready => {
                if was_full {
                    self.stats.frag_reuses += 1;
                }
                self.append_frag(t, remaining_bytes);
            }
            Refill::PutAndAlloc(page) => {
                let cpu = th.cpu;
                let zone = &mut self.zones[page.node as usize];
                let line_ns = zone.touch_page(m, &self.caches, cpu, page.pfn);
                let last = zone.put_page_testzero(page.pfn);
                let page_op_cycles = m.page_op_cycles;
                // put_page's private work runs at once (it would be the next action).
                self.advance(t, line_ns, Stack::PutPage);
                self.work(t, page_op_cycles, Stack::PutPage);
                let refill = [Action::AllocFrag { order }, Action::FillFrags { remaining_bytes }];
                if last {
                    self.stats.last_put_by_sender += 1;
                    self.run_next(t, &[Action::FreePage { page }, refill[0], refill[1]]);
                } else {
                    self.run_next(t, &refill);
                }
            }
            Refill::Alloc => {
                self.run_next(t, &[Action::AllocFrag { order }, Action::FillFrags { remaining_bytes }]);
            }
        }
    }

    /// Whether `next`, a sync action of `tcp_sendmsg`, may run now, before the global clock
    /// reaches the thread: what it reads no other CPU can change while netperf owns its
    /// socket, so one `tcp_sendmsg` fills its skb in one event (one per copy batch) instead of
    /// waiting twice per page.
    ///
    /// - `TcpPush`: the tail's length is the task's, and `snd_una` (Nagle's test) moves only
    ///   when netperf's socket processes an ACK: while netperf is inside `tcp_sendmsg` an ACK
    ///   goes to the backlog (`send_ack`), processed at `release_sock` (`EndOp`).
    /// - `FillFrags`: when the skb already has its sk_buff (`sk_stream_alloc_skb` touches the
    ///   shared skb caches) and the task's frag page is referenced only by the task and by
    ///   the frags of the skb it is filling, which no other CPU holds until `tcp_push`: its
    ///   refcount, `put_page` and reuse come out the same whenever they run. A new page from
    ///   this CPU's per-CPU list is the CPU's own while the syscall runs; zone->lock, the
    ///   watermark and the push still wait for the clock.
    ///
    /// ASSUMPTION (ours): a batch's cache effects (the lines its copies pull, the socket's L3
    /// fill) are applied when it starts, not at each chunk's own time, so another CPU's copy
    /// in between sees them a few µs early.
    pub(super) fn runs_ahead(&self, t: ThreadId, next: Action) -> bool {
        match next {
            Action::TcpPush => true,
            Action::FillFrags { .. } => {
                let th = &self.threads[t as usize];
                if th.skb.len_bytes == 0 && th.skb.heads.is_none() {
                    return false;
                }
                let Some(page) = th.pfrag.page else { return true };
                let in_tail = th.skb.frags.iter().filter(|f| f.page == page).count() as u32;
                self.zones[page.node as usize].page_ref(page.pfn) == 1 + in_tail
            }
            _ => false,
        }
    }

    /// Copies the next chunk into the page frag: extends the last frag or adds one (+1 ref).
    fn append_frag(&mut self, t: ThreadId, remaining_bytes: u32) {
        let m = &self.cfg.machine;
        let th = &mut self.threads[t as usize];
        let page = th.pfrag.page.expect("bug: refill ready without a page");
        let chunk = remaining_bytes.min(th.pfrag.room_bytes()).min(SIZE_GOAL_BYTES - th.skb.len_bytes);
        th.skb.len_bytes += chunk;
        let start = th.pfrag.offset_bytes;
        th.pfrag.offset_bytes += chunk;
        let mut frag_cycles = 0;
        let mut line_ns = 0;
        match th.skb.frags.last_mut() {
            Some(last) if last.page == page && last.end_bytes == start => last.end_bytes += chunk,
            _ => {
                th.skb.frags.push(Frag { page, start_bytes: start, end_bytes: start + chunk });
                let zone = &mut self.zones[page.node as usize];
                zone.get_page(page.pfn);
                line_ns = zone.touch_page(m, &self.caches, th.cpu, page.pfn);
                frag_cycles = m.frag_cycles + m.page_op_cycles;
            }
        }
        let (cpu, at) = (th.cpu, th.cursor_ns);
        let shared_before = self.caches.shared_writes();
        let by =
            self.zones[page.node as usize].copy_data(&mut self.caches, cpu, page.pfn, (start, start + chunk), true);
        let local = self.caches.socket(cpu) == page.node;
        // The lines the receiver's copy out left in its L2 (a recycled frag) are invalidated
        // before the copy's stores complete.
        let shared = self.caches.shared_writes() - shared_before;
        let stall_ns = self.stall_ns(&by, true, local) + self.cfg.machine.write_shared_stall_ns(shared);
        if at >= self.cfg.warmup_ns() {
            self.stats.copy_bytes += u64::from(chunk);
            for (sum, n) in self.stats.tx_lines_from.iter_mut().zip(by) {
                *sum += u64::from(n);
            }
        }
        let copy = self.copy_cycles(chunk);
        self.advance(t, line_ns, Stack::FragFill);
        self.work(t, frag_cycles, Stack::FragFill);
        self.work(t, copy, Stack::CopyFromUser);
        self.advance(t, stall_ns, Stack::CopyFromUser);
        self.run_next(t, &[Action::FillFrags { remaining_bytes: remaining_bytes - chunk }]);
    }

    /// Stall of a streaming copy (`write`: into the frag) that found `by[source]` lines in each source.
    fn stall_ns(&self, by: &[u32; SOURCES], write: bool, home_is_local: bool) -> u64 {
        self.cfg.machine.copy_stall_ns(by, write, home_is_local)
    }

    pub(super) fn alloc_frag(&mut self, t: ThreadId, order: usize) {
        let m = &self.cfg.machine;
        let th = &self.threads[t as usize];
        let cpu = th.cpu;
        let node = self.caches.socket(cpu);
        let zone = &mut self.zones[node as usize];
        if !zone.pcp_allowed(order) {
            let locked = Action::Locked(ZoneOp::Rmqueue { node, order });
            if super::constants::WATERMARK_READS {
                self.run_next(t, &[Action::Watermark { node, order }, locked]);
            } else {
                self.run_next(t, &[locked]);
            }
            return;
        }
        match zone.pcp_alloc(cpu, order) {
            Some(pfn) => {
                let line_ns = zone.touch_page(m, &self.caches, cpu, pfn);
                let cycles = m.page_op_cycles;
                self.installed(t, PageRef { node, pfn, order }, "per-cpu list");
                self.work(t, cycles, Stack::PcpAlloc);
                self.advance(t, line_ns, Stack::PcpAlloc);
            }
            None => {
                self.run_next(t, &[Action::Locked(ZoneOp::RmqueueBulk { node, order }), Action::AllocFrag { order }])
            }
        }
    }

    /// A new page becomes the task's frag.
    pub(super) fn installed(&mut self, t: ThreadId, page: PageRef, source: &'static str) {
        if page.order == 0 {
            self.stats.order0_allocs += 1;
        } else {
            self.stats.order3_allocs += 1;
        }
        let th = &mut self.threads[t as usize];
        th.pfrag.install(page);
        let (cpu, flow) = (th.cpu, th.flow);
        if page.order > 0 {
            // prep_compound_page(), after the lock is dropped: queued, so it runs then.
            let m = &self.cfg.machine;
            let (cycles, ns) =
                self.zones[page.node as usize].compound_pages(m, &self.caches, cpu, page.pfn, page.order);
            let stack = Stack::PrepCompound;
            self.run_next(t, &[Action::Work { cycles, stack }, Action::LineNs { ns, stack }]);
        }
        if let Some(tr) = &mut self.trace {
            tr.refills.push(RefillMarker { cpu, flow, order: page.order as u32, pfn: page.pfn, source: source.into() });
        }
    }

    /// An allocation found nothing: order 3 falls back to order 0 (`__GFP_NORETRY` without
    /// direct reclaim, so no drain); order 0 first drains every per-CPU list of the zone back to
    /// the buddy and retries (`__alloc_pages_direct_reclaim`: `drain_all_pages()`, then `goto
    /// retry`), and only if the lists held nothing backs off.
    pub(super) fn alloc_failed(&mut self, t: ThreadId, order: usize) {
        let node = self.caches.socket(self.threads[t as usize].cpu);
        if order > 0 {
            self.stats.fallbacks += 1;
            self.run_next(t, &[Action::AllocFrag { order: 0 }]);
        } else if self.zones[node as usize].pcp_pages() > 0 {
            self.stats.pcp_drains += 1;
            self.run_next(t, &[Action::Locked(ZoneOp::DrainAll { node }), Action::AllocFrag { order: 0 }]);
        } else {
            self.stats.alloc_failures += 1;
            let backoff = Action::Work { cycles: 100_000, stack: Stack::Schedule };
            self.run_next(t, &[backoff, Action::AllocFrag { order: 0 }]);
        }
    }

    pub(super) fn push(&mut self, t: ThreadId) {
        let spare = self.spare_frags.pop().unwrap_or_else(|| Vec::with_capacity(17));
        let th = &mut self.threads[t as usize];
        let mut skb = std::mem::replace(&mut th.skb, Skb { frags: spare, ..Skb::default() });
        let f = th.flow as usize;
        let flow = &mut self.flows[f];
        let len = skb.len_bytes;
        flow.sent_bytes += u64::from(len);
        skb.end_seq = flow.sent_bytes;
        if len < SIZE_GOAL_BYTES {
            flow.small_end_bytes = flow.sent_bytes;
        }
        flow.queue.push_back(skb);
        if self.measuring() {
            self.stats.segments += 1;
        }
        let r = self.flows[f].receiver;
        self.note(|| format!("netperf {f}: skb queued to netserver {f} (loopback, same-CPU softirq)"));
        self.sock_lines(t, f, false, RX_SOCK_LINES, Stack::TcpTransmit);
        self.data_arrived(t, f, len);
        if self.threads[r as usize].state == ThreadState::Blocked {
            // sock_def_readable: wake_up_interruptible_sync_poll.
            self.wake_from(t, r, true);
        }
    }

    /// `t` touches `lines` of flow `f`'s netserver socket (`tx` false) or netperf socket:
    /// it waits for the lines the other CPU dirtied since its last touch.
    pub(super) fn sock_lines(&mut self, t: ThreadId, f: usize, tx: bool, lines: u32, stack: Stack) {
        let cpu = self.threads[t as usize].cpu;
        let sock = if tx { &mut self.flows[f].tx_sock } else { &mut self.flows[f].rx_sock };
        if let Some((from, n)) = sock.touch(cpu, lines) {
            let ns = u64::from(n) * self.caches.transfer_ns(&self.cfg.machine, from, cpu);
            self.advance(t, ns, stack);
        }
    }

    /// `t` wakes `sleeper` (`try_to_wake_up`): its instructions (`wakeup_cycles`) and the
    /// lines it pulls from the sleeper's CPU; the sleeper pulls its own back when it runs.
    /// With waiting (`StreamConfig::waiting`) the sleeper runs only after them, and after
    /// the IPI and its CPU's exit from idle when that CPU is another one and idle
    /// ([`StreamSim::wake_sleeper`]); `sync`: the caller's wake-up is a sync one.
    pub(super) fn wake_from(&mut self, t: ThreadId, sleeper: ThreadId, sync: bool) {
        let (cpu, to) = (self.threads[t as usize].cpu, self.threads[sleeper as usize].cpu);
        let hop = self.caches.transfer_ns(&self.cfg.machine, to, cpu);
        self.threads[sleeper as usize]
            .prog
            .push(Action::LineNs { ns: u64::from(WAKE_LINES_WAKEE) * hop, stack: Stack::Schedule });
        if self.cfg.waiting.is_none() {
            self.wake(sleeper);
        }
        self.work(t, self.cfg.machine.wakeup_cycles, Stack::Wakeup);
        self.advance(t, u64::from(WAKE_LINES_WAKER) * hop, Stack::Wakeup);
        if self.cfg.waiting.is_some() {
            self.wake_sleeper(t, sleeper, sync);
        }
    }

    /// `tcp_recvmsg()` entry: sleep if the queue is empty, else the syscall's fixed work and
    /// the copy loop ([`Action::RecvSkb`]).
    pub(super) fn begin_recv(&mut self, t: ThreadId) -> bool {
        let f = self.threads[t as usize].flow as usize;
        if self.flows[f].queue.is_empty() {
            self.note(|| format!("netserver {f} sleeps: receive queue empty"));
            self.block(t, Action::BeginRecv);
            return false;
        }
        let th = &mut self.threads[t as usize];
        th.jitter_permille = JITTER_MIN_PERMILLE + u64::from(th.rng.below(JITTER_SPAN_PERMILLE));
        self.sock_lines(t, f, false, RX_SOCK_LINES, Stack::RecvSyscall);
        self.work(t, self.cfg.machine.syscall_cycles, Stack::RecvSyscall);
        self.run_next(t, &[Action::RecvSkb { copied_bytes: 0 }, Action::EndOp]);
        true
    }

    /// One skb of `tcp_recvmsg()`'s loop, while the call has copied less than [`RECV_BYTES`]
    /// and the queue holds one: the copy out (`skb_copy_datagram_iter`: the payload comes
    /// from wherever the sender's copy left it), one frag step per frag, the per-skb work,
    /// then the skb's release and its ACK.
    pub(super) fn recv_skb(&mut self, t: ThreadId, copied_bytes: u32) {
        let f = self.threads[t as usize].flow as usize;
        if copied_bytes >= RECV_BYTES || self.flows[f].queue.is_empty() {
            self.cleanup_rbuf(t, f, copied_bytes);
            return;
        }
        let skb = self.flows[f].queue.pop_front().expect("checked");
        // __skb_unlink and sock_rfree: the queue's line again if a segment came meanwhile.
        self.sock_lines(t, f, false, RX_SOCK_LINES, Stack::RecvSyscall);
        let m = &self.cfg.machine;
        let (rx, n_frags, len) = (m.skb_rx_cycles, skb.frags.len() as u64, skb.len_bytes);
        let (copy, frag) = (self.copy_cycles(len), n_frags * m.frag_cycles);
        let cpu = self.threads[t as usize].cpu;
        let mut by = [0u32; SOURCES];
        for fr in &skb.frags {
            let zone = &mut self.zones[fr.page.node as usize];
            let got = zone.copy_data(&mut self.caches, cpu, fr.page.pfn, (fr.start_bytes, fr.end_bytes), false);
            for (sum, n) in by.iter_mut().zip(got) {
                *sum += n;
            }
        }
        if self.now_ns >= self.cfg.warmup_ns() {
            for (sum, n) in self.stats.rx_lines_from.iter_mut().zip(by) {
                *sum += u64::from(n);
            }
        }
        let stall_ns = self.stall_ns(&by, false, true);
        self.threads[t as usize].skb = skb;
        self.note(|| format!("netserver {f} tcp_recvmsg: {len} bytes in {n_frags} frags"));
        self.work(t, rx / 2, Stack::RecvSyscall);
        self.work(t, copy, Stack::CopyToUser);
        self.advance(t, stall_ns, Stack::CopyToUser);
        self.work(t, frag, Stack::CopyFrag);
        self.run_next(
            t,
            &[
                Action::ReleaseSkb,
                Action::Consumed { bytes: len },
                Action::Work { cycles: rx - rx / 2, stack: Stack::RecvSyscall },
                Action::RecvSkb { copied_bytes: copied_bytes + len },
            ],
        );
    }

    /// `tcp_cleanup_rbuf()` at the end of `tcp_recvmsg()` (net/ipv4/tcp.c): with an ACK
    /// scheduled, ack now when more than one `rcv_mss` is unacknowledged, or when this read
    /// emptied the queue (`sk_rmem_alloc` zero) and a short segment marked the ACK pushed
    /// (the stream is not interactive, `pingpong` 0); otherwise the delayed-ACK timer stays
    /// armed. (Its window-update ACK is not modelled: the receive window is not.)
    fn cleanup_rbuf(&mut self, t: ThreadId, f: usize, copied_bytes: u32) {
        let flow = &self.flows[f];
        let ack = &flow.ack;
        let unacked = flow.sent_bytes - ack.wup_bytes;
        let time_to_ack = ack.scheduled
            && (unacked > u64::from(ack.rcv_mss) || (copied_bytes > 0 && ack.pushed && flow.queue.is_empty()));
        if time_to_ack {
            if self.now_ns >= self.cfg.warmup_ns() {
                self.stats.acks_on_read += 1;
            }
            self.send_ack(t, f, false);
        }
    }

    /// The receiver is done with its skb: `sk_eat_skb()` frees the clone. If netperf's socket
    /// already processed an ACK covering it, the original is gone and this frees the data (the
    /// last dataref) and the sk_buff pair here, on the receiver's CPU; else the original waits
    /// in the retransmit queue for its ACK (`Flow::rtx`).
    pub(super) fn release_skb(&mut self, t: ThreadId) {
        if self.skb_consumed(t) {
            return;
        }
        let mut skb = std::mem::take(&mut self.threads[t as usize].skb);
        let f = self.threads[t as usize].flow as usize;
        if !skb.acked {
            self.flows[f].rtx.push_back(skb);
            return;
        }
        if let Some(h) = skb.heads.take() {
            self.free_heads(t, h);
        }
        self.release_frags_on(t, skb, None);
    }

    /// netperf of flow `f` holds `lock_sock`: inside `tcp_sendmsg` and not asleep in
    /// `sk_stream_wait_memory` (which releases the socket).
    pub(super) fn sender_owns_socket(&self, f: usize) -> bool {
        let s = &self.threads[self.flows[f].sender as usize];
        s.state != ThreadState::Blocked && s.prog.contains(&Action::EndOp)
    }

    /// `release_sock()` at the end of `tcp_sendmsg` (`__release_sock` → `tcp_v4_do_rcv`):
    /// the ACK in the backlog is processed on netperf's CPU (`process_ack`), then
    /// `tcp_data_snd_check()` may send a tail Nagle held, then the syscall ends. True if
    /// there was a backlog (its work runs first, `EndOp` again after it).
    pub(super) fn process_backlog(&mut self, t: ThreadId) -> bool {
        let f = self.threads[t as usize].flow as usize;
        let Some(ack_seq) = self.flows[f].backlog_ack.take() else { return false };
        self.run_next(t, &[Action::TcpPush, Action::EndOp]);
        self.process_ack(t, f, ack_seq);
        true
    }

    /// `skb_release_data()`'s frags: one `put_page` per frag of `skb` on `t`'s CPU, freeing
    /// pages whose last reference it drops (counted by who dropped it); the actions run next,
    /// then `then`. The frag list goes back to the pool `begin_send` takes from.
    pub(super) fn release_frags_on(&mut self, t: ThreadId, mut skb: Skb, then: Option<Action>) {
        let m = &self.cfg.machine;
        let cpu = self.threads[t as usize].cpu;
        let mut acts = std::mem::take(&mut self.scratch);
        acts.clear();
        for frag in &skb.frags {
            let zone = &mut self.zones[frag.page.node as usize];
            let line_ns = zone.touch_page(m, &self.caches, cpu, frag.page.pfn);
            acts.push(Action::LineNs { ns: line_ns, stack: Stack::PutPage });
            acts.push(Action::Work { cycles: m.page_op_cycles, stack: Stack::PutPage });
            if zone.put_page_testzero(frag.page.pfn) {
                if self.threads[t as usize].role == Role::Netperf {
                    self.stats.last_put_by_sender += 1;
                } else {
                    self.stats.last_put_by_receiver += 1;
                }
                acts.push(Action::FreePage { page: frag.page });
            }
        }
        acts.extend(then);
        self.run_next(t, &acts);
        self.scratch = acts;
        skb.frags.clear();
        self.spare_frags.push(skb.frags);
    }

    /// `free_the_page()`: the per-CPU list if the order is allowed there, else the buddy.
    pub(super) fn free_page(&mut self, t: ThreadId, page: PageRef) {
        let cpu = self.threads[t as usize].cpu;
        if page.order > 0 {
            // free_pages_prepare(): every tail page's struct page, before any lock.
            let m = &self.cfg.machine;
            let (cycles, ns) =
                self.zones[page.node as usize].compound_pages(m, &self.caches, cpu, page.pfn, page.order);
            self.work(t, cycles, Stack::FreePagesPrepare);
            self.advance(t, ns, Stack::FreePagesPrepare);
        }
        let zone = &mut self.zones[page.node as usize];
        if !zone.pcp_allowed(page.order) {
            self.run_next(t, &[Action::Locked(ZoneOp::FreeOnePage { page })]);
            return;
        }
        let due = zone.pcp_free(cpu, page.pfn, page.order);
        self.work(t, self.cfg.machine.page_op_cycles, Stack::FreeUnrefPage);
        if due {
            self.run_next(t, &[Action::Locked(ZoneOp::FreePcpBulk { node: page.node })]);
        }
    }

    /// netserver copied `bytes` to user space (what the throughput counts).
    pub(super) fn consumed(&mut self, t: ThreadId, bytes: u32) {
        let f = self.threads[t as usize].flow as usize;
        if self.now_ns >= self.cfg.warmup_ns() {
            self.flows[f].measured_bytes += u64::from(bytes);
        }
    }
}
