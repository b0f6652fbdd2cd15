//! The "profile" view (perf report and zone->lock stats) and the "buddyinfo" view
//! (/proc/buddyinfo and /proc/zoneinfo pagesets) of one run: `profile_threads` flows at
//! `profile_order`, as the parameter panel sets them.
//!
//! One run (tens of milliseconds) computed by core's `profile()`, once per parameter set and
//! shared by both views through a one-entry cache.

use super::HoaProps;
use skblab_core::experiments::high_order_alloc::{profile, FragOrder, PointDetail};
use skblab_core::Params;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The run the detail views show.
pub struct Detail {
    pub threads: u32,
    pub order: u32,
    pub detail: PointDetail,
}

thread_local! {
    static LAST: RefCell<Option<(Params, u64, Rc<Detail>)>> = const { RefCell::new(None) };
}

/// The detail of `params` / `seed`, computed only if it differs from the last one.
fn detail_of(params: &Params, seed: u64) -> Rc<Detail> {
    if let Some(hit) =
        LAST.with(|l| l.borrow().as_ref().filter(|(p, s, _)| p == params && *s == seed).map(|e| e.2.clone()))
    {
        return hit;
    }
    let threads = params.int("profile_threads").max(1) as u32;
    let order = if params.choice("profile_order") == "order0" { FragOrder::Order0 } else { FragOrder::Order3 };
    let detail = profile(params, threads, order, seed);
    let d = Rc::new(Detail { threads, order: if order == FragOrder::Order0 { 0 } else { 3 }, detail });
    LAST.with(|l| *l.borrow_mut() = Some((params.clone(), seed, d.clone())));
    d
}

#[function_component(ProfileView)]
pub fn profile_view(props: &HoaProps) -> Html {
    let d = use_memo((props.params.clone(), props.seed), |(p, s)| detail_of(p, *s));
    let s = &d.detail.summary;
    html! {
        <figure class="hoa-view card-flat">
            <figcaption>
                <strong>{ format!("perf report: {} flows, order-{} frags", d.threads, d.order) }</strong>
                <span class="muted">{ format!("{:.1} Gbit/s; {:.1} % of CPU time spinning on zone->lock", s.mbps / 1000.0, s.spin_pct) }</span>
            </figcaption>
            <pre class="hoa-pre" data-testid="perf-profile">{ &d.detail.profile.text }</pre>
            <details>
                <summary>{"/proc/lock_stat: zone->lock (times in µs)"}</summary>
                <pre class="hoa-pre" data-testid="lock-stat">{ &d.detail.lock_stat }</pre>
            </details>
        </figure>
    }
}

#[function_component(BuddyinfoView)]
pub fn buddyinfo_view(props: &HoaProps) -> Html {
    let d = use_memo((props.params.clone(), props.seed), |(p, s)| detail_of(p, *s));
    html! {
        <figure class="hoa-view card-flat" data-testid="buddyinfo-view">
            <figcaption>
                <strong>{ format!("/proc views after {} flows, order-{} frags", d.threads, d.order) }</strong>
            </figcaption>
            <p class="muted">{"/proc/buddyinfo: free blocks per order (0 = 4 KiB … 10 = 4 MiB), per node"}</p>
            <pre class="hoa-pre">{ &d.detail.buddyinfo }</pre>
            <p class="muted">{"/proc/zoneinfo pagesets of the first CPUs: count, high, batch of each per-CPU list"}</p>
            <pre class="hoa-pre">{ &d.detail.zoneinfo_pagesets }</pre>
        </figure>
    }
}
