//! The `skblab` binary as a user meets it: exit statuses (0 done, 1 output not writable, 2 bad
//! input), exactly one bounded line on stderr for every error, no escape codes or raw newlines
//! echoed from hostile input, and a quiet exit 0 when the reader closes the pipe early.

use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_skblab");

fn skblab(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("skblab runs")
}

/// Asserts exit status 2, empty stdout and one printable line on stderr containing `needles`.
fn bad_input(args: &[&str], needles: &[&str]) -> String {
    let out = skblab(args);
    let stderr = String::from_utf8(out.stderr).expect("utf-8 stderr");
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    assert_one_line(&stderr, args);
    for needle in needles {
        assert!(stderr.contains(needle), "{args:?}: {stderr:?} lacks {needle:?}");
    }
    stderr
}

fn assert_one_line(stderr: &str, context: &[&str]) {
    let line = stderr.strip_suffix('\n').unwrap_or_else(|| panic!("{context:?}: {stderr:?} does not end a line"));
    assert!(line.starts_with("skblab: "), "{context:?}: {line:?}");
    let raw: Vec<char> = line.chars().filter(|&c| skblab_core::params::is_invisible(c)).collect();
    assert!(raw.is_empty(), "{context:?}: invisible characters {raw:?} in {line:?}");
    assert!(line.chars().count() <= 500, "{context:?}: {} characters", line.chars().count());
}

#[test]
fn good_commands_exit_0() {
    let out = skblab(&["list"]);
    assert_eq!(out.status.code(), Some(0));
    let ids: Vec<&str> = skblab_core::experiments().iter().map(|e| e.id()).collect();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), ids.iter().map(|id| format!("{id}\n")).collect::<String>());
    for id in ids {
        let out = skblab(&["params", id]);
        assert_eq!(out.status.code(), Some(0), "params {id}");
        assert!(out.stderr.is_empty());
    }
    assert_eq!(skblab(&["--help"]).status.code(), Some(0));
    assert_eq!(skblab(&["--version"]).status.code(), Some(0));
}

#[test]
fn missing_or_unknown_commands_say_what_is_allowed() {
    let commands = "list, params, run, calibrate, measure, reproduce, validate";
    bad_input(&[], &["missing command", commands]);
    bad_input(&["frobnicate"], &["unknown command 'frobnicate'", commands]);
    let ids = skblab_core::experiments().iter().map(|e| e.id()).collect::<Vec<_>>().join(", ");
    let ids = ids.as_str();
    bad_input(&["run"], &["missing experiment", ids]);
    bad_input(&["params"], &["missing experiment", ids]);
    bad_input(&["reproduce", "nope"], &["unknown experiment 'nope'", ids]);
    bad_input(&["validate", "nope"], &["unknown experiment 'nope'", ids]);
    bad_input(&["run", "skb-layout", "extra"], &["unexpected argument 'extra'"]);
    bad_input(&["run", "skb-layout", "--frmat", "json"], &["'--frmat'", "--format"]);
}

#[test]
fn bad_option_values_say_what_is_allowed() {
    bad_input(&["run", "skb-layout", "--format", "xml"], &["bad value 'xml' for --format", "table, csv, json"]);
    bad_input(&["run", "skb-layout", "--format"], &["missing value for --format", "table, csv, json"]);
    bad_input(&["run", "skb-layout", "--seed", "-1"], &["bad value '-1' for --seed", "whole number"]);
    bad_input(&["reproduce", "skb-layout", "--seed", "1e3"], &["'1e3'", "whole number"]);
    bad_input(&["calibrate", "high-order-alloc", "--rounds", "4294967295"], &["--rounds", "0..=14"]);
    bad_input(&["calibrate", "high-order-alloc", "--rounds", "-1"], &["--rounds", "0..=14"]);
    bad_input(&["calibrate", "high-order-alloc", "--seeds", "0"], &["--seeds", "1..=50"]);
    bad_input(&["calibrate", "high-order-alloc", "--starts", "65"], &["--starts", "0..=64"]);
    bad_input(&["calibrate", "high-order-alloc", "--coarse-seeds", "0"], &["--coarse-seeds", "1..=50"]);
    bad_input(&["reproduce", "skb-layout", "--seeds", "51"], &["--seeds", "1..=50"]);
    bad_input(&["reproduce", "skb-layout", "--bands", "0"], &["--bands", "1..=64"]);
    bad_input(&["reproduce", "skb-layout", "--bands", "65"], &["--bands", "1..=64"]);
    bad_input(&["validate", "skb-layout", "--seeds", "0"], &["--seeds", "1..=50"]);
    bad_input(&["validate", "skb-layout", "--format", "xml"], &["bad value 'xml' for --format"]);
    bad_input(&["run", "skb-layout", "--set", "mtu=20"], &["'20'", "'mtu'", "68..=65535"]);
    bad_input(&["run", "skb-layout", "--set", "mtu"], &["malformed setting 'mtu'", "name=value"]);
    bad_input(&["run", "high-order-alloc", "--set", "warmup_us=450"], &["'450'", "multiple of 100"]);
    bad_input(&["run", "high-order-alloc", "--set", "min_threads=9", "--set", "max_threads=3"], &["min_threads"]);
}

#[test]
fn hostile_text_is_escaped_and_shortened() {
    let e = bad_input(&["run", "skb-layout", "--set", "mtu=\u{1b}[31mRED"], &["'\\u{1b}[31mRED'"]);
    assert!(!e.contains('\u{1b}'));
    bad_input(&["run", "skb-layout", "--set", "mtu=1\n2"], &["'1\\n2'"]);
    bad_input(&["run", "skb-layout", "--set", "mt\ru=1"], &["unknown parameter 'mt\\ru'"]);
    bad_input(&["run", "\u{1b}[2J"], &["unknown experiment '\\u{1b}[2J'"]);
    bad_input(&["\u{1b}]0;owned\u{7}"], &["unknown command '\\u{1b}]0;owned\\u{7}'"]);
    bad_input(&["run", "skb-layout", "--format", "x\ny"], &["'x\\ny'"]);
    let long = format!("mtu={}", "9".repeat(100_000));
    let e = bad_input(&["run", "skb-layout", "--set", &long], &["…'"]);
    assert!(e.len() < 300, "{} bytes", e.len());
    let long_flag = format!("--{}", "x".repeat(100_000));
    bad_input(&["run", "skb-layout", &long_flag], &["unexpected argument"]);
}

/// The reader is gone before skblab writes (it sleeps first): EPIPE must end it quietly.
#[test]
fn a_closed_pipe_ends_quietly_with_status_0() {
    for args in ["run skb-layout", "list", "run high-order-alloc --set max_threads=2 --set measure_us=100", "--help"] {
        let script = format!("set -o pipefail; (sleep 0.3; exec \"$0\" {args}) | true");
        let out = Command::new("bash").args(["-c", &script, BIN]).output().expect("bash runs");
        assert_eq!(out.status.code(), Some(0), "{args}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "{args}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn an_unwritable_stdout_is_one_line_and_status_1() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // not Linux: nothing to check
    };
    let out = Command::new(BIN).arg("list").stdout(full).output().expect("skblab runs");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_one_line(&stderr, &["list > /dev/full"]);
    assert!(stderr.contains("cannot write the output"), "{stderr}");
}

/// `validate <id> --format json`: one object with the contract's names; the table
/// and CSV forms carry the same tables and the budget line; progress goes to stderr only.
#[test]
fn validate_prints_the_contracts_figures() {
    let out = skblab(&["validate", "skb-layout", "--format", "json", "--seeds", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("validate --format json is one JSON value");
    assert!(v["model_version"].is_string());
    let tables = v["tables"].as_array().expect("tables is an array");
    let specs = skblab_core::find("skb-layout").unwrap().tables();
    assert_eq!(tables.len(), specs.len());
    for (t, spec) in tables.iter().zip(&specs) {
        assert_eq!(t["experiment"], "skb-layout");
        assert_eq!(t["table"], spec.table);
        assert_eq!(t["verdict"], spec.verdict().name());
        assert!(["prediction", "fit", "arithmetic"].contains(&t["verdict"].as_str().unwrap()));
        assert_eq!(t["targets"], spec.targets);
        assert_eq!(t["fitted"], spec.fitted.len());
        for k in ["in_sample_mape", "out_of_sample_mape", "curve_mape"] {
            assert!(t[k].is_null() || t[k].is_number(), "{k}: {}", t[k]);
        }
    }
    let text = String::from_utf8(skblab(&["validate", "skb-layout", "--seeds", "1"]).stdout).unwrap();
    assert!(text.contains("seed001-layout") && text.contains("arithmetic") && text.contains("budget: "), "{text}");
    let csv = String::from_utf8(skblab(&["validate", "skb-layout", "--format", "csv"]).stdout).unwrap();
    assert!(csv.starts_with("experiment,table,verdict,targets,fitted,"), "{csv}");
    assert_eq!(csv.lines().count(), specs.len() + 1);
}

/// `reproduce` names each table's verdict and degrees of freedom; `--bands N` on an experiment
/// without uncertain quantities says so in one line and still reproduces.
#[test]
fn reproduce_prints_verdicts_and_says_when_there_is_no_band() {
    let out = skblab(&["reproduce", "skb-layout", "--seeds", "1", "--bands", "2"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("verdict seed001-layout arithmetic: 4 numbers, 0 fitted"), "{text}");
    assert_eq!(text.matches("declares no uncertain quantities").count(), 1, "{text}");
    let json = skblab(&["reproduce", "skb-layout", "--format", "json", "--seeds", "1"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["tables"][0]["verdict"], "arithmetic");
    assert_eq!(v["tables"][0]["targets"], 4);
}

/// Every number is plain decimal, every error names the form and the range.
#[test]
fn numbers_are_strict_and_errors_name_form_and_range() {
    for (flag, range) in
        [("--seeds", "1..=50"), ("--rounds", "0..=14"), ("--starts", "0..=64"), ("--coarse-seeds", "1..=50")]
    {
        for bad in ["abc", " 1", "1 ", "+1", "01", "1\n", "1\u{3000}", "\u{a0}1"] {
            bad_input(&["calibrate", "high-order-alloc", flag, bad], &[flag, range, "whole number", "plain decimal"]);
        }
    }
    for bad in ["abc", " 1", "+1", "01", "1\t"] {
        bad_input(&["run", "skb-layout", "--seed", bad], &["--seed", "whole number", "plain decimal"]);
        bad_input(&["reproduce", "skb-layout", "--bands", bad], &["--bands", "1..=64"]);
    }
    let e = bad_input(&["calibrate", "high-order-alloc", "--seeds", "abc"], &[]);
    assert!(!e.contains("invalid digit"), "{e}");
    for bad in ["mtu=\t+0009000\r", "mtu=9000\n", "mtu=+9000", "mtu=09000", "mtu=9000\u{2028}", "mtu=\u{3000}9000"] {
        bad_input(&["run", "skb-layout", "--set", bad], &["'mtu'"]);
    }
    bad_input(&["run", "skb-layout", "--set", "preset=linux-6.4-x86_64\n"], &["'preset'"]);
    bad_input(&["run", "high-order-alloc", "--set", "smt=yes"], &["'smt'", "true or false"]);
    bad_input(&["run", "high-order-alloc", "--set", "smt=1"], &["'smt'", "true or false"]);
    bad_input(&["run", "skb-layout", "--set"], &["missing value for --set", "name=value"]);
    bad_input(&["calibrate", "high-order-alloc", "--seeds"], &["missing value for --seeds", "1..=50"]);
    assert_eq!(skblab(&["run", "skb-layout", "--set", "mtu=9000", "--seed", "0"]).status.code(), Some(0));
}

/// `--jobs` and `measure`'s numeric flags take plain decimal in their range, like every other
/// number of the CLI, and say so.
#[test]
fn jobs_and_measure_numbers_are_strict() {
    for bad in ["+4", "04", " 4", "4 ", "4\u{200b}", "x", "0", "257", "-1", "4.0"] {
        bad_input(&["--jobs", bad, "list"], &["--jobs", "1..=256", "whole number", "plain decimal"]);
        bad_input(&["list", "--jobs", bad], &["--jobs", "1..=256"]);
    }
    bad_input(&["list", "--jobs"], &["missing value for --jobs", "1..=256"]);
    assert_eq!(skblab(&["--jobs", "2", "list"]).status.code(), Some(0));
    let flags = [("--seconds", "1..=60"), ("--runs", "1..=20"), ("--max-flows", "1..=8"), ("--max-foreign", "1..=100")];
    for (flag, range) in [&flags[..], &[("--retries", "0..=5")]].concat() {
        for bad in ["+1", "01", " 1", "1\u{feff}", "x", "-1", "999"] {
            bad_input(&["measure", "stream", "--dry-run", flag, bad], &[flag, range, "whole number", "plain decimal"]);
        }
        bad_input(&["measure", "stream", "--dry-run", flag], &["missing value for", flag, range]);
        assert_eq!(skblab(&["measure", "stream", "--dry-run", flag, "1"]).status.code(), Some(0), "{flag} 1");
    }
    bad_input(&["measure", "stream", "--dry-run", "--kib", "08"], &["'08'", "4, 16, 64"]);
}

/// The rejections clap words (a repeated option, a value for a switch, options that do not
/// go together, a missing value) say what is allowed too.
#[test]
fn every_kind_of_rejection_says_what_is_allowed() {
    bad_input(&["run", "skb-layout", "--format", "json", "--format", "csv"], &["--format given twice", "at most once"]);
    bad_input(&["run", "skb-layout", "--seed", "1", "--seed", "2"], &["--seed given twice", "at most once"]);
    bad_input(&["run", "skb-layout", "--allow-long=yes"], &["'yes' for --allow-long", "takes no value"]);
    bad_input(&["calibrate", "skb-layout", "--sensitivity=1"], &["'1' for --sensitivity", "takes no value"]);
    bad_input(&["measure", "--list", "stream"], &["--list cannot be used with", "one of them"]);
    bad_input(&["measure", "--list", "--dry-run"], &["--list cannot be used with --dry-run"]);
    let machine = ["calibrate", "high-order-alloc", "--machine", "m.json"];
    bad_input(&[&machine[..], &["--rounds", "3"]].concat(), &["--machine cannot be used with --rounds"]);
    bad_input(&[&machine[..], &["--sensitivity"]].concat(), &["cannot be used with --sensitivity"]);
    bad_input(&["calibrate", "high-order-alloc", "--format", "json"], &["missing --machine", "usage:"]);
    bad_input(
        &[&machine[..], &["--format", "csv"]].concat(),
        &["bad value 'csv' for --format", "expected one of table, json"],
    );
    bad_input(&["calibrate", "high-order-alloc", "--machine"], &["missing value for --machine", "measurement file"]);
    bad_input(&["measure", "stream", "--out"], &["missing value for --out", "path"]);
    bad_input(&["measure", "stream", "--note"], &["missing value for --note", "text"]);
}

/// Invisible characters in user input (format characters, odd spaces, a byte-order mark) are
/// escaped in every message that echoes it, like control characters.
#[test]
fn invisible_characters_are_escaped_in_every_echo() {
    bad_input(&["run", "skb-layout", "--set", "mtu=9\u{200b}000"], &["'9\\u{200b}000'"]);
    bad_input(&["run", "skb-layout", "--set", "m\u{ad}tu=9000"], &["unknown parameter 'm\\u{ad}tu'"]);
    bad_input(&["run", "sk\u{2060}b-layout"], &["unknown experiment 'sk\\u{2060}b-layout'"]);
    bad_input(&["\u{feff}list"], &["unknown command '\\u{feff}list'"]);
    bad_input(&["run", "skb-layout", "--format", "json\u{a0}"], &["'json\\u{a0}'", "table, csv, json"]);
    bad_input(&["measure", "str\u{200d}eam", "--dry-run"], &["unknown suite 'str\\u{200d}eam'", "layout"]);
    bad_input(&["--jobs", "\u{3000}4", "list"], &["'\\u{3000}4'", "1..=256"]);
    let path = "/nonexistent/\u{1b}[2J\u{202e}m.json";
    bad_input(
        &["calibrate", "high-order-alloc", "--machine", path],
        &["cannot read /nonexistent/\\u{1b}[2J\\u{202e}m.json"],
    );
    bad_input(&["calibrate", "sk\u{200b}b", "--machine", "m.json"], &["not 'sk\\u{200b}b'"]);
}

#[test]
fn invalid_utf8_names_the_argument_and_version_takes_no_arguments() {
    use std::os::unix::ffi::OsStrExt;
    let bad = std::ffi::OsStr::from_bytes(b"mtu=\xff9000");
    let out = Command::new(BIN).args(["run".as_ref(), "skb-layout".as_ref(), "--set".as_ref(), bad]).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_one_line(&stderr, &["non-UTF-8"]);
    assert!(stderr.contains("argument 4") && stderr.contains("after '--set'") && stderr.contains("UTF-8"), "{stderr}");
    bad_input(&["--version", "extra"], &["--version takes no other arguments", "extra"]);
    bad_input(&["-V", "run"], &["--version takes no other arguments"]);
}

/// A closed stdout or one opened read-only is a write failure: exit 1, one line.
#[test]
fn a_closed_or_read_only_stdout_is_status_1() {
    for script in ["exec \"$0\" list >&-", "exec \"$0\" list 1</dev/null", "exec \"$0\" run skb-layout >&-"] {
        let out = Command::new("bash").args(["-c", script, BIN]).output().expect("bash runs");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{script}: {stderr}");
        assert_one_line(&stderr, &[script]);
        assert!(stderr.contains("cannot write the output"), "{script}: {stderr}");
    }
    // A redirection to /dev/null is a normal, successful write.
    let out = Command::new("bash").args(["-c", "exec \"$0\" list >/dev/null", BIN]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The 196-second sweep is refused without --allow-long, in one line naming the
/// estimate and the flag; calibrate prints its evaluation count and ETA first.
#[test]
fn long_sweeps_need_allow_long_and_calibrate_says_its_eta() {
    let long = [
        "run",
        "high-order-alloc",
        "--set",
        "sockets=8",
        "--set",
        "cpus=512",
        "--set",
        "max_threads=256",
        "--set",
        "measure_us=20000",
        "--set",
        "warmup_us=10000",
        "--set",
        "msg_bytes=4096",
    ];
    bad_input(&long, &["256 points", "simulated events", "s of one core", "--allow-long"]);
    // --allow-long is accepted (the run itself is not made here: a bad seed stops it first).
    bad_input(&[&long[..], &["--allow-long", "--seed", "x"]].concat(), &["--seed"]);
    let out = Command::new(BIN)
        .args(["calibrate", "page-frag-free", "--rounds", "0", "--seeds", "1"])
        .output()
        .expect("skblab runs");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.contains("at most 1 evaluations") && first.contains("ETA"), "{stderr}");
}

/// A run without meaningful values shows `–` and says why, in every format.
#[test]
fn missing_values_are_marked_and_noted_in_every_format() {
    let args = ["run", "page-frag-free", "--set", "warmup_us=0", "--set", "measure_us=100", "--set", "offered_kpps=10"];
    let json = skblab(&[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(v["rows"][0]["gain_pct"].is_null() && v["rows"][0]["drop_pct"].is_null(), "{v}");
    assert!(v["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("gain_pct")), "{v}");
    let table = String::from_utf8(skblab(&args).stdout).unwrap();
    assert!(table.lines().any(|l| l.starts_with("gain_pct") && l.ends_with('–')), "{table}");
    assert!(table.contains("note: row 1"), "{table}");
    let default = skblab(&["run", "skb-layout", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&default.stdout).unwrap();
    assert_eq!(v["notes"], serde_json::json!([]));
}

/// A cell that has no value in its row (skb-cache's memory rows leave the simulated columns
/// empty, its simulated row the memory columns) is `null` in JSON, never `""`.
#[test]
fn cells_without_a_value_in_their_row_are_null_in_json() {
    let json = skblab(&["run", "skb-cache", "--set", "measure_us=200", "--set", "flows=112", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert!(rows[0]["mem_on_gib"].is_null() && rows[1]["mpps"].is_null(), "{v}");
    assert!(!String::from_utf8_lossy(&json.stdout).contains("\"\""), "{v}");
}

/// `reproduce`, `validate` and `calibrate` print their estimate and refuse work above the
/// 60-second limit without `--allow-long`, as `run` does; the estimates count the runs each
/// really makes (high-order-alloc's 50 seeds and 64 band samples once passed as one run's).
#[test]
fn long_reproduce_validate_and_calibrate_are_refused() {
    let limit = "above the limit of 60 s: pass --allow-long to run it anyway";
    bad_input(
        &["reproduce", "high-order-alloc", "--seeds", "50", "--bands", "64"],
        &["reproduce high-order-alloc over 50 seeds with 64 band samples", limit],
    );
    bad_input(&["validate", "--seeds", "50"], &["validate over 50 seeds", limit]);
    bad_input(&["validate", "high-order-alloc", "--seeds", "50"], &[limit]);
    bad_input(&["calibrate", "high-order-alloc"], &["calibrate high-order-alloc: at most", limit]);
    bad_input(&["calibrate", "high-order-alloc", "--sensitivity", "--seeds", "50"], &["--sensitivity", limit]);
    let e = skblab_core::find("high-order-alloc").unwrap();
    let repro = e.native_seconds(&e.reproduce_estimate(5));
    assert!((1.0..60.0).contains(&repro), "the default reproduction runs: {repro} s");
    let pff = skblab_core::find("page-frag-free").unwrap();
    // Its figures run the router before the fix and the x86 and Cortex-A53 pairs, not the
    // router's pair the defaults run.
    assert_ne!(pff.reproduce_estimate(1), pff.estimate(&pff.reproduce_params()));
}

/// A parameter given twice is refused (the two values named), as a repeated option is: the
/// run would otherwise take the last value silently.
#[test]
fn a_parameter_set_twice_is_refused() {
    bad_input(
        &["run", "skb-layout", "--set", "mtu=1500", "--set", "mtu=9000"],
        &["parameter 'mtu' is set twice ('1500', then '9000')", "at most once"],
    );
    bad_input(&["run", "skb-layout", "--set", "mtu=9000", "--set", "mtu=9000"], &["'mtu' is set twice"]);
    bad_input(
        &["run", "high-order-alloc", "--set", "smt=true", "--set", "cpus=4", "--set", "smt=false"],
        &["'smt' is set twice ('true', then 'false')"],
    );
    // The second value is still checked first: a bad one says what is allowed.
    bad_input(&["run", "skb-layout", "--set", "mtu=1500", "--set", "mtu=\u{1b}[2J"], &["'\\u{1b}[2J'", "'mtu'"]);
}

/// `skblab reproduce` gives seed 000's fitted count as `skblab validate` and the Validation
/// page do: the constants fitted to the table and the hand-set ones counted as fitted.
#[test]
fn reproduce_counts_fitted_constants_as_validate_does() {
    let v = skblab_core::validate::snapshot().expect("the committed snapshot");
    let t = v.tables.iter().find(|t| t.table == "seed000").expect("seed000 in the snapshot");
    let text = skblab_core::validate::verdict_lines(&skblab_core::experiments::high_order_alloc::HighOrderAlloc);
    let want = format!("{} numbers, {} fitted: ", t.targets, t.fitted);
    assert!(text.contains(&want), "{want} in {text}");
    assert!(text.contains(&format!("and {} hand-set counted as fitted", t.counted_as_fitted.len())), "{text}");
    assert!(!text.contains("1 numbers"), "{text}");
}
