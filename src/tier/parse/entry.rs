//! What makes a line of MEMORY.md an entry: its link leads it, as people and Claude Code
//! write them:
//!
//! - a list item opening with its link: `- ⭐ **[Title](file.md)** — hook`, `- [[name]] — hook`,
//!   `` - `file.md` — hook ``;
//! - a list item whose link follows a short label, a date, a week or a version
//!   (`- W12 [Title](file.md) — …`, `- 2024-05 deploy: [Title](file.md) — …`): a label holds a
//!   digit or ends with a colon (before a link into the folder), so `- see [d](d.md)`,
//!   `- Runbook: [deploy](~/notes/deploy.md)` and `3. Ask first ([why](x.md))` stay text;
//! - a line without a list marker that opens with its link and ends there or goes on after a
//!   separator (`[[user-profile]] — …`, Obsidian-style indexes): prose that opens with a link
//!   (`[Docs](x.md) explain …`) stays text;
//! - a Markdown table row whose first cell is the link (`| [[name]] | why |`,
//!   `| [Title](file.md) | why |`).

/// Where an entry line's link starts (see the module docs), `None` for a line that is no entry.
pub(super) fn link_start(raw: &str) -> Option<&str> {
    if is_row(raw) {
        let cell = raw.trim().strip_prefix('|')?.split('|').next()?;
        let cell = cell.trim().trim_start_matches(['*', '_']);
        return opens_with_link(cell).then_some(cell);
    }
    let Some(rest) = lead(raw) else {
        let t = raw.trim_start().trim_start_matches(['*', '_']);
        return (opens_with_link(t) && ends_or_goes_on(t)).then_some(t);
    };
    if rest.starts_with(['[', '`']) {
        return Some(rest);
    }
    // A short label before the link: a date, a week, a version, or words ending in a colon.
    let at = rest.find('[')?;
    let (label, link) = rest.split_at(at);
    let label = label.trim_end().trim_end_matches(['*', '_']).trim_end();
    let short = label.chars().count() <= 40 && label.split_whitespace().count() <= 4;
    let plain = !label.contains(['(', ')', '[', ']', '`']);
    let link = link.trim_start_matches(['*', '_']);
    // `- Runbook: [deploy](~/notes/deploy.md)` points out of the folder: a rule line's pointer.
    let inside = link.starts_with("[[")
        || link.split_once("](").is_some_and(|(_, t)| {
            !t.starts_with(['~', '/', '<']) && !t.split(')').next().unwrap_or("").contains("://")
        });
    let marked =
        label.contains(|c: char| c.is_ascii_digit()) || (label.ends_with([':', '：']) && inside);
    (short && plain && marked && opens_with_link(link) && ends_or_goes_on(link)).then_some(link)
}

/// Whether `t` opens with a wiki link or a Markdown link with a target.
fn opens_with_link(t: &str) -> bool {
    if let Some(inner) = t.strip_prefix("[[") {
        return inner.find("]]").is_some_and(|e| e > 0);
    }
    t.strip_prefix('[')
        .and_then(|inner| inner.find("]("))
        .is_some_and(|e| t[e + 3..].contains(')'))
}

/// Whether the link opening `t` ends the line or is followed by a separator before a hook
/// (` — `, ` – `, ` - `, `: `, `：`, ` | `, `(`), not by the rest of a sentence.
fn ends_or_goes_on(t: &str) -> bool {
    let end = if let Some(inner) = t.strip_prefix("[[") {
        inner.find("]]").map(|e| e + 4)
    } else {
        t.find("](")
            .and_then(|e| t[e..].find(')').map(|c| e + c + 1))
    };
    let Some(end) = end else { return false };
    let after = t[end..].trim_start_matches(['*', '_']);
    let after = after.trim_start();
    after.is_empty()
        || ["—", "–", "- ", ":", "：", "|", "(", "（", "·"]
            .iter()
            .any(|s| after.starts_with(s))
}

/// A Markdown table row: `| … |`.
pub(super) fn is_row(raw: &str) -> bool {
    let t = raw.trim();
    t.len() > 1 && t.starts_with('|') && t.ends_with('|')
}

/// A list item's text after its marker, a task box, crown marks and emphasis: where an index
/// entry has its link (`- ⭐ **[Title](file.md)** — hook`). `None` for a line that is no list
/// item.
fn lead(raw: &str) -> Option<&str> {
    let t = raw.trim_start();
    let rest = if let Some(rest) = t.strip_prefix(['-', '*', '+']) {
        rest
    } else {
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || digits >= 10 {
            return None;
        }
        t[digits..].strip_prefix(['.', ')'])?
    };
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let mut rest = rest.trim_start();
    for boxed in ["[ ] ", "[x] ", "[X] "] {
        rest = rest.strip_prefix(boxed).unwrap_or(rest);
    }
    Some(rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '\u{2B50}' | '\u{26A0}' | '\u{FE0F}' | '*' | '_' | '~')
    }))
}

/// The title of an entry line: the text of its leading `[Title](…)` or `[[name|title]]`.
pub fn entry_title(raw: &str) -> Option<&str> {
    let t = link_start(raw)?;
    let title = if let Some(wiki) = t.strip_prefix("[[") {
        let inner = &wiki[..wiki.find("]]")?];
        inner.rsplit('|').next()?
    } else {
        let inner = t.strip_prefix('[')?;
        &inner[..inner.find(']')?]
    };
    let title = title.trim().trim_matches(['*', '_', '`']).trim();
    (!title.is_empty()).then_some(title)
}
