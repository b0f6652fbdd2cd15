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
}
