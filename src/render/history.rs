//! `ccmem history` for a person (a timeline per session, then how long each MEMORY.md entry has
//! been dark) and as JSON; and `history --check`.
//!
//! Everything shown comes from transcripts, which anyone's repository content can reach: every
//! path and text is printed with its control and direction characters made visible
//! ([`visible`]), so a record cannot move the cursor or recolour the terminal.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Serialize;

use super::style::{BOLD, DIM, GREEN, RED, YELLOW};
use crate::constants::counted as count;
use crate::history::check::Report;
use crate::history::model::{AutoMemory, Session, Source};
use crate::history::{CHECK_SCHEMA, Entry, History, SCHEMA};
use crate::text::escape::escape;

/// Sessions the text view lists before it says how many earlier ones there are.
pub const SESSION_LIMIT: usize = 20;
/// Diagnostics the text view lists.
const DIAGNOSTIC_LIMIT: usize = 10;

/// Choices for the text view.
#[derive(Debug, Clone, Copy, Default)]
pub struct HumanOptions {
    /// Every session, not the last [`SESSION_LIMIT`].
    pub all: bool,
}

#[derive(Serialize)]
struct Doc<'a, T: Serialize> {
    schema: &'static str,
    client_version: &'static str,
    #[serde(flatten)]
    body: &'a T,
}

/// The history as JSON (pretty, with a trailing newline).
pub fn json(h: &History) -> String {
    doc(SCHEMA, h)
}

/// The check as JSON.
pub fn check_json(r: &Report) -> String {
    doc(CHECK_SCHEMA, r)
}

fn doc<T: Serialize>(schema: &'static str, body: &T) -> String {
    let d = Doc {
        schema,
        client_version: crate::constants::CLIENT_VERSION,
        body,
    };
    let mut s = serde_json::to_string_pretty(&d).expect("history serializes");
    s.push('\n');
    s
}

/// `2026-11-02 09:30` (UTC) of an RFC 3339 time, or the text as it is.
fn minute(t: Option<&str>) -> String {
    match t.and_then(|t| t.parse::<jiff::Timestamp>().ok()) {
        Some(ts) => ts.strftime("%Y-%m-%d %H:%M:%S").to_string(),
        None => escape(t.unwrap_or("(no time)")).into_owned(),
    }
}

fn short(id: &str) -> &str {
    &id[..id.len().min(8)]
}

/// Paths shortened for the timeline: inside the project root relative to it, inside the
/// memory folder by file name.
struct Paths<'a> {
    root: &'a str,
    memory: Option<&'a str>,
}

impl Paths<'_> {
    fn show<'p>(&self, path: &'p str) -> Cow<'p, str> {
        if let Some(m) = self.memory
            && let Some(rest) = path.strip_prefix(m)
        {
            return escape(rest);
        }
        if let Some(rest) = path
            .strip_prefix(self.root)
            .and_then(|r| r.strip_prefix('/'))
        {
            return escape(rest);
        }
        escape(path)
    }

    fn cwd(&self, cwd: Option<&str>) -> String {
        match cwd {
            Some(c) if c == self.root => ".".into(),
            Some(c) => self.show(c).into_owned(),
            None => "(no directory recorded)".into(),
        }
    }
}

/// The history for a person.
pub fn human(h: &History, opts: HumanOptions) -> String {
    let mut o = String::new();
    let paths = Paths {
        root: &h.project.root,
        memory: h.project.memory_folder.as_deref(),
    };
    let _ = writeln!(
        o,
        "{BOLD}ccmem history{BOLD:#} {DIM}· {}{DIM:#}",
        escape(&h.project.root)
    );
    if let Some(m) = &h.project.memory_folder {
        let _ = writeln!(o, "{DIM}memory: {}{DIM:#}", escape(m));
    }
    if h.sessions.is_empty() {
        let _ = writeln!(
            o,
            "\nNo recorded session of this project ({} transcripts read{}).",
            h.sources.transcripts,
            if h.sources.log.is_some() {
                ", and ccmem's log"
            } else {
                ""
            }
        );
        diagnostics(&mut o, h);
        return o;
    }
    let first = h.sessions.first().and_then(|s| s.started.as_deref());
    let last = h.sessions.last().and_then(|s| s.started.as_deref());
    let _ = writeln!(
        o,
        "{} from {} to {} UTC · {} transcript{} read{}",
        count(h.sessions.len(), "session", "sessions"),
        minute(first),
        minute(last),
        h.sources.transcripts,
        if h.sources.transcripts == 1 { "" } else { "s" },
        match h.sources.from_log {
            0 => String::new(),
            n => format!(" · {n} from ccmem's log (their transcripts are gone)"),
        }
    );
    let shown = if opts.all {
        h.sessions.len()
    } else {
        SESSION_LIMIT.min(h.sessions.len())
    };
    let hidden = h.sessions.len() - shown;
    if hidden > 0 {
        let _ = writeln!(
            o,
            "\n{DIM}… {} earlier (--all lists them, --json has them all){DIM:#}",
            count(hidden, "session", "sessions")
        );
    }
    for s in &h.sessions[hidden..] {
        session(&mut o, s, &paths);
    }
    dark(&mut o, h);
    diagnostics(&mut o, h);
    o
}

fn session(o: &mut String, s: &Session, p: &Paths<'_>) {
    let version = match s.version.as_deref() {
        Some(v) if v != crate::constants::CLIENT_VERSION => {
            format!(
                " {YELLOW}· client {} (ccmem models {}){YELLOW:#}",
                escape(v),
                crate::constants::CLIENT_VERSION
            )
        }
        _ => String::new(),
    };
    let run = if s.run > 1 {
        format!(
            " {DIM}(resumed, run {}: the model has the first run's start block){DIM:#}",
            s.run
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        o,
        "\n{BOLD}{}{BOLD:#}  {}  in {}{run}{version}",
        minute(s.started.as_deref()),
        short(&escape(&s.id)),
        p.cwd(s.cwd.as_deref())
    );
    if s.source == Source::Log {
        let _ = writeln!(
            o,
            "  {DIM}from ccmem's log (ccmem's prediction at that start; the client's transcript is gone){DIM:#}"
        );
    }
    let start: Vec<String> = s
        .start
        .iter()
        .map(|f| match &s.memory_index {
            Some(i) if i.path == f.path => {
                let cut = if i.warned {
                    format!("; {RED}cut{RED:#}, the model was told")
                } else {
                    String::new()
                };
                format!(
                    "{} ({}{cut})",
                    p.show(&f.path),
                    count(i.lines, "line", "lines")
                )
            }
            _ => p.show(&f.path).into_owned(),
        })
        .collect();
    if s.start.is_empty() {
        let what = if s.start_line.is_some() || s.source == Source::Log {
            "no instruction file"
        } else {
            "no start block recorded"
        };
        line(o, "start", &format!("{DIM}{what}{DIM:#}"));
    } else {
        line(o, "start", &start.join(" · "));
    }
    if s.auto_memory == AutoMemory::Off {
        line(
            o,
            "memory",
            &format!("{YELLOW}auto memory was off{YELLOW:#}"),
        );
    }
    if !s.resent.is_empty() {
        let files: Vec<_> = s
            .resent
            .iter()
            .map(|f| p.show(&f.path).into_owned())
            .collect();
        line(o, "resent", &files.join(" · "));
    }
    list(
        o,
        "attached",
        s.lazy.iter().map(|e| p.show(&e.path).into_owned()),
    );
    list(
        o,
        "read",
        s.topic_reads.iter().map(|e| p.show(&e.path).into_owned()),
    );
    list(
        o,
        "wrote",
        s.memory_writes
            .iter()
            .map(|w| format!("{} ({})", p.show(&w.path), escape(&w.tool))),
    );
    if s.compactions > 0 {
        line(o, "compacted", &count(s.compactions, "time", "times"));
    }
    for a in &s.subagents {
        let kind = a
            .kind
            .as_deref()
            .map_or(Cow::Borrowed("(type not recorded)"), escape);
        let memory = match &a.memory {
            None => "no memory of its own".to_owned(),
            Some(m) if m.state == "loaded" => {
                let cut = if m.warned {
                    format!(", {RED}cut{RED:#}")
                } else {
                    String::new()
                };
                format!("its MEMORY.md: {}{cut}", count(m.lines, "line", "lines"))
            }
            Some(m) if m.state == "empty" => "its MEMORY.md: empty".to_owned(),
            Some(m) => format!("its MEMORY.md: {}", m.state),
        };
        line(o, "subagent", &format!("{kind} · {memory}"));
    }
    if !s.ended && s.source == Source::Transcript {
        let _ = writeln!(
            o,
            "  {DIM}no end record: still running, or it ended abruptly{DIM:#}"
        );
    }
}

fn line(o: &mut String, label: &str, text: &str) {
    let _ = writeln!(o, "  {DIM}{label:<9}{DIM:#} {text}");
}

fn list(o: &mut String, label: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.collect();
    if !items.is_empty() {
        line(o, label, &items.join(" · "));
    }
}

/// The entries that did not reach the model the last time the index loaded, grouped into runs
/// of lines with the same story.
fn dark(o: &mut String, h: &History) {
    if h.entries.is_empty() {
        return;
    }
    let dark: Vec<&Entry> = h.entries.iter().filter(|e| e.sessions_since > 0).collect();
    let _ = writeln!(
        o,
        "\n{BOLD}MEMORY.md now{BOLD:#} {DIM}· {} (non-blank lines){DIM:#}",
        count(h.entries.len(), "entry", "entries")
    );
    if dark.is_empty() {
        let loaded = h.entries.iter().any(|e| e.last_loaded.is_some());
        let _ = if loaded {
            writeln!(
                o,
                "  {GREEN}every entry reached the model the last time MEMORY.md loaded{GREEN:#}"
            )
        } else {
            writeln!(o, "  no recorded session loaded this index")
        };
        return;
    }
    let mut groups: Vec<(usize, usize, &Entry)> = Vec::new();
    for e in &dark {
        match groups.last_mut() {
            Some((_, to, first))
                if first.last_loaded == e.last_loaded
                    && first.dark_since == e.dark_since
                    && next_entry(h, *to) == Some(e.line) =>
            {
                *to = e.line
            }
            _ => groups.push((e.line, e.line, e)),
        }
    }
    let _ = writeln!(
        o,
        "  {RED}{} did not reach the model the last time MEMORY.md loaded:{RED:#}",
        count(dark.len(), "entry", "entries")
    );
    for (from, to, e) in groups {
        let lines = if from == to {
            format!("L{from}")
        } else {
            format!("L{from}–{to}")
        };
        let story = escape(&super::receipt::dark_story(e)).into_owned();
        let preview: String = e.text.chars().take(60).collect();
        let more = if e.text.chars().count() > 60 {
            "…"
        } else {
            ""
        };
        let _ = writeln!(o, "  {RED}{lines:<10}{RED:#} {story}");
        let _ = writeln!(o, "  {DIM}{:<10} {}{more}{DIM:#}", "", escape(&preview));
    }
    let _ = writeln!(
        o,
        "  {GREEN}→{GREEN:#} ccmem tier (moves entries into hubs the loaded index links)"
    );
}

/// The line of the entry after the one at `line`.
fn next_entry(h: &History, line: usize) -> Option<usize> {
    h.entries.iter().map(|e| e.line).find(|&l| l > line)
}

fn diagnostics(o: &mut String, h: &History) {
    if h.diagnostics_total == 0 {
        return;
    }
    let _ = writeln!(
        o,
        "\n{YELLOW}{} while reading:{YELLOW:#}",
        count(h.diagnostics_total, "note", "notes")
    );
    for d in h.diagnostics.iter().take(DIAGNOSTIC_LIMIT) {
        let at = d.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(o, "  {}{at}: {}", escape(&d.path), escape(&d.message));
    }
    if h.diagnostics_total > DIAGNOSTIC_LIMIT {
        let _ = writeln!(
            o,
            "  {DIM}… and {} more (--json lists {}){DIM:#}",
            h.diagnostics_total - DIAGNOSTIC_LIMIT,
            h.diagnostics.len()
        );
    }
}

/// `history --check` for a person.
pub fn check_human(r: &Report, h: &History) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{BOLD}ccmem history --check{BOLD:#} {DIM}· {} · models Claude Code {}{DIM:#}",
        escape(&h.project.root),
        crate::constants::CLIENT_VERSION
    );
    let differing: Vec<_> = r
        .sessions
        .iter()
        .filter(|s| !s.differences.is_empty())
        .collect();
    let quiet: usize = r.sessions.iter().map(|s| s.changed_since.len()).sum();
    for s in &differing {
        let version = match s.version.as_deref() {
            Some(v) if v != crate::constants::CLIENT_VERSION => {
                format!(" (recorded by client {})", escape(v))
            }
            _ => String::new(),
        };
        let _ = writeln!(
            o,
            "\n{RED}{}{RED:#}  {} in {}{version}",
            escape(&s.id),
            minute(s.started.as_deref()),
            escape(s.cwd.as_deref().unwrap_or("?"))
        );
        for d in &s.differences {
            let _ = writeln!(
                o,
                "  {RED}✗{RED:#} {}: {}",
                escape(&d.path),
                escape(&d.detail)
            );
        }
    }
    let _ = writeln!(
        o,
        "\n{} checked: {} as ccmem predicts{}{}",
        count(r.sessions.len(), "session", "sessions"),
        r.sessions.len() - differing.len(),
        if differing.is_empty() {
            String::new()
        } else {
            format!(", {RED}{} differ{RED:#}", differing.len())
        },
        if quiet == 0 {
            String::new()
        } else {
            format!(
                " {DIM}· {} left out (changed since its session){DIM:#}",
                count(quiet, "file", "files")
            )
        }
    );
    if !r.not_checked.is_empty() {
        let mut why: Vec<(&str, usize)> = Vec::new();
        for n in &r.not_checked {
            match why.iter_mut().find(|(w, _)| *w == n.why) {
                Some((_, k)) => *k += 1,
                None => why.push((&n.why, 1)),
            }
        }
        for (w, k) in why {
            let _ = writeln!(
                o,
                "{DIM}{} not checked: {w}{DIM:#}",
                count(k, "session", "sessions")
            );
        }
    }
    if !differing.is_empty() {
        let _ = writeln!(
            o,
            "{YELLOW}ccmem's model differs from what this client recorded: please report it (ccmem verify --capture DIR records a case){YELLOW:#}"
        );
    }
    o
}
