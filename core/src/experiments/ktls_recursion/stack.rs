//! The kernel stack model: which functions are on the stack, how many bytes each frame takes,
//! and how big the stack is.
//!
//! What Linux does: every task has one kernel stack of THREAD_SIZE bytes (x86_64: 16 KiB,
//! `THREAD_SIZE_ORDER = 2`, since 6538b8ea886e "x86_64: expand kernel stack to 16K", Minchan
//! Kim, RFC of 2014-05-28; 3.15 by our reading, "3.16" in a 2019 commit message — not
//! checked against the tags). A
//! syscall enters at the top with `struct pt_regs` (21 registers × 8 = 168 bytes), and each
//! call pushes a return address, the callee-saved registers the callee uses and its locals.
//! With CONFIG_VMAP_STACK (x86_64, 4.9) the stack is vmalloc'd with an unmapped guard page
//! below it, so running off the end faults ("stack guard page was hit") instead of silently
//! overwriting whatever lies below.
//!
//! What we simplify: a frame is one integer of bytes per function, independent of the path
//! taken through it; functions the compiler inlined cost 0 and do not appear in the oops
//! (the seed's trace shows only `kfree_skb` and `skb_release_data` per nesting level, so
//! `__kfree_skb`, `skb_release_all` and `kfree_skb_list` were inlined in that build).
//! No size here was read from a binary of the seed's build (none was found, nor published
//! -fstack-usage figures for these functions; see docs/ktls-recursion.md, "Frame sizes").
//! `PT_REGS_BYTES` is exact and `free_one_page`'s 56 B are read off the seed's own Code:
//! line; the two frames of one recursion level are FITTED to the seed's depth
//! ([`FrameSizes`]); the rest are estimates.

use serde::{Deserialize, Deserializer, Serialize};

/// sizeof(struct pt_regs) on x86_64: 21 eight-byte slots, saved by `entry_SYSCALL_64`.
pub const PT_REGS_BYTES: u64 = 168;

/// PAGE_SIZE on x86_64: the size of the CONFIG_VMAP_STACK guard page.
pub const GUARD_PAGE_BYTES: u64 = 4096;

/// Default THREAD_SIZE on x86_64 (16 KiB, `PAGE_SIZE << 2`).
pub const THREAD_SIZE_BYTES_DEFAULT: u64 = 16384;

/// A function the model can put on the stack. Kernel names via [`Func::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Func {
    EntrySyscall64,
    DoSyscall64,
    ExitToUsermodeLoop,
    TaskWorkRun,
    Fput,
    SockClose,
    SockRelease,
    InetRelease,
    TlsSkProtoClose,
    TcpClose,
    TcpDisconnect,
    /// A syscall path whose size the learner set by hand (one frame for the whole path).
    SyscallPathByHand,
    SkbQueuePurge,
    KfreeSkb,
    /// `__kfree_skb`.
    KfreeSkbInner,
    SkbReleaseAll,
    SkbReleaseData,
    KfreeSkbList,
    FreePagesOk,
    FreeOnePage,
}

/// Every function, in declaration order.
pub const FUNCS: &[Func] = &[
    Func::EntrySyscall64,
    Func::DoSyscall64,
    Func::ExitToUsermodeLoop,
    Func::TaskWorkRun,
    Func::Fput,
    Func::SockClose,
    Func::SockRelease,
    Func::InetRelease,
    Func::TlsSkProtoClose,
    Func::TcpClose,
    Func::TcpDisconnect,
    Func::SyscallPathByHand,
    Func::SkbQueuePurge,
    Func::KfreeSkb,
    Func::KfreeSkbInner,
    Func::SkbReleaseAll,
    Func::SkbReleaseData,
    Func::KfreeSkbList,
    Func::FreePagesOk,
    Func::FreeOnePage,
];

/// A kernel function's name as the model spells it ([`Func::name`]). An alias, so that serde's
/// derive reads it with [`function_name`] instead of borrowing it from the input.
pub type Symbol = &'static str;

/// Reads a function name back as [`Func::name`]'s `&'static str` (walk traces cross the
/// worker boundary as JSON); a name the model does not have is an error.
pub fn function_name<'de, D: Deserializer<'de>>(d: D) -> Result<Symbol, D::Error> {
    let name = String::deserialize(d)?;
    FUNCS
        .iter()
        .map(|f| f.name())
        .find(|n| *n == name)
        .ok_or_else(|| serde::de::Error::custom(format!("no function named {name:?} in the model")))
}

impl Func {
    /// The kernel symbol, so a learner can grep Linux for it.
    pub fn name(self) -> &'static str {
        match self {
            Func::EntrySyscall64 => "entry_SYSCALL_64",
            Func::DoSyscall64 => "do_syscall_64",
            Func::ExitToUsermodeLoop => "exit_to_usermode_loop",
            Func::TaskWorkRun => "task_work_run",
            Func::Fput => "__fput",
            Func::SockClose => "sock_close",
            Func::SockRelease => "__sock_release",
            Func::InetRelease => "inet_release",
            Func::TlsSkProtoClose => "tls_sk_proto_close",
            Func::TcpClose => "tcp_close",
            Func::TcpDisconnect => "tcp_disconnect",
            Func::SyscallPathByHand => "close() path (size set by hand)",
            Func::SkbQueuePurge => "__skb_queue_purge",
            Func::KfreeSkb => "kfree_skb",
            Func::KfreeSkbInner => "__kfree_skb",
            Func::SkbReleaseAll => "skb_release_all",
            Func::SkbReleaseData => "skb_release_data",
            Func::KfreeSkbList => "kfree_skb_list",
            Func::FreePagesOk => "__free_pages_ok",
            Func::FreeOnePage => "free_one_page",
        }
    }
}

/// The close() path down to `tcp_disconnect` (5.1), outermost first. Frame bytes are ASSUMED
/// (return address + the saved registers we expect each to use; per-function reasoning in
/// docs/ktls-recursion.md, "Frame sizes"), except `entry_SYSCALL_64`'s exact `pt_regs`.
/// `close()` only drops the file reference; the last `fput` defers `__fput` to task work,
/// which runs on the way back to user space — hence `exit_to_usermode_loop` (5.1 naming).
pub const SYSCALL_PATH: &[(Func, u64)] = &[
    (Func::EntrySyscall64, PT_REGS_BYTES),
    (Func::DoSyscall64, 16),
    (Func::ExitToUsermodeLoop, 32),
    (Func::TaskWorkRun, 40),
    (Func::Fput, 48),
    (Func::SockClose, 8),
    (Func::SockRelease, 24),
    (Func::InetRelease, 24),
    (Func::TlsSkProtoClose, 56),
    (Func::TcpClose, 48),
    (Func::TcpDisconnect, 48),
];

/// Frame sizes of the free path (all in bytes), for the seed's kernel (5.1.0-rc2, x86_64).
///
/// How we got them: we had no binary of that build. This machine's kernel (6.18) exposes BTF
/// (`/sys/kernel/btf/vmlinux`), which describes types but carries no frame sizes, and has no
/// vmlinux, System.map or `-fstack-usage` output to read (`/boot` is empty); we did not read
/// kernel memory, and a 6.18 build would not be 5.1's anyway (`kfree_skb` became
/// `kfree_skb_reason` in 5.17). We found no published `checkstack.pl` or `-fstack-usage`
/// figures for these functions. So every size except `free_one_page`'s is ours: a return
/// address plus the callee-saved registers (`rbx`, `rbp`, `r12`–`r15`) a function of that
/// shape keeps live across its calls, in an -O2 build without frame pointers (ORC). The
/// per-level pair (`kfree_skb` + `skb_release_data`) was picked so that 16 KiB holds about
/// the 249 levels we count in the seed: two constants FITTED to that one number, which
/// `skblab validate` counts (table `seed004-ktls`, verdict fit, over the fitting budget);
/// the seed's depth is therefore no test of them (docs/ktls-recursion.md, "Frame sizes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameSizes {
    /// `kfree_skb` (net/core/skbuff.c, 5.1) with `__kfree_skb` and `skb_release_all` inlined
    /// into it: FITTED (with `skb_release_data_bytes`) to the seed's depth; read as a return
    /// address + 2 saved registers (the skb across
    /// `skb_release_all` → `kfree_skbmem`, one scratch), 24 B; range 16–40 B.
    pub kfree_skb_bytes: u64,
    /// `skb_release_data` (net/core/skbuff.c, 5.1) with `kfree_skb_list` inlined: FITTED
    /// (with `kfree_skb_bytes`) to the seed's depth; read as a return address + 4 saved
    /// registers (skb, shinfo, the frag index, the list cursor),
    /// 40 B; range 32–56 B. The seed's stale "? skb_release_data+0xad" word inside every
    /// level hints at one more slot (so more likely above 40 than below).
    pub skb_release_data_bytes: u64,
    /// What each of `__kfree_skb`, `skb_release_all` and `kfree_skb_list` costs inside the
    /// recursion; 0 = inlined, as the seed's trace shows (only `kfree_skb` /
    /// `skb_release_data` lines per level).
    pub inlined_bytes: u64,
    /// The out-of-line `__kfree_skb` that `tcp_disconnect` calls (the seed prints
    /// `__kfree_skb+0xe/0x20`: a 32-byte function): ASSUMED return address + 1 register.
    pub root_kfree_skb_bytes: u64,
    /// `__free_pages_ok` (mm/page_alloc.c, 5.1), reached from the frag-unref loop through
    /// `put_page` → `__put_page` → `free_compound_page`, which end in tail calls and leave
    /// no frame: ASSUMED return address + 5 saved registers, 48 B; range 32–64 B.
    pub free_pages_ok_bytes: u64,
    /// `free_one_page` (mm/page_alloc.c, 5.1), where the seed's oops faulted: its return
    /// address and the six registers its prologue pushes before +0x2b (r15, r14, r13, r12,
    /// rbp, rbx: the `41 57`, `41 56`, `41 55`, `41 54`, `55`, `53` bytes of the seed's Code:
    /// line), 56 B. The one frame size read off the seed itself (a lower bound: the Code:
    /// line is cut before any `sub rsp`).
    pub free_one_page_bytes: u64,
    /// 0 = the [`SYSCALL_PATH`] table; otherwise one frame of this size stands for it.
    pub syscall_path_bytes: u64,
}

impl Default for FrameSizes {
    fn default() -> Self {
        FrameSizes {
            kfree_skb_bytes: 24,
            skb_release_data_bytes: 40,
            inlined_bytes: 0,
            root_kfree_skb_bytes: 16,
            free_pages_ok_bytes: 48,
            free_one_page_bytes: 56,
            syscall_path_bytes: 0,
        }
    }
}

impl FrameSizes {
    /// Bytes a frame of `f` takes inside the free recursion.
    pub fn bytes(&self, f: Func) -> u64 {
        match f {
            Func::KfreeSkb => self.kfree_skb_bytes,
            Func::SkbReleaseData => self.skb_release_data_bytes,
            Func::KfreeSkbInner | Func::SkbReleaseAll | Func::KfreeSkbList | Func::SkbQueuePurge => self.inlined_bytes,
            Func::FreePagesOk => self.free_pages_ok_bytes,
            Func::FreeOnePage => self.free_one_page_bytes,
            other => SYSCALL_PATH.iter().find(|(g, _)| *g == other).map(|(_, b)| *b).unwrap_or(self.syscall_path_bytes),
        }
    }

    /// Stack bytes of one nesting level of the recursive free:
    /// kfree_skb → __kfree_skb → skb_release_all → skb_release_data → kfree_skb_list.
    pub fn per_level_bytes(&self) -> u64 {
        self.kfree_skb_bytes + self.skb_release_data_bytes + 3 * self.inlined_bytes
    }

    /// The frames below the free walk, outermost first.
    pub fn base_frames(&self) -> Vec<StackEntry> {
        if self.syscall_path_bytes != 0 {
            return vec![StackEntry::new(Func::SyscallPathByHand, self.syscall_path_bytes)];
        }
        SYSCALL_PATH.iter().map(|&(f, b)| StackEntry::new(f, b)).collect()
    }

    pub fn base_bytes(&self) -> u64 {
        self.base_frames().iter().map(|e| e.frame_bytes).sum()
    }

    /// How many whole nesting levels fit above the base and the root `__kfree_skb` frame. A
    /// level whose skbs carry page frags frees them before it recurses, so its deepest point
    /// is the leaf `__free_pages_ok` → `free_one_page` on top of it (`leaf_frees`); without
    /// frags there is no leaf.
    pub fn levels_fit(&self, thread_size_bytes: u64, leaf_frees: bool) -> u64 {
        let leaf = if leaf_frees { self.free_pages_ok_bytes + self.free_one_page_bytes } else { 0 };
        let below = self.base_bytes() + self.root_kfree_skb_bytes + leaf;
        let per_level = self.per_level_bytes().max(1);
        thread_size_bytes.saturating_sub(below) / per_level
    }
}

/// One frame on the stack, as the web app and the oops show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackEntry {
    #[serde(deserialize_with = "function_name")]
    pub function: Symbol,
    pub frame_bytes: u64,
}

impl StackEntry {
    pub fn new(f: Func, frame_bytes: u64) -> Self {
        StackEntry { function: f.name(), frame_bytes }
    }
}
