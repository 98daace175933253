//! `ccmem receipt --agents`, `--agent NAME`, `--after-compact --history FILE` and `--session ID`:
//! the receipts of the session shapes (rendered by `render::session`).

use std::io::Write;

use serde_json::json;

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
    as_json: bool,
) -> anyhow::Result<ExitStatus> {
    let session = load::load_session_with(env, load::Detail::Reminder);
    let (text, value, finding) = match view {
        View::Agents => {
            let defs = load::agent::defs::all(env, &session.settings);
            let v = json!({"schema": "ccmem.receipt-agents/1", "agents": defs});
            (render::session::agents(&defs), v, false)
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
            let v = json!({
                "schema": "ccmem.receipt-agent/1", "agent": def, "memory": memory,
                "inherits": load::agent::inheritance(&def),
                "inherited": inherited.iter().map(|e| &e.path).collect::<Vec<_>>(),
            });
            (
                render::session::agent(&def, memory.as_ref(), inherited.len()),
                v,
                cut,
            )
        }
        View::AfterCompact { history, auto } => {
            let calls = super::context::read_history(history)?;
            let after = load::compact::load(env, &session, &calls, auto);
            let lost = after.lost().next().is_some();
            let v = json!({
                "schema": "ccmem.receipt-after-compact/1", "auto": auto,
                "startup": after.startup.iter().map(|e| &e.path).collect::<Vec<_>>(),
                "files": after.candidates,
            });
            (render::session::after_compact(&after), v, lost)
        }
        View::Session(id) => {
            let Some(path) = instructions_loaded::log_path(process, id) else {
                anyhow::bail!("{id:?} is not a session id");
            };
            let entries = instructions_loaded::read_log(&path)?;
            let reported: Vec<&str> = entries
                .iter()
                .map(|e| e.reported.file_path.as_str())
                .collect();
            let unreported: Vec<String> = session
                .entries
                .iter()
                .filter(|e| e.kind != load::Kind::AutoMem && !e.path.ends_with("/AGENTS.md"))
                .filter(|e| !reported.contains(&e.path.as_str()))
                .map(|e| e.path.clone())
                .collect();
            let bad = entries.iter().any(|e| !e.predicted) || !unreported.is_empty();
            let v = json!({
                "schema": "ccmem.receipt-session/1", "session_id": id,
                "reports": entries, "unreported": unreported,
            });
            (render::session::session(&entries, &unreported), v, bad)
        }
    };
    let mut out = super::output::stdout();
    if as_json {
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    Ok(ExitStatus::findings_if(finding))
}
