//! `ccmem history --check`: passive verification. For each session the client recorded, ccmem
//! predicts the start block again, for that session's start directory and the environment its
//! record shows (auto memory on or off, from its system prompt), and compares it with what the
//! record says the model got: which files, of which type, in which order, with which content. On
//! the user's own machine, platform and client version, without running the client: this is how
//! ccmem learns its model has drifted.
//!
//! The files are today's, the record is of then. A file that changed since the session says
//! nothing about the model and is left out, quietly (counted): a recorded file that is gone, or
//! whose content differs from the prediction, when it was modified after the session started;
//! a predicted file the record lacks, when it was modified after the session started and no
//! record at or before the session shows it with this content (it may not have existed then).
//! Everything else that differs is reported: session, file, what differs.
//!
//! Not checked: resumed runs (their start block is the first run's), ccmem's own log records (a
//! prediction, not the client's record), a session whose record has no start block, a session
//! whose start directory is gone.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use super::model::{AutoMemory, FileRecord, Session, Source};
use super::transcript::content_hash;
use crate::env::{ClientEnv, ClientFlags};
use crate::load::{self, Detail};
use crate::text::js;

/// What differs for one file.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    /// The file.
    pub path: String,
    /// `not-recorded` (ccmem predicts it loads, the record does not have it), `not-predicted`
    /// (recorded, ccmem predicts it does not load), `content`, `type`, `order`.
    pub what: &'static str,
    /// In words.
    pub detail: String,
}

/// The check of one session.
#[derive(Debug, Clone, Serialize)]
pub struct SessionCheck {
    /// The session id.
    pub id: String,
    /// When it started.
    pub started: Option<String>,
    /// Its start directory.
    pub cwd: Option<String>,
    /// The client version that recorded it.
    pub version: Option<String>,
    /// Differences between the record and the prediction.
    pub differences: Vec<Difference>,
    /// Files left out because they changed since the session.
    pub changed_since: Vec<String>,
}

/// A session that could not be checked, and why.
#[derive(Debug, Clone, Serialize)]
pub struct NotChecked {
    /// The session id.
    pub id: String,
    /// Why.
    pub why: String,
}

/// The whole check.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Sessions compared.
    pub sessions: Vec<SessionCheck>,
    /// Sessions not compared.
    pub not_checked: Vec<NotChecked>,
}

impl Report {
    /// Whether any session differs.
    pub fn differs(&self) -> bool {
        self.sessions.iter().any(|s| !s.differences.is_empty())
    }
}

/// Checks `sessions` against ccmem's prediction, in an environment of `vars`; `all` is every
/// recorded session of the project (what an earlier record shows).
pub fn check(sessions: &[Session], all: &[Session], vars: &BTreeMap<String, String>) -> Report {
    let evidence = Evidence::of(all);
    // Today's files are the same for every session of one directory and environment: one
    // prediction each.
    let mut predictions: HashMap<(String, bool, bool), Vec<Predicted>> = HashMap::new();
    let mut report = Report {
        sessions: Vec::new(),
        not_checked: Vec::new(),
    };
    for s in sessions {
        let skip = |why: &str| NotChecked {
            id: s.id.clone(),
            why: why.to_owned(),
        };
        if s.source == Source::Log {
            continue;
        }
        if s.run > 1 {
            continue;
        }
        if s.start_line.is_none() {
            report
                .not_checked
                .push(skip("its transcript has no start block"));
            continue;
        }
        let Some(cwd) = s.cwd.as_deref().filter(|c| Path::new(c).is_dir()) else {
            report.not_checked.push(skip("its start directory is gone"));
            continue;
        };
        let env = session_env(s, cwd, vars);
        let key = (
            cwd.to_owned(),
            s.auto_memory == AutoMemory::Off,
            matches!(s.auto_memory, AutoMemory::On { .. }),
        );
        let predicted = predictions.entry(key).or_insert_with(|| predict(&env));
        report.sessions.push(one(s, &env, predicted, &evidence));
    }
    report
}

/// A predicted start file: path, the client's type name, content hash.
type Predicted = (String, &'static str, u64);

/// The environment of a session's start, as far as its record shows it: auto memory on or off.
fn session_env(s: &Session, cwd: &str, vars: &BTreeMap<String, String>) -> ClientEnv {
    let mut vars = vars.clone();
    match s.auto_memory {
        AutoMemory::Off => {
            vars.insert("CLAUDE_CODE_DISABLE_AUTO_MEMORY".into(), "1".into());
        }
        AutoMemory::On { .. } => {
            vars.remove("CLAUDE_CODE_DISABLE_AUTO_MEMORY");
        }
        AutoMemory::Unknown => {}
    }
    ClientEnv::new(cwd.into(), vars, ClientFlags::default())
}

/// ccmem's start block for `env`.
fn predict(env: &ClientEnv) -> Vec<Predicted> {
    load::load_session_with(env, Detail::Reminder)
        .entries
        .iter()
        .map(|e| {
            (
                e.path.clone(),
                super::log::kind_name(e.kind),
                content_hash(&e.content),
            )
        })
        .collect()
}

/// Every recorded (path, start time, content hash), to tell a file that existed then from one
/// that may be new.
struct Evidence(HashMap<String, Vec<(Option<jiff::Timestamp>, u64)>>);

impl Evidence {
    fn of(sessions: &[Session]) -> Self {
        let mut map: HashMap<String, Vec<(Option<jiff::Timestamp>, u64)>> = HashMap::new();
        for s in sessions
            .iter()
            .filter(|s| s.source == Source::Transcript && s.run == 1)
        {
            for f in &s.start {
                map.entry(f.path.clone())
                    .or_default()
                    .push((s.started_at(), f.hash));
            }
        }
        Evidence(map)
    }

    /// Whether a record at or before `t` shows `path` with content `hash`.
    fn shows(&self, path: &str, hash: u64, t: Option<jiff::Timestamp>) -> bool {
        self.0.get(path).is_some_and(|v| {
            v.iter()
                .any(|(when, h)| *h == hash && t.is_some_and(|t| when.is_some_and(|w| w <= t)))
        })
    }
}

fn one(s: &Session, env: &ClientEnv, predicted: &[Predicted], evidence: &Evidence) -> SessionCheck {
    let t = s.started_at();
    let changed = |path: &str| changed_since(&env.cwd.join(path), t);
    let mut out = SessionCheck {
        id: s.id.clone(),
        started: s.started.clone(),
        cwd: s.cwd.clone(),
        version: s.version.clone(),
        differences: Vec::new(),
        changed_since: Vec::new(),
    };
    let mut recorded_kept: Vec<&str> = Vec::new();
    for f in &s.start {
        match predicted.iter().find(|(p, _, _)| *p == f.path) {
            Some((_, kind, hash)) => {
                if *hash != f.hash && changed(&f.path) {
                    out.changed_since.push(f.path.clone());
                    continue;
                }
                if *hash != f.hash {
                    out.differences.push(Difference {
                        path: f.path.clone(),
                        what: "content",
                        detail: content_detail(s, f, env),
                    });
                }
                if *kind != f.kind && !f.kind.is_empty() {
                    out.differences.push(Difference {
                        path: f.path.clone(),
                        what: "type",
                        detail: format!("recorded as {}, ccmem predicts {kind}", f.kind),
                    });
                }
                recorded_kept.push(&f.path);
            }
            None if changed(&f.path) => out.changed_since.push(f.path.clone()),
            None => out.differences.push(Difference {
                path: f.path.clone(),
                what: "not-predicted",
                detail: "the record has it in the start block; ccmem predicts it does not load"
                    .into(),
            }),
        }
    }
    let mut predicted_kept: Vec<&str> = Vec::new();
    for (path, _, hash) in predicted {
        if s.start.iter().any(|f| f.path == *path) {
            if recorded_kept.contains(&path.as_str()) {
                predicted_kept.push(path);
            }
            continue;
        }
        if changed(path) && !evidence.shows(path, *hash, t) {
            out.changed_since.push(path.clone());
            continue;
        }
        out.differences.push(Difference {
            path: path.clone(),
            what: "not-recorded",
            detail: "ccmem predicts it loads at start; the record does not have it".into(),
        });
    }
    if recorded_kept != predicted_kept {
        out.differences.push(Difference {
            path: recorded_kept
                .first()
                .copied()
                .unwrap_or_default()
                .to_owned(),
            what: "order",
            detail: format!(
                "recorded order {}; ccmem predicts {}",
                recorded_kept.join(", "),
                predicted_kept.join(", ")
            ),
        });
    }
    out
}

/// Whether the file at `path` is gone or was modified after `t` (unknown `t`: never).
fn changed_since(path: &Path, t: Option<jiff::Timestamp>) -> bool {
    let Some(t) = t else {
        return false;
    };
    match std::fs::metadata(path).and_then(|m| m.modified()) {
        Ok(m) => jiff::Timestamp::try_from(m).is_ok_and(|m| m > t),
        Err(_) => true,
    }
}

/// The first line where the recorded content and the prediction differ (the record read again
/// from the transcript).
fn content_detail(s: &Session, f: &FileRecord, env: &ClientEnv) -> String {
    let recorded = s
        .transcript
        .as_deref()
        .zip(s.start_line)
        .and_then(|(t, (_, offset))| super::transcript::start_files_at(Path::new(t), offset))
        .and_then(|files| {
            files
                .into_iter()
                .find(|(p, _)| *p == f.path)
                .map(|(_, c)| c)
        });
    let predicted = load::load_session_with(env, Detail::Reminder)
        .entries
        .into_iter()
        .find(|e| e.path == f.path)
        .map(|e| e.content);
    let (Some(recorded), Some(predicted)) = (recorded, predicted) else {
        return "the content the model got differs from ccmem's prediction".into();
    };
    let (r, p) = (js::trim(&recorded), js::trim(&predicted));
    let (rl, pl): (Vec<&str>, Vec<&str>) = (r.split('\n').collect(), p.split('\n').collect());
    let at = rl
        .iter()
        .zip(&pl)
        .position(|(a, b)| a != b)
        .unwrap_or(rl.len().min(pl.len()));
    let clip = |s: Option<&&str>| {
        s.map_or("(no line)".to_owned(), |s| {
            let t: String = s.chars().take(80).collect();
            format!("{t:?}")
        })
    };
    format!(
        "line {} differs: the model got {}, ccmem predicts {} ({} vs {} lines)",
        at + 1,
        clip(rl.get(at)),
        clip(pl.get(at)),
        rl.len(),
        pl.len()
    )
}
