//! Parsers of what the measured machine prints: iperf3's `-J` report, sockperf's summary,
//! pahole's struct dump, `/proc/stat`, `/proc/self/stat`, `/proc/zoneinfo`, `perf script`
//! (folded into the `a;b;c N` stacks of the simulator's flame graphs). Each returns a value or
//! a one-line error; none panics on any text.

use super::plan::Reading;
use serde_json::Value;
use std::collections::BTreeMap;

/// The value of a cell from its clients' outputs (and the file it read, for facts).
pub fn read(reading: Reading, outputs: &[String]) -> Result<f64, String> {
    let first = outputs.first().map(String::as_str).unwrap_or("");
    let jsons = || outputs.iter().filter(|o| o.trim_start().starts_with('{'));
    match reading {
        Reading::Iperf3Mbps => sum(jsons().map(|o| iperf3_mbps(o))),
        Reading::Iperf3Pps => sum(jsons().map(|o| iperf3_pps(o))),
        Reading::SockperfLatencyUs => {
            let v: Result<Vec<f64>, String> = outputs.iter().map(|o| sockperf_latency_us(o)).collect();
            let v = v?;
            Ok(v.iter().sum::<f64>() / v.len().max(1) as f64)
        }
        Reading::PerfPipeUs => perf_pipe_us(first),
        Reading::DdRingUs => dd_ring_us(first),
        Reading::PerfMessagingUs(messages) => perf_messaging_us(first, messages),
        Reading::WakerCallUs => waker_call_us(first),
        Reading::PaholeSize => pahole_size(first),
        Reading::Number => {
            first.trim().parse::<f64>().map_err(|_| format!("expected one number, got '{}'", echo(first)))
        }
        Reading::PcpHigh => zoneinfo_pcp(first).map(|(h, _)| h),
        Reading::PcpBatch => zoneinfo_pcp(first).map(|(_, b)| b),
    }
}

fn echo(s: &str) -> String {
    crate::params::echo(s.trim())
}

fn sum(values: impl Iterator<Item = Result<f64, String>>) -> Result<f64, String> {
    let v: Vec<f64> = values.collect::<Result<_, _>>()?;
    if v.is_empty() {
        return Err("no iperf3 JSON report in the output".to_string());
    }
    Ok(v.iter().sum())
}

fn json(text: &str) -> Result<Value, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("iperf3 printed no valid JSON: {e}"))?;
    if let Some(err) = v.get("error").and_then(Value::as_str) {
        return Err(format!("iperf3: {}", echo(err)));
    }
    Ok(v)
}

fn num(v: &Value, path: &[&str]) -> Option<f64> {
    path.iter().try_fold(v, |v, k| v.get(k)).and_then(Value::as_f64).filter(|x| x.is_finite())
}

/// iperf3 TCP: the receiver's Mbit/s (`end.sum_received.bits_per_second`).
pub fn iperf3_mbps(text: &str) -> Result<f64, String> {
    let v = json(text)?;
    num(&v, &["end", "sum_received", "bits_per_second"])
        .map(|b| b / 1e6)
        .ok_or_else(|| "iperf3 report has no end.sum_received.bits_per_second".to_string())
}

/// iperf3 UDP: datagrams per second that arrived (packets less lost, over the seconds), from
/// `end.sum_received` when the version reports it, else `end.sum`.
pub fn iperf3_pps(text: &str) -> Result<f64, String> {
    let v = json(text)?;
    for key in ["sum_received", "sum"] {
        let (Some(p), Some(s)) = (num(&v, &["end", key, "packets"]), num(&v, &["end", key, "seconds"])) else {
            continue;
        };
        let lost = num(&v, &["end", key, "lost_packets"]).unwrap_or(0.0);
        if s > 0.0 {
            return Ok((p - lost).max(0.0) / s);
        }
    }
    Err("iperf3 UDP report has no end.sum packets and seconds".to_string())
}

/// sockperf ping-pong's average latency (`avg-lat= 12.345`), µs.
pub fn sockperf_latency_us(text: &str) -> Result<f64, String> {
    let after = text
        .rsplit_once("avg-lat=")
        .map(|(_, a)| a)
        .or_else(|| text.rsplit_once("avg-latency=").map(|(_, a)| a))
        .ok_or_else(|| "sockperf printed no avg-lat= summary".to_string())?;
    let word = after.split_whitespace().next().unwrap_or("");
    word.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| format!("bad sockperf avg-lat '{}'", echo(word)))
}

/// A positive finite number, or what was wrong with `word`.
fn positive(word: &str, what: &str) -> Result<f64, String> {
    word.parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0).ok_or_else(|| format!("bad {what} '{}'", echo(word)))
}

/// `perf bench sched pipe`'s `N usecs/op`: µs per round trip.
pub fn perf_pipe_us(text: &str) -> Result<f64, String> {
    let line = text.lines().find(|l| l.trim_end().ends_with("usecs/op"));
    let word = line.and_then(|l| l.split_whitespace().next()).ok_or("perf bench sched pipe printed no usecs/op")?;
    positive(word, "perf usecs/op")
}

/// dd's `N bytes (...) copied, S s, ...` of the ring's timing side: µs per round trip (one
/// byte each way per round trip).
pub fn dd_ring_us(text: &str) -> Result<f64, String> {
    let line = text.lines().find(|l| l.contains(" copied, ")).ok_or("dd printed no 'copied, S s' line")?;
    let bytes = positive(line.split_whitespace().next().unwrap_or(""), "dd byte count")?;
    let (_, after) = line.split_once(" copied, ").unwrap_or_default();
    let seconds = positive(after.split_whitespace().next().unwrap_or(""), "dd seconds")?;
    Ok(seconds * 1e6 / bytes)
}

/// tools/wake-cost's `wake`: the median of the waker's call (`call p10=A p50=NS ...`), µs.
pub fn waker_call_us(text: &str) -> Result<f64, String> {
    let (_, after) = text.split_once(" call ").ok_or("wake printed no 'call' percentiles")?;
    let p50 = after.split_whitespace().find_map(|w| w.strip_prefix("p50=")).unwrap_or("");
    Ok(positive(p50, "wake's call median")? / 1000.0)
}

/// `perf bench sched messaging`'s `Total time: S [sec]`: µs per message of `messages`.
pub fn perf_messaging_us(text: &str, messages: u32) -> Result<f64, String> {
    let (_, after) = text.split_once("Total time:").ok_or("perf bench sched messaging printed no 'Total time:'")?;
    let seconds = positive(after.split_whitespace().next().unwrap_or(""), "perf total time")?;
    Ok(seconds * 1e6 / f64::from(messages.max(1)))
}

/// pahole's `/* size: N, cachelines: ... */` of the struct printed.
pub fn pahole_size(text: &str) -> Result<f64, String> {
    let (_, after) = text.split_once("/* size: ").ok_or_else(|| "pahole printed no '/* size:' line".to_string())?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<f64>().map_err(|_| "pahole's size is not a number".to_string())
}

/// The array member `member[N]` of a pahole struct dump: (its offset, N), from its line
/// `type member[N]; /* offset size */` (`frags[17]` of `struct skb_shared_info`: MAX_SKB_FRAGS).
pub fn pahole_array(text: &str, member: &str) -> Result<(u64, u64), String> {
    let pattern = format!(" {member}[");
    let no_member = || format!("pahole printed no '{member}[N]' member");
    let (_, after) = text.lines().find_map(|l| l.split_once(&pattern)).ok_or_else(no_member)?;
    let (len, comment) = after.split_once(']').ok_or_else(no_member)?;
    let len = len.parse::<u64>().map_err(|_| format!("'{member}[{}]': not an array length", echo(len)))?;
    let offset = comment.split_once("/*").and_then(|(_, c)| c.split_whitespace().next());
    let offset = offset.and_then(|o| o.parse::<u64>().ok()).ok_or_else(|| format!("'{member}[]' has no offset"))?;
    Ok((offset, len))
}

/// CPU time counters of `/proc/stat`'s `cpu` line, in USER_HZ ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    /// user + nice + system + irq + softirq + steal.
    pub busy: u64,
    /// softirq alone (loopback's receive runs there; counted as the measurement's own).
    pub softirq: u64,
    /// busy + idle + iowait.
    pub total: u64,
}

/// The aggregate `cpu` line of `/proc/stat`.
pub fn proc_stat(text: &str) -> Result<CpuTimes, String> {
    let line = text.lines().find(|l| l.starts_with("cpu ")).ok_or_else(|| "/proc/stat has no cpu line".to_string())?;
    let f: Vec<u64> = line.split_whitespace().skip(1).map(|w| w.parse().unwrap_or(0)).collect();
    if f.len() < 8 {
        return Err("/proc/stat's cpu line has fewer than 8 fields".to_string());
    }
    let (user, nice, system, idle, iowait, irq, softirq, steal) = (f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
    let busy = user + nice + system + irq + softirq + steal;
    Ok(CpuTimes { busy, softirq, total: busy + idle + iowait })
}

/// utime + stime + cutime + cstime of `/proc/self/stat` (the process and its waited-for
/// children), ticks.
pub fn self_ticks(text: &str) -> Result<u64, String> {
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    let (_, rest) = text.rsplit_once(')').ok_or_else(|| "/proc/self/stat has no ')'".to_string())?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After ')' come state (field 3) ...; utime is field 14, i.e. index 11 here.
    let get = |i: usize| f.get(i).and_then(|w| w.parse::<i64>().ok()).unwrap_or(0).max(0) as u64;
    if f.len() < 15 {
        return Err("/proc/self/stat has too few fields".to_string());
    }
    Ok(get(11) + get(12) + get(13) + get(14))
}

/// Foreign CPU during a run, percent of all CPUs' time: what the counters grew by beyond the
/// measurement's own processes and the softirq time its traffic causes.
pub fn foreign_pct(before: CpuTimes, after: CpuTimes, own_ticks: u64) -> f64 {
    let total = after.total.saturating_sub(before.total);
    if total == 0 {
        return 0.0;
    }
    let busy = after.busy.saturating_sub(before.busy);
    let softirq = after.softirq.saturating_sub(before.softirq);
    busy.saturating_sub(softirq).saturating_sub(own_ticks) as f64 / total as f64 * 100.0
}

/// cpu 0's pageset `(high, batch)` in the zone with the most managed pages.
pub fn zoneinfo_pcp(text: &str) -> Result<(f64, f64), String> {
    let mut best: Option<(u64, f64, f64)> = None;
    for zone in text.split("\nNode ").map(|z| z.trim_start_matches("Node ")) {
        let field = |name: &str| -> Option<f64> {
            zone.lines()
                .find_map(|l| l.trim().strip_prefix(name).and_then(|r| r.split_whitespace().next()?.parse().ok()))
        };
        let managed = field("managed").unwrap_or(0.0) as u64;
        let Some(cpu0) = zone.split("cpu: 0").nth(1) else { continue };
        let get = |name: &str| cpu0.lines().find_map(|l| l.trim().strip_prefix(name)?.trim().parse::<f64>().ok());
        if let (Some(h), Some(b)) = (get("high:"), get("batch:")) {
            if best.is_none_or(|(m, _, _)| managed > m) {
                best = Some((managed, h, b));
            }
        }
    }
    best.map(|(_, h, b)| (h, b)).ok_or_else(|| "/proc/zoneinfo has no pageset of cpu 0 with high and batch".to_string())
}

/// `perf script` output folded into `comm;outer;...;leaf count` lines, the heaviest first, at
/// most `max_bytes` of them (whole lines).
pub fn fold_perf_script(text: &str, max_bytes: usize) -> String {
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    for block in text.split("\n\n") {
        let mut lines = block.lines().filter(|l| !l.trim().is_empty());
        let Some(head) = lines.next() else { continue };
        let comm = head.split_whitespace().next().unwrap_or("?").to_string();
        // Frames are "\taddr sym+0xoff (dso)", leaf first.
        let mut frames: Vec<String> = lines
            .filter_map(|l| l.split_whitespace().nth(1))
            .map(|s| s.split("+0x").next().unwrap_or(s).to_string())
            .collect();
        frames.reverse();
        let key = std::iter::once(comm).chain(frames).collect::<Vec<_>>().join(";");
        *stacks.entry(key).or_insert(0) += 1;
    }
    let mut v: Vec<(String, u64)> = stacks.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut out = String::new();
    for line in v.into_iter().map(|(k, n)| format!("{k} {n}\n")) {
        if out.len() + line.len() > max_bytes {
            break;
        }
        out.push_str(&line);
    }
    out
}

/// Samples of folded `perf script` stacks (`comm;outer;...;leaf count` lines) that run
/// through the idle task's `do_idle`, and all samples of the text.
pub fn folded_idle_samples(folded: &str) -> (f64, f64) {
    let (mut idle, mut total) = (0.0, 0.0);
    for line in folded.lines() {
        let Some((stack, n)) = line.rsplit_once(' ') else { continue };
        let Ok(n) = n.trim().parse::<u64>() else { continue };
        total += n as f64;
        if stack.split(';').any(|f| f == "do_idle") {
            idle += n as f64;
        }
    }
    (idle, total)
}

/// The samples a `perf record -a ... -F HZ ... -- sleep S` command line takes on `cpus` CPUs
/// (HZ × S × cpus), or `None` when the line is not one.
pub fn perf_record_samples(command: &str, cpus: u32) -> Option<f64> {
    let words: Vec<&str> = command.split_whitespace().collect();
    if !command.starts_with("perf record") || !words.contains(&"-a") {
        return None;
    }
    let after = |flag: &str| words.iter().position(|w| *w == flag).and_then(|i| words.get(i + 1));
    let hz: f64 = after("-F")?.parse().ok()?;
    let secs: f64 = after("sleep")?.parse().ok()?;
    let n = hz * secs * f64::from(cpus);
    (n.is_finite() && n > 0.0).then_some(n)
}
