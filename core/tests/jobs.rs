//! `--jobs N` changes how many simulations run at once, never what they compute: the built
//! `skblab` binary's stdout is byte-identical with 1, 2 and 4 threads for `reproduce` (seeds,
//! points and band samples in parallel), `validate` of one experiment (tables and ±10 %
//! sensitivities) and `calibrate --sensitivity` (the ±10 % rows, each a mean over seeds), and
//! a bad `--jobs` is one clear line with exit status 2.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_skblab");

/// stdout of `skblab --jobs <jobs> <args>`, which must succeed.
fn stdout_with(jobs: u32, args: &[&str]) -> String {
    let out = Command::new(BIN)
        .arg("--jobs")
        .arg(jobs.to_string())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("skblab runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "--jobs {jobs} {args:?}: {stderr}");
    String::from_utf8(out.stdout).expect("utf-8 stdout")
}

fn same_for_every_job_count(args: &[&str]) {
    let one = stdout_with(1, args);
    assert!(!one.is_empty(), "{args:?} printed nothing");
    for jobs in [2, 4] {
        assert_eq!(stdout_with(jobs, args), one, "--jobs {jobs} {args:?} differs from --jobs 1");
    }
}

#[test]
fn reproduce_is_the_same_whatever_the_jobs() {
    same_for_every_job_count(&["reproduce", "high-order-alloc", "--seeds", "2", "--format", "json"]);
    same_for_every_job_count(&["reproduce", "percpu-counter", "--seeds", "3", "--bands", "4"]);
}

#[test]
fn validate_is_the_same_whatever_the_jobs() {
    same_for_every_job_count(&["validate", "skb-cache", "--seeds", "2", "--format", "json"]);
}

#[test]
fn calibrate_sensitivity_is_the_same_whatever_the_jobs() {
    same_for_every_job_count(&["calibrate", "page-frag-free", "--sensitivity", "--seeds", "2"]);
}

#[test]
fn a_bad_job_count_is_one_line() {
    for bad in ["0", "-1", "many", "100000"] {
        let out = Command::new(BIN).args(["--jobs", bad, "list"]).stdin(Stdio::null()).output().expect("skblab runs");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "--jobs {bad}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "--jobs {bad}: {stderr:?}");
        assert!(stderr.contains("--jobs"), "--jobs {bad}: {stderr:?}");
    }
}
