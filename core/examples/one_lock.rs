//! Why the one-socket order-3 column of `high-order-alloc` climbs:
//! zone->lock of every node seen from outside the simulation, event by event, over the
//! measured window, and where the threads sit. Per flow count and order, mean of seeds 1-3:
//! throughput, acquisitions per µs and node, mean hold, mean handoff (lock busy with nobody
//! working under it), busy share of the window (= acquisitions × (hold + handoff)), mean
//! wait, the share of acquisitions whose lock line came from the same CPU, the SMT sibling,
//! another core of the socket or the other socket, spin %, the CPU time per segment (all
//! threads, ns and cycles at each thread's clock), and the placement (threads per busy core,
//! flows whose two threads are siblings). docs/high-order-alloc.md ("One socket, one lock")
//! quotes it: `cargo run --release -p skblab-core --example one_lock [flows...] [name=value...]`
//! (default `sockets=1 cpus=28`, flows 13 15 25 29).
use skblab_core::experiments::high_order_alloc as hoa;
use skblab_core::sim::world::World as _;

mod common;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (flows, mut settings) = common::numbers_and_settings(&args, vec![13, 15, 25, 29]);
    if settings.is_empty() {
        settings = vec!["sockets=1".into(), "cpus=28".into()];
    }
    let params = common::params(&settings);
    println!("settings: {settings:?}");
    println!(
        "flows order  Gbit/s  acq/us  hold  handoff  busy%  wait  same%  smt%  mesh%  upi%  spin%  ns/seg  kcyc/seg  MHz  thr/core  sib-flows"
    );
    for n in flows {
        for order in [hoa::FragOrder::Order3, hoa::FragOrder::Order0] {
            let [gbit, acq_us, hold, handoff, busy, wait, same, smt, mesh, upi, spin, ns_seg, kcyc_seg, mhz, thr_core, sib_flows] =
                common::mean_over_seeds(&params, n, order, |sim| {
                    let m = sim.cfg.machine.clone();
                    let nodes = sim.zones.len();
                    let warm = sim.cfg.warmup_ns();
                    while sim.now_ns() < warm && sim.step() {}
                    let s0: Vec<_> = sim.zones.iter().map(|z| z.lock.stats.clone()).collect();
                    let mut busy = vec![0u64; nodes];
                    let mut last = sim.now_ns();
                    let mut was: Vec<_> = sim.zones.iter().map(|z| z.lock.holder()).collect();
                    // Who owned each lock's line last (the previous holder's CPU).
                    let mut line: Vec<Option<u16>> = was.iter().map(|h| h.map(|w| w.cpu)).collect();
                    let mut from = [0u64; 4];
                    loop {
                        let more = sim.step();
                        let now = sim.now_ns().min(sim.end_ns());
                        let dt = now.saturating_sub(last);
                        for (b, w) in busy.iter_mut().zip(&was) {
                            if w.is_some() {
                                *b += dt;
                            }
                        }
                        last = now;
                        for (z, zone) in sim.zones.iter().enumerate() {
                            let h = zone.lock.holder();
                            let changed = match (was[z], h) {
                                (Some(a), Some(b)) => a.thread != b.thread || a.since_ns != b.since_ns,
                                (None, Some(_)) => true,
                                _ => false,
                            };
                            if changed {
                                let to = h.expect("changed to a holder").cpu;
                                let kind = match line[z] {
                                    None => 2,
                                    Some(c) if c == to => 0,
                                    Some(c) => {
                                        let (a, b) = (m.pos(c), m.pos(to));
                                        if a.socket != b.socket {
                                            3
                                        } else if a.core == b.core {
                                            1
                                        } else {
                                            2
                                        }
                                    }
                                };
                                from[kind] += 1;
                                line[z] = Some(to);
                            }
                            was[z] = h;
                        }
                        if !more {
                            break;
                        }
                    }
                    let window = (last - warm) as f64;
                    let (mut acq, mut hold, mut wait) = (0.0, 0.0, 0.0);
                    for (z, zone) in sim.zones.iter().enumerate() {
                        let s = &zone.lock.stats;
                        acq += (s.acquisitions - s0[z].acquisitions) as f64;
                        hold += (s.hold_ns_total - s0[z].hold_ns_total) as f64;
                        wait += (s.wait_ns_total - s0[z].wait_ns_total) as f64;
                    }
                    let busy_sum: u64 = busy.iter().sum();
                    let total: u64 = from.iter().sum();
                    let rep = sim.profile.report(String::new());
                    let segs = sim.stats.segments.max(1) as f64;
                    // CPU time per segment, and cycles at each thread's clock (all threads of a
                    // role share one clock class here: mean MHz over the threads).
                    let cpus = sim.thread_cpus();
                    let mhz = m.thread_mhz(&cpus);
                    let mean_mhz = mhz.iter().sum::<u64>() as f64 / mhz.len() as f64;
                    let mut per_core = std::collections::BTreeMap::new();
                    for &c in &cpus {
                        let p = m.pos(c);
                        *per_core.entry((p.socket, p.core)).or_insert(0u32) += 1;
                    }
                    let sib_flows =
                        cpus.chunks(2).filter(|p| p[0] != p[1] && m.pos(p[0]).core == m.pos(p[1]).core).count();
                    let share = |n: u64| n as f64 / total.max(1) as f64 * 100.0;
                    [
                        sim.throughput_mbps() / 1000.0,
                        acq / (window / 1000.0) / nodes as f64,
                        hold / acq.max(1.0),
                        (busy_sum as f64 - hold) / acq.max(1.0),
                        busy_sum as f64 / window / nodes as f64 * 100.0,
                        wait / acq.max(1.0),
                        share(from[0]),
                        share(from[1]),
                        share(from[2]),
                        share(from[3]),
                        rep.spin_pct,
                        rep.total_ns as f64 / segs,
                        rep.total_ns as f64 * mean_mhz / 1000.0 / segs / 1000.0,
                        mean_mhz,
                        cpus.len() as f64 / per_core.len() as f64,
                        sib_flows as f64,
                    ]
                });
            let order = format!("{order:?}");
            println!(
                "{n:>5} {order:>5}  {gbit:>6.1}  {acq_us:>6.2}  {hold:>4.0}  {handoff:>7.0}  {busy:>5.1}  {wait:>4.0}  {same:>5.1}  {smt:>4.1}  {mesh:>5.1}  {upi:>4.1}  {spin:>5.1}  {ns_seg:>6.0}  {kcyc_seg:>8.1}  {mhz:>4.0}  {thr_core:>8.2}  {sib_flows:>9.0}"
            );
        }
    }
}
