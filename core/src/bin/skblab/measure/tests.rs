//! The suite runner on a fake machine: the sysctl it changes comes back after a clean run, a
//! failing client, a timed-out one and an interrupt; a contaminated run is repeated a bounded
//! number of times, then kept and marked; a busy machine is refused; missing tools are named.

use super::*;

/// A fake machine: canned files, clients answering iperf3 JSON, a CPU load per attempt.
struct Fake {
    sysctl: String,
    writes: Vec<String>,
    /// Fail the client run number `fail_at` (1-based) with this error.
    fail_at: Option<(usize, &'static str)>,
    runs: usize,
    /// Foreign busy ticks added per attempt (of 200 total ticks).
    foreign: Vec<u64>,
    stat_reads: usize,
    busy: u64,
    total: u64,
    interrupt_at: Option<usize>,
    missing: &'static [&'static str],
}

impl Fake {
    fn new() -> Fake {
        Fake {
            sysctl: "0".into(),
            writes: vec![],
            fail_at: None,
            runs: 0,
            foreign: vec![],
            stat_reads: 0,
            busy: 0,
            total: 0,
            interrupt_at: None,
            missing: &[],
        }
    }
}

impl Runner for Fake {
    fn read(&mut self, path: &str) -> Result<String, String> {
        match path {
            "/proc/sys/net/core/high_order_alloc_disable" => Ok(self.sysctl.clone() + "\n"),
            "/proc/stat" => {
                // Every second read closes an attempt: add that attempt's foreign ticks.
                self.stat_reads += 1;
                if self.stat_reads % 2 == 0 {
                    let k = self.stat_reads / 2 - 1;
                    self.busy += self.foreign.get(k).copied().unwrap_or(0);
                    self.total += 200;
                }
                Ok(format!("cpu  {} 0 0 {} 0 0 0 0 0 0\n", self.busy, self.total - self.busy.min(self.total)))
            }
            "/proc/self/stat" => Ok("1 (skblab) S 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0".into()),
            "/proc/cpuinfo" => Ok("processor\t: 0\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel name\t: AMD EPYC\nflags\t\t: fpu hypervisor\n".into()),
            "/proc/sys/kernel/osrelease" => Ok("6.18.0-test\n".into()),
            _ => Err(format!("cannot read {path}")),
        }
    }
    fn write_sysctl(&mut self, name: &str, value: &str) -> Result<(), String> {
        assert_eq!(name, HOA_SYSCTL);
        self.sysctl = value.to_string();
        self.writes.push(value.to_string());
        Ok(())
    }
    fn start(&mut self, _: &Argv) -> Result<(), String> {
        Ok(())
    }
    fn stop_all(&mut self) {}
    fn run(&mut self, clients: &[Argv], _: Duration) -> Result<Vec<String>, String> {
        if clients[0][0] == "date" {
            return Ok(vec!["2026-12-02T00:00:00Z\n".into()]);
        }
        self.runs += 1;
        if let Some((k, e)) = self.fail_at {
            if k == self.runs {
                return Err(e.to_string());
            }
        }
        if self.interrupt_at == Some(self.runs) {
            INTERRUPTED.store(true, Ordering::SeqCst);
            return Err("interrupted".into());
        }
        Ok(vec![r#"{"end":{"sum_received":{"bits_per_second":1e9}}}"#.to_string()])
    }
    fn sleep(&mut self, _: Duration) {}
    fn elapsed(&self) -> f64 {
        self.runs as f64
    }
    fn interrupted(&self) -> bool {
        false
    }
    fn has(&mut self, tool: &str) -> bool {
        !self.missing.contains(&tool)
    }
}

const GUARD: Guard = Guard { max_foreign_pct: 10.0, retries: 2, force: false };

fn stream(runs: u32) -> Vec<SuitePlan> {
    plans("stream", &Options { runs, only_kib: Some(64), max_flows: 1, ..Options::default() }).unwrap()
}

#[test]
fn a_clean_run_sets_each_order_and_restores_the_sysctl() {
    let mut f = Fake::new();
    let m = measure(&mut f, &stream(3), GUARD).unwrap();
    // order 3 (sysctl 0), order 0 (sysctl 1), restore 0.
    assert_eq!(f.writes, ["0", "1", "0"]);
    assert_eq!(f.sysctl, "0");
    let cells = &m.suites["stream"].cells;
    assert_eq!(cells.len(), 2);
    assert_eq!((cells[0].median, cells[0].samples.len()), (1000.0, 3));
    assert_eq!(m.machine.family, "zen5-guest");
    // What was written parses back.
    assert_eq!(skblab_core::machine::file::parse(&m.to_json()), Ok(m));
}

#[test]
fn a_failing_or_timed_out_client_still_restores_the_sysctl() {
    for e in ["iperf3 failed (exit status: 1)", "timed out after 25 s"] {
        let mut f = Fake::new();
        f.sysctl = "0".into();
        // The 4th client run is the first of order 0: the sysctl is 1 when it fails.
        f.fail_at = Some((4, e));
        let err = measure(&mut f, &stream(3), GUARD).unwrap_err();
        assert!(err.contains(e) && err.contains("restored"), "{err}");
        assert_eq!(f.writes.last().map(String::as_str), Some("0"));
        assert_eq!(f.sysctl, "0");
    }
}

#[test]
fn an_interrupt_restores_the_sysctl() {
    let mut f = Fake::new();
    f.sysctl = "0".into();
    f.interrupt_at = Some(5);
    let err = measure(&mut f, &stream(3), GUARD).unwrap_err();
    INTERRUPTED.store(false, Ordering::SeqCst);
    assert!(err.contains("interrupted"), "{err}");
    assert_eq!(f.sysctl, "0");
}

#[test]
fn a_contaminated_run_is_repeated_then_kept_marked() {
    let mut f = Fake::new();
    // Quiet check clean; run 1: dirty, clean; run 2: dirty ×3 (kept, marked after 2 retries).
    f.foreign = vec![0, 100, 0, 100, 100, 100];
    let plans = plans("stream", &Options { runs: 2, only_kib: Some(64), max_flows: 1, ..Options::default() }).unwrap();
    let plans = vec![SuitePlan { cells: plans[0].cells[..1].to_vec(), ..plans[0].clone() }];
    let m = measure(&mut f, &plans, GUARD).unwrap();
    let s = &m.suites["stream"].cells[0].samples;
    assert_eq!((s[0].attempts, s[0].contaminated), (2, false));
    assert_eq!((s[1].attempts, s[1].contaminated), (3, true));
    assert!(s[1].foreign_cpu_pct >= 49.0);
}

#[test]
fn a_busy_machine_is_refused_and_missing_tools_are_named() {
    let mut f = Fake::new();
    f.foreign = vec![150];
    let err = measure(&mut f, &stream(1), GUARD).unwrap_err();
    assert!(err.contains("the machine is busy"), "{err}");
    assert!(f.writes.is_empty(), "nothing changed on a refused run");
    let mut f = Fake::new();
    f.missing = &["iperf3"];
    assert!(measure(&mut f, &stream(1), GUARD).unwrap_err().contains("missing tools: iperf3"));
}

#[test]
fn the_dry_run_lists_the_commands_and_touches_nothing() {
    let text = dry_run(&plans("all", &Options::default()).unwrap());
    for needle in
        ["# suite layout", "pahole -C sk_buff", "iperf3 -c 127.0.0.1", "taskset -c 1", "sockperf pp", "perf record"]
    {
        assert!(text.contains(needle), "{needle}");
    }
}

/// `calibrate --machine` states the fit's work first and refuses it above the limit without
/// `--allow-long` (every legal file is below 60 s today, so the limit is lowered here).
#[test]
fn a_fit_above_the_limit_needs_allow_long() {
    let path = format!("{}/../data/measurements/2026-12-02-amd-epyc-f25m1.json", env!("CARGO_MANIFEST_DIR"));
    let m = file::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let f = fit::MachineFit::new(&m).unwrap();
    let line = work_line(&f, 2, 60.0, false).unwrap();
    assert!(line.starts_with("calibrate high-order-alloc --machine: 84 simulator runs on 2 cores, about "), "{line}");
    let e = work_line(&f, 2, 0.001, false).unwrap_err();
    assert!(e.starts_with(&line) && e.ends_with("above the limit of 0 s: pass --allow-long to run it anyway"), "{e}");
    assert_eq!(work_line(&f, 2, 0.001, true), Ok(line));
    let capped = work_line(&f, 4096, 60.0, false).unwrap();
    assert!(capped.contains("on 2 cores"), "the cap is said only when the file has more CPUs than simulated: {capped}");
}
