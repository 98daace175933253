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

use jiff::Timestamp;
use serde::Serialize;

use super::budget::{Target, measure};
use super::groups::HUBS_HEADING;
use super::parse::{Kind, eol_of, parse};
use super::plan::FilePlan;
use super::{Refusal, text_of, topic};
use crate::constants::{INDEX_FILE as INDEX, INDEX_LINE_GUIDE_UTF16, MEMORY_TYPES};
use crate::memory::file::{MemFile, Role, role_of};
use crate::memory::library::Reach;
use crate::memory::meta::filled;
use crate::memory::names;
use crate::memory::similar::{self, similarity};
use crate::memory::spec::{is_kebab_slug, topic_problem};
use crate::memory::{Library, Spec};
use crate::rules;
use crate::text::js::utf16_len;

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

/// The file name, after checking the request against the rules the audit applies.
fn validate(lib: &Library, req: &Request) -> Result<String, Refusal> {
    let file = format!("{}_{}.md", req.kind, req.topic);
    let refuse = |why: String| Refusal {
        file: file.clone(),
        line: None,
        why,
    };
    if !MEMORY_TYPES.contains(&req.kind.as_str()) {
        return Err(refuse(format!(
            "unknown type `{}` (one of {})",
            req.kind,
            MEMORY_TYPES.join(", ")
        )));
    }
    if let Some(problem) = topic_rule(lib.spec(), &req.topic) {
        return Err(refuse(problem));
    }
    if !matches!(role_of(&file), Role::Entry { .. }) {
        return Err(refuse(
            "is a hub's name; add writes memories (tier writes hubs)".into(),
        ));
    }
    if req.description.trim().is_empty() || req.description.contains(['\n', '\r']) {
        return Err(refuse("description must be one non-empty line".into()));
    }
    let body_has_why = req
        .body
        .as_deref()
        .is_some_and(|b| b.lines().any(|l| is_why_line(l.trim_start())));
    let needs_why = req.kind == "feedback" || (req.kind == "project" && lib.spec() == Spec::Client);
    if needs_why && req.why.is_none() && !body_has_why {
        return Err(refuse(format!(
            "a {} memory needs its Why (the audit's missing-why rule): pass --why, or start \
             a line of the body with `**Why:**`",
            req.kind
        )));
    }
    Ok(file)
}

/// Why `topic` breaks the naming rule of the library's spec, with a topic that would not:
/// claude-memory-manager's `bad-file-name` (the topic of `<type>_<topic>.md`), or, in the
/// client's spec, `name-not-slug` (the `name:` add makes from the topic must be a kebab-case
/// slug; a topic that gives one is also a safe file name).
fn topic_rule(spec: Spec, topic: &str) -> Option<String> {
    let problem = match spec {
        Spec::Manager => format!(
            "{} (claude-memory-manager's bad-file-name rule)",
            topic_problem(topic)?
        ),
        Spec::Client if topic_problem(topic).is_none() && is_kebab_slug(&kebab(&[topic])) => {
            return None;
        }
        Spec::Client => "the memory's `name:` is made from the topic, and the client's write \
                         spec asks for a kebab-case slug: a-z and 0-9 in words joined by `-` or \
                         `_` (its name-not-slug rule)"
            .to_owned(),
    };
    let hint = names::key(topic);
    let hint = if hint != topic && !hint.starts_with("group-") {
        format!("; e.g. `--topic {hint}`")
    } else {
        String::new()
    };
    Some(format!("topic `{topic}`: {problem}{hint}"))
}

fn is_why_line(l: &str) -> bool {
    let l = l.to_ascii_lowercase();
    l.starts_with("**why:**")
        || l.starts_with("**why**:")
        || l.starts_with("## why")
        || l.starts_with("why:")
}

/// A YAML scalar the client reads back as written: plain when unambiguous, else
/// double-quoted (JSON escapes are valid YAML), as the client's writer quotes `,` and `: `.
fn yaml_scalar(s: &str) -> String {
    let plain = s.chars().next().is_some_and(char::is_alphanumeric)
        && s.chars()
            .all(|c| c.is_alphanumeric() || " -.()'/".contains(c))
        && !s.ends_with(' ')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "~"
        )
        && s.parse::<f64>().is_err();
    if plain {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_default()
    }
}

/// Parts joined as a kebab-case slug (`["feedback", "wild_card"]` → `feedback-wild-card`).
fn kebab(parts: &[&str]) -> String {
    (parts.iter())
        .flat_map(|p| p.split(['-', '_']))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The new memory's `name:`. The client's spec asks for a kebab-case slug of the topic
/// (`deploy-freeze` for `project_deploy_freeze.md`); a library whose own memories mostly
/// carry their type in the name (`project-deploy-freeze`) is followed. claude-memory-manager's
/// names are the file's stem.
fn memory_name(lib: &Library, req: &Request, file: &str) -> String {
    if lib.spec() == Spec::Manager {
        return file.trim_end_matches(".md").to_owned();
    }
    let (mut typed, mut plain) = (0, 0);
    for f in &lib.files {
        let (Role::Entry { kind, topic }, Some(name)) =
            (&f.role, f.meta().and_then(|m| m.name.as_deref()))
        else {
            continue;
        };
        if name.trim() == kebab(&[kind, topic]) {
            typed += 1;
        } else if name.trim() == kebab(&[topic]) {
            plain += 1;
        }
    }
    if typed > plain {
        kebab(&[&req.kind, &req.topic])
    } else {
        kebab(&[&req.topic])
    }
}

/// The new memory's text, in `spec`, named `name`.
fn entry_text(spec: Spec, req: &Request, name: &str, now: Timestamp) -> String {
    let description = yaml_scalar(req.description.trim());
    let mut t = String::from("---\n");
    match spec {
        Spec::Client => {
            t.push_str(&format!("name: {name}\n"));
            t.push_str(&format!("description: {description}\nmetadata:\n"));
            t.push_str(&format!(
                "  node_type: {}\n",
                crate::constants::NODE_TYPE_MEMORY
            ));
            t.push_str(&format!("  type: {}\n", req.kind));
            if let Some(g) = &req.group {
                t.push_str(&format!("  group: {}\n", yaml_scalar(g)));
            }
            if let Some(s) = req.session.as_deref().filter(|s| !s.trim().is_empty()) {
                t.push_str(&format!("  originSessionId: {}\n", yaml_scalar(s.trim())));
            }
            t.push_str(&format!(
                "  modified: {}\n",
                now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            ));
        }
        Spec::Manager => {
            t.push_str(&format!("name: {name}\n"));
            t.push_str(&format!("description: {description}\ntype: {}\n", req.kind));
            if let Some(g) = &req.group {
                t.push_str(&format!("group: {}\n", yaml_scalar(g)));
            }
            t.push_str(&format!("modified: {}\n", now.strftime("%Y-%m-%d")));
        }
    }
    t.push_str("---\n\n");
    let body = filled(req.body.as_deref());
    t.push_str(body.unwrap_or(req.description.trim()));
    t.push('\n');
    let (why, how) = (filled(req.why.as_deref()), filled(req.how.as_deref()));
    match spec {
        Spec::Client => {
            if why.is_some() || how.is_some() {
                t.push('\n');
            }
            if let Some(w) = why {
                t.push_str(&format!("**Why:** {w}\n"));
            }
            if let Some(h) = how {
                t.push_str(&format!("**How to apply:** {h}\n"));
            }
        }
        Spec::Manager => {
            if let Some(w) = why {
                t.push_str(&format!("\n## Why\n{w}\n"));
            }
            if let Some(h) = how {
                t.push_str(&format!("\n## How to apply\n{h}\n"));
            }
        }
    }
    t
}

/// `- [Title](file.md) — hook`, the hook cut so the line stays under the length the client
/// asks for (150 UTF-16 units).
fn index_line(req: &Request, file: &str) -> String {
    let title = match filled(req.title.as_deref()) {
        Some(t) => t.to_owned(),
        None => capitalized(&req.topic.replace(['-', '_'], " ")),
    };
    let head = format!("- [{title}]({file}) — ");
    let mut line = head;
    for c in req.description.trim().chars() {
        if utf16_len(&line) + c.len_utf16() + 1 > INDEX_LINE_GUIDE_UTF16 - 1 {
            line = line.trim_end().to_owned();
            line.push('…');
            return line;
        }
        line.push(c);
    }
    line
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
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

/// A new hub for `group`, in `spec`, stamped `modified`.
fn new_hub(spec: Spec, hub: &str, group: &str, now: Timestamp) -> String {
    let description =
        serde_json::to_string(&format!("Hub of the {group} entries")).unwrap_or_default();
    match spec {
        Spec::Client => format!(
            "---\nname: {}\ndescription: {description}\nmetadata:\n  node_type: {}\n  type: reference\n  modified: {}\n---\n\n# {}\n\n",
            names::kebab_name(hub),
            crate::constants::NODE_TYPE_MEMORY,
            now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ"),
            capitalized(group)
        ),
        Spec::Manager => format!(
            "---\nname: {}\ndescription: {description}\ntype: reference\nmodified: {}\n---\n\n# {}\n\n",
            hub.trim_end_matches(".md"),
            now.strftime("%Y-%m-%d"),
            capitalized(group)
        ),
    }
}

/// The index with the entry line of the new `<kind>_<topic>.md` added. In an index of
/// sections, under the heading whose entries link most files sharing its prefix
/// (`<kind>_<first topic word>`, else `<kind>_`), after its last entry; else in a section of its
/// own, `## <Kind>`, before tier's `## Hubs` (or at the end). In an index without sections,
/// before tier's `## Hubs` when the index ends with one, else at the end.
fn insert_entry(text: &str, line: &str, kind: &str, topic: &str) -> String {
    let idx = parse(text);
    let is_hubs = |i: usize| matches!(&idx.lines[i].kind, Kind::Heading { title, .. } if title.eq_ignore_ascii_case(HUBS_HEADING));
    let hubs = (0..idx.lines.len()).rposition(is_hubs);
    let sections: Vec<usize> = (0..idx.lines.len())
        .filter(|&i| {
            matches!(idx.lines[i].kind, Kind::Heading { .. }) && Some(i) != idx.title && !is_hubs(i)
        })
        .collect();
    let last_non_blank = |from: usize, to: usize| {
        (from..to)
            .rev()
            .find(|&i| !matches!(idx.lines[i].kind, Kind::Blank))
    };
    if sections.is_empty() {
        let last_heading = (idx.lines.iter()).rposition(|l| matches!(l.kind, Kind::Heading { .. }));
        return match hubs.filter(|&h| Some(h) == last_heading) {
            Some(h) => insert_after(text, &idx, last_non_blank(0, h), line),
            None => append_line(text, line),
        };
    }
    let first_word = topic.split(['_', '-']).next().unwrap_or(topic);
    for prefix in [format!("{kind}_{first_word}"), format!("{kind}_")] {
        let shares = |i: usize| {
            idx.lines[i].kind == Kind::Entry
                && link_targets(idx.lines[i].text).any(|t| t.starts_with(prefix.as_str()))
        };
        let best = (sections.iter().copied())
            .map(|h| {
                (
                    h,
                    (h + 1..idx.section_end(h)).filter(|&i| shares(i)).count(),
                )
            })
            .filter(|&(_, n)| n > 0)
            .max_by_key(|&(h, n)| (n, std::cmp::Reverse(h)));
        if let Some((h, _)) = best {
            let end = idx.section_end(h);
            let last_entry = (h + 1..end)
                .rev()
                .find(|&i| idx.lines[i].kind == Kind::Entry);
            return insert_after(text, &idx, last_entry.or(last_non_blank(h, end)), line);
        }
    }
    let eol = idx.eol;
    let section = format!("{eol}## {}{eol}{line}", capitalized(kind));
    match hubs {
        Some(h) => insert_after(text, &idx, last_non_blank(0, h), &section),
        None => append_line(text, &section),
    }
}

/// The targets of the Markdown links `](target)` of an index line.
fn link_targets(line: &str) -> impl Iterator<Item = &str> {
    line.split("](").skip(1).filter_map(|rest| {
        let end = rest.find([')', ' ', '#'])?;
        Some(rest[..end].trim_start_matches("./"))
    })
}

/// The index with a pointer line added: at the end of its `## Hubs` section when it has one,
/// else at the end.
fn insert_pointer(text: &str, line: &str) -> String {
    let idx = parse(text);
    let hubs = (idx.lines.iter()).position(|l| {
        matches!(&l.kind, Kind::Heading { title, .. } if title.eq_ignore_ascii_case(HUBS_HEADING))
    });
    match hubs {
        Some(h) => {
            let end = idx.section_end(h);
            let last = (h..end)
                .rev()
                .find(|&i| !matches!(idx.lines[i].kind, Kind::Blank));
            insert_after(text, &idx, last, line)
        }
        None => append_line(text, line),
    }
}

/// `text` with `line` inserted after index line `after` (`None`: before the first line).
fn insert_after(text: &str, idx: &super::parse::Index, after: Option<usize>, line: &str) -> String {
    let eol = idx.eol;
    // Byte offset where line `after + 1` starts.
    let skip = idx.frontmatter.len();
    let mut at = skip;
    if let Some(a) = after {
        let mut seen = 0;
        for (k, b) in text.bytes().enumerate().skip(skip) {
            if b == b'\n' {
                if seen == a {
                    at = k + 1;
                    break;
                }
                seen += 1;
            }
        }
        if seen < a || at == skip {
            return append_line(text, line);
        }
    }
    let mut out = String::with_capacity(text.len() + line.len() + 2);
    out.push_str(&text[..at]);
    out.push_str(line);
    out.push_str(eol);
    out.push_str(&text[at..]);
    out
}

/// `text` with `line` appended on a line of its own, in `text`'s line ending.
fn append_line(text: &str, line: &str) -> String {
    let eol = eol_of(text);
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(line);
    out.push_str(eol);
    out
}

pub mod run;

#[cfg(test)]
mod tests;
