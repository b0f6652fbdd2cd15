//! User text in and out: the one integer syntax of every input ([`parse_decimal`],
//! [`parse_whole`]) and how a message shows text a user typed ([`echo`], [`escape`]: every
//! invisible character escaped, long texts cut), for the CLI, the web app and the lessons
//! checker alike.

/// How an integer must be written, as error messages say it.
pub const DECIMAL_FORM: &str = "written in plain decimal (no spaces, no '+', no leading zeros)";

/// Why a text is not an integer [`parse_decimal`] accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalError {
    /// Not a number at all (letters, empty, a fraction...).
    NotDecimal,
    /// A number in another spelling: whitespace (ASCII or Unicode) around it, a `+`, leading
    /// zeros or `-0`.
    NotCanonical,
}

/// The one integer syntax of every input (parameters, CLI flags, URLs): `0` or an optional
/// `-` then a non-zero digit then digits, nothing else (no whitespace of any kind, no `+`, no
/// leading zeros, no `-0`). Values beyond `i128` are [`DecimalError::NotDecimal`]; callers
/// range-check the result.
pub fn parse_decimal(text: &str) -> Result<i128, DecimalError> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" && digits.len() == text.len() || !digits.starts_with('0'));
    if canonical {
        return text.parse::<i128>().map_err(|_| DecimalError::NotDecimal);
    }
    // Another spelling of a number is told apart from no number, to say what to drop.
    let core = text.trim_matches(|c: char| c.is_whitespace()).trim_start_matches('+');
    let core_digits = core.strip_prefix('-').unwrap_or(core);
    if !core_digits.is_empty() && core_digits.bytes().all(|b| b.is_ascii_digit()) {
        Err(DecimalError::NotCanonical)
    } else {
        Err(DecimalError::NotDecimal)
    }
}

/// A whole number in `min..=max` written as [`parse_decimal`] accepts, or the one-line reason
/// naming the form and the range (the CLI's numeric flags: `--seed`, `--seeds`, `--rounds`...).
pub fn parse_whole(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let expected = || format!("expected a whole number in {min}..={max}, {DECIMAL_FORM}");
    match parse_decimal(text) {
        Ok(v) if (i128::from(min)..=i128::from(max)).contains(&v) => Ok(v as u64),
        _ => Err(expected()),
    }
}

/// How many characters of user text a message echoes ([`echo`]).
pub const ECHO_MAX_CHARS: usize = 60;

/// User text as a message may show it: every invisible character escaped (`\n`, `\u{1b}`,
/// `\u{200b}`: [`is_invisible`]; a value can neither break the one-line promise, send escape
/// codes to a terminal, reorder the line nor hide in it) and at most [`ECHO_MAX_CHARS`]
/// characters, the rest replaced by `…`. Every [`ParamError`](super::ParamError) echoes user
/// text through it, so the CLI, the web app's notices and the lessons checker all get it.
pub fn echo(text: &str) -> String {
    echo_within(text, ECHO_MAX_CHARS)
}

/// [`echo`] with another length limit (for longer texts that may embed user input, like the
/// CLI parser's messages).
pub fn echo_within(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max_chars {
            out.push('…');
            break;
        }
        push_escaped(&mut out, c);
    }
    out
}

/// [`echo`] without the length limit: every invisible character escaped, nothing cut (a
/// message already bounded, a table of a measurement file's texts).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    text.chars().for_each(|c| push_escaped(&mut out, c));
    out
}

/// Pushes `c`, as `\n` or `\u{..}` if it is invisible.
fn push_escaped(out: &mut String, c: char) {
    if is_invisible(c) {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// Whether `c` would not show as itself in a message: a control character (C0, DEL, C1), a
/// format character (Unicode category Cf: zero-width spaces and joiners, bidirectional marks,
/// embeddings, overrides and isolates, the byte-order mark, soft hyphen, tags), a line or
/// paragraph separator, a space other than U+0020 (no-break, en, em, ideographic...) or a
/// character that draws nothing (variation selectors, Hangul fillers, the combining grapheme
/// joiner, the braille blank).
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            // Cf, Unicode 15.1
            '\u{ad}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}' | '\u{890}'..='\u{891}'
            | '\u{8e2}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}' | '\u{110cd}' | '\u{13430}'..='\u{1343f}' | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}' | '\u{e0001}' | '\u{e0020}'..='\u{e007f}'
            // Zl, Zp and the spaces of Zs other than U+0020
            | '\u{2028}' | '\u{2029}' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}'
            | '\u{205f}' | '\u{3000}'
            // drawn as nothing
            | '\u{34f}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180b}'..='\u{180d}'
            | '\u{180f}' | '\u{2800}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{ffa0}'
            | '\u{e0100}'..='\u{e01ef}')
}
