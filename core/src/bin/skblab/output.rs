//! The CLI's way out: the whole output written to stdout (a reader that went away is a normal
//! end, any other write error one line and exit 1), one escaped line on stderr for every
//! refusal or note, and the progress printer long work (fits, validation, bands) reports to.

use skblab_core::params::escape;
use std::io::{self, Write};
use std::process::ExitCode;

/// Exit status when stdout cannot be written (not a closed pipe).
const EXIT_OUTPUT_ERROR: u8 = 1;

/// Writes the whole output; a reader that went away (EPIPE) is a normal end, any other write
/// error (EBADF: stdout closed or opened read-only; ENOSPC...) is reported in one line, exit 1.
///
/// `io::stdout()` cannot tell: it treats EBADF as success, and the Rust runtime reopens a
/// closed stdout on /dev/null before `main`. So the text goes through a duplicate of fd 1 as
/// a plain file (EBADF is an error there), and a stdout that is /dev/null opened read-write
/// (what the runtime opens; a shell's `>/dev/null` opens it write-only) counts as closed.
pub(super) fn write_stdout(text: &str) -> ExitCode {
    let written = match stdout_file() {
        Ok(out) if stdout_was_closed(&out) => Err(io::Error::other("stdout is closed")),
        Ok(mut out) => out.write_all(text.as_bytes()).and_then(|()| out.flush()),
        Err(e) => Err(e),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            report(&format!("cannot write the output: {e}"));
            ExitCode::from(EXIT_OUTPUT_ERROR)
        }
    }
}

/// Fd 1 as a file of its own (see [`write_stdout`]).
#[cfg(unix)]
fn stdout_file() -> io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    io::stdout().as_fd().try_clone_to_owned().map(std::fs::File::from)
}

#[cfg(not(unix))]
fn stdout_file() -> io::Result<io::Stdout> {
    Ok(io::stdout())
}

/// Stdout is the /dev/null the runtime put in place of a closed fd 1 (Linux: its access
/// mode, from /proc/self/fdinfo, is read-write).
#[cfg(unix)]
fn stdout_was_closed(out: &std::fs::File) -> bool {
    use std::os::unix::fs::MetadataExt;
    let same = |a: &std::fs::Metadata, b: &std::fs::Metadata| a.dev() == b.dev() && a.ino() == b.ino();
    let (Ok(fd1), Ok(null)) = (out.metadata(), std::fs::metadata("/dev/null")) else {
        return false;
    };
    if !same(&fd1, &null) {
        return false;
    }
    let Ok(info) = std::fs::read_to_string("/proc/self/fdinfo/1") else {
        return false;
    };
    let flags = info.lines().find_map(|l| l.strip_prefix("flags:")).map(str::trim);
    // O_ACCMODE = 3, O_RDWR = 2.
    flags.and_then(|f| u32::from_str_radix(f, 8).ok()).is_some_and(|f| f & 3 == 2)
}

#[cfg(not(unix))]
fn stdout_was_closed(_out: &io::Stdout) -> bool {
    false
}

/// One line on stderr, escaped once more ([`escape`]: whatever a message embeds, nothing
/// invisible reaches the terminal); if even stderr is gone there is no one left to tell.
pub(super) fn report(line: &str) {
    let _ = writeln!(io::stderr().lock(), "skblab: {}", escape(line));
}

/// Progress of long work (fits, validation, bands) on stderr, with the wall time spent.
pub(super) fn progress_printer() -> impl FnMut(&str) {
    #[expect(
        clippy::disallowed_types,
        clippy::disallowed_methods,
        reason = "the CLI is the edge: progress shows wall time"
    )]
    let t0 = std::time::Instant::now();
    move |line: &str| eprintln!("[{:>6.0} s] {line}", t0.elapsed().as_secs_f64())
}
