//! The receipt's auto-memory section: where MEMORY.md is, how the client measures it against
//! its limits (as bars), and the lines it cuts, with how long each has been dark.

use std::fmt::Write as _;

use super::{HumanOptions, LIST_LIMIT, more};
use crate::constants::counted as count;
use crate::constants::{INDEX_MAX_LINES, INDEX_MAX_UTF16, MAX_FILE_SIZE};
use crate::load::automem::{IndexState, Measure};
use crate::receipt::{DarkHistory, Receipt, group};
use crate::render::style::{BOLD, DIM, GREEN, RED, YELLOW};
use crate::text::escape::Shown;

/// Width of the budget bars, in cells.
const BAR: usize = 30;

pub(super) fn section(o: &mut String, r: &Receipt, opts: HumanOptions) {
    let a = &r.auto_memory;
    let _ = write!(o, "\n{BOLD}Auto memory{BOLD:#}");
    if let Some(off) = &a.off {
        let _ = writeln!(o, ": off ({})", Shown(off));
        return;
    }
    let _ = writeln!(
        o,
        ": {} {DIM}({}){DIM:#}",
        Shown(a.index_path.as_deref().unwrap_or("(no folder)")),
        Shown(a.folder_source.as_deref().unwrap_or("default folder"))
    );
    match &a.index {
        IndexState::NotApplicable => {}
        IndexState::Missing => {
            let _ = writeln!(
                o,
                "  no MEMORY.md, and nothing the client would build one from"
            );
        }
        IndexState::WouldGenerate { lines } => {
            let _ = writeln!(
                o,
                "  {YELLOW}no MEMORY.md: the client would WRITE a generated index of {} line(s) at start (ccmem wrote nothing){YELLOW:#}",
                lines.len()
            );
        }
        IndexState::NotRegular { what } => {
            let _ = writeln!(
                o,
                "  {RED}MEMORY.md is not a regular file ({what}): nothing loads{RED:#}"
            );
        }
        IndexState::TooLarge { bytes } => {
            let _ = writeln!(
                o,
                "  {RED}MEMORY.md is {} bytes, over {MAX_FILE_SIZE}: the client skips it whole{RED:#}",
                group(*bytes as usize)
            );
        }
        IndexState::Unreadable { error } => {
            let _ = writeln!(o, "  {RED}MEMORY.md unreadable: {}{RED:#}", Shown(error));
        }
        IndexState::FromEnv(m) => {
            let _ = writeln!(o, "  replaced by CLAUDE_COWORK_MEMORY_INDEX_CONTENT");
            measure(o, m, opts, r.dark_history.as_ref());
        }
        IndexState::Loaded(m) => measure(o, m, opts, r.dark_history.as_ref()),
    }
}

fn measure(o: &mut String, m: &Measure, opts: HumanOptions, record: Option<&DarkHistory>) {
    let _ = writeln!(
        o,
        "  on disk: {} lines, {} bytes · counted by the client (after frontmatter/comments, trimmed): {} lines, {} UTF-16 units",
        m.file_lines,
        group(m.file_bytes as usize),
        m.lines,
        group(m.utf16)
    );
    let _ = writeln!(
        o,
        "  lines {} {}/{}",
        bar(m.lines, INDEX_MAX_LINES),
        m.lines,
        INDEX_MAX_LINES
    );
    let _ = writeln!(
        o,
        "  size  {} {}/{} UTF-16 units",
        bar(m.utf16, INDEX_MAX_UTF16),
        group(m.utf16),
        group(INDEX_MAX_UTF16)
    );
    let Some(cut) = &m.cut else {
        let _ = writeln!(o, "  {GREEN}everything loads{GREEN:#}");
        return;
    };
    let at = if cut.kept_lines == 0 {
        format!(
            "inside line 1, after {} UTF-16 units",
            group(cut.kept_utf16)
        )
    } else {
        format!("after counted line {}", cut.kept_lines)
    };
    let _ = writeln!(
        o,
        "  {RED}CUT {at}: {} never reach the model{RED:#}",
        count(cut.dark.len(), "line", "lines")
    );
    let shown: Vec<_> = cut
        .dark
        .iter()
        .filter(|d| !d.text.trim().is_empty())
        .collect();
    let limit = if opts.all { shown.len() } else { LIST_LIMIT };
    if let Some(h) = record {
        let _ = writeln!(
            o,
            "  {DIM}recorded: {} loaded this index since {} (ccmem history){DIM:#}",
            count(h.sessions, "session", "sessions"),
            day(h.since.as_deref())
        );
    }
    for d in shown.iter().take(limit) {
        let mark = if d.partial { " (partly)" } else { "" };
        let story = record
            .and_then(|h| h.entries.iter().find(|e| e.line == d.line))
            .map(|e| format!(" {DIM}· {}{DIM:#}", dark_story(e)))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "    {RED}L{:<5}{RED:#} {}{mark}{story}",
            d.line,
            Shown(&d.text)
        );
    }
    more(o, shown.len().saturating_sub(limit), "dark lines");
    let _ = writeln!(
        o,
        "  {DIM}the model is told: {}{DIM:#}",
        Shown(&cut.warning)
    );
}

/// How long a dark entry has been dark, from the record.
pub fn dark_story(e: &crate::history::Entry) -> String {
    match &e.last_loaded {
        Some(id) if e.sessions_since == 0 => format!(
            "last loaded {} (session {}), the last session recorded",
            day(e.last_loaded_at.as_deref()),
            &id[..id.len().min(8)]
        ),
        Some(id) => format!(
            "last loaded {} (session {}), dark since {}",
            day(e.last_loaded_at.as_deref()),
            &id[..id.len().min(8)],
            day(e.dark_since.as_deref())
        ),
        None => format!(
            "never reached the model in {} since {}",
            count(e.sessions_since, "session", "sessions"),
            day(e.dark_since.as_deref())
        ),
    }
}

/// `2026-11-02` (UTC) of an RFC 3339 time.
fn day(t: Option<&str>) -> String {
    t.and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .map_or_else(
            || "(no date)".to_owned(),
            |t| t.strftime("%Y-%m-%d").to_string(),
        )
}

/// `[██████░░░░]` scaled so the limit sits at the end; overflow shown as `▶`.
fn bar(value: usize, limit: usize) -> String {
    let filled = (value.min(limit) * BAR).div_ceil(limit.max(1));
    let over = if value > limit {
        format!("{RED}▶ over{RED:#}")
    } else {
        String::new()
    };
    let style = if value > limit {
        RED
    } else if value * 10 >= limit * 8 {
        YELLOW
    } else {
        GREEN
    };
    format!(
        "{style}[{}{}]{style:#}{over}",
        "█".repeat(filled),
        "░".repeat(BAR - filled)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_is_full_at_the_limit_and_marks_overflow() {
        let plain = |s: String| anstream::adapter::strip_str(&s).to_string();
        assert_eq!(plain(bar(0, 200)), format!("[{}]", "░".repeat(BAR)));
        assert_eq!(plain(bar(200, 200)), format!("[{}]", "█".repeat(BAR)));
        assert!(plain(bar(201, 200)).ends_with("▶ over"));
        assert!(!plain(bar(100, 200)).contains("over"));
    }
}
