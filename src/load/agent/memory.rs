//! A subagent's own memory (`NMo` → `VLs`, `sm`/`lm`, `Oa`; chunk-757mw3zq): its folder, whether
//! its MEMORY.md may be read, and the `## MEMORY.md` section of its system prompt.
//!
//! Folder (`VLs`, SPEC-agents 3.1), every form ending in `/`, `T` = the name with every UTF-16
//! unit outside `[a-zA-Z0-9_-]` replaced by `-` (`Da`):
//! - project: `<cwd>/.claude/agent-memory/T/`;
//! - local: `<cwd>/.claude/agent-memory-local/T/`, or with `CLAUDE_CODE_REMOTE_MEMORY_DIR=R`
//!   `R/projects/<slug of the canonical git root, else the start directory>/agent-memory-local/T/`;
//! - user: `U/agent-memory/T/`, `U` = `CLAUDE_CODE_REMOTE_MEMORY_DIR`, else the config dir.
//!
//! Reading (`sm`, `Oa`, SPEC-agents 3.2–3.3): user scope follows any link; project and local
//! folders under the start directory must resolve inside it, and then MEMORY.md itself must be a
//! regular file (`lstat`: a link leaf is refused). A refusal makes the guide read-only. Any read
//! error (missing file, the folder is a file) is an empty index, not a refusal.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::defs::Scope;
use crate::constants::{
    AGENT_MEMORY_DIR, AGENT_MEMORY_LOCAL_DIR, CLAUDE_DIR, INDEX_FILE as INDEX, PROJECTS_DIR,
    REMOTE_MEMORY_DIR_ENV,
};
use crate::env::ClientEnv;
use crate::fsread::Unread;
use crate::load::automem::{IndexState, Measure, folder, index, slug};
use crate::text::js;

/// Text of the section when MEMORY.md is empty or unreadable.
pub const EMPTY: &str =
    "Your MEMORY.md is currently empty. When you save new memories, they will appear here.";

/// Text of the section when the read was refused.
pub const REFUSED: &str = "Your MEMORY.md was not loaded: it or its folder is a link or a special file, or could not be verified to be inside this working copy. Treat this agent memory as read-only in this session: do not create or write MEMORY.md or other files in its folder.";

/// How the client may read the folder's MEMORY.md (`sm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Entrypoint {
    /// User scope: any link followed.
    Follow,
    /// MEMORY.md must be a regular file (`lstat`).
    RegularFile,
    /// The folder leads out of the working copy or cannot be resolved: never read.
    Refused,
}

/// What became of the index.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum State {
    /// Read and measured (cut when over a limit).
    Loaded(Measure),
    /// Missing, unreadable, or blank: the "currently empty" text.
    Empty,
    /// Not read (link, special file, or outside the working copy): the read-only text.
    Refused {
        /// Why, in words.
        reason: String,
    },
}

/// A subagent's memory as its first request carries it.
#[derive(Debug, Clone, Serialize)]
pub struct AgentMemory {
    /// The folder with its trailing `/`, exactly as the client prints it.
    pub folder: String,
    /// The scope it came from.
    pub scope: Scope,
    /// How MEMORY.md may be read.
    pub entrypoint: Entrypoint,
    /// Whether the client would create the folder now (it does unless refused).
    pub would_create: bool,
    /// The index state.
    pub state: State,
    /// The `## MEMORY.md` section of the system prompt (heading included).
    #[serde(skip)]
    pub section: String,
}

impl AgentMemory {
    /// The guide is read-only for the session (the read was refused).
    pub fn read_only(&self) -> bool {
        matches!(self.state, State::Refused { .. })
    }
}

/// `Da`: the folder name of an agent.
pub fn folder_name(agent: &str) -> String {
    let out: String = agent
        .encode_utf16()
        .map(|u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' => char::from(b),
            _ => '-',
        })
        .collect();
    if out.is_empty() {
        "unknown".to_owned()
    } else {
        out
    }
}

/// `VLs`: the memory folder of `agent` in `scope`, with its trailing `/`.
pub fn folder(env: &ClientEnv, agent: &str, scope: Scope) -> String {
    let name = folder_name(agent);
    let cwd = env.cwd.to_string_lossy();
    let remote = env.var(REMOTE_MEMORY_DIR_ENV).filter(|v| !v.is_empty());
    let path = match (scope, remote) {
        (Scope::Project, _) => folder::join(&[&cwd, CLAUDE_DIR, AGENT_MEMORY_DIR, &name]),
        (Scope::Local, Some(r)) => {
            let project = slug::slug(&folder::project_key(env));
            folder::join(&[r, PROJECTS_DIR, &project, AGENT_MEMORY_LOCAL_DIR, &name])
        }
        (Scope::Local, None) => folder::join(&[&cwd, CLAUDE_DIR, AGENT_MEMORY_LOCAL_DIR, &name]),
        (Scope::User, _) => {
            let base = remote.map_or_else(
                || env.config_dir().to_string_lossy().into_owned(),
                str::to_owned,
            );
            folder::join(&[&base, AGENT_MEMORY_DIR, &name])
        }
    };
    format!("{path}/")
}

/// Whether `dir` is a subagent's memory folder: `…/agent-memory/NAME` or
/// `…/agent-memory-local/NAME`, the last two components of every scope's folder ([`folder`]).
pub fn is_folder(dir: &Path) -> bool {
    dir.parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == AGENT_MEMORY_DIR || n == AGENT_MEMORY_LOCAL_DIR)
}

/// A subagent's MEMORY.md measured as its system prompt loads it ([`read`] without the
/// entrypoint checks): read whole (`Oa` uses `readFileSync`: no 4 MiB cap), no frontmatter or
/// comment stripping, cut at 200 lines / 25,000 units.
pub fn measure_index(path: &Path) -> IndexState {
    match crate::fsread::read_capped(path, u64::MAX / 2) {
        Ok(bytes) => IndexState::Loaded(index::process_agent(&js::utf8_lossy(&bytes)).measure),
        Err(Unread::Missing) => IndexState::Missing,
        Err(Unread::NotRegular(what)) => IndexState::NotRegular { what: what.into() },
        Err(Unread::TooLarge(bytes)) => IndexState::TooLarge { bytes },
        Err(Unread::Unreadable(e)) => IndexState::Unreadable {
            error: e.to_string(),
        },
    }
}

/// Resolves, reads and renders the memory of `agent` in `scope`.
pub fn load(env: &ClientEnv, agent: &str, scope: Scope) -> AgentMemory {
    let dir = folder(env, agent, scope);
    let (entrypoint, refusal) = entrypoint(env, scope, &dir);
    let (state, body) = match refusal {
        Some(reason) => (State::Refused { reason }, REFUSED.to_owned()),
        None => read(Path::new(&format!("{dir}{INDEX}")), entrypoint),
    };
    let section = format!("## {INDEX}\n\n{body}");
    AgentMemory {
        folder: dir,
        scope,
        entrypoint,
        would_create: entrypoint != Entrypoint::Refused,
        state,
        section,
    }
}

/// `sm` with `lm`: user scope follows links; a folder outside the start directory (a remote
/// local folder) needs a regular-file leaf; a folder under it must resolve (or, when missing,
/// its nearest existing ancestor must resolve) inside the start directory's real path.
fn entrypoint(env: &ClientEnv, scope: Scope, dir: &str) -> (Entrypoint, Option<String>) {
    if scope == Scope::User {
        return (Entrypoint::Follow, None);
    }
    let cwd = env.cwd.to_string_lossy();
    if !dir.starts_with(&format!("{cwd}/")) {
        return (Entrypoint::RegularFile, None);
    }
    match placement(Path::new(dir.trim_end_matches('/')), &env.cwd) {
        Placement::Beneath | Placement::Absent => (Entrypoint::RegularFile, None),
        Placement::Elsewhere => (
            Entrypoint::Refused,
            Some(format!(
                "{dir} leads out of the working copy or through a dangling link"
            )),
        ),
        Placement::Unresolved => (
            Entrypoint::Refused,
            Some(format!("{dir} could not be resolved")),
        ),
    }
}

enum Placement {
    Beneath,
    Absent,
    Elsewhere,
    Unresolved,
}

/// `lm(folder, cwd)`.
fn placement(dir: &Path, cwd: &Path) -> Placement {
    let Ok(root) = std::fs::canonicalize(cwd) else {
        return Placement::Unresolved;
    };
    let inside = |p: &Path| p.starts_with(&root) && p != root;
    match std::fs::canonicalize(dir) {
        Ok(real) => {
            return if inside(&real) {
                Placement::Beneath
            } else {
                Placement::Elsewhere
            };
        }
        Err(e) if !missing(&e) => return Placement::Unresolved,
        Err(_) => {}
    }
    match std::fs::symlink_metadata(dir) {
        Ok(_) => return Placement::Elsewhere,
        Err(e) if !missing(&e) => return Placement::Unresolved,
        Err(_) => {}
    }
    let (existing, rest) = nearest_existing(dir);
    match std::fs::canonicalize(&existing) {
        Ok(real) if inside(&real.join(&rest)) => Placement::Absent,
        Ok(_) => Placement::Elsewhere,
        Err(e) if missing(&e) => Placement::Elsewhere,
        Err(_) => Placement::Unresolved,
    }
}

/// The client's `ir`: ENOENT or ENOTDIR.
fn missing(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound
        || crate::sys::os_error(e) == Some(crate::sys::OsError::NotADirectory)
}

/// `Ia`: the nearest ancestor that `lstat` finds, and the missing components below it.
fn nearest_existing(dir: &Path) -> (PathBuf, PathBuf) {
    let mut rest = PathBuf::new();
    let mut cur = dir.to_path_buf();
    loop {
        match std::fs::symlink_metadata(&cur) {
            Err(e) if missing(&e) => {}
            _ => return (cur, rest),
        }
        let (Some(parent), Some(name)) = (cur.parent(), cur.file_name()) else {
            return (cur, rest);
        };
        rest = Path::new(name).join(rest);
        cur = parent.to_path_buf();
    }
}

/// `Oa`'s read: `regular-file` mode refuses a leaf that `lstat` does not find regular (a
/// missing leaf is a read error: empty); the text is read whole as UTF-8. Returns the state and
/// the section's body.
fn read(path: &Path, mode: Entrypoint) -> (State, String) {
    let empty = || (State::Empty, EMPTY.to_owned());
    if mode == Entrypoint::RegularFile {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if !meta.is_file() => {
                let what = if meta.file_type().is_symlink() {
                    "a link"
                } else {
                    "not a regular file"
                };
                let reason = format!("{} is {what}", path.display());
                return (State::Refused { reason }, REFUSED.to_owned());
            }
            Ok(_) => {}
            Err(_) => return empty(),
        }
    }
    // Read through the non-blocking reader: a FIFO behind a followed link must not hang us.
    let Ok(bytes) = crate::fsread::read_capped(path, u64::MAX / 2) else {
        return empty();
    };
    let text = js::utf8_lossy(&bytes);
    if js::trim(&text).is_empty() {
        return empty();
    }
    let p = index::process_agent(&text);
    (State::Loaded(p.measure), p.content)
}
