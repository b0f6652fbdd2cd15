//! The machine catalogue: one entry per **core family** (the hardware) and one per **kernel
//! era × family** (the kernel's own path costs), each physical quantity with its unit, a value,
//! the range its sources allow and where it comes from. Every experiment builds its machines
//! from here (`MachineProfile::from_catalogue`); no experiment keeps its own copy of a hardware or kernel-path
//! constant, and `core/tests/catalogue.rs` checks that no two machine profiles of the registry
//! give the same quantity different values unless they are different hardware.
//!
//! How a value was obtained is its [`Basis`]: measured in a primary source, read in a
//! secondary one, our arithmetic on cited numbers, an assumption (named as such), or fitted —
//! and then by which seed tables, jointly ([`Basis::Fitted`]); `skblab validate` counts a
//! fitted constant against every table it was fitted to. docs/calibration.md is the readable
//! form of this file, with the sources in full.
//!
//! Files: `mod.rs` (the types, lookups and checks), `families.rs` (one `Family` per core
//! family), `kernels.rs` (one `KernelCosts` per era × family).
//!
//! Conventions: a cache-line transfer is the load latency of a line another core holds
//! modified (the c2c CAS ping-pong's round trip ÷ 2, or Intel MLC's HITM latency); it is uncore
//! time and does not scale with the core clock. Kernel-path costs are in core cycles at the
//! clock the benchmark ran (Brouer's time_bench reports TSC cycles, equal to core cycles with
//! turbo off).

use serde::Serialize;

/// How a catalogue value was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Read as measured data in the primary source (raw CSV, MLC output, a mail's numbers).
    Measured,
    /// From a secondary source: a review's table, a vendor spec sheet, a summary.
    Secondary,
    /// Our arithmetic on cited numbers (the source says which).
    Estimate,
    /// A model assumption: no source was found; the range says how unsure it is.
    Assumed,
    /// The mechanism does not exist on this machine (no Xen PV layer on bare metal or KVM): the
    /// cost is zero by construction, neither measured nor assumed.
    Absent,
    /// Fitted, inside the sourced range, jointly to the seed tables named (their short names
    /// as `skblab validate` prints them); also a fitted value another entry carries (its
    /// source says which entry's fit and why it carries over).
    Fitted(&'static [&'static str]),
}

/// One physical quantity: value, the range its sources allow, unit, basis and source.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Quantity {
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub unit: &'static str,
    pub basis: Basis,
    /// Where the value and its range come from, one line (list, date, Message-ID, commit,
    /// document); docs/calibration.md has the full references.
    pub source: &'static str,
}

/// A quantity (the catalogue's entries, and the workload quantities experiments keep beside
/// their machines).
pub const fn q(value: f64, min: f64, max: f64, unit: &'static str, basis: Basis, source: &'static str) -> Quantity {
    Quantity { value, min, max, unit, basis, source }
}

impl Quantity {
    /// The value rounded to a whole number (the worlds count integer ns and cycles).
    pub const fn int(&self) -> u64 {
        (self.value + 0.5) as u64
    }
    /// Whether this quantity was fitted to some table.
    pub fn is_fitted(&self) -> bool {
        matches!(self.basis, Basis::Fitted(_))
    }
    /// The tables a fitted quantity was fitted to (empty when not fitted).
    pub fn fitted_to(&self) -> &'static [&'static str] {
        match self.basis {
            Basis::Fitted(t) => t,
            _ => &[],
        }
    }
    /// The same quantity with another value (a fit's trial value, a band sample).
    pub const fn with_value(self, value: f64) -> Quantity {
        Quantity { value, ..self }
    }
    /// The same quantity with another source line (a fitted value another entry carries,
    /// saying why it carries over).
    pub const fn with_source(self, source: &'static str) -> Quantity {
        Quantity { source, ..self }
    }
}

crate::choice_enum! {
    /// A core family of the catalogue.
    pub enum FamilyId {
        /// Intel Xeon Scalable 1st gen (2017): seed 000's and seed 004's server, seed 002's router.
        SkylakeSp = "skylake-sp",
        /// Intel Xeon E5 v4 (2016): seed 003's dual Xeon, seed 002's x86 bench host.
        BroadwellEp = "broadwell-ep",
        /// Intel Xeon X56xx (2010–11) under Xen: seed 001.
        WestmereXen = "westmere-xen",
        /// Arm Cortex-A53 (in-order, one cluster): seed 002's A53 board.
        CortexA53 = "cortex-a53",
        /// AMD Zen 5 guest (2 vCPUs): the machines this project is built and tested on.
        Zen5Guest = "zen5-guest",
        /// AMD Zen 3 EPYC 7003 (Milan) guest (2 vCPUs): a measured guest of this project.
        MilanGuest = "milan-guest",
        /// Intel Emerald Rapids (5th-gen Xeon) guest (2 vCPUs): a measured guest of this project.
        EmrGuest = "emr-guest",
        /// AMD Zen 4 EPYC 9004 (Genoa) guest (2 vCPUs): a measured guest of this project.
        GenoaGuest = "genoa-guest",
    }
}

/// The hardware of one core family.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Family {
    pub id: FamilyId,
    pub name: &'static str,
    /// A line last written by the SMT sibling (shared L1/L2).
    pub line_smt_ns: Quantity,
    /// A line last written by another core of the same socket (mesh, ring, cluster).
    pub line_same_socket_ns: Quantity,
    /// A line last written by a core of the other socket (UPI/QPI snoop).
    pub line_cross_socket_ns: Quantity,
    /// A line no private cache holds, from the socket's L3.
    pub line_llc_ns: Quantity,
    /// Idle DRAM latency, local node and the other node.
    pub dram_ns: Quantity,
    pub dram_remote_ns: Quantity,
    /// Private L2 per physical core, bytes.
    pub l2_bytes: Quantity,
    /// Shared L3 per core of a socket, bytes (0: no L3).
    pub l3_bytes_per_core: Quantity,
    /// One locked read-modify-write (`lock xadd`, `atomic_inc`) on a line the core owns.
    pub locked_rmw_ns: Quantity,
    /// Copy bandwidth of one core on data in its own L2 (`rep movsb`, copy_user), bytes per
    /// 1000 cycles.
    pub copy_bytes_per_kcycle: Quantity,
    /// Cache misses one core keeps in flight in a streaming copy (fill buffers, L2 streamer).
    pub copy_mlp: Quantity,
    /// Extra time per 64-byte line of a streaming write (`rep movsb`) into data another core's
    /// private cache still holds (its copy must be invalidated before the store completes),
    /// over the same write into lines only this core holds. `None` where it was not measured:
    /// the model then keeps its no-wait assumption (`MachineProfile::copy_stall_ps`).
    pub copy_write_shared_ps: Option<Quantity>,
    /// Clock with one busy core (max turbo) and with every core of the socket busy.
    pub turbo_max_mhz: Quantity,
    pub turbo_all_core_mhz: Quantity,
    /// Slowdown of each of two busy SMT siblings, percent (160: 1.25× the core's throughput).
    pub smt_slowdown_pct: Quantity,
}

crate::choice_enum! {
    /// A kernel era: the path costs of the kernel the seed ran (mitigations, allocator shape).
    pub enum Era {
        /// 2.6.3x–3.x (2010–2011): seed 001.
        Linux2011 = "2011",
        /// 4.x (2016–2018): seeds 002 and 003.
        Linux2018 = "2018",
        /// 5.0–5.4 (2019), with the Meltdown/Spectre mitigations: seeds 000 and 004.
        Linux2019 = "2019",
        /// 6.x (2024–2026): this project's own machines.
        Linux2026 = "2026",
    }
}

/// The kernel's own path costs on one family in one era, in core cycles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KernelCosts {
    pub family: FamilyId,
    pub era: Era,
    /// One per-CPU page list operation (rmqueue_pcplist or free_unref_page with its IRQ
    /// save/restore and migratetype lookup; half an order-0 alloc+free pair).
    pub pcp_op_cycles: Quantity,
    /// Instructions of one buddy list step under zone->lock (list del/add, set_page_order on
    /// lines already fetched; their misses are counted as lines).
    pub buddy_step_cycles: Quantity,
    /// The per-subpage work of an order > 0 block on lines already fetched: one tail page in
    /// `prep_compound_page` or in `free_pages_prepare`'s checks, one subpage's
    /// `check_new_page` under zone->lock (their misses are counted as lines).
    pub compound_tail_cycles: Quantity,
    /// SLUB alloc or free fast path (kmem_cache_cpu, cmpxchg_double, tid): half a pair.
    pub slub_fast_cycles: Quantity,
    /// Extra work of `___slab_alloc` / `__slab_free` beyond the fast path, on lines already
    /// fetched (their transfers are counted by distance).
    pub slub_slow_cycles: Quantity,
    /// spin_lock + spin_unlock, uncontended, on an owned line.
    pub spin_lock_cycles: Quantity,
    /// One syscall's fixed cost (entry/exit with the era's mitigations, fd lookup,
    /// lock_sock/release_sock).
    pub syscall_cycles: Quantity,
    /// try_to_wake_up + the wakee's schedule().
    pub wakeup_cycles: Quantity,
    /// TCP work per segment sent (on loopback one skb of at most the size goal is one
    /// segment): tcp_write_xmit / __tcp_transmit_skb (the clone, headers), IP output,
    /// loopback_xmit and the softirq receive (ip_rcv, tcp_v4_rcv, queueing, sk_data_ready),
    /// all on the sender's CPU; whatever the segment's length (its bytes cost the copies).
    /// No published breakdown was found: fitted (seed 000).
    pub tcp_skb_cycles: Quantity,
    /// Share of `tcp_skb_cycles` in the receive half (softirq ip_rcv .. tcp_queue_rcv and the
    /// ACK), percent; the rest is the transmit half.
    pub tcp_rx_share_pct: Quantity,
    /// The receiving process's work per skb it consumes: tcp_recvmsg's unlink and free of
    /// the sk_buff, tcp_rcv_space_adjust, tcp_cleanup_rbuf and the ACK (the syscall's own
    /// entry/exit is `syscall_cycles`, once per recvmsg however many skbs it takes).
    pub tcp_recvmsg_skb_cycles: Quantity,
    /// Per frag on both sides: skb_fill_page_desc / the copy iterator stepping to a new frag.
    pub tcp_frag_cycles: Quantity,
    /// The receiving CPU's TCP work per GRO skb of page frags from a NIC (about 15-17
    /// MTU-sized frames): the softirq receive (ip_rcv .. tcp_queue_rcv, the ACK) and
    /// tcp_recvmsg's per-skb work, beside the copy, the frees of the skb and its pages, the
    /// syscall and the wakeup, which are charged apart. The loopback worlds use
    /// `tcp_skb_cycles` and `tcp_recvmsg_skb_cycles` (one segment of up to 64 KiB in one
    /// linear-plus-frags skb, sender and receiver on one CPU).
    pub tcp_rx_gro_skb_cycles: Quantity,
    /// sk_buff bookkeeping apart from the allocator, per skb: `__alloc_skb`'s init and the
    /// shinfo memset, `skb_release_head_state` / `skb_release_data` (half at each end).
    pub skb_cycles: Quantity,
    /// UDP send per datagram, excluding the syscall, the skb allocation and the copy:
    /// udp_sendmsg → ip_make_skb → ip_finish_output → dev_queue_xmit (pfifo_fast).
    pub udp_send_cycles: Quantity,
    /// UDP receive in softirq per datagram: netif_receive_skb → ip_rcv → udp_rcv →
    /// sock_queue_rcv_skb (the wakeup apart).
    pub udp_rcv_cycles: Quantity,
    /// udp_recvmsg per datagram, excluding the syscall, the copy and the free:
    /// skb_recv_datagram's dequeue, checksum, address copy, skb_free_datagram_locked.
    pub udp_recvmsg_cycles: Quantity,
    /// Xen PV netfront transmit per packet, guest and hypervisor: grant the page, fill the
    /// ring slot, the event-channel notify the backend asks for, tx_buf_gc's grant release
    /// (0 where the guest has no PV network layer).
    pub pv_net_tx_cycles: Quantity,
    /// Xen PV netfront receive per packet: the response, ending the grant, refilling the slot
    /// (a page and its grant) and pulling the header into the linear area (0: no PV layer).
    pub pv_net_rx_cycles: Quantity,
    /// One event-channel upcall: Xen's bounce into the guest, evtchn_do_upcall, the handler's
    /// dispatch and the iret hypercall (an interrupt or IPI of a PV guest; 0: no PV layer).
    pub pv_upcall_cycles: Quantity,
    /// From an IPI to a blocked vCPU to that vCPU running its woken task (SCHEDOP_block →
    /// the hypervisor's scheduler); bare metal: leaving a shallow idle state.
    pub wake_latency_ns: Quantity,
    /// The waker's CPU sending the wakeup IPI to an idle CPU (6.x: `ttwu_queue_wakelist` →
    /// `send_call_function_single_ipi`, 5.8+; 5.2: `ttwu_queue_remote` across LLCs, else
    /// `resched_curr` → `smp_send_reschedule`), ns: on bare metal an x2APIC ICR write; on a KVM
    /// guest without IPI virtualization the write's VM exit, the host's delivery and its kick
    /// of the halted vCPU's thread, the sending vCPU stopped meanwhile.
    pub ipi_send_ns: Quantity,
    /// `percpu_counter_add_batch` (and `__percpu_counter_compare`) below the batch, on lines
    /// already in the core's L2: call/ret, preempt_disable/enable, this_cpu read and add, the
    /// batch test. Cache misses are counted as lines by the caller (`sim::cache`).
    pub percpu_add_cycles: Quantity,
    /// The fold of `percpu_counter_add_batch` past the batch, on an owned line:
    /// raw_spin_lock_irqsave, two adds, unlock_irqrestore.
    pub percpu_fold_cycles: Quantity,
    /// An inlined `__this_cpu_add_return` with preempt_disable/enable (6.0's per-CPU reserve).
    pub this_cpu_op_cycles: Quantity,
    /// One expired timer of the timer softirq besides what its callback accounts for:
    /// expire_timers' step, call_timer_fn, `tcp_write_timer`'s bh_lock_sock / owned check /
    /// early exit / sock_put, on lines already fetched (the socket's lines are counted apart).
    pub timer_fire_cycles: Quantity,
    /// One re-arm of a TCP socket's pending timer on the transaction path, with its caller's
    /// timeout: `tcp_send_delayed_ack` (the delayed ACK), `tcp_rearm_rto` (the RTO) or
    /// `tcp_schedule_loss_probe` (the tail loss probe), then `sk_reset_timer` → `mod_timer` →
    /// `__mod_timer` on the base of the CPU that armed it last (skb-cache).
    pub tcp_timer_rearm_cycles: Quantity,
    /// How late after the tick an idle CPU runs its softirq, at most: the exit latency of the
    /// idle state it sleeps in (intel_idle's table for the family), ns.
    pub idle_exit_ns: Quantity,
    /// NIC driver receive per packet beside the allocator: NAPI poll, descriptor and DMA
    /// sync, skb build, eth_type_trans, GRO entry (skb-cache).
    pub nic_rx_pkt_cycles: Quantity,
    /// NIC driver transmit per packet: ndo_start_xmit (descriptor, doorbell) and its TX
    /// completion (CQ poll, DMA unmap), beside the skb's free (skb-cache).
    pub nic_tx_pkt_cycles: Quantity,
    /// epoll_wait per event returned (ep_send_events: ep_item_poll → tcp_poll, the copy of the
    /// event, the ready-list moves); the syscall itself is `syscall_cycles` (skb-cache).
    pub epoll_event_cycles: Quantity,
    /// schedule() from one thread to another of the same process on one CPU (no wakeup on
    /// another CPU, no address-space switch) (skb-cache).
    pub context_switch_cycles: Quantity,
    /// RPS on the CPU that received the packet: enqueue_to_backlog (its lock) and its share of
    /// the IPI to the target CPU (skb-cache).
    pub rps_enqueue_cycles: Quantity,
}

/// One part (SKU) of a family whose clocks are known apart from the family's: its own spec
/// sheet and measurements. A machine built on a part ([`crate::sim::machine::MachineProfile::on_part`])
/// takes every other field from its family.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Part {
    pub family: FamilyId,
    /// Intel's name of the part, e.g. "Xeon E5-1650 v4".
    pub name: &'static str,
    /// Clock with one busy core, and with every core busy.
    pub turbo_max_mhz: Quantity,
    pub turbo_all_core_mhz: Quantity,
}

impl Part {
    /// Every quantity with its field name.
    pub fn quantities(&self) -> Vec<(&'static str, Quantity)> {
        vec![("turbo_max_mhz", self.turbo_max_mhz), ("turbo_all_core_mhz", self.turbo_all_core_mhz)]
    }
}

mod families;
mod kernels;

pub use families::{
    BROADWELL_EP, CORTEX_A53, E5_1650_V4, EMR_GUEST, GENOA_GUEST, MILAN_GUEST, SKYLAKE_SP, WESTMERE_XEN, ZEN5_GUEST,
};

/// Every part with clocks of its own.
pub const PARTS: [&Part; 1] = [&E5_1650_V4];

/// The part named `name`, if the catalogue has it.
pub fn part(name: &str) -> Option<&'static Part> {
    PARTS.iter().find(|p| p.name == name).copied()
}
pub use kernels::{
    BROADWELL_EP_2018, CORTEX_A53_2018, EMR_GUEST_2026, GENOA_GUEST_2026, MILAN_GUEST_2026, SKYLAKE_SP_2018,
    SKYLAKE_SP_2019, WESTMERE_XEN_2011, ZEN5_GUEST_2026,
};

/// Every family, in [`FamilyId`] order.
pub const FAMILIES: [&Family; 8] =
    [&SKYLAKE_SP, &BROADWELL_EP, &WESTMERE_XEN, &CORTEX_A53, &ZEN5_GUEST, &MILAN_GUEST, &EMR_GUEST, &GENOA_GUEST];

/// The family of `id`.
pub fn family(id: FamilyId) -> &'static Family {
    FAMILIES.iter().find(|f| f.id == id).copied().unwrap_or(&SKYLAKE_SP)
}

/// Every kernel-cost entry.
pub const KERNELS: [&KernelCosts; 9] = [
    &SKYLAKE_SP_2019,
    &BROADWELL_EP_2018,
    &WESTMERE_XEN_2011,
    &CORTEX_A53_2018,
    &ZEN5_GUEST_2026,
    &SKYLAKE_SP_2018,
    &MILAN_GUEST_2026,
    &EMR_GUEST_2026,
    &GENOA_GUEST_2026,
];

/// The family of a CPU by its CPUID vendor, family and model (what `/proc/cpuinfo` and a
/// measurement file's `machine.cpu` say), if the catalogue has one: every entry found this way
/// is a guest profile (the CPUs this project's 2-vCPU KVM guests run on), with 6.x kernel costs.
pub fn family_of_cpu(vendor: &str, cpu_family: u32, model: u32) -> Option<FamilyId> {
    match (vendor, cpu_family, model) {
        ("AuthenticAMD", 26, _) => Some(FamilyId::Zen5Guest),
        // Family 25 model 0x01: Milan and Milan-X (EPYC 7003); 0x00-0x0f is Zen 3 server.
        ("AuthenticAMD", 25, 0x00..=0x0f) => Some(FamilyId::MilanGuest),
        // Family 25 models 0x10-0x1f: Zen 4 (AMD's PPR and openSIL list Genoa, EPYC 9004, as
        // models 10h-1Fh; the range also holds non-EPYC Zen 4 parts, which we map here too).
        ("AuthenticAMD", 25, 0x10..=0x1f) => Some(FamilyId::GenoaGuest),
        // Family 6 model 0xcf (207): Emerald Rapids Xeon (INTEL_EMERALDRAPIDS_X).
        ("GenuineIntel", 6, 0xcf) => Some(FamilyId::EmrGuest),
        _ => None,
    }
}

/// [`family_of_cpu`] of a text `Vendor family F model M` (a measurement file's `machine.cpu`).
pub fn family_of_cpu_text(cpu: &str) -> Option<FamilyId> {
    let w: Vec<&str> = cpu.split_whitespace().collect();
    match w.as_slice() {
        [vendor, "family", f, "model", m] => family_of_cpu(vendor, f.parse().ok()?, m.parse().ok()?),
        _ => None,
    }
}

/// The kernel costs of `family` in `era`, if the catalogue has them.
pub fn kernel(family: FamilyId, era: Era) -> Option<&'static KernelCosts> {
    KERNELS.iter().find(|k| k.family == family && k.era == era).copied()
}

/// The name-keyed access to a catalogue struct's quantities, from one list of its fields (in
/// declaration order): `quantities()`, every quantity with its field name (the same-physics
/// test, the docs and the bands walk it), and `quantity_mut(name)`, the one of that name to
/// set (a band sample, a fit's trial value).
macro_rules! quantity_fields {
    ($ty:ident { $($field:ident),+ $(,)? } $(optional { $($opt:ident),+ $(,)? })?) => {
        impl $ty {
            /// Every quantity with its field name (an optional one only where the entry has it).
            pub fn quantities(&self) -> Vec<(&'static str, Quantity)> {
                [$((stringify!($field), Some(self.$field))),+ $($(, (stringify!($opt), self.$opt))+)?]
                    .into_iter()
                    .filter_map(|(name, q)| Some((name, q?)))
                    .collect()
            }
            /// The quantity of field `name`, if this struct has one.
            pub fn quantity_mut(&mut self, name: &str) -> Option<&mut Quantity> {
                match name {
                    $(stringify!($field) => Some(&mut self.$field),)+
                    $($(stringify!($opt) => self.$opt.as_mut(),)+)?
                    _ => None,
                }
            }
        }
    };
}

quantity_fields!(Family {
    line_smt_ns,
    line_same_socket_ns,
    line_cross_socket_ns,
    line_llc_ns,
    dram_ns,
    dram_remote_ns,
    l2_bytes,
    l3_bytes_per_core,
    locked_rmw_ns,
    copy_bytes_per_kcycle,
    copy_mlp,
    turbo_max_mhz,
    turbo_all_core_mhz,
    smt_slowdown_pct
} optional {
    copy_write_shared_ps
});

quantity_fields!(KernelCosts {
    pcp_op_cycles,
    buddy_step_cycles,
    compound_tail_cycles,
    slub_fast_cycles,
    slub_slow_cycles,
    spin_lock_cycles,
    syscall_cycles,
    wakeup_cycles,
    tcp_skb_cycles,
    tcp_rx_share_pct,
    tcp_recvmsg_skb_cycles,
    tcp_frag_cycles,
    tcp_rx_gro_skb_cycles,
    skb_cycles,
    udp_send_cycles,
    udp_rcv_cycles,
    udp_recvmsg_cycles,
    pv_net_tx_cycles,
    pv_net_rx_cycles,
    pv_upcall_cycles,
    wake_latency_ns,
    ipi_send_ns,
    percpu_add_cycles,
    percpu_fold_cycles,
    this_cpu_op_cycles,
    timer_fire_cycles,
    tcp_timer_rearm_cycles,
    idle_exit_ns,
    nic_rx_pkt_cycles,
    nic_tx_pkt_cycles,
    epoll_event_cycles,
    context_switch_cycles,
    rps_enqueue_cycles
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_lies_in_its_range_and_every_entry_is_sourced() {
        let fams = FAMILIES.iter().flat_map(|f| f.quantities().into_iter().map(|(n, q)| (f.name, n, q)));
        let kers = KERNELS.iter().flat_map(|k| k.quantities().into_iter().map(|(n, q)| ("kernel", n, q)));
        for (who, name, q) in fams.chain(kers) {
            assert!(q.min <= q.value && q.value <= q.max, "{who} {name}: {} outside {}..={}", q.value, q.min, q.max);
            assert!(q.source.len() > 10 && !q.unit.is_empty(), "{who} {name}: no source or unit");
            if q.basis == Basis::Absent {
                assert!(q.value == 0.0 && q.min == 0.0 && q.max == 0.0, "{who} {name}: absent but not a fixed 0");
            }
        }
    }

    #[test]
    fn ids_are_unique_and_found() {
        for f in FAMILIES {
            assert_eq!(family(f.id).id, f.id);
        }
        for k in KERNELS {
            assert_eq!(kernel(k.family, k.era).map(|x| x.era), Some(k.era));
        }
    }
}
