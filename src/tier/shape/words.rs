//! The words tier writes: a pointer line's topic and hook, a hub's description, cut at a clause
//! or a word boundary, from the moved entries' own titles (no type name, count or `…`).

use crate::constants::INDEX_LINE_GUIDE_UTF16;
use crate::text::js::utf16_len;

/// Type names are no topic (see `groups`).
fn is_type_word(t: &str) -> bool {
    matches!(
        t.trim().to_lowercase().as_str(),
        "user"
            | "users"
            | "feedback"
            | "feedbacks"
            | "project"
            | "projects"
            | "reference"
            | "references"
            | "other"
            | "others"
    )
}

/// The pointer's topic and the labels left for its hook: the unit's title in the library's
/// words (a heading cut at its first clause, without leading signs), else the first label.
pub(super) fn topic_of<'a>(title: &str, labels: &[&'a str]) -> (String, Vec<&'a str>) {
    let t = title.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '(' && c != '[');
    let t = first_clause(t);
    let t = cut_words(t, 48);
    if t.is_empty() || is_type_word(&t) {
        let first = labels.first().map(|l| cut_words(l, 48)).unwrap_or_default();
        return (first, labels.iter().skip(1).copied().collect());
    }
    (t, labels.to_vec())
}

/// The first clause of `text`: up to its first `;`, ` — `, `. `, `。`, `；`, `(` or `（`
/// (the whole text when none comes within it).
pub(crate) fn first_clause(text: &str) -> &str {
    let stops = [
        " — ", " – ", "; ", ". ", "。", "；", " (", "（", "(", ": ", "：",
    ];
    let at = stops
        .iter()
        .filter_map(|s| text.find(s))
        .filter(|&at| at > 0)
        .min()
        .unwrap_or(text.len());
    text[..at].trim_end_matches([',', '，', '、', ' ']).trim()
}

/// `text` within `max` UTF-16 units, cut at the last word boundary that fits (never inside a
/// word; a text without spaces, as in Han or kana, is cut between characters).
pub(crate) fn cut_words(text: &str, max: usize) -> String {
    let text = text.trim();
    if utf16_len(text) <= max {
        return text.to_owned();
    }
    let mut end = 0;
    let mut last_space = None;
    for (at, c) in text.char_indices() {
        if utf16_len(&text[..at + c.len_utf8()]) > max {
            break;
        }
        if c.is_whitespace() {
            last_space = Some(at);
        }
        end = at + c.len_utf8();
    }
    let spaced = text.contains(' ');
    let cut = match last_space {
        Some(at) if spaced => at,
        _ if spaced => 0,
        _ => end,
    };
    text[..cut]
        .trim_end_matches([',', ';', ':', '，', '、', ' ', '—', '-'])
        .trim()
        .to_owned()
}

/// A pointer line: `- [topic](hub) — label; label; …`, at most 150 UTF-16 units, the labels
/// whole (a label that does not fit is left out, never cut with `…`). `[`/`]` in the topic
/// become parentheses so the link stays one.
pub(super) fn pointer(title: &str, hub: &str, labels: &[&str]) -> String {
    let (topic, rest) = topic_of(title, labels);
    let topic = topic.replace('[', "(").replace(']', ")");
    let mut line = format!("- [{topic}]({})", hub);
    let mut first = true;
    for l in rest {
        let l = l.replace(".md", "");
        let l = l.trim();
        if l.is_empty() || l == topic {
            continue;
        }
        let sep = if first { " — " } else { "; " };
        if utf16_len(&line) + utf16_len(sep) + utf16_len(l) > INDEX_LINE_GUIDE_UTF16 {
            continue;
        }
        line.push_str(sep);
        line.push_str(l);
        first = false;
    }
    line
}

/// A hub's `description:`: its topic and its entries' labels, as its pointer says them.
pub(super) fn description(title: &str, labels: &[&str]) -> String {
    let (topic, rest) = topic_of(title, labels);
    let mut d = topic;
    let mut first = true;
    for l in rest {
        let l = l.replace(".md", "");
        let sep = if first { ": " } else { "; " };
        if utf16_len(&d) + utf16_len(sep) + utf16_len(&l) > INDEX_LINE_GUIDE_UTF16 {
            continue;
        }
        d.push_str(sep);
        d.push_str(l.trim());
        first = false;
    }
    d
}
