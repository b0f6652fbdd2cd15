//! The model's side of `tools/buddy-lock/run.sh` (the buddy's work under zone->lock, measured
//! on this project's Zen 4 guest): two CPUs take turns populating and unmapping a 64 MiB
//! region on one zone, as `tools/buddy-lock/load.c` does, with what high-order-alloc's world
//! charges: each order-0 page refilled by `Zone::rmqueue_bulk` (its split steps) and zeroed
//! (`clear_page`, 64 lines through the CPU's caches), then freed in address order through the
//! per-CPU list and `Zone::free_pcppages_bulk` (its merge steps), the lines through
//! `sim::cacheline`. The pagesets hold one page (`high` 2, `batch` 1), so each bulk call moves
//! one page and its cost is one iteration of the kernel's loop; the steps are counted from the
//! buddy's block count, as the bpftrace script counts them from the free lists.
//!
//! It prints, per merge (or split) step count, the iterations and their mean ns under the
//! lock, and the count-weighted slope over the steps: the model's ns per step, to set beside
//! the measured slope (docs/calibration.md, "The buddy under zone->lock, measured").
//! `cargo run --release -p skblab-core --example buddy_bulk [rounds=8]`
use skblab_core::sim::cache::Caches;
use skblab_core::sim::catalogue::{ZEN5_GUEST, ZEN5_GUEST_2026};
use skblab_core::sim::machine::{cycles_to_ns, CpuId, MachineProfile};
use skblab_core::sim::zone::{Cost, Zone};
use std::collections::BTreeMap;

const PAGES_PER_ROUND: u32 = 16384;
const ZONE_PAGES: u32 = 1 << 18;

fn main() {
    let rounds: u32 = std::env::args()
        .skip(1)
        .find_map(|s| s.strip_prefix("rounds=").map(|v| v.parse().expect("rounds=N")))
        .unwrap_or(8);
    let m = MachineProfile::from_catalogue("Zen guest, 2 vCPUs (catalogue)", &ZEN5_GUEST, &ZEN5_GUEST_2026, 1, 2, 1);
    let mhz = m.turbo_all_core_mhz;
    let mut caches = Caches::new(&m);
    let mut zone = Zone::new(0, ZONE_PAGES, 2, 2, 1, false);
    let (mut merges, mut splits) = (BTreeMap::new(), BTreeMap::new());
    let blocks = |z: &Zone| -> i64 { z.free_area.nr_free().iter().sum::<u64>() as i64 };
    let ns = |c: Cost| cycles_to_ns(c.cycles, mhz) + c.line_ns;
    for r in 0..rounds {
        let cpu = (r % 2) as CpuId;
        let mut held = Vec::with_capacity(PAGES_PER_ROUND as usize);
        for _ in 0..PAGES_PER_ROUND {
            let pfn = match zone.pcp_alloc(cpu, 0) {
                Some(p) => p,
                None => {
                    let before = blocks(&zone);
                    let (got, cost) = zone.rmqueue_bulk(&m, &caches, cpu, 0);
                    assert_eq!(got, 1, "the zone has free pages");
                    // A block taken: one block fewer, one more per split.
                    add(&mut splits, blocks(&zone) - before + 1, ns(cost));
                    zone.pcp_alloc(cpu, 0).expect("refilled")
                }
            };
            zone.copy_data(&mut caches, cpu, pfn, (0, 4096), true);
            held.push(pfn);
        }
        held.sort_unstable();
        for pfn in held {
            assert!(zone.put_page_testzero(pfn));
            if zone.pcp_free(cpu, pfn, 0) {
                let before = blocks(&zone);
                let cost = zone.free_pcppages_bulk(&m, &caches, cpu);
                // A block freed: one block more, one fewer per merge.
                add(&mut merges, before + 1 - blocks(&zone), ns(cost));
            }
        }
    }
    println!("the model's buddy loop on {} at {mhz} MHz, {rounds} rounds", m.name);
    report("free_pcppages_bulk, per page, by merge steps", &merges);
    report("rmqueue_bulk, per page, by split steps", &splits);
}

fn add(by: &mut BTreeMap<i64, (u64, u64)>, steps: i64, ns: u64) {
    let e = by.entry(steps).or_insert((0, 0));
    e.0 += 1;
    e.1 += ns;
}

fn report(what: &str, by: &BTreeMap<i64, (u64, u64)>) {
    println!("{what}: steps, iterations, mean ns");
    let pts: Vec<(f64, f64, f64)> =
        by.iter().map(|(&k, &(n, sum))| (k as f64, sum as f64 / n as f64, n as f64)).collect();
    for &(k, mean, n) in &pts {
        println!("  {k:>2} {n:>8} {mean:>8.1}");
    }
    let w: f64 = pts.iter().map(|p| p.2).sum();
    let mx = pts.iter().map(|p| p.0 * p.2).sum::<f64>() / w;
    let my = pts.iter().map(|p| p.1 * p.2).sum::<f64>() / w;
    let sxx: f64 = pts.iter().map(|p| p.2 * (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| p.2 * (p.0 - mx) * (p.1 - my)).sum();
    println!("  slope {:.1} ns per step", if sxx > 0.0 { sxy / sxx } else { f64::NAN });
}
