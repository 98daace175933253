//! Agent definitions as the client collects them (`ZTs` → `Zxr` / `rce` / `j2` → `aUn`,
//! `vXn` for `--agents JSON`; chunk-bqhgd24a).
//!
//! - built-ins (`cTt`): general-purpose, statusline-setup, claude, Explore and Plan (both
//!   `omitClaudeMd`), claude-code-guide;
//! - `<config dir>/agents/**/*.md` (user settings source on);
//! - `<D>/.claude/agents/**/*.md` for D = the start directory and each ancestor up to the git
//!   root (never the home directory itself; `rce`), project settings source on;
//! - `--agents JSON` (flag settings);
//! - managed `<managed dir>/.claude/agents/**/*.md`.
//!
//! A Markdown file needs a string `name` and `description` (`Bfo`: not starting with `-`, at most
//! 256 characters, no `:` after NFKC); anything else is skipped. Later sources win for the same
//! name (`built-in < user < project < flag < managed`).

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

use crate::constants::{AGENT_NAME_MAX_UTF16, AGENTS_DIR, CLAUDE_DIR, MAX_FILE_BYTES};
use crate::env::ClientEnv;
use crate::settings::{Settings, Source};
use crate::text::{frontmatter, js};

/// Where a definition comes from (the client's `source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Shipped with the client.
    BuiltIn,
    /// `<config dir>/agents`.
    User,
    /// A project `.claude/agents` folder.
    Project,
    /// `--agents JSON`.
    Flag,
    /// The managed folder's `.claude/agents`.
    Managed,
}

impl Origin {
    /// In words, for receipts.
    pub fn label(self) -> &'static str {
        match self {
            Origin::BuiltIn => "built-in",
            Origin::User => "user",
            Origin::Project => "project",
            Origin::Flag => "--agents",
            Origin::Managed => "managed",
        }
    }
}

/// The `memory:` scope of a definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// `<config dir>/agent-memory/<name>/`.
    User,
    /// `<cwd>/.claude/agent-memory/<name>/`.
    Project,
    /// `<cwd>/.claude/agent-memory-local/<name>/` (or under `CLAUDE_CODE_REMOTE_MEMORY_DIR`).
    Local,
}

impl Scope {
    fn parse(value: &str) -> Option<Self> {
        match value {
            "user" => Some(Scope::User),
            "project" => Some(Scope::Project),
            "local" => Some(Scope::Local),
            _ => None,
        }
    }

    /// The frontmatter value.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
        }
    }
}

/// One agent the session can spawn.
#[derive(Debug, Clone, Serialize)]
pub struct Definition {
    /// The `subagent_type` (the frontmatter `name`, verbatim).
    pub name: String,
    /// Where it is defined.
    pub origin: Origin,
    /// Its file, for Markdown definitions.
    pub path: Option<String>,
    /// Its memory scope, when it has a valid one.
    pub memory: Option<Scope>,
    /// A `memory:` value the client ignores (not user/project/local), with its text.
    pub invalid_memory: Option<String>,
    /// `omitClaudeMd: true`.
    pub omit_claude_md: bool,
}

impl Definition {
    fn built_in(name: &str, omit: bool) -> Self {
        Definition {
            name: name.to_owned(),
            origin: Origin::BuiltIn,
            path: None,
            memory: None,
            invalid_memory: None,
            omit_claude_md: omit,
        }
    }
}

/// Every agent defined for this session, each name once (the winning definition), built-ins
/// first, then in the order the client lists its sources.
pub fn all(env: &ClientEnv, settings: &Settings) -> Vec<Definition> {
    let mut list: Vec<Definition> = [
        ("general-purpose", false),
        ("statusline-setup", false),
        ("claude", false),
        ("Explore", true),
        ("Plan", true),
        ("claude-code-guide", false),
    ]
    .into_iter()
    .map(|(n, o)| Definition::built_in(n, o))
    .collect();
    if settings.is_enabled(Source::User) {
        list.extend(markdown_dir(
            &env.config_dir().join(AGENTS_DIR),
            Origin::User,
        ));
    }
    if settings.is_enabled(Source::Project) {
        for dir in project_dirs(env) {
            list.extend(markdown_dir(&dir, Origin::Project));
        }
    }
    list.extend(from_json(env));
    list.extend(markdown_dir(
        &env.managed_dir.join(CLAUDE_DIR).join(AGENTS_DIR),
        Origin::Managed,
    ));
    let mut out: Vec<Definition> = Vec::new();
    for def in list {
        match out.iter_mut().find(|d| d.name == def.name) {
            Some(slot) => *slot = def,
            None => out.push(def),
        }
    }
    out
}

/// The definition of `name` (exact, as the Agent tool's `subagent_type`).
pub fn find(env: &ClientEnv, settings: &Settings, name: &str) -> Option<Definition> {
    all(env, settings).into_iter().find(|d| d.name == name)
}

/// `rce`: `<D>/.claude/agents` for the start directory and each ancestor, stopping before the
/// home directory and after the git root; only folders that exist.
fn project_dirs(env: &ClientEnv) -> Vec<PathBuf> {
    let git_root = crate::load::git::git_root(&env.cwd);
    let mut out = Vec::new();
    for dir in env.cwd.ancestors() {
        if dir == env.home {
            break;
        }
        out.push(dir.join(CLAUDE_DIR).join(AGENTS_DIR));
        if git_root.as_deref() == Some(dir) {
            break;
        }
    }
    out.retain(|d| d.is_dir());
    out
}

/// `j2`: every `*.md` under `dir` (ripgrep `--files --hidden --follow --no-ignore`), sorted,
/// parsed by `aUn`.
fn markdown_dir(dir: &Path, origin: Origin) -> Vec<Definition> {
    let mut files = Vec::new();
    collect_md(dir, 0, &mut files);
    files.sort();
    files
        .iter()
        .filter_map(|f| parse_markdown(f, origin))
        .collect()
}

fn collect_md(dir: &Path, depth: usize, out: &mut Vec<String>) {
    // Symlinked folders are followed, as ripgrep --follow does; the depth bound stops loops.
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            collect_md(&path, depth + 1, out);
        } else if meta.is_file() && path.extension().is_some_and(|e| e == "md") {
            out.push(path.to_string_lossy().into_owned());
        }
    }
}

/// `aUn`: a Markdown agent file, or `None` when the client skips it (or it is not a regular
/// file of at most 4 MiB: the client reads any size, but no agent definition is that long).
fn parse_markdown(path: &str, origin: Origin) -> Option<Definition> {
    let bytes = crate::fsread::read_capped(Path::new(path), MAX_FILE_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let split = frontmatter::split(&text);
    let parsed = split.yaml.map(frontmatter::parse)?.ok()?;
    let front = parsed.table()?;
    let text_of = |key: &str| front.get(key).and_then(frontmatter::Value::as_str);
    let name = text_of("name")?;
    let description = text_of("description");
    if !valid_name(name) || description.is_none_or(str::is_empty) {
        return None;
    }
    let (memory, invalid_memory) = match front.get("memory") {
        None | Some(frontmatter::Value::Null) => (None, None),
        Some(v) => match v.as_str().and_then(Scope::parse) {
            Some(scope) => (Some(scope), None),
            None => (None, Some(display(v))),
        },
    };
    let omit = front.get("omitClaudeMd");
    Some(Definition {
        name: name.to_owned(),
        origin,
        path: Some(path.to_owned()),
        memory,
        invalid_memory,
        omit_claude_md: omit == Some(&frontmatter::Value::Bool(true))
            || omit.and_then(frontmatter::Value::as_str) == Some("true"),
    })
}

/// `Bfo` (the name checks; `description` is tested by the caller).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && js::utf16_len(name) <= AGENT_NAME_MAX_UTF16
        && !name.nfkc().any(|c| c == ':')
}

/// Longest `memory:` value shown, in bytes of its text or JSON (a value aliases can make
/// name millions of nodes is shown cut).
const SHOWN_VALUE_MAX_BYTES: usize = 200;

/// An invalid `memory:` value as it is shown: a string as it is, anything else as JSON.
fn display(v: &frontmatter::Value) -> String {
    match v.as_str() {
        Some(s) => match s.char_indices().nth(SHOWN_VALUE_MAX_BYTES) {
            Some((at, _)) => format!("{}…", &s[..at]),
            None => s.to_owned(),
        },
        None => v.write_json(SHOWN_VALUE_MAX_BYTES),
    }
}

/// `vXn`: the agents of `--agents JSON` (an object of name → definition). Invalid JSON or an
/// entry the client's schema refuses is skipped, as the client does.
fn from_json(env: &ClientEnv) -> Vec<Definition> {
    let Some(json) = env.flags.agents.as_deref() else {
        return Vec::new();
    };
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(json) else {
        return Vec::new();
    };
    map.iter()
        .filter(|(name, _)| !name.starts_with('-'))
        .filter_map(|(name, v)| {
            v.get("description")?.as_str()?;
            v.get("prompt")?.as_str()?;
            let memory = match v.get("memory") {
                None => None,
                Some(m) => Some(Scope::parse(m.as_str()?)?),
            };
            Some(Definition {
                name: name.clone(),
                origin: Origin::Flag,
                path: None,
                memory,
                invalid_memory: None,
                omit_claude_md: v.get("omitClaudeMd") == Some(&Value::Bool(true)),
            })
        })
        .collect()
}
