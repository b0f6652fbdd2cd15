//! The suites of `skblab measure` as data: per suite its cells (setting, the sysctl it needs,
//! the server and client command lines, how to read the result) and the texts it keeps. The
//! CLI's runner executes a plan; `--dry-run` prints it. Pure: nothing here runs anything.

/// Every suite, in the order `skblab measure --list` prints them (`all` runs them in turn).
pub const SUITES: [&str; 6] = ["layout", "stream", "udp", "rr", "state", "sched"];

/// The sysctl the stream suite switches (and restores).
pub const HOA_SYSCTL: &str = "net.core.high_order_alloc_disable";

/// How long and how often: the knobs of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Seconds per measured run (iperf3 `-t`, sockperf `-t`).
    pub seconds: u32,
    /// Runs per cell (3+ for a median with min–max).
    pub runs: u32,
    /// Flows of the stream and rr suites: 1..=max_flows.
    pub max_flows: u32,
    /// Only these send sizes (KiB) in the stream suite; empty: 4, 16 and 64.
    pub only_kib: Option<u32>,
    /// First TCP/UDP port used on 127.0.0.1.
    pub port: u16,
}

impl Default for Options {
    fn default() -> Options {
        Options { seconds: 5, runs: 3, max_flows: 2, only_kib: None, port: 5301 }
    }
}

/// How a cell's output becomes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// iperf3 `-J` TCP: received Mbit/s, summed over the clients.
    Iperf3Mbps,
    /// iperf3 `-J -u`: datagrams per second the server received, summed over the clients.
    Iperf3Pps,
    /// sockperf ping-pong: the mean of the clients' average latency, µs.
    SockperfLatencyUs,
    /// `perf bench sched pipe`: µs per round trip (its `usecs/op`).
    PerfPipeUs,
    /// The dd ring of [`RING_SCRIPT`]: µs per round trip (dd's seconds over its bytes).
    DdRingUs,
    /// `perf bench sched messaging`: µs per message (its total time over this many messages).
    PerfMessagingUs(u32),
    /// tools/wake-cost's `wake`: the median of the waker's call, µs (its `call ... p50=NS`).
    WakerCallUs,
    /// pahole `-C struct`: the struct's size, bytes.
    PaholeSize,
    /// A file or output that is one number.
    Number,
    /// /proc/zoneinfo: cpu 0's pageset `high` / `batch` in the largest zone.
    PcpHigh,
    PcpBatch,
}

/// One command line (argv).
pub type Argv = Vec<String>;

/// One cell: what to set, what to run, how to read it.
#[derive(Debug, Clone, PartialEq)]
pub struct CellPlan {
    pub id: String,
    pub metric: &'static str,
    pub unit: &'static str,
    pub setting: Vec<(&'static str, f64)>,
    /// `(name, value)` to set before the cell (restored at the end of the suite).
    pub sysctl: Option<(String, String)>,
    /// Started in the background before the clients, stopped after them.
    pub servers: Vec<Argv>,
    /// Run together; the cell's value is read from their outputs.
    pub clients: Vec<Argv>,
    pub reading: Reading,
    /// Runs of this cell (facts: 1) and whether the foreign-CPU guard applies.
    pub runs: u32,
    pub guarded: bool,
    /// Seconds after which a client is killed and the attempt fails.
    pub timeout_s: u32,
}

/// One suite: its cells and the texts it keeps (name → command or file), before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct SuitePlan {
    pub name: &'static str,
    pub before: Vec<(String, Argv)>,
    pub cells: Vec<CellPlan>,
    pub after: Vec<(String, Argv)>,
}

fn argv(words: &[&str]) -> Argv {
    words.iter().map(|w| w.to_string()).collect()
}

fn cat(path: &str) -> Argv {
    argv(&["cat", path])
}

/// The plan of `suite`, or a one-line error naming the suites.
pub fn plan(suite: &str, o: &Options) -> Result<SuitePlan, String> {
    let cells = match suite {
        "layout" => layout(),
        "stream" => stream(o),
        "udp" => udp(o),
        "rr" => rr(o),
        "state" => return Ok(state(o)),
        "sched" => return Ok(sched(o)),
        other => {
            return Err(format!(
                "unknown suite '{}': expected one of {}",
                crate::params::echo(other),
                SUITES.join(", ")
            ))
        }
    };
    Ok(SuitePlan {
        name: SUITES.iter().find(|s| **s == suite).copied().unwrap_or("layout"),
        before: vec![],
        cells,
        after: vec![],
    })
}

fn fact(id: &str, unit: &'static str, cmd: Argv, reading: Reading) -> CellPlan {
    CellPlan {
        id: id.to_string(),
        metric: "size",
        unit,
        setting: vec![],
        sysctl: None,
        servers: vec![],
        clients: vec![cmd],
        reading,
        runs: 1,
        guarded: false,
        timeout_s: 30,
    }
}

fn layout() -> Vec<CellPlan> {
    let btf = "/sys/kernel/btf/vmlinux";
    vec![
        fact("sk_buff", "bytes", argv(&["pahole", "-C", "sk_buff", btf]), Reading::PaholeSize),
        fact("skb_shared_info", "bytes", argv(&["pahole", "-C", "skb_shared_info", btf]), Reading::PaholeSize),
        fact("max_skb_frags", "frags", cat("/proc/sys/net/core/max_skb_frags"), Reading::Number),
        fact("page_size", "bytes", argv(&["getconf", "PAGESIZE"]), Reading::Number),
    ]
}

fn iperf_server(port: u16) -> Argv {
    argv(&["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", &port.to_string()])
}

/// One TCP stream cell: `flows` parallel streams (`-P`) of `kib` KiB sends at `order`.
pub fn stream_cell(o: &Options, flows: u32, kib: u32, order: u32) -> CellPlan {
    let t = o.seconds.to_string();
    let client = argv(&[
        "iperf3",
        "-c",
        "127.0.0.1",
        "-p",
        &o.port.to_string(),
        "-t",
        &t,
        "-l",
        &format!("{kib}K"),
        "-P",
        &flows.to_string(),
        "-J",
    ]);
    CellPlan {
        id: format!("tcp-{flows}flow-{kib}k-order{order}"),
        metric: "throughput",
        unit: "Mbit/s",
        setting: vec![("flows", f64::from(flows)), ("msg_bytes", f64::from(kib * 1024)), ("order", f64::from(order))],
        sysctl: Some((HOA_SYSCTL.to_string(), if order == 0 { "1" } else { "0" }.to_string())),
        servers: vec![iperf_server(o.port)],
        clients: vec![client],
        reading: Reading::Iperf3Mbps,
        runs: o.runs,
        guarded: true,
        timeout_s: o.seconds + 20,
    }
}

fn stream(o: &Options) -> Vec<CellPlan> {
    let sizes: Vec<u32> = o.only_kib.map_or(vec![4, 16, 64], |k| vec![k]);
    let mut cells = Vec::new();
    for order in [3, 0] {
        for &kib in &sizes {
            for flows in 1..=o.max_flows {
                cells.push(stream_cell(o, flows, kib, order));
            }
        }
    }
    cells
}

fn udp(o: &Options) -> Vec<CellPlan> {
    let t = o.seconds.to_string();
    let port = o.port.to_string();
    let mut cells = Vec::new();
    for bytes in [64u32, 1200] {
        for same in [true, false] {
            let (server_cpu, client_cpu) = if same { ("0", "0") } else { ("1", "0") };
            let server = argv(&["taskset", "-c", server_cpu, "iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", &port]);
            let client = argv(&[
                "taskset",
                "-c",
                client_cpu,
                "iperf3",
                "-c",
                "127.0.0.1",
                "-p",
                &port,
                "-u",
                "-b",
                "0",
                "-l",
                &bytes.to_string(),
                "-t",
                &t,
                "-J",
            ]);
            cells.push(CellPlan {
                id: format!("udp-{bytes}b-{}", if same { "same-cpu" } else { "other-cpu" }),
                metric: "datagrams",
                unit: "datagrams/s",
                setting: vec![("datagram_bytes", f64::from(bytes)), ("same_cpu", if same { 1.0 } else { 0.0 })],
                sysctl: None,
                servers: vec![server],
                clients: vec![client],
                reading: Reading::Iperf3Pps,
                runs: o.runs,
                guarded: true,
                timeout_s: o.seconds + 20,
            });
        }
    }
    cells
}

fn rr(o: &Options) -> Vec<CellPlan> {
    let t = o.seconds.to_string();
    (1..=o.max_flows)
        .map(|flows| {
            let ports: Vec<String> = (0..flows).map(|k| (o.port + 10 + k as u16).to_string()).collect();
            CellPlan {
                id: format!("tcp-rr-{flows}flow"),
                metric: "latency",
                unit: "us",
                setting: vec![("flows", f64::from(flows))],
                sysctl: None,
                servers: ports.iter().map(|p| argv(&["sockperf", "sr", "--tcp", "-i", "127.0.0.1", "-p", p])).collect(),
                clients: ports
                    .iter()
                    .map(|p| argv(&["sockperf", "pp", "--tcp", "-i", "127.0.0.1", "-p", p, "-t", &t]))
                    .collect(),
                reading: Reading::SockperfLatencyUs,
                runs: o.runs,
                guarded: true,
                timeout_s: o.seconds + 20,
            }
        })
        .collect()
}

/// Where the state suite's perf profile is written.
pub const PERF_DATA: &str = "/tmp/skblab-measure-perf.data";

fn state(o: &Options) -> SuitePlan {
    let procs = ["buddyinfo", "zoneinfo", "slabinfo"];
    let before = procs.iter().map(|p| (format!("{p}_before"), cat(&format!("/proc/{p}")))).collect();
    let mut after: Vec<(String, Argv)> =
        procs.iter().map(|p| (format!("{p}_after"), cat(&format!("/proc/{p}")))).collect();
    after.push(("perf_folded".to_string(), argv(&["perf", "script", "-i", PERF_DATA])));
    let mut run = stream_cell(&Options { runs: 1, ..*o }, 1, 64, 3);
    run.id = "tcp-1flow-64k-perf".to_string();
    run.sysctl = None;
    let t = o.seconds.to_string();
    run.clients = vec![
        run.clients[0].clone(),
        argv(&["perf", "record", "-a", "-g", "-e", "cpu-clock", "-F", "499", "-o", PERF_DATA, "--", "sleep", &t]),
    ];
    let mut pcp_high = fact("pcp-high", "pages", cat("/proc/zoneinfo"), Reading::PcpHigh);
    pcp_high.metric = "pcp";
    let mut pcp_batch = fact("pcp-batch", "pages", cat("/proc/zoneinfo"), Reading::PcpBatch);
    pcp_batch.metric = "pcp";
    SuitePlan { name: "state", before, cells: vec![pcp_high, pcp_batch, run], after }
}

/// A command line as a shell would read it (words with spaces or quotes quoted).
pub fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            if !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./,=:+".contains(c)) {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The commands of a suite in the order a run executes them (one attempt of each cell), as
/// `--dry-run` prints them and the file records them.
pub fn commands(p: &SuitePlan, original: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = p.before.iter().map(|(_, a)| shell_words(a)).collect();
    let mut changed = false;
    for c in &p.cells {
        if let Some((name, value)) = &c.sysctl {
            out.push(format!("sysctl -w {name}={value}"));
            changed = true;
        }
        out.extend(c.servers.iter().map(|s| format!("{} &", shell_words(s))));
        let together = c.clients.len() > 1;
        out.extend(c.clients.iter().map(|s| format!("{}{}", shell_words(s), if together { " &" } else { "" })));
        if together {
            out.push("wait".to_string());
        }
        if c.runs > 1 {
            out.push(format!("# ×{} runs, each repeated while foreign CPU is over the limit", c.runs));
        }
    }
    if changed {
        out.push(format!("sysctl -w {HOA_SYSCTL}={}  # restore", original.unwrap_or("<value read at start>")));
    }
    out.extend(p.after.iter().map(|(_, a)| shell_words(a)));
    out
}

/// Round trips of `perf bench sched pipe` (about 3 µs each on one CPU of a KVM guest).
pub const PIPE_LOOPS: u32 = 100_000;
/// Round trips of the dd ring (up to ~130 µs each across the vCPUs of a KVM guest: 2.6 s).
pub const RING_LOOPS: u32 = 20_000;
/// `perf bench sched messaging`'s configuration: groups and loops; each group is 20 senders
/// and 20 receivers (perf's default), every sender writes 100 bytes to every receiver of its
/// group per loop, over UNIX sockets.
pub const MESSAGING_GROUPS: u32 = 1;
pub const MESSAGING_LOOPS: u32 = 2000;
/// Messages one messaging run sends: groups × 20 senders × 20 receivers × loops.
pub const MESSAGING_MESSAGES: u32 = MESSAGING_GROUPS * 20 * 20 * MESSAGING_LOOPS;

/// Two dd processes pinned by taskset pass one byte around a ring of two FIFOs: `$2` echoes on
/// its CPU, `$3` times `$1` round trips on its own (dd's `copied, S s`). `perf bench sched
/// pipe` cannot pin its two sides to different CPUs (it forks the second from the first, which
/// inherits the first's mask; `-l` and `-T` are all it takes), so this is the cross-CPU pair.
/// The shell holds both FIFOs open so that neither side sees EOF or EPIPE at its last byte.
pub const RING_SCRIPT: &str = "export LC_ALL=C; d=$(mktemp -d) || exit 1; \
mkfifo \"$d/a\" \"$d/b\" && exec 3<>\"$d/a\" 4<>\"$d/b\" || exit 1; \
taskset -c \"$2\" dd if=\"$d/a\" of=\"$d/b\" bs=1 count=$(($1 + 1)) status=none & printf x >&3; \
taskset -c \"$3\" dd if=\"$d/b\" of=\"$d/a\" bs=1 count=\"$1\" 2>&1; s=$?; wait; rm -r \"$d\"; exit $s";

/// Wakeups the wake-cost cells time (a tenth more to warm up).
pub const WAKE_LOOPS: u32 = 2000;
/// How long the wakee has slept when the waker wakes it, µs: its CPU is idle (halted, on a
/// guest) well before; a stream's reader sleeps tens of µs between segments.
pub const WAKE_IDLE_US: u32 = 50;
/// The wake-cost cell of a wakee on another, idle CPU, and the one of a wakee on the waker's
/// own CPU; their difference is what the IPI adds to the waker (`machine::profile`).
pub const WAKE_CROSS_CELL: &str = "wake-cross-cpu";
pub const WAKE_SAME_CELL: &str = "wake-same-cpu";

/// Builds tools/wake-cost/wake.c (relative to the working directory: the repository's root,
/// where the measuring commands run) with the system `cc` into a temporary directory and runs
/// it: `$1` the mode (`block`: the wakee on CPU 1; `local`: on CPU 0 with the waker, at
/// SCHED_IDLE so that it does not preempt the waker's call), `$2` the idle µs, `$3` the
/// wakeups; blocking reads and writes of a pipe (`pipe_write` wakes its reader with
/// `wake_up_interruptible_sync_poll`, a sync wakeup as `sock_def_readable`'s: fs/pipe.c,
/// Linux 5.5+, not read at a pinned version).
pub const WAKE_SCRIPT: &str = "export LC_ALL=C; src=tools/wake-cost/wake.c; \
[ -r \"$src\" ] || { echo \"$src not found: run from the repository's root\"; exit 1; }; \
d=$(mktemp -d) || exit 1; cc -O2 -pthread -o \"$d/wake\" \"$src\" || { rm -r \"$d\"; exit 1; }; \
\"$d/wake\" pipe \"$1\" \"$2\" \"$3\"; s=$?; rm -r \"$d\"; exit $s";

/// The cells of the sched suite, `(id, metric, unit)`: the parser takes no other.
pub const SCHED_CELLS: [(&str, &str, &str); 8] = [
    ("pipe-same-cpu", "round_trip", "us"),
    ("pipe-unpinned", "round_trip", "us"),
    ("ring-same-cpu", "round_trip", "us"),
    ("ring-cross-cpu", "round_trip", "us"),
    ("messaging-one-cpu", "message", "us"),
    ("messaging-all-cpus", "message", "us"),
    (WAKE_CROSS_CELL, "waker_call", "us"),
    (WAKE_SAME_CELL, "waker_call", "us"),
];

/// What the sched suite keeps of the idle path a guest can see: the cpuidle driver and
/// governor, the states and their exit latencies, the guest-side halt-polling window
/// (`haltpoll`'s `guest_halt_poll_ns`) and the `kvm` module's `halt_poll_ns`, which inside a
/// guest is that guest's own KVM for nested guests. The host's halt polling (its
/// `kvm.halt_poll_ns`) is not visible from inside a guest; it shows only in the measured
/// cross-CPU wakeup.
pub const IDLE_TEXTS: [(&str, &str); 8] = [
    ("cpuidle_driver", "/sys/devices/system/cpu/cpuidle/current_driver"),
    ("cpuidle_governor", "/sys/devices/system/cpu/cpuidle/current_governor_ro"),
    ("cpuidle_state0", "/sys/devices/system/cpu/cpu0/cpuidle/state0/name"),
    ("cpuidle_state1", "/sys/devices/system/cpu/cpu0/cpuidle/state1/name"),
    ("cpuidle_state1_latency_us", "/sys/devices/system/cpu/cpu0/cpuidle/state1/latency"),
    ("guest_halt_poll_ns", "/sys/module/haltpoll/parameters/guest_halt_poll_ns"),
    ("guest_kvm_halt_poll_ns", "/sys/module/kvm/parameters/halt_poll_ns"),
    ("cpuidle_state0_latency_us", "/sys/devices/system/cpu/cpu0/cpuidle/state0/latency"),
];

fn sched_cell(id: &str, setting: Vec<(&'static str, f64)>, client: Argv, reading: Reading, o: &Options) -> CellPlan {
    let (_, metric, unit) = SCHED_CELLS.iter().find(|c| c.0 == id).copied().unwrap_or(SCHED_CELLS[0]);
    CellPlan {
        id: id.to_string(),
        metric,
        unit,
        setting,
        sysctl: None,
        servers: vec![],
        clients: vec![client],
        reading,
        runs: o.runs,
        guarded: true,
        timeout_s: 60,
    }
}

/// The sched suite: what waiting costs. `perf bench sched pipe` on one CPU (both tasks
/// pinned by `taskset -c 0`, which its forked child inherits) and unpinned (the scheduler's
/// choice: with sync wakeups it often keeps both on one CPU); the dd ring on one CPU and
/// across two (each side pinned); `perf bench sched messaging` on one CPU and on all; the
/// waker's own call of a wakeup across CPUs and on one ([`WAKE_SCRIPT`]).
fn sched(o: &Options) -> SuitePlan {
    let pipe = |pin: Option<&str>| {
        let mut a = pin.map_or(vec![], |c| argv(&["taskset", "-c", c]));
        a.extend(argv(&["perf", "bench", "sched", "pipe", "-l", &PIPE_LOOPS.to_string()]));
        a
    };
    let ring = |echo: &str, timer: &str| argv(&["sh", "-c", RING_SCRIPT, "ring", &RING_LOOPS.to_string(), echo, timer]);
    let messaging = |pin: Option<&str>| {
        let mut a = pin.map_or(vec![], |c| argv(&["taskset", "-c", c]));
        let (g, l) = (MESSAGING_GROUPS.to_string(), MESSAGING_LOOPS.to_string());
        a.extend(argv(&["perf", "bench", "sched", "messaging", "-g", &g, "-l", &l]));
        a
    };
    let (pipes, rings, msgs) = (f64::from(PIPE_LOOPS), f64::from(RING_LOOPS), f64::from(MESSAGING_MESSAGES));
    let cells = vec![
        sched_cell(
            "pipe-same-cpu",
            vec![("pinned_cpus", 1.0), ("round_trips", pipes)],
            pipe(Some("0")),
            Reading::PerfPipeUs,
            o,
        ),
        sched_cell(
            "pipe-unpinned",
            vec![("pinned_cpus", 0.0), ("round_trips", pipes)],
            pipe(None),
            Reading::PerfPipeUs,
            o,
        ),
        sched_cell(
            "ring-same-cpu",
            vec![("pinned_cpus", 1.0), ("round_trips", rings)],
            ring("0", "0"),
            Reading::DdRingUs,
            o,
        ),
        sched_cell(
            "ring-cross-cpu",
            vec![("pinned_cpus", 2.0), ("round_trips", rings)],
            ring("1", "0"),
            Reading::DdRingUs,
            o,
        ),
        sched_cell(
            "messaging-one-cpu",
            vec![("pinned_cpus", 1.0), ("messages", msgs)],
            messaging(Some("0")),
            Reading::PerfMessagingUs(MESSAGING_MESSAGES),
            o,
        ),
        sched_cell(
            "messaging-all-cpus",
            vec![("pinned_cpus", 0.0), ("messages", msgs)],
            messaging(None),
            Reading::PerfMessagingUs(MESSAGING_MESSAGES),
            o,
        ),
    ];
    let cells = cells.into_iter().chain(wake_cells(o)).collect();
    let before = IDLE_TEXTS.iter().map(|(name, path)| (name.to_string(), cat(path))).collect();
    SuitePlan { name: "sched", before, cells, after: vec![] }
}

/// The sched suite's two wake-cost cells ([`WAKE_SCRIPT`]): the wakee on the other CPU, idle,
/// and on the waker's own.
fn wake_cells(o: &Options) -> [CellPlan; 2] {
    let wake = |mode: &str| {
        let (idle, loops) = (WAKE_IDLE_US.to_string(), WAKE_LOOPS.to_string());
        argv(&["sh", "-c", WAKE_SCRIPT, "wake", mode, &idle, &loops])
    };
    let wakes = f64::from(WAKE_LOOPS);
    let cell = |id: &str, cpus: f64, mode: &str| {
        sched_cell(id, vec![("pinned_cpus", cpus), ("wakeups", wakes)], wake(mode), Reading::WakerCallUs, o)
    };
    [cell(WAKE_CROSS_CELL, 2.0, "block"), cell(WAKE_SAME_CELL, 1.0, "local")]
}
