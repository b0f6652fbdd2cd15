//! One-digit integers of lesson text written as quantities, for the typed-number scan
//! (tests/numbers.rs; the rule is docs/lesson-format.md's "Model numbers in the text").
//!
//! A one-digit integer is most often no result: a step ("step 5"), a CPU ("vCPU 0"), a count
//! of things the text sets up ("two sockets"), a kernel constant ("order 3"). It reads as a
//! result when it is written as an amount of something, with a noun or a `%` after it ("about
//! 2 %", "over 2 nesting levels"): those are the ones the scan holds against the model's
//! values, by the noun (the column's unit).

/// Words after which a number is a label, not an amount: a step or a patch of the course or
/// a series, a CPU, node, socket or core, a page order, a level of a chain ("CPU 0 frees").
const LABELS: [&str; 12] =
    ["step", "steps", "patch", "patches", "cpu", "vcpu", "node", "socket", "core", "order", "level", "hz"];
/// Number words read as amounts; "one" is left out: it reads as an article ("one level per
/// skb" names the unit of a chain, not a count the model made).
const NUMBER_WORDS: [(&str, f64); 8] = [
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
];
/// What may stand glued before a number that is still read: a sign, an opening bracket,
/// "about" as a symbol.
const LEADING: [char; 7] = ['(', '+', '-', '−', '~', '≈', '"'];
/// What ends a clause after a word: a noun further on belongs to something else.
const TRAILING: [char; 8] = [',', '.', ';', ':', ')', '!', '?', '"'];

/// A one-digit integer written as a quantity: as written, its value, and the words that may
/// name what it counts (`%` glued or after a space, else the next word, and the one after it
/// when no punctuation ends the clause between: "2 nesting levels").
pub struct Quantity {
    pub written: String,
    pub value: f64,
    pub nouns: Vec<String>,
}

/// The one-digit integers of `text` (digits, or a number word from two to nine) written as
/// quantities. A number glued to anything but `%` ("2nd", "5's", "x86_64", "2,"), inside a
/// longer number ("2.5", "25"), or right after a word it labels ("step 3", "vCPU 0") is none.
pub fn one_digit_quantities(text: &str) -> Vec<Quantity> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut found = Vec::new();
    for (i, raw) in words.iter().enumerate() {
        let token = raw.trim_start_matches(LEADING);
        let digits = token.chars().take_while(char::is_ascii_digit).count();
        let (value, rest) = match digits {
            1 => (f64::from(token.as_bytes()[0] - b'0'), &token[1..]),
            0 => match NUMBER_WORDS.iter().find(|(w, _)| w.eq_ignore_ascii_case(token)) {
                Some(&(_, v)) => (v, ""),
                None => continue,
            },
            _ => continue,
        };
        let labelled =
            i > 0 && LABELS.contains(&words[i - 1].trim_start_matches(LEADING).to_ascii_lowercase().as_str());
        let nouns = match rest {
            "" => next_nouns(&words[i + 1..]),
            r if r.starts_with('%') => vec!["%".to_string()],
            _ => continue,
        };
        if labelled || nouns.is_empty() {
            continue;
        }
        found.push(Quantity { written: token[..token.len() - rest.len()].to_string(), value, nouns });
    }
    found
}

/// The next word and, when no punctuation ends it, the one after, without trailing
/// punctuation.
fn next_nouns(words: &[&str]) -> Vec<String> {
    let mut nouns = Vec::new();
    for w in words.iter().take(2) {
        let bare = w.trim_end_matches(TRAILING);
        if !bare.is_empty() {
            nouns.push(bare.to_string());
        }
        if bare.len() != w.len() {
            break;
        }
    }
    nouns
}

/// A unit's or a written noun's word, compared without case or a plural `s`: the first word
/// of the unit, before any `/` ("frees/skb": "free"; "datagrams in 60 s": "datagram"). A unit
/// that is a phrase ("a share of ...", "the sweep's key") has none.
pub fn noun_of(unit: &str) -> Option<String> {
    let first = unit.split_whitespace().next()?.split('/').next()?.to_lowercase();
    if first.is_empty() || matches!(first.as_str(), "a" | "an" | "the") {
        return None;
    }
    Some(match first.strip_suffix('s') {
        Some(singular) if first.chars().count() > 3 => singular.to_string(),
        _ => first,
    })
}
