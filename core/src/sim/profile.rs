//! Simulated CPU time attributed to kernel call chains, printed like `perf report`.
//!
//! What perf does: samples the running call stack at a fixed rate and reports the share of
//! samples per symbol with its call chain. What we do: every nanosecond a simulated thread
//! spends (working, spinning on a lock, holding one) is charged exactly to one [`Stack`],
//! so the "report" has no sampling noise. Chains are written outermost first, with the names
//! of a 5.2-era x86_64 kernel so they can be grepped.

use serde::Serialize;
use std::fmt::Write as _;

/// The call chains the TCP_STREAM model charges time to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Stack {
    SendSyscall,
    CopyFromUser,
    FragFill,
    PcpAlloc,
    RmqueueBulk,
    RmqueueBulkSpin,
    Rmqueue,
    RmqueueSpin,
    PutPage,
    FreeUnrefPage,
    FreePcpBulk,
    FreePcpBulkSpin,
    FreeOnePage,
    FreeOnePageSpin,
    TcpTransmit,
    Wakeup,
    RecvSyscall,
    CopyToUser,
    CopyFrag,
    Schedule,
}

pub const N_STACKS: usize = 20;

pub const ALL_STACKS: [Stack; N_STACKS] = [
    Stack::SendSyscall,
    Stack::CopyFromUser,
    Stack::FragFill,
    Stack::PcpAlloc,
    Stack::RmqueueBulk,
    Stack::RmqueueBulkSpin,
    Stack::Rmqueue,
    Stack::RmqueueSpin,
    Stack::PutPage,
    Stack::FreeUnrefPage,
    Stack::FreePcpBulk,
    Stack::FreePcpBulkSpin,
    Stack::FreeOnePage,
    Stack::FreeOnePageSpin,
    Stack::TcpTransmit,
    Stack::Wakeup,
    Stack::RecvSyscall,
    Stack::CopyToUser,
    Stack::CopyFrag,
    Stack::Schedule,
];

const ALLOC: &str = "skb_page_frag_refill;alloc_pages_current;__alloc_pages_nodemask;get_page_from_freelist";
const FREE: &str = "put_page;__put_page";

impl Stack {
    /// The chain below the syscall, outermost first, `;`-separated (the leaf is last).
    pub fn chain(self) -> String {
        let s = match self {
            Stack::SendSyscall => "tcp_sendmsg".to_string(),
            Stack::CopyFromUser => "tcp_sendmsg;_copy_from_iter_full;copy_user_enhanced_fast_string".to_string(),
            Stack::FragFill => "tcp_sendmsg;skb_fill_page_desc".to_string(),
            Stack::PcpAlloc => format!("tcp_sendmsg;{ALLOC};rmqueue;rmqueue_pcplist"),
            Stack::RmqueueBulk => format!("tcp_sendmsg;{ALLOC};rmqueue;rmqueue_pcplist;rmqueue_bulk"),
            Stack::RmqueueBulkSpin => {
                format!("tcp_sendmsg;{ALLOC};rmqueue;rmqueue_pcplist;rmqueue_bulk;_raw_spin_lock;queued_spin_lock_slowpath")
            }
            Stack::Rmqueue => format!("tcp_sendmsg;{ALLOC};rmqueue;__rmqueue_smallest"),
            Stack::RmqueueSpin => format!("tcp_sendmsg;{ALLOC};rmqueue;_raw_spin_lock_irqsave;queued_spin_lock_slowpath"),
            Stack::PutPage => "put_page".to_string(),
            Stack::FreeUnrefPage => format!("{FREE};free_unref_page"),
            Stack::FreePcpBulk => format!("{FREE};free_unref_page;free_unref_page_commit;free_pcppages_bulk"),
            Stack::FreePcpBulkSpin => format!(
                "{FREE};free_unref_page;free_unref_page_commit;free_pcppages_bulk;_raw_spin_lock;queued_spin_lock_slowpath"
            ),
            Stack::FreeOnePage => format!("{FREE};__free_pages_ok;free_one_page"),
            Stack::FreeOnePageSpin => format!("{FREE};__free_pages_ok;free_one_page;_raw_spin_lock;queued_spin_lock_slowpath"),
            Stack::TcpTransmit => {
                "tcp_sendmsg;tcp_push;__tcp_transmit_skb;ip_queue_xmit;loopback_xmit;do_softirq;net_rx_action;tcp_v4_rcv"
                    .to_string()
            }
            Stack::Wakeup => "sock_def_readable;__wake_up_common;try_to_wake_up".to_string(),
            Stack::RecvSyscall => "tcp_recvmsg".to_string(),
            Stack::CopyToUser => "tcp_recvmsg;skb_copy_datagram_iter;copy_user_enhanced_fast_string".to_string(),
            Stack::CopyFrag => "tcp_recvmsg;skb_copy_datagram_iter".to_string(),
            Stack::Schedule => "schedule;__schedule".to_string(),
        };
        s
    }

    /// The innermost function.
    pub fn symbol(self) -> String {
        self.chain().rsplit(';').next().unwrap_or_default().to_string()
    }

    pub fn is_spin(self) -> bool {
        matches!(self, Stack::RmqueueBulkSpin | Stack::RmqueueSpin | Stack::FreePcpBulkSpin | Stack::FreeOnePageSpin)
    }
}

/// Nanoseconds per (command, stack). Command 0 = netperf (sender), 1 = netserver (receiver).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    ns: [[u64; N_STACKS]; 2],
}

pub const COMMANDS: [&str; 2] = ["netperf", "netserver"];

/// One line of the report, as data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileEntry {
    pub command: &'static str,
    pub symbol: String,
    /// Outermost first.
    pub chain: Vec<String>,
    pub ns: u64,
    pub pct: f64,
}

/// The whole report, as data (the web draws it; `text` is the perf-style rendering).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProfileReport {
    pub title: String,
    pub total_ns: u64,
    /// Share of all charged time spent in queued_spin_lock_slowpath.
    pub spin_pct: f64,
    pub entries: Vec<ProfileEntry>,
    pub text: String,
}

impl Profile {
    pub fn add(&mut self, command: usize, stack: Stack, ns: u64) {
        self.ns[command][stack as usize] += ns;
    }

    pub fn total_ns(&self) -> u64 {
        self.ns.iter().flatten().sum()
    }

    pub fn report(&self, title: String) -> ProfileReport {
        let total_ns = self.total_ns().max(1);
        let mut entries: Vec<ProfileEntry> = Vec::new();
        for (c, command) in COMMANDS.iter().enumerate() {
            for s in ALL_STACKS {
                let ns = self.ns[c][s as usize];
                if ns > 0 {
                    let chain = s.chain().split(';').map(str::to_string).collect();
                    entries.push(ProfileEntry {
                        command,
                        symbol: s.symbol(),
                        chain,
                        ns,
                        pct: ns as f64 * 100.0 / total_ns as f64,
                    });
                }
            }
        }
        entries.sort_by(|a, b| b.ns.cmp(&a.ns).then(a.command.cmp(b.command)).then(a.chain.cmp(&b.chain)));
        let spin_ns: u64 =
            ALL_STACKS.iter().filter(|s| s.is_spin()).map(|&s| self.ns[0][s as usize] + self.ns[1][s as usize]).sum();
        let spin_pct = spin_ns as f64 * 100.0 / total_ns as f64;
        let text = render(&title, &entries, spin_pct);
        ProfileReport { title, total_ns, spin_pct, entries, text }
    }
}

fn render(title: &str, entries: &[ProfileEntry], spin_pct: f64) -> String {
    let mut s = format!("# {title}\n# Event: simulated cpu-clock (every ns charged, no sampling)\n#\n");
    let _ = writeln!(s, "# Overhead  Command    Symbol");
    let _ = writeln!(s, "# ........  .........  ......");
    for e in entries.iter().filter(|e| e.pct >= 0.05) {
        let _ = writeln!(s, "{:>9.2}%  {:<9}  [k] {}", e.pct, e.command, e.symbol);
        let callers: Vec<&str> = e.chain.iter().rev().skip(1).map(String::as_str).collect();
        if !callers.is_empty() {
            let _ = writeln!(s, "{:>24}|", "");
            let _ = writeln!(s, "{:>24}---{}", "", callers.join("\n                           "));
        }
    }
    let _ = writeln!(s, "#\n# queued_spin_lock_slowpath (all callers): {spin_pct:.2}%");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_sorts_and_sums() {
        let mut p = Profile::default();
        p.add(0, Stack::CopyFromUser, 300);
        p.add(1, Stack::FreeOnePageSpin, 100);
        let r = p.report("t".into());
        assert_eq!(r.entries[0].symbol, "copy_user_enhanced_fast_string");
        assert_eq!(r.entries[1].symbol, "queued_spin_lock_slowpath");
        assert!((r.spin_pct - 25.0).abs() < 1e-9);
        assert_eq!(Stack::FreeOnePage.symbol(), "free_one_page");
    }
}
