//! `skb-cache`'s waiting: threads asleep in epoll_wait, woken by the receive softirq, CPUs
//! that idle and leave their idle state (docs/skb-cache.md, "Waiting"). Whether a request
//! finds its thread awake, and how many sockets one epoll_wait returns, is what the world
//! counted: nothing here sets it.

use skblab_core::experiments::skb_cache::{self as sc, world, SkbCache};

use crate::common;

/// The world's configuration of `settings` (defaults otherwise).
fn config(settings: &[&str]) -> world::Config {
    let p = common::params(&SkbCache, settings);
    sc::Input::from(&p).config(sc::profile::SERVER_2019_RR)
}

fn mpps(r: &sc::RunResult) -> f64 {
    sc::summarize(r).mpps
}

fn per_request(n: u64, r: &sc::RunResult) -> f64 {
    n as f64 / r.requests.max(1) as f64
}

/// With the seed's 10,000 flows over 112 threads a thread always has ready sockets when it
/// calls epoll_wait again: batches of tens of sockets, no wakeup, no idle CPU. With one flow
/// per thread every request wakes its thread and most find its CPU idle: fewer Mpps. In
/// between, the wakeups per request fall as flows per thread grow.
#[test]
fn fewer_flows_per_thread_mean_more_wakeups_per_request_and_fewer_mpps() {
    let short = ["measure_us=500", "warmup_us=500"];
    let at = |flows: &str| {
        let s: Vec<&str> = short.iter().copied().chain([flows]).collect();
        world::simulate(&config(&s), 1)
    };
    let seed = world::simulate(&config(&[]), 1);
    let (one, two, ten) = (at("flows=112"), at("flows=224"), at("flows=1120"));
    let wakeups = |r: &sc::RunResult| per_request(r.wait.thread_wakeups, r);
    let batch = |r: &sc::RunResult| r.wait.epoll_events as f64 / r.wait.epoll_waits.max(1) as f64;
    assert!(wakeups(&seed) < 0.01, "10,000 flows: {:.4} wakeups per request", wakeups(&seed));
    assert!(batch(&seed) > 20.0, "10,000 flows: {:.1} sockets per epoll_wait", batch(&seed));
    assert!(seed.wait.idle_ns < seed.measure_ns, "10,000 flows: the CPUs do not idle");
    assert!(wakeups(&one) > 0.9, "one flow per thread: {:.3}", wakeups(&one));
    assert!(per_request(one.wait.idle_exits, &one) > 0.5, "{:?}", one.wait);
    assert!(batch(&one) < 1.1, "{:.2}", batch(&one));
    assert!(
        wakeups(&one) > wakeups(&two) && wakeups(&two) > wakeups(&ten),
        "{:?} {:?} {:?}",
        one.wait,
        two.wait,
        ten.wait
    );
    assert!(mpps(&one) < mpps(&two) && mpps(&two) < mpps(&ten), "{} {} {}", mpps(&one), mpps(&two), mpps(&ten));
}

/// A slower exit from idle (the IPI and the C-state) lowers the Mpps of a server whose
/// threads sleep (one flow per thread), and leaves the saturated seed configuration alone.
#[test]
fn a_slower_wake_latency_lowers_mpps_where_threads_sleep() {
    let slow = |settings: &[&str], ns: f64| {
        let mut c = config(settings);
        c.profile.kernel.wake_latency_ns.value = ns;
        world::simulate(&c, 1)
    };
    let one = ["flows=112", "measure_us=500", "warmup_us=500"];
    let (fast, slower) = (slow(&one, 1_000.0), slow(&one, 10_000.0));
    assert!(mpps(&slower) < mpps(&fast) * 0.9, "{} -> {}", mpps(&fast), mpps(&slower));
    assert!(slower.wait.idle_exit_ns > fast.wait.idle_exit_ns);
    // The deep state's exit counts only after a long idle period: not here.
    let mut c = config(&one);
    c.profile.kernel.idle_exit_ns.value = 133_000.0;
    let deep = world::simulate(&c, 1);
    assert!((mpps(&deep) / mpps(&slow(&one, 3_000.0)) - 1.0).abs() < 0.05);
    // Waiting does not touch the seed's saturated run.
    let (a, b) = (slow(&["measure_us=500"], 1_000.0), slow(&["measure_us=500"], 10_000.0));
    assert!((mpps(&b) / mpps(&a) - 1.0).abs() < 0.02, "{} vs {}", mpps(&a), mpps(&b));
}

/// neper's two `epoll_ctl(EPOLL_CTL_MOD)` per transaction are work on the thread's CPU: a
/// server that made none would serve more requests per second, and each call costs the
/// saturated seed configuration about the same share (the CPUs, not the wire, are the limit).
#[test]
fn neper_epoll_ctl_calls_cost_the_saturated_server_requests() {
    let run = |mods: u64| {
        let mut c = config(&["measure_us=500"]);
        c.profile.epoll_mods_per_request = mods;
        world::simulate(&c, 1)
    };
    let (none, one, two) = (run(0), run(1), run(2));
    assert!(mpps(&none) > mpps(&one) && mpps(&one) > mpps(&two), "{} {} {}", mpps(&none), mpps(&one), mpps(&two));
    assert_eq!(sc::profile::SERVER_2019_RR.epoll_mods_per_request, 2, "neper's tcp_rr server (rr.c, flow.c)");
    // The two calls and the EPOLLOUT event: 2 × (syscall + event) + event, about a tenth of
    // a request's path work at the seed's costs, so they cost the server 5-20 % of its Mpps.
    let loss = 1.0 - mpps(&two) / mpps(&none);
    assert!((0.05..0.20).contains(&loss), "{:.3}", loss);
}
