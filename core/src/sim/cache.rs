//! Private caches by capacity: which data is still in which core's L2, and in which socket's L3.
//!
//! What hardware does: each core has a private L2 (shared by its SMT siblings; 1 MiB on
//! Skylake-SP) and each socket a shared L3 (1.375 MiB per core on Skylake-SP, non-inclusive:
//! it mostly holds what the L2s evicted). A line stays in a core's L2 until that core's own
//! traffic pushes it out (LRU). A core that wants a line another core holds gets it from there:
//! from the SMT sibling for free (same L2), over the mesh from a core of its socket, over UPI
//! from the other socket; otherwise from the L3 or DRAM. A streaming copy keeps many of these
//! misses in flight (fill buffers, the L2 streamer), so each line costs a fraction of a
//! latency.
//!
//! What we simplify: LRU by counting. Each core counts the 64-byte lines it has brought into
//! its L2 (`l2_fill`), each socket the lines its cores brought in (`l3_fill`, what the L2s
//! later evict into the L3). A page's data remembers who last wrote it and who last read it,
//! each with that core's count at the access; the data is still in that core's L2 while fewer
//! than `l2_bytes / 64` lines came in since (an access refreshes it, like LRU), and in its
//! socket's L3 while fewer than `l3` lines came into the socket since. Granularity is one
//! 4 KiB page (a copy covers whole pages almost always). `struct page` lines use the same
//! counts ([`crate::sim::cacheline`]); they are too few to count as traffic themselves.

use super::machine::{CpuId, MachineProfile};

/// 64-byte lines, the unit every count here uses.
pub const LINE_BYTES: u32 = 64;

const NONE: u16 = u16::MAX;

/// The fill counts of every core's L2 and every socket's L3.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caches {
    /// Physical core (socket-major) of every logical CPU.
    core_of: Vec<u16>,
    socket_of: Vec<u8>,
    /// Lines brought into each core's L2 so far.
    l2_fill: Vec<u64>,
    /// Lines brought into each socket's cores so far (what the L3 receives as victims).
    l3_fill: Vec<u64>,
    l2_lines: u64,
    l3_lines: u64,
    /// Physical cores per socket (`l2_fill.len() / l3_fill.len()`), kept to spare a division
    /// per access.
    cores_per_socket: usize,
    /// Lines written so far while another core's L2 still held them (whatever this core
    /// held): each such store waits for that copy's invalidation
    /// ([`MachineProfile::write_shared_stall_ns`]). A running count; a caller takes the
    /// difference around its copy.
    shared_writes: u64,
}

/// Where an access found a page's data: the distance classes of [`Caches::access`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Source {
    /// This core's own L2 (or its SMT sibling's: the same L2).
    Own = 0,
    /// Another core's L2 on this socket (mesh transfer).
    SameSocket = 1,
    /// A core's L2 on another socket (UPI snoop).
    OtherSocket = 2,
    /// This socket's L3.
    L3 = 3,
    /// Another socket's L3.
    RemoteL3 = 4,
    /// DRAM of this socket's node.
    Dram = 5,
    /// DRAM of another node.
    RemoteDram = 6,
}

/// Number of [`Source`] classes.
pub const SOURCES: usize = 7;

/// Every [`Source`], nearest first.
pub const ALL_SOURCES: [Source; SOURCES] = [
    Source::Own,
    Source::SameSocket,
    Source::OtherSocket,
    Source::L3,
    Source::RemoteL3,
    Source::Dram,
    Source::RemoteDram,
];

/// What a page's data last saw: its last writer and last reader (each a core and that core's
/// fill count then), and the fill count of the L3 it would be evicted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageData {
    writer: u16,
    reader: u16,
    writer_stamp: u32,
    reader_stamp: u32,
    /// `l3_fill` of the socket of the last accessor, at the access.
    l3_stamp: u32,
}

impl Default for PageData {
    fn default() -> Self {
        PageData { writer: NONE, reader: NONE, writer_stamp: 0, reader_stamp: 0, l3_stamp: 0 }
    }
}

impl Caches {
    /// Empty caches for machine `m`: L2 of `m.l2_bytes` per core, L3 of `m.l3_bytes_per_core`
    /// times the cores of a socket.
    pub fn new(m: &MachineProfile) -> Caches {
        let n = m.n_cpus() as usize;
        let mut core_of = Vec::with_capacity(n);
        let mut socket_of = Vec::with_capacity(n);
        for cpu in 0..n {
            let p = m.pos(cpu as CpuId);
            core_of.push((p.socket * m.cores_per_socket + p.core) as u16);
            socket_of.push(p.socket as u8);
        }
        Caches {
            core_of,
            socket_of,
            l2_fill: vec![0; (m.sockets * m.cores_per_socket) as usize],
            l3_fill: vec![0; m.sockets as usize],
            l2_lines: m.l2_bytes / u64::from(LINE_BYTES),
            l3_lines: m.l3_bytes_per_core * u64::from(m.cores_per_socket) / u64::from(LINE_BYTES),
            cores_per_socket: m.cores_per_socket as usize,
            shared_writes: 0,
        }
    }

    /// Lines written so far into data another core's L2 still held (see `shared_writes`).
    pub fn shared_writes(&self) -> u64 {
        self.shared_writes
    }

    /// The physical core of `cpu` (SMT siblings share it).
    pub fn core(&self, cpu: CpuId) -> u16 {
        self.core_of[cpu as usize]
    }

    /// The socket of `cpu` ([`MachineProfile::pos`]'s, from a table).
    pub fn socket(&self, cpu: CpuId) -> u32 {
        u32::from(self.socket_of[cpu as usize])
    }

    /// [`MachineProfile::transfer_ns`] from this machine's tables instead of `pos`'s
    /// divisions: the same socket and the same physical core are the same questions.
    pub fn transfer_ns(&self, m: &MachineProfile, from: CpuId, to: CpuId) -> u64 {
        if from == to {
            0
        } else if self.socket_of[from as usize] != self.socket_of[to as usize] {
            m.line_cross_socket_ns
        } else if self.core_of[from as usize] == self.core_of[to as usize] {
            m.line_same_core_ns
        } else {
            m.line_same_socket_ns
        }
    }

    /// `cpu`'s core fill count now (32 bits: wraps after 256 GiB of traffic, far beyond a run).
    pub fn stamp(&self, cpu: CpuId) -> u32 {
        self.l2_fill[self.core(cpu) as usize] as u32
    }

    fn in_l2(&self, core: u16, stamp: u32) -> bool {
        core != NONE && u64::from((self.l2_fill[core as usize] as u32).wrapping_sub(stamp)) < self.l2_lines
    }

    /// True if a line `cpu` had when its core's count was `stamp` is still in that L2.
    pub fn still_in_l2(&self, cpu: CpuId, stamp: u32) -> bool {
        self.in_l2(self.core(cpu), stamp)
    }

    /// `cpu`'s socket's L3 fill count now (what [`Caches::still_in_l3`] ages against).
    pub fn l3_stamp(&self, cpu: CpuId) -> u32 {
        self.l3_fill[self.socket_of[cpu as usize] as usize] as u32
    }

    /// True if a line that left `cpu`'s L2 when its socket's count was `stamp` is still in
    /// that socket's L3 (fewer than its capacity of lines came into the socket since).
    pub fn still_in_l3(&self, cpu: CpuId, stamp: u32) -> bool {
        u64::from(self.l3_stamp(cpu).wrapping_sub(stamp)) < self.l3_lines
    }

    /// `cpu`'s core brings `lines` lines of data nobody simulates into its L2 (and its
    /// socket's L3): the rest of a server's work, which ages out every line the world does
    /// track by capacity. Used by worlds that simulate one path of a busy machine
    /// (percpu-counter: everything but the socket-memory accounting).
    pub fn fill(&mut self, cpu: CpuId, lines: u64) {
        let core = self.core(cpu) as usize;
        self.l2_fill[core] += lines;
        self.l3_fill[self.socket_of[cpu as usize] as usize] += lines;
    }

    fn socket_of_core(&self, core: u16, m_cores_per_socket: usize) -> usize {
        core as usize / m_cores_per_socket
    }

    /// `cpu` reads (`write` false) or overwrites (`write` true) `lines` lines of a page homed on
    /// node `home` whose history is `d`: where the data came from ([`Source::Own`] whenever
    /// `cpu`'s L2 still holds it, for a write too: other copies are invalidated, not waited for). The page's history and the
    /// fill counts are updated (the lines come into `cpu`'s L2 unless they were there; a write
    /// leaves the only copy with `cpu`).
    pub fn access(&mut self, d: &mut PageData, cpu: CpuId, home: u32, lines: u32, write: bool) -> Source {
        self.access_sampled(d, cpu, home, lines, write, Scale::ONE)
    }

    /// [`Caches::access`] of data that stands for `scale` copies (a ratio, `real / sim`), each
    /// used `scale` times less often than this world uses it (a world that simulates `sim`
    /// sockets for `real` ones: between two uses of one real socket its cores bring in `scale`
    /// times the lines this world counted). The L2 and L3 ages since the last access are taken
    /// `scale` times.
    pub fn access_sampled(
        &mut self,
        d: &mut PageData,
        cpu: CpuId,
        home: u32,
        lines: u32,
        write: bool,
        scale: Scale,
    ) -> Source {
        let me = self.core(cpu);
        let my_socket = self.socket_of[cpu as usize] as usize;
        let cps = self.cores_per_socket;
        let holders = [(d.writer, d.writer_stamp), (d.reader, d.reader_stamp)];
        let in_l2 = |c: u16, s: u32| {
            c != NONE && scale.within(u64::from((self.l2_fill[c as usize] as u32).wrapping_sub(s)), self.l2_lines)
        };
        let mine = holders.iter().any(|&(c, s)| c == me && in_l2(c, s));
        // The nearest other core whose L2 still holds the data.
        let other = holders
            .iter()
            .filter(|&&(c, s)| c != me && in_l2(c, s))
            .map(
                |&(c, _)| {
                    if self.socket_of_core(c, cps) == my_socket {
                        Source::SameSocket
                    } else {
                        Source::OtherSocket
                    }
                },
            )
            .min();
        let source = match (mine, other) {
            // This L2 holds the lines: reading them costs nothing more, whoever else holds
            // them. Overwriting them whole (`rep movsb` fast strings) neither: the home slice
            // invalidates the other copies and the core does not wait for that (the no-RFO
            // model assumption of `copy_stall_ps`). So an order-3 sender that gets back
            // the block it wrote itself (one flow per node) writes into its own L2; one that
            // gets a block another sender wrote must bring the lines in.
            (true, _) => Source::Own,
            (false, Some(o)) => o,
            (false, None) => self.beyond_l2(d, my_socket, home, cps, scale),
        };
        if write && other.is_some() {
            self.shared_writes += u64::from(lines);
        }
        if source != Source::Own {
            self.l2_fill[me as usize] += u64::from(lines);
            self.l3_fill[my_socket] += u64::from(lines);
        }
        let stamp = self.l2_fill[me as usize] as u32;
        if write {
            *d = PageData { writer: me, reader: NONE, writer_stamp: stamp, reader_stamp: 0, l3_stamp: 0 };
        } else {
            d.reader = me;
            d.reader_stamp = stamp;
        }
        d.l3_stamp = self.l3_fill[my_socket] as u32;
        source
    }
    /// Where data no L2 holds comes from: the L3 of the socket that last had it while fewer
    /// than its capacity of lines came in since (ages `scale` times, see `access_sampled`),
    /// else DRAM of its home node.
    fn beyond_l2(&self, d: &PageData, my_socket: usize, home: u32, cps: usize, scale: Scale) -> Source {
        let last = if d.reader != NONE { d.reader } else { d.writer };
        if last == NONE {
            return if home as usize == my_socket { Source::Dram } else { Source::RemoteDram };
        }
        let s = self.socket_of_core(last, cps);
        let in_l3 = scale.within(u64::from((self.l3_fill[s] as u32).wrapping_sub(d.l3_stamp)), self.l3_lines);
        match (in_l3, s == my_socket, home as usize == my_socket) {
            (true, true, _) => Source::L3,
            (true, false, _) => Source::RemoteL3,
            (false, _, true) => Source::Dram,
            (false, _, false) => Source::RemoteDram,
        }
    }
}

impl MachineProfile {
    /// Latency of one line from `source` (0 for the own L2: the copy bandwidth covers it).
    pub fn source_ns(&self, source: Source) -> u64 {
        match source {
            Source::Own => 0,
            Source::SameSocket => self.line_same_socket_ns,
            Source::OtherSocket | Source::RemoteL3 => self.line_cross_socket_ns,
            Source::L3 => self.line_llc_ns,
            Source::Dram => self.dram_ns,
            Source::RemoteDram => self.dram_remote_ns,
        }
    }

    /// Extra time of a streaming copy of `lines` lines from `source`: each line's latency
    /// divided by the misses a core keeps in flight (`copy_mlp`), in ps.
    ///
    /// A read (the receiver's `copy_to_user` out of the frag) waits for the data, so it pays
    /// the distance to wherever the line is. A write (the sender's `copy_from_user` into the
    /// frag, `rep movsb` with fast strings) stores whole lines without reading them (no-RFO):
    /// the line's home L3 slice takes the write and invalidates any other copy itself, so the
    /// core waits for its home slice (the L3 lookup, or the other socket's for a page of the
    /// other node), not for the core that held the line. Model assumption (docs/high-order-alloc.md).
    pub fn copy_stall_ps(&self, source: Source, lines: u32, write: bool, home_is_local: bool) -> u64 {
        let ns = match (write, source) {
            (true, Source::Own) => 0,
            (true, _) if home_is_local => self.line_llc_ns,
            (true, _) => self.line_cross_socket_ns,
            (false, _) => self.source_ns(source),
        };
        ns * 1000 * u64::from(lines) / self.copy_mlp.max(1)
    }

    /// What a streaming write waits for the invalidation of `lines` lines another core's L2
    /// still held (`copy_write_shared_ps` each; [`Caches::shared_writes`] counts them), ns.
    ///
    /// What hardware does: a store needs its line in an exclusive state. Measured on a Zen 4
    /// guest (`tools/copy-rfo`): `rep movsb` into lines the other vCPU had just read costs
    /// about 6 ns per line more than into lines only the writer held, whether or not the
    /// writer's own L2 still had them; reading lines the other vCPU had just written costs
    /// well under 1 ns a line more. So a copy's writes wait for the other copies to go, not
    /// only for the home slice. Families without the measurement charge nothing here (the
    /// no-RFO assumption of [`MachineProfile::copy_stall_ps`]).
    pub fn write_shared_stall_ns(&self, lines: u64) -> u64 {
        lines * self.copy_write_shared_ps / 1000
    }

    /// Stall of a streaming copy that found `by[source]` of its lines in each [`Source`]: the
    /// sum of [`MachineProfile::copy_stall_ps`] over the sources, in ns.
    pub fn copy_stall_ns(&self, by: &[u32; SOURCES], write: bool, home_is_local: bool) -> u64 {
        // A source with no lines adds 0 ps: skipped (most copies find every line in one place).
        let ps: u64 = ALL_SOURCES
            .iter()
            .filter(|&&s| by[s as usize] > 0)
            .map(|&s| self.copy_stall_ps(s, by[s as usize], write, home_is_local))
            .sum();
        ps / 1000
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn data_moves_by_distance_and_ages_out_by_capacity() {
        let m = SERVER_2019;
        let mut c = Caches::new(&m);
        let mut d = PageData::default();
        // Never touched: DRAM (home node 0 from CPU 0), remote from socket 1.
        assert_eq!(c.access(&mut d.clone(), 28, 0, 64, true), Source::RemoteDram);
        assert_eq!(c.access(&mut d, 0, 0, 64, true), Source::Dram);
        // CPU 0 wrote it: its SMT sibling reads it from the same L2, CPU 1 over the mesh,
        // CPU 28 over UPI.
        assert_eq!(c.access(&mut d.clone(), 56, 0, 64, false), Source::Own);
        assert_eq!(c.access(&mut d.clone(), 28, 0, 64, false), Source::OtherSocket);
        assert_eq!(c.access(&mut d, 1, 0, 64, false), Source::SameSocket);
        // CPU 0 writes again: the lines are in its own L2 (CPU 1's copy is invalidated by
        // the home slice, not waited for); CPU 2, which holds none, gets them over the mesh.
        assert_eq!(c.access(&mut d.clone(), 0, 0, 64, true), Source::Own);
        assert_eq!(c.access(&mut d, 2, 0, 64, true), Source::SameSocket);
        assert_eq!(c.access(&mut d, 0, 0, 64, true), Source::SameSocket);
        assert_eq!(c.access(&mut d, 0, 0, 64, true), Source::Own);
        // CPU 0 streams more than its L2 through other pages: the page is evicted to the L3.
        let l2_lines = (m.l2_bytes / 64) as u32;
        let mut other = PageData::default();
        c.access(&mut other, 0, 0, l2_lines, true);
        assert_eq!(c.access(&mut d.clone(), 0, 0, 64, true), Source::L3);
        assert_eq!(c.access(&mut d, 28, 0, 64, false), Source::RemoteL3);
    }
}

/// How many real copies one simulated piece of data stands for: `real / sim` (at least 1), an
/// exact ratio so that every flow count gives its own ageing (a rounded integer made 16,384 to
/// 24,575 flows alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    pub real: u64,
    pub sim: u64,
}

impl Scale {
    /// One simulated copy per real one.
    pub const ONE: Scale = Scale { real: 1, sim: 1 };

    /// `real` copies stood for by `sim` simulated ones (1 when `real <= sim`).
    pub fn of(real: u64, sim: u64) -> Scale {
        if real <= sim || sim == 0 {
            Scale::ONE
        } else {
            Scale { real, sim }
        }
    }

    /// `age` (in the world's lines) taken `real / sim` times is below `capacity` lines.
    pub fn within(self, age: u64, capacity: u64) -> bool {
        u128::from(age) * u128::from(self.real) < u128::from(capacity) * u128::from(self.sim)
    }

    /// `n` simulated things stand for this many real ones (rounded down, at least `n`).
    pub fn real_of(self, n: u64) -> u64 {
        (u128::from(n) * u128::from(self.real) / u128::from(self.sim)) as u64
    }

    /// The simulated things `real` real ones need (rounded up).
    pub fn sim_of(self, real: u64) -> u64 {
        (u128::from(real) * u128::from(self.sim)).div_ceil(u128::from(self.real)) as u64
    }
}
