//! The work of `skb-cache`'s CPUs, one piece per `Ev::Cpu`: softirq first (the driver's
//! rx skb and pages, then the TCP receive path with what it frees), then the threads'
//! transactions (recvmsg, then sendmsg with a reused or new tx skb); requests arriving at
//! the NIC; and the link each message crosses.

use super::setup::{rx_frags, tx_frags_of};
use super::{Ev, Sim, Skb, Stack, MAX_SOFTIRQ_NS, WARM_ROUND_TRIPS, WIRE_OVERHEAD};
use crate::sim::machine::CpuId;
use crate::sim::skb::TCP_MSS;

impl Sim {
    pub(super) fn request(&mut self, t: u64, f: u32) {
        let x = self.flows[f as usize].irq_cpu;
        self.driver_q[x as usize].push_back(f);
        self.n_before_driver += 1;
        self.kick(x, t);
    }

    /// One piece of work on `cpu`: softirq first (driver, then RPS backlog), then threads;
    /// but once softirq work has run [`MAX_SOFTIRQ_NS`] without a break while a thread of
    /// this CPU waits, it runs in ksoftirqd, which CFS runs alongside the threads: the CPU
    /// then gives the next piece to whichever of the two has had less CPU time since (CFS's
    /// fair share of two nice-0 tasks, at the granularity of one piece; a real CFS slice is
    /// milliseconds, so the switches' cost is not charged), until the softirq work runs out.
    pub(super) fn cpu(&mut self, t: u64, cpu: CpuId) {
        let c = cpu as usize;
        let soft = !self.driver_q[c].is_empty() || !self.stack_q[c].is_empty();
        let thread = self.cpu_threads[c].iter().any(|&th| !self.thread_q[th as usize].is_empty());
        if !soft {
            self.ksoftirqd[c] = None;
        } else if thread
            && self.ksoftirqd[c].is_none()
            && self.softirq_since[c].is_some_and(|s| t.saturating_sub(s) >= MAX_SOFTIRQ_NS)
        {
            self.ksoftirqd[c] = Some((0, 0));
        }
        let run_soft = soft && (!thread || self.ksoftirqd[c].is_none_or(|(k, th)| k <= th));
        let ns = if run_soft {
            self.softirq_since[c].get_or_insert(t);
            let ns = if let Some(f) = self.driver_q[c].pop_front() {
                self.n_before_driver -= 1;
                self.driver(t, cpu, f)
            } else {
                let (f, skb) = self.stack_q[c].pop_front().expect("checked: softirq work pending");
                self.stack(t, cpu, f, skb)
            };
            if let Some((k, _)) = &mut self.ksoftirqd[c] {
                *k += ns;
            }
            ns
        } else if let Some(ns) = self.app_step(t, cpu) {
            self.softirq_since[c] = None;
            if let Some((_, th)) = &mut self.ksoftirqd[c] {
                *th += ns;
            }
            if let Some(th) = self.running[c] {
                self.vruntime[th as usize] += ns;
            }
            ns
        } else {
            self.go_idle(cpu, t);
            return;
        };
        self.q.schedule(t + ns.max(1), Ev::Cpu(cpu));
    }

    /// The threads' side of `cpu`: the next flow of the running thread's epoll batch, or an
    /// epoll_wait (a new batch). The batch goes to the ready thread of this CPU that has had
    /// the least CPU time (CFS's fair share among runnable nice-0 threads, at the granularity
    /// of one batch); a context switch is charged when the running thread has nothing ready
    /// (it sleeps in epoll_wait), not for CFS's own preemptions, which come once per slice of
    /// milliseconds. None when no thread of this CPU has a ready flow.
    fn app_step(&mut self, t: u64, cpu: CpuId) -> Option<u64> {
        let c = cpu as usize;
        if self.batch_left[c] > 0 {
            let th = self.running[c].expect("bug: a batch without a thread");
            if let Some(f) = self.thread_q[th as usize].pop_front() {
                self.batch_left[c] -= 1;
                return Some(self.app(t, cpu, f));
            }
            self.batch_left[c] = 0;
        }
        let threads = &self.cpu_threads[c];
        let start = self.running[c].and_then(|r| threads.iter().position(|&x| x == r)).unwrap_or(0);
        let th = (0..threads.len())
            .map(|i| threads[(start + i) % threads.len()])
            .filter(|&x| !self.thread_q[x as usize].is_empty())
            .min_by_key(|&x| self.vruntime[x as usize])?;
        let k = self.cfg.profile.kernel;
        let switch = self.running[c].is_some_and(|r| r != th && self.thread_q[r as usize].is_empty());
        // The real epoll_wait returns the ready sockets of all the flows a simulated one
        // stands for (up to maxevents): its fixed costs are shared by that many transactions.
        let n = self.thread_q[th as usize].len() as u64;
        let real = self.scale.real_of(n).min(self.cfg.profile.max_events).max(1);
        let taken = self.scale.sim_of(real).clamp(1, n);
        let mut ns = self.work(cpu, Stack::EpollWait, k.syscall_cycles.int() * taken / real);
        if switch {
            ns += self.work(cpu, Stack::ContextSwitch, k.context_switch_cycles.int() * taken / real);
        }
        ns += self.batch_start(th, taken, switch);
        self.running[c] = Some(th);
        self.batch_left[c] = taken;
        Some(ns)
    }

    fn driver(&mut self, t: u64, cpu: CpuId, f: u32) -> u64 {
        let p = self.cfg.profile;
        let mut ns = self.work(cpu, Stack::Driver, p.nic_rx_cycles());
        let node = self.node(cpu);
        let mut pages = Vec::new();
        for _ in 0..rx_frags(self.cfg.request_bytes) {
            let (pfn, c) = self.alloc_page(t + ns, cpu, node);
            ns += self.charge(cpu, Stack::PageAlloc, c);
            let Some(pfn) = pfn else {
                return ns + self.drop_request(t + ns, cpu, pages);
            };
            pages.push((node, pfn));
        }
        let (skb, a) = self.alloc_skb(t + ns, cpu, true, f);
        ns += a;
        let Some(mut skb) = skb else {
            return ns + self.drop_request(t + ns, cpu, pages);
        };
        skb.pages = pages;
        self.n_rx_held += 1;
        if self.cfg.rps {
            let y = self.flows[f as usize].app_cpu;
            ns += self.work(cpu, Stack::Rps, p.kernel.rps_enqueue_cycles.int());
            self.stack_q[y as usize].push_back((f, skb));
            self.kick(y, t + ns);
            ns
        } else {
            ns + self.stack(t + ns, cpu, f, skb)
        }
    }

    /// The driver cannot build the request's skb (no page for a frag, or no slab for the
    /// sk_buff or its head): it drops the frame, as a NIC driver does on a failed refill, and
    /// gives back the pages it took. The flow's request is lost; the run counts it, and its
    /// `notes` say so.
    fn drop_request(&mut self, t: u64, cpu: CpuId, pages: Vec<(u32, u32)>) -> u64 {
        let mut ns = 0;
        for (n, pfn) in pages {
            let c = self.free_page(t + ns, cpu, n, pfn);
            ns += self.charge(cpu, Stack::PageFree, c);
        }
        self.res.rx_alloc_failed += 1;
        ns
    }

    /// tcp_v4_rcv and what it frees, on `cpu` (the IRQ CPU, or the RPS target).
    fn stack(&mut self, t: u64, cpu: CpuId, f: u32, skb: Skb) -> u64 {
        let p = self.cfg.profile;
        let mut ns = self.work(cpu, Stack::TcpRcv, p.tcp_rx_cycles());
        ns += self.work(cpu, Stack::DelackTimer, p.rx_timer_cycles());
        ns += self.sock_private(cpu, f, true, Stack::RcvSockState);
        ns += self.sock_lines(t + ns, cpu, f, Stack::TcpRcvSockLines);
        // The previously parked rx skb: freed by this softirq (8b27dae5a2e8).
        if let Some(old) = self.flows[f as usize].rx_parked.take() {
            ns += self.free_skb(t + ns, cpu, old, "softirq (rx cache)");
        }
        // The request ACKs the last response: tcp_ack → sk_wmem_free_skb.
        if let Some(tx) = self.flows[f as usize].tx_inflight.take() {
            if self.cfg.tx_cache && self.flows[f as usize].tx_parked.is_none() {
                self.flows[f as usize].tx_parked = Some(tx);
            } else {
                ns += self.free_skb(t + ns, cpu, tx, "tcp_ack");
            }
        }
        self.flows[f as usize].rx_queued = Some(skb);
        let y = self.flows[f as usize].app_cpu;
        let th = super::thread_of(f, self.cfg.threads);
        // The thread sleeps in epoll_wait if it has nothing ready and is not in a batch.
        let in_batch = self.running[y as usize] == Some(th) && self.batch_left[y as usize] > 0;
        let asleep = self.thread_q[th as usize].is_empty() && !in_batch;
        self.thread_q[th as usize].push_back(f);
        if asleep {
            // CFS places a woken thread at the running one's vruntime (no credit for sleeping
            // beyond that here), so that it shares the CPU rather than monopolising it.
            if let Some(r) = self.running[y as usize] {
                let v = self.vruntime[r as usize];
                let w = &mut self.vruntime[th as usize];
                *w = (*w).max(v);
            }
            ns += self.wake_thread(th);
        }
        self.kick(y, t + ns);
        ns
    }

    /// recvmsg + sendmsg of one transaction on the thread's CPU.
    fn app(&mut self, t: u64, cpu: CpuId, f: u32) -> u64 {
        let p = self.cfg.profile;
        let mut ns = self.work(cpu, Stack::Syscalls, p.app_cycles());
        ns += self.work(cpu, Stack::EpollCtl, p.epoll_ctl_cycles());
        ns += self.work(cpu, Stack::XmitTimers, p.tx_timer_cycles());
        ns += self.sock_private(cpu, f, false, Stack::AppSockState);
        ns += self.sock_lines(t + ns, cpu, f, Stack::RecvSockLines);
        let Some(mut skb) = self.flows[f as usize].rx_queued.take() else { return ns };
        self.n_rx_held -= 1;
        // Reading the skb pulls its lines from the CPU that built it.
        ns += self.skb_lines(t + ns, cpu, &mut skb, Stack::RecvSkbLines);
        let copy = u64::from(self.cfg.request_bytes) * 1000 / self.m.copy_bytes_per_kcycle.max(1);
        ns += self.work(cpu, Stack::CopyToUser, copy);
        if self.cfg.rx_cache && self.flows[f as usize].rx_parked.is_none() {
            self.flows[f as usize].rx_parked = Some(skb);
        } else {
            ns += self.free_skb(t + ns, cpu, skb, "recvmsg");
        }
        // sendmsg: reuse the parked tx skb (472c2e07eef0) or allocate one.
        let (tx, a) = self.sendmsg_skb(t + ns, cpu, f);
        ns += a;
        let Some(mut tx) = tx else { return ns };
        tx.tx_frags = tx_frags_of(self.cfg.profile.tx_head, self.cfg.response_bytes);
        tx.alloc_cpu = cpu;
        for _ in 0..tx.tx_frags {
            ns += self.frag_put(t + ns, cpu, cpu, Stack::FragGet);
        }
        let copy = u64::from(self.cfg.response_bytes) * 1000 / self.m.copy_bytes_per_kcycle.max(1);
        ns += self.work(cpu, Stack::CopyFromUser, copy);
        self.flows[f as usize].tx_inflight = Some(tx);
        self.respond(t + ns, f);
        ns
    }

    /// The tx skb of `f`'s response on `cpu`: the parked one reused (472c2e07eef0), or a
    /// new one; `None` when sk_stream_alloc_skb fails (the response is not sent and the
    /// flow's transaction is lost; the run counts it, its `notes` say so).
    fn sendmsg_skb(&mut self, t: u64, cpu: CpuId, f: u32) -> (Option<Skb>, u64) {
        let mut ns = 0;
        if let Some(mut old) = self.flows[f as usize].tx_parked.take() {
            ns += self.skb_lines(t + ns, cpu, &mut old, Stack::ReuseSkbLines);
            // pskb_trim drops the old payload's frag references (on this CPU's page frag).
            for _ in 0..old.tx_frags {
                ns += self.frag_put(t + ns, cpu, old.alloc_cpu, Stack::FragPut);
            }
            if self.run_state.measuring() {
                self.res.tx_reused += 1;
            }
            self.lane_free(&old, cpu, "sendmsg (tx cache)", "none");
            if old.lane.is_none() {
                // A reuse of an skb allocated before the lanes started is a row of its own.
                self.lane_reuse(f, old.alloc_cpu, cpu);
            }
            old.lane = None;
            return (Some(old), ns);
        }
        let (s, a) = self.alloc_skb(t, cpu, false, f);
        if s.is_none() {
            self.res.tx_alloc_failed += 1;
        }
        (s, a)
    }

    /// `f`'s response, ready at `done`, on the link; the client's next request after it.
    fn respond(&mut self, done: u64, f: u32) {
        let p = self.cfg.profile;
        // The response and the next request each take their turn on the NIC's link. A
        // transaction counts when its response has crossed the link inside the window (as the
        // client counts it): completions of the CPUs alone could outrun a saturated link while
        // its queue still fills, and a window would then measure the transient. Its round trip
        // runs from the request's send (handed to the link) to that moment: both links' queues
        // and serialisation, the server's queues and work (the turnaround's propagation and
        // client stack are outside it).
        let sent = self.wire(false, done, self.cfg.response_bytes);
        let fl = &mut self.flows[f as usize];
        let rtt = sent.saturating_sub(fl.req_sent_ns);
        if fl.done < WARM_ROUND_TRIPS {
            fl.done += 1;
            if fl.done == WARM_ROUND_TRIPS {
                self.warm_flows += 1;
            }
        }
        if self.run_state.window().contains(sent) {
            self.sent_ns.push((sent, rtt));
        }
        let turn = p.client_turnaround_ns;
        let jitter = self.rng.range_u64(0, turn / 5 + 1);
        let send = sent + turn - turn / 10 + jitter;
        self.flows[f as usize].req_sent_ns = send;
        let at = self.wire(true, send, self.cfg.request_bytes);
        self.q.schedule(at, Ev::Request(f));
    }

    /// When a message of `bytes` ready at `t` has crossed the link (rx or tx direction).
    pub(super) fn wire(&mut self, rx: bool, t: u64, bytes: u32) -> u64 {
        let frames = u64::from(bytes.div_ceil(TCP_MSS).max(1));
        let bits = (u64::from(bytes) + frames * WIRE_OVERHEAD) * 8;
        let ser = (bits * 1000).div_ceil(self.cfg.profile.link_mbps.max(1));
        let free = if rx { &mut self.rx_wire_free } else { &mut self.tx_wire_free };
        let end = t.max(*free) + ser;
        *free = end;
        end
    }
}
