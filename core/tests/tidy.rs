//! Checks the architecture invariants of ARCHITECTURE.md and the size rules of STYLE.md that a
//! machine can check. What clippy can check lives in clippy.toml instead (no `HashMap`, no
//! clock in core): clippy sees code, a text search here would also see comments. The rules left
//! here read source text through [`code_only`], which blanks comments and literals first.
//!
//! A rule that the code does not meet yet carries an ALLOWLIST of today's offenders. An entry
//! that no longer offends fails the test too, so each list only shrinks: delete the entry in
//! the commit that fixes it.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn files(sub: &str) -> Vec<(PathBuf, String)> {
    let mut paths = Vec::new();
    rust_files(&root().join(sub), &mut paths);
    paths.sort();
    paths.into_iter().map(|p| (p.clone(), fs::read_to_string(&p).unwrap())).collect()
}

/// A path relative to the workspace root, with `/` separators (the allowlists' spelling).
fn rel(path: &Path) -> String {
    let rel = path.strip_prefix(root()).unwrap();
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// `text` with every comment and every string or char literal replaced by spaces (newlines
/// kept, so line numbers and brace positions stay), for rules about code, not prose.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let end = literal_or_comment_end(b, i);
        if end > i {
            blank(&mut out, i, end);
            i = end;
        } else {
            i += 1;
        }
    }
    // Multi-byte characters were blanked byte by byte or left whole: still valid UTF-8.
    String::from_utf8(out).unwrap()
}

/// If a comment or a string/char literal starts at `i`, the index just past its end; else `i`.
fn literal_or_comment_end(b: &[u8], i: usize) -> usize {
    let at = |k: usize| b.get(k).copied().unwrap_or(0);
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    match (at(i), at(i + 1)) {
        (b'/', b'/') => b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n),
        (b'/', b'*') => block_comment_end(b, i),
        (b'"', _) => quoted_end(b, i + 1, b'"'),
        (b'r', b'"' | b'#') if i == 0 || !ident(at(i - 1)) => raw_string_end(b, i).unwrap_or(i),
        (b'b', b'"') if i == 0 || !ident(at(i - 1)) => quoted_end(b, i + 2, b'"'),
        (b'\'', b'\\') => quoted_end(b, i + 1, b'\''),
        // A char literal ('x', '{'), not a lifetime ('a): the quote closes after one char.
        (b'\'', _) => {
            let len = std::str::from_utf8(&b[i + 1..]).ok().and_then(|s| s.chars().next()).map_or(1, char::len_utf8);
            if at(i + 1 + len) == b'\'' {
                i + 2 + len
            } else {
                i
            }
        }
        _ => i,
    }
}

fn block_comment_end(b: &[u8], start: usize) -> usize {
    let (mut depth, mut k) = (0, start);
    while k + 1 < b.len() {
        match (b[k], b[k + 1]) {
            (b'/', b'*') => (depth, k) = (depth + 1, k + 2),
            (b'*', b'/') if depth == 1 => return k + 2,
            (b'*', b'/') => (depth, k) = (depth - 1, k + 2),
            _ => k += 1,
        }
    }
    b.len()
}

/// The end of a literal whose body starts at `k` and ends at an unescaped `close`.
fn quoted_end(b: &[u8], mut k: usize, close: u8) -> usize {
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            c if c == close => return k + 1,
            _ => k += 1,
        }
    }
    b.len()
}

/// `r"..."`, `r#"..."#`: the end, or None if `r` at `i` starts no raw string (`r#ident`).
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
    if b.get(i + 1 + hashes) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
    let body = i + 2 + hashes;
    let n = b[body..].windows(close.len()).position(|w| w == close.as_slice())?;
    Some(body + n + close.len())
}

#[test]
fn code_only_blanks_comments_and_literals() {
    let src = "let s = \"{ // }\"; // HashMap {\nlet c = '{'; let l: &'a str = r#\"}\"#; /* { /* } */ */ f() {}";
    let code = code_only(src);
    assert_eq!(code.lines().count(), 2);
    assert!(!code.contains("HashMap"));
    assert_eq!(code.matches('{').count(), code.matches('}').count(), "{code}");
    assert!(code.contains("&'a str") && code.contains("f() {}"), "{code}");
}

#[test]
fn core_has_no_browser_dependency() {
    let manifest = fs::read_to_string(root().join("core/Cargo.toml")).unwrap();
    for dep in ["yew", "web-sys", "js-sys", "wasm-bindgen", "gloo", "plotters"] {
        assert!(
            !manifest.lines().any(|l| l.trim_start().starts_with(dep)),
            "core/Cargo.toml depends on {dep} (Architecture Invariant 1)"
        );
    }
}

#[test]
fn core_depends_on_no_randomness_or_clock_crate() {
    // Seeded PCG32 (core::rng) is the one source of randomness; simulated time the one clock.
    // With these crates absent, `thread_rng` and `rand::random` cannot be called at all.
    let manifest = fs::read_to_string(root().join("core/Cargo.toml")).unwrap();
    for dep in ["rand", "getrandom", "fastrand", "chrono", "time", "instant", "web-time"] {
        assert!(
            !manifest.lines().any(|l| l.trim_start().split([' ', '=', '.']).next() == Some(dep)),
            "core/Cargo.toml depends on {dep} (Architecture Invariants 2 and 3)"
        );
    }
}

#[test]
fn core_does_no_io_and_compiles_the_same_for_every_target() {
    // clippy.toml bans clocks and hash-ordered collections (Invariants 2 and 3). What clippy
    // cannot say: no target-dependent code, so wasm runs give the native numbers (Invariant 1),
    // and no I/O in the library (Invariant 2; the CLI is the I/O edge).
    let banned = ["target_arch", "std::fs", "std::net", "std::env", "println!", "print!", "eprintln!", "eprint!"];
    for (path, text) in files("core/src") {
        // The CLI binary (`bin/skblab.rs` and its modules in `bin/skblab/`) is the I/O edge.
        if rel(&path).starts_with("core/src/bin/") {
            continue;
        }
        let code = code_only(&text);
        for b in banned {
            assert!(!code.contains(b), "{} uses {b} (Architecture Invariants 1 and 2)", rel(&path));
        }
    }
}

#[test]
fn every_rust_file_says_what_it_is() {
    for sub in ["core", "lessons", "web/src"] {
        for (path, text) in files(sub) {
            if path.components().any(|c| c.as_os_str() == "target") {
                continue;
            }
            assert!(text.starts_with("//!"), "{} does not start with a //! doc comment", path.display());
        }
    }
}

#[test]
fn every_file_of_the_tests_folder_is_a_module_of_all() {
    // Cargo.toml turns `autotests` off: a file under core/tests/ that `all.rs` does not declare
    // would never be compiled nor run.
    let dir = root().join("core/tests");
    let all = fs::read_to_string(dir.join("all.rs")).unwrap();
    let declared: Vec<&str> = all.lines().filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';')).collect();
    for entry in fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(module) = name.strip_suffix(".rs") else { continue };
        if module != "all" && module != "estimate" {
            assert!(declared.contains(&module), "core/tests/{name} is not declared in core/tests/all.rs");
        }
    }
}

#[test]
fn no_parked_tests() {
    let attr = ["#[", "ignore]"].concat();
    for sub in ["core", "lessons", "web/src", "web/tests"] {
        if !root().join(sub).exists() {
            continue;
        }
        for (path, text) in files(sub) {
            assert!(!text.contains(&attr), "{} parks a test with {attr}", path.display());
        }
    }
}

/// The code of a web source file before its `#[cfg(test)]` module, without `//` comments.
fn non_test_code(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

#[test]
fn web_names_experiments_only_in_its_custom_views() {
    // One road: outside web/src/views/ (the custom-view table and the custom views), the web
    // crate is generic over experiments.
    let ids: Vec<&str> = skblab_core::experiments().iter().map(|e| e.id()).collect();
    for (path, text) in files("web/src") {
        if path.components().any(|c| c.as_os_str() == "views") {
            continue;
        }
        // A `tests.rs` is a `#[cfg(test)] mod tests;` of its own: all test code.
        if path.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let code = non_test_code(&text);
        assert!(!code.contains("experiments::"), "{} names an experiment module", path.display());
        for id in &ids {
            assert!(!code.contains(id), "{} names experiment '{id}'", path.display());
        }
    }
}

/// Fails with every message in `offences` that is not allowlisted, and with every allowlist
/// entry that matches no offence (it was fixed: delete it).
fn check_against_allowlist(rule: &str, offences: &[(String, String)], allowlist: &[(&str, &str)]) {
    let mut errors = Vec::new();
    for (key, message) in offences {
        if !allowlist.iter().any(|(file, what)| key == &format!("{file} {what}")) {
            errors.push(message.clone());
        }
    }
    for (file, what) in allowlist {
        if !offences.iter().any(|(key, _)| key == &format!("{file} {what}")) {
            errors.push(format!("{file} {what}: allowlisted but no longer offends, delete it from the list"));
        }
    }
    assert!(errors.is_empty(), "{rule}:\n  {}", errors.join("\n  "));
}

/// The Rust sources the size rules cover.
const SIZED: [&str; 6] = ["core/src", "core/tests", "lessons/src", "lessons/tests", "web/src", "web/tests"];

#[test]
fn no_file_over_700_lines_nor_a_web_file_over_450() {
    // STYLE.md: a file is at most 700 lines, a web file at most 450. ALLOWLIST: (file, "") of
    // offenders; empty.
    const ALLOWLIST: [(&str, &str); 0] = [];
    let mut offences = Vec::new();
    for sub in SIZED {
        for (path, text) in files(sub) {
            let n = text.lines().count();
            let limit = if sub.starts_with("web/") { 450 } else { 700 };
            if n > limit {
                offences.push((format!("{} ", rel(&path)), format!("{}: {n} lines (> {limit})", rel(&path))));
            }
        }
    }
    check_against_allowlist("files over 700 lines", &offences, &ALLOWLIST);
}

/// Every `fn` item of `text` with a body: (name, first line, number of lines from the `fn`
/// line to the line of its closing brace). Nested functions are counted on their own and
/// inside their parent. Reads [`code_only`] text, so braces in strings and comments don't count.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let code = code_only(text);
    let b = code.as_bytes();
    let line_of = |k: usize| b[..k].iter().filter(|&&c| c == b'\n').count() + 1;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(n) = code[i..].find("fn ") {
        let at = i + n;
        i = at + 3;
        if at > 0 && ident(b[at - 1]) {
            continue;
        }
        let name: String = code[i..].trim_start().chars().take_while(|&c| c.is_alphanumeric() || c == '_').collect();
        if name.is_empty() {
            continue;
        }
        let Some(open) = body_start(b, i) else { continue };
        let close = matching_brace(b, open);
        out.push((name, line_of(at), line_of(close) - line_of(at) + 1));
    }
    out
}

/// The `{` that opens the body of the function whose signature starts at `k`, or None for a
/// declaration without body (`fn f();` in a trait). `;` inside `[u8; 4]` or `(..)` is skipped.
fn body_start(b: &[u8], mut k: usize) -> Option<usize> {
    let mut depth = 0i32;
    while k < b.len() {
        match b[k] {
            b'(' | b'[' | b'<' => depth += 1,
            b')' | b']' => depth -= 1,
            b'>' if k > 0 && b[k - 1] != b'-' && b[k - 1] != b'=' => depth -= 1,
            b'{' if depth <= 0 => return Some(k),
            b';' if depth <= 0 => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

fn matching_brace(b: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' if depth == 1 => return k,
            b'}' => depth -= 1,
            _ => {}
        }
    }
    b.len() - 1
}

#[test]
fn functions_counts_from_fn_line_to_closing_brace() {
    let src = "fn a() {\n    let s = \"}\";\n}\nfn decl(x: [u8; 2]);\nimpl X {\n    pub fn b<T: Fn() -> u8>(t: T)\n    where T: Copy\n    {\n        fn inner() {}\n    }\n}\n";
    let found: Vec<_> = functions(src).into_iter().map(|(n, line, len)| format!("{n}@{line}:{len}")).collect();
    assert_eq!(found, ["a@1:3", "b@6:5", "inner@9:1"]);
}

#[test]
fn no_function_over_70_lines() {
    // STYLE.md: functions mostly under 40 lines, none over 70. ALLOWLIST: (file, fn name) of
    // today's offenders; empty since the merge of 2026-12-02's three were split.
    const ALLOWLIST: [(&str, &str); 0] = [];
    let mut offences = Vec::new();
    for sub in ["core/src", "lessons/src", "web/src"] {
        for (path, text) in files(sub) {
            for (name, line, len) in functions(&text) {
                if len > 70 {
                    let file = rel(&path);
                    offences.push((format!("{file} {name}"), format!("{file}:{line} fn {name}: {len} lines (> 70)")));
                }
            }
        }
    }
    check_against_allowlist("functions over 70 lines", &offences, &ALLOWLIST);
}

/// The module path under `core/src/experiments/` of a file there: `hoa/world/mod.rs` →
/// `["hoa", "world"]`.
fn module_path(rel_to_experiments: &Path) -> Vec<String> {
    let mut parts: Vec<String> =
        rel_to_experiments.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The experiment modules a piece of code names after `prefix` (`crate::experiments::x`,
/// `super::super::x`, or a group `prefix{x, y::z}`), among `modules`.
fn named_after(code: &str, prefix: &str, modules: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        if at > 0 && (code.as_bytes()[at - 1].is_ascii_alphanumeric() || code.as_bytes()[at - 1] == b'_') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        let names: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group.split('}').next().unwrap_or("").split(',').map(str::trim).collect(),
            None => vec![rest],
        };
        for name in names {
            let name: String = name.chars().take_while(|&c| c.is_alphanumeric() || c == '_').collect();
            if modules.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

#[test]
fn no_arrow_from_a_generic_room_to_an_experiment_or_between_experiments() {
    // ARCHITECTURE.md: sim is the shared kernel and names no experiment, nor do calibrate,
    // output and validate; each experiment
    // depends on sim, never on another experiment (shared code moves down into sim).
    // ALLOWLIST: (file, what it names) of offenders; empty since TraceFrame moved out of sim
    // and the 2019 server's SLUB costs into sim::slub.
    const ALLOWLIST: [(&str, &str); 0] = [];
    let experiments_dir = root().join("core/src/experiments");
    let modules: Vec<String> = fs::read_dir(&experiments_dir)
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|m| m != "mod")
        .collect();
    let mut offences = Vec::new();
    // The generic rooms take experiments through the `Experiment` trait, from their caller.
    for room in ["core/src/sim", "core/src/calibrate", "core/src/output", "core/src/validate"] {
        for (path, text) in files(room) {
            let file = rel(&path);
            let code = code_only(&text);
            if code.contains("experiments::") || code.contains("experiments()") {
                offences.push((format!("{file} experiments"), format!("{file} (in {room}) names crate::experiments")));
            }
        }
    }
    for (path, text) in files("core/src/experiments") {
        let module = module_path(path.strip_prefix(&experiments_dir).unwrap());
        let Some(own) = module.first() else { continue };
        let code = code_only(&text);
        let up_to_experiments = "super::".repeat(module.len());
        let mut named = named_after(&code, "crate::experiments::", &modules);
        named.extend(named_after(&code, &up_to_experiments, &modules));
        named.sort();
        named.dedup();
        let file = rel(&path);
        for other in named.into_iter().filter(|m| m != own) {
            offences
                .push((format!("{file} {other}"), format!("{file} (in experiment {own}) names experiment {other}")));
        }
    }
    check_against_allowlist("layering", &offences, &ALLOWLIST);
}

#[test]
fn worlds_keep_no_copy_of_the_skeleton_the_time_report_or_the_skb_helpers() {
    // The run loop is `sim::world`'s (a world only handles events), CPU time goes to
    // `sim::profile` call chains, and skb sizes and kmalloc classes are `sim::skb`'s. A world
    // that pops its own queue, keeps its own table of time terms, or defines one of these
    // helpers again has forked the shared skeleton.
    const OWN_LOOP: [&str; 1] = ["peek_time_ns("];
    const OWN_REPORT: [&str; 3] = ["enum Term", "TERMS:", "[u64; TERMS"];
    const SKB_HELPERS: [&str; 14] = [
        "fn kmalloc_size(",
        "fn kmalloc_class(",
        "fn kmalloc_name(",
        "fn kmalloc_suffix(",
        "fn align_up(",
        "fn align64(",
        "fn skb_data_align(",
        "const PAGE_SIZE",
        "const TCP_MSS",
        "const FCLONE_BYTES",
        "const SHINFO_",
        "const KMALLOC_CLASSES",
        "const SKBUFF_HEAD_CACHE_BYTES",
        "const MAX_TCP_HEADER",
    ];
    let mut offences = Vec::new();
    for (path, text) in files("core/src/experiments") {
        let code = code_only(non_test_code(&text).as_str());
        let shared = [(&OWN_LOOP[..], "sim::world"), (&OWN_REPORT[..], "sim::profile"), (&SKB_HELPERS[..], "sim::skb")];
        for (patterns, owner) in shared {
            for p in patterns.iter().filter(|p| code.contains(**p)) {
                offences.push(format!("{}: `{p}` belongs to {owner}", rel(&path)));
            }
        }
        // Popping an event queue is the run loop: only `sim::world::World::step` does it.
        for queue in event_queue_fields(&code) {
            if code.contains(&format!(".{queue}.pop()")) {
                offences.push(format!("{}: `.{queue}.pop()` is a run loop; it belongs to sim::world", rel(&path)));
            }
        }
    }
    assert!(offences.is_empty(), "a world copies shared code:\n  {}", offences.join("\n  "));
}

/// The names of the fields declared `name: EventQueue<...>` in `code`.
fn event_queue_fields(code: &str) -> Vec<String> {
    code.match_indices(": EventQueue<")
        .filter_map(|(at, _)| {
            let before = &code[..at];
            let start = before.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
            let name = &before[start..];
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

#[test]
fn event_queue_fields_finds_the_queue_of_a_world() {
    let code = "pub struct Sim { cfg: Config, q: EventQueue<Ev>, pub queue: EventQueue<Event> }";
    assert_eq!(event_queue_fields(code), ["q", "queue"]);
}
