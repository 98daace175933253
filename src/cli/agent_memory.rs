//! `--agent NAME` for the commands that take a memory folder (`budget`, `audit`, `tier`): the
//! folder the client gives subagent NAME (`load::agent::memory::folder`, any scope), so that
//! nobody has to spell `.claude/agent-memory/NAME/` or `<config>/agent-memory/NAME/` out.

use std::path::{Path, PathBuf};

use super::ClientArgs;
use crate::env::ProcessEnv;
use crate::load::agent;
use crate::load::agent::defs::Scope;
use crate::load::agent::memory::{Entrypoint, State};
use crate::settings::Settings;
use crate::tier::ClientLinks;

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

/// How the client reads the memory folder `dir` through links, as the loader decides it
/// (`load::agent::memory::load`, the client's `sm`/`Oa`): for a subagent's folder of a working
/// copy, MEMORY.md must be a regular file; a folder the client does not read at all (it leads
/// out of the working copy) is refused here, since ccmem writes only where the client reads.
/// A folder shaped like a subagent's that is not one of this directory's agents is held to the
/// stricter rule.
pub(super) fn client_links(
    dir: &Path,
    client: &ClientArgs,
    process: &ProcessEnv,
) -> anyhow::Result<ClientLinks> {
    if !agent::memory::is_folder(dir) {
        return Ok(ClientLinks::default());
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let env = client.client_env(process)?;
    let want = crate::load::git::normalize(&std::path::absolute(dir)?);
    for scope in [Scope::Project, Scope::Local, Scope::User] {
        let folder = agent::memory::folder(&env, &name, scope);
        if crate::load::git::normalize(Path::new(folder.trim_end_matches('/'))) != want {
            continue;
        }
        let memory = agent::memory::load(&env, &name, scope);
        return match (memory.entrypoint, memory.state) {
            (Entrypoint::Refused, State::Refused { reason }) => anyhow::bail!(
                "{}: the client does not read this agent memory ({reason}), and treats it as \
                 read-only; ccmem writes only where the client reads, so nothing was written",
                dir.display()
            ),
            (Entrypoint::RegularFile, _) => Ok(ClientLinks {
                index_must_be_file: Some(format!(
                    "the {} memory of agent {name:?}: the client reads its MEMORY.md only as a \
                     regular file",
                    format!("{scope:?}").to_lowercase()
                )),
            }),
            _ => Ok(ClientLinks::default()),
        };
    }
    Ok(ClientLinks {
        index_must_be_file: Some(
            "a subagent's memory folder: the client reads MEMORY.md there only as a regular \
             file, unless it is a user-scope folder"
                .to_owned(),
        ),
    })
}
