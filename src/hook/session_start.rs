//! `ccmem hook session-start`: a receipt for the operator at every session start. The client
//! tells only the model when MEMORY.md is cut; this hook tells the person, names the first entry
//! that went dark and the command that fixes it, and optionally (`--recover`) hands the dark
//! entries to the model so this session still sees them.

use crate::constants::{INDEX_MAX_LINES, INDEX_MAX_UTF16_WORDS, MAX_FILE_SIZE};
use crate::load::Session;
use crate::load::automem::{Cut, DarkLine, IndexState};

use super::output::{Event, HookOutput, clip};
use super::{human_bytes, line_range};

/// Largest `additionalContext` `--recover` adds, in characters (the dark entries are cut there,
/// and the rest is named by line number).
pub(crate) const RECOVER_MAX_CHARS: usize = 8_000;

/// Longest preview of a dark entry in the operator message, in characters.
pub(crate) const PREVIEW_CHARS: usize = 80;

/// What the hook prints, chosen by the command-line switches.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Options {
    /// Print the receipt even when nothing went dark.
    pub always: bool,
    /// Add the dark entries to the model's context.
    pub recover: bool,
}

/// Appends the record of this session start to ccmem's history log (`history::log`; nothing
/// without `HOME`). The log is bounded and never written through a link (`write::append`).
pub(crate) fn log(
    session: &Session,
    start: crate::history::log::Start<'_>,
    vars: &std::collections::BTreeMap<String, String>,
    time: &str,
) -> Result<(), crate::write::WriteError> {
    use crate::history::log;
    let Some(path) = log::path(vars) else {
        return Ok(());
    };
    let record = log::encode(&log::record(session, start, time));
    crate::write::append::append_line(&path, &record, log::LOG_CAP).map(|_| ())
}

/// The hook output for a loaded session (empty when all is well and not `always`).
pub(crate) fn output(session: &Session, opts: Options) -> HookOutput {
    let receipt = receipt(session);
    let pending = crate::memory::pending::of_session(session).map(|p| p.message());
    let problem = match (problem(session), pending) {
        (Some(a), Some(b)) => Some(format!("{a} · {b}")),
        (a, b) => a.or(b),
    };
    let message = match &problem {
        Some(p) => Some(format!("ccmem: {receipt} · {p}")),
        None if opts.always => Some(format!("ccmem: {receipt}")),
        None => None,
    };
    let context = if opts.recover { recover(session) } else { None };
    HookOutput::new(Event::SessionStart, message, context)
}

/// `N memory files loaded (SIZE)`, or why memory is off.
fn receipt(session: &Session) -> String {
    if let Some(why) = session.disabled {
        return format!("memory is off ({why})");
    }
    let bytes: usize = session.entries.iter().map(|e| e.content.len()).sum();
    let n = session.entries.len();
    let files = if n == 1 { "file" } else { "files" };
    format!("{n} memory {files} loaded ({})", human_bytes(bytes as u64))
}

/// What went dark at load, in one clause, with the fix.
fn problem(session: &Session) -> Option<String> {
    match &session.automem.index {
        IndexState::Loaded(m) | IndexState::FromEnv(m) => {
            let cut = m.cut.as_ref()?;
            Some(cut_clause(cut, m.lines))
        }
        IndexState::TooLarge { bytes } => Some(format!(
            "MEMORY.md ({}) is over the client's {MAX_FILE_SIZE} read limit: none of it loaded · fix: ccmem tier",
            human_bytes(*bytes)
        )),
        IndexState::NotRegular { what } => Some(format!(
            "MEMORY.md is a {what}, not a file: auto memory has no index this session"
        )),
        IndexState::Unreadable { error } => Some(format!(
            "MEMORY.md could not be read ({error}): auto memory has no index"
        )),
        _ => None,
    }
}

/// `MEMORY.md cut: N lines dark (A–B), first: "…" · fix: ccmem tier`.
fn cut_clause(cut: &Cut, lines: usize) -> String {
    let n = cut.dark.len();
    let what = match (cut.line_over, cut.size_over) {
        (true, true) => format!("{lines} lines, over both limits"),
        (true, false) => format!("{lines} lines, over the {INDEX_MAX_LINES}-line limit"),
        _ => format!("over the {INDEX_MAX_UTF16_WORDS}-unit size limit"),
    };
    let mut s = format!(
        "MEMORY.md cut ({what}): {n} line{} dark ({})",
        if n == 1 { "" } else { "s" },
        line_range(&cut.dark)
    );
    if let Some(first) = first_entry(&cut.dark) {
        let (text, cut_short) = clip(first.text.trim(), PREVIEW_CHARS);
        s.push_str(&format!(
            ", first: \"{text}{}\"",
            if cut_short { "…" } else { "" }
        ));
    }
    s.push_str(" · fix: ccmem tier");
    s
}

/// The first dark line that holds text.
fn first_entry(dark: &[DarkLine]) -> Option<&DarkLine> {
    dark.iter().find(|d| !d.text.trim().is_empty())
}

/// The dark entries as labelled context for the model, bounded by [`RECOVER_MAX_CHARS`].
fn recover(session: &Session) -> Option<String> {
    let (IndexState::Loaded(m) | IndexState::FromEnv(m)) = &session.automem.index else {
        return None;
    };
    let cut = m.cut.as_ref()?;
    let path = session.automem.index_path.as_deref().unwrap_or("MEMORY.md");
    let entries: Vec<&DarkLine> = cut
        .dark
        .iter()
        .filter(|d| !d.text.trim().is_empty())
        .collect();
    if entries.is_empty() {
        return None;
    }
    let mut out = format!(
        "ccmem: the client cut the auto-memory index {path} at startup; these {} entries (lines {}) \
         did not load. They are part of the user's auto-memory, recovered for this session:\n",
        entries.len(),
        line_range(&cut.dark)
    );
    let mut chars = out.chars().count();
    for (i, d) in entries.iter().enumerate() {
        let line = format!("{}: {}\n", d.line, d.text);
        let len = line.chars().count();
        if chars + len > RECOVER_MAX_CHARS {
            out.push_str(&format!(
                "… {} more entries not shown: read {path} from line {}.\n",
                entries.len() - i,
                d.line
            ));
            break;
        }
        chars += len;
        out.push_str(&line);
    }
    Some(out)
}

/// After a compaction (`source: "compact"`): a short message when instruction files the
/// session had (nested CLAUDE.md files, path rules attached by earlier reads) do not come back
/// (SPEC-compaction A3–A4: only the 5 newest files of the read state are restored).
pub(crate) fn after_compact(
    env: &crate::env::ClientEnv,
    session: &Session,
    calls: &[crate::load::compact::Call],
) -> Option<HookOutput> {
    let after = crate::load::compact::load(env, session, calls, false);
    let lost: Vec<&str> = after.lost().map(|c| c.path.as_str()).collect();
    if lost.is_empty() {
        return None;
    }
    let (first, _) = clip(lost[0], 120);
    let more = if lost.len() > 1 {
        format!(" and {} more", lost.len() - 1)
    } else {
        String::new()
    };
    Some(HookOutput::new(
        Event::SessionStart,
        Some(format!(
            "ccmem: after compaction {} instruction file{} the session had {} gone: {first}{more} \
             · they return when the model reads a file in their folder · details: ccmem receipt --after-compact",
            lost.len(),
            if lost.len() == 1 { "" } else { "s" },
            if lost.len() == 1 { "is" } else { "are" },
        )),
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::automem::{Measure, Report};
    use crate::load::{Kind, Loaded, Size, Why};
    use crate::settings::Settings;

    fn session(index: IndexState, entries: usize) -> Session {
        let entry = |i: usize| Loaded {
            path: format!("/p/CLAUDE{i}.md"),
            kind: Kind::Project,
            content: "x".repeat(1000),
            why: Why::UserFile,
            unverified: false,
            size: Size::default(),
        };
        Session {
            disabled: None,
            entries: (0..entries).map(entry).collect(),
            skipped: vec![],
            lazy: vec![],
            automem: Report {
                index_path: Some("/m/MEMORY.md".into()),
                index,
                ..Report::default()
            },
            processed: Default::default(),
            settings: Settings::default(),
        }
    }

    fn cut(dark: Vec<(usize, &str)>) -> IndexState {
        IndexState::Loaded(Measure {
            lines: 199 + dark.len(),
            cut: Some(Cut {
                line_over: true,
                dark: dark
                    .into_iter()
                    .map(|(line, t)| DarkLine {
                        line,
                        text: t.into(),
                        partial: false,
                    })
                    .collect(),
                ..Cut::default()
            }),
            ..Measure::default()
        })
    }

    #[test]
    fn silent_when_all_is_well_unless_always() {
        let s = session(IndexState::Loaded(Measure::default()), 3);
        assert!(output(&s, Options::default()).is_empty());
        let out = output(
            &s,
            Options {
                always: true,
                recover: true,
            },
        );
        assert_eq!(out.message(), Some("ccmem: 3 memory files loaded (2.9 KB)"));
        assert!(out.context().is_none());
    }

    #[test]
    fn cut_names_count_first_entry_and_fix() {
        let s = session(
            cut(vec![
                (201, ""),
                (202, "- [Deploy](deploy.md) — how we ship"),
                (203, "- b"),
            ]),
            1,
        );
        let msg = output(&s, Options::default()).message().unwrap().to_owned();
        assert_eq!(
            msg,
            "ccmem: 1 memory file loaded (1000 B) · MEMORY.md cut (202 lines, over the 200-line limit): \
             3 lines dark (201–203), first: \"- [Deploy](deploy.md) — how we ship\" · fix: ccmem tier"
        );
    }

    #[test]
    fn recover_is_labelled_and_bounded() {
        let long = "y".repeat(500);
        let dark: Vec<(usize, &str)> = (0..40).map(|i| (201 + i, long.as_str())).collect();
        let s = session(cut(dark), 1);
        let out = output(
            &s,
            Options {
                always: false,
                recover: true,
            },
        );
        assert!(
            out.to_line()
                .unwrap()
                .contains("\"hookEventName\":\"SessionStart\"")
        );
        let text = out.context().unwrap().to_owned();
        assert!(text.starts_with("ccmem: the client cut the auto-memory index /m/MEMORY.md"));
        assert!(text.chars().count() <= RECOVER_MAX_CHARS + 100);
        assert!(text.contains("201: yyy"));
        assert!(text.contains("more entries not shown: read /m/MEMORY.md from line 216."));
    }

    #[test]
    fn too_large_index_is_reported() {
        let s = session(IndexState::TooLarge { bytes: 5 << 20 }, 0);
        let msg = output(&s, Options::default()).message().unwrap().to_owned();
        assert!(
            msg.contains("MEMORY.md (5.0 MB) is over the client's 4 MiB read limit"),
            "{msg}"
        );
    }
}
