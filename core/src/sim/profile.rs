//! Simulated CPU time attributed to kernel call chains, printed like `perf report`.
//!
//! What perf does: samples the running call stack at a fixed rate and reports the share of
//! samples per symbol with its call chain. What we do: every nanosecond a simulated thread
//! spends (working, spinning on a lock, holding one) is charged exactly to one call chain,
//! so the "report" has no sampling noise. Each world declares its own chains ([`CallChains`],
//! `call_chains!`), outermost first, with the names of a 5.2-era x86_64 kernel so they can
//! be grepped.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::marker::PhantomData;

/// A world's call chains: the commands (processes) it charges time to and every chain it
/// names, in a fixed order. Declare one with `call_chains!`: an enum whose variants index
/// `CHAINS`, so no length is ever counted by hand.
pub trait CallChains: Copy + 'static {
    /// Command names, e.g. `["netperf", "netserver"]`; `Profile::add` takes an index here.
    const COMMANDS: &'static [&'static str];
    /// Each chain outermost first, `;`-separated (the leaf is last), in variant order.
    const CHAINS: &'static [&'static str];

    fn index(self) -> usize;

    /// The chain below the syscall, outermost first.
    fn chain(self) -> &'static str {
        Self::CHAINS[self.index()]
    }

    /// The innermost function.
    fn symbol(self) -> &'static str {
        leaf(self.chain())
    }
}

/// The innermost function of a `;`-separated chain.
pub fn leaf(chain: &'static str) -> &'static str {
    chain.rsplit(';').next().unwrap_or_default()
}

/// The symbol whose share the report totals as lock spinning.
pub const SPIN_SYMBOL: &str = "queued_spin_lock_slowpath";

/// Declares a world's call chains: `call_chains! { pub enum Stack for ["cmd", ...] { Variant
/// => "outer;...;leaf", ... } }` gives the enum and its [`CallChains`] impl.
macro_rules! call_chains {
    ($(#[$meta:meta])* $vis:vis enum $name:ident for [$($cmd:literal),+ $(,)?] {
        $($(#[$vmeta:meta])* $variant:ident => $chain:expr),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $crate::sim::profile::CallChains for $name {
            const COMMANDS: &'static [&'static str] = &[$($cmd),+];
            const CHAINS: &'static [&'static str] = &[$($chain),+];

            fn index(self) -> usize {
                self as usize
            }
        }
    };
}
pub(crate) use call_chains;

/// Nanoseconds per (command, chain) of the world's [`CallChains`] `S`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(bound = "")]
pub struct Profile<S> {
    /// `COMMANDS.len()` rows of `CHAINS.len()` counters.
    ns: Vec<u64>,
    chains: PhantomData<S>,
}

impl<S: CallChains> Default for Profile<S> {
    fn default() -> Self {
        Profile { ns: vec![0; S::COMMANDS.len() * S::CHAINS.len()], chains: PhantomData }
    }
}

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

impl<S: CallChains> Profile<S> {
    /// Charges `ns` to `command` (an index into `S::COMMANDS`) in `stack`.
    pub fn add(&mut self, command: usize, stack: S, ns: u64) {
        self.ns[command * S::CHAINS.len() + stack.index()] += ns;
    }

    pub fn total_ns(&self) -> u64 {
        self.ns.iter().sum()
    }

    /// ns charged to any of `stacks`, over all commands.
    pub fn ns_of(&self, stacks: &[S]) -> u64 {
        let n = S::CHAINS.len();
        (0..S::COMMANDS.len()).map(|c| stacks.iter().map(|s| self.ns[c * n + s.index()]).sum::<u64>()).sum()
    }

    /// ns of the chains whose innermost function is `symbol`, over all commands.
    pub fn leaf_ns(&self, symbol: &str) -> u64 {
        let n = S::CHAINS.len();
        self.ns.iter().enumerate().filter(|&(i, _)| leaf(S::CHAINS[i % n]) == symbol).map(|(_, &ns)| ns).sum()
    }

    pub fn report(&self, title: String) -> ProfileReport {
        let total_ns = self.total_ns().max(1);
        let mut entries: Vec<ProfileEntry> = Vec::new();
        let n = S::CHAINS.len();
        for (c, command) in S::COMMANDS.iter().enumerate() {
            for (i, &chain) in S::CHAINS.iter().enumerate() {
                let ns = self.ns[c * n + i];
                if ns > 0 {
                    entries.push(ProfileEntry {
                        command,
                        symbol: leaf(chain).to_string(),
                        chain: chain.split(';').map(str::to_string).collect(),
                        ns,
                        pct: ns as f64 * 100.0 / total_ns as f64,
                    });
                }
            }
        }
        entries.sort_by(|a, b| b.ns.cmp(&a.ns).then(a.command.cmp(b.command)).then(a.chain.cmp(&b.chain)));
        let spin_pct = self.leaf_ns(SPIN_SYMBOL) as f64 * 100.0 / total_ns as f64;
        let text = render(&title, &entries, spin_pct);
        ProfileReport { title, total_ns, spin_pct, entries, text }
    }
}

impl ProfileReport {
    /// The report as folded stacks for a flame graph (`id` is what a
    /// [`crate::ViewSpec::Flame`] names): one stack per entry, the command as the root frame.
    pub fn flame(&self, id: &str, title: impl Into<String>) -> FlameGraph {
        let stacks = self
            .entries
            .iter()
            .map(|e| FoldedStack {
                frames: std::iter::once(e.command.to_string()).chain(e.chain.iter().cloned()).collect(),
                ns: e.ns,
            })
            .collect();
        FlameGraph { id: id.to_string(), title: title.into(), stacks }
    }
}

/// One call stack and the time charged to it, root first (a line of Brendan Gregg's folded
/// format, `root;...;leaf ns`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoldedStack {
    pub frames: Vec<String>,
    pub ns: u64,
}

/// A profile as data for the generic flame-graph view: any world with a [`Profile`] gets one
/// from [`ProfileReport::flame`] and puts it into [`crate::RunOutput::flames`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlameGraph {
    /// Named by [`crate::ViewSpec::Flame`].
    pub id: String,
    pub title: String,
    pub stacks: Vec<FoldedStack>,
}

/// One box of a flame graph: a frame in the merged call tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlameNode {
    pub name: String,
    /// 0 for the roots (commands).
    pub depth: u32,
    /// Where the box starts, in ns from the left edge (children sorted by name, as
    /// flamegraph.pl does, so the picture does not depend on the order of the stacks).
    pub start_ns: u64,
    /// Time in this frame and everything it calls.
    pub ns: u64,
    /// Index of the parent box in [`FlameGraph::nodes`] (`None` for a root).
    pub parent: Option<u32>,
}

impl FlameGraph {
    /// One graph of several (e.g. one per CPU): each part's stacks under a root frame named
    /// by its label, as `perf report --sort cpu` would split them.
    pub fn nest(id: &str, title: impl Into<String>, parts: Vec<(String, FlameGraph)>) -> FlameGraph {
        let stacks = parts
            .into_iter()
            .flat_map(|(label, g)| {
                g.stacks.into_iter().map(move |s| FoldedStack {
                    frames: std::iter::once(label.clone()).chain(s.frames).collect(),
                    ns: s.ns,
                })
            })
            .collect();
        FlameGraph { id: id.to_string(), title: title.into(), stacks }
    }

    pub fn total_ns(&self) -> u64 {
        self.stacks.iter().map(|s| s.ns).sum()
    }

    /// Share in percent of all time of the stacks that pass through `symbol` (perf report
    /// --children: a frame's own time plus its callees', each stack counted once).
    pub fn share_pct(&self, symbol: &str) -> f64 {
        self.share_under_pct(&[], symbol)
    }

    /// Like [`FlameGraph::share_pct`], but only stacks that also pass through every frame
    /// of `under` (e.g. the spinning under `napi_consume_skb`). In percent of all time.
    pub fn share_under_pct(&self, under: &[&str], symbol: &str) -> f64 {
        let has = |s: &FoldedStack, f: &str| s.frames.iter().any(|x| x == f);
        let ns: u64 =
            self.stacks.iter().filter(|s| has(s, symbol) && under.iter().all(|u| has(s, u))).map(|s| s.ns).sum();
        ns as f64 * 100.0 / self.total_ns().max(1) as f64
    }

    /// Time in `symbol` itself (the stacks whose leaf it is), in percent of all time.
    pub fn self_pct(&self, symbol: &str) -> f64 {
        let ns: u64 = self.stacks.iter().filter(|s| s.frames.last().is_some_and(|l| l == symbol)).map(|s| s.ns).sum();
        ns as f64 * 100.0 / self.total_ns().max(1) as f64
    }

    /// The merged call tree, parents before children, siblings sorted by name: what a flame
    /// graph draws (x = `start_ns`, width = `ns`, row = `depth`).
    pub fn nodes(&self) -> Vec<FlameNode> {
        let mut stacks: Vec<&FoldedStack> = self.stacks.iter().filter(|s| s.ns > 0).collect();
        stacks.sort_by(|a, b| a.frames.cmp(&b.frames));
        let mut nodes: Vec<FlameNode> = Vec::new();
        // The open path: node indexes of the previous stack's frames.
        let mut path: Vec<u32> = Vec::new();
        let mut x_ns = 0;
        for s in stacks {
            let common = path.iter().zip(&s.frames).take_while(|(&i, f)| nodes[i as usize].name == **f).count();
            path.truncate(common);
            for (depth, name) in s.frames.iter().enumerate().skip(common) {
                let parent = path.last().copied();
                // A new child starts where its parent's children so far end.
                let start_ns = match parent {
                    Some(p) => x_ns.max(nodes[p as usize].start_ns),
                    None => x_ns,
                };
                nodes.push(FlameNode { name: name.clone(), depth: depth as u32, start_ns, ns: 0, parent });
                path.push(nodes.len() as u32 - 1);
            }
            for &i in &path {
                nodes[i as usize].ns += s.ns;
            }
            x_ns += s.ns;
        }
        nodes
    }

    /// The folded-stack text (`frame;frame;leaf ns` per line), the format flamegraph.pl and
    /// speedscope read: the text alternative of the picture.
    pub fn folded(&self) -> String {
        self.stacks.iter().map(|s| format!("{} {}\n", s.frames.join(";"), s.ns)).collect()
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

    call_chains! {
        enum Demo for ["writer", "reader"] {
            Copy => "sys_write;copy_user_enhanced_fast_string",
            Free => "put_page;free_one_page",
            FreeSpin => "put_page;free_one_page;_raw_spin_lock;queued_spin_lock_slowpath",
        }
    }

    #[test]
    fn report_sorts_and_sums() {
        let mut p = Profile::<Demo>::default();
        p.add(0, Demo::Copy, 300);
        p.add(1, Demo::FreeSpin, 100);
        let r = p.report("t".into());
        assert_eq!(r.entries[0].symbol, "copy_user_enhanced_fast_string");
        assert_eq!(r.entries[1].symbol, "queued_spin_lock_slowpath");
        assert_eq!(r.entries[1].command, "reader");
        assert!((r.spin_pct - 25.0).abs() < 1e-9);
        assert_eq!(Demo::Free.symbol(), "free_one_page");
        assert_eq!(Demo::CHAINS.len(), 3);
    }

    #[test]
    fn flame_tree_merges_common_prefixes() {
        let mut p = Profile::<Demo>::default();
        p.add(0, Demo::Copy, 300);
        p.add(1, Demo::Free, 50);
        p.add(1, Demo::FreeSpin, 100);
        let f = p.report("t".into()).flame("before", "t");
        assert_eq!(f.total_ns(), 450);
        assert!((f.share_pct("free_one_page") - 150.0 * 100.0 / 450.0).abs() < 1e-9);
        assert!((f.share_under_pct(&["reader"], "queued_spin_lock_slowpath") - 100.0 * 100.0 / 450.0).abs() < 1e-9);
        assert!((f.self_pct("free_one_page") - 50.0 * 100.0 / 450.0).abs() < 1e-9);
        let n = f.nodes();
        let names: Vec<(&str, u32, u64, u64)> =
            n.iter().map(|x| (x.name.as_str(), x.depth, x.start_ns, x.ns)).collect();
        assert_eq!(
            names,
            vec![
                ("reader", 0, 0, 150),
                ("put_page", 1, 0, 150),
                ("free_one_page", 2, 0, 150),
                ("_raw_spin_lock", 3, 50, 100),
                ("queued_spin_lock_slowpath", 4, 50, 100),
                ("writer", 0, 150, 300),
                ("sys_write", 1, 150, 300),
                ("copy_user_enhanced_fast_string", 2, 150, 300),
            ]
        );
        assert_eq!(n[4].parent, Some(3));
        assert_eq!(p.ns_of(&[Demo::Free, Demo::Copy]), 350);
        assert_eq!(p.leaf_ns(SPIN_SYMBOL), 100);
        let two = FlameGraph::nest("cpus", "t", vec![("cpu0".into(), f.clone()), ("cpu1".into(), f.clone())]);
        assert_eq!(two.total_ns(), 900);
        assert_eq!((two.stacks[0].frames[0].as_str(), two.stacks[3].frames[0].as_str()), ("cpu0", "cpu1"));
        assert_eq!(two.stacks[0].frames[1..], f.stacks[0].frames[..]);
        assert!(f.folded().lines().any(|l| l == "reader;put_page;free_one_page 50"), "{}", f.folded());
    }
}
