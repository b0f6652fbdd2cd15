//! The event handlers of `cross-cpu-free`, one per event (see `Ev`), and the two operations
//! they share: allocating an skb's objects (and, for tcp-100g, its pages) and freeing them,
//! on whichever CPU the handler runs. Each handler computes its work at its start time and
//! leaves the CPU busy until the work ends (see the folder's module doc).

use super::report::alloc_path_name;
use super::udp_wire_bytes;
use super::{
    Consumer, Ev, LaneEvent, Sim, Skb, Stack, Workload, GRO_FRAMES, IPI_CYCLES, RX_HEADROOM_BYTES, RX_RING,
    SKB_DEFER_MAX, TCP_FRAME_HEADER_BYTES, TCP_WINDOW_SKBS, TX_IRQ_CPU, UDP_RCVBUF_BYTES,
};
use crate::sim::cache::{Source, LINE_BYTES, SOURCES};
use crate::sim::machine::{CpuId, PAGE_SIZE};
use crate::sim::skb::TCP_MSS;
use crate::sim::slub::{AllocPath, Caller};

impl Sim {
    /// Allocates the objects of one skb on `cpu` of the receiver (`rx`) or sender.
    fn alloc_skb(&mut self, rx: bool, cpu: CpuId, now: u64, flow: u16) -> (Skb, u64) {
        let p = self.cfg.profile;
        let id = self.next_skb;
        self.next_skb += 1;
        let mut skb = Skb { id, flow, alloc_cpu: cpu, objs: [None; 3], pages: 0, first_page: 0, counted: false };
        let mut ns = 0;
        let host = if rx { &mut self.rx } else { &mut self.tx };
        let mut lanes = Vec::new();
        let caches = host.caches;
        for (i, cache) in caches.iter().enumerate() {
            let Some(cache) = *cache else { continue };
            let (obj, d) =
                host.slub.alloc(Caller::new(&host.m, cpu, now + ns), cache).expect("zone sized for the window");
            let stack = Stack::slab_alloc(d.path);
            ns += host.charge(&p, cpu, stack, d.cost);
            skb.objs[i] = Some(obj);
            if rx {
                lanes.push(LaneEvent {
                    t_ns: now + ns,
                    cpu,
                    skb: id,
                    free: false,
                    cache,
                    fast: d.path == AllocPath::Fast,
                    path: alloc_path_name(d.path),
                    slab_pfn: d.slab_pfn,
                    slab_owner: d.slab_owner,
                    alloc_cpu: cpu,
                });
            }
        }
        ns += host.work(&p, cpu, Stack::SkbAlloc, p.kernel.skb_cycles.int() / 2);
        for l in lanes {
            self.lane(l);
        }
        (skb, ns)
    }

    /// Frees the objects (and pages) of `skb` on `cpu`.
    fn free_skb(&mut self, rx: bool, cpu: CpuId, now: u64, skb: &Skb) -> u64 {
        let p = self.cfg.profile;
        let host = if rx { &mut self.rx } else { &mut self.tx };
        let mut ns = host.work(&p, cpu, Stack::SkbFree, p.kernel.skb_cycles.int() / 2);
        let mut lanes = Vec::new();
        for obj in skb.objs.iter().flatten() {
            let d = host.slub.free(Caller::new(&host.m, cpu, now + ns), *obj);
            let stack = Stack::slab_free(d.path);
            ns += host.charge(&p, cpu, stack, d.cost);
            if rx {
                lanes.push(LaneEvent {
                    t_ns: now + ns,
                    cpu,
                    skb: skb.id,
                    free: true,
                    cache: obj.cache,
                    fast: !d.path.is_slow(),
                    path: d.path.name(),
                    slab_pfn: d.slab_pfn,
                    slab_owner: d.slab_owner,
                    alloc_cpu: skb.alloc_cpu,
                });
            }
        }
        for k in 0..skb.pages as usize {
            let pfn = self.pages[skb.first_page + k];
            let host = if rx { &mut self.rx } else { &mut self.tx };
            let c = host.slub.free_pages(Caller::new(&host.m, cpu, now + ns), pfn, 0);
            ns += host.charge(&p, cpu, Stack::PageFree, c);
        }
        if rx && self.in_window() {
            self.res.rx_skbs_freed += 1;
        }
        let host = if rx { &mut self.rx } else { &mut self.tx };
        host.time.free_ns[cpu as usize] += ns;
        for l in lanes {
            self.lane(l);
        }
        ns
    }

    // ---- udp-iperf ----

    pub(super) fn send(&mut self, t: u64, c: u16) {
        let cpu = self.client_cpu(c);
        if self.tx.free_at[cpu as usize] > t {
            let at = self.tx.free_at[cpu as usize];
            self.q.schedule(at, Ev::Send(c));
            return;
        }
        let p = self.cfg.profile;
        let k = p.kernel;
        // xennet_start_xmit() → xennet_tx_buf_gc(): free what the backend has completed.
        let mut ns = self.tx_gc(c, cpu, t);
        if self.tx_inflight[c as usize].len() >= p.tx_ring as usize {
            // Ring full: the queue is stopped until the next completion.
            let at = self.tx_inflight[c as usize].front().map_or(t + 1000, |x| x.0).max(t + ns);
            self.tx.free_at[cpu as usize] = t + ns;
            self.q.schedule(at, Ev::Send(c));
            return;
        }
        ns += self.tx.work(&p, cpu, Stack::App, p.iperf_user_cycles);
        ns += self.tx.work(&p, cpu, Stack::SendSyscall, k.syscall_cycles.int() * p.iperf_syscalls);
        ns += self.tx.work(&p, cpu, Stack::UdpSend, k.udp_send_cycles.int());
        let (skb, a) = self.alloc_skb(false, cpu, t + ns, c);
        ns += a;
        ns += self.tx.work(&p, cpu, Stack::CopyFromUser, p.copy_cycles(u64::from(self.cfg.input.datagram_bytes)));
        // Hypervisor noise: ±10 % per packet (ASSUMPTION) around the catalogue's netfront cost.
        let xen = k.pv_net_tx_cycles.int();
        let jitter = self.rng.range_u64(0, xen / 5 + 1);
        ns += self.tx.work(&p, cpu, Stack::XenTx, xen - xen / 10 + jitter);
        let end = t + ns;
        self.tx.free_at[cpu as usize] = end;
        let ser = (udp_wire_bytes(self.cfg.input.datagram_bytes) * 8 * 1000).div_ceil(p.link_mbps.max(1));
        let start = end.max(self.wire_free_at);
        self.wire_free_at = start + ser;
        self.tx_inflight[c as usize].push_back((self.wire_free_at, skb));
        let index = self.tx_cons[c as usize] + self.tx_inflight[c as usize].len() as u64 - 1;
        if index + 1 == self.tx_rsp_event[c as usize] {
            self.request_tx_irq(c, self.wire_free_at);
        }
        // Counted if its whole wire time lies in the window: what the window counts then never
        // needs more wire time than the window has (no ring or queue filled before it).
        let counted =
            start >= self.cfg.warmup_ns() && self.wire_free_at <= self.cfg.warmup_ns() + self.cfg.measure_ns();
        self.q.schedule(self.wire_free_at + p.wire_latency_ns, Ev::Arrive { flow: c, counted });
        if counted {
            self.pending += 1;
            self.res.sent += 1;
        }
        self.q.schedule(end, Ev::Send(c));
    }

    /// `xennet_tx_buf_gc()` on `cpu`: frees client `c`'s completed skbs (`dev_kfree_skb_irq`,
    /// so on this CPU), then sets `rsp_event` halfway through what is still outstanding
    /// (`rsp_cons + (req_prod - rsp_cons) / 2 + 1`) and asks for that interrupt.
    fn tx_gc(&mut self, c: u16, cpu: CpuId, t: u64) -> u64 {
        let mut ns = 0;
        while let Some(&(done, skb)) = self.tx_inflight[c as usize].front() {
            if done > t {
                break;
            }
            self.tx_inflight[c as usize].pop_front();
            self.tx_cons[c as usize] += 1;
            ns += self.free_skb(false, cpu, t + ns, &skb);
        }
        let outstanding = self.tx_inflight[c as usize].len();
        self.tx_rsp_event[c as usize] = self.tx_cons[c as usize] + outstanding as u64 / 2 + 1;
        self.tx_irq_seq[c as usize] += 1;
        if let Some(&(done, _)) = self.tx_inflight[c as usize].get(outstanding / 2) {
            self.request_tx_irq(c, done);
        }
        ns
    }

    /// The backend's notify when the response at `rsp_event` is produced, at `at`.
    fn request_tx_irq(&mut self, c: u16, at: u64) {
        let seq = self.tx_irq_seq[c as usize];
        self.q.schedule(at, Ev::TxIrq { client: c, seq });
    }

    /// netfront's interrupt on the sender's IRQ vCPU: an upcall, then `xennet_tx_buf_gc()`
    /// there, so the skbs client `c` allocated on its own vCPU are freed on this one.
    pub(super) fn tx_irq(&mut self, t: u64, c: u16, seq: u64) {
        if seq != self.tx_irq_seq[c as usize] {
            return;
        }
        let cpu = TX_IRQ_CPU;
        if self.tx.free_at[cpu as usize] > t {
            let at = self.tx.free_at[cpu as usize];
            self.q.schedule(at, Ev::TxIrq { client: c, seq });
            return;
        }
        let p = self.cfg.profile;
        let mut ns = self.tx.work(&p, cpu, Stack::XenUpcall, p.kernel.pv_upcall_cycles.int());
        ns += self.tx_gc(c, cpu, t + ns);
        self.tx.free_at[cpu as usize] = t + ns;
    }

    pub(super) fn arrive(&mut self, t: u64, flow: u16, counted: bool) {
        if self.backlog.len() >= RX_RING {
            // netfront's RX ring is full: the backend drops the packet.
            if counted {
                self.res.dropped += 1;
                self.settle(t);
            }
            return;
        }
        self.backlog.push_back((flow, counted));
        if !self.irq_busy {
            self.irq_busy = true;
            self.rx_upcall_due = true;
            self.q.schedule(t, Ev::Irq);
        }
    }

    /// Flushes the allocating CPU's defer list (net_rx_action → skb_defer_free_flush).
    fn flush_defer(&mut self, cpu: CpuId, t: u64) -> u64 {
        let mut ns = 0;
        if self.defer_list.is_empty() {
            return 0;
        }
        let p = self.cfg.profile;
        ns += self.rx.work(&p, cpu, Stack::DeferFlush, 100);
        ns += self.rx.raw(cpu, Stack::DeferFlush, self.defer_line.touch(&self.rx.m, self.rx.slub.cpu_caches(), cpu));
        self.rx.time.free_ns[cpu as usize] += ns;
        let list = std::mem::take(&mut self.defer_list);
        for skb in &list {
            ns += self.free_skb(true, cpu, t + ns, skb);
        }
        ns
    }

    pub(super) fn irq_udp(&mut self, t: u64) {
        let cpu: CpuId = 0;
        if self.rx.free_at[0] > t {
            let at = self.rx.free_at[0];
            self.q.schedule(at, Ev::Irq);
            return;
        }
        let Some((flow, counted)) = self.backlog.pop_front() else {
            self.irq_busy = false;
            return;
        };
        let p = self.cfg.profile;
        let mut ns = self.flush_defer(cpu, t);
        if std::mem::take(&mut self.rx_upcall_due) {
            ns += self.rx.work(&p, cpu, Stack::XenUpcall, p.kernel.pv_upcall_cycles.int());
        }
        ns += self.rx.work(&p, cpu, Stack::XenRx, p.kernel.pv_net_rx_cycles.int());
        let (mut skb, a) = self.alloc_skb(true, cpu, t + ns, flow);
        skb.counted = counted;
        ns += a;
        ns += self.rx.work(&p, cpu, Stack::UdpRcv, p.kernel.udp_rcv_cycles.int());
        self.rx.free_at[0] = t + ns;
        self.q.schedule(t + ns, Ev::Deliver(skb));
    }

    /// tcp with RFS: the skb A steered reaches B's backlog. B runs its TCP receive as soon as
    /// it is free (the serial model puts it after B's piece of work in progress, where the
    /// kernel's softirq would interrupt it: the same CPU time). A backlog that was empty needs
    /// A's IPI (`enqueue_to_backlog` → `rps_ipi_queued`, sent by `net_rps_send_ipi`), and a B
    /// with nothing to do (its reader asleep) leaves its idle state first. The reader sleeps
    /// on B, so its wakeup is local.
    fn backlog_rfs(&mut self, t: u64, skb: Skb) {
        let p = self.cfg.profile;
        let b = self.reader_cpu(0);
        let idle = self.sleeping[0] && self.rx.free_at[b as usize] <= t;
        let mut start = t.max(self.rx.free_at[b as usize]);
        let mut ns = 0;
        if t >= self.rps_done_at {
            if idle {
                start = t + p.kernel.wake_latency_ns.int();
            }
            ns += self.rx.work(&p, b, Stack::RpsIpi, IPI_CYCLES);
        }
        ns += self.rx.work(&p, b, Stack::TcpRcvBacklog, p.tcp_rx_skb_cycles());
        self.sockq[0].push_back(skb);
        if std::mem::take(&mut self.sleeping[0]) {
            ns += self.rx.work(&p, b, Stack::TcpWakeupBacklog, p.kernel.wakeup_cycles.int());
            self.q.schedule(start + ns, Ev::Read(0));
        }
        self.rx.free_at[b as usize] = start + ns;
        self.rps_done_at = start + ns;
        self.next_irq_tcp();
    }

    /// tcp: A takes the next skb, unless the receive window is full.
    fn next_irq_tcp(&mut self) {
        if self.sockq[0].len() >= TCP_WINDOW_SKBS {
            self.a_blocked = true;
        } else {
            self.q.schedule(self.rx.free_at[0], Ev::Irq);
        }
    }

    pub(super) fn deliver(&mut self, t: u64, skb: Skb) {
        if self.cfg.input.rfs {
            return self.backlog_rfs(t, skb);
        }
        let p = self.cfg.profile;
        let reader = match (self.cfg.input.workload, self.cfg.input.consumer) {
            (Workload::UdpIperf, Consumer::Dispatcher) => (skb.flow as usize) % self.sockq.len(),
            _ => 0,
        };
        let truesize = u64::from(self.cfg.input.datagram_bytes) + 768;
        let mut ns = 0;
        if self.cfg.input.workload == Workload::UdpIperf && self.sock_bytes[reader] + truesize > UDP_RCVBUF_BYTES {
            // sock_queue_rcv_skb fails: dropped and freed on the IRQ CPU.
            if skb.counted {
                self.res.dropped += 1;
                self.settle(t);
            }
            ns += self.free_skb(true, 0, t, &skb);
        } else {
            self.sock_bytes[reader] += truesize;
            self.sockq[reader].push_back(skb);
            if self.sleeping[reader] {
                self.sleeping[reader] = false;
                let wakeup = match self.cfg.input.workload {
                    Workload::UdpIperf => Stack::UdpWakeup,
                    Workload::Tcp100g => Stack::TcpWakeup,
                };
                ns += self.rx.work(&p, 0, wakeup, p.kernel.wakeup_cycles.int());
                let latency = if self.reader_cpu(reader as u16) == 0 { 0 } else { p.kernel.wake_latency_ns.int() };
                self.q.schedule(t + ns + latency, Ev::Read(reader as u16));
            }
        }
        self.rx.free_at[0] = self.rx.free_at[0].max(t) + ns;
        let next = self.rx.free_at[0];
        match self.cfg.input.workload {
            Workload::UdpIperf => {
                if self.backlog.is_empty() {
                    self.irq_busy = false;
                } else {
                    self.q.schedule(next, Ev::Irq);
                }
            }
            Workload::Tcp100g => self.next_irq_tcp(),
        }
    }

    pub(super) fn read(&mut self, t: u64, r: u16) {
        let cpu = self.reader_cpu(r);
        if self.rx.free_at[cpu as usize] > t {
            let at = self.rx.free_at[cpu as usize];
            self.q.schedule(at, Ev::Read(r));
            return;
        }
        let Some(skb) = self.sockq[r as usize].pop_front() else {
            self.sleeping[r as usize] = true;
            return;
        };
        let p = self.cfg.profile;
        let input = self.cfg.input;
        let (payload, frames, syscall, copy) = match input.workload {
            Workload::UdpIperf => (u64::from(input.datagram_bytes), 1, Stack::UdpRecvSyscall, Stack::UdpCopyToUser),
            Workload::Tcp100g => {
                (u64::from(TCP_MSS * GRO_FRAMES), u64::from(GRO_FRAMES), Stack::TcpRecvSyscall, Stack::TcpCopyToUser)
            }
        };
        if self.cfg.input.workload == Workload::UdpIperf {
            self.sock_bytes[r as usize] -= u64::from(self.cfg.input.datagram_bytes) + 768;
        }
        let k = p.kernel;
        let (syscalls, recvmsg) = match self.cfg.input.workload {
            Workload::UdpIperf => (p.iperf_syscalls, k.udp_recvmsg_cycles.int()),
            Workload::Tcp100g => (1, p.tcp_recvmsg_skb_cycles()),
        };
        let mut ns = self.rx.work(&p, cpu, syscall, k.syscall_cycles.int() * syscalls + recvmsg);
        ns += self.copy_out(cpu, copy, &skb, payload);
        ns += self.rx.work(&p, cpu, Stack::App, p.iperf_user_cycles);
        ns += self.rx.raw(cpu, Stack::App, self.cfg.input.reader_work_ns);
        if self.cfg.input.defer_free && skb.alloc_cpu != cpu && (self.defer_list.len() as u32) < SKB_DEFER_MAX {
            // skb_attempt_defer_free(): onto the allocating CPU's list under its defer_lock.
            let mut d = self.rx.work(&p, cpu, Stack::DeferHandoff, k.percpu_fold_cycles.int());
            d += self.rx.raw(
                cpu,
                Stack::DeferHandoff,
                self.defer_line.touch(&self.rx.m, self.rx.slub.cpu_caches(), cpu),
            );
            self.rx.time.free_ns[cpu as usize] += d;
            ns += d;
            self.defer_list.push(skb);
            if self.defer_list.len() as u32 == SKB_DEFER_MAX / 2 {
                ns += self.rx.work(&p, cpu, Stack::DeferKick, IPI_CYCLES);
                let a = skb.alloc_cpu;
                let at = self.rx.free_at[a as usize].max(t + ns);
                self.rx.free_at[a as usize] = at + self.rx.work(&p, a, Stack::DeferIpi, IPI_CYCLES);
                let f = self.flush_defer(a, at);
                self.rx.free_at[a as usize] += f;
            }
        } else {
            ns += self.free_skb(true, cpu, t + ns, &skb);
        }
        // udp: the datagrams sent in the window, whenever read; tcp: the frames read in it.
        let counts = if self.cfg.input.workload == Workload::UdpIperf { skb.counted } else { self.in_window() };
        if counts {
            self.res.received += frames;
            self.res.bytes_read += payload;
        }
        if skb.counted {
            self.settle(t);
        }
        self.rx.free_at[cpu as usize] = t + ns;
        self.q.schedule(t + ns, Ev::Read(r));
        if self.a_blocked && self.sockq[0].len() < TCP_WINDOW_SKBS {
            self.a_blocked = false;
            let at = self.rx.free_at[0].max(t + ns);
            self.q.schedule(at, Ev::Irq);
        }
    }

    // ---- tcp-100g ----

    /// `skb_copy_datagram_iter()` of `payload` bytes of `skb` on `cpu`: the copy at the L2
    /// rate, plus, for tcp-100g, each payload line's distance (the DDIO ways or DRAM) over the
    /// misses the core keeps in flight, as [`crate::sim::cache`] charges a cold copy.
    fn copy_out(&mut self, cpu: CpuId, stack: Stack, skb: &Skb, payload: u64) -> u64 {
        let p = self.cfg.profile;
        let mut ns = self.rx.work(&p, cpu, stack, p.copy_cycles(payload));
        if let Some(by) = self.payload_sources(skb) {
            let stall = self.rx.m.copy_stall_ns(&by, false, true);
            ns += self.rx.raw(cpu, stack, stall);
        }
        ns
    }

    /// Where `skb_copy_datagram_iter()` finds the payload lines of `skb`'s frames: in the
    /// DDIO ways of the LLC if no later DMA evicted them, else in DRAM (`None` without DDIO).
    fn payload_sources(&self, skb: &Skb) -> Option<[u32; SOURCES]> {
        let ddio = self.ddio.as_ref()?;
        let mut by = [0u32; SOURCES];
        for k in 0..skb.pages as usize {
            for line in frame_lines(self.pages[skb.first_page + k], TCP_FRAME_HEADER_BYTES, TCP_MSS) {
                let source = if ddio.holds(line) { Source::L3 } else { Source::Dram };
                by[source as usize] += 1;
            }
        }
        Some(by)
    }

    pub(super) fn irq_tcp(&mut self, t: u64) {
        let cpu: CpuId = 0;
        if self.rx.free_at[0] > t {
            let at = self.rx.free_at[0];
            self.q.schedule(at, Ev::Irq);
            return;
        }
        let p = self.cfg.profile;
        // The skb's frames arrive at line rate (the sender keeps the window full).
        let frame_bits = u64::from(TCP_MSS + 52 + 38) * 8;
        let skb_wire_ns = (frame_bits * u64::from(GRO_FRAMES) * 1000).div_ceil(p.link_mbps.max(1));
        self.next_arrival_ns = (self.next_arrival_ns + skb_wire_ns).max(t.saturating_sub(skb_wire_ns));
        let start = t.max(self.next_arrival_ns);
        let mut ns = self.flush_defer(cpu, start);
        let first_page = self.pages.len();
        for _ in 0..GRO_FRAMES {
            ns += self.rx.work(&p, cpu, Stack::Driver, p.kernel.nic_rx_pkt_cycles.int());
            let (pfn, c) = self.rx.slub.alloc_pages(Caller::new(&self.rx.m, cpu, start + ns), 0);
            ns += self.rx.charge(&p, cpu, Stack::PageAlloc, c);
            let pfn = pfn.expect("zone sized for the window");
            self.pages.push(pfn);
            if let Some(ddio) = &mut self.ddio {
                // The NIC DMA'd the frame into the page before the driver saw it (DDIO).
                for line in frame_lines(pfn, 0, TCP_FRAME_HEADER_BYTES + TCP_MSS) {
                    ddio.dma_write(line);
                }
            }
        }
        let (mut skb, a) = self.alloc_skb(true, cpu, start + ns, 0);
        skb.pages = GRO_FRAMES;
        skb.first_page = first_page;
        ns += a;
        ns += if self.cfg.input.rfs {
            self.rx.work(&p, cpu, Stack::RpsEnqueue, p.kernel.rps_enqueue_cycles.int())
        } else {
            self.rx.work(&p, cpu, Stack::TcpRcv, p.tcp_rx_skb_cycles())
        };
        self.rx.free_at[0] = start + ns;
        if self.in_window() {
            self.res.sent += u64::from(GRO_FRAMES);
        }
        self.q.schedule(start + ns, Ev::Deliver(skb));
    }
}

/// Physical lines (address / 64) of `len` bytes at `offset` into a frame the NIC wrote at
/// [`RX_HEADROOM_BYTES`] into page `pfn`.
fn frame_lines(pfn: u32, offset: u32, len: u32) -> std::ops::Range<u64> {
    let lines_per_page = u64::from(PAGE_SIZE / LINE_BYTES);
    let start = RX_HEADROOM_BYTES + offset;
    let first = u64::from(pfn) * lines_per_page + u64::from(start / LINE_BYTES);
    first..u64::from(pfn) * lines_per_page + u64::from((start + len).div_ceil(LINE_BYTES))
}
