//! The parameters of `ktls-recursion`: their spec (ranges, units, help, the kernel name of
//! each knob), [`KtlsParams`] (the one place that reads them by name) and [`KtlsInput`], the
//! receive and the walk a run derives from them (the transfer cut at the bounds, THREAD_SIZE
//! and the strparser per fix).

use super::{build_scenario, Fix, FrameSizes, Scenario, SkbGraph, Transfer, WalkConfig};
use super::{RECORDS_MAX, TCP_SKBS_MAX, THREAD_SIZE_BYTES_DEFAULT, TLS_RECORD_OVERHEAD_BYTES};
use crate::model::ModelInput;
use crate::params::{Choice, ParamSpec, Params};
use serde::{Deserialize, Deserializer, Serialize};

/// The seed's transfer: a 100 MB GET (hurl <> nginx over loopback).
pub const SEED_TRANSFER_BYTES: i64 = 100_000_000;
/// Largest TLS record plaintext (2^14 bytes, RFC 8446 / RFC 5246).
pub const TLS_RECORD_BYTES_MAX: i64 = 16384;
/// Bytes of the stream per TCP skb on the receive queue, by default: OUR ASSUMPTION of about
/// one 64 KiB loopback GSO packet per skb (the seed does not say; `lo`'s MTU is 65536).
pub const TCP_SKB_BYTES_DEFAULT: i64 = 65536;

/// Everything a run needs, resolved from the parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KtlsInput {
    #[serde(deserialize_with = "fix_named")]
    pub fix: Fix,
    /// The receive (strparser per `fix`, the rx cache as set), after the bounds.
    pub scenario: Scenario,
    /// True if the transfer asked for more than [`TCP_SKBS_MAX`] TCP skbs or [`RECORDS_MAX`]
    /// records: the stream is cut there.
    pub transfer_capped: bool,
    /// The THREAD_SIZE knob as set (`walk` doubles it under [`Fix::BiggerStack`]).
    pub thread_size_bytes: u64,
    pub walk: WalkConfig,
}

crate::params_input! {
    /// The parameters as set, typed (each field is the parameter of its name);
    /// [`KtlsInput`] derives a run's input from them.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct KtlsParams {
        pub fix: Fix,
        pub tcp_rx_skb_cache: bool,
        pub transfer_bytes: i64,
        pub tls_record_bytes: i64,
        pub tcp_skb_bytes: i64,
        /// 0: as many as `transfer_bytes` needs on the wire.
        pub tcp_skbs: i64,
        pub thread_size_bytes: u64,
        pub vmap_stack: bool,
        pub frags_per_skb: u32,
        pub kfree_skb_frame_bytes: u64,
        pub skb_release_data_frame_bytes: u64,
        pub inlined_frame_bytes: u64,
        pub syscall_path_bytes: u64,
    }
}

impl ModelInput for KtlsInput {
    fn names() -> &'static [&'static str] {
        KtlsParams::NAMES
    }
}

impl From<&Params> for KtlsInput {
    fn from(params: &Params) -> KtlsInput {
        let p = KtlsParams::from(params);
        let record = p.tls_record_bytes as u64;
        let record_wire = record + TLS_RECORD_OVERHEAD_BYTES;
        let skb = p.tcp_skb_bytes as u64;
        // Each record adds its overhead to its plaintext (the last record is shorter).
        let wanted = match p.tcp_skbs {
            0 => {
                let plain = p.transfer_bytes as u64;
                plain + plain.div_ceil(record) * TLS_RECORD_OVERHEAD_BYTES
            }
            n => n as u64 * skb,
        };
        let wire = wanted.min(u64::from(TCP_SKBS_MAX) * skb).min(u64::from(RECORDS_MAX) * record_wire);
        let (fix, thread) = (p.fix, p.thread_size_bytes);
        let sizes = FrameSizes {
            kfree_skb_bytes: p.kfree_skb_frame_bytes,
            skb_release_data_bytes: p.skb_release_data_frame_bytes,
            inlined_bytes: p.inlined_frame_bytes,
            syscall_path_bytes: p.syscall_path_bytes,
            ..FrameSizes::default()
        };
        KtlsInput {
            fix,
            scenario: Scenario {
                wire_bytes: wire,
                record_wire_bytes: record_wire,
                tcp_skb_bytes: skb,
                nr_frags: p.frags_per_skb,
                strparser_unclones: fix.strparser_unclones(),
                rx_cache: p.tcp_rx_skb_cache,
            },
            transfer_capped: wire < wanted,
            thread_size_bytes: thread,
            walk: WalkConfig {
                sizes,
                thread_size_bytes: if fix == Fix::BiggerStack { 2 * thread } else { thread },
                iterative: fix == Fix::IterativeFree,
                vmap_stack: p.vmap_stack,
            },
        }
    }
}

impl KtlsInput {
    /// Page frags of each TCP skb.
    pub fn nr_frags(&self) -> u32 {
        self.scenario.nr_frags
    }

    /// The receive, up to close().
    pub fn transfer(&self) -> Transfer {
        build_scenario(&self.scenario)
    }

    /// The skbs alive at close.
    pub fn graph(&self) -> SkbGraph {
        self.transfer().graph
    }

    /// The same input with another fix (THREAD_SIZE recomputed from the knob).
    pub fn with_fix(&self, fix: Fix) -> KtlsInput {
        let thread_size_bytes = self.thread_size_bytes;
        let mut out = *self;
        out.fix = fix;
        out.scenario.strparser_unclones = fix.strparser_unclones();
        out.walk.iterative = fix == Fix::IterativeFree;
        out.walk.thread_size_bytes = if fix == Fix::BiggerStack { 2 * thread_size_bytes } else { thread_size_bytes };
        out
    }

    /// The same input receiving `tcp_skbs` full TCP skbs (at most [`TCP_SKBS_MAX`], and no
    /// more than [`RECORDS_MAX`] records).
    pub fn with_tcp_skbs(&self, tcp_skbs: u32) -> KtlsInput {
        let mut out = *self;
        let sc = &mut out.scenario;
        sc.wire_bytes = (u64::from(tcp_skbs.min(TCP_SKBS_MAX)) * sc.tcp_skb_bytes)
            .min(u64::from(RECORDS_MAX) * sc.record_wire_bytes);
        out
    }
}

/// A fix by its option name (see [`KtlsInput::fix`]).
fn fix_named<'de, D: Deserializer<'de>>(d: D) -> Result<Fix, D::Error> {
    let name = String::deserialize(d)?;
    Fix::from_name(&name).ok_or_else(|| serde::de::Error::custom(format!("no fix named {name:?}")))
}

/// The parameter spec (also used by [`reproduce`](super::reproduce)).
pub fn specs() -> Vec<ParamSpec> {
    let d = FrameSizes::default();
    vec![
        ParamSpec::choice_of("fix", Fix::None)
            .help("none = the seed's 5.1-rc2 (strparser after 4e485d06bb8c builds messages on the TCP skbs' shared frag_list); strparser-unclone = the merged fix 4a9c2e3746e6 (unclone the head first); iterative-free and bigger-stack are ours, hypothetical.")
            .kernel("net/strparser/strparser.c __strp_recv"),
        ParamSpec::boolean("tcp_rx_skb_cache", true)
            .help("The per-socket rx skb cache (8b27dae5a2e8, in the seed's 5.1-rc2 net-next; a sysctl, off by default, from June 2019; removed in 5.16): parks one eaten TCP skb until close (our assumption: the first one).")
            .kernel("sk->sk_rx_skb_cache, net.ipv4.tcp_rx_skb_cache"),
        ParamSpec::int("transfer_bytes", "bytes", SEED_TRANSFER_BYTES, (0, 1_000_000_000, 1_000_000))
            .help("Plaintext bytes received over the kTLS socket before close (the seed: a 100 MB GET), all read by the reader. Cut at 8192 TCP skbs or 65536 records (transfer_capped)."),
        ParamSpec::int("tls_record_bytes", "bytes", TLS_RECORD_BYTES_MAX, (1024, TLS_RECORD_BYTES_MAX, 1024))
            .help("Plaintext bytes per TLS record (each adds 29 bytes on the wire: TLS 1.2 AES-GCM); each record is one strparser message.")
            .kernel("TLS_MAX_PAYLOAD_SIZE"),
        ParamSpec::int("tcp_skb_bytes", "bytes", TCP_SKB_BYTES_DEFAULT, (1024, 65536, 1024))
            .help("Bytes of the stream in each TCP skb on the receive queue (ours: 64 KiB, about one loopback GSO packet; the seed does not say)."),
        ParamSpec::int("tcp_skbs", "skbs", 0, (0, TCP_SKBS_MAX as i64, 1))
            .help("TCP skbs received before close; 0 = as many as transfer_bytes needs, at most 8192."),
        ParamSpec::pow2("thread_size_bytes", "bytes", THREAD_SIZE_BYTES_DEFAULT as i64, (4096, 65536))
            .help("Kernel stack per task: 16 KiB on x86_64 since 6538b8ea886e (2014; 3.15 by our reading, 3.16 by another source).")
            .kernel("THREAD_SIZE"),
        ParamSpec::boolean("vmap_stack", true)
            .help("Guard page below a vmalloc'd stack (x86_64 since 4.9): an overflow faults (oops) instead of silently corrupting memory.")
            .kernel("CONFIG_VMAP_STACK"),
        ParamSpec::int("frags_per_skb", "frags", 17, (0, 45, 1))
            .help("Page frags in each received TCP skb (released by one leaf call per data block; ours: 17).")
            .kernel("shinfo->nr_frags"),
        ParamSpec::int("kfree_skb_frame_bytes", "bytes", d.kfree_skb_bytes as i64, (8, 512, 8))
            .help("Frame of kfree_skb (with __kfree_skb and skb_release_all inlined): fitted, with skb_release_data's, to the seed's depth.")
            .kernel("kfree_skb"),
        ParamSpec::int("skb_release_data_frame_bytes", "bytes", d.skb_release_data_bytes as i64, (8, 512, 8))
            .help("Frame of skb_release_data (with kfree_skb_list inlined): fitted, with kfree_skb's, to the seed's depth.")
            .kernel("skb_release_data"),
        ParamSpec::int("inlined_frame_bytes", "bytes", d.inlined_bytes as i64, (0, 256, 8))
            .help("Frame of each of __kfree_skb, skb_release_all, kfree_skb_list per level; 0 = inlined, as in the seed.")
            .kernel("__kfree_skb, skb_release_all, kfree_skb_list"),
        ParamSpec::int("syscall_path_bytes", "bytes", 0, (0, 16384, 8))
            .help("Stack used by close() down to tcp_disconnect; 0 = the per-function table (512 B).")
            .kernel("entry_SYSCALL_64 .. tcp_disconnect"),
    ]
}
