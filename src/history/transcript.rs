//! One transcript read into its sessions: the client's record of what each run of a session had
//! at start, attached later, read, wrote and compacted (Claude Code 2.1.332's records; see
//! [`super::record`] for what each looks like).
//!
//! What the records say, as this client writes them (pinned by the captured histories in
//! `tests/oracle/history/`):
//! - The first `instructions` attachment of a run is its start block: every instruction file
//!   and MEMORY.md as the model got them (MEMORY.md cut, the client's warning appended).
//! - After a `compact_boundary` system record the client sends the start block again: that
//!   `instructions` attachment is a re-injection, not a start.
//! - `cost-state` is written when the process ends. A resumed session (`--continue`,
//!   `--resume ID`) appends to the same file, same id: the records after a `cost-state` are a
//!   new run. The model of a resumed run sees the conversation as recorded, so its start block is
//!   the session's first one; the client sends an `instructions` attachment again only with the
//!   files that changed since (kept as [`Session::resent`]). A `/clear` starts a new session id
//!   in a new file.
//! - `nested_memory` attachments are files attached after a read (nested CLAUDE.md, path rules).
//! - The first `prompt_snapshot` of a run holds the system prompt: its memory section names the
//!   memory folder (`persistent file-based memory at \`DIR\``); no section means auto memory off.
//! - A subagent writes its own transcript, `<session-id>/subagents/agent-<id>.jsonl`, beside a
//!   `.meta.json` naming its type; its system prompt's `## MEMORY.md` section is its own memory.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::entries::Today;
use super::lines::{Item, Lines, MAX_LINE};
use super::model::{
    AgentMemory, AutoMemory, Diagnostic, Event, FileRecord, IndexRecord, Session, Source, Subagent,
    WriteEvent,
};
use super::record::{self, Envelope, Shape};
use crate::text::js;

/// What the scan of a transcript needs to know of the project.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// Today's MEMORY.md, whose lines are matched against each start block.
    pub today: Option<&'a Today>,
    /// The project's memory folder (with its trailing `/`): a Read inside it is a topic read.
    pub memory_folder: Option<&'a str>,
}

/// A transcript's sessions and what could not be read.
#[derive(Debug, Default)]
pub struct Scanned {
    /// Its runs, in file order.
    pub sessions: Vec<Session>,
    /// Diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// The client's warning after a cut index (`HMo`), what `text::cut` appends.
const CUT_WARNING: &str = "\n\n> WARNING: MEMORY.md is ";

/// Opens a transcript without following a link and without blocking; only a regular file.
pub fn open(path: &Path) -> std::io::Result<(File, u64)> {
    let file = crate::sys::open_no_follow(std::fs::OpenOptions::new().read(true), path, true)?;
    let m = file.metadata()?;
    if !m.is_file() {
        return Err(std::io::Error::other(format!(
            "not a regular file ({})",
            crate::fsread::kind_of(&m)
        )));
    }
    Ok((file, m.len()))
}

/// Reads the main transcript at `path` (file name `<session-id>.jsonl`).
pub fn scan(path: &Path, ctx: Context<'_>) -> Scanned {
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut fold = Fold::new(path, &id, ctx, false);
    match open(path) {
        Ok((file, len)) => fold.read(file, len),
        Err(e) => fold.diag(None, format!("cannot read: {}", describe(&e))),
    }
    let (runs, diagnostics) = fold.finish();
    Scanned {
        sessions: runs.into_iter().map(|(s, _)| s).collect(),
        diagnostics,
    }
}

/// Reads a subagent's transcript and its `.meta.json`.
pub fn scan_subagent(path: &Path, ctx: Context<'_>) -> (Subagent, Vec<Diagnostic>) {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut fold = Fold::new(path, &name, ctx, true);
    match open(path) {
        Ok((file, len)) => fold.read(file, len),
        Err(e) => fold.diag(None, format!("cannot read: {}", describe(&e))),
    }
    let kind = read_meta(&path.with_extension("meta.json"));
    let (runs, diagnostics) = fold.finish();
    let (run, memory) = runs.into_iter().next().unzip();
    let sub = Subagent {
        id: name.strip_prefix("agent-").unwrap_or(&name).to_owned(),
        kind,
        started: run.as_ref().and_then(|r| r.started.clone()),
        start: run
            .as_ref()
            .map(|r| {
                r.start
                    .iter()
                    .map(|f| Event {
                        path: f.path.clone(),
                        time: None,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        memory: memory.flatten(),
    };
    (sub, diagnostics)
}

/// The files of the start block recorded on the line at `offset` of the transcript at `path`,
/// with their content (read again for `--check`'s details).
pub fn start_files_at(path: &Path, offset: u64) -> Option<Vec<(String, String)>> {
    use std::io::{Seek, SeekFrom};
    let (mut file, len) = open(path).ok()?;
    file.seek(SeekFrom::Start(offset)).ok()?;
    let mut lines = Lines::new(file, len.saturating_sub(offset));
    let Ok(Some(Item::Line { bytes, .. })) = lines.next(|_, _| true) else {
        return None;
    };
    let mut scratch = Vec::new();
    let (env, _) = record::parse::<Envelope>(bytes, &mut scratch).ok()?;
    let att = serde_json::from_str::<record::Instructions>(env.attachment?.get()).ok()?;
    Some(
        att.files
            .into_iter()
            .map(|f| (f.path.into_owned(), f.content.into_owned()))
            .collect(),
    )
}

/// The subagent type its `.meta.json` names (at most 64 KiB read).
fn read_meta(path: &Path) -> Option<String> {
    let (file, _) = open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(64 << 10).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice::<record::AgentMeta>(&bytes)
        .ok()?
        .agent_type
}

fn describe(e: &std::io::Error) -> String {
    match crate::sys::os_error(e) {
        Some(crate::sys::OsError::Loop) => "a symbolic link (not followed)".into(),
        _ => crate::write::describe_io(e),
    }
}

/// A run being read, with what only the fold needs.
struct Run {
    session: Session,
    /// The start block was seen (or this run resumes one).
    started_block: bool,
    /// The next `instructions` attachment re-injects the start block after a compaction.
    after_compact: bool,
    /// The first system prompt was seen.
    snapshot_seen: bool,
    /// A subagent's own memory section.
    subagent_memory: Option<AgentMemory>,
}

struct Fold<'c> {
    path: String,
    id: String,
    ctx: Context<'c>,
    subagent: bool,
    runs: Vec<Run>,
    /// A `cost-state` record ended the last run: the next conversation record begins another.
    ended: bool,
    diagnostics: Vec<Diagnostic>,
    too_long: u64,
    unparsed: u64,
    repaired: u64,
    scratch: Vec<u8>,
}

impl<'c> Fold<'c> {
    fn new(path: &Path, id: &str, ctx: Context<'c>, subagent: bool) -> Self {
        Fold {
            path: path.to_string_lossy().into_owned(),
            id: id.to_owned(),
            ctx,
            subagent,
            runs: Vec::new(),
            ended: false,
            diagnostics: Vec::new(),
            too_long: 0,
            unparsed: 0,
            repaired: 0,
            scratch: Vec::new(),
        }
    }

    fn diag(&mut self, line: Option<u64>, message: String) {
        self.diagnostics.push(Diagnostic {
            path: self.path.clone(),
            line,
            message,
        });
    }

    fn run(&mut self) -> &mut Run {
        if self.runs.is_empty() || self.ended {
            self.ended = false;
            let n = self.runs.len() as u32 + 1;
            let mut session = Session::new(&self.id, n, Source::Transcript);
            session.transcript = Some(self.path.clone());
            self.runs.push(Run {
                session,
                started_block: n > 1,
                after_compact: false,
                snapshot_seen: false,
                subagent_memory: None,
            });
        }
        self.runs.last_mut().expect("a run was just made")
    }

    fn read(&mut self, file: File, len: u64) {
        let mut lines = Lines::new(file, len);
        loop {
            let needs_time =
                self.runs.last().is_none_or(|r| r.session.started.is_none()) || self.ended;
            let snapshot_seen = self.runs.last().is_some_and(|r| r.snapshot_seen) && !self.ended;
            let mut end_of_run = false;
            let mut opens_run = false;
            let item = lines.next(|peek, whole| {
                let s = record::shape(peek);
                match s {
                    // A conversation kind first: another client's key order; parse it.
                    Shape::Meta(b"attachment" | b"assistant" | b"system" | b"user") => true,
                    Shape::Meta(kind) => {
                        end_of_run = kind == b"cost-state";
                        opens_run = kind == b"queue-operation";
                        needs_time && whole && !end_of_run
                    }
                    Shape::Attachment(kind) => {
                        kind == b"instructions"
                            || kind == b"nested_memory"
                            || (kind == b"prompt_snapshot" && !snapshot_seen)
                            || (needs_time && whole)
                    }
                    Shape::User => needs_time && whole,
                    Shape::Assistant => {
                        !whole || record::TOOL_USE.find(peek).is_some() || needs_time
                    }
                    Shape::System | Shape::Unknown => true,
                }
            });
            let item = match item {
                Ok(Some(item)) => item,
                Ok(None) => break,
                Err(e) => {
                    let message = format!("read stopped: {}", describe(&e));
                    self.diag(None, message);
                    break;
                }
            };
            match item {
                Item::Skipped { .. } => {
                    if end_of_run {
                        if let Some(r) = self.runs.last_mut() {
                            r.session.ended = true;
                        }
                        self.ended = true;
                    }
                }
                Item::TooLong { line, len } => {
                    self.too_long += 1;
                    if self.too_long == 1 {
                        self.diag(
                            Some(line),
                            format!(
                                "a line of {len} bytes is over the {} MiB a record may hold: passed over",
                                MAX_LINE >> 20
                            ),
                        );
                    }
                }
                Item::Line {
                    line,
                    offset,
                    bytes,
                    terminated,
                } => self.line(bytes, line, offset, terminated, opens_run),
            }
        }
        if self.too_long > 1 {
            let message = format!("{} lines over the cap were passed over", self.too_long);
            self.diag(None, message);
        }
        if self.unparsed > 1 {
            let message = format!("{} lines were not JSON and were passed over", self.unparsed);
            self.diag(None, message);
        }
        if self.repaired > 0 {
            let message = format!(
                "{} lines held bytes that are not UTF-8 or lone surrogates: read with those dropped",
                self.repaired
            );
            self.diag(None, message);
        }
    }

    fn line(&mut self, bytes: &[u8], line: u64, offset: u64, terminated: bool, opens_run: bool) {
        let mut scratch = std::mem::take(&mut self.scratch);
        let parsed = record::parse::<Envelope>(bytes, &mut scratch);
        let (env, repaired) = match parsed {
            Ok(v) => v,
            Err(e) => {
                if !terminated {
                    self.diag(
                        Some(line),
                        "the last line is incomplete (a session still running, or one that ended mid-write): passed over".into(),
                    );
                } else {
                    self.unparsed += 1;
                    if self.unparsed == 1 {
                        self.diag(Some(line), format!("not a JSON record ({e}): passed over"));
                    }
                }
                self.scratch = scratch;
                return;
            }
        };
        if repaired {
            self.repaired += 1;
        }
        self.record(&env, line, offset, opens_run);
        drop(env);
        self.scratch = scratch;
    }

    fn record(&mut self, env: &Envelope<'_>, line: u64, offset: u64, opens_run: bool) {
        let kind = env.kind.as_deref().unwrap_or("");
        if kind == "cost-state" {
            if let Some(r) = self.runs.last_mut() {
                r.session.ended = true;
            }
            self.ended = true;
            return;
        }
        // Bookkeeping records other than a queued prompt do not begin a run.
        let conversation = env.session_id.is_some()
            && (env.attachment.is_some()
                || env.message.is_some()
                || kind == "system"
                || kind == "user"
                || kind == "assistant");
        if self.ended && !(conversation || opens_run) {
            return;
        }
        if !self.subagent && env.is_sidechain == Some(true) {
            return;
        }
        // The session id is the file's name (`<id>.jsonl`): a record copied from another
        // session (a forked conversation) keeps its old `sessionId`.
        let run = self.run();
        let s = &mut run.session;
        if s.started.is_none()
            && let Some(t) = &env.timestamp
        {
            s.started = Some(t.to_string());
        }
        if s.cwd.is_none() {
            s.cwd = env.cwd.as_deref().map(str::to_owned);
        }
        if s.version.is_none() {
            s.version = env.version.as_deref().map(str::to_owned);
        }
        if s.git_branch.is_none() {
            s.git_branch = env.git_branch.as_deref().map(str::to_owned);
        }
        let time = env.timestamp.as_deref().map(str::to_owned);
        match kind {
            "attachment" => {
                if let Some(raw) = env.attachment {
                    self.attachment(raw.get(), time, line, offset);
                }
            }
            "assistant" => {
                if let Some(raw) = env.message {
                    self.assistant(raw.get(), time);
                }
            }
            "system" if env.subtype.as_deref() == Some("compact_boundary") => {
                let run = self.run();
                run.session.compactions += 1;
                run.after_compact = true;
            }
            _ => {}
        }
    }

    fn attachment(&mut self, raw: &str, time: Option<String>, line: u64, offset: u64) {
        let Ok(head) = serde_json::from_str::<record::AttachmentHead>(raw) else {
            return;
        };
        match head.kind.as_ref() {
            "instructions" => {
                let mut scratch = Vec::new();
                let Ok((att, repaired)) =
                    record::parse::<record::Instructions>(raw.as_bytes(), &mut scratch)
                else {
                    self.diag(
                        Some(line),
                        "an instructions record of another shape: passed over".into(),
                    );
                    return;
                };
                self.repaired += u64::from(repaired);
                let today = self.ctx.today;
                let run = self.run();
                if !run.started_block {
                    run.started_block = true;
                    run.session.start_line = Some((line, offset));
                    for f in &att.files {
                        let rec = file_record(f);
                        if is_index(f) && run.session.memory_index.is_none() {
                            run.session.memory_index = Some(index_record(f, today));
                        }
                        run.session.start.push(rec);
                    }
                } else if run.after_compact {
                    run.after_compact = false;
                } else if run.session.resent.is_empty() {
                    run.session.resent = att.files.iter().map(file_record).collect();
                }
            }
            "nested_memory" => {
                let mut scratch = Vec::new();
                let Ok((n, _)) = record::parse::<record::Nested>(raw.as_bytes(), &mut scratch)
                else {
                    return;
                };
                let Some(path) = n.path.or_else(|| n.content.map(|c| c.path)) else {
                    return;
                };
                let s = &mut self.run().session;
                if !s.start.iter().any(|f| f.path == path) && !s.lazy.iter().any(|e| e.path == path)
                {
                    s.lazy.push(Event {
                        path: path.into_owned(),
                        time,
                    });
                }
            }
            "prompt_snapshot" => {
                let mut scratch = Vec::new();
                let Ok((snap, _)) = record::parse::<record::Snapshot>(raw.as_bytes(), &mut scratch)
                else {
                    return;
                };
                let parts = snap.parts();
                let subagent = self.subagent;
                let run = self.run();
                if run.snapshot_seen || parts.is_empty() {
                    return;
                }
                run.snapshot_seen = true;
                if subagent {
                    run.subagent_memory = agent_memory(&parts);
                } else {
                    run.session.auto_memory = auto_memory(&parts);
                }
            }
            _ => {}
        }
    }

    fn assistant(&mut self, raw: &str, time: Option<String>) {
        let Ok(msg) = serde_json::from_str::<record::Message>(raw) else {
            return;
        };
        let Some(content) = msg.content else {
            return;
        };
        let mut scratch = Vec::new();
        let Ok((blocks, _)) =
            record::parse::<Vec<record::Block>>(content.get().as_bytes(), &mut scratch)
        else {
            return;
        };
        let project_folder = self.ctx.memory_folder.map(str::to_owned);
        let s = &mut self.run().session;
        let own_folder = match &s.auto_memory {
            AutoMemory::On { folder } => Some(with_slash(folder)),
            _ => None,
        };
        let in_memory = |p: &str| {
            [own_folder.as_deref(), project_folder.as_deref()]
                .into_iter()
                .flatten()
                .any(|f| p.starts_with(f))
        };
        for b in blocks {
            if b.kind.as_deref() != Some("tool_use") {
                continue;
            }
            let name = b.name.as_deref().unwrap_or("");
            let input = b.input.unwrap_or_default();
            let file = input
                .file_path
                .as_deref()
                .or(input.notebook_path.as_deref());
            match (name, file) {
                ("Read", Some(p)) if in_memory(p) => s.topic_reads.push(Event {
                    path: p.to_owned(),
                    time: time.clone(),
                }),
                ("Write" | "Edit" | "MultiEdit" | "NotebookEdit", Some(p)) if in_memory(p) => {
                    s.memory_writes.push(WriteEvent {
                        path: p.to_owned(),
                        tool: name.to_owned(),
                        time: time.clone(),
                    });
                }
                ("Bash", _) => {
                    let Some(cmd) = input.command.as_deref() else {
                        continue;
                    };
                    for folder in [own_folder.as_deref(), project_folder.as_deref()]
                        .into_iter()
                        .flatten()
                    {
                        if let Some(p) = bash_write_into(cmd, folder) {
                            s.memory_writes.push(WriteEvent {
                                path: p,
                                tool: "Bash".into(),
                                time: time.clone(),
                            });
                            break;
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The runs with a subagent's memory section each, and the diagnostics.
    fn finish(mut self) -> (Vec<(Session, Option<AgentMemory>)>, Vec<Diagnostic>) {
        // A resumed run has the session's first start block.
        if let Some(first) = self.runs.first() {
            let (start, index) = (
                first.session.start.clone(),
                first.session.memory_index.clone(),
            );
            for r in self.runs.iter_mut().skip(1) {
                r.session.start = start.clone();
                r.session.memory_index = index.clone();
            }
        }
        let runs = self
            .runs
            .into_iter()
            .map(|r| (r.session, r.subagent_memory))
            .collect();
        (runs, self.diagnostics)
    }
}

fn with_slash(folder: &str) -> String {
    if folder.ends_with('/') {
        folder.to_owned()
    } else {
        format!("{folder}/")
    }
}

fn is_index(f: &record::File<'_>) -> bool {
    match f.kind.as_deref() {
        Some(k) => k == "AutoMem",
        None => f.path.ends_with("/MEMORY.md"),
    }
}

fn file_record(f: &record::File<'_>) -> FileRecord {
    let shown = js::trim(&f.content);
    FileRecord {
        path: f.path.to_string(),
        kind: f.kind.as_deref().unwrap_or("").to_owned(),
        lines: if shown.is_empty() {
            0
        } else {
            js::newlines(shown) + 1
        },
        hash: content_hash(&f.content),
    }
}

/// The hash `--check` compares: of the content as the model got it, JS-trimmed.
pub fn content_hash(content: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(js::trim(content).as_bytes())
}

/// The part of a recorded MEMORY.md before the client's cut warning, and whether it had one.
pub fn split_warning(content: &str) -> (&str, bool) {
    match content.rfind(CUT_WARNING) {
        Some(at) if content.trim_end().ends_with("topic files.") => (&content[..at], true),
        _ => (content, false),
    }
}

fn index_record(f: &record::File<'_>, today: Option<&Today>) -> IndexRecord {
    // The client trims the index, then cuts it: the kept part keeps its last line whole.
    let (loaded, warned) = split_warning(js::trim(&f.content));
    let lines = if loaded.is_empty() {
        0
    } else {
        js::newlines(loaded) + 1
    };
    let today = match today {
        Some(t) if t.path == f.path => t.mark(loaded.split('\n')),
        _ => Vec::new(),
    };
    IndexRecord {
        path: f.path.to_string(),
        lines,
        warned,
        today,
    }
}

/// Auto memory as the main session's system prompt shows it.
fn auto_memory(parts: &[std::borrow::Cow<'_, str>]) -> AutoMemory {
    for p in parts {
        if let Some(folder) = backticked_after(p, "persistent file-based memory at `") {
            return AutoMemory::On { folder };
        }
    }
    AutoMemory::Off
}

fn backticked_after(text: &str, marker: &str) -> Option<String> {
    let at = text.find(marker)? + marker.len();
    let rest = &text[at..];
    Some(rest[..rest.find('`')?].to_owned())
}

/// A subagent's own memory: the `## MEMORY.md` section of its system prompt.
fn agent_memory(parts: &[std::borrow::Cow<'_, str>]) -> Option<AgentMemory> {
    const SECTION: &str = "\n## MEMORY.md\n\n";
    let part = parts.iter().find(|p| p.contains(SECTION))?;
    let folder = backticked_after(part, "memory system at `");
    let body = part.split_once(SECTION)?.1;
    let body = body
        .split_once("\n\nMessages from the agent that launched you")
        .map_or(body, |(b, _)| b);
    let (state, lines, warned) = if body.starts_with("Your MEMORY.md is currently empty") {
        ("empty", 0, false)
    } else if body.starts_with("Your MEMORY.md was not loaded") {
        ("refused", 0, false)
    } else {
        let (loaded, warned) = split_warning(body);
        let loaded = loaded.trim_end_matches('\n');
        ("loaded", js::newlines(loaded) + 1, warned)
    };
    Some(AgentMemory {
        state,
        lines,
        warned,
        folder,
    })
}

/// The memory file a Bash command writes into `folder`: a redirection (`>`, `>>`), `tee`,
/// `sed -i`, `mv`, `cp` or `rm` naming a path in the folder. A heuristic for the timeline only.
fn bash_write_into(cmd: &str, folder: &str) -> Option<String> {
    let at = cmd.find(folder)?;
    let writes = cmd.contains('>')
        || cmd.contains("tee ")
        || cmd.contains("sed -i")
        || ["mv ", "cp ", "rm "].iter().any(|w| cmd.contains(w));
    if !writes {
        return None;
    }
    let path: String = cmd[at..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '\'' | '"' | ';' | '|' | '&' | ')'))
        .collect();
    Some(path)
}

#[cfg(test)]
mod tests;
