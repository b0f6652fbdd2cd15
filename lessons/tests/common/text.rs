//! Reading numbers out of lesson text, for the checkers (tests/check.rs, tests/numbers.rs).

/// The numbers written in `text`, as written ("6,272", "0.5"), read as values; small numbers
/// written as words ("two") count too. A number inside a name (`x86_64`, `order3`, `v5.14`) does not.
pub fn numbers_in(text: &str) -> Vec<(String, f64)> {
    const WORDS: [&str; 13] =
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    let mut found = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let in_name = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if chars[i].is_ascii_digit() {
            // The whole run is read even inside a name, so `v5.14` does not give `14`.
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || ((chars[i] == ',' || chars[i] == '.') && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let glued = chars.get(i).is_some_and(|c| c.is_alphabetic() || *c == '_');
            let written: String = chars[start..i].iter().collect();
            if !glued && !in_name {
                if let Ok(v) = written.replace(',', "").parse() {
                    found.push((written, v));
                }
            }
        }
        i += 1;
    }
    for word in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if let Some(v) = WORDS.iter().position(|w| w.eq_ignore_ascii_case(word)) {
            found.push((word.to_string(), v as f64));
        }
    }
    found
}
