//! The measurement file's schema and parser: round trip, version, hostile and truncated files
//! rejected with one line each; the tools' parsers on real-looking outputs.

use super::file::*;
use super::plan::{self, Options, Reading};
use super::tools;
use std::collections::BTreeMap;

fn sample(v: f64) -> Sample {
    Sample { value: v, foreign_cpu_pct: 1.0, contaminated: false, attempts: 1 }
}

fn example() -> Measurement {
    let stream = Suite {
        commands: vec!["iperf3 -c 127.0.0.1 -t 5 -l 64K -P 1 -J".into()],
        cells: vec![Cell::new(
            "tcp-1flow-64k-order3",
            "throughput",
            "Mbit/s",
            &[("flows", 1.0), ("msg_bytes", 65536.0), ("order", 3.0)],
            vec![sample(30_000.0), sample(32_000.0), sample(31_000.0)],
        )],
        texts: BTreeMap::new(),
    };
    Measurement {
        schema_version: SCHEMA_VERSION,
        tool: "skblab measure test".into(),
        note: String::new(),
        taken: "2026-12-02T00:00:00Z".into(),
        kernel: Kernel { release: "6.18.0".into(), version: "#1".into(), sysctls: BTreeMap::new() },
        machine: Machine {
            cpus: 2,
            model: "AMD EPYC".into(),
            cpu: "AuthenticAMD family 26 model 2".into(),
            family: "zen5-guest".into(),
            hypervisor: "KVM".into(),
            pmu: false,
        },
        suites: [("stream".to_string(), stream)].into_iter().collect(),
    }
}

#[test]
fn round_trip_and_summary() {
    let m = example();
    let c = &m.suites["stream"].cells[0];
    assert_eq!((c.median, c.min, c.max), (31_000.0, 30_000.0, 32_000.0));
    assert_eq!(parse(&m.to_json()), Ok(m));
}

#[test]
fn contaminated_samples_are_left_out_of_the_summary_unless_all_are() {
    let mut s = vec![sample(10.0), sample(20.0)];
    s[1].contaminated = true;
    let c = Cell::new("x", "m", "u", &[], s.clone());
    assert_eq!((c.median, c.contaminated()), (10.0, false));
    s[0].contaminated = true;
    let c = Cell::new("x", "m", "u", &[], s);
    assert_eq!((c.median, c.contaminated()), (15.0, true));
}

fn rejects(text: &str, needle: &str) {
    let e = parse(text).expect_err(text.get(..text.len().min(80)).unwrap_or(""));
    assert!(!e.contains('\n') && e.len() < 400, "not one line: {e}");
    assert!(e.contains(needle), "'{e}' does not say '{needle}'");
}

#[test]
fn version_truncation_and_hostile_files_are_one_line_errors() {
    let good = example().to_json();
    rejects("", "empty");
    rejects(&good[..good.len() / 2], "not valid JSON");
    rejects("[1,2]", "not an object");
    rejects("{\"a\":1}", "no schema_version");
    rejects(&good.replace("\"schema_version\": 1", "\"schema_version\": 99"), "schema_version 99");
    rejects(&good.replace("\"cpus\": 2", "\"cpus\": 0"), "machine.cpus");
    rejects(&good.replace("\"median\": 31000.0", "\"median\": 99.0"), "do not match");
    rejects(&good.replace("\"value\": 30000.0", "\"value\": -1.0"), "non-negative");
    rejects(&good.replace("\"stream\": {", "\"bogus\\u001b[31m\": {"), "unknown suite");
    rejects(&good.replace("\"tool\"", "\"extra\": 1, \"tool\""), "unknown field");
    rejects(&"[".repeat(100_000), "not valid JSON");
    rejects(&format!("{{\"schema_version\":1,\"x\":\"{}\"}}", "a".repeat(MAX_FILE_BYTES)), "more than");
    rejects(&good.replace("\"tool\": \"skblab measure test\"", "\"tool\": 7"), "invalid type");
}

#[test]
fn plans_name_their_suites_and_dry_run_restores_the_sysctl() {
    let o = Options::default();
    for s in plan::SUITES {
        let p = plan::plan(s, &o).expect(s);
        assert!(!p.cells.is_empty(), "{s}");
    }
    assert!(plan::plan("nope", &o).unwrap_err().contains("expected one of layout"));
    let p = plan::plan("stream", &o).unwrap();
    assert_eq!(p.cells.len(), 12);
    let cmds = plan::commands(&p, Some("0"));
    assert!(cmds.last().unwrap().starts_with("sysctl -w net.core.high_order_alloc_disable=0"));
    assert!(cmds.iter().any(|c| c.contains("iperf3 -c 127.0.0.1") && c.contains("-l 64K")));
    let p = plan::plan("sched", &o).unwrap();
    let ids: Vec<&str> = p.cells.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, plan::SCHED_CELLS.map(|c| c.0).to_vec());
    let cmds = plan::commands(&p, None).join("\n");
    assert!(cmds.contains("taskset -c 0 perf bench sched pipe -l 100000"), "{cmds}");
    assert!(cmds.contains("' ring 20000 1 0") && cmds.contains("perf bench sched messaging -g 1 -l 2000"), "{cmds}");
    assert!(!cmds.contains("sysctl") && cmds.contains("cat /sys/module/haltpoll/parameters/guest_halt_poll_ns"));
}

#[test]
fn sched_outputs_parse() {
    let pipe = "# Running 'sched/pipe' benchmark:\n# Executed 100000 pipe operations between two processes\n\n     Total time: 0.373 [sec]\n\n       3.733210 usecs/op\n         267865 ops/sec\n";
    assert_eq!(tools::read(Reading::PerfPipeUs, &[pipe.into()]), Ok(3.73321));
    let dd = "20000+0 records in\n20000+0 records out\n20000 bytes (20 kB, 20 KiB) copied, 2.5 s, 8.0 kB/s\n";
    assert_eq!(tools::read(Reading::DdRingUs, &[dd.into()]), Ok(125.0));
    let msg = "# 20 sender and receiver processes per group\n# 1 groups == 40 processes run\n\n     Total time: 1.040 [sec]\n";
    let v = tools::read(Reading::PerfMessagingUs(800_000), &[msg.into()]).unwrap();
    assert!((v - 1.3).abs() < 1e-9, "{v}");
    for junk in
        ["", "0 usecs/op", "-1 usecs/op", "NaN usecs/op", "0 bytes copied, 1 s", "x copied, 1 s", "Total time: inf"]
    {
        for r in [Reading::PerfPipeUs, Reading::DdRingUs, Reading::PerfMessagingUs(1)] {
            assert!(tools::read(r, &[junk.into()]).is_err(), "{r:?} on {junk:?}");
        }
    }
}

#[test]
fn tool_outputs_parse() {
    let tcp = r#"{"start":{},"end":{"sum_received":{"bits_per_second":2.5e10}}}"#;
    assert_eq!(tools::read(Reading::Iperf3Mbps, &[tcp.into()]), Ok(25_000.0));
    let udp = r#"{"end":{"sum":{"packets":1000,"lost_packets":100,"seconds":2.0}}}"#;
    assert_eq!(tools::iperf3_pps(udp), Ok(450.0));
    assert!(tools::iperf3_mbps(r#"{"error":"unable to connect"}"#).unwrap_err().contains("unable to connect"));
    let sp = "sockperf: Summary: Latency is 12.5 usec\nsockperf: ====> avg-lat= 12.345 (std-dev=1.2)\n";
    assert_eq!(tools::sockperf_latency_us(sp), Ok(12.345));
    assert_eq!(tools::pahole_size("struct x {\n\t/* size: 232, cachelines: 4, members: 28 */\n};"), Ok(232.0));
    let shinfo =
        "\tatomic_t dataref; /* 32 4 */\n\tskb_frag_t                 frags[17];            /*    48   272 */\n";
    assert_eq!(tools::pahole_array(shinfo, "frags"), Ok((48, 17)));
    assert!(tools::pahole_array(shinfo, "frag_list").unwrap_err().contains("no 'frag_list[N]'"));
    assert!(tools::pahole_array("\tu8 frags[N]; /* 48 */", "frags").unwrap_err().contains("not an array length"));
    let stat = "cpu  100 0 50 800 10 0 5 0 0 0\ncpu0 1 2 3\n";
    let t = tools::proc_stat(stat).unwrap();
    assert_eq!((t.busy, t.softirq, t.total), (155, 5, 965));
    let after = tools::CpuTimes { busy: 255, softirq: 15, total: 1165 };
    assert!((tools::foreign_pct(t, after, 40) - 25.0).abs() < 1e-9);
    // Fields 14-17 (utime, stime, cutime, cstime) after the name: 11, 7, 3, 2.
    assert_eq!(tools::self_ticks("42 (a b) c) S 1 2 3 4 5 6 7 8 9 10 11 7 3 2 1 0 0"), Ok(23));
    let zi = "Node 0, zone    DMA32\n  pages free 5\n        managed  100\n  pagesets\n    cpu: 0\n              count: 3\n              high:  42\n              batch: 7\nNode 0, zone   Normal\n        managed  5000\n  pagesets\n    cpu: 0\n              count: 9\n              high:  1234\n              batch: 63\n    cpu: 1\n              high:  1\n              batch: 1\n";
    assert_eq!(tools::zoneinfo_pcp(zi), Ok((1234.0, 63.0)));
    let perf = "iperf3 123 [000] 1.0: cpu-clock:\n\tffff copy_user+0x10 (k)\n\tffff tcp_sendmsg+0x20 (k)\n\niperf3 123 [000] 1.1: cpu-clock:\n\tffff copy_user+0x10 (k)\n\tffff tcp_sendmsg+0x20 (k)\n";
    assert_eq!(tools::fold_perf_script(perf, 1000), "iperf3;tcp_sendmsg;copy_user 2\n");
    assert_eq!(tools::fold_perf_script(perf, 10), "");
    for junk in ["", "}", "cpu", "\u{0}\u{1b}", "Node", "avg-lat="] {
        for r in [
            Reading::Iperf3Mbps,
            Reading::Iperf3Pps,
            Reading::SockperfLatencyUs,
            Reading::PaholeSize,
            Reading::Number,
            Reading::PcpHigh,
        ] {
            assert!(tools::read(r, &[junk.into()]).is_err(), "{r:?} on {junk:?}");
        }
        assert!(tools::proc_stat(junk).is_err() && tools::self_ticks(junk).is_err());
    }
}

#[test]
fn a_file_with_the_wake_cells_is_predicted_with_its_own_waker_side() {
    use crate::sim::catalogue::{FamilyId, GENOA_GUEST_2026};
    let out = "pipe block gap_us=50 iters=2000 call p10=6400 p50=8520 p90=9900 p99=20000 cpu p10=1 p50=2 p90=3 p99=4 wake p10=1 p50=2 p90=3 p99=4 rt p10=1 p50=2 p90=3 p99=4 preempted=0\n";
    assert_eq!(tools::read(Reading::WakerCallUs, &[out.into()]), Ok(8.52));
    for junk in ["", "call p50=0", "call p50=-3", "call p10=1", "pipe block call p50=x"] {
        assert!(tools::read(Reading::WakerCallUs, &[junk.into()]).is_err(), "{junk:?}");
    }
    let mut m = example();
    let mut notes = Vec::new();
    // Files measured before the wake cells have neither: the catalogue's value.
    assert_eq!(super::profile::measured_ipi_send_ns(&m), None);
    let k = super::profile::kernel_for(&m, FamilyId::GenoaGuest, &mut notes);
    assert_eq!(k.ipi_send_ns, GENOA_GUEST_2026.ipi_send_ns);
    assert!(notes.is_empty());
    let wake = |id: &str, pinned: f64, us: f64| {
        Cell::new(id, "waker_call", "us", &[("pinned_cpus", pinned), ("wakeups", 2000.0)], vec![sample(us)])
    };
    let cells = vec![wake(plan::WAKE_CROSS_CELL, 2.0, 8.52), wake(plan::WAKE_SAME_CELL, 1.0, 1.98)];
    m.suites.insert("sched".into(), Suite { commands: vec![], cells, texts: BTreeMap::new() });
    let ns = super::profile::measured_ipi_send_ns(&m).expect("both cells");
    assert!((ns - 6540.0).abs() < 1e-6, "{ns}");
    let k = super::profile::kernel_for(&m, FamilyId::GenoaGuest, &mut notes);
    assert!((k.ipi_send_ns.value - 6540.0).abs() < 1e-6 && notes.len() == 1, "{notes:?}");
    // The file's schema takes the cells (the parser is strict about the sched suite).
    let text = serde_json::to_string(&m).expect("serializes");
    assert!(parse(&text).is_ok(), "{:?}", parse(&text).err());
    // A same-CPU call dearer than the cross-CPU one is no IPI cost: the catalogue's.
    m.suites.get_mut("sched").expect("sched").cells[1] = wake(plan::WAKE_SAME_CELL, 1.0, 9.0);
    assert_eq!(super::profile::measured_ipi_send_ns(&m), None);
}
