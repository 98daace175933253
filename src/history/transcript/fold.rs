//! The fold of a transcript's records, line by line, into its runs: which run a record belongs
//! to, what its start block, attachments, reads and writes say, and what could not be read.

use std::fs::File;
use std::path::Path;

use super::parts::{
    agent_memory, auto_memory, bash_write_into, file_record, index_record, is_index,
};
use super::{Context, describe};
use crate::history::lines::{Item, Lines, MAX_LINE};
use crate::history::model::{
    AgentMemory, AutoMemory, Diagnostic, Event, Session, Source, WriteEvent,
};
use crate::history::record::{self, Envelope, Shape};

/// Runs read at most from one transcript (a session resumed a thousand times); the records
/// after the last one are counted in it.
const MAX_RUNS: usize = 1_000;
/// Each resumed run holds a copy of the first run's start block ([`Fold::finish`]): those copies
/// together hold at most this many records, and one more per [`BYTES_PER_COPY`] bytes read, so
/// what a transcript yields grows with its size, never with its size squared (a start block of
/// thousands of files followed by thousands of tiny resumed runs).
const COPY_FLOOR: u64 = 10_000;
/// Bytes of transcript read per record copied into a resumed run, past [`COPY_FLOOR`].
const BYTES_PER_COPY: u64 = 64;

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

pub(super) struct Fold<'c> {
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
    /// Bytes read up to the line being folded.
    read: u64,
    /// Runs not opened, their records counted in the last one ([`MAX_RUNS`], [`COPY_FLOOR`]).
    folded: u64,
}

impl<'c> Fold<'c> {
    pub(super) fn new(path: &Path, id: &str, ctx: Context<'c>, subagent: bool) -> Self {
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
            read: 0,
            folded: 0,
        }
    }

    pub(super) fn diag(&mut self, line: Option<u64>, message: String) {
        self.diagnostics.push(Diagnostic {
            path: self.path.clone(),
            line,
            message,
        });
    }

    fn run(&mut self) -> &mut Run {
        if self.ended && !self.may_open_run() {
            self.ended = false;
        }
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

    /// Whether another run may be opened: at most [`MAX_RUNS`], and the copies of the first
    /// start block they would hold within what the bytes read allow (see [`COPY_FLOOR`]).
    /// When not, the run's records are counted in the last one, said once.
    fn may_open_run(&mut self) -> bool {
        let Some(first) = self.runs.first() else {
            return true;
        };
        let per_run = first.session.start.len()
            + first
                .session
                .memory_index
                .as_ref()
                .map_or(0, |i| i.today.len());
        let copies = (per_run as u64).saturating_mul(self.runs.len() as u64);
        let allowed = COPY_FLOOR.saturating_add(self.read / BYTES_PER_COPY);
        if self.runs.len() < MAX_RUNS && copies <= allowed {
            return true;
        }
        self.folded += 1;
        false
    }

    pub(super) fn read(&mut self, file: File, len: u64) {
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
        if self.folded > 0 {
            let message = format!(
                "{} more runs were counted in run {}: a transcript yields at most {MAX_RUNS} runs, \
                 and no more copies of its start block than its size allows",
                self.folded,
                self.runs.len()
            );
            self.diag(None, message);
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
        self.read = offset;
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
    pub(super) fn finish(mut self) -> (Vec<(Session, Option<AgentMemory>)>, Vec<Diagnostic>) {
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
