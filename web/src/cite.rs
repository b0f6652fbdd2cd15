//! Citations as links: Message-IDs to the lore.kernel.org archive, commit ids to the kernel's
//! git web. Plain hrefs: nothing is fetched unless the learner follows one.

use yew::prelude::*;

/// The archive page of a Message-ID.
pub fn message_href(message_id: &str) -> String {
    // Message-IDs recognised by `is_message_id` hold only characters a URL path may carry.
    format!("https://lore.kernel.org/r/{}", message_id.trim_matches(|c| c == '<' || c == '>'))
}

/// The archive's search for a subject on `list` (when the post's Message-ID is not known).
pub fn subject_search_href(list: &str, subject: &str) -> String {
    let list = list.split(['/', ' ']).find(|s| !s.is_empty()).unwrap_or("netdev");
    format!("https://lore.kernel.org/{list}/?q={}", crate::route::encode(&format!("s:\"{subject}\"")))
}

/// A mainline commit's page.
pub fn commit_href(id: &str) -> String {
    format!("https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id={id}")
}

fn is_message_id(word: &str) -> bool {
    let Some((local, domain)) = word.split_once('@') else { return false };
    !local.is_empty()
        && domain.contains('.')
        && !domain.ends_with('.')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "._+-@=$".contains(c))
}

fn is_commit_id(word: &str) -> bool {
    (12..=40).contains(&word.len())
        && word.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        && word.chars().any(|c| c.is_ascii_digit())
}

/// What a word links to, if anything.
pub fn href_of(word: &str) -> Option<String> {
    if is_message_id(word) {
        Some(message_href(word))
    } else if is_commit_id(word) {
        Some(commit_href(word))
    } else {
        None
    }
}

/// A source line with its Message-IDs and commit ids as links.
pub fn linkify(text: &str) -> Html {
    let mut parts: Vec<Html> = Vec::new();
    let mut plain = String::new();
    for piece in text.split_inclusive(|c: char| c.is_whitespace()) {
        let word = piece.trim_end();
        let core = word.trim_matches(|c: char| "()[],;:\"'<>".contains(c));
        match href_of(core).filter(|_| !core.is_empty()) {
            Some(href) => {
                let start = word.find(core).unwrap_or(0);
                plain.push_str(&word[..start]);
                parts.push(html! { { std::mem::take(&mut plain) } });
                parts.push(html! { <a href={href} rel="noopener noreferrer">{ core }</a> });
                plain.push_str(&piece[start + core.len()..]);
            }
            None => plain.push_str(piece),
        }
    }
    parts.push(html! { { plain } });
    html! { <>{ for parts }</> }
}

/// Trusted HTML (a lesson's "How we know" items, rendered from Markdown at build time) with the
/// Message-IDs and commit ids of its text linked as [`linkify`] links a source line — in plain
/// text and in `code`, never inside a link already there. A Markdown autolink of a Message-ID
/// (`<id@host>`, which Markdown renders as a `mailto:` link) points at the archive instead: the
/// notes cite posts, not mail addresses, and the two look alike.
pub fn linkify_html(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 128);
    let mut in_link = 0usize;
    let mut rest = html;
    while !rest.is_empty() {
        let end = match rest.find('<') {
            // A tag (the build escapes `<` and `>` in text and attribute values).
            Some(0) => {
                let end = rest.find('>').map_or(rest.len(), |i| i + 1);
                let tag = &rest[..end];
                if tag.starts_with("<a ") || tag == "<a>" {
                    in_link += 1;
                    out.push_str(&archive_mailto(tag));
                } else {
                    if tag.starts_with("</a>") || tag.starts_with("</a ") {
                        in_link = in_link.saturating_sub(1);
                    }
                    out.push_str(tag);
                }
                end
            }
            next => {
                let end = next.unwrap_or(rest.len());
                match in_link {
                    0 => link_words(&rest[..end], &mut out),
                    _ => out.push_str(&rest[..end]),
                }
                end
            }
        };
        rest = &rest[end..];
    }
    out
}

/// An `<a>` tag whose href is `mailto:` a Message-ID, pointed at the archive.
fn archive_mailto(tag: &str) -> String {
    const MAILTO: &str = "href=\"mailto:";
    let Some(at) = tag.find(MAILTO) else { return tag.to_string() };
    let from = at + MAILTO.len();
    let Some(len) = tag[from..].find('"') else { return tag.to_string() };
    let id = &tag[from..from + len];
    if !is_message_id(id) {
        return tag.to_string();
    }
    format!("{}href=\"{}\" rel=\"noopener noreferrer\"{}", &tag[..at], message_href(id), &tag[from + len + 1..])
}

/// Escaped HTML text with its Message-IDs and commit ids as links (`out` gets the result).
fn link_words(text: &str, out: &mut String) {
    // What may stand around a citation in a sentence: brackets, quotes (escaped or not), the
    // sentence's punctuation.
    const LEFT: [&str; 7] = ["&lt;", "&quot;", "&#39;", "(", "[", "\"", "'"];
    const RIGHT: [&str; 15] =
        ["'s", "&#39;s", "’s", "&gt;", "&quot;", "&#39;", ")", "]", "\"", "'", ",", ";", ":", ".", "?"];
    for piece in text.split_inclusive(|c: char| c.is_whitespace()) {
        let word = piece.trim_end();
        let mut core = word;
        while let Some(rest) = LEFT.iter().find_map(|p| core.strip_prefix(p)) {
            core = rest;
        }
        let start = word.len() - core.len();
        while let Some(rest) = RIGHT.iter().find_map(|p| core.strip_suffix(p)) {
            core = rest;
        }
        match href_of(core).filter(|_| !core.is_empty()) {
            // `core` holds only characters an attribute may carry (see is_message_id, is_commit_id).
            Some(href) => {
                out.push_str(&word[..start]);
                out.push_str(&format!("<a href=\"{href}\" rel=\"noopener noreferrer\">{core}</a>"));
                out.push_str(&piece[start + core.len()..]);
            }
            None => out.push_str(piece),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_ids_and_commits_are_recognised() {
        assert_eq!(
            href_of("20190614232221.248392-5-edumazet@google.com").as_deref(),
            Some("https://lore.kernel.org/r/20190614232221.248392-5-edumazet@google.com")
        );
        assert!(href_of("8b27dae5a2e8").unwrap().ends_with("?id=8b27dae5a2e8"));
        for not in ["netdev", "2019-06-14", "deadbeefcafe", "a@b", "MAX_SKB_FRAGS", "16384"] {
            assert_eq!(href_of(not), None, "{not}");
        }
        assert!(subject_search_href("netdev / linux-mm", "Re: x").starts_with("https://lore.kernel.org/netdev/?q=s%3A"));
    }

    #[test]
    fn html_items_get_their_citations_linked() {
        let commit = commit_href("3948b05950fd");
        // In text and in code, with the sentence's punctuation around it.
        assert_eq!(
            linkify_html("Since v6.4 (commit <code>3948b05950fd</code>). See 3948b05950fd's."),
            format!(
                "Since v6.4 (commit <code><a href=\"{commit}\" rel=\"noopener noreferrer\">3948b05950fd</a></code>). \
                 See <a href=\"{commit}\" rel=\"noopener noreferrer\">3948b05950fd</a>'s."
            )
        );
        // A Markdown autolink of a Message-ID goes to the archive, not to a mail program.
        let id = "20230323162842.1935061-1-eric.dumazet@gmail.com";
        assert_eq!(
            linkify_html(&format!("netdev, <a href=\"mailto:{id}\">{id}</a>")),
            format!("netdev, <a href=\"{}\" rel=\"noopener noreferrer\">{id}</a>", message_href(id))
        );
        // An escaped Message-ID in text; nothing inside a link is linked again.
        assert_eq!(
            linkify_html(&format!("&lt;{id}&gt;")),
            format!("&lt;<a href=\"{}\" rel=\"noopener noreferrer\">{id}</a>&gt;", message_href(id))
        );
        let linked = "<a href=\"https://example.org/\">3948b05950fd</a> and <em>MAX_SKB_FRAGS</em>, 65536 &amp; 16";
        assert_eq!(linkify_html(linked), linked);
    }
}
