//! The size arithmetic of an sk_buff, shared by every world that allocates skbs and by
//! `skb-layout`: `SKB_DATA_ALIGN`, the kmalloc size classes and their cache names, and the
//! sizes of `struct sk_buff`, `struct skb_shared_info` and the fclone pair per kernel era.
//!
//! What Linux does (include/linux/skbuff.h, net/core/skbuff.c `__alloc_skb`): an skb is a
//! `struct sk_buff` from `skbuff_head_cache` (or, for TCP's transmit skbs, a pair of them from
//! `skbuff_fclone_cache`) plus a kmalloc'd head whose size is `SKB_DATA_ALIGN(data) +
//! SKB_DATA_ALIGN(sizeof(struct skb_shared_info))`; kmalloc rounds the request up to its size
//! class (mm/slab_common.c, `kmalloc_info[]`). The sizes change with the kernel: the shared
//! info had 18 frags in 2011 and 17 since, so each era keeps its own named constant here.
//!
//! What we simplify: x86_64 with 4 KiB pages and 64-byte lines for the worlds (skb-layout
//! passes its own page size and alignment); kmalloc classes as SLUB on x86_64 (powers of two
//! from 8 with the 96 and 192 classes, up to 2 × PAGE_SIZE); larger requests go to the page
//! allocator in whole power-of-two pages.
//!
//! The call chains of an skb's allocation and free, shared by the worlds that charge them
//! (`skb_call_chains!`), are here too.

pub use super::machine::PAGE_SIZE;

/// `SMP_CACHE_BYTES` on x86_64: what `SKB_DATA_ALIGN` rounds to.
pub const SMP_CACHE_BYTES: u32 = 64;

/// `sizeof(struct sk_buff)` (224–232 bytes in 3.x–6.x) rounded by `skbuff_head_cache`'s
/// HWCACHE alignment: one object of that cache.
pub const SKBUFF_HEAD_CACHE_BYTES: u32 = 256;

/// `skbuff_fclone_cache` object: two sk_buffs and the fclone refcount, cache-aligned.
pub const FCLONE_BYTES: u32 = 512;

/// `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` in 2011 (3.1/3.2, 18 frags of 16 bytes
/// and a 56-byte fixed part: 344 bytes), aligned to 384.
pub const SHINFO_2011_BYTES: u32 = 384;

/// `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` in 5.2 (17 frags of 16 bytes and a
/// 48-byte fixed part): 320.
pub const SHINFO_2019_BYTES: u32 = 320;

/// `MAX_TCP_HEADER` on x86_64 in 2019: the linear part of a TCP transmit skb holds only
/// headers (the payload goes to page frags).
pub const MAX_TCP_HEADER: u32 = 320;

/// `MAX_TCP_HEADER` in 4.19 (include/net/tcp.h: 128 + `MAX_HEADER`, not yet cache-aligned)
/// with the x86_64 configurations of 2018's distributions: `MAX_HEADER` = `LL_MAX_HEADER` 128
/// (`CONFIG_HYPERV_NET`) + 48 (IP tunnels configured) = 176, so 304; `SKB_DATA_ALIGN`ed, the
/// same 320-byte head as [`MAX_TCP_HEADER`]. The first skb's linear part is cut from it.
pub const MAX_TCP_HEADER_4_19: u32 = 304;

/// TCP payload per 1500-byte Ethernet frame with timestamps (1500 − 20 IP − 32 TCP).
pub const TCP_MSS: u32 = 1448;

/// `TCP_MSS_DEFAULT`: `tcp_initialize_rcv_mss()` starts a receiver's `rcv_mss` at most here;
/// the first full segment raises it.
pub const TCP_MSS_DEFAULT: u32 = 536;

/// The kmalloc caches of x86_64 with 4 KiB pages, with the names kernels before 4.20 gave
/// them (since cb5d9fb38c34 the large ones are `kmalloc-1k`, ... ; see [`kmalloc_suffix`]).
pub const KMALLOC_CACHES: [(u32, &str); 13] = [
    (8, "kmalloc-8"),
    (16, "kmalloc-16"),
    (32, "kmalloc-32"),
    (64, "kmalloc-64"),
    (96, "kmalloc-96"),
    (128, "kmalloc-128"),
    (192, "kmalloc-192"),
    (256, "kmalloc-256"),
    (512, "kmalloc-512"),
    (1024, "kmalloc-1024"),
    (2048, "kmalloc-2048"),
    (4096, "kmalloc-4096"),
    (8192, "kmalloc-8192"),
];

/// Rounds `bytes` up to a multiple of `align`.
pub fn align_up(bytes: u64, align: u64) -> u64 {
    bytes.div_ceil(align) * align
}

/// `SKB_DATA_ALIGN(n)`: up to a 64-byte line.
pub const fn skb_data_align(n: u32) -> u32 {
    n.div_ceil(SMP_CACHE_BYTES) * SMP_CACHE_BYTES
}

/// The kmalloc size class for a request (SLUB on x86: powers of two from 8 plus 96 and 192,
/// up to `2 * PAGE_SIZE`), or `None` if the request goes to the page allocator.
pub fn kmalloc_class(request_bytes: u64, page_size_bytes: u64) -> Option<u64> {
    if request_bytes > 2 * page_size_bytes {
        return None;
    }
    let class = match request_bytes {
        0..=8 => 8,
        65..=96 => 96,
        129..=192 => 192,
        n => n.next_power_of_two(),
    };
    Some(class)
}

/// Bytes handed out by the page allocator for a large kmalloc: `PAGE_SIZE << get_order(n)`.
pub fn page_alloc_bytes(request_bytes: u64, page_size_bytes: u64) -> u64 {
    align_up(request_bytes, page_size_bytes).next_power_of_two().max(page_size_bytes)
}

/// The object size of the kmalloc cache a request of `n` bytes lands in, on 4 KiB pages.
/// Panics above the largest class (the worlds' heads are far below it).
pub const fn kmalloc_size(n: u32) -> u32 {
    let mut i = 0;
    while i < KMALLOC_CACHES.len() {
        if KMALLOC_CACHES[i].0 >= n {
            return KMALLOC_CACHES[i].0;
        }
        i += 1;
    }
    panic!("bug: kmalloc request above the largest class (2 * PAGE_SIZE)")
}

/// The name of the kmalloc cache of object size `class` (one of [`KMALLOC_CACHES`]).
pub fn kmalloc_name(class: u32) -> &'static str {
    KMALLOC_CACHES
        .iter()
        .find(|&&(c, _)| c == class)
        .map(|&(_, name)| name)
        .unwrap_or_else(|| panic!("bug: {class} is not a kmalloc class"))
}

/// The size part of a kmalloc cache's name since 4.20, as /proc/slabinfo prints it:
/// `2048` → `2k`, `192` → `192`.
pub fn kmalloc_suffix(bytes: u64) -> String {
    if bytes >= 1024 && bytes % 1024 == 0 {
        format!("{}k", bytes / 1024)
    } else {
        bytes.to_string()
    }
}

/// Declares a world's call chains like `call_chains!`, with the chains of the skb's own
/// allocation and free appended: `__alloc_skb` and `__kfree_skb` through SLUB (fast, slow and
/// list_lock-spinning paths) and the page allocator (zone->lock spinning), written without
/// their caller, as their cost is the same from every caller. The enum gets `spin()` (the
/// chain a lock wait inside an operation goes to) and the SLUB chain of an allocation's or a
/// free's path ([`crate::sim::slub::AllocPath`], [`crate::sim::slub::FreePath`]).
///
/// What differs by kernel and configuration is named at the call: the SLUB entry perf shows
/// under `__alloc_skb` (`kmem_cache_alloc_node`, or `kmem_cache_alloc` where a kernel without
/// NUMA inlines the one into the other), its slow path (`__slab_alloc`, or `___slab_alloc`
/// since 4.2 split it out) and the page allocator's entry (`__alloc_pages_nodemask`, named
/// `__alloc_pages` again since 5.13):
///
/// ```text
/// skb_call_chains! {
///     alloc: "kmem_cache_alloc_node", slow: "___slab_alloc", pages: "__alloc_pages_nodemask";
///     pub enum Stack for ["tcp_rr"] { Driver => "net_rx_action;...", ... }
/// }
/// ```
macro_rules! skb_call_chains {
    (
        alloc: $alloc:literal, slow: $slow:literal, pages: $pages:literal;
        $(#[$meta:meta])* $vis:vis enum $name:ident for [$($cmd:literal),+ $(,)?] {
            $($(#[$vmeta:meta])* $variant:ident => $chain:expr),+ $(,)?
        }
    ) => {
        $crate::sim::profile::call_chains! {
            $(#[$meta])* $vis enum $name for [$($cmd),+] {
                $($(#[$vmeta])* $variant => $chain,)+
                SkbAlloc => "__alloc_skb",
                SlabAlloc => concat!("__alloc_skb;", $alloc),
                SlabAllocSlow => concat!("__alloc_skb;", $alloc, ";", $slow),
                SlabAllocSpin => concat!("__alloc_skb;", $alloc, ";", $slow, ";_raw_spin_lock;queued_spin_lock_slowpath"),
                SkbFree => "__kfree_skb;skb_release_all",
                SlabFree => "__kfree_skb;kfree_skbmem;kmem_cache_free",
                SlabFreeSlow => "__kfree_skb;kfree_skbmem;kmem_cache_free;__slab_free",
                SlabFreeSpin => "__kfree_skb;kfree_skbmem;kmem_cache_free;__slab_free;_raw_spin_lock_irqsave;queued_spin_lock_slowpath",
                PageAlloc => concat!($pages, ";get_page_from_freelist"),
                PageAllocSpin => concat!($pages, ";get_page_from_freelist;rmqueue_bulk;_raw_spin_lock;queued_spin_lock_slowpath"),
                PageFree => "__kfree_skb;skb_release_all;skb_release_data;put_page;__put_page;free_unref_page",
                PageFreeSpin => "__kfree_skb;skb_release_all;skb_release_data;put_page;__put_page;free_unref_page;free_pcppages_bulk;_raw_spin_lock;queued_spin_lock_slowpath",
            }
        }

        impl $name {
            /// The chain a lock wait inside an operation charged to `self` goes to.
            pub fn spin(self) -> $name {
                match self {
                    $name::SlabAlloc | $name::SlabAllocSlow => $name::SlabAllocSpin,
                    $name::SlabFree | $name::SlabFreeSlow => $name::SlabFreeSpin,
                    $name::PageAlloc => $name::PageAllocSpin,
                    _ => $name::PageFreeSpin,
                }
            }

            /// The chain of a `kmem_cache_alloc` that took `path`.
            pub fn slab_alloc(path: $crate::sim::slub::AllocPath) -> $name {
                if path == $crate::sim::slub::AllocPath::Fast {
                    $name::SlabAlloc
                } else {
                    $name::SlabAllocSlow
                }
            }

            /// The chain of a `kmem_cache_free` that took `path`.
            pub fn slab_free(path: $crate::sim::slub::FreePath) -> $name {
                if path.is_slow() {
                    $name::SlabFreeSlow
                } else {
                    $name::SlabFree
                }
            }
        }
    };
}
pub(crate) use skb_call_chains;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_agree() {
        for n in 0..=8192u32 {
            let class = kmalloc_size(n);
            assert_eq!(kmalloc_class(u64::from(n), u64::from(PAGE_SIZE)), Some(u64::from(class)), "{n}");
            assert!(kmalloc_name(class).ends_with(&class.to_string()));
        }
        assert_eq!(skb_data_align(320) + SHINFO_2019_BYTES, 640);
        assert_eq!(kmalloc_size(skb_data_align(MAX_TCP_HEADER) + SHINFO_2019_BYTES), 1024);
        assert_eq!(kmalloc_suffix(2048), "2k");
    }
}
