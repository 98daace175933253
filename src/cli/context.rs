//! `ccmem context`: print exactly the memory reminder the client would send.

use std::io::Write;

use super::ClientArgs;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::load;
use crate::load::reminder;

/// Print exactly the memory reminder block(s) the client would send.
#[derive(Debug, Default, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    client: ClientArgs,
    /// Also print what the client attaches when it reads PATH during the session (repeatable,
    /// in order with --bash).
    #[arg(long, value_name = "PATH")]
    reading: Vec<String>,
    /// Also print what the client attaches after the Bash tool runs COMMAND (repeatable, in
    /// order with --reading).
    #[arg(long, value_name = "COMMAND")]
    bash: Vec<String>,
    /// Print the reminder of the first user message of subagent NAME (its `subagent_type`).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["reading", "bash"])]
    agent: Option<String>,
    /// With --agent: print the `## MEMORY.md` section of the subagent's system prompt instead.
    #[arg(long, requires = "agent")]
    agent_memory: bool,
    /// Print what the first request after a compaction carries from memory: the restored
    /// files and the startup block re-read from disk.
    #[arg(long, requires = "history", conflicts_with_all = ["agent", "reading", "bash"])]
    after_compact: bool,
    /// With --after-compact: an auto-compaction (the startup block comes first).
    #[arg(long, requires = "after_compact")]
    auto: bool,
    /// With --after-compact: the tool calls of the turns before it, as JSON
    /// (`[{"read": PATH}, {"bash": COMMAND}, {"write": PATH}, ...]`).
    #[arg(long, value_name = "FILE")]
    history: Option<std::path::PathBuf>,
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let env = args.client.client_env(process)?;
    let session = load::load_session_with(&env, load::Detail::Reminder);
    if let Some(p) = session.settings.stops_client() {
        // The client exits at start with its own message (`y2o`): there is no reminder.
        anyhow::bail!(
            "the client would not start, so it sends no reminder: {}: {}",
            p.origin,
            p.message
        );
    }
    let text = if args.after_compact {
        let calls = read_history(args.history.as_deref())?;
        let after = load::compact::load(&env, &session, &calls, args.auto);
        reminder::after_compact(&after)
    } else if let Some(name) = &args.agent {
        let Some(def) = load::agent::defs::find(&env, &session.settings, name) else {
            anyhow::bail!("{}", unknown_agent(&env, &session.settings, name));
        };
        if args.agent_memory {
            load::agent::system_memory(&env, &session.settings, &def)
                .map(|m| m.section)
                .unwrap_or_default()
        } else {
            reminder::startup(&load::agent::reminder_entries(&def, &session.entries))
                .unwrap_or_default()
        }
    } else if args.reading.is_empty() && args.bash.is_empty() {
        reminder::startup(&session.entries).unwrap_or_default()
    } else {
        let steps = interleave(&args.reading, &args.bash);
        let blocks: Vec<String> = load::steps::load(&env, &session, &steps)
            .iter()
            .flat_map(|s| &s.attached)
            .map(|e| reminder::nested(e).trim_end_matches('\n').to_owned())
            .collect();
        blocks.join("\n\n")
    };
    let mut out = super::output::stdout_exact();
    if super::output::json() {
        out.write_all(crate::render::context::json(&text).as_bytes())?;
    } else {
        // The client's own text, as it sends it: nothing of ccmem's around it.
        out.write_all(text.as_bytes())?;
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}

/// The error for an agent name the session does not define, with the names it does.
pub(super) fn unknown_agent(
    env: &crate::env::ClientEnv,
    settings: &crate::settings::Settings,
    name: &str,
) -> String {
    let names: Vec<String> = load::agent::defs::all(env, settings)
        .into_iter()
        .map(|d| d.name)
        .collect();
    format!(
        "no agent named {name:?} is defined here (defined: {}); `ccmem receipt --agents` lists them with their files",
        names.join(", ")
    )
}

/// `--reading` and `--bash` steps in the order they were given (clap keeps each list apart;
/// their argument indices restore the order).
fn interleave(reading: &[String], bash: &[String]) -> Vec<load::steps::Step> {
    use clap::CommandFactory;
    let matches = super::Cli::command()
        .try_get_matches_from(std::env::args_os())
        .ok();
    let sub = matches
        .as_ref()
        .and_then(|m| m.subcommand_matches("context"));
    let indices = |id: &str| -> Vec<usize> {
        sub.and_then(|m| m.indices_of(id))
            .map(Iterator::collect)
            .unwrap_or_default()
    };
    let mut steps: Vec<(usize, load::steps::Step)> = Vec::new();
    let (ri, bi) = (indices("reading"), indices("bash"));
    for (k, path) in reading.iter().enumerate() {
        let at = ri.get(k).copied().unwrap_or(k);
        steps.push((at, load::steps::Step::Read(path.clone())));
    }
    for (k, command) in bash.iter().enumerate() {
        let at = bi.get(k).copied().unwrap_or(usize::MAX / 2 + k);
        steps.push((at, load::steps::Step::Bash(command.clone())));
    }
    steps.sort_by_key(|(at, _)| *at);
    steps.into_iter().map(|(_, s)| s).collect()
}

/// Largest `--history` file read: a list of tool calls (a session's are a few hundred KB).
const HISTORY_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The `--history` file: a JSON list of tool calls (a regular file of at most
/// [`HISTORY_MAX_BYTES`]: `/dev/zero` or a FIFO is refused before a byte is read).
pub(super) fn read_history(
    path: Option<&std::path::Path>,
) -> anyhow::Result<Vec<load::compact::Call>> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = crate::fsread::read_named(path, HISTORY_MAX_BYTES, "history file")?;
    serde_json::from_slice(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a list of tool calls ({e}); expected [{{\"read\": PATH}}, {{\"bash\": COMMAND}}, {{\"write\": PATH}}, ...]",
            path.display()
        )
    })
}
