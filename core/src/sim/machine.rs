//! The machine profile: topology (sockets, cores, SMT) and the few physical constants every
//! cost in the simulation is built from.
//!
//! What real hardware does: work on a core takes cycles, and a cycle's length depends on the
//! clock, which Intel's turbo raises when few cores are busy; moving a cache line that another
//! core wrote costs a transfer over the mesh (same socket) or UPI (other socket); two hardware
//! threads of one core share its pipelines.
//!
//! What we simplify: a thread's work is a number of cycles, turned into nanoseconds at the
//! clock of its socket (linear turbo between one busy core and all cores busy, fixed for a
//! run by how many cores the placement occupies); a core running two threads (SMT) runs each
//! `smt_slowdown_pct` % slower; a line transfer is a latency in ns that does not scale with the
//! core clock (it is uncore). Which constants are fitted, their ranges and sources:
//! docs/calibration.md.

use super::catalogue::{Era, Family, FamilyId, KernelCosts, Part};
use serde::Serialize;

/// Identifies a hardware thread (a logical CPU as Linux numbers them).
pub type CpuId = u16;

/// A machine as data: its topology and the physical constants every cost is built from.
/// Units are in the field names (`_ns`, `_ps`, `_mhz`, `_cycles`); each doc says where the
/// value comes from (spec sheet, literature, or fitted by `skblab calibrate`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineProfile {
    pub name: &'static str,
    /// The catalogue entry of its cores ([`super::catalogue`]): the hardware fields below
    /// are that family's values.
    pub family: FamilyId,
    /// The kernel it ran: the kernel-path fields below are that era's values for the family.
    pub era: Era,
    /// The catalogue part ([`super::catalogue::PARTS`]) whose clocks it has, if not the family's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<&'static str>,
    /// CPU packages, one NUMA node (and one zone) each. 1..=[`MAX_SOCKETS`].
    pub sockets: u32,
    /// Physical cores per socket (the die; a run may online fewer).
    pub cores_per_socket: u32,
    /// Hardware threads per core (2 with Hyper-Threading).
    pub threads_per_core: u32,
    /// Clock with one busy core on the socket (max turbo). Spec sheet, not fitted.
    pub turbo_max_mhz: u64,
    /// Clock with every core of the socket busy (all-core turbo). Fitted.
    pub turbo_all_core_mhz: u64,
    /// Read of a line last written by another core of the same socket (mesh). Fitted.
    pub line_same_socket_ns: u64,
    /// Read of a line last written by a core of the other socket (UPI snoop). Literature.
    pub line_cross_socket_ns: u64,
    /// Read of a line last written by the SMT sibling (shared L1/L2).
    pub line_same_core_ns: u64,
    /// Read of a line no private cache holds, from the socket's L3. Literature.
    pub line_llc_ns: u64,
    /// Read of a line from the DRAM of the core's own node, and of the other node. Literature.
    pub dram_ns: u64,
    pub dram_remote_ns: u64,
    /// Private L2 per physical core (shared by its SMT threads), bytes. Spec sheet.
    pub l2_bytes: u64,
    /// Shared L3 per core of a socket (a socket has `cores_per_socket` times this). Spec sheet.
    pub l3_bytes_per_core: u64,
    /// Cache misses one core keeps in flight during a streaming copy (fill buffers and the L2
    /// streamer): a copy of lines from a source `d` ns away costs `d / copy_mlp` per line on
    /// top of the copy itself. Fitted.
    pub copy_mlp: u64,
    /// Extra time per line of a streaming write into data another core's L2 still holds (the
    /// catalogue's `copy_write_shared_ps`; 0 where not measured: the no-wait assumption of
    /// [`MachineProfile::copy_stall_ps`]), ps.
    #[serde(skip_serializing_if = "is_zero")]
    pub copy_write_shared_ps: u64,
    /// Copy bandwidth of one core for `copy_user_enhanced_fast_string` on data in its own L2,
    /// bytes per 1000 cycles. Fitted.
    pub copy_bytes_per_kcycle: u64,
    /// Fixed cost of one `sendmsg()` or `recvmsg()` call whatever its size: syscall entry and exit (with the
    /// 2019 Spectre/Meltdown mitigations), fd lookup, `lock_sock`/`release_sock`, iov setup.
    /// Sourced, not fitted: docs/calibration.md.
    pub syscall_cycles: u64,
    /// Work per segment sent (catalogue `tcp_skb_cycles`): tcp_write_xmit, IP,
    /// loopback_xmit and the softirq receive (netif_rx, ip_rcv, tcp_v4_rcv), whatever its length.
    pub skb_tx_cycles: u64,
    /// Receiver work per skb consumed (catalogue `tcp_recvmsg_skb_cycles`): tcp_recvmsg's
    /// per-skb work, the ACK it sends and processes; the syscall itself is `syscall_cycles`.
    pub skb_rx_cycles: u64,
    /// Per-frag work on both sides: skb_fill_page_desc / the copy iterator stepping to a new
    /// frag (kmap, bounds), excluding the copy itself. Fitted.
    pub frag_cycles: u64,
    /// One per-page list or refcount operation (a PCP list add/del, page_ref_inc, an atomic
    /// on a local line, a tail page's compound checks). Fitted.
    pub page_op_cycles: u64,
    /// Instructions of one buddy list step under zone->lock (list_del + list_add +
    /// set_page_order on lines already fetched, whose misses are counted separately): a few
    /// dozen instructions. Sourced estimate, not fitted (docs/calibration.md).
    pub buddy_step_cycles: u64,
    /// Work per subpage of an order > 0 block on lines already fetched (catalogue
    /// `compound_tail_cycles`: page_bench01's per-page slope, half a pair): a tail page in
    /// `prep_compound_page` / `free_pages_prepare`, a subpage's `check_new_page`. Used when the
    /// zone charges the holder's work ([`super::zone::Zone::holder_work`]). Sourced estimate.
    pub tail_page_cycles: u64,
    /// try_to_wake_up + the wakee's schedule(), charged when a blocked thread is woken.
    pub wakeup_cycles: u64,
    /// Slowdown of each of two busy SMT siblings, in percent (160 = 1.25x core throughput).
    pub smt_slowdown_pct: u64,
}

/// The 2019 server of seed 000: "56 x86 cores". Model assumption: two Skylake-SP sockets of
/// 28 cores with Hyper-Threading (112 logical CPUs), e.g. Xeon Platinum 8176/8180. Every
/// value is the catalogue's (`SKYLAKE_SP`, `SKYLAKE_SP_2019`); the ones fitted to seed 000
/// are marked `Fitted(&["seed000"])` there (docs/calibration.md).
pub const SERVER_2019: MachineProfile = MachineProfile::from_catalogue(
    "2x28-core Skylake-SP server (seed 000, 2019)",
    &super::catalogue::SKYLAKE_SP,
    &super::catalogue::SKYLAKE_SP_2019,
    2,
    28,
    2,
);

impl MachineProfile {
    /// A machine of `family`'s cores running `kernel`'s kernel, `sockets` × `cores` ×
    /// `threads`: every hardware and kernel-path field from the catalogue (`skb_tx_cycles`,
    /// `skb_rx_cycles` and `frag_cycles` are the era's TCP costs `tcp_skb_cycles`,
    /// `tcp_recvmsg_skb_cycles`, `tcp_frag_cycles`).
    pub const fn from_catalogue(
        name: &'static str,
        family: &Family,
        kernel: &KernelCosts,
        sockets: u32,
        cores: u32,
        threads: u32,
    ) -> MachineProfile {
        MachineProfile {
            name,
            family: family.id,
            era: kernel.era,
            part: None,
            sockets,
            cores_per_socket: cores,
            threads_per_core: threads,
            turbo_max_mhz: family.turbo_max_mhz.int(),
            turbo_all_core_mhz: family.turbo_all_core_mhz.int(),
            line_same_socket_ns: family.line_same_socket_ns.int(),
            line_cross_socket_ns: family.line_cross_socket_ns.int(),
            line_same_core_ns: family.line_smt_ns.int(),
            line_llc_ns: family.line_llc_ns.int(),
            dram_ns: family.dram_ns.int(),
            dram_remote_ns: family.dram_remote_ns.int(),
            l2_bytes: family.l2_bytes.int(),
            l3_bytes_per_core: family.l3_bytes_per_core.int(),
            copy_mlp: family.copy_mlp.int(),
            copy_write_shared_ps: match family.copy_write_shared_ps {
                Some(q) => q.int(),
                None => 0,
            },
            copy_bytes_per_kcycle: family.copy_bytes_per_kcycle.int(),
            syscall_cycles: kernel.syscall_cycles.int(),
            skb_tx_cycles: kernel.tcp_skb_cycles.int(),
            skb_rx_cycles: kernel.tcp_recvmsg_skb_cycles.int(),
            frag_cycles: kernel.tcp_frag_cycles.int(),
            page_op_cycles: kernel.pcp_op_cycles.int(),
            buddy_step_cycles: kernel.buddy_step_cycles.int(),
            tail_page_cycles: kernel.compound_tail_cycles.int(),
            wakeup_cycles: kernel.wakeup_cycles.int(),
            smt_slowdown_pct: family.smt_slowdown_pct.int(),
        }
    }

    /// The same machine with `part`'s clocks (one busy core, all cores) instead of its family's.
    pub const fn on_part(self, part: &'static Part) -> MachineProfile {
        MachineProfile {
            part: Some(part.name),
            turbo_max_mhz: part.turbo_max_mhz.int(),
            turbo_all_core_mhz: part.turbo_all_core_mhz.int(),
            ..self
        }
    }

    /// Hardware and kernel-path fields that differ from the catalogue's values for this
    /// profile's family and era, as `field: profile vs catalogue` (empty: one physics).
    pub fn catalogue_mismatches(&self) -> Vec<String> {
        let fam = super::catalogue::family(self.family);
        let mut want = MachineProfile::from_catalogue(self.name, fam, &super::catalogue::SKYLAKE_SP_2019, 1, 1, 1);
        let kernel = super::catalogue::kernel(self.family, self.era);
        let mut out = Vec::new();
        match kernel {
            Some(k) => {
                want = MachineProfile::from_catalogue(self.name, fam, k, 1, 1, 1);
            }
            None => out.push(format!("no kernel costs for {:?} in era {:?}", self.family, self.era)),
        }
        if let Some(name) = self.part {
            match super::catalogue::part(name) {
                Some(p) if p.family == self.family => want = want.on_part(p),
                Some(p) => out.push(format!("{}: part {name} is a {:?}, not a {:?}", self.name, p.family, self.family)),
                None => out.push(format!("{}: no part {name} in the catalogue", self.name)),
            }
        }
        let pairs = [
            ("turbo_max_mhz", self.turbo_max_mhz, want.turbo_max_mhz),
            ("turbo_all_core_mhz", self.turbo_all_core_mhz, want.turbo_all_core_mhz),
            ("line_same_socket_ns", self.line_same_socket_ns, want.line_same_socket_ns),
            ("line_cross_socket_ns", self.line_cross_socket_ns, want.line_cross_socket_ns),
            ("line_same_core_ns", self.line_same_core_ns, want.line_same_core_ns),
            ("line_llc_ns", self.line_llc_ns, want.line_llc_ns),
            ("dram_ns", self.dram_ns, want.dram_ns),
            ("dram_remote_ns", self.dram_remote_ns, want.dram_remote_ns),
            ("l2_bytes", self.l2_bytes, want.l2_bytes),
            ("l3_bytes_per_core", self.l3_bytes_per_core, want.l3_bytes_per_core),
            ("copy_mlp", self.copy_mlp, want.copy_mlp),
            ("copy_write_shared_ps", self.copy_write_shared_ps, want.copy_write_shared_ps),
            ("copy_bytes_per_kcycle", self.copy_bytes_per_kcycle, want.copy_bytes_per_kcycle),
            ("syscall_cycles", self.syscall_cycles, want.syscall_cycles),
            ("skb_tx_cycles", self.skb_tx_cycles, want.skb_tx_cycles),
            ("skb_rx_cycles", self.skb_rx_cycles, want.skb_rx_cycles),
            ("frag_cycles", self.frag_cycles, want.frag_cycles),
            ("page_op_cycles", self.page_op_cycles, want.page_op_cycles),
            ("buddy_step_cycles", self.buddy_step_cycles, want.buddy_step_cycles),
            ("tail_page_cycles", self.tail_page_cycles, want.tail_page_cycles),
            ("wakeup_cycles", self.wakeup_cycles, want.wakeup_cycles),
            ("smt_slowdown_pct", self.smt_slowdown_pct, want.smt_slowdown_pct),
        ];
        for (name, have, cat) in pairs {
            if have != cat {
                out.push(format!("{}: {name} {have} vs catalogue {cat}", self.name));
            }
        }
        out
    }
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Bytes of a base page on x86_64 (`PAGE_SIZE`): page frags, slab pages and skb heads are
/// sized in it.
pub const PAGE_SIZE: u32 = 4096;

/// Most sockets a profile may have (8-socket glueless x86 servers exist; more would need
/// node controllers this model does not have).
pub const MAX_SOCKETS: u32 = 8;

/// Most logical CPUs of a machine: a [`CpuId`] must stay below `u16::MAX` (the "no owner"
/// value of a cache line) and per-CPU arrays stay small.
pub const MAX_LOGICAL_CPUS: u32 = 4096;

/// Cycles to ns at `mhz`, rounded to nearest.
pub fn cycles_to_ns(cycles: u64, mhz: u64) -> u64 {
    (cycles * 1000 + mhz / 2) / mhz
}

/// Where a logical CPU sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CpuPos {
    pub socket: u32,
    pub core: u32,
    pub smt: u32,
}

impl MachineProfile {
    /// This profile's per-core constants on `sockets` sockets with `online_per_socket`
    /// physical cores online on each: a die keeps at least this profile's cores (so fewer
    /// online cores leave the turbo curve of the real die unchanged) and grows when more are
    /// online (a bigger die of the same cores).
    pub fn with_topology(&self, sockets: u32, online_per_socket: u32) -> MachineProfile {
        let m =
            MachineProfile { sockets, cores_per_socket: self.cores_per_socket.max(online_per_socket), ..self.clone() };
        assert!(
            (1..=MAX_SOCKETS).contains(&sockets) && m.n_cpus() <= MAX_LOGICAL_CPUS,
            "bug: topology {sockets} x {} x {} out of range",
            m.cores_per_socket,
            m.threads_per_core
        );
        m
    }

    /// Logical CPUs of the full machine.
    pub fn n_cpus(&self) -> u32 {
        self.sockets * self.cores_per_socket * self.threads_per_core
    }

    /// Linux-style numbering: CPUs 0..S*C-1 are the first thread of every core (socket-major),
    /// the SMT siblings follow.
    pub fn pos(&self, cpu: CpuId) -> CpuPos {
        let cpu = u32::from(cpu);
        let per_thread = self.sockets * self.cores_per_socket;
        let smt = cpu / per_thread;
        let rest = cpu % per_thread;
        CpuPos { socket: rest / self.cores_per_socket, core: rest % self.cores_per_socket, smt }
    }

    pub fn cpu_id(&self, socket: u32, core: u32, smt: u32) -> CpuId {
        (smt * self.sockets * self.cores_per_socket + socket * self.cores_per_socket + core) as CpuId
    }

    /// Latency of moving a hot line from `from`'s caches to `to`.
    pub fn transfer_ns(&self, from: CpuId, to: CpuId) -> u64 {
        let (a, b) = (self.pos(from), self.pos(to));
        if from == to {
            0
        } else if a.socket != b.socket {
            self.line_cross_socket_ns
        } else if a.core == b.core {
            self.line_same_core_ns
        } else {
            self.line_same_socket_ns
        }
    }

    /// Core clock with `busy_cores` of this socket's physical cores busy (linear turbo bins).
    pub fn socket_mhz(&self, busy_cores: u32) -> u64 {
        let busy = u64::from(busy_cores.clamp(1, self.cores_per_socket));
        let span = u64::from(self.cores_per_socket.max(2) - 1);
        let drop = (self.turbo_max_mhz - self.turbo_all_core_mhz) * (busy - 1) / span;
        self.turbo_max_mhz - drop
    }

    /// The clock in MHz of a thread on each CPU of `cpu_of` (one entry per thread; a CPU may
    /// appear several times): its socket's turbo for the number of busy physical cores,
    /// slowed by `smt_slowdown_pct` when another hardware thread of its core also has work.
    pub fn thread_mhz(&self, cpu_of: &[CpuId]) -> Vec<u64> {
        let mut busy_hw = vec![false; self.n_cpus() as usize];
        for &c in cpu_of {
            busy_hw[c as usize] = true;
        }
        let siblings_busy = |socket: u32, core: u32| {
            (0..self.threads_per_core).filter(|&s| busy_hw[self.cpu_id(socket, core, s) as usize]).count()
        };
        let busy_cores: Vec<u32> = (0..self.sockets)
            .map(|s| (0..self.cores_per_socket).filter(|&c| siblings_busy(s, c) > 0).count() as u32)
            .collect();
        cpu_of
            .iter()
            .map(|&c| {
                let p = self.pos(c);
                let mhz = self.socket_mhz(busy_cores[p.socket as usize]);
                if siblings_busy(p.socket, p.core) > 1 {
                    mhz * 100 / self.smt_slowdown_pct
                } else {
                    mhz
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_and_transfers() {
        let m = SERVER_2019;
        assert_eq!(m.n_cpus(), 112);
        assert_eq!(m.pos(0), CpuPos { socket: 0, core: 0, smt: 0 });
        assert_eq!(m.pos(28), CpuPos { socket: 1, core: 0, smt: 0 });
        assert_eq!(m.pos(56), CpuPos { socket: 0, core: 0, smt: 1 });
        assert_eq!(m.cpu_id(1, 3, 1), 56 + 28 + 3);
        assert_eq!(m.transfer_ns(0, 56), m.line_same_core_ns);
        assert_eq!(m.transfer_ns(0, 1), m.line_same_socket_ns);
        assert_eq!(m.transfer_ns(0, 28), m.line_cross_socket_ns);
    }

    #[test]
    fn topology_is_data() {
        let m = SERVER_2019.with_topology(2, 28);
        assert_eq!(m, SERVER_2019);
        assert_eq!(SERVER_2019.with_topology(2, 10).cores_per_socket, 28);
        let big = SERVER_2019.with_topology(8, 64);
        assert_eq!((big.n_cpus(), big.pos(64 * 8 + 65)), (1024, CpuPos { socket: 1, core: 1, smt: 1 }));
        let one = SERVER_2019.with_topology(1, 2);
        assert_eq!(one.transfer_ns(0, 1), one.line_same_socket_ns);
    }

    #[test]
    fn turbo_is_linear_between_bins() {
        let m = SERVER_2019;
        assert_eq!(m.socket_mhz(1), m.turbo_max_mhz);
        assert_eq!(m.socket_mhz(28), m.turbo_all_core_mhz);
        assert_eq!(m.socket_mhz(99), m.turbo_all_core_mhz);
        assert!(m.socket_mhz(14) < m.socket_mhz(2));
        assert_eq!(cycles_to_ns(3800, 3800), 1000);
    }
}
