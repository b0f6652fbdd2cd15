//! The facts as data: the sysctls the course names (when each came and went, with the commit),
//! how a lesson's parameter value becomes the sysctl's value, and the documented ranges of the
//! sysctls the lessons teach. Sources: net/core/sysctl_net_core.c and net/ipv4/sysctl_net_ipv4.c
//! (the ctl_table entries: handler, `extra1`/`extra2` bounds), Documentation/admin-guide/sysctl/
//! net.rst (units), and the commits named in each row.

use super::kernel::Release;

/// A sysctl the course names, with the mainline release that added it (and removed it).
pub struct Sysctl {
    pub name: &'static str,
    pub since: Release,
    pub added_by: &'static str,
    pub removed: Option<(Release, &'static str)>,
}

const SKB_CACHE_REMOVAL: &str = "d8b81175e412 \"tcp: remove sk_{tr}x_skb_cache\"; 2023 stable backports removed it \
     from older series too";

/// Every sysctl a parameter of an experiment stands for, or a range below checks.
pub const SYSCTLS: &[Sysctl] = &[
    Sysctl {
        name: "net.core.high_order_alloc_disable",
        since: Release(5, 2),
        added_by: "ce27ec60648d \"net: add high_order_alloc_disable sysctl/static key\"",
        removed: None,
    },
    Sysctl {
        name: "net.core.mem_pcpu_rsv",
        since: Release(6, 9),
        added_by: "12a686c2e761 \"net: make SK_MEMORY_PCPU_RESERV tunable\", also in 6.1.y, 6.6.y and 6.8.y stable",
        removed: None,
    },
    Sysctl {
        name: "net.core.skb_defer_max",
        since: Release(5, 19),
        added_by: "39564c3fdc66 \"net: add skb_defer_max sysctl\"",
        removed: None,
    },
    Sysctl {
        name: "net.core.rps_sock_flow_entries",
        since: Release(2, 6),
        added_by: "fec5e652e58f \"rfs: Receive Flow Steering\" (Tom Herbert, 2010-04-16; Linux 2.6.35)",
        removed: None,
    },
    Sysctl {
        name: "net.core.max_skb_frags",
        since: Release(4, 5),
        added_by: "5f74f82ea34c \"net:Add sysctl_max_skb_frags\", queued for stable",
        removed: None,
    },
    Sysctl {
        name: "net.ipv4.tcp_rx_skb_cache",
        since: Release(5, 2),
        added_by: "ede61ca474a0 \"tcp: add tcp_rx_skb_cache sysctl\"",
        removed: Some((Release(5, 16), SKB_CACHE_REMOVAL)),
    },
    Sysctl {
        name: "net.ipv4.tcp_tx_skb_cache",
        since: Release(5, 2),
        added_by: "0b7d7f6b2208 \"tcp: add tcp_tx_skb_cache sysctl\"",
        removed: Some((Release(5, 16), SKB_CACHE_REMOVAL)),
    },
    Sysctl {
        name: "net.ipv4.tcp_mem",
        since: Release(2, 6),
        added_by: "Documentation/networking/ip-sysctl.txt of 2.6",
        removed: None,
    },
];

pub fn sysctl(name: &str) -> Option<&'static Sysctl> {
    SYSCTLS.iter().find(|s| s.name == name)
}

/// How a lesson's value of a parameter becomes the value of the sysctl it stands for.
pub enum Conversion {
    /// Bytes to pages of the running kernel, rounded up (net.rst: `mem_pcpu_rsv` is "in page
    /// units"; SK_MEMORY_PCPU_RESERVE is `1 << (20 - PAGE_SHIFT)`).
    BytesToPages,
    /// `true`/`false` to 1/0 (a static key: `proc_do_static_key` takes 0 or 1).
    Bool,
    /// Each option of a choice to the sysctl's value; `None`: the option sets nothing.
    Choice(&'static [(&'static str, Option<i64>)]),
    /// The parameter stands for the sysctl but is not its value: only its existence is checked.
    NotTheValue(&'static str),
}

/// A parameter of an experiment that stands for a sysctl.
pub struct ParamSysctl {
    pub experiment: &'static str,
    pub param: &'static str,
    pub sysctl: &'static str,
    pub conversion: Conversion,
}

const fn row(experiment: &'static str, param: &'static str, sysctl: &'static str, c: Conversion) -> ParamSysctl {
    ParamSysctl { experiment, param, sysctl, conversion: c }
}

/// Every parameter whose `ParamSpec::kernel_name` names a sysctl, and how its value converts
/// (a test fails when a parameter names one and is missing here, or a row names no parameter).
pub const PARAM_SYSCTLS: &[ParamSysctl] = &[
    row("percpu-counter", "reserve_bytes", "net.core.mem_pcpu_rsv", Conversion::BytesToPages),
    row(
        "percpu-counter",
        "ram_gib",
        "net.ipv4.tcp_mem",
        Conversion::NotTheValue("the RAM tcp_mem is computed from at boot (tcp_init_mem)"),
    ),
    // FragOrder: order3 is the sysctl at 0 (order-3 frags first), order0 at 1.
    row(
        "high-order-alloc",
        "profile_order",
        "net.core.high_order_alloc_disable",
        Conversion::Choice(&[("order3", Some(0)), ("order0", Some(1))]),
    ),
    row(
        "cross-cpu-free",
        "defer_free",
        "net.core.skb_defer_max",
        Conversion::NotTheValue("on is the default 64 (39564c3fdc66, v5.19), off is 0"),
    ),
    row(
        "cross-cpu-free",
        "rfs",
        "net.core.rps_sock_flow_entries",
        Conversion::NotTheValue(
            "on is a nonzero table with rps_flow_cnt set on the receive queue (scaling.rst), off is 0",
        ),
    ),
    row("high-order-alloc", "tcp_rx_skb_cache", "net.ipv4.tcp_rx_skb_cache", Conversion::Bool),
    row("high-order-alloc", "tcp_tx_skb_cache", "net.ipv4.tcp_tx_skb_cache", Conversion::Bool),
    row("skb-cache", "tcp_rx_skb_cache", "net.ipv4.tcp_rx_skb_cache", Conversion::Bool),
    row("skb-cache", "tcp_tx_skb_cache", "net.ipv4.tcp_tx_skb_cache", Conversion::Bool),
    // The rx cache as a sysctl (5.2-5.15; in the seed's 5.1-rc net-next it had none and was on
    // unless RPS was). The fixes are code changes (strparser 4a9c2e3746e6, or ours).
    row("ktls-recursion", "tcp_rx_skb_cache", "net.ipv4.tcp_rx_skb_cache", Conversion::Bool),
];

/// The sysctl a `kernel_name` names, if any: a dotted `net.`/`vm.`/`kernel.`/`fs.` word
/// (`sysctl net.ipv4.tcp_rx_skb_cache (June 2019)` names `net.ipv4.tcp_rx_skb_cache`).
pub fn named_sysctl(kernel_name: &str) -> Option<&str> {
    kernel_name.split_whitespace().find(|w| {
        let parts: Vec<&str> = w.split('.').collect();
        parts.len() >= 3
            && ["net", "vm", "kernel", "fs"].contains(&parts[0])
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'))
    })
}

/// A documented range of a sysctl the lessons teach: values the kernel must take and values
/// it must refuse.
pub struct RangeFact {
    pub sysctl: &'static str,
    pub accepts: Vec<i64>,
    pub rejects: Vec<i64>,
    /// The bound as the source gives it.
    pub why: String,
}

impl RangeFact {
    /// A sysctl backed by a static key (`proc_do_static_key`): 0 or 1, nothing else.
    fn static_key(sysctl: &'static str) -> RangeFact {
        RangeFact {
            sysctl,
            accepts: vec![0, 1],
            rejects: vec![2],
            why: "a static key: proc_do_static_key takes 0 or 1".into(),
        }
    }
}

/// The ranges on a kernel with `page_size_bytes` pages and MAX_SKB_FRAGS = `max_skb_frags`
/// (from BTF; `None`: pahole could not tell, the max_skb_frags bounds are left out).
pub fn ranges(page_size_bytes: u64, max_skb_frags: Option<u64>) -> Vec<RangeFact> {
    let reserve_pages = ((1u64 << 20) / page_size_bytes) as i64;
    let mut out = vec![
        RangeFact::static_key("net.core.high_order_alloc_disable"),
        RangeFact {
            sysctl: "net.core.mem_pcpu_rsv",
            accepts: vec![reserve_pages],
            rejects: vec![reserve_pages - 1],
            why: format!(
                "at least SK_MEMORY_PCPU_RESERVE = 1 MiB = {reserve_pages} pages of {page_size_bytes} bytes \
                 (extra1 = &min_mem_pcpu_rsv)"
            ),
        },
        RangeFact {
            sysctl: "net.core.skb_defer_max",
            accepts: vec![0],
            rejects: vec![-1],
            why: "at least 0 (extra1 = SYSCTL_ZERO)".into(),
        },
        RangeFact::static_key("net.ipv4.tcp_rx_skb_cache"),
        RangeFact::static_key("net.ipv4.tcp_tx_skb_cache"),
    ];
    let (accepts, rejects, why) = match max_skb_frags {
        Some(n) => {
            let n = n as i64;
            (
                vec![1, n],
                vec![0, n + 1],
                format!("1 to MAX_SKB_FRAGS (extra1 = SYSCTL_ONE, extra2 = &max_skb_frags), frags[{n}] in this BTF"),
            )
        }
        None => (vec![1], vec![0], "at least 1 (extra1 = SYSCTL_ONE); the maximum needs BTF".into()),
    };
    out.push(RangeFact { sysctl: "net.core.max_skb_frags", accepts, rejects, why });
    out
}
