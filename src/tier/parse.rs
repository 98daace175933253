//! Reading MEMORY.md as lines: frontmatter, the title, headings and the sections they open,
//! entries, the lines that belong to an entry, and everything else, with the line numbers of
//! the file on disk. Nothing here refuses: a line that is not clearly an entry is text, and text
//! stays.
//!
//! An entry is a line whose link leads it, as people and Claude Code write them:
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
//!
//! Lines that belong to an entry move with it ([`Kind::Part`]): its indented continuation
//! (`  Keywords: …` under a phase entry, an indented note), and a table's header and delimiter
//! rows, which belong to its first row.

use crate::text::links::links;

/// One line of the index, without its line terminator (a trailing `\r` is dropped too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number in the file.
    pub no: usize,
    /// The text, verbatim.
    pub text: &'a str,
    /// What the line is.
    pub kind: Kind,
    /// Index (in [`Index::lines`]) of the innermost heading whose section holds this line (for
    /// a heading: the nearest heading of a lower level before it), the title excluded.
    pub section: Option<usize>,
}

/// The kinds of index lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Whitespace only.
    Blank,
    /// An ATX heading (`## Title`) outside code fences.
    Heading {
        /// The title, trimmed, without the `#` marks.
        title: String,
        /// 1 for `#` … 6 for `######`.
        level: usize,
    },
    /// A line led by a link (see the module docs; which file it links, the library says).
    Entry,
    /// A line that belongs to the entry at this index (into [`Index::lines`]): its indented
    /// continuation, or the header and delimiter rows of the table it opens.
    Part {
        /// The entry's line.
        entry: usize,
    },
    /// Anything else (prose, fenced code, comments).
    Text,
}

/// MEMORY.md split into its parts.
#[derive(Debug, Clone)]
pub struct Index<'a> {
    /// The frontmatter block, verbatim (empty when there is none).
    pub frontmatter: &'a str,
    /// The lines after the frontmatter.
    pub lines: Vec<Line<'a>>,
    /// The index's title: its first non-blank line when that is an `# H1` (never a group: it
    /// stays on top).
    pub title: Option<usize>,
    /// The line terminator the file mostly uses (`"\r\n"` or `"\n"`).
    pub eol: &'static str,
}

/// The terminator `text` mostly uses.
pub fn eol_of(text: &str) -> &'static str {
    let lf = text.matches('\n').count();
    let crlf = text.matches("\r\n").count();
    if lf > 0 && crlf * 2 > lf {
        "\r\n"
    } else {
        "\n"
    }
}

/// Splits `text` into lines without terminators (a trailing `\r` removed).
pub fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let empty = text.is_empty();
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.split('\n')
        .filter(move |_| !empty)
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// Parses the index.
pub fn parse(text: &str) -> Index<'_> {
    let split = crate::text::frontmatter::split(text);
    let (frontmatter, body) = if split.yaml.is_some() {
        text.split_at(split.body_start)
    } else {
        ("", text)
    };
    let first_no = frontmatter.matches('\n').count() + 1;
    let mut lines: Vec<Line> = Vec::new();
    let mut title = None;
    // Open headings, outermost first: (level, line index).
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, raw) in split_lines(body).enumerate() {
        let no = first_no + i;
        let trimmed = raw.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        let kind = if let Some(open) = fence {
            if marker == Some(open) {
                fence = None;
            }
            Kind::Text
        } else if let Some(m) = marker {
            fence = Some(m);
            Kind::Text
        } else if raw.trim().is_empty() {
            Kind::Blank
        } else if let Some((level, title)) = heading(raw) {
            Kind::Heading { title, level }
        } else if link_start(raw).is_some() && !links(raw).is_empty() {
            Kind::Entry
        } else if let Some(entry) = owner(&lines, raw) {
            Kind::Part { entry }
        } else {
            Kind::Text
        };
        if kind == Kind::Entry && is_row(raw) {
            let at = lines.len();
            table_head(&mut lines, at);
        }
        let at = lines.len();
        let section = match &kind {
            Kind::Heading { level, .. } => {
                while open.last().is_some_and(|&(l, _)| l >= *level) {
                    open.pop();
                }
                let parent = open.last().map(|&(_, h)| h);
                let first = lines.iter().all(|l| matches!(l.kind, Kind::Blank));
                if first && *level == 1 && title.is_none() {
                    title = Some(at);
                } else {
                    open.push((*level, at));
                }
                parent
            }
            _ => open.last().map(|&(_, h)| h),
        };
        lines.push(Line {
            no,
            text: raw,
            kind,
            section,
        });
    }
    Index {
        frontmatter,
        lines,
        title,
        eol: eol_of(text),
    }
}

impl Index<'_> {
    /// The end (exclusive) of heading `h`'s section: the next heading of the same or a lower
    /// level, else the end of the file.
    pub fn section_end(&self, h: usize) -> usize {
        let Kind::Heading { level, .. } = self.lines[h].kind else {
            return h + 1;
        };
        (h + 1..self.lines.len())
            .find(|&i| matches!(self.lines[i].kind, Kind::Heading { level: l, .. } if l <= level))
            .unwrap_or(self.lines.len())
    }

    /// The headings line `i` is under, outermost first (the title excluded).
    pub fn headings_of(&self, i: usize) -> Vec<usize> {
        let mut chain = Vec::new();
        let mut at = self.lines[i].section;
        while let Some(h) = at {
            chain.push(h);
            at = self.lines[h].section;
        }
        chain.reverse();
        chain
    }
}

pub use crate::memory::names::has_crown_mark;

fn heading(raw: &str) -> Option<(usize, String)> {
    let t = raw.strip_prefix("   ").or_else(|| raw.strip_prefix("  "));
    let t = t.or_else(|| raw.strip_prefix(' ')).unwrap_or(raw);
    let hashes = t.len() - t.trim_start_matches('#').len();
    let rest = &t[hashes..];
    let ok = (1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with([' ', '\t']));
    ok.then(|| (hashes, rest.trim().trim_end_matches('#').trim().to_owned()))
}

/// Where an entry line's link starts (see the module docs), `None` for a line that is no entry.
fn link_start(raw: &str) -> Option<&str> {
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
fn is_row(raw: &str) -> bool {
    let t = raw.trim();
    t.len() > 1 && t.starts_with('|') && t.ends_with('|')
}

/// The entry a line belongs to as its continuation: an indented line (no heading, no entry of
/// its own) right after an entry or another of its continuation lines.
fn owner(lines: &[Line], raw: &str) -> Option<usize> {
    let indent = raw.len() - raw.trim_start().len();
    if !(raw.starts_with('\t') || indent >= 2) {
        return None;
    }
    let prev = lines.last()?;
    match prev.kind {
        Kind::Entry if !is_row(prev.text) => Some(lines.len() - 1),
        Kind::Part { entry } if !is_row(prev.text) => Some(entry),
        _ => None,
    }
}

/// Makes the header and delimiter rows right above a table's first entry row (at `first`)
/// belong to that row: moving the rows without them would leave a broken table.
fn table_head(lines: &mut [Line], first: usize) {
    let delimiter = |t: &str| {
        is_row(t)
            && t.trim()
                .chars()
                .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
    };
    if first < 2 || !delimiter(lines[first - 1].text) || lines[first - 1].kind != Kind::Text {
        return;
    }
    let head = first - 2;
    if !is_row(lines[head].text) || lines[head].kind != Kind::Text {
        return;
    }
    lines[first - 1].kind = Kind::Part { entry: first };
    lines[head].kind = Kind::Part { entry: first };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_sections_and_line_numbers() {
        let t = "---\nname: x\n---\n- ⭐ [a](a.md)\r\n\r\n## Tools 🔧\n- [b](b.md) — b\n```\n- [c](c.md)\n```\nprose\n";
        let idx = parse(t);
        assert_eq!(idx.frontmatter, "---\nname: x\n---\n");
        let kinds: Vec<_> = idx
            .lines
            .iter()
            .map(|l| (l.no, l.text, l.section))
            .collect();
        assert_eq!(kinds[0], (4, "- ⭐ [a](a.md)", None));
        assert_eq!(
            idx.lines[2].kind,
            Kind::Heading {
                title: "Tools 🔧".into(),
                level: 2
            }
        );
        assert_eq!(kinds[3], (7, "- [b](b.md) — b", Some(2)));
        assert_eq!(
            idx.lines[5].kind,
            Kind::Text,
            "fenced lines are not entries"
        );
        assert_eq!(idx.lines[7].kind, Kind::Text);
        assert!(has_crown_mark(idx.lines[0].text));
        assert_eq!(idx.title, None, "a title is a leading `# H1`");
    }

    #[test]
    fn the_title_opens_no_section_and_headings_nest() {
        let idx =
            parse("\n# Memory\n- [a](a.md)\n## A\n### A1\n- [b](b.md)\n## B\nrule\n# Other\nx\n");
        assert_eq!(idx.title, Some(1));
        assert_eq!(
            idx.lines[2].section, None,
            "entries under the title are in no section"
        );
        assert_eq!(idx.lines[4].section, Some(3));
        assert_eq!(idx.headings_of(5), [3, 4]);
        assert_eq!(idx.section_end(3), 6);
        assert_eq!(idx.section_end(4), 6);
        assert_eq!(idx.lines[7].section, Some(6));
        assert_eq!(idx.lines[9].section, Some(8), "a later H1 is a section");
        assert_eq!(idx.section_end(8), idx.lines.len());
    }

    #[test]
    fn entries_start_with_their_link_and_rules_that_cite_a_file_are_text() {
        let idx = parse(
            "- ⭐ **[Title](a.md)** — hook\n3. Ask first ([why](feedback_x.md)).\n- [ ] [[b|Bee]]\n* `c.md` — code\n- see [d](d.md)\n",
        );
        let kinds: Vec<&Kind> = idx.lines.iter().map(|l| &l.kind).collect();
        assert_eq!(
            kinds,
            [
                &Kind::Entry,
                &Kind::Text,
                &Kind::Entry,
                &Kind::Entry,
                &Kind::Text
            ]
        );
        let titles: Vec<Option<&str>> = idx.lines.iter().map(|l| entry_title(l.text)).collect();
        assert_eq!(titles, [Some("Title"), None, Some("Bee"), None, None]);
    }

    fn kinds(text: &str) -> Vec<Kind> {
        parse(text).lines.into_iter().map(|l| l.kind).collect()
    }

    #[test]
    fn wiki_links_table_rows_and_labelled_links_are_entries() {
        let text = concat!(
            "[[user-profile]] — 数字 IC 工程师，回答要给出波形\n",
            "[[ofdm-sync-status]]\n",
            "- 2024-05 deploy: [Rollback drill](project_rollback.md) — 回滚演练\n",
            "- W12 [Audit log export](memory/project_w12.md) — MERGED #88\n",
            "* **Sprint 3:** [Checkout](project_checkout.md)\n",
            "- v2.1 [Notas de versión](reference_notas.md): cambios de API\n",
            "| [[algorithm-engineer]] | agents/domain/ — 算法建模 |\n",
            "| **[Grafana](reference_grafana.md)** | Dashboards |\n",
        );
        assert_eq!(kinds(text), vec![Kind::Entry; 8]);
        let titles: Vec<Option<&str>> = (text.lines()).map(entry_title).collect();
        assert_eq!(
            titles,
            [
                Some("user-profile"),
                Some("ofdm-sync-status"),
                Some("Rollback drill"),
                Some("Audit log export"),
                Some("Checkout"),
                Some("Notas de versión"),
                Some("algorithm-engineer"),
                Some("Grafana")
            ]
        );
    }

    #[test]
    fn rules_and_prose_that_cite_a_file_stay_text() {
        let text = concat!(
            "- Immer zuerst fragen, siehe [Begründung](feedback_fragen.md)\n",
            "- see [d](d.md)\n",
            "- Runbook: [deploy](~/notes/deploy.md)\n",
            "3. Ask first ([why](feedback_x.md)).\n",
            "[Docs](reference_docs.md) explain how the deploy works.\n",
            "- Nunca hagas push a main (ver [regla](feedback_main.md))\n",
            "| 2024-05 | [Rollback](project_rollback.md) |\n",
            "- これは長い説明の文で途中に [リンク](feedback_x.md) があるだけ\n",
        );
        assert_eq!(kinds(text), vec![Kind::Text; 8]);
    }

    #[test]
    fn continuation_lines_and_table_heads_belong_to_their_entry() {
        let idx = parse(concat!(
            "## Recent Phases\n",
            "- W12 [Audit log](project_w12.md) — MERGED #88\n",
            "  Keywords: AD-Export-1 · async job\n",
            "\tpresigned URL · 24h expiry\n",
            "- Immer Tests laufen lassen\n",
            "  (auch bei kleinen Änderungen)\n",
            "\n",
            "| 文件 | 角色 |\n",
            "|:-----|:------|\n",
            "| [[logic-engineer]] | RTL 编码 |\n",
            "| [[verification-engineer]] | 覆盖率 |\n",
        ));
        let kinds: Vec<&Kind> = idx.lines.iter().map(|l| &l.kind).collect();
        assert_eq!(
            kinds,
            [
                &Kind::Heading {
                    title: "Recent Phases".into(),
                    level: 2
                },
                &Kind::Entry,
                &Kind::Part { entry: 1 },
                &Kind::Part { entry: 1 },
                &Kind::Text,
                &Kind::Text,
                &Kind::Blank,
                &Kind::Part { entry: 9 },
                &Kind::Part { entry: 9 },
                &Kind::Entry,
                &Kind::Entry,
            ],
            "a rule's continuation is text; the table's head goes with its first row"
        );
        assert_eq!(idx.lines[2].section, Some(0));
    }

    #[test]
    fn unclosed_links_are_text_not_refusals() {
        let idx = parse("# T\n- [a](a.md\n- [[a\n- plain [text] (not a link)\n");
        assert!(idx.lines[1..].iter().all(|l| l.kind == Kind::Text));
    }

    #[test]
    fn eol_and_splitting() {
        assert_eq!(eol_of("a\r\nb\r\nc\n"), "\r\n");
        assert_eq!(eol_of("a\nb\r\n"), "\n");
        assert_eq!(split_lines("a\r\nb").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(split_lines("").count(), 0);
        assert_eq!(split_lines("\n").collect::<Vec<_>>(), [""]);
    }
}
