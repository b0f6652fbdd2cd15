//! The measurement file the reader chose on the "Your machine" page, as localStorage keeps it
//! (pure: the page does the storage calls). One versioned key, [`KEY`], holding
//! `{"v":1,"name":…,"text":…}`; the file's text is core's to parse (the worker does), this
//! only wraps it. An entry that does not read as this wrapper, or an older key, is dropped
//! with a plain notice. Nothing here leaves the browser.

use serde::{Deserialize, Serialize};

/// The key, versioned: a new wrapper format takes a new key and drops the old one.
pub const KEY: &str = "skblab-machine-v1";
/// Keys of earlier formats (dropped on sight).
pub const OLD_KEYS: &[&str] = &["skblab-machine", "skblab-machine-v0"];
/// The wrapper's version.
const VERSION: u32 = 1;
/// The longest file name kept, in characters.
const MAX_NAME_CHARS: usize = 80;

/// A kept file: its name as the page shows it and its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Saved {
    pub v: u32,
    pub name: String,
    pub text: String,
}

impl Saved {
    pub fn new(name: &str, text: &str) -> Saved {
        Saved { v: VERSION, name: file_label(name), text: text.to_string() }
    }

    /// The entry as stored.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("a saved file serializes")
    }

    /// Reads a stored entry; the error is the notice's reason (one line).
    pub fn decode(raw: &str) -> Result<Saved, String> {
        let s: Saved = serde_json::from_str(raw).map_err(|_| "it is not in the format this page keeps".to_string())?;
        if s.v != VERSION {
            return Err(format!("it was kept in format {} and this page reads format {VERSION}", s.v));
        }
        Ok(Saved { name: file_label(&s.name), ..s })
    }
}

/// A file name as the page shows it: bounded, control characters replaced, never empty.
pub fn file_label(name: &str) -> String {
    let clean: String = name.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let clean = clean.trim();
    if clean.is_empty() {
        return "your file".to_string();
    }
    if clean.chars().count() > MAX_NAME_CHARS {
        let cut: String = clean.chars().take(MAX_NAME_CHARS - 1).collect();
        return format!("{cut}…");
    }
    clean.to_string()
}

/// The notice for an entry that was dropped.
pub fn dropped_notice(reason: &str) -> String {
    format!("The measurement kept in this browser was dropped: {reason}. Choose the file again.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_round_trips_and_a_corrupt_or_old_one_is_a_reason() {
        let s = Saved::new("my-machine.json", "{\"schema_version\": 1}\n\"quoted\"");
        assert_eq!(Saved::decode(&s.encode()), Ok(s));
        for raw in
            ["", "{", "null", "[1]", "{\"v\":1,\"name\":\"a\"}", "{\"v\":1,\"name\":\"a\",\"text\":\"b\",\"x\":1}"]
        {
            assert!(Saved::decode(raw).is_err(), "{raw}");
        }
        let old = Saved::decode("{\"v\":0,\"name\":\"a\",\"text\":\"b\"}").unwrap_err();
        assert!(old.contains("format 0"), "{old}");
        assert!(dropped_notice(&old).starts_with("The measurement kept in this browser was dropped: "));
        assert!(!OLD_KEYS.contains(&KEY));
    }

    #[test]
    fn file_names_are_bounded_and_clean() {
        assert_eq!(file_label("a\nb.json"), "a b.json");
        assert_eq!(file_label("  "), "your file");
        let long = file_label(&"x".repeat(500));
        assert_eq!(long.chars().count(), MAX_NAME_CHARS);
        assert!(long.ends_with('…'));
    }
}
