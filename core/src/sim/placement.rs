//! Where the scheduler puts netperf and netserver, and how fast each one's core then runs.
//!
//! What Linux does: the load balancer spreads runnable tasks over idle cores of both sockets
//! before it doubles up on SMT siblings, and wake-affine keeps a woken task near its waker
//! (same LLC). Turbo then clocks each socket by how many of its cores are busy.
//!
//! What we simplify: placement is fixed for the run (no migration). Thread 2k is netperf k,
//! thread 2k+1 is netserver k. `cpus` physical cores are online, split evenly over the
//! sockets (socket 0 gets the odd one). A socket hands out its cores in order, then their SMT
//! siblings (when `smt`), then starts again, so a CPU may serve several threads.

use super::machine::{CpuId, MachineProfile};
use super::stream::{Placement, StreamConfig};

/// The hardware threads of `socket` in the order the scheduler fills them.
fn socket_slots(m: &MachineProfile, cpus: u32, smt: bool, socket: u32) -> Vec<CpuId> {
    let online = cpus / m.sockets + u32::from(socket < cpus % m.sockets);
    let threads = if smt { m.threads_per_core } else { 1 };
    (0..threads).flat_map(|s| (0..online).map(move |c| m.cpu_id(socket, c, s))).collect()
}

/// The CPU of every thread (2 per flow).
pub fn place(cfg: &StreamConfig) -> Vec<CpuId> {
    let m = &cfg.machine;
    let sockets = m.sockets;
    let slots: Vec<Vec<CpuId>> = (0..sockets).map(|s| socket_slots(m, cfg.cpus, cfg.smt, s)).collect();
    let mut used = vec![0usize; sockets as usize];
    let mut take = |socket: u32| {
        let list = &slots[socket as usize];
        let cpu = list[used[socket as usize] % list.len()];
        used[socket as usize] += 1;
        cpu
    };
    let mut out = Vec::with_capacity(2 * cfg.flows as usize);
    for f in 0..cfg.flows {
        let (s_send, s_recv) = match cfg.placement {
            Placement::Spread => (f % sockets, f % sockets),
            Placement::Split => (f % sockets, (f + 1) % sockets),
            Placement::Pack => {
                let cores0 = slots[0].len() / if cfg.smt { m.threads_per_core as usize } else { 1 };
                let s = if 2 * f as usize + 2 <= cores0 { 0 } else { sockets - 1 };
                (s, s)
            }
        };
        out.push(take(s_send));
        out.push(take(s_recv));
    }
    out
}

/// Each thread's clock in MHz: its socket's turbo for the number of busy cores, slowed by
/// `smt_slowdown_pct` when the sibling hardware thread of its core also has work.
pub fn thread_mhz(cfg: &StreamConfig, cpu_of: &[CpuId]) -> Vec<u64> {
    let m = &cfg.machine;
    let n = m.n_cpus() as usize;
    let mut busy_hw = vec![false; n];
    for &c in cpu_of {
        busy_hw[c as usize] = true;
    }
    let core_busy =
        |socket: u32, core: u32| (0..m.threads_per_core).any(|s| busy_hw[m.cpu_id(socket, core, s) as usize]);
    let busy_cores: Vec<u32> =
        (0..m.sockets).map(|s| (0..m.cores_per_socket).filter(|&c| core_busy(s, c)).count() as u32).collect();
    cpu_of
        .iter()
        .map(|&c| {
            let p = m.pos(c);
            let mhz = m.socket_mhz(busy_cores[p.socket as usize]);
            let siblings_busy =
                (0..m.threads_per_core).filter(|&s| busy_hw[m.cpu_id(p.socket, p.core, s) as usize]).count();
            if siblings_busy > 1 {
                mhz * 100 / m.smt_slowdown_pct
            } else {
                mhz
            }
        })
        .collect()
}
