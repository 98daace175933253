//! `ccmem add`: one new memory, written in the library's write spec, and its index line placed
//! where the client will see it.
//!
//! **Never into the dark.** Each placement is tried on the library in memory
//! ([`Library::with`]), whose reach comes from the loader's own cut of MEMORY.md
//! (`load::automem`): the new entry must be reached from the part of MEMORY.md that loads
//! (its line there, or in a hub a loaded line links), and no file the loaded part reached
//! before may stop being reached. In order:
//!
//! 1. its line in MEMORY.md, while MEMORY.md stays within the target;
//! 2. its line in the group's hub, when a loaded line of MEMORY.md links that hub;
//! 3. its line in MEMORY.md, while it still loads (over the target, under the client's cap);
//! 4. its line in the group's hub (created when missing) and a pointer to the hub in MEMORY.md.
//!
//! When none of them loads (MEMORY.md is past the client's cap), nothing is written and the
//! command says to run `ccmem tier` ([`Placement::Dark`]).
//!
//! The entry is written the way the library's spec writes memories (see
//! [`crate::memory::spec`]): the client's own (`name:` kebab slug, `description:`, `metadata:`
//! with `node_type: memory`, `type`, `originSessionId` when the session is known, `modified`;
//! `**Why:**` and `**How to apply:**` lines) or claude-memory-manager's (top-level `type`,
//! `modified`, `## Why` and `## How to apply` sections). Topics are checked by the audit's own
//! naming rule, and near-duplicates by the audit's own comparison and threshold.

mod entry;
mod insert;
pub mod run;

use jiff::Timestamp;
use serde::Serialize;

use self::entry::{capitalized, entry_text, index_line, memory_name, new_hub, validate};
use self::insert::{append_line, insert_entry, insert_pointer};
use super::budget::{Target, measure};
use super::plan::FilePlan;
use super::{Refusal, text_of, topic};
use crate::constants::INDEX_FILE as INDEX;
use crate::memory::file::MemFile;
use crate::memory::library::Reach;
use crate::memory::names;
use crate::memory::similar::{self, similarity};
use crate::memory::{Library, Spec};
use crate::rules;

/// What to add.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `user`, `feedback`, `project` or `reference`.
    pub kind: String,
    /// Topic (file name part): `a-z 0-9 _ -`.
    pub topic: String,
    /// The index line's title (default: from the topic).
    pub title: Option<String>,
    /// One-line description.
    pub description: String,
    /// Why (required for feedback, and for project in the client's spec, unless the body has
    /// one).
    pub why: Option<String>,
    /// How to apply.
    pub how: Option<String>,
    /// Group (hub) used when MEMORY.md is full; defaults to the type.
    pub group: Option<String>,
    /// Body text.
    pub body: Option<String>,
    /// Create even if a near-duplicate exists.
    pub force: bool,
    /// Write even what looks like a secret (the audit's `secret-in-memory` still reports it).
    pub allow_secret: bool,
    /// The client session writing (`CLAUDE_CODE_SESSION_ID`), stamped as `originSessionId`.
    pub session: Option<String>,
}

/// Where the entry's index line goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "placement", rename_all = "kebab-case")]
pub enum Placement {
    /// In MEMORY.md.
    Index,
    /// In this hub, which a loaded line of MEMORY.md links (`pointer_added`: tier added that
    /// line now).
    Hub {
        /// The hub file.
        hub: String,
        /// A pointer to the hub was added to MEMORY.md.
        pointer_added: bool,
    },
}

/// The most similar existing memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Similar {
    /// Its path in the folder.
    pub file: String,
    /// The audit's similarity (0 to 1, see [`similar::of_memory`]).
    pub similarity: f64,
}

/// Similarities below this print as 0.00: nothing is alike, and no "closest" is reported.
const SHOWN_FROM: f64 = 0.005;

/// The files to write for one added entry.
#[derive(Debug, Clone, Serialize)]
pub struct AddPlan {
    /// The new entry file first, then MEMORY.md and/or the hub.
    pub files: Vec<FilePlan>,
    /// The index line.
    pub line: String,
    /// Where it goes.
    pub placement: Placement,
    /// The write spec it was written in.
    pub spec: Spec,
    /// The most similar existing memory (kept even with `--force`; `None` when nothing is
    /// alike).
    pub similar: Option<Similar>,
}

impl AddPlan {
    /// The file the index line is in.
    pub fn placed_in(&self) -> &str {
        match &self.placement {
            Placement::Index => INDEX,
            Placement::Hub { hub, .. } => hub,
        }
    }
}

/// Why `add` wrote nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum AddError {
    /// The request is invalid (a usage error).
    Refused(Refusal),
    /// The memory's file exists already (a finding: nothing is replaced).
    Exists(Refusal),
    /// A near-duplicate exists (a finding, like [`AddError::Dark`]).
    Duplicate {
        /// What the user is told.
        refusal: Refusal,
        /// The memory it is a near-duplicate of.
        of: Similar,
    },
    /// What would be written holds what looks like a secret (a finding: memories are plain
    /// text, loaded into sessions and often synced or committed).
    Secret {
        /// What the user is told: the file and line, the kind of secret, never its value.
        refusal: Refusal,
    },
    /// No placement would load: MEMORY.md is past the client's cap.
    Dark {
        /// MEMORY.md as the client measures it.
        lines: usize,
        /// Its UTF-16 units.
        utf16: usize,
        /// `ccmem tier` would bring MEMORY.md back under the cap. It cannot when what fills
        /// the index is plain rule lines, which tier keeps where they are (they are the rule
        /// itself, always loaded).
        tier_makes_room: bool,
    },
}

impl std::fmt::Display for AddError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddError::Refused(r)
            | AddError::Exists(r)
            | AddError::Duplicate { refusal: r, .. }
            | AddError::Secret { refusal: r } => r.fmt(f),
            AddError::Dark {
                lines,
                utf16,
                tier_makes_room,
            } => {
                write!(
                    f,
                    "{INDEX}: {lines} lines / {utf16} UTF-16 units, past what the client loads \
                     ({} / {}): the new entry's line would never be seen, so nothing was \
                     written; ",
                    super::budget::CAP.lines,
                    super::budget::CAP.utf16
                )?;
                if *tier_makes_room {
                    f.write_str("run `ccmem tier` to make room, then add it again")
                } else {
                    f.write_str(
                        "`ccmem tier` cannot make room either: what fills it is plain rule \
                         lines, which tier keeps in MEMORY.md. Move rules to CLAUDE.md (loaded \
                         whole) or shorten them, then add it again",
                    )
                }
            }
        }
    }
}

impl std::error::Error for AddError {}

impl From<Refusal> for AddError {
    fn from(r: Refusal) -> Self {
        AddError::Refused(r)
    }
}

/// Plans the addition; `now` is stamped as `modified`.
pub fn plan_add(
    lib: &Library,
    req: &Request,
    target: Target,
    now: Timestamp,
) -> Result<AddPlan, AddError> {
    let file = validate(lib, req)?;
    if lib.file(&file).is_some() {
        return Err(AddError::Exists(Refusal {
            file,
            line: None,
            why: "already exists; update it instead".into(),
        }));
    }
    let spec = lib.spec();
    let text = entry_text(spec, req, &memory_name(lib, req, &file), now);
    let line = index_line(req, &file);
    if !req.allow_secret
        && let Some(refusal) = secret_refusal(&file, &text, &line)
    {
        return Err(AddError::Secret { refusal });
    }
    let similar = nearest(lib, &file, &text);
    let threshold = lib.config.audit.near_duplicate_similarity;
    if let Some(of) = &similar
        && of.similarity >= threshold
        && !req.force
    {
        let refusal = Refusal {
            file: file.clone(),
            line: None,
            why: format!(
                "near-duplicate of {} (similarity {:.2}, the audit's near-duplicate threshold \
                 is {threshold}); update that entry instead, or pass --force",
                of.file, of.similarity
            ),
        };
        return Err(AddError::Duplicate {
            refusal,
            of: of.clone(),
        });
    }
    let similar = similar.filter(|s| s.similarity >= SHOWN_FROM);
    let entry = FilePlan {
        name: file.clone(),
        old: None,
        new: text,
    };
    for candidate in candidates(lib, req, &line, target, now) {
        let mut files = vec![entry.clone()];
        files.extend(candidate.files);
        let after = lib.with(
            files
                .iter()
                .map(|f| (f.name.as_str(), Some(f.new.as_str()))),
        );
        if loads(lib, &after, &file) {
            return Ok(AddPlan {
                files,
                line,
                placement: candidate.placement,
                spec,
                similar,
            });
        }
    }
    let size = measure(lib.index_text());
    Err(AddError::Dark {
        lines: size.lines,
        utf16: size.utf16,
        tier_makes_room: tier_makes_room(lib, now),
    })
}

/// The first secret the audit's `secret-in-memory` would report in the new entry (`text`) or
/// its index line (`line`), as a refusal that names the line and the kind, never the value.
fn secret_refusal(file: &str, text: &str, line: &str) -> Option<Refusal> {
    let (at, what, kind) = if let Some((r, kind)) = rules::secrets(text).into_iter().next() {
        let n = 1 + text[..r.start].matches('\n').count();
        (Some(n), "would hold", kind)
    } else {
        let (_, kind) = rules::secrets(line).into_iter().next()?;
        (None, "its line in MEMORY.md would hold", kind)
    };
    Some(Refusal {
        file: file.to_owned(),
        line: at,
        why: format!(
            "{what} what looks like {kind} (value not shown); memories are plain text, loaded \
             into sessions and often synced or committed"
        ),
    })
}

/// Whether `ccmem tier` (its default target) would leave MEMORY.md under the client's cap,
/// so that an entry added afterwards can load: its plan, made here and not written.
fn tier_makes_room(lib: &Library, now: Timestamp) -> bool {
    let opts = super::Options {
        now,
        ..super::Options::default()
    };
    let cap = super::budget::CAP;
    super::plan::plan(lib, &opts)
        .is_ok_and(|p| p.after.lines < cap.lines && p.after.utf16 < cap.utf16)
}

/// A way to place the index line: the files it changes besides the entry.
struct Candidate {
    files: Vec<FilePlan>,
    placement: Placement,
}

/// The placements, in order of preference (see the module documentation).
fn candidates(
    lib: &Library,
    req: &Request,
    line: &str,
    target: Target,
    now: Timestamp,
) -> Vec<Candidate> {
    let index_text = lib.index_text();
    let in_index = insert_entry(index_text, line, &req.kind, &req.topic);
    let index = |new: String| FilePlan {
        name: INDEX.to_owned(),
        old: lib.index().map(|_| index_text.to_owned()),
        new,
    };
    let key = names::key(req.group.as_deref().unwrap_or(&req.kind));
    let hub = names::hub_file(&key);
    let hub_loaded = lib
        .find(&hub)
        .is_some_and(|h| lib.reach()[h] == Reach::Direct);
    let old_hub = topic(lib, &hub).map(|f| text_of(f).to_owned());
    let hub_plan = || {
        let base = old_hub.clone().unwrap_or_else(|| {
            new_hub(
                lib.spec(),
                &hub,
                req.group.as_deref().unwrap_or(&req.kind),
                now,
            )
        });
        FilePlan {
            name: hub.clone(),
            old: old_hub.clone(),
            new: append_line(&base, line),
        }
    };
    let in_hub = |pointer_added| Placement::Hub {
        hub: hub.clone(),
        pointer_added,
    };
    let mut out = Vec::new();
    if target.fits(measure(&in_index)) {
        out.push(Candidate {
            files: vec![index(in_index.clone())],
            placement: Placement::Index,
        });
    }
    if hub_loaded {
        out.push(Candidate {
            files: vec![hub_plan()],
            placement: in_hub(false),
        });
    }
    out.push(Candidate {
        files: vec![index(in_index)],
        placement: Placement::Index,
    });
    if !hub_loaded {
        let title = req.group.as_deref().unwrap_or(&req.kind);
        let pointer = format!(
            "- [{}]({hub}) — hub of the {title} entries",
            capitalized(title)
        );
        out.push(Candidate {
            files: vec![hub_plan(), index(insert_pointer(index_text, &pointer))],
            placement: in_hub(true),
        });
    }
    out
}

/// Whether `file` is reached from the loaded part of MEMORY.md in `after`, and nothing the
/// loaded part reached in `before` is lost.
fn loads(before: &Library, after: &Library, file: &str) -> bool {
    let reached =
        |lib: &Library, i: usize| matches!(lib.reach()[i], Reach::Direct | Reach::ViaHub(_));
    let new = after.find(file).is_some_and(|i| reached(after, i));
    let kept = (0..before.files.len())
        .filter(|&i| reached(before, i))
        .all(|i| {
            after
                .find(&before.files[i].rel)
                .is_some_and(|j| reached(after, j))
        });
    new && kept
}
/// The most similar existing memory, by the audit's own comparison ([`similar::of_memory`]).
fn nearest(lib: &Library, file: &str, text: &str) -> Option<Similar> {
    let new = MemFile::from_text(&lib.root, file.to_owned(), text.to_owned());
    let mine = similar::of_memory(&new)?;
    lib.files
        .iter()
        .filter_map(|f| {
            Some(Similar {
                file: f.rel.clone(),
                similarity: similarity(&mine, &similar::of_memory(f)?),
            })
        })
        .max_by(|a, b| (a.similarity.total_cmp(&b.similarity)).then(b.file.cmp(&a.file)))
}

#[cfg(test)]
mod tests;
