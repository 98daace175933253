//! The receipt: a person's view of one session start — what loaded and why, the MEMORY.md
//! budget and every entry that went dark, what is only reachable lazily, what was skipped, and
//! the client's own size warnings. Built from a [`Session`]; rendered by `render::receipt`.
//!
//! JSON schema (`schema: "ccmem.receipt/1"`; fields are only ever added within a version):
//! `client_version` (modeled), `cwd`, `disabled` (why the block is off, or null), `loaded[]`
//! (`path`, `kind`, `label`, `why` {`type`, …}, `size` {`bytes`,`lines`,`utf16`},
//! `tokens_estimate`, `loaded_bytes`), `totals` {`files`,`bytes`,`loaded_bytes`,`utf16`,
//! `tokens_estimate`,`tokens_method`}, `auto_memory` (`off`, `folder`, `folder_source`,
//! `index_path`, `index` {`state`, …measure with `cut` {`line_over`,`size_over`,`kept_lines`,
//! `kept_utf16`,`dark[]` {`line`,`text`,`partial`}, `warning`}}, `lazy[]`), `lazy[]` (`path`,
//! `why`), `skipped[]` (`path`, `kind`, `from`, `why`), `warnings[]` (client size warnings, text
//! as the client words them), `problems[]` (settings files that could not be used), `findings[]`
//! (`kind`, `path`, `message`, `fix`: the kinds that set exit status 1, each with what fixes it),
//! `platform` {`model` (linux, macos, windows, wsl), `verified` (how ccmem's rules for it are
//! held to the client), `unverified[]` (what this receipt predicts that nothing here checks),
//! `unread_policy[]` {`source`, `note`} (the OS's policy sources the client reads and ccmem
//! does not), `read_policy[]` {`source`, `note`} (those ccmem read, the macOS plists and
//! on Windows the registry, with what the client makes of each)}, `traps` (what `ccmem check --user-config` reports for this start directory,
//! when it is in a git repository: `root`, `start`, `findings[]` {`rule`, `severity`, `path`
//! (relative to `root`), `line`, `message`, `fix`}, `elsewhere` (findings of the repository
//! that do not bite here), `left_out` (start directories not checked), `command`).
//!
//! Units: `size.bytes` and `totals.bytes` are the files' sizes on disk; `size.lines`,
//! `size.utf16`, `loaded_bytes` (UTF-8) and `tokens_estimate` measure the text the model
//! receives (after frontmatter and comment stripping; for MEMORY.md, after the cut).

use serde::Serialize;

use crate::constants::{CLIENT_VERSION, MAX_FILE_SIZE};
use crate::env::ClientEnv;
use crate::load::automem::{IndexState, Report};
use crate::load::size::SizeModel;
use crate::load::{Kind, Lazy, LazyWhy, Loaded, Session, Skipped, Why};
use crate::platform::Platform;
use crate::settings::{Problem, ReadPolicy, UnreadPolicy};
use crate::text::js;

mod finding;
pub mod fix;
mod history;
mod traps;
mod words;

pub use finding::Finding;
pub use history::DarkHistory;
pub use traps::{Trap, Traps};
pub use words::{SizeWarning, group, size_warnings, skip_words};

/// The versioned schema name of the JSON receipt.
pub const SCHEMA: &str = "ccmem.receipt/1";

/// One loaded file as the receipt shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LoadedView {
    /// Path as the client prints it.
    pub path: String,
    /// Kind.
    pub kind: Kind,
    /// The client's label (without the leading space and parentheses).
    pub label: String,
    /// Why it loaded.
    pub why: Why,
    /// Size: `bytes` on disk; `lines` and `utf16` of what the model receives.
    pub size: crate::load::Size,
    /// Rough token estimate (characters ÷ 4, as the client's own rough count).
    pub tokens_estimate: usize,
    /// UTF-8 bytes of what the model receives.
    pub loaded_bytes: usize,
}

/// Totals over the loaded files.
#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    /// Number of files.
    pub files: usize,
    /// Bytes on disk.
    pub bytes: u64,
    /// UTF-8 bytes the model receives.
    pub loaded_bytes: usize,
    /// UTF-16 units the model receives.
    pub utf16: usize,
    /// Rough token estimate.
    pub tokens_estimate: usize,
    /// How the estimate is made.
    pub tokens_method: &'static str,
}

/// A finding that counts toward the exit status.
#[derive(Debug, Clone, Serialize)]
pub struct FindingView {
    /// Its kind.
    pub kind: Finding,
    /// The file concerned.
    pub path: String,
    /// In words.
    pub message: String,
    /// What fixes it: a command to run or an edit to make.
    pub fix: Option<String>,
}

/// The whole receipt.
#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    /// Schema name and version.
    pub schema: &'static str,
    /// The client version modeled.
    pub client_version: &'static str,
    /// The start directory (real path).
    pub cwd: String,
    /// Why the whole block is off.
    pub disabled: Option<&'static str>,
    /// Files in the startup block, in order.
    pub loaded: Vec<LoadedView>,
    /// Totals.
    pub totals: Totals,
    /// Auto memory.
    pub auto_memory: Report,
    /// Reachable only later.
    pub lazy: Vec<Lazy>,
    /// Skipped, with reasons.
    pub skipped: Vec<Skipped>,
    /// The client's own size warnings.
    pub warnings: Vec<String>,
    /// Settings files that could not be used.
    pub problems: Vec<Problem>,
    /// Findings of the kinds selected by `--fail-on`.
    pub findings: Vec<FindingView>,
    /// For each `--reading PATH`, what the client would attach then.
    pub reads: Vec<ReadView>,
    /// One line when the installed client is not the version modeled.
    pub client_note: Option<String>,
    /// The platform model, how it is verified, and what it cannot see.
    pub platform: PlatformView,
    /// An interrupted ccmem write in the auto-memory folder: MEMORY.md and its topic files may
    /// be half-written (what the client loads now is measured as it is on disk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_pending: Option<crate::memory::Pending>,
    /// How long each dark entry has been dark, when recorded sessions loaded this index
    /// (`ccmem history`; the client's transcripts and ccmem's log).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dark_history: Option<DarkHistory>,
    /// What `ccmem check` reports for this start directory, when it is in a git repository
    /// (`--no-check` leaves it out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traps: Option<Traps>,
    /// The model the size warnings assume (`--context-window`, `--chars-per-token`).
    #[serde(skip)]
    pub size_model: SizeModel,
}

/// The platform model of a receipt.
#[derive(Debug, Clone, Serialize)]
pub struct PlatformView {
    /// Whose rules applied.
    pub model: Platform,
    /// How ccmem's rules for this platform are held to the client.
    pub verified: &'static str,
    /// Predictions of this receipt that nothing on this machine verifies.
    pub unverified: Vec<String>,
    /// Policy sources the client reads before the managed folder, which ccmem does not read.
    pub unread_policy: Vec<UnreadPolicy>,
    /// Policy sources of the OS that ccmem read (the macOS plists), with what came of each.
    pub read_policy: Vec<ReadPolicy>,
}

impl PlatformView {
    /// The view of `env`'s platform, with the settings' unread and read OS policy sources.
    /// (Which files a `Read` deny rule withholds is held on Windows by vectors of the Windows
    /// build's own matcher, `fuzz/vectors-platform/deny.json`: no note.)
    pub fn of(
        env: &ClientEnv,
        unread_policy: Vec<UnreadPolicy>,
        read_policy: Vec<ReadPolicy>,
    ) -> Self {
        let model = env.platform;
        let verified = match model {
            Platform::Linux => {
                "cases captured from the client's Linux build, and vectors of its functions"
            }
            Platform::Macos => {
                "cases captured with the client's macOS build (run on Linux, APFS name folding \
                 emulated), and vectors of its functions"
            }
            Platform::Windows => {
                "vectors of the client's Windows build's path functions; no whole session captured"
            }
            Platform::Wsl => {
                "the Linux build's cases, and vectors of its functions run as WSL; the Windows \
                 host's managed folder by cases captured with the Linux build run as WSL; the \
                 host's registry is not read"
            }
        };
        let mut unverified = Vec::new();
        if model == Platform::Windows {
            unverified.push(
                "on Windows: the home folder (USERPROFILE), NTFS's case-insensitive names, \
                 junctions and 8.3 names, and file reads are predictions, unverified on this \
                 platform"
                    .to_owned(),
            );
        }
        if model.is_windows() != env.host.is_windows() {
            unverified.push(format!(
                "the {model} model on this {} machine: its paths are not this machine's, so \
                 files are not found (the model serves tests and vectors)",
                env.host
            ));
        } else if model != env.host {
            unverified.push(format!(
                "the {model} model on this {} machine: files are read from this machine's \
                 file system, with its case and Unicode folding",
                env.host
            ));
        }
        PlatformView {
            model,
            verified,
            unverified,
            unread_policy,
            read_policy,
        }
    }

    /// Whether a person needs to be told anything (a model other than Linux's on Linux, or a
    /// policy source ccmem cannot read).
    pub fn worth_saying(&self) -> bool {
        !self.unverified.is_empty()
            || !self.unread_policy.is_empty()
            || !self.read_policy.is_empty()
            || self.model != Platform::Linux
    }
}

/// What a file read later in the session attaches.
#[derive(Debug, Clone, Serialize)]
pub struct ReadView {
    /// The path read.
    pub path: String,
    /// Files attached, in order (each is its own reminder block).
    pub attached: Vec<LoadedView>,
}

/// Rough tokens the client itself would estimate for `chars` UTF-16 units.
pub fn tokens_estimate(utf16: usize) -> usize {
    utf16.div_ceil(4)
}

impl Receipt {
    /// Builds the receipt of a session; `fail_on` selects which findings count.
    pub fn build(
        env: &ClientEnv,
        session: &Session,
        fail_on: &[Finding],
        size_model: &SizeModel,
    ) -> Self {
        let loaded: Vec<LoadedView> = session.entries.iter().map(view).collect();
        let totals = Totals {
            files: loaded.len(),
            bytes: loaded.iter().map(|l| l.size.bytes).sum(),
            loaded_bytes: loaded.iter().map(|l| l.loaded_bytes).sum(),
            utf16: loaded.iter().map(|l| l.size.utf16).sum(),
            tokens_estimate: loaded.iter().map(|l| l.tokens_estimate).sum(),
            tokens_method: "UTF-16 units / 4 (the client's rough count; no offline Claude tokenizer exists)",
        };
        let warnings = size_warnings(env, &session.entries, size_model);
        let mut findings = Vec::new();
        if let Some(f) = index_finding(&session.automem) {
            findings.push(f);
        }
        for s in &session.skipped {
            if let Some(kind) = Finding::of_skip(&s.why) {
                findings.push(FindingView {
                    kind,
                    path: s.path.clone(),
                    message: skip_words(&s.why),
                    fix: fix::skip(s),
                });
            }
        }
        for w in &warnings {
            findings.push(FindingView {
                kind: Finding::Oversized,
                path: w.path.clone().unwrap_or_default(),
                message: w.text.clone(),
                fix: Some(fix::OVERSIZED.to_owned()),
            });
        }
        findings.retain(|f| fail_on.contains(&f.kind));
        let mut auto_memory = session.automem.clone();
        auto_memory.lazy = topic_files(env, &session.automem);
        let mut lazy = session.lazy.clone();
        lazy.extend(auto_memory.lazy.iter().cloned());
        Receipt {
            schema: SCHEMA,
            client_version: CLIENT_VERSION,
            cwd: env.cwd.to_string_lossy().into_owned(),
            disabled: session.disabled,
            loaded,
            totals,
            auto_memory,
            lazy,
            skipped: skipped(session),
            warnings: warnings.into_iter().map(|w| w.text).collect(),
            problems: session.settings.problems.clone(),
            findings,
            reads: Vec::new(),
            client_note: None,
            platform: PlatformView::of(
                env,
                session.settings.unread_policy.clone(),
                session.settings.read_policy.clone(),
            ),
            memory_pending: crate::memory::pending::of_session(session),
            dark_history: None,
            traps: None,
            size_model: *size_model,
        }
    }

    /// Adds what `check` reports for this start directory; its errors are findings of kind
    /// [`Finding::Trap`] when `fail_on` selects it.
    pub fn with_traps(mut self, traps: Traps, fail_on: &[Finding]) -> Self {
        if fail_on.contains(&Finding::Trap) {
            let root = std::path::Path::new(&traps.root);
            // An import the receipt already lists as blocked or missing, at the same line, is
            // one problem: the receipt's own finding names it.
            let told = |t: &Trap| {
                self.skipped.iter().any(|s| {
                    Finding::of_skip(&s.why).is_some()
                        && s.from.as_ref().is_some_and(|(from, line)| {
                            *line == t.line && std::path::Path::new(from) == root.join(&t.path)
                        })
                })
            };
            let errors = (traps.findings.iter())
                .filter(|t| t.severity == crate::severity::Severity::Error && !told(t));
            let found: Vec<FindingView> = errors
                .map(|t| FindingView {
                    kind: Finding::Trap,
                    path: t.path.clone(),
                    message: if t.message.contains(&t.path) {
                        format!("{} [{}]", t.message, t.rule)
                    } else {
                        format!("{}:{}: {} [{}]", t.path, t.line, t.message, t.rule)
                    },
                    fix: Some(if traps.start == "." {
                        t.fix.clone()
                    } else {
                        format!("{} (paths relative to {})", t.fix, traps.root)
                    }),
                })
                .collect();
            self.findings.extend(found);
        }
        self.traps = Some(traps);
        self
    }

    /// Adds what each read attaches (`reads[i]` pairs with `attached[i]`).
    pub fn with_reads(mut self, reads: &[String], attached: &[Vec<Loaded>]) -> Self {
        self.reads = reads
            .iter()
            .zip(attached)
            .map(|(path, files)| ReadView {
                path: path.clone(),
                attached: files.iter().map(view).collect(),
            })
            .collect();
        self
    }
}

/// The topic files of the session's auto memory (every file of its library but MEMORY.md),
/// each `linked` when MEMORY.md reaches it from its loaded part, directly or through a hub:
/// the library's one reachability ([`crate::memory::Library::reach`]), as `audit` and `tier`
/// count it.
fn topic_files(env: &ClientEnv, automem: &Report) -> Vec<Lazy> {
    let (Some(folder), Some(lib)) = (
        automem.folder.as_deref(),
        crate::memory::session::library(env, automem),
    ) else {
        return Vec::new();
    };
    let index = lib.index();
    (lib.files.iter().zip(lib.reach()).enumerate())
        .filter(|&(i, _)| Some(i) != index)
        .map(|(_, (f, &reach))| Lazy {
            path: format!("{folder}{}", f.rel),
            why: LazyWhy::TopicFile {
                linked: crate::memory::session::reached(reach),
            },
        })
        .collect()
}

/// The loader's skips, less those of a file the session loads another way, whose skip is no
/// finding: an `AGENTS.md` not read on its own because `CLAUDE.md` loads, which `CLAUDE.md`
/// imports, is loaded, not skipped (a receipt that said both would contradict itself).
fn skipped(session: &Session) -> Vec<Skipped> {
    let loaded = |path: &str| session.entries.iter().any(|e| e.path == path);
    (session.skipped.iter())
        .filter(|s| Finding::of_skip(&s.why).is_some() || !loaded(&s.path))
        .cloned()
        .collect()
}

/// The finding of a MEMORY.md that is cut or cannot load at all, with its fix.
fn index_finding(automem: &Report) -> Option<FindingView> {
    let path = automem.index_path.clone().unwrap_or_default();
    let (kind, message, fix) = match &automem.index {
        IndexState::Loaded(m) | IndexState::FromEnv(m) => {
            let n = m.cut.as_ref()?.dark.len();
            let lines = if n == 1 { "line" } else { "lines" };
            let message = format!("{n} {lines} never reach the model");
            (Finding::Dark, message, fix::dark_index(automem))
        }
        IndexState::TooLarge { bytes } => {
            let message = format!(
                "MEMORY.md is {} bytes, over the client's {MAX_FILE_SIZE} limit: none of it loads",
                group(*bytes as usize)
            );
            (Finding::Dark, message, fix::dark_index(automem))
        }
        IndexState::NotRegular { what } => (
            Finding::Unloadable,
            format!("MEMORY.md is not a regular file ({what}): nothing of it loads"),
            format!("make {path} a regular file (the client reads no others)"),
        ),
        IndexState::Unreadable { error } => (
            Finding::Unloadable,
            format!("MEMORY.md is unreadable: {error}"),
            format!("make {path} readable, then run ccmem receipt again"),
        ),
        IndexState::NotApplicable | IndexState::Missing | IndexState::WouldGenerate { .. } => {
            return None;
        }
    };
    Some(FindingView {
        kind,
        path,
        message,
        fix: Some(fix),
    })
}

fn view(e: &Loaded) -> LoadedView {
    let label = e
        .kind
        .label()
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .to_owned();
    LoadedView {
        path: e.path.clone(),
        kind: e.kind,
        label,
        why: e.why.clone(),
        size: e.size,
        tokens_estimate: tokens_estimate(e.size.utf16),
        loaded_bytes: js::trim(&e.content).len(),
    }
}

#[cfg(test)]
mod tests;
