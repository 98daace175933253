//! `ccmem receipt --agents`, `--agent NAME`, `--after-compact --history FILE` and `--session ID`:
//! the receipts of the session shapes (rendered by `render::session`).

use std::io::Write;

use crate::env::{ClientEnv, ProcessEnv};
use crate::exit::ExitStatus;
use crate::hook::instructions_loaded;
use crate::load;
use crate::render;

/// Which shape view was asked for.
pub(super) enum View<'a> {
    /// Every agent defined here.
    Agents,
    /// One agent.
    Agent(&'a str),
    /// After a compaction.
    AfterCompact {
        /// The turn's tool calls.
        history: Option<&'a std::path::Path>,
        /// Auto-compaction.
        auto: bool,
    },
    /// A live session's InstructionsLoaded log.
    Session(&'a str),
}

/// Prints one view; exit 1 when it shows something lost (a cut agent index, instructions that
/// do not come back, a load ccmem did not predict).
pub(super) fn run(
    view: View<'_>,
    env: &ClientEnv,
    process: &ProcessEnv,
    json: bool,
) -> anyhow::Result<ExitStatus> {
    use render::session as show;
    let session = load::load_session_with(env, load::Detail::Reminder);
    let (text, finding) = match view {
        View::Agents => {
            let defs = load::agent::defs::all(env, &session.settings);
            let text = if json {
                show::agents_json(&defs)
            } else {
                show::agents(&defs)
            };
            (text, false)
        }
        View::Agent(name) => {
            let Some(def) = load::agent::defs::find(env, &session.settings, name) else {
                anyhow::bail!(
                    "{}",
                    super::context::unknown_agent(env, &session.settings, name)
                );
            };
            let memory = load::agent::system_memory(env, &session.settings, &def);
            let inherited = load::agent::reminder_entries(&def, &session.entries);
            let cut = memory.as_ref().is_some_and(
                |m| matches!(&m.state, load::agent::memory::State::Loaded(x) if x.cut.is_some()),
            );
            let text = if json {
                show::agent_json(&def, memory.as_ref(), &inherited)
            } else {
                show::agent(&def, memory.as_ref(), inherited.len())
            };
            (text, cut)
        }
        View::AfterCompact { history, auto } => {
            let calls = super::context::read_history(history)?;
            let after = load::compact::load(env, &session, &calls, auto);
            let text = if json {
                show::after_compact_json(&after)
            } else {
                show::after_compact(&after)
            };
            (text, after.lost().next().is_some())
        }
        View::Session(id) => {
            let Some(path) = instructions_loaded::log_path(process, id) else {
                anyhow::bail!("{id:?} is not a session id");
            };
            let entries = instructions_loaded::read_log(&path)?;
            let unreported = instructions_loaded::unreported(&session, &entries);
            let bad = entries.iter().any(|e| !e.predicted) || !unreported.is_empty();
            let text = if json {
                show::session_json(id, &entries, &unreported)
            } else {
                show::session(&entries, &unreported)
            };
            (text, bad)
        }
    };
    let mut out = super::output::stdout();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitStatus::findings_if(finding))
}
