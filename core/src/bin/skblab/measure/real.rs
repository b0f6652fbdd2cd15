//! The real machine behind [`Runner`]: files under /proc and /proc/sys, tools found on
//! `PATH`, servers and clients as child processes (a reader thread per client, killed at its
//! timeout or on Ctrl-C), the wall clock. Dropping it stops every server.

use super::{sysctl_path, Runner, INTERRUPTED};
use skblab_core::machine::plan::Argv;
use std::io::Read as _;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The real machine.
pub struct RealRunner {
    servers: Vec<Child>,
    #[expect(
        clippy::disallowed_types,
        reason = "the CLI is the edge: a measurement's progress and timeouts are wall time"
    )]
    t0: std::time::Instant,
}

impl RealRunner {
    #[expect(clippy::disallowed_methods, clippy::disallowed_types, reason = "the CLI is the edge: wall time")]
    pub fn new() -> RealRunner {
        RealRunner { servers: Vec::new(), t0: std::time::Instant::now() }
    }
}

fn spawn(argv: &Argv, out: Stdio) -> Result<Child, String> {
    let (prog, args) = argv.split_first().ok_or("empty command")?;
    Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run {prog}: {e}"))
}

impl Runner for RealRunner {
    fn read(&mut self, path: &str) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
    }
    fn write_sysctl(&mut self, name: &str, value: &str) -> Result<(), String> {
        std::fs::write(sysctl_path(name), value).map_err(|e| format!("cannot set {name}={value}: {e} (root?)"))
    }
    fn start(&mut self, argv: &Argv) -> Result<(), String> {
        self.servers.push(spawn(argv, Stdio::null())?);
        Ok(())
    }
    fn stop_all(&mut self) {
        for mut s in self.servers.drain(..) {
            let _ = s.kill();
            let _ = s.wait();
        }
    }
    fn run(&mut self, clients: &[Argv], timeout: Duration) -> Result<Vec<String>, String> {
        let mut kids = Vec::new();
        for a in clients {
            let mut child = spawn(a, Stdio::piped())?;
            let mut stdout = child.stdout.take().ok_or("no stdout")?;
            // A reader per child, so a full pipe never blocks it.
            let reader = std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = stdout.read_to_end(&mut buf);
                String::from_utf8_lossy(&buf).into_owned()
            });
            kids.push((a[0].clone(), child, reader));
        }
        let start = self.elapsed();
        let mut failure = None;
        while failure.is_none() && kids.iter_mut().any(|(_, c, _)| matches!(c.try_wait(), Ok(None))) {
            if self.interrupted() {
                failure = Some("interrupted".to_string());
            } else if self.elapsed() - start > timeout.as_secs_f64() {
                failure = Some(format!("timed out after {} s", timeout.as_secs()));
            } else {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let mut outs = Vec::new();
        for (name, mut c, reader) in kids {
            if failure.is_some() {
                let _ = c.kill();
            }
            let status = c.wait();
            outs.push(reader.join().unwrap_or_default());
            match status {
                Ok(s) if !s.success() && failure.is_none() && name != "perf" => {
                    failure = Some(format!("{name} failed ({s})"));
                }
                _ => {}
            }
        }
        failure.map_or(Ok(outs), Err)
    }
    fn sleep(&mut self, d: Duration) {
        std::thread::sleep(d);
    }
    fn elapsed(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }
    fn interrupted(&self) -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
    }
    fn has(&mut self, tool: &str) -> bool {
        std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
    }
}

impl Drop for RealRunner {
    fn drop(&mut self) {
        self.stop_all();
    }
}
