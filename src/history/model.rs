//! What `history` knows of one session, from the client's transcript or from ccmem's own log.

use serde::Serialize;

/// Where a session's record comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The client's own transcript (`~/.claude/projects/<folder>/<id>.jsonl`).
    Transcript,
    /// ccmem's session-start log (the client has deleted the transcript): what ccmem predicted
    /// at that start, not the client's record.
    Log,
}

/// One instruction file the model had at a session's start, as recorded.
#[derive(Debug, Clone, Serialize)]
pub struct FileRecord {
    /// The path as the client printed it.
    pub path: String,
    /// The client's type for it (`Project`, `User`, `Local`, `Managed`, `AutoMem`).
    pub kind: String,
    /// Lines of the content the model got.
    pub lines: usize,
    /// Hash of that content (JS-trimmed), to compare with a prediction.
    #[serde(skip)]
    pub hash: u64,
}

/// The auto-memory index the model had at a session's start.
#[derive(Debug, Clone, Serialize)]
pub struct IndexRecord {
    /// MEMORY.md's path.
    pub path: String,
    /// Lines of it that reached the model (the client's warning not counted).
    pub lines: usize,
    /// Whether the model was told the index was cut.
    pub warned: bool,
    /// Which of today's index lines (by position in [`super::entries::Today`]) were among them.
    #[serde(skip)]
    pub today: Vec<u64>,
}

impl IndexRecord {
    /// Whether today's non-blank line `k` reached the model with this index.
    pub fn has_today(&self, k: usize) -> bool {
        self.today
            .get(k / 64)
            .is_some_and(|w| w & (1 << (k % 64)) != 0)
    }
}

/// Auto memory as a session's system prompt shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum AutoMemory {
    /// The record does not say (no system prompt recorded, another client version).
    #[default]
    Unknown,
    /// On, in this folder.
    On {
        /// The memory folder the client named to the model.
        folder: String,
    },
    /// Off: the system prompt has no memory section.
    Off,
}

/// A file event in a session: an attached file, a topic file read.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// The file.
    pub path: String,
    /// When (RFC 3339), when recorded.
    pub time: Option<String>,
}

/// A memory file the model wrote or edited.
#[derive(Debug, Clone, Serialize)]
pub struct WriteEvent {
    /// The file.
    pub path: String,
    /// The tool (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`, or `Bash` for a command that
    /// redirects into the memory folder).
    pub tool: String,
    /// When (RFC 3339), when recorded.
    pub time: Option<String>,
}

/// What of its own memory reached a subagent.
#[derive(Debug, Clone, Serialize)]
pub struct AgentMemory {
    /// `loaded`, `empty` (no MEMORY.md yet) or `refused` (the client would not load it).
    pub state: &'static str,
    /// Lines of its MEMORY.md that reached it (the warning not counted).
    pub lines: usize,
    /// Whether it was told its index was cut.
    pub warned: bool,
    /// Its memory folder, as its system prompt names it.
    pub folder: Option<String>,
}

/// A subagent a session started.
#[derive(Debug, Clone, Serialize)]
pub struct Subagent {
    /// Its id (`agent-<id>.jsonl`).
    pub id: String,
    /// Its type (from its `.meta.json`).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// When it started.
    pub started: Option<String>,
    /// The instruction files it started with.
    pub start: Vec<Event>,
    /// Its own memory, when it has one.
    pub memory: Option<AgentMemory>,
}

/// One session as recorded: one run of the client (a resumed session is one run more of the
/// same id).
#[derive(Debug, Clone, Serialize)]
pub struct Session {
    /// The session id.
    pub id: String,
    /// 1 for the run that started the session; 2, 3, … for each time it was resumed
    /// (`--continue`, `--resume`): a resumed run starts from the conversation as recorded, so the
    /// model has the original start block (its [`Session::start`]) plus any file the client
    /// sent again because it changed ([`Session::resent`]).
    pub run: u32,
    /// Where this record comes from.
    pub source: Source,
    /// When the run started (RFC 3339).
    pub started: Option<String>,
    /// Whether the run has the client's end record (`false`: still running, or it ended
    /// abruptly).
    pub ended: bool,
    /// The client version that wrote it.
    pub version: Option<String>,
    /// The start directory.
    pub cwd: Option<String>,
    /// The git branch the client reported (`HEAD` outside a repository).
    pub git_branch: Option<String>,
    /// The transcript file.
    pub transcript: Option<String>,
    /// The instruction files of the start block, in order.
    pub start: Vec<FileRecord>,
    /// The auto-memory index in the start block.
    pub memory_index: Option<IndexRecord>,
    /// Files the client sent again when the session was resumed (changed since its start).
    pub resent: Vec<FileRecord>,
    /// Auto memory as the system prompt shows it.
    pub auto_memory: AutoMemory,
    /// Files attached later (nested CLAUDE.md, path rules), in order.
    pub lazy: Vec<Event>,
    /// Memory files the model read (Read calls into the memory folder), in order.
    pub topic_reads: Vec<Event>,
    /// Memory files the model wrote or edited, in order.
    pub memory_writes: Vec<WriteEvent>,
    /// Compactions.
    pub compactions: usize,
    /// Subagents, in start order.
    pub subagents: Vec<Subagent>,
    /// The source line of the start block, for `--check`'s details (line number and offset).
    #[serde(skip)]
    pub start_line: Option<(u64, u64)>,
}

impl Session {
    /// An empty run of `id`.
    pub fn new(id: &str, run: u32, source: Source) -> Self {
        Session {
            id: id.to_owned(),
            run,
            source,
            started: None,
            ended: false,
            version: None,
            cwd: None,
            git_branch: None,
            transcript: None,
            start: Vec::new(),
            memory_index: None,
            resent: Vec::new(),
            auto_memory: AutoMemory::Unknown,
            lazy: Vec::new(),
            topic_reads: Vec::new(),
            memory_writes: Vec::new(),
            compactions: 0,
            subagents: Vec::new(),
            start_line: None,
        }
    }

    /// The start time as a timestamp.
    pub fn started_at(&self) -> Option<jiff::Timestamp> {
        self.started.as_deref().and_then(|t| t.parse().ok())
    }
}

/// Something `history` could not read, or read only in part: never fatal, always counted.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnostic {
    /// The file.
    pub path: String,
    /// The line, when it is about one.
    pub line: Option<u64>,
    /// What, in words.
    pub message: String,
}
