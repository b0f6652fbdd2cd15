//! Jesper Brouer's page_bench03 (prototype-kernel `kernel/mm/bench/page_bench03.c`) run on the
//! model's zone: N CPUs each loop `alloc_pages(order)` then `__free_pages()` of the same block,
//! all on one zone, as high-order-alloc's world charges them — the buddy's work under
//! zone->lock (`Zone::rmqueue_locked` + `check_new_pages`, `Zone::free_one_page`, their lines
//! through `sim::cacheline`), the qspinlock's acquisitions and handoffs, and outside the lock
//! the tail `struct page`s of `prep_compound_page` and `free_pages_prepare`. Nothing else:
//! no watermark checks, no counters, no loop overhead (so the one-CPU pair is a lower bound).
//!
//! It prints, per CPU count, the cycles per alloc+free pair per CPU (page_bench03's "ave"
//! column) and the lock's mean hold and handoff per pass, on seed 000's machine (the
//! catalogue's 2x28-core Skylake-SP, CPUs on one socket, one per core, at its all-core clock).
//! Brouer measured order 3 on 4.6.0-rc1 (linux-mm, 2016-04-15,
//! <20160415144402.5fbe7a1e@redhat.com>; his machine is not named there): 524 cycles at 1 CPU,
//! then 2131, 3885, 4520, 5604, 7125, 7883, 9364 at 2..8 CPUs — the lock saturated from 2 CPUs,
//! each pass (hold + handoff) 533-648 cycles whatever the queue. docs/high-order-alloc.md
//! ("page_bench03 on the model's zone") quotes this example:
//! `cargo run --release -p skblab-core --example page_bench [cpus...] [order=3] [holder_work=true]`.
use skblab_core::sim::cache::Caches;
use skblab_core::sim::machine::{cycles_to_ns, CpuId, SERVER_2019};
use skblab_core::sim::qspinlock::Acquire;
use skblab_core::sim::zone::Zone;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// The CPU asks for the lock (to allocate if it holds no block, else to free it).
    Request,
    /// The lock's line has arrived: the CPU runs its buddy work.
    Granted,
    /// The CPU's hold ends.
    Release,
}

struct Cpu {
    held: Option<u32>,
    pairs: u64,
}

const WARMUP_NS: u64 = 20_000;
const WINDOW_NS: u64 = 400_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut counts: Vec<u32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if counts.is_empty() {
        counts = vec![1, 2, 3, 4, 5, 6, 7, 8, 16, 28];
    }
    let order: usize =
        args.iter().find_map(|s| s.strip_prefix("order=").map(|v| v.parse().expect("order=N"))).unwrap_or(3);
    // holder_work=true: the zone charges the holder's per-page work (`Zone::holder_work`).
    let holder = args.iter().any(|s| s == "holder_work=true");
    let m = SERVER_2019;
    let mhz = m.turbo_all_core_mhz;
    println!("page_bench03 on the model's zone: order {order}, {} at {mhz} MHz", m.name);
    println!("cpus  cycles/pair/cpu  passes/us  hold ns (alloc / free)  handoff ns  busy %");
    for n in counts {
        let r = run(n.min(m.cores_per_socket), order, holder);
        println!(
            "{:>4}  {:>15.0}  {:>9.2}  {:>7.0} ({:>4.0} / {:>4.0})  {:>10.0}  {:>6.1}",
            n.min(m.cores_per_socket),
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            r[5],
            r[6]
        );
    }
}

/// [cycles per pair per CPU, passes per µs, hold, alloc hold, free hold, handoff, busy %].
fn run(n: u32, order: usize, holder_work: bool) -> [f64; 7] {
    let m = SERVER_2019;
    let mhz = m.turbo_all_core_mhz;
    let caches = Caches::new(&m);
    let mut zone = Zone::new(0, 1 << 17, m.n_cpus() as usize, 0, 1, false);
    zone.holder_work = holder_work;
    let mut cpus: Vec<Cpu> = (0..n).map(|_| Cpu { held: None, pairs: 0 }).collect();
    let mut q: BinaryHeap<Reverse<(u64, u64, Ev, u32)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |q: &mut BinaryHeap<_>, at: u64, ev: Ev, c: u32| {
        seq += 1;
        q.push(Reverse((at, seq, ev, c)));
    };
    for c in 0..n {
        push(&mut q, u64::from(c), Ev::Request, c);
    }
    // Measured window: (hold ns, passes) per kind; handoff ns (the lock's line moving to its
    // next holder: an uncontended acquisition's transfer, or a contended handoff).
    let (mut alloc, mut free) = ((0u64, 0u64), (0u64, 0u64));
    let mut handoff = 0u64;
    let end = WARMUP_NS + WINDOW_NS;
    while let Some(Reverse((now, _, ev, c))) = q.pop() {
        if now >= end {
            break;
        }
        let cpu = c as CpuId;
        let measuring = now >= WARMUP_NS;
        match ev {
            Ev::Request => {
                if let Acquire::Taken { cost_ns } = zone.lock.lock(&m, now, c, cpu) {
                    if measuring {
                        handoff += cost_ns;
                    }
                    push(&mut q, now + cost_ns, Ev::Granted, c);
                }
            }
            Ev::Granted => {
                let hold = match cpus[c as usize].held.take() {
                    None => {
                        let (pfn, cost) = zone.rmqueue_locked(&m, &caches, cpu, order);
                        let pfn = pfn.expect("the zone has free blocks");
                        let lines = check_new_pages(&mut zone, &m, &caches, cpu, pfn, order);
                        cpus[c as usize].held = Some(pfn);
                        let ns = cycles_to_ns(cost.cycles, mhz) + cost.line_ns + lines;
                        if measuring {
                            alloc = (alloc.0 + ns, alloc.1 + 1);
                        }
                        ns
                    }
                    Some(pfn) => {
                        let cost = zone.free_one_page(&m, &caches, cpu, pfn, order);
                        let ns = cycles_to_ns(cost.cycles, mhz) + cost.line_ns;
                        if measuring {
                            free = (free.0 + ns, free.1 + 1);
                            cpus[c as usize].pairs += 1;
                        }
                        ns
                    }
                };
                push(&mut q, now + hold, Ev::Release, c);
            }
            Ev::Release => {
                if let Some((next, at)) = zone.lock.unlock(&m, now) {
                    if measuring {
                        handoff += at - now;
                    }
                    push(&mut q, at, Ev::Granted, next.thread);
                }
                // Outside the lock: prep_compound_page after an allocation, free_pages_prepare
                // before the free (the same tail struct pages).
                let outside = match cpus[c as usize].held {
                    Some(pfn) => {
                        let (cyc, lines) = zone.compound_pages(&m, &caches, cpu, pfn, order);
                        let (cyc2, lines2) = zone.compound_pages(&m, &caches, cpu, pfn, order);
                        assert!(zone.put_page_testzero(pfn), "one reference");
                        cycles_to_ns(cyc + cyc2, mhz) + lines + lines2
                    }
                    None => 0,
                };
                push(&mut q, now + outside, Ev::Request, c);
            }
        }
    }
    let pairs: u64 = cpus.iter().map(|c| c.pairs).sum();
    let per_cpu = pairs as f64 / f64::from(n);
    let passes = (alloc.1 + free.1) as f64;
    let mean = |(ns, k): (u64, u64)| ns as f64 / k.max(1) as f64;
    [
        WINDOW_NS as f64 * mhz as f64 / 1000.0 / per_cpu.max(1e-9),
        passes / (WINDOW_NS as f64 / 1000.0),
        (alloc.0 + free.0) as f64 / passes.max(1.0),
        mean(alloc),
        mean(free),
        handoff as f64 / passes.max(1.0),
        (alloc.0 + free.0 + handoff) as f64 / WINDOW_NS as f64 * 100.0,
    ]
}

/// `check_new_pages()` under the lock, as high-order-alloc's world charges it: every subpage's
/// struct page, the loads overlapped up to `copy_mlp` in flight.
fn check_new_pages(
    zone: &mut Zone,
    m: &skblab_core::sim::machine::MachineProfile,
    caches: &Caches,
    cpu: CpuId,
    pfn: u32,
    order: usize,
) -> u64 {
    let (mut sum, mut worst) = (0, 0);
    for p in pfn..pfn + (1 << order) {
        let ns = zone.touch_page(m, caches, cpu, p);
        sum += ns;
        worst = worst.max(ns);
    }
    worst.max(sum / m.copy_mlp.max(1))
}
