//! Receipts for the session shapes: the agents of a directory, one subagent's memory, what
//! comes back after a compaction, and a live session's InstructionsLoaded log beside ccmem's
//! prediction. Human text here; the JSON views serialize the same values
//! (`docs/schemas/ccmem.receipt-*.1.schema.json`).

use std::fmt::Write;

use serde::Serialize;

use crate::constants::{
    Count, INDEX_MAX_LINES, INDEX_MAX_UTF16_WORDS, RESTORE_FILE_MAX_TOKENS, RESTORE_MAX_FILES,
    RESTORE_TOTAL_MAX_TOKENS,
};

use crate::hook::instructions_loaded::Entry;
use crate::load::Loaded;
use crate::load::agent::memory::State;
use crate::load::agent::{self, AgentMemory, Definition};
use crate::load::compact::{AfterCompact, Candidate, Dropped};
use crate::text::escape::Shown;

/// `ccmem receipt --agents`: one line per agent.
pub fn agents(defs: &[Definition]) -> String {
    let mut out = String::new();
    let width = defs.iter().map(|d| d.name.len()).max().unwrap_or(0);
    for d in defs {
        let memory = match (d.memory, &d.invalid_memory) {
            (Some(s), _) => format!("memory: {}", s.as_str()),
            (None, Some(bad)) => format!("memory: {bad:?} ignored (not user|project|local)"),
            (None, None) => "no memory".to_owned(),
        };
        let omit = if d.omit_claude_md {
            " · omitClaudeMd"
        } else {
            ""
        };
        let from = d.path.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "{:<width$}  {:<8}  {memory}{omit}  {}",
            Shown(&d.name).to_string(),
            d.origin.label(),
            Shown(from)
        );
    }
    out
}

/// `ccmem receipt --agent NAME`.
pub fn agent(def: &Definition, memory: Option<&AgentMemory>, inherited: usize) -> String {
    let mut out = format!("agent {} ({})\n", Shown(&def.name), def.origin.label());
    if let Some(p) = &def.path {
        let _ = writeln!(out, "  defined in {}", Shown(p));
    }
    match memory {
        None => {
            let why = match (&def.memory, &def.invalid_memory) {
                (_, Some(bad)) => format!("memory: {bad:?} is not user|project|local: ignored"),
                (Some(_), None) => "auto memory is off: no memory guide".to_owned(),
                (None, None) => "no memory: key".to_owned(),
            };
            let _ = writeln!(out, "  own memory: none ({why})");
        }
        Some(m) => {
            let _ = writeln!(
                out,
                "  own memory: {} ({} scope)",
                Shown(&m.folder),
                m.scope.as_str()
            );
            match &m.state {
                State::Refused { reason } => {
                    let _ = writeln!(
                        out,
                        "    MEMORY.md NOT READ: {}; the agent's memory guide is read-only",
                        Shown(&reason.to_string())
                    );
                }
                State::Empty => {
                    let create = if m.would_create {
                        " (the client creates the folder)"
                    } else {
                        ""
                    };
                    let _ = writeln!(out, "    MEMORY.md empty or missing{create}");
                }
                State::Loaded(measure) => {
                    let _ = writeln!(
                        out,
                        "    MEMORY.md {} lines, {} UTF-16 units (limits {INDEX_MAX_LINES} / {INDEX_MAX_UTF16_WORDS})",
                        Count(measure.lines),
                        Count(measure.utf16)
                    );
                    if let Some(cut) = &measure.cut {
                        let _ = writeln!(
                            out,
                            "    CUT: {} line(s) dark — the agent never sees them:",
                            cut.dark.len()
                        );
                        for d in cut.dark.iter().take(20) {
                            let _ = writeln!(out, "      line {}: {}", d.line, Shown(&d.text));
                        }
                        if cut.dark.len() > 20 {
                            let _ = writeln!(out, "      … and {} more", cut.dark.len() - 20);
                        }
                        let _ = writeln!(out, "    fix: ccmem tier {}", Shown(&m.folder));
                    }
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "  first message: {} ({inherited} entr{})",
        agent::inheritance(def),
        if inherited == 1 { "y" } else { "ies" }
    );
    out
}

/// `ccmem receipt --after-compact`: what comes back, and what does not.
pub fn after_compact(after: &AfterCompact) -> String {
    let mut out = format!(
        "after {} compaction: the startup block is re-read from disk ({} entries)\n",
        if after.auto { "an auto" } else { "a manual" },
        after.startup.len()
    );
    let restored: Vec<_> = after.restored().collect();
    let _ = writeln!(
        out,
        "restored as Read results ({} of at most 5):",
        restored.len()
    );
    for c in &restored {
        let _ = writeln!(out, "  {} ({})", Shown(&c.path), c.how);
    }
    let lost: Vec<_> = after.lost().collect();
    if lost.is_empty() {
        let _ = writeln!(out, "no instruction file the session had is lost");
    } else {
        let _ = writeln!(
            out,
            "NOT coming back ({}): instructions the session had before the compaction",
            lost.len()
        );
        for c in lost {
            gone(&mut out, "", c);
        }
        let _ = writeln!(
            out,
            "  they return when the model reads a file in their folder again (or Reads them)"
        );
    }
    let other = after
        .candidates
        .iter()
        .filter(|c| c.is_gone() && !c.is_instruction());
    for c in other {
        gone(&mut out, "not restored: ", c);
    }
    out
}

/// A line for a file the compaction does not bring back: its path, how it loaded, and why.
fn gone(out: &mut String, label: &str, c: &Candidate) {
    let why = dropped(c.dropped.as_ref());
    let _ = writeln!(out, "  {label}{} ({}): {why}", Shown(&c.path), c.how);
}

fn dropped(d: Option<&Dropped>) -> String {
    match d {
        None => "restored".into(),
        Some(Dropped::InStartupBlock) => "in the startup block".into(),
        Some(Dropped::OutsideWindow) => {
            format!("not among the {RESTORE_MAX_FILES} most recently modified files")
        }
        Some(Dropped::Gone) => "deleted or unreadable".into(),
        Some(Dropped::TooLarge { tokens }) => format!(
            "about {tokens} tokens, over {RESTORE_FILE_MAX_TOKENS}: only a note naming it comes back"
        ),
        Some(Dropped::OverTotal) => {
            format!("would pass the {RESTORE_TOTAL_MAX_TOKENS}-token total")
        }
    }
}

/// `ccmem receipt --session ID`: the client's reports beside ccmem's predictions, and the
/// predicted startup files the client did not report.
pub fn session(entries: &[Entry], unreported: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "InstructionsLoaded reports ({}):", entries.len());
    for e in entries {
        let mark = if e.predicted { "ok" } else { "UNPREDICTED" };
        let _ = writeln!(
            out,
            "  {mark:<11} {} ({}, {})",
            Shown(&e.reported.file_path),
            Shown(&e.reported.memory_type),
            Shown(&e.reported.load_reason)
        );
    }
    if !unreported.is_empty() {
        let _ = writeln!(
            out,
            "predicted at start but not reported ({}):",
            unreported.len()
        );
        for p in unreported {
            let _ = writeln!(out, "  {}", Shown(p));
        }
    }
    let _ = writeln!(
        out,
        "(the client never reports MEMORY.md, AGENTS.md or agent memory)"
    );
    out
}

// ---- JSON ---------------------------------------------------------------------------------

#[derive(Serialize)]
struct AgentsView<'a> {
    agents: &'a [Definition],
}

/// `receipt --agents` as JSON (`ccmem.receipt-agents/1`).
pub fn agents_json(defs: &[Definition]) -> String {
    super::json::document("ccmem.receipt-agents/1", &AgentsView { agents: defs })
}

#[derive(Serialize)]
struct AgentView<'a> {
    agent: &'a Definition,
    memory: Option<&'a AgentMemory>,
    inherits: &'static str,
    inherited: Vec<&'a str>,
}

/// `receipt --agent NAME` as JSON (`ccmem.receipt-agent/1`): the definition, its memory, what
/// it inherits and the files of the main session's block it gets.
pub fn agent_json(def: &Definition, memory: Option<&AgentMemory>, inherited: &[Loaded]) -> String {
    let view = AgentView {
        agent: def,
        memory,
        inherits: agent::inheritance(def),
        inherited: inherited.iter().map(|e| e.path.as_str()).collect(),
    };
    super::json::document("ccmem.receipt-agent/1", &view)
}

#[derive(Serialize)]
struct AfterCompactView<'a> {
    auto: bool,
    startup: Vec<&'a str>,
    files: &'a [Candidate],
}

/// `receipt --after-compact` as JSON (`ccmem.receipt-after-compact/1`).
pub fn after_compact_json(after: &AfterCompact) -> String {
    let view = AfterCompactView {
        auto: after.auto,
        startup: after.startup.iter().map(|e| e.path.as_str()).collect(),
        files: &after.candidates,
    };
    super::json::document("ccmem.receipt-after-compact/1", &view)
}

#[derive(Serialize)]
struct SessionView<'a> {
    session_id: &'a str,
    reports: &'a [Entry],
    unreported: &'a [String],
}

/// `receipt --session ID` as JSON (`ccmem.receipt-session/1`).
pub fn session_json(id: &str, entries: &[Entry], unreported: &[String]) -> String {
    let view = SessionView {
        session_id: id,
        reports: entries,
        unreported,
    };
    super::json::document("ccmem.receipt-session/1", &view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::compact::Candidate;

    #[test]
    fn a_gone_file_has_the_smallest_mtime_in_the_json() {
        // serde_json's `Value` cannot hold an i128 this small: the document is written
        // straight from the view (building a `Value` first made the command panic).
        let after = AfterCompact {
            startup: Vec::new(),
            candidates: vec![Candidate {
                path: "/p/gone.rs".to_owned(),
                how: "read",
                mtime_ms: i128::MIN,
                dropped: Some(Dropped::Gone),
                text: None,
            }],
            auto: false,
        };
        let doc = after_compact_json(&after);
        assert!(
            doc.contains(&format!("\"mtime_ms\": {},", i128::MIN)),
            "{doc}"
        );
    }
}
