//! A steady-state start for SLUB's partial lists (opt-in per world): before the first event,
//! every CPU's per-CPU partial list and the node's partial list hold what they hold in the
//! long run of a workload, so that a window of a few ms sees the drains (`unfreeze_partials`)
//! and the batches from the node (`get_partial_node`) — and `list_lock` — at their long-run
//! rates instead of only after the ~50 ms a cold start needs to fill the lists.
//!
//! The rules (5.x mm/slub.c, the same as `partial` models): a remote free to a *full* slab
//! freezes it onto the freeing CPU's partial list (`__slab_free` → `put_cpu_partial(s, page,
//! 1)`), and the list's `pobjects` grows by the slab's free objects *then*, one; once the
//! head's `pobjects` exceeds `s->cpu_partial`, the next such free drains the whole list to the
//! node under `list_lock` (`unfreeze_partials`) and starts a new list of one. A CPU whose
//! active slab runs dry pops its partial list (`CPU_PARTIAL_ALLOC`), or, with the list empty,
//! goes to the node (`get_partial_node`, under `list_lock`) or to the page allocator.
//!
//! So a CPU's list is a birth–death chain in slabs over `0..=cpu_partial + 1`: up at the rate
//! this CPU is the first remote freer of a full slab, down at the rate its active slab runs
//! dry, and from the top up-step back to 1 (the drain). Both rates are in slabs per unit of
//! time: every slab a CPU activates ends full (`deactivate_slab` of a full slab, or a refill
//! until `get_freelist` finds nothing), so the up rate of CPU `i` is the sum over CPUs `j` of
//! `j`'s activations times the chance that `i` frees first into `j`'s full slab. Taking that
//! chance as `i`'s share of the frees of `j`'s objects and the objects a CPU gets per
//! activation as equal over CPUs (ASSUMPTION), the ratio up/down is `free_i / alloc_i`: the
//! objects CPU `i` frees that another CPU allocated, over the objects it allocates that
//! another CPU frees ([`RemoteTraffic`]; objects a CPU allocates and frees itself recycle on
//! its own slab and move no slab). [`cpu_partial_occupancy`] is the chain's stationary law;
//! [`Slub::fill_steady_state`] draws each CPU's list length from it (deterministic from the
//! caller's [`Rng`]) and puts `min_partial` slabs on the node's list of a cache that has remote
//! traffic (ASSUMPTION: drained slabs that are empty are discarded only once the node already
//! holds `min_partial`, so a node list fed by drains sits there between batches).
//!
//! What we simplify: the slabs of the start have every object free (no object may be
//! allocated that the world does not hold), where a long-run slab on a CPU's list would hold
//! a few objects still in flight; `pobjects` of the k-th slab from the list's tail is k, as k
//! remote frees to full slabs would have left it.

use super::{CpuSlab, Slab, Slub, SlubError};
use crate::rng::Rng;
use crate::sim::cacheline::CacheLine;
use crate::sim::machine::{CpuId, MachineProfile};

/// How a workload moves one cache's objects between CPUs (on one node), per CPU, in relative
/// rates (e.g. objects per transaction of every flow): `alloc[i]` objects CPU `i` allocates
/// that another CPU frees, `free[i]` objects CPU `i` frees that another CPU allocated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteTraffic {
    pub alloc: Vec<u64>,
    pub free: Vec<u64>,
}

impl RemoteTraffic {
    /// No traffic on `n_cpus` CPUs.
    pub fn new(n_cpus: usize) -> RemoteTraffic {
        RemoteTraffic { alloc: vec![0; n_cpus], free: vec![0; n_cpus] }
    }

    /// One object allocated on `by` and freed on `freer` (nothing when they are the same CPU).
    pub fn add(&mut self, by: CpuId, freer: CpuId) {
        if by != freer {
            self.alloc[by as usize] += 1;
            self.free[freer as usize] += 1;
        }
    }

    /// True when some object crosses CPUs.
    pub fn any(&self) -> bool {
        self.alloc.iter().any(|&a| a > 0)
    }
}

/// The long-run law of a CPU's partial-list length, in slabs `0..=cpu_partial + 1`, when it
/// is the first remote freer of full slabs at relative rate `free` and its active slab runs
/// dry at relative rate `alloc` (see the module doc). Index k is P(k slabs on the list).
///
/// The chain's cut equations: between 0 and 1, `free·p0 = alloc·p1`; between k and k+1 for
/// 1 ≤ k < top, `free·pk = alloc·p(k+1) + free·p(top)` (the drain jumps from the top to 1
/// across every such cut). Solved downward from `p(top) = 1` (only additions: stable), then
/// normalised.
pub fn cpu_partial_occupancy(cpu_partial: u32, alloc: u64, free: u64) -> Vec<f64> {
    let top = cpu_partial as usize + 1;
    let mut p = vec![0.0; top + 1];
    if free == 0 {
        p[0] = 1.0;
        return p;
    }
    if alloc == 0 {
        // Never runs dry: the list cycles through 1..=top, one drain per `top` adds.
        for x in p.iter_mut().skip(1) {
            *x = 1.0 / top as f64;
        }
        return p;
    }
    let down_over_up = alloc as f64 / free as f64;
    p[top] = 1.0;
    for k in (1..top).rev() {
        p[k] = p[k + 1] * down_over_up + p[top];
    }
    p[0] = p[1] * down_over_up;
    let sum: f64 = p.iter().sum();
    for x in &mut p {
        *x /= sum;
    }
    p
}

/// Draws an index from the law `p` with `rng` (integer weights of 2^-32, so the draw is
/// the same on every platform).
pub fn draw(p: &[f64], rng: &mut Rng) -> usize {
    let w: Vec<u64> = p.iter().map(|&x| (x * 4_294_967_296.0).round() as u64).collect();
    let total: u64 = w.iter().sum();
    if total == 0 {
        return 0;
    }
    let mut r = rng.range_u64(0, total - 1);
    for (k, &x) in w.iter().enumerate() {
        if r < x {
            return k;
        }
        r -= x;
    }
    w.len() - 1
}

impl Slub {
    /// The steady-state start of `cache` (see the module doc): every CPU's partial list gets
    /// a length drawn from [`cpu_partial_occupancy`] of its [`RemoteTraffic`], and the node's
    /// list `min_partial` slabs if any object crosses CPUs. Every slab is new from the zone
    /// (no lock timing: this is before time 0) with all its objects free. Call after
    /// [`Slub::enable_cpu_partial`] and before the first allocation; a cache without per-CPU
    /// partials (or without remote traffic) is left empty.
    pub fn fill_steady_state(
        &mut self,
        m: &MachineProfile,
        cache: u16,
        traffic: &RemoteTraffic,
        rng: &mut Rng,
    ) -> Result<(), SlubError> {
        let cpu_partial = self.caches[cache as usize].cpu_partial;
        if cpu_partial == 0 || !traffic.any() {
            return Ok(());
        }
        let lengths: Vec<u32> = (0..self.n_cpus.min(traffic.alloc.len()))
            .map(|cpu| draw(&cpu_partial_occupancy(cpu_partial, traffic.alloc[cpu], traffic.free[cpu]), rng) as u32)
            .collect();
        self.fill_steady_lengths(m, cache, &lengths, true)
    }

    /// The steady-state start of `cache` with each CPU's partial-list length given
    /// (`lengths[cpu]` slabs, the k-th from the tail counting `pobjects` k), and, if
    /// `node_list`, `min_partial` slabs on the node's list. For a world that draws the lengths
    /// itself (one list over several nodes' slabs); [`Slub::fill_steady_state`] otherwise.
    pub fn fill_steady_lengths(
        &mut self,
        m: &MachineProfile,
        cache: u16,
        lengths: &[u32],
        node_list: bool,
    ) -> Result<(), SlubError> {
        let ci = cache as usize;
        if self.caches[ci].cpu_partial == 0 {
            return Ok(());
        }
        for (cpu, &n) in lengths.iter().enumerate().take(self.n_cpus) {
            for k in 1..=n {
                let sid = self.steady_slab(m, cache, Some(cpu as CpuId))?;
                let c: &mut CpuSlab = &mut self.caches[ci].cpu[cpu];
                c.partial.push((sid, k));
            }
        }
        if node_list {
            for _ in 0..self.caches[ci].min_partial {
                let sid = self.steady_slab(m, cache, None)?;
                self.caches[ci].partial.push_back(sid);
            }
        }
        Ok(())
    }

    /// A slab of `cache` with every object free on its page freelist, frozen to `cpu` (for
    /// its partial list) or on the node's list (`None`); its `struct page` line with `cpu`
    /// (or in L3).
    fn steady_slab(&mut self, m: &MachineProfile, cache: u16, cpu: Option<CpuId>) -> Result<u32, SlubError> {
        let ci = cache as usize;
        let order = self.caches[ci].order as usize;
        let (pfn, _) = self.zone.rmqueue_locked(m, &self.cpu_caches, cpu.unwrap_or(0), order);
        let pfn = pfn.ok_or(SlubError::OutOfPages)?;
        let n = self.caches[ci].objects_per_slab as usize;
        let mut line = CacheLine::UNTOUCHED;
        if let Some(c) = cpu {
            line.touch(m, &self.cpu_caches, c);
        }
        let slab = Slab { frozen: cpu, on_partial: cpu.is_none(), ..Slab::fresh(cache, pfn, n, line) };
        let sid = self.insert_slab(slab);
        self.caches[ci].nr_slabs += 1;
        Ok(sid)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::slub;
    use super::super::{Caller, FreePath};
    use super::*;
    use crate::sim::machine::SERVER_2019;

    #[test]
    fn occupancy_is_a_law_with_the_right_ends() {
        for (a, f) in [(1, 1), (3, 7), (7, 3), (0, 5), (5, 0), (1, 1000), (1000, 1)] {
            let p = cpu_partial_occupancy(13, a, f);
            assert_eq!(p.len(), 15);
            let s: f64 = p.iter().sum();
            assert!((s - 1.0).abs() < 1e-9 && p.iter().all(|&x| x >= 0.0), "{a} {f}: {p:?}");
        }
        // Balanced traffic: p0 = p1, then falling linearly to the top (the drain's jump).
        let p = cpu_partial_occupancy(13, 1, 1);
        assert!((p[0] - p[1]).abs() < 1e-12 && (p[1] - 14.0 * p[14]).abs() < 1e-12, "{p:?}");
        // A CPU that only frees cycles 1..=14; one that only allocates stays empty.
        assert_eq!(cpu_partial_occupancy(13, 0, 4)[0], 0.0);
        assert_eq!(cpu_partial_occupancy(13, 4, 0)[0], 1.0);
        // More frees than allocations: a fuller list.
        let mean = |p: &[f64]| p.iter().enumerate().map(|(k, x)| k as f64 * x).sum::<f64>();
        assert!(mean(&cpu_partial_occupancy(13, 1, 3)) > mean(&cpu_partial_occupancy(13, 3, 1)) + 5.0);
    }

    /// The start keeps every invariant, allocates nothing, and a CPU whose list is at the top
    /// drains it (under list_lock) on its next free to a full slab.
    #[test]
    fn steady_start_keeps_the_invariants_and_drains() {
        let m = SERVER_2019;
        let mut s = slub(3);
        s.enable_cpu_partial();
        let mut t = RemoteTraffic::new(3);
        for _ in 0..10 {
            t.add(0, 1); // CPU 1 only frees what CPU 0 allocates: its list sits near the top.
        }
        let mut rng = Rng::new(7, 1);
        s.fill_steady_state(&m, 0, &t, &mut rng).unwrap();
        s.check_invariants().unwrap();
        assert_eq!(s.allocated(0), 0);
        assert_eq!(s.cpu_partial_slabs(0, 0), 0, "CPU 0 never frees remotely");
        assert!(s.cpu_partial_slabs(0, 1) >= 1);
        assert_eq!(s.caches[0].partial.len(), s.caches[0].min_partial);
        // Fill CPU 1's list to the top, then one more full slab freed by CPU 1 drains it.
        let per = s.caches[0].objects_per_slab as usize;
        let top = s.caches[0].cpu_partial as usize + 1;
        let mut drained = false;
        for round in 0..top + 1 {
            let objs: Vec<_> =
                (0..=per).map(|i| s.alloc(Caller::new(&m, 2, (round * 1000 + i) as u64), 0).unwrap().0).collect();
            assert_eq!(s.free(Caller::new(&m, 1, (round * 1000 + 999) as u64), objs[0]).path, FreePath::CpuPartial);
            drained |= s.totals(0).cpu_partial_drain > 0;
            s.check_invariants().unwrap();
        }
        assert!(drained && s.totals(0).list_lock > 0);
    }
}
