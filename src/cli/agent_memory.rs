//! `--agent NAME` for the commands that take a memory folder (`budget`, `audit`, `tier`): the
//! folder the client gives subagent NAME (`load::agent::memory::folder`, any scope), so that
//! nobody has to spell `.claude/agent-memory/NAME/` or `<config>/agent-memory/NAME/` out.

use std::path::PathBuf;

use super::ClientArgs;
use crate::env::ProcessEnv;
use crate::load::agent;
use crate::settings::Settings;

/// The memory folder of agent `name` as defined for this directory (with these client flags).
pub(super) fn folder(
    name: &str,
    client: &ClientArgs,
    process: &ProcessEnv,
) -> anyhow::Result<PathBuf> {
    let env = client.client_env(process)?;
    let settings = Settings::load(&env);
    let Some(def) = agent::defs::find(&env, &settings, name) else {
        anyhow::bail!("{}", super::context::unknown_agent(&env, &settings, name));
    };
    let Some(scope) = def.memory else {
        let why = match &def.invalid_memory {
            Some(bad) => format!("its memory: {bad:?} is not user, project or local"),
            None => "it has no memory: key".to_owned(),
        };
        anyhow::bail!(
            "agent {name:?} has no memory folder: {why}{}",
            def.path
                .as_deref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default()
        );
    };
    let dir = agent::memory::folder(&env, name, scope);
    Ok(PathBuf::from(dir.trim_end_matches('/')))
}
