//! The kernel the facts are checked against: the running one ([`Live`]: /proc/sys, a scratch
//! network namespace, pahole on /sys/kernel/btf/vmlinux) or a stand-in ([`Fake`]) for the
//! tests of the checker itself.
//!
//! A write to a sysctl is always undone. A per-netns sysctl is written in a network namespace
//! of its own (`unshare -n`), which dies with the write. A global one (`net.core.mem_pcpu_rsv`
//! and the other `net_core_table` entries live only in the initial namespace) is read, written,
//! read back and restored while this process holds an exclusive lock on [`LOCK`], so tests
//! running at once (threads of this binary, or another run of it) never race on it, and the
//! old value is restored also when the test panics.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::process::Command;

/// Serialises the global sysctl writes of every run of these tests on the machine.
const LOCK: &str = "/tmp/skblab-kernel-facts.lock";
pub const BTF: &str = "/sys/kernel/btf/vmlinux";

/// A kernel release, major.minor (`6.18` of `6.18.44-fc-v1272`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release(pub u32, pub u32);

impl Release {
    /// The major.minor of a `uname -r` text.
    pub fn parse(text: &str) -> Option<Release> {
        let mut it = text.trim().split(|c: char| !c.is_ascii_digit());
        Some(Release(it.next()?.parse().ok()?, it.next()?.parse().ok()?))
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// What a kernel answers to a write of a sysctl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Accepted,
    /// The kernel's error (`Invalid argument`), or what it read back instead of the value.
    Rejected(String),
}

/// What the checks need of a kernel.
pub trait Kernel {
    fn release(&self) -> Release;
    fn page_size_bytes(&self) -> u64;
    /// Whether the sysctl (`net.core.mem_pcpu_rsv`) exists.
    fn has(&self, sysctl: &str) -> bool;
    /// Writes `sysctl = value` and puts the old value back: the kernel's answer to the write.
    fn try_write(&self, sysctl: &str, value: i64) -> Answer;
}

/// A line on the test's stderr that libtest does not capture: the reader of `make test` sees
/// what was skipped and why, also when the test passes.
pub fn note(line: &str) {
    let _ = writeln!(std::io::stderr(), "kernel facts: {line}");
}

fn proc_path(sysctl: &str) -> String {
    format!("/proc/sys/{}", sysctl.replace('.', "/"))
}

/// The running kernel, where the checks can write sysctls.
pub struct Live {
    release: Release,
    page_size_bytes: u64,
    /// Whether `unshare -n` works (else a per-netns sysctl is written and restored in place).
    netns: bool,
}

impl Live {
    /// The running kernel, or why the checks cannot run here (one line).
    pub fn open() -> Result<Live, String> {
        if !cfg!(target_os = "linux") {
            return Err("not Linux (the facts are Linux sysctls and BTF)".into());
        }
        let osrelease =
            std::fs::read_to_string("/proc/sys/kernel/osrelease").map_err(|e| format!("no /proc/sys ({e})"))?;
        let release = Release::parse(&osrelease).ok_or_else(|| format!("unreadable release '{}'", osrelease.trim()))?;
        if effective_uid()? != 0 {
            return Err("not root (the checks write sysctls and restore them)".into());
        }
        // A global net.core sysctl since 2.x: absent when this process is in another network
        // namespace (a container), where the initial namespace's sysctls cannot be seen.
        let probe = proc_path("net.core.netdev_max_backlog");
        if !std::path::Path::new(&probe).exists() {
            return Err("not in the initial network namespace: its net.core sysctls are not visible".into());
        }
        OpenOptions::new().write(true).open(&probe).map_err(|e| format!("cannot write /proc/sys ({e})"))?;
        let page_size_bytes = page_size_bytes()?;
        let netns = Command::new("unshare").args(["-n", "true"]).status().is_ok_and(|s| s.success());
        if !netns {
            note("unshare -n failed: per-netns sysctls are written in place and restored");
        }
        Ok(Live { release, page_size_bytes, netns })
    }

    /// Whether the sysctl exists in a fresh network namespace too (it is per-netns).
    fn per_netns(&self, sysctl: &str) -> bool {
        self.netns
            && Command::new("unshare")
                .args(["-n", "test", "-e", &proc_path(sysctl)])
                .status()
                .is_ok_and(|s| s.success())
    }

    /// The write in a scratch network namespace: `tee` reports the kernel's error.
    fn try_in_scratch_netns(&self, sysctl: &str, value: i64) -> Answer {
        let script = r#"printf '%s\n' "$2" | tee "$1" >/dev/null && cat "$1""#;
        let out = Command::new("unshare")
            .args(["-n", "sh", "-c", script, "sh", &proc_path(sysctl), &value.to_string()])
            .output()
            .unwrap_or_else(|e| panic!("cannot run unshare -n ({e})"));
        if out.status.success() {
            read_back(value, &String::from_utf8_lossy(&out.stdout))
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            Answer::Rejected(err.trim().rsplit(": ").next().unwrap_or("").to_string())
        }
    }

    /// The write in the initial namespace, under [`LOCK`], restored by [`Restore`].
    fn try_global(&self, sysctl: &str, value: i64) -> Answer {
        let lock = File::create(LOCK).unwrap_or_else(|e| panic!("cannot create {LOCK}: {e}"));
        lock.lock().unwrap_or_else(|e| panic!("cannot lock {LOCK}: {e}"));
        let path = proc_path(sysctl);
        let old = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let restore = Restore { path: path.clone(), old: old.trim().to_string() };
        let answer = match std::fs::write(&path, format!("{value}\n")) {
            Ok(()) => read_back(value, &std::fs::read_to_string(&path).unwrap_or_default()),
            Err(e) => Answer::Rejected(os_error(&e)),
        };
        restore.now();
        answer
    }
}

impl Kernel for Live {
    fn release(&self) -> Release {
        self.release
    }

    fn page_size_bytes(&self) -> u64 {
        self.page_size_bytes
    }

    fn has(&self, sysctl: &str) -> bool {
        std::path::Path::new(&proc_path(sysctl)).exists()
    }

    fn try_write(&self, sysctl: &str, value: i64) -> Answer {
        if self.per_netns(sysctl) {
            self.try_in_scratch_netns(sysctl, value)
        } else {
            self.try_global(sysctl, value)
        }
    }
}

/// Puts a global sysctl's old value back: explicitly ([`Restore::now`], which checks it), or
/// on drop if the test panicked in between.
struct Restore {
    path: String,
    old: String,
}

impl Restore {
    fn now(self) {
        let back = std::fs::write(&self.path, format!("{}\n", self.old)).map(|()| std::fs::read_to_string(&self.path));
        let now = back.ok().and_then(Result::ok).map(|s| s.trim().to_string());
        assert_eq!(
            now.as_deref(),
            Some(self.old.as_str()),
            "could not restore {} to '{}': restore it by hand",
            self.path,
            self.old
        );
        std::mem::forget(self);
    }
}

impl Drop for Restore {
    fn drop(&mut self) {
        if std::fs::write(&self.path, format!("{}\n", self.old)).is_err() {
            note(&format!("could not restore {} to '{}': restore it by hand", self.path, self.old));
        }
    }
}

/// What the kernel keeps after an accepted write: the value, or a rejection saying what it
/// keeps instead (a handler may clamp silently).
fn read_back(value: i64, text: &str) -> Answer {
    match text.trim().parse::<i64>() {
        Ok(v) if v == value => Answer::Accepted,
        _ => Answer::Rejected(format!("accepted, but reads back '{}'", text.trim())),
    }
}

/// `Invalid argument` of `Invalid argument (os error 22)`.
fn os_error(e: &std::io::Error) -> String {
    let text = e.to_string();
    text.split(" (os error").next().unwrap_or(&text).to_string()
}

/// The effective uid, from /proc/self/status (`Uid: real effective saved fs`).
fn effective_uid() -> Result<u32, String> {
    let status = std::fs::read_to_string("/proc/self/status").map_err(|e| format!("no /proc/self/status ({e})"))?;
    let line = status.lines().find(|l| l.starts_with("Uid:")).ok_or("no Uid: line in /proc/self/status")?;
    line.split_whitespace().nth(2).and_then(|u| u.parse().ok()).ok_or_else(|| "unreadable Uid: line".into())
}

/// The running kernel's page size (`getconf PAGESIZE`).
pub fn page_size_bytes() -> Result<u64, String> {
    let page = Command::new("getconf").arg("PAGESIZE").output().map_err(|e| format!("no getconf ({e})"))?;
    String::from_utf8_lossy(&page.stdout).trim().parse().map_err(|_| "getconf printed no page size".into())
}

/// `pahole -C <name>` of the running kernel's BTF, or why not (one line).
pub fn pahole(name: &str) -> Result<String, String> {
    if !std::path::Path::new(BTF).exists() {
        return Err(format!("no {BTF} (a kernel without CONFIG_DEBUG_INFO_BTF)"));
    }
    let out = Command::new("pahole")
        .args(["-C", name, BTF])
        .output()
        .map_err(|e| format!("cannot run pahole ({e}; apt-get install dwarves)"))?;
    if !out.status.success() || out.stdout.is_empty() {
        return Err(format!("pahole -C {name} {BTF} printed nothing"));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A stand-in kernel: the listed sysctls exist and take the values in their ranges, and
/// reject the rest with `Invalid argument`, as `proc_dointvec_minmax` does.
pub struct Fake {
    pub release: Release,
    pub page_size_bytes: u64,
    pub ranges: BTreeMap<&'static str, (i64, i64)>,
}

impl Kernel for Fake {
    fn release(&self) -> Release {
        self.release
    }

    fn page_size_bytes(&self) -> u64 {
        self.page_size_bytes
    }

    fn has(&self, sysctl: &str) -> bool {
        self.ranges.contains_key(sysctl)
    }

    fn try_write(&self, sysctl: &str, value: i64) -> Answer {
        match self.ranges.get(sysctl) {
            Some((min, max)) if (*min..=*max).contains(&value) => Answer::Accepted,
            Some(_) => Answer::Rejected("Invalid argument".into()),
            None => Answer::Rejected("No such file or directory".into()),
        }
    }
}
