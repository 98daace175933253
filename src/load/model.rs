//! What the simulated client produces: the ordered startup list with provenance, what was
//! skipped and why, and what is only reachable lazily.

use serde::Serialize;

/// The five kinds of memory entry; each has the client's exact label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Managed policy (`/etc/claude-code`).
    Managed,
    /// The user's files under the config dir.
    User,
    /// Checked-in project files (CLAUDE.md, .claude/CLAUDE.md, rules, AGENTS.md, add-dirs).
    Project,
    /// CLAUDE.local.md.
    Local,
    /// The auto-memory index MEMORY.md.
    AutoMem,
}

impl Kind {
    /// The label the client appends after the path (with its leading space).
    pub fn label(self) -> &'static str {
        match self {
            Kind::Managed => " (organization-managed policy instructions)",
            Kind::User => " (user's private global instructions for all projects)",
            Kind::Project => " (project instructions, checked into the codebase)",
            Kind::Local => " (user's private project instructions, not checked in)",
            Kind::AutoMem => " (user's auto-memory, persists across conversations)",
        }
    }
}

/// Why a file is in the startup block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Why {
    /// The managed CLAUDE.md.
    ManagedFile,
    /// The `claudeMd` string of the managed policy settings (managed-settings.json, its
    /// drop-ins, or the macOS plist that takes their place).
    ManagedSettings,
    /// `$CFG/CLAUDE.md`.
    UserFile,
    /// A rule without `paths:` in a rules folder (`dir` = the rules folder).
    Rule { dir: String },
    /// CLAUDE.md / .claude/CLAUDE.md / CLAUDE.local.md of a directory on the ancestor walk.
    Ancestor { dir: String },
    /// A file of an `--add-dir` folder.
    AddDir { dir: String },
    /// `@path` in another file, at a 1-based line of that file (after frontmatter removal).
    Import {
        from: String,
        line: usize,
        depth: usize,
    },
    /// AGENTS.md added by the agents-md plugin in this mode.
    AgentsMd { mode: String },
    /// Attached on a read: a CLAUDE.md / .claude/CLAUDE.md / CLAUDE.local.md or unconditional
    /// rule of `dir`, a folder between the start directory and the file read.
    LazyNested { dir: String },
    /// Attached on a read: a conditional rule of the rules folder `dir` whose `pattern` matched.
    LazyRule { dir: String, pattern: String },
    /// The auto-memory index.
    AutoMemIndex,
    /// The auto-memory index the client would generate and write because MEMORY.md is missing.
    AutoMemBackfill,
}

/// Size of a file as loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Size {
    /// Bytes on disk.
    pub bytes: u64,
    /// Lines of the rendered content.
    pub lines: usize,
    /// UTF-16 code units of the rendered content (what the client's `String.length` counts).
    pub utf16: usize,
}

/// One file in the startup block, in order.
#[derive(Debug, Clone, Serialize)]
pub struct Loaded {
    /// The path exactly as the client prints it.
    pub path: String,
    /// Its kind (decides the label).
    pub kind: Kind,
    /// The processed content before the final trim (frontmatter and comments stripped; for
    /// MEMORY.md also truncated, warned and sanitized).
    pub content: String,
    /// Why it loaded.
    pub why: Why,
    /// The unverified-managed rendering (cowork hosts with a writable managed folder).
    pub unverified: bool,
    /// Its size.
    pub size: Size,
}

/// Why a file that exists (or was referenced) is not in the startup block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum SkipWhy {
    /// Matched a `claudeMdExcludes` pattern.
    Excluded { pattern: String, settings: String },
    /// An import (or rule link) outside the start directory without approval.
    ExternalNotApproved { key: String },
    /// Import depth limit (5) reached.
    DepthLimit,
    /// Bigger than 4 MiB.
    TooLarge { bytes: u64 },
    /// A directory, FIFO, socket or device.
    NotRegular { what: String },
    /// Permission denied, symlink loop, I/O error.
    Unreadable { error: String },
    /// An import whose target does not exist.
    Missing,
    /// Extension not in the client's text list.
    NonTextExtension { ext: String },
    /// Empty after frontmatter/comment stripping and trim.
    Empty,
    /// Already loaded earlier in the session (first occurrence wins).
    Duplicate,
    /// Withheld by a Read deny permission rule.
    DeniedRead { rule: String },
    /// Inside a `connector-downloads` / `.artifact-work` / scratchpad folder.
    ProtectedFolder { folder: String },
    /// A device or process path.
    DevicePath,
    /// Directory listed in `CLAUDE_CODE_AUTOMOUNT_ROOTS`.
    AutomountRoot,
    /// Project file of the main checkout above a nested git worktree.
    OuterWorktree,
    /// AGENTS.md not added because a CLAUDE.md / CLAUDE.local.md loads (fallback mode).
    AgentsSuppressed { by: String },
    /// AGENTS.md duplicating an entry already in the list.
    AgentsDuplicate { of: String },
    /// AGENTS.md never loads in this mode.
    AgentsModeOff { mode: String },
    /// Dropped by the `managed-only` mode.
    ManagedOnly,
    /// A symlinked or hard-linked user file under the `local-agent` entrypoint.
    LocalAgentLink,
    /// The kind's setting source is switched off by `--setting-sources`.
    SourceDisabled { source: String },
    /// `--add-dir` files need CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD.
    AddDirNeedsEnv,
    /// A conditional rule (`paths:`), loaded only when a matching file is read.
    Conditional { globs: Vec<String> },
    /// Something else, in words.
    Other { reason: String },
}

/// A file that exists but did not load, with the reason.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// Path as the client would print it.
    pub path: String,
    /// The kind it would have had.
    pub kind: Option<Kind>,
    /// Where it was referenced from (importer and 1-based line), when it is an import.
    pub from: Option<(String, usize)>,
    /// Why it did not load.
    pub why: SkipWhy,
}

/// Something reachable only later in the session.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum LazyWhy {
    /// A CLAUDE.md / .claude/CLAUDE.md / CLAUDE.local.md / rules below the start directory:
    /// attached when a file in or under its folder is read.
    Subdirectory,
    /// A rule with `paths:`: attached when a matching file is read.
    ConditionalRule { globs: Vec<String> },
    /// An auto-memory topic file, read on demand; `linked` says whether MEMORY.md reaches it
    /// (a link in its loaded part, or in a hub that part links: the memory library's reach).
    TopicFile { linked: bool },
}

/// A file reachable only lazily.
#[derive(Debug, Clone, Serialize)]
pub struct Lazy {
    /// Its path.
    pub path: String,
    /// How it could be reached.
    pub why: LazyWhy,
}
