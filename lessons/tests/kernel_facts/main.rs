//! The course's facts checked against the running kernel:
//!
//! - every sysctl a lesson sets (a parameter whose `ParamSpec::kernel_name` is a sysctl, set by
//!   a step, a question or a claim) exists on this kernel and takes the lesson's value,
//!   converted to the sysctl's unit (`reserve_bytes` bytes to pages, booleans to 0/1): the write
//!   is tried and undone (kernel.rs). A rejected value fails with one line naming the lesson,
//!   the step and the kernel's answer;
//! - the sysctls the lessons teach exist from the release that added them (commit in facts.rs)
//!   and have their documented ranges (`mem_pcpu_rsv` at least SK_MEMORY_PCPU_RESERVE,
//!   `max_skb_frags` at most MAX_SKB_FRAGS as this kernel's BTF has it, ...);
//! - a `shinfo_bytes` claim whose layout is this kernel's (page size, MAX_SKB_FRAGS, frag and
//!   fixed-part sizes) states this kernel's `sizeof(struct skb_shared_info)` (pahole). The
//!   model's preset against the same BTF is core/tests/pahole.rs.
//!
//! The kernel checks run on Linux as root in the initial network namespace; elsewhere each
//! test prints one `skipped:` line and passes. What the table rows and the checker's own
//! failure path say is tested everywhere, with a stand-in kernel.

mod facts;
mod kernel;

use facts::{named_sysctl, Conversion, PARAM_SYSCTLS};
use kernel::{note, Answer, Fake, Kernel, Live, Release};
use skblab_core::experiments::skb_layout::SkbLayout;
use skblab_core::machine::tools;
use skblab_core::{experiments, find, ParamKind};
use skblab_lessons::{apply_settings, index, lesson, Lesson, Status};
use std::collections::{BTreeMap, BTreeSet};

/// One value a lesson sets for a sysctl.
#[derive(Debug, Clone, PartialEq)]
struct Setting {
    /// `percpu-counter step 7`, `... step 7 question`, `... claim '...'`.
    at: String,
    sysctl: &'static str,
    /// The sysctl's value; `None` when the parameter is not the value (only existence counts).
    value: Option<i64>,
    /// The lesson's own words: `reserve_bytes=65536`.
    shown: String,
}

/// The sysctl values `lesson` sets, converted for a kernel with `page_size_bytes` pages.
fn settings_of(lesson: &Lesson, page_size_bytes: u64) -> Vec<Setting> {
    let slug = &lesson.slug;
    let mut sites: Vec<(String, &[(String, String)])> = Vec::new();
    for (i, step) in lesson.steps.iter().enumerate() {
        sites.push((format!("{slug} step {}", i + 1), &step.params));
        if let Some(q) = &step.question {
            sites.push((format!("{slug} step {} question", i + 1), &q.params));
        }
    }
    for c in &lesson.claims {
        sites.push((format!("{slug} claim '{}'", c.text), &c.params));
    }
    let mut out = Vec::new();
    for (at, params) in sites {
        for (name, text) in params {
            let Some(row) = PARAM_SYSCTLS.iter().find(|r| r.experiment == lesson.experiment && r.param == *name) else {
                continue;
            };
            let value = match &row.conversion {
                Conversion::BytesToPages => text.parse::<u64>().ok().map(|b| b.div_ceil(page_size_bytes) as i64),
                Conversion::Bool => Some(i64::from(text == "true")),
                Conversion::Choice(options) => match options.iter().find(|(o, _)| o == text) {
                    Some((_, v)) => *v,
                    None => panic!("{at}: {name}={text} has no {} value in kernel_facts/facts.rs", row.sysctl),
                },
                Conversion::NotTheValue(_) => None,
            };
            if matches!(row.conversion, Conversion::Choice(_)) && value.is_none() {
                continue;
            }
            let shown = match &row.conversion {
                Conversion::NotTheValue(what) => format!("{name}={text}: {what}"),
                _ => format!("{name}={text}"),
            };
            out.push(Setting { at: at.clone(), sysctl: row.sysctl, value, shown });
        }
    }
    out
}

/// The failures (one line each) of `settings` on `kernel`; what was checked, and what could
/// not be, goes to the notes (one line per sysctl). Each distinct value is written once.
fn check_settings(kernel: &dyn Kernel, settings: &[Setting], notes: &mut Vec<String>) -> Vec<String> {
    let release = kernel.release();
    let mut answers: BTreeMap<(&str, Option<i64>), Result<Answer, String>> = BTreeMap::new();
    // Per reason a value went unchecked: the lessons that set it, and how often.
    let mut unchecked: BTreeMap<String, (BTreeSet<&str>, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for s in settings {
        let answer = answers.entry((s.sysctl, s.value)).or_insert_with(|| {
            let fact = facts::sysctl(s.sysctl).unwrap_or_else(|| panic!("{}: add it to facts::SYSCTLS", s.sysctl));
            if kernel.has(s.sysctl) {
                Ok(s.value.map_or(Answer::Accepted, |v| kernel.try_write(s.sysctl, v)))
            } else {
                Err(absent(fact, release))
            }
        });
        match answer {
            Ok(Answer::Accepted) => {}
            Ok(Answer::Rejected(why)) => {
                let v = s.value.unwrap_or_default();
                failures.push(format!("{}: {}={v} ({}) rejected by Linux {release}: {why}", s.at, s.sysctl, s.shown));
            }
            Err(why) if why.starts_with("missing") => {
                failures.push(format!("{}: {} ({}) {why}", s.at, s.sysctl, s.shown))
            }
            Err(why) => {
                let entry = unchecked.entry(why.clone()).or_default();
                entry.0.insert(s.at.split(' ').next().unwrap_or_default());
                entry.1 += 1;
            }
        }
    }
    let checked: Vec<String> = answers
        .iter()
        .filter(|(_, a)| a.is_ok())
        .map(|((sysctl, v), _)| v.map_or(format!("{sysctl} exists"), |v| format!("{sysctl}={v}")))
        .collect();
    notes.push(format!(
        "Linux {release} was asked: {}",
        if checked.is_empty() { "nothing".into() } else { checked.join(", ") }
    ));
    for (why, (lessons, n)) in unchecked {
        let lessons: Vec<&str> = lessons.into_iter().collect();
        notes.push(format!("{why}: {n} setting(s) of {} not checked", lessons.join(", ")));
    }
    failures
}

/// Why a sysctl is not on this kernel: `missing ...` (a failure) when the kernel is of a
/// release that has it, else a note.
fn absent(fact: &facts::Sysctl, release: Release) -> String {
    match fact.removed {
        Some((gone, by)) if release >= gone => {
            format!("{} is not in Linux {release}, as expected: removed in {gone} ({by})", fact.name)
        }
        _ if release < fact.since => {
            format!("skipped: {} came in {} ({}), this is Linux {release}", fact.name, fact.since, fact.added_by)
        }
        Some((gone, _)) => {
            format!("skipped: {} is absent from this {release} (removed in {gone}, also in stable)", fact.name)
        }
        None => format!("missing in Linux {release} (added in {}, {})", fact.since, fact.added_by),
    }
}

fn written_lessons() -> impl Iterator<Item = &'static Lesson> {
    index().iter().filter(|e| e.status == Status::Written).map(|e| lesson(&e.slug).expect("a written lesson"))
}

/// The running kernel, or None after printing why the checks are skipped.
fn live_or_skip(test: &str) -> Option<Live> {
    Live::open().map_err(|why| note(&format!("{test}: skipped: {why}"))).ok()
}

fn report(test: &str, notes: &[String], failures: &[String]) {
    for n in notes {
        note(&format!("{test}: {n}"));
    }
    assert!(failures.is_empty(), "{} kernel fact(s) wrong:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_sysctl_a_lesson_sets_exists_and_takes_the_lessons_value() {
    let test = "lesson sysctls";
    let Some(kernel) = live_or_skip(test) else { return };
    let settings: Vec<Setting> = written_lessons().flat_map(|l| settings_of(l, kernel.page_size_bytes())).collect();
    let mut notes = Vec::new();
    let failures = check_settings(&kernel, &settings, &mut notes);
    report(test, &notes, &failures);
}

/// MAX_SKB_FRAGS of the running kernel, from BTF: `frags[N]` of `struct skb_shared_info`.
fn btf_max_skb_frags() -> Result<u64, String> {
    kernel::pahole("skb_shared_info").and_then(|dump| tools::pahole_array(&dump, "frags")).map(|(_, n)| n)
}

#[test]
fn the_sysctls_the_lessons_teach_exist_with_their_documented_ranges() {
    let test = "sysctl ranges";
    let Some(kernel) = live_or_skip(test) else { return };
    let mut notes = Vec::new();
    let frags = btf_max_skb_frags().map_err(|why| notes.push(format!("max_skb_frags's maximum unchecked: {why}"))).ok();
    let release = kernel.release();
    let mut failures = Vec::new();
    for r in facts::ranges(kernel.page_size_bytes(), frags) {
        let fact = facts::sysctl(r.sysctl).expect("every range's sysctl is in SYSCTLS");
        if !kernel.has(r.sysctl) {
            let why = absent(fact, release);
            match why.strip_prefix("missing") {
                Some(rest) => failures.push(format!("{} is missing{rest}", r.sysctl)),
                None => notes.push(why),
            }
            continue;
        }
        for v in &r.accepts {
            if let Answer::Rejected(e) = kernel.try_write(r.sysctl, *v) {
                failures.push(format!("{}={v} rejected by Linux {release}: {e} (documented: {})", r.sysctl, r.why));
            }
        }
        for v in &r.rejects {
            if kernel.try_write(r.sysctl, *v) == Answer::Accepted {
                failures.push(format!("{}={v} accepted by Linux {release} (documented: {})", r.sysctl, r.why));
            }
        }
        notes.push(format!("{}: takes {:?}, refuses {:?}: {}", r.sysctl, r.accepts, r.rejects, r.why));
    }
    report(test, &notes, &failures);
}

#[test]
fn a_shinfo_size_the_lessons_state_for_this_kernels_layout_is_this_kernels() {
    let test = "BTF sizes";
    let btf = (|| {
        let shinfo = kernel::pahole("skb_shared_info")?;
        let (fixed, frags) = tools::pahole_array(&shinfo, "frags")?;
        let frag = tools::pahole_size(&kernel::pahole("skb_frag")?)? as u64;
        Ok::<_, String>((kernel::page_size_bytes()?, tools::pahole_size(&shinfo)? as u64, fixed, frags, frag))
    })();
    let (page, size, fixed, frags, frag) = match btf {
        Ok(btf) if cfg!(target_os = "linux") => btf,
        Ok(_) => return note(&format!("{test}: skipped: not Linux")),
        Err(why) => return note(&format!("{test}: skipped: {why}")),
    };
    let (mut notes, mut failures) = (Vec::new(), Vec::new());
    for l in written_lessons().filter(|l| l.experiment == "skb-layout") {
        let exp = find(&l.experiment).expect("registered");
        for c in l.claims.iter().filter(|c| c.metric == "shinfo_bytes") {
            let input = SkbLayout::input(&apply_settings(exp, &exp.defaults(), &c.params).expect("in range"));
            let layout = input.layout();
            let ours = (input.page_size_bytes, layout.max_skb_frags, input.frag_bytes, input.shinfo_fixed_bytes);
            if ours != (page, frags, frag, fixed) {
                notes.push(format!("{} claim '{}': another layout than this kernel's, not compared", l.slug, c.text));
            } else if c.min != Some(size as f64) || c.max != Some(size as f64) {
                failures.push(format!(
                    "{} claim '{}': pahole says sizeof(struct skb_shared_info) = {size}",
                    l.slug, c.text
                ));
            } else {
                notes.push(format!("{} claim '{}': {size} bytes, as pahole says", l.slug, c.text));
            }
        }
    }
    report(test, &notes, &failures);
}

/// The old percpu-counter step 7: 64 KiB = 16 pages of 4 KiB, below SK_MEMORY_PCPU_RESERVE.
fn lesson_with_step_7_reserve(reserve_bytes: u64) -> Lesson {
    let mut fake = lesson("percpu-counter").expect("the percpu-counter lesson").clone();
    fake.claims.clear();
    fake.steps.truncate(7);
    for s in &mut fake.steps {
        s.params.clear();
        s.question = None;
    }
    fake.steps[6].params = vec![("reserve_bytes".into(), reserve_bytes.to_string())];
    fake
}

#[test]
fn a_value_the_kernel_rejects_fails_with_one_line_naming_the_step() {
    let fake = lesson_with_step_7_reserve(16 * 4096);
    let six_eighteen = Fake {
        release: Release(6, 18),
        page_size_bytes: 4096,
        ranges: BTreeMap::from([("net.core.mem_pcpu_rsv", (256, i64::from(i32::MAX)))]),
    };
    let mut notes = Vec::new();
    let failures = check_settings(&six_eighteen, &settings_of(&fake, 4096), &mut notes);
    let line = "percpu-counter step 7: net.core.mem_pcpu_rsv=16 (reserve_bytes=65536) rejected by Linux 6.18: Invalid argument";
    assert_eq!(failures, vec![line.to_string()]);
    // The same lesson on a 6.8 kernel without the stable backport: a note, no failure.
    let six_eight = Fake { release: Release(6, 8), ranges: BTreeMap::new(), ..six_eighteen };
    assert!(check_settings(&six_eight, &settings_of(&fake, 4096), &mut notes).is_empty());
    let skipped = "skipped: net.core.mem_pcpu_rsv came in 6.9";
    assert!(notes.iter().any(|n| n.starts_with(skipped) && n.ends_with("1 setting(s) of percpu-counter not checked")));

    // And the running kernel says the same, where it has the sysctl.
    let Some(kernel) = live_or_skip("rejected value") else { return };
    if !kernel.has("net.core.mem_pcpu_rsv") || kernel.page_size_bytes() != 4096 {
        return note("rejected value: skipped: no net.core.mem_pcpu_rsv with 4 KiB pages here");
    }
    let failures = check_settings(&kernel, &settings_of(&fake, 4096), &mut notes);
    let line = line.replace("6.18", &kernel.release().to_string());
    assert_eq!(failures, vec![line]);
}

#[test]
fn a_per_netns_sysctl_is_tried_in_a_scratch_namespace() {
    // No lesson sets a per-netns sysctl yet; the path that would try one is tested on
    // net.core.somaxconn (per-netns since 4.x, at least 0: extra1 = SYSCTL_ZERO).
    let Some(kernel) = live_or_skip("scratch netns") else { return };
    let sysctl = "net.core.somaxconn";
    let before = std::fs::read_to_string("/proc/sys/net/core/somaxconn").expect("somaxconn");
    assert_eq!(kernel.try_write(sysctl, -1), Answer::Rejected("Invalid argument".into()));
    assert_eq!(kernel.try_write(sysctl, 17), Answer::Accepted);
    let after = std::fs::read_to_string("/proc/sys/net/core/somaxconn").expect("somaxconn");
    assert_eq!(before, after, "the write stayed in its namespace");
}

#[test]
fn every_parameter_that_names_a_sysctl_has_one_conversion_row() {
    let mut problems = Vec::new();
    for exp in experiments() {
        for spec in exp.specs() {
            let Some(sysctl) = named_sysctl(spec.kernel_name) else { continue };
            let rows: Vec<_> =
                PARAM_SYSCTLS.iter().filter(|r| r.experiment == exp.id() && r.param == spec.name).collect();
            let at = format!("{} parameter {} ({sysctl})", exp.id(), spec.name);
            match rows.as_slice() {
                [r] if r.sysctl != sysctl => problems.push(format!("{at}: its row names {}", r.sysctl)),
                [r] => match (&r.conversion, &spec.kind) {
                    (Conversion::Choice(map), ParamKind::Choice { options }) => {
                        let listed: Vec<&str> = map.iter().map(|(o, _)| *o).collect();
                        if listed != *options {
                            problems.push(format!("{at}: options {options:?}, the row lists {listed:?}"));
                        }
                    }
                    (Conversion::Bool, ParamKind::Bool) | (Conversion::NotTheValue(_), _) => {}
                    (Conversion::BytesToPages, ParamKind::Int { .. }) if spec.unit == "bytes" => {}
                    _ => problems.push(format!("{at}: the row's conversion does not fit a {:?}", spec.kind)),
                },
                [] => problems.push(format!("{at}: no row in kernel_facts/facts.rs PARAM_SYSCTLS")),
                _ => problems.push(format!("{at}: {} rows", rows.len())),
            }
            if facts::sysctl(sysctl).is_none() {
                problems.push(format!("{at}: {sysctl} is not in facts::SYSCTLS (when it came, with the commit)"));
            }
        }
    }
    for r in PARAM_SYSCTLS {
        let spec = find(r.experiment).ok().and_then(|e| e.specs().into_iter().find(|s| s.name == r.param));
        if spec.is_none_or(|s| named_sysctl(s.kernel_name) != Some(r.sysctl)) {
            problems.push(format!("row {} {}: no such parameter standing for {}", r.experiment, r.param, r.sysctl));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn named_sysctl_finds_the_dotted_name_only() {
    assert_eq!(named_sysctl("net.core.mem_pcpu_rsv"), Some("net.core.mem_pcpu_rsv"));
    assert_eq!(named_sysctl("sysctl net.ipv4.tcp_rx_skb_cache (June 2019)"), Some("net.ipv4.tcp_rx_skb_cache"));
    for not in ["sk->sk_sndbuf", "pcp->high", "CONFIG_HZ", "netperf -m / tcp size_goal", "/sys/devices/system/node", ""]
    {
        assert_eq!(named_sysctl(not), None, "{not}");
    }
    assert_eq!(Release::parse("6.18.44-fc-v1272"), Some(Release(6, 18)));
    assert_eq!(Release::parse("5.19.0"), Some(Release(5, 19)));
}
