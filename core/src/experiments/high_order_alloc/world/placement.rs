//! Where the scheduler puts netperf and netserver.
//!
//! What Linux does: the load balancer spreads runnable tasks over idle cores of every socket
//! before it doubles up on SMT siblings, and wake-affine keeps a woken task near its waker
//! (same LLC). Turbo then clocks each socket by how many of its cores are busy
//! ([`MachineProfile::thread_mhz`]).
//!
//! What we simplify: placement is fixed for the run (no migration). Thread 2k is netperf k,
//! thread 2k+1 is netserver k. `cpus` physical cores are online, split evenly over the
//! sockets (the first `cpus % sockets` sockets get one more). A socket hands out its cores in
//! order, then their SMT siblings (when `smt`), then starts again, so a CPU may serve several
//! threads.

use crate::sim::machine::{CpuId, MachineProfile};

crate::choice_enum! {
    /// How flows are placed on CPUs.
    pub enum Placement {
        /// Flows go round the sockets; both threads of a flow on the same socket, one core each,
        /// SMT siblings only when every core of the socket is taken (what the scheduler does).
        Spread = "spread",
        /// Fill socket 0's cores first, then socket 1's, and so on.
        Pack = "pack",
        /// Like `Spread`, but the receiver runs on the next socket (pages freed remotely).
        Split = "split",
    }
}

/// The hardware threads of `socket` in the order the scheduler fills them.
fn socket_slots(m: &MachineProfile, cpus: u32, smt: bool, socket: u32) -> Vec<CpuId> {
    let online = cpus / m.sockets + u32::from(socket < cpus % m.sockets);
    let threads = if smt { m.threads_per_core } else { 1 };
    (0..threads).flat_map(|s| (0..online).map(move |c| m.cpu_id(socket, c, s))).collect()
}

/// The CPU of every thread (2 per flow) with `cpus` physical cores online.
pub fn place(m: &MachineProfile, cpus: u32, smt: bool, flows: u32, placement: Placement) -> Vec<CpuId> {
    let sockets = m.sockets;
    let slots: Vec<Vec<CpuId>> = (0..sockets).map(|s| socket_slots(m, cpus, smt, s)).collect();
    let mut used = vec![0usize; sockets as usize];
    let mut take = |socket: u32| {
        let list = &slots[socket as usize];
        let cpu = list[used[socket as usize] % list.len()];
        used[socket as usize] += 1;
        cpu
    };
    let cores0 = slots[0].len() as u32 / if smt { m.threads_per_core } else { 1 };
    let mut out = Vec::with_capacity(2 * flows as usize);
    for f in 0..flows {
        let (s_send, s_recv) = match placement {
            Placement::Spread => (f % sockets, f % sockets),
            Placement::Split => (f % sockets, (f + 1) % sockets),
            // Socket k takes flows while both of a flow's threads fit on its cores.
            Placement::Pack => {
                let s = ((2 * f + 1) / cores0).min(sockets - 1);
                (s, s)
            }
        };
        out.push(take(s_send));
        out.push(take(s_recv));
    }
    out
}
