//! `skblab measure`: runs the suites of `skblab_core::machine::plan` on this machine and writes
//! one measurement file. The I/O edge: processes (iperf3, sockperf, taskset, pahole, perf),
//! /proc and /proc/sys, the clock, Ctrl-C.
//!
//! Guarding the machine: before a suite, one second of /proc/stat with nothing running (busy
//! → refuse, unless `--force`); during each run the foreign CPU (all CPUs' busy time less this
//! process's and its children's, less softirq) — a run over `--max-foreign` is repeated up to
//! `--retries` times, then kept and marked `contaminated`; every client is killed after its
//! cell's `timeout_s`; the sysctl a suite changes is restored at the end of the suite, on a
//! failure and on Ctrl-C (the handler only raises a flag: the run loop sees it, kills the
//! children, restores, exits 130). Progress (cell k of n, elapsed, ETA) on stderr.
//!
//! Everything goes through [`Runner`]: `measure/real.rs` is the real machine, and
//! `measure/tests.rs` drives the same code with a fake one (a failing client, an interrupt)
//! and checks the sysctl comes back.

use skblab_core::machine::file::{self, Cell, Kernel, Machine, Measurement, Sample, Suite, SCHEMA_VERSION};
use skblab_core::machine::fit;
use skblab_core::machine::plan::{self, Argv, CellPlan, Options, SuitePlan, HOA_SYSCTL};
use skblab_core::machine::tools::{self, CpuTimes};
use skblab_core::params::echo;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

mod real;
#[cfg(test)]
mod tests;

pub use real::RealRunner;

/// Set by the Ctrl-C handler; the run loop polls it.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// What a suite run needs from the machine.
pub trait Runner {
    /// A file's text (/proc, /proc/sys).
    fn read(&mut self, path: &str) -> Result<String, String>;
    /// Writes a sysctl (`net.core.x` → /proc/sys/net/core/x).
    fn write_sysctl(&mut self, name: &str, value: &str) -> Result<(), String>;
    /// Starts a background server.
    fn start(&mut self, argv: &Argv) -> Result<(), String>;
    /// Stops every server started.
    fn stop_all(&mut self);
    /// Runs `clients` together; their stdouts, or an error (a failed or timed-out client, an
    /// interrupt).
    fn run(&mut self, clients: &[Argv], timeout: Duration) -> Result<Vec<String>, String>;
    fn sleep(&mut self, d: Duration);
    /// Seconds since the runner was made.
    fn elapsed(&self) -> f64;
    fn interrupted(&self) -> bool;
    /// Whether `tool` is on the PATH.
    fn has(&mut self, tool: &str) -> bool;
}

/// The knobs of `skblab measure` besides the plan's.
#[derive(Debug, Clone, Copy)]
pub struct Guard {
    pub max_foreign_pct: f64,
    pub retries: u32,
    pub force: bool,
}

fn sysctl_path(name: &str) -> String {
    format!("/proc/sys/{}", name.replace('.', "/"))
}

/// The plans of `suite` (`all`: every suite).
pub fn plans(suite: &str, o: &Options) -> Result<Vec<SuitePlan>, String> {
    if suite == "all" {
        plan::SUITES.iter().map(|s| plan::plan(s, o)).collect()
    } else {
        Ok(vec![plan::plan(suite, o)?])
    }
}

/// `--dry-run`: every command, suite by suite.
pub fn dry_run(plans: &[SuitePlan]) -> String {
    let mut s = String::new();
    for p in plans {
        s += &format!("# suite {}\n", p.name);
        s.extend(plan::commands(p, None).into_iter().map(|c| c + "\n"));
    }
    s
}

/// The tools a plan runs, missing from the PATH, as one line.
fn missing_tools(r: &mut dyn Runner, plans: &[SuitePlan]) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    for c in plans.iter().flat_map(|p| &p.cells) {
        for a in c.servers.iter().chain(&c.clients) {
            let tool = if a.first().map(String::as_str) == Some("taskset") { a.get(3) } else { a.first() };
            if let Some(t) = tool.filter(|t| !names.contains(&t.as_str())) {
                names.push(t);
            }
        }
    }
    let missing: Vec<&str> = names.into_iter().filter(|t| !r.has(t)).collect();
    (!missing.is_empty()).then(|| {
        format!("missing tools: {} (Debian: apt-get install iperf3 sockperf dwarves linux-perf)", missing.join(", "))
    })
}

/// Runs every plan and builds the file. On any error the sysctls are already restored.
pub fn measure(r: &mut dyn Runner, plans: &[SuitePlan], g: Guard) -> Result<Measurement, String> {
    if let Some(line) = missing_tools(r, plans) {
        return Err(line);
    }
    let original = r.read(&sysctl_path(HOA_SYSCTL)).map(|s| s.trim().to_string()).ok();
    let mut m = facts(r, original.as_deref());
    let total: usize = plans.iter().map(|p| p.cells.len()).sum();
    let mut progress =
        Progress { done: 0, total, plans_s: plans.iter().flat_map(|p| &p.cells).map(cell_seconds).sum(), spent_s: 0.0 };
    for p in plans {
        if p.cells.iter().any(|c| c.guarded) {
            quiet_check(r, g)?;
        }
        let suite = run_suite(r, p, g, original.as_deref(), &mut progress)?;
        m.suites.insert(p.name.to_string(), suite);
    }
    if g.force {
        m.note = "taken with --force on a machine that was busy at the start: read foreign_cpu_pct".to_string();
    }
    Ok(m)
}

struct Progress {
    done: usize,
    total: usize,
    plans_s: f64,
    spent_s: f64,
}

/// The planned seconds of a cell: its runs at the run length plus a second of setup each.
fn cell_seconds(c: &CellPlan) -> f64 {
    let run = if c.guarded { f64::from(c.timeout_s.saturating_sub(20)) + 1.0 } else { 0.2 };
    run * f64::from(c.runs)
}

fn facts(r: &mut dyn Runner, hoa: Option<&str>) -> Measurement {
    let read = |r: &mut dyn Runner, p: &str| r.read(p).map(|s| s.trim().to_string()).unwrap_or_default();
    let cpuinfo = read(r, "/proc/cpuinfo");
    let field = |name: &str| {
        cpuinfo
            .lines()
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim() == name).map(|(_, v)| v.trim().to_string()))
    };
    let cpus = cpuinfo.lines().filter(|l| l.starts_with("processor")).count().max(1) as u32;
    let guest = cpuinfo.contains(" hypervisor");
    let clock = read(r, "/sys/devices/system/clocksource/clocksource0/available_clocksource");
    let hypervisor = match (guest, clock.contains("kvm-clock")) {
        (true, true) => "KVM",
        (true, false) => "unknown hypervisor",
        _ => "",
    };
    let cpu = format!(
        "{} family {} model {}",
        field("vendor_id").unwrap_or_default(),
        field("cpu family").unwrap_or_default(),
        field("model").unwrap_or_default()
    );
    // The catalogue's families of these CPUs are guest profiles: a bare-metal machine names none.
    let number = |name: &str| field(name).and_then(|v| v.parse::<u32>().ok());
    let family = number("cpu family")
        .and_then(|f| {
            let vendor = field("vendor_id").unwrap_or_default();
            skblab_core::sim::catalogue::family_of_cpu(&vendor, f, number("model").unwrap_or(0))
        })
        .filter(|_| guest);
    let mut sysctls = BTreeMap::new();
    for name in [HOA_SYSCTL, "net.ipv4.tcp_autocorking", "net.core.max_skb_frags"] {
        let v = if name == HOA_SYSCTL { hoa.map(str::to_string) } else { r.read(&sysctl_path(name)).ok() };
        if let Some(v) = v {
            sysctls.insert(name.to_string(), v.trim().to_string());
        }
    }
    Measurement {
        schema_version: SCHEMA_VERSION,
        tool: format!("skblab measure {}", env!("CARGO_PKG_VERSION")),
        note: String::new(),
        taken: r
            .run(&[vec!["date".into(), "-u".into(), "+%Y-%m-%dT%H:%M:%SZ".into()]], Duration::from_secs(5))
            .ok()
            .and_then(|v| v.first().map(|s| s.trim().to_string()))
            .unwrap_or_default(),
        kernel: Kernel {
            release: read(r, "/proc/sys/kernel/osrelease"),
            version: read(r, "/proc/sys/kernel/version"),
            sysctls,
        },
        machine: Machine {
            cpus,
            model: field("model name").unwrap_or_default(),
            cpu,
            family: family.map(|f| skblab_core::params::Choice::name(f).to_string()).unwrap_or_default(),
            hypervisor: hypervisor.to_string(),
            pmu: r.read("/sys/bus/event_source/devices/cpu/type").is_ok(),
        },
        suites: BTreeMap::new(),
    }
}

fn cpu_now(r: &mut dyn Runner) -> Result<(CpuTimes, u64), String> {
    let stat = tools::proc_stat(&r.read("/proc/stat")?)?;
    let own = tools::self_ticks(&r.read("/proc/self/stat")?)?;
    Ok((stat, own))
}

/// One second with nothing running: refuse a busy machine (unless forced).
fn quiet_check(r: &mut dyn Runner, g: Guard) -> Result<(), String> {
    let (b, own0) = cpu_now(r)?;
    r.sleep(Duration::from_secs(1));
    let (a, own1) = cpu_now(r)?;
    let foreign = tools::foreign_pct(b, a, own1.saturating_sub(own0));
    if foreign > g.max_foreign_pct && !g.force {
        return Err(format!(
            "the machine is busy: {foreign:.0} % foreign CPU over 1 s (limit {:.0} %); measure on a quiet machine, or pass --force to keep contaminated runs marked",
            g.max_foreign_pct
        ));
    }
    if foreign > g.max_foreign_pct {
        eprintln!("skblab: measure: {foreign:.0} % foreign CPU before the suite (--force: going on)");
    }
    Ok(())
}

/// One suite: texts before, the cells, texts after. The sysctl is restored whatever happens.
fn run_suite(
    r: &mut dyn Runner,
    p: &SuitePlan,
    g: Guard,
    original: Option<&str>,
    pr: &mut Progress,
) -> Result<Suite, String> {
    let mut suite = Suite { commands: plan::commands(p, original), cells: Vec::new(), texts: BTreeMap::new() };
    let changes = p.cells.iter().any(|c| c.sysctl.is_some());
    if changes && original.is_none() {
        return Err(format!("cannot read {HOA_SYSCTL} (not Linux, or no /proc/sys): nothing changed"));
    }
    let body = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_cells(r, p, g, pr, &mut suite)));
    r.stop_all();
    let restored = match (changes, original) {
        (true, Some(v)) => r.write_sysctl(HOA_SYSCTL, v),
        _ => Ok(()),
    };
    let body = body.unwrap_or_else(|_| Err("internal error during the suite".to_string()));
    match (body, restored) {
        (Ok(()), Ok(())) => Ok(suite),
        (Err(e), Ok(())) => Err(format!("suite {}: {e} ({HOA_SYSCTL} restored)", p.name)),
        (_, Err(e)) => Err(format!(
            "suite {}: could not restore {HOA_SYSCTL}={}: {e}; run `sysctl -w {HOA_SYSCTL}={}` by hand",
            p.name,
            original.unwrap_or("?"),
            original.unwrap_or("?")
        )),
    }
}

fn run_cells(r: &mut dyn Runner, p: &SuitePlan, g: Guard, pr: &mut Progress, suite: &mut Suite) -> Result<(), String> {
    for (name, argv) in &p.before {
        suite.texts.insert(name.clone(), text_of(r, argv));
    }
    for c in &p.cells {
        if let Some((name, value)) = &c.sysctl {
            r.write_sysctl(name, value)?;
        }
        let t0 = r.elapsed();
        let cell = run_cell(r, c, g, pr)?;
        pr.done += 1;
        pr.spent_s += cell_seconds(c);
        let elapsed = r.elapsed();
        let rate = if pr.spent_s > 0.0 { elapsed / pr.spent_s } else { 1.0 };
        eprintln!(
            "skblab: measure: cell {} of {} {} = {:.1} {} ({:.0} s; elapsed {:.0} s, ETA {:.0} s)",
            pr.done,
            pr.total,
            c.id,
            cell.median,
            c.unit,
            elapsed - t0,
            elapsed,
            (pr.plans_s - pr.spent_s).max(0.0) * rate
        );
        suite.cells.push(cell);
    }
    for (name, argv) in &p.after {
        let text = text_of(r, argv);
        let text = if name == "perf_folded" && !text.starts_with("unavailable") {
            tools::fold_perf_script(&text, skblab_core::machine::file::MAX_TEXT_BYTES / 2)
        } else {
            text
        };
        suite.texts.insert(name.clone(), text);
    }
    Ok(())
}

/// A text of the state suite: `cat path` reads the file, anything else runs; what cannot be
/// had is kept as `unavailable: why` (perf without permission, a kernel without slabinfo).
fn text_of(r: &mut dyn Runner, argv: &Argv) -> String {
    let text = match argv.as_slice() {
        [cat, path] if cat == "cat" => r.read(path),
        _ => r.run(std::slice::from_ref(argv), Duration::from_secs(120)).map(|v| v.concat()),
    };
    text.unwrap_or_else(|e| format!("unavailable: {e}\n"))
}

/// Every run of a cell, each repeated while contaminated (bounded).
fn run_cell(r: &mut dyn Runner, c: &CellPlan, g: Guard, pr: &Progress) -> Result<Cell, String> {
    let mut samples = Vec::new();
    for run in 1..=c.runs {
        let mut attempts = 0;
        let sample = loop {
            attempts += 1;
            if r.interrupted() {
                return Err("interrupted".to_string());
            }
            let (value, foreign) = attempt(r, c)?;
            let dirty = c.guarded && foreign > g.max_foreign_pct;
            if dirty && attempts <= g.retries {
                eprintln!(
                    "skblab: measure: cell {} of {} {} run {run}: {foreign:.0} % foreign CPU, repeating",
                    pr.done + 1,
                    pr.total,
                    c.id
                );
                continue;
            }
            break Sample { value, foreign_cpu_pct: (foreign * 10.0).round() / 10.0, contaminated: dirty, attempts };
        };
        samples.push(sample);
    }
    Ok(Cell::new(&c.id, c.metric, c.unit, &c.setting, samples))
}

/// One attempt: servers up, clients run, servers down; the value and the foreign CPU %.
fn attempt(r: &mut dyn Runner, c: &CellPlan) -> Result<(f64, f64), String> {
    if let [cat, path] = c.clients.as_slice().first().map(Vec::as_slice).unwrap_or_default() {
        if cat == "cat" {
            let text = r.read(path)?;
            return Ok((tools::read(c.reading, &[text]).map_err(|e| format!("cell {}: {e}", c.id))?, 0.0));
        }
    }
    let (b, own0) = cpu_now(r)?;
    for s in &c.servers {
        r.start(s)?;
    }
    if !c.servers.is_empty() {
        r.sleep(Duration::from_millis(300));
    }
    let out = r.run(&c.clients, Duration::from_secs(u64::from(c.timeout_s)));
    r.stop_all();
    let out = out.map_err(|e| format!("cell {}: {e}", c.id))?;
    let (a, own1) = cpu_now(r)?;
    let value = tools::read(c.reading, &out).map_err(|e| format!("cell {}: {e}", c.id))?;
    Ok((value, tools::foreign_pct(b, a, own1.saturating_sub(own0))))
}

/// The allowed values of `measure`'s numeric flags, `(flag, min, max)`: the parsers below and
/// the "missing value" message read them.
const RANGES: [(&str, u32, u32); 5] =
    [("--seconds", 1, 60), ("--runs", 1, 20), ("--max-flows", 1, 8), ("--max-foreign", 1, 100), ("--retries", 0, 5)];

/// The allowed range of a numeric flag of `measure`.
pub fn range_of(flag: &str) -> Option<(u32, u32)> {
    RANGES.iter().find(|(f, _, _)| *f == flag).map(|&(_, min, max)| (min, max))
}

/// The parser of a numeric flag of `measure` (plain decimal in its range, [`super::whole_in`]).
fn flag(name: &str) -> impl Fn(&str) -> Result<u32, String> + Clone + Send + Sync + 'static {
    let (min, max) = range_of(name).expect("bug: a numeric flag of measure without a range");
    super::whole_in(min, max)
}

/// `skblab measure`'s arguments.
#[derive(clap::Args)]
pub struct MeasureArgs {
    /// The suite: layout, stream, udp, rr, state, sched, or all (`--list` prints them).
    suite: Option<String>,
    /// Print one suite name per line.
    #[arg(long, conflicts_with_all = ["suite", "dry_run", "out", "note", "force"])]
    list: bool,
    /// Print the commands it would run and exit, touching nothing.
    #[arg(long)]
    dry_run: bool,
    /// Write the file here (default: stdout).
    #[arg(long, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    /// Seconds per measured run.
    #[arg(long, default_value_t = 5, allow_hyphen_values = true, value_parser = flag("--seconds"))]
    seconds: u32,
    /// Runs per cell (the median and min–max are over them).
    #[arg(long, default_value_t = 3, allow_hyphen_values = true, value_parser = flag("--runs"))]
    runs: u32,
    /// Flows of the stream and rr suites: 1..=N.
    #[arg(long, default_value_t = 2, allow_hyphen_values = true, value_parser = flag("--max-flows"))]
    max_flows: u32,
    /// Only this send size in the stream suite (KiB: 4, 16 or 64).
    #[arg(long, value_parser = ["4", "16", "64"])]
    kib: Option<String>,
    /// A run with more foreign CPU than this (percent of all CPUs) is repeated.
    #[arg(long, default_value_t = 10, allow_hyphen_values = true, value_parser = flag("--max-foreign"))]
    max_foreign: u32,
    /// Repeats of a contaminated run before it is kept, marked.
    #[arg(long, default_value_t = 2, allow_hyphen_values = true, value_parser = flag("--retries"))]
    retries: u32,
    /// Measure even when the machine is busy at the start (runs stay marked).
    #[arg(long)]
    force: bool,
    /// A note kept in the file (e.g. "smoke run on a busy machine, not a reference").
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,
}

/// Exit status after Ctrl-C (128 + SIGINT), once the sysctls are restored.
const EXIT_INTERRUPTED: i32 = 130;

/// `skblab measure ...`: the list, the dry run, or a measurement (the file's path or JSON).
pub fn command(a: MeasureArgs) -> Result<String, String> {
    if a.list {
        return Ok(plan::SUITES.iter().chain(&["all"]).map(|s| format!("{s}\n")).collect());
    }
    let Some(suite) = a.suite.as_deref() else {
        return Err(format!("missing suite: expected one of {}, all (or --list)", plan::SUITES.join(", ")));
    };
    let o = Options {
        seconds: a.seconds,
        runs: a.runs,
        max_flows: a.max_flows,
        only_kib: a.kib.as_deref().and_then(|k| k.parse().ok()),
        ..Options::default()
    };
    let plans = plans(suite, &o)?;
    if a.dry_run {
        return Ok(dry_run(&plans));
    }
    if !cfg!(target_os = "linux") {
        return Err("skblab measure runs on Linux only (it reads /proc and runs iperf3 on loopback)".to_string());
    }
    if let Err(e) = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst)) {
        return Err(format!("cannot watch for Ctrl-C ({e}): not measuring, so no sysctl is left changed"));
    }
    let guard = Guard { max_foreign_pct: f64::from(a.max_foreign), retries: a.retries, force: a.force };
    let mut m = match measure(&mut RealRunner::new(), &plans, guard) {
        Ok(m) => m,
        Err(e) if INTERRUPTED.load(Ordering::SeqCst) => {
            eprintln!("skblab: {e}");
            std::process::exit(EXIT_INTERRUPTED);
        }
        Err(e) => return Err(e),
    };
    if let Some(note) = a.note {
        m.note = if m.note.is_empty() { note } else { format!("{note}; {}", m.note) };
    }
    match a.out {
        Some(path) => {
            std::fs::write(&path, m.to_json()).map_err(|e| format!("cannot write {}: {e}", path_text(&path)))?;
            Ok(format!("wrote {}\n", path_text(&path)))
        }
        None => Ok(m.to_json()),
    }
}

/// `skblab calibrate <exp> --machine FILE`: the catalogue prediction, the fit on one part and
/// the rest predicted, as a table or JSON. The file is read up to its size limit and no
/// further; the work is estimated and the estimate printed before the first run, and above
/// the CLI's limit ([`super::work::LONG_RUN_LIMIT_S`]) refused without `--allow-long`, like `run`.
pub fn calibrate(experiment: &str, path: &std::path::Path, json: bool, allow_long: bool) -> Result<String, String> {
    if experiment != "high-order-alloc" {
        return Err(format!(
            "--machine works with high-order-alloc (its stream world is what a measured machine can be held against), not '{}'",
            echo(experiment)
        ));
    }
    let shown = path_text(path);
    let text = std::fs::File::open(path)
        .map_err(|e| {
            format!("cannot read {shown}: {e} (expected a measurement file: skblab measure --out FILE writes one)")
        })
        .and_then(|f| file::read_limited(f).map_err(|e| format!("{shown}: {e}")))?;
    let m = file::parse(&text).map_err(|e| format!("{shown}: {e}"))?;
    let mut f = fit::MachineFit::new(&m).map_err(|e| format!("{shown}: {e}"))?;
    eprintln!("skblab: {}", work_line(&f, m.machine.cpus, super::work::LONG_RUN_LIMIT_S, allow_long)?);
    let mut last = 0;
    while !f.finished() {
        f.step();
        let (done, total) = (f.done(), f.total());
        if done * 10 / total.max(1) != last {
            last = done * 10 / total.max(1);
            eprintln!("skblab: calibrate --machine: run {done} of {total}");
        }
    }
    let report = f.report();
    Ok(if json { report.to_json() } else { report.to_table() })
}

/// A path as a message shows it: escaped, at most [`MAX_PATH_CHARS`] characters.
fn path_text(path: &std::path::Path) -> String {
    skblab_core::params::echo_within(&path.display().to_string(), MAX_PATH_CHARS)
}

/// The longest path a message echoes whole.
const MAX_PATH_CHARS: usize = 240;

/// The fit's work before it starts, as one line: runs, cores (and the cap when the file has
/// more CPUs than the simulation), events, seconds of one core; refused (the same line and
/// `--allow-long`) when the estimate is above `limit_s` seconds and `allow_long` is false.
fn work_line(f: &fit::MachineFit, file_cpus: u32, limit_s: f64, allow_long: bool) -> Result<String, String> {
    let e = f.estimate();
    let cores = match f.simulated_cpus() {
        n if n < file_cpus => {
            format!("{n} cores (the file's {file_cpus} CPUs: high-order-alloc simulates at most {n})")
        }
        n => format!("{n} cores"),
    };
    let line = format!(
        "calibrate high-order-alloc --machine: {} simulator runs on {cores}, about {} simulated events, about {} of one core",
        f.total(),
        e.events,
        super::work::duration_text(f.native_seconds())
    );
    if f.native_seconds() > limit_s && !allow_long {
        return Err(format!("{line}, above the limit of {limit_s:.0} s: pass --allow-long to run it anyway"));
    }
    Ok(line)
}
