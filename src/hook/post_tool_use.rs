//! `ccmem hook post-tool-use`: a guard after every memory write. The client's own write check
//! speaks only to the model, and only at 80 % of a limit; this one tells the operator too, names
//! the entries that will go dark next session, and says how to fix it. It never blocks the
//! write, and a write to any other file costs one path test (nothing is read).

use std::path::Path;

use crate::constants::{
    INDEX_MAX_LINES, INDEX_MAX_UTF16, INDEX_MAX_UTF16_WORDS, INSTRUCTION_WARN_UTF16, MAX_FILE_SIZE,
    SAFETY_LINES, SAFETY_UTF16,
};
use crate::load::automem::{self, IndexState, Measure};
use crate::load::{self, Session};
use crate::memory;
use crate::memory::library::{Library, Reach, Target as LinkTarget};
use crate::settings::Settings;

use super::input::PostToolUse;
use super::output::{Event, HookOutput, clip};
use super::paths::{self, Target};
use super::{human_bytes, line_range};
use crate::env::ProcessEnv;

/// The file tools whose writes are checked.
pub(crate) const TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];

/// Largest list of dark entries given to the model, in characters.
pub(crate) const CONTEXT_MAX_CHARS: usize = 4_000;

/// Runs the guard for one hook input. `Ok(None)` means "say nothing" (the common case).
pub(crate) fn run(input: &PostToolUse, env: &ProcessEnv) -> anyhow::Result<Option<HookOutput>> {
    if input.tool_name == "Bash" {
        return super::bash_read::run(input, env);
    }
    if !TOOLS.contains(&input.tool_name.as_str()) {
        return Ok(None);
    }
    let Some(file_path) = input.tool_input.file_path.as_deref() else {
        return Ok(None);
    };
    let path = paths::absolute(file_path, &input.common.cwd);
    match paths::classify(&path) {
        Target::Other if !under_memory_override(&path, env) => Ok(None),
        Target::MemoryIndex => {
            if in_agent_memory_folder(&path) {
                return Ok(index_verdict(
                    file_path,
                    &load::agent::memory::measure_index(&path),
                ));
            }
            if !in_memory_folder(&path, &input.common.cwd, env) {
                return Ok(None);
            }
            Ok(index_verdict(file_path, &automem::measure_index(&path)))
        }
        Target::MemoryCandidate | Target::Other => {
            let env = env.client_env_in(&input.common.cwd)?;
            let session = load::load_session_with(&env, load::Detail::Reminder);
            Ok(memory::session::library(&env, &session.automem)
                .and_then(|lib| topic_verdict(&path, &lib)))
        }
        Target::Instruction => {
            let env = env.client_env_in(&input.common.cwd)?;
            let session = load::load_session_with(&env, load::Detail::Reminder);
            Ok(instruction_verdict(&path, &session))
        }
    }
}

/// A `.md` file under the folder named by `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` (an environment
/// test only: no file is read).
fn under_memory_override(path: &Path, env: &ProcessEnv) -> bool {
    path.extension().is_some_and(|e| e == "md")
        && env
            .var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
            .is_some_and(|dir| !dir.is_empty() && path.starts_with(dir))
}

/// Whether a written `MEMORY.md` is an auto-memory index, as the client's own write check
/// decides: its folder is named `memory` (the client's folder name), or it is the folder the
/// client resolves for this session (an `autoMemoryDirectory` setting, an env override). Any other
/// MEMORY.md (say, a project's docs) is left alone.
fn in_memory_folder(path: &Path, cwd: &str, process: &ProcessEnv) -> bool {
    let Some(parent) = path.parent() else {
        return false;
    };
    if parent
        .file_name()
        .is_some_and(|n| n == crate::constants::MEMORY_DIR)
    {
        return true;
    }
    let Ok(env) = process.client_env_in(cwd) else {
        return false;
    };
    let settings = Settings::load(&env);
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    automem::resolve_folder(&env, &settings).is_some_and(|folder| real(&folder) == real(parent))
}

/// A subagent's index: `…/agent-memory/<name>/MEMORY.md` or `…/agent-memory-local/<name>/MEMORY.md`
/// (the client's own write check fires for these too; SPEC-agents, issue 11). From the path
/// alone.
fn in_agent_memory_folder(path: &Path) -> bool {
    path.parent().is_some_and(load::agent::memory::is_folder)
}

/// What to say after a write to MEMORY.md measured as `state`.
pub(crate) fn index_verdict(shown_path: &str, state: &IndexState) -> Option<HookOutput> {
    let m = match state {
        IndexState::Loaded(m) => m,
        IndexState::TooLarge { bytes } => {
            return Some(HookOutput::new(
                Event::PostToolUse,
                Some(format!(
                    "ccmem: MEMORY.md is now {}, over the client's {MAX_FILE_SIZE} read limit: the next \
                     session loads none of it · fix: ccmem tier",
                    human_bytes(*bytes)
                )),
                Some(format!(
                    "ccmem: this write left {shown_path} over {MAX_FILE_SIZE}; the client will skip the whole \
                     index at the next session start. Shrink it now: keep one line per entry and \
                     move detail into topic files, or ask the user to run `ccmem tier`."
                )),
            ));
        }
        _ => return None,
    };
    if m.cut.is_some() {
        Some(over(shown_path, m))
    } else if m.lines > SAFETY_LINES || m.utf16 > SAFETY_UTF16 {
        Some(near(shown_path, m))
    } else {
        None
    }
}

/// `N lines / U units` of a measured index.
fn size(m: &Measure) -> String {
    format!("{} lines / {} UTF-16 units", m.lines, m.utf16)
}

/// The index is over a limit: entries will go dark.
fn over(shown_path: &str, m: &Measure) -> HookOutput {
    let Some(cut) = m.cut.as_ref() else {
        return near(shown_path, m);
    };
    let entries: Vec<_> = cut
        .dark
        .iter()
        .filter(|d| !d.text.trim().is_empty())
        .collect();
    let limit = match (cut.line_over, cut.size_over) {
        (true, true) => format!("{INDEX_MAX_LINES}-line and {INDEX_MAX_UTF16_WORDS}-unit limits"),
        (true, false) => format!("{INDEX_MAX_LINES}-line limit"),
        _ => format!("{INDEX_MAX_UTF16_WORDS}-unit limit"),
    };
    let mut message = format!(
        "ccmem: MEMORY.md is now {}, over the client's {limit}: {} line{} ({}) will be dark next session",
        size(m),
        cut.dark.len(),
        if cut.dark.len() == 1 { "" } else { "s" },
        line_range(&cut.dark)
    );
    if let Some(first) = entries.first() {
        let (t, short) = clip(first.text.trim(), 80);
        message.push_str(&format!(", first: \"{t}{}\"", if short { "…" } else { "" }));
    }
    message.push_str(" · fix: ccmem tier");

    let mut context = format!(
        "ccmem: this write left {shown_path} at {}. The client loads only the first {INDEX_MAX_LINES} \
         lines and {INDEX_MAX_UTF16} UTF-16 units at session start, so these entries will NOT be loaded \
         next session:\n",
        size(m)
    );
    let mut chars = context.chars().count();
    for (i, d) in entries.iter().enumerate() {
        let line = format!("line {}: {}\n", d.line, d.text);
        if chars + line.chars().count() > CONTEXT_MAX_CHARS {
            context.push_str(&format!("… and {} more.\n", entries.len() - i));
            break;
        }
        chars += line.chars().count();
        context.push_str(&line);
    }
    context.push_str(&fix_advice());
    HookOutput::new(Event::PostToolUse, Some(message), Some(context))
}

/// The index is past the safety line but still loads whole.
fn near(shown_path: &str, m: &Measure) -> HookOutput {
    let lines_left = INDEX_MAX_LINES.saturating_sub(m.lines);
    let units_left = INDEX_MAX_UTF16.saturating_sub(m.utf16);
    let message = format!(
        "ccmem: MEMORY.md is at {}/{INDEX_MAX_LINES} lines, {}/{INDEX_MAX_UTF16} units, past the safety line \
         ({SAFETY_LINES} lines / {SAFETY_UTF16} units): {lines_left} more lines or {units_left} \
         units and entries go dark · fix: ccmem tier",
        m.lines, m.utf16
    );
    let context = format!(
        "ccmem: this write left {shown_path} at {}. Nothing is cut yet, but the client loads only \
         the first {INDEX_MAX_LINES} lines and {INDEX_MAX_UTF16} UTF-16 units at session start and silently \
         drops the rest, so the next entries added will not be loaded. {}",
        size(m),
        fix_advice()
    );
    HookOutput::new(Event::PostToolUse, Some(message), Some(context))
}

fn fix_advice() -> String {
    format!(
        "Fix it now: bring MEMORY.md under {SAFETY_LINES} lines and {SAFETY_UTF16} units by keeping \
         one line per entry, moving detail into topic files and merging or dropping stale entries \
         (nothing may be lost), or ask the user to run `ccmem tier`, which does this safely."
    )
}

/// After a write to a `.md` file under a `memory` folder: if it is a topic file of this
/// session's auto memory (`lib`, [`memory::session::library`]) that MEMORY.md does not reach
/// (the library's one reachability, as `audit` and `tier` count it: a link in the loaded part
/// of MEMORY.md, or in a hub that part links), say so. A file linked only from past the cut is
/// not reached.
pub(crate) fn topic_verdict(path: &Path, lib: &Library) -> Option<HookOutput> {
    let i = memory::session::file_at(lib, path)?;
    let reach = lib.reach()[i];
    if memory::session::reached(reach) {
        return None;
    }
    let target = path.to_string_lossy();
    let index = lib.root.join(crate::constants::INDEX_FILE);
    let index = index.to_string_lossy();
    let name = path.file_name()?.to_string_lossy();
    if reach == Reach::PastCut {
        let line = dark_pointer(lib, i).map_or(String::new(), |n| format!(" (line {n})"));
        return Some(HookOutput::new(
            Event::PostToolUse,
            Some(format!(
                "ccmem: memory topic {name} is linked only from MEMORY.md past the client's cut{line}: \
                 the next session will not know it exists · fix: ccmem tier"
            )),
            Some(format!(
                "ccmem: {target} is linked only from the part of {index} past the client's cut{line} \
                 ({INDEX_MAX_LINES} lines / {INDEX_MAX_UTF16} UTF-16 units load at session start), so \
                 future sessions will not find it. {}",
                fix_advice()
            )),
        ));
    }
    Some(HookOutput::new(
        Event::PostToolUse,
        Some(format!(
            "ccmem: memory topic {name} is not linked from the loaded part of MEMORY.md or a hub it \
             links: the next session will not know it exists"
        )),
        Some(format!(
            "ccmem: {target} is not linked from the part of {index} that loads at session start, nor \
             from a hub that part links, so future sessions will not find it. Add a one-line pointer \
             to it in MEMORY.md (`- [Title]({name}) — one-line hook`) or in the hub of its group; if \
             MEMORY.md is near its limit, ask the user to run `ccmem tier`."
        )),
    ))
}

/// The line of MEMORY.md past the cut that links file `i`, or the hub that links it.
fn dark_pointer(lib: &Library, i: usize) -> Option<usize> {
    let index = lib.index()?;
    let leads_to = |from: usize, to: usize| {
        lib.links(from)
            .iter()
            .any(|l| l.target == LinkTarget::File(to))
    };
    lib.links(index)
        .iter()
        .filter(|l| !l.loaded)
        .find(|l| match l.target {
            LinkTarget::File(t) => t == i || leads_to(t, i),
            _ => false,
        })
        .map(|l| l.line)
}

/// After a write to an instruction file that loads at startup: warn when it passes the client's
/// own 40,000-character size warning.
pub(crate) fn instruction_verdict(path: &Path, session: &Session) -> Option<HookOutput> {
    let target = path.to_string_lossy();
    let entry = session.entries.iter().find(|e| e.path == target)?;
    let chars = crate::text::js::utf16_len(&entry.content);
    if chars <= INSTRUCTION_WARN_UTF16 {
        return None;
    }
    let name = path.file_name()?.to_string_lossy();
    Some(HookOutput::new(
        Event::PostToolUse,
        Some(format!(
            "ccmem: {name} is now {chars} characters, over the client's {INSTRUCTION_WARN_UTF16}-character \
             warning: it loads whole into every session"
        )),
        Some(format!(
            "ccmem: {target} is now {chars} characters and is loaded into every session. Keep it \
             under {INSTRUCTION_WARN_UTF16}: move detail into files it links to (read on demand) or \
             into rules with `paths:` frontmatter."
        )),
    ))
}

#[cfg(test)]
mod tests;
