//! The hostile-input corpus of the measurement parser (`tests/data/hostile-measure/`), run on
//! the way in the CLI and the page use: [`file::read_limited`], [`file::parse`],
//! [`fit::MachineFit::new`].
//!
//! - `reject/`: files that must be refused — with one printable line, never a panic, in bounded
//!   time. Broken JSON, other schemas, repeated keys, numbers out of range, hostile names,
//!   stream and layout cells other than the ones the fit simulates as given.
//! - `accept/`: legal files that carry hostile texts (escape sequences, fake lines, invisible
//!   characters) or values (zero, tiny, 4096 CPUs): they parse, the fit's estimate bounds
//!   its work, and the report says nothing false and prints nothing a terminal would act on.
//!
//! Files too large to keep (over the size limit, endless) are made here.

use skblab_core::machine::file::{self, MAX_FILE_BYTES};
use skblab_core::machine::fit::{self, MachineFit, MachineReport};
use std::path::PathBuf;
use std::time::Duration;

fn corpus(part: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile-measure").join(part);
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).expect("readable")))
        .collect();
    v.sort();
    v
}

/// The way in, as the CLI takes it: bytes → text → measurement → a fit set up.
fn way_in(bytes: &[u8]) -> Result<MachineFit, String> {
    let text = file::read_limited(bytes)?;
    let m = file::parse(&text)?;
    MachineFit::new(&m)
}

/// One line, nothing invisible, bounded.
fn assert_printable_line(name: &str, line: &str, max_chars: usize) {
    assert!(!line.is_empty(), "{name}: empty message");
    let bad: Vec<char> = line.chars().filter(|&c| skblab_core::params::is_invisible(c)).collect();
    assert!(bad.is_empty(), "{name}: {bad:?} raw in {line:?}");
    assert!(line.chars().count() <= max_chars, "{name}: {} characters: {line}", line.chars().count());
}

#[test]
fn every_rejected_file_is_one_printable_line_in_bounded_time() {
    let files = corpus("reject");
    assert!(files.len() >= 50, "{} files", files.len());
    for (name, bytes) in files {
        #[expect(
            clippy::disallowed_types,
            clippy::disallowed_methods,
            reason = "the bound on parsing is wall time, outside the model"
        )]
        let t0 = std::time::Instant::now();
        let outcome = std::panic::catch_unwind(|| way_in(&bytes).map(|_| ()));
        let elapsed = t0.elapsed();
        let e = match outcome {
            Ok(Err(e)) => e,
            Ok(Ok(())) => panic!("{name}: accepted"),
            Err(_) => panic!("{name}: panicked"),
        };
        assert_printable_line(&name, &e, 400);
        assert!(elapsed < Duration::from_secs(5), "{name}: {elapsed:?}");
    }
}

/// Each refusal names what is wrong and what is allowed (a sample of the corpus).
#[test]
fn refusals_say_what_is_allowed() {
    let files: std::collections::BTreeMap<String, Vec<u8>> = corpus("reject").into_iter().collect();
    let error = |name: &str| way_in(&files[name]).err().unwrap_or_else(|| panic!("{name} accepted"));
    for (name, needles) in [
        ("duplicate-key.json", &["'cpus' appears twice", "each key once"][..]),
        ("duplicate-schema-version.json", &["'schema_version' appears twice"]),
        ("schema-version-float.json", &["schema_version 1.0 is not supported", "version 1"]),
        ("schema-version-string.json", &["schema_version \"1\"", "version 1"]),
        ("no-schema-version.json", &["no schema_version", "version 1"]),
        ("invalid-utf8.json", &["not UTF-8", "offset"]),
        ("no-suites.json", &["no suites", "layout, stream, udp, rr, state"]),
        ("duplicate-cell-id.json", &["not unique", "expected an id no other cell"]),
        ("cpus-4097.json", &["4097", "1..=4096"]),
        ("suite-name-escape.json", &["unknown suite '\\u{1b}[2J\\u{1b}[H'", "expected one of layout"]),
        ("suite-name-newline.json", &["'stream\\n[fake] all good'"]),
        ("unknown-field-escape.json", &["\\u{1b}]0;owned\\u{7}"]),
        ("unknown-field-bidi.json", &["\\u{202e}gnp.exe"]),
        (
            "family-unknown-escape.json",
            &["'\\u{1b}[1mzen9\\u{1b}[0m'", "expected one of zen5-guest, milan-guest, emr-guest"],
        ),
        ("sched-unknown-cell.json", &["suite sched, cell 'pipe-remote'", "not a sched cell", "pipe-same-cpu"]),
        ("sched-wrong-unit.json", &["metric 'throughput' in 'Mbit/s'", "expected 'round_trip' in 'us'"]),
        ("sched-zero-latency.json", &["0 us is not a wait", "more than 0"]),
        ("median-mismatch-tiny.json", &["median/min/max 1e-300/232/232", "samples (232/232/232)"]),
        ("negative-tiny.json", &["-1e-300 is not a finite non-negative number"]),
        ("sched-huge-latency.json", &["5000000 us is not a wait", "at most 1e6 us"]),
        (
            "sched-setting-extra.json",
            &["setting {flows, pinned_cpus, round_trips}", "expected {pinned_cpus, round_trips}"],
        ),
        ("sched-fraction-count.json", &["pinned_cpus must be a whole", "round_trips a whole 1..=1e9"]),
        ("sched-unknown-text.json", &["unknown text 'cmdline\\u{1b}[2J'", "cpuidle and halt-polling"]),
        ("negative-value.json", &["-1 is not a finite non-negative number"]),
        ("huge-values.json", &["1.7e308 is not a measurement", "at most 1e15"]),
        (
            "stream-settings-out-of-range.json",
            &["cell 'tcp-1flow-16k-order3': flows 1e300, msg_bytes 1e300, order 1e300", "flows a whole 1..=16"],
        ),
        ("stream-setting-empty.json", &["setting {}, expected {flows, msg_bytes, order}"]),
        ("stream-setting-extra.json", &["setting {flows, msg_bytes, order, same_cpu}"]),
        ("stream-unit-escape.json", &["in 'Mbit/s\\u{1b}]8;;http://x\\u{7}'", "expected 'throughput' in 'Mbit/s'"]),
        ("stream-metric-latency.json", &["metric 'latency' in 'us'"]),
        ("stream-flows-fraction.json", &["flows 1.5,"]),
        ("stream-msg-bytes-5000.json", &["msg_bytes 5000,", "a multiple of 4096 in 4096..=65536"]),
        ("stream-order-2.json", &["order 2:", "order 0 or 3"]),
        (
            "layout-unknown-cell.json",
            &["cell 'sk_buff\\u{1b}[2J': not a layout cell", "sk_buff, skb_shared_info, max_skb_frags, page_size"],
        ),
        ("layout-wrong-unit.json", &["metric 'size' in 'KiB' with 0 settings", "expected 'size' in 'bytes' with none"]),
    ] {
        let e = error(name);
        for n in needles {
            assert!(e.contains(n), "{name}: {e:?} lacks {n:?}");
        }
    }
}

/// A file larger than the limit is refused after reading at most limit + 1 bytes: an endless
/// reader (`/dev/zero`) ends.
#[test]
fn the_reader_stops_at_the_size_limit() {
    struct Endless {
        served: usize,
    }
    impl std::io::Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            assert!(self.served <= MAX_FILE_BYTES + 1, "bug: read {} bytes past the limit", self.served);
            buf.fill(b' ');
            self.served += buf.len();
            Ok(buf.len())
        }
    }
    let mut endless = Endless { served: 0 };
    let e = file::read_limited(&mut endless).unwrap_err();
    assert!(e.contains(&format!("larger than {MAX_FILE_BYTES} bytes")), "{e}");
    assert!(endless.served <= MAX_FILE_BYTES + 1 + 64 * 1024, "{} bytes read", endless.served);
    let exact = vec![b' '; MAX_FILE_BYTES];
    assert!(file::read_limited(exact.as_slice()).is_ok(), "a file of exactly the limit is read");
}

fn report_of(name: &str, bytes: &[u8]) -> (MachineFit, MachineReport) {
    let mut f = way_in(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let seconds = f.native_seconds();
    assert!(seconds < 1.0, "{name}: the corpus keeps small fits ({seconds} s)");
    while !f.finished() {
        f.step();
    }
    let r = f.report();
    (f, r)
}

#[test]
fn accepted_files_report_nothing_raw_and_nothing_false() {
    let files = corpus("accept");
    assert!(files.len() >= 6, "{} files", files.len());
    for (name, bytes) in files {
        let (_, r) = report_of(&name, &bytes);
        let table = r.to_table();
        for line in table.lines() {
            assert_printable_line(&name, line, 600);
        }
        assert!(!table.contains("inf") && !table.contains("NaN"), "{name}: {table}");
        let json = r.to_json();
        assert!(!json.chars().any(|c| skblab_core::params::is_invisible(c) && c != '\n'), "{name}: {json}");
        let back: MachineReport = serde_json::from_str(&json).expect("the report reads back");
        assert_eq!(back.to_json(), json, "{name}: the JSON is the same data");
        for p in &r.points {
            assert!(p.error_pct.is_nan() || p.error_pct.is_finite(), "{name}: {} error {}", p.cell, p.error_pct);
            if p.measured < fit::MEASURED_ZERO {
                assert!(p.error_pct.is_nan() && p.error_catalogue_pct.is_nan(), "{name}: {} measured 0", p.cell);
                assert!(["measured zero", "within spread"].contains(&p.verdict.as_str()), "{name}: {}", p.verdict);
                assert!(!p.used_for_fit, "{name}: a zero measurement is not fitted");
            }
        }
    }
}

#[test]
fn texts_from_the_file_are_escaped_in_the_table() {
    let (_, r) = report_of("escapes-everywhere.json", &corpus_file("accept", "escapes-everywhere.json"));
    let table = r.to_table();
    assert!(table.contains("6.1\\n[fake] all cells agree\\u{1b}[32m"), "{table}");
    assert!(table.contains("AMD \\u{1b}[31mEPYC\\u{1b}[0m\\u{200b}\\u{2028}\\u{85}xxx"), "{table}");
    assert!(table.contains("tcp\\u{1b}[1A\\u{1b}[2K-16k\\u{202e}"), "{table}");
    assert!(table.contains("Authentic\\u{1b}[8mAMD\\u{a0}family\\u{feff} 25"), "{table}");
    assert!(table.lines().all(|l| l.chars().count() <= 600), "the 500-character model is cut");
    let json = r.to_json();
    assert!(json.contains("\\u001b[31mEPYC") && json.contains("\\u200b\\u2028\\u0085"), "{json}");
}

#[test]
fn a_zero_or_tiny_measurement_has_no_percentage_error() {
    for name in ["measured-zero.json", "tiny-values.json"] {
        let (_, r) = report_of(name, &corpus_file("accept", name));
        let stream: Vec<_> = r.points.iter().filter(|p| p.suite == "stream").collect();
        assert_eq!(stream.len(), 2);
        for p in stream {
            assert_eq!(p.verdict, "measured zero", "{name}: {p:?}");
            assert!(p.error_pct.is_nan() && p.error_catalogue_pct.is_nan(), "{name}: {p:?}");
        }
        let table = r.to_table();
        let stream_lines = table.lines().filter(|l| l.starts_with("stream "));
        assert!(stream_lines.clone().count() == 2 && stream_lines.clone().all(|l| l.contains(" n/a ")), "{table}");
        assert!(stream_lines.clone().all(|l| !l.contains("agrees")), "{name}: {table}");
        assert!(table.contains("2 measured zero, no percentage error"), "{name}: {table}");
        let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert!(v["points"][1]["error_pct"].is_null(), "{name}: {}", v["points"][1]);
    }
    assert!(fit::error_pct(1.0, 0.0).is_nan() && fit::error_pct(1e308, 1e-300).is_nan());
    assert!((fit::error_pct(110.0, 100.0) - 10.0).abs() < 1e-9);
}

#[test]
fn more_cpus_than_simulated_is_said_in_one_note() {
    let (f, r) = report_of("cpus-4096.json", &corpus_file("accept", "cpus-4096.json"));
    assert_eq!(f.simulated_cpus(), 512);
    let notes: Vec<&String> = r.notes.iter().filter(|n| n.contains("4096 CPUs")).collect();
    assert_eq!(notes.len(), 1, "{:?}", r.notes);
    assert!(notes[0].contains("at most 512") && notes[0].contains("predicted on 512 cores"), "{}", notes[0]);
    assert!(r.profile.contains("× 512 cores"), "{}", r.profile);
}

fn corpus_file(part: &str, name: &str) -> Vec<u8> {
    corpus(part).into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{part}/{name}")).1
}

/// The fit's estimate counts only the threads the simulated cores run at once: 16 flows on 2
/// cores cost what 1 flow does, on 512 cores 16 times more.
#[test]
fn the_estimate_counts_the_cores_that_run() {
    let base = String::from_utf8(corpus_file("accept", "cpus-4096.json")).unwrap();
    let estimate = |cpus: u32, flows: u32| {
        let text = base
            .replace("\"cpus\": 4096", &format!("\"cpus\": {cpus}"))
            .replace("\"flows\": 1.0", &format!("\"flows\": {flows}.0"));
        way_in(text.as_bytes()).unwrap().estimate().events as f64
    };
    let close = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-3;
    assert!(close(estimate(2, 16), estimate(2, 1)), "{} {}", estimate(2, 16), estimate(2, 1));
    assert!(close(estimate(512, 16), 16.0 * estimate(512, 1)), "{} {}", estimate(512, 16), estimate(512, 1));
}

/// The most work a legal file can ask for (256 stream cells of 16 flows at 64 KiB, all fitted,
/// on the most cores simulated) is estimated at a bounded time of one core: the size limits
/// bound the fit.
#[test]
fn the_heaviest_legal_file_is_bounded() {
    let mut m = file::parse(&String::from_utf8(corpus_file("accept", "cpus-4096.json")).unwrap()).unwrap();
    let template = m.suites["stream"].cells[1].clone();
    m.suites.get_mut("stream").unwrap().cells = (0..file::MAX_CELLS)
        .map(|k| {
            let mut c = template.clone();
            c.id = format!("c{k}");
            c.setting.insert("flows".to_string(), 16.0);
            c
        })
        .collect();
    let m = file::parse(&m.to_json()).expect("the heaviest file is legal");
    let f = MachineFit::new(&m).unwrap();
    assert_eq!(f.total(), 2 * 256 + (fit::FIT_STEPS + 1) * 256);
    // About 71 s of one core at high-order-alloc's measured 6 M events/s: above the 60 s limit,
    // so the CLI asks for --allow-long and the page for a go-ahead; bounded all the same.
    let seconds = f.native_seconds();
    assert!(seconds > 10.0 && seconds <= 90.0, "{seconds} s");
}
