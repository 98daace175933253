//! `ccmem add`: the entry written (or planned) and where its index line went, or why it was
//! refused, for a person or as JSON.
//!
//! JSON (`ccmem.add/1`): `{folder, new_folder, recovered, pending, file, spec, placed_in,
//! placement, line, similar: {file, similarity} | null, dry_run, files: [{name, created,
//! link_to?}], written}`; refused (exit 1): `{folder, file, refused: "near-duplicate" |
//! "secret" | "index-past-cap", message, similar, fix, written: null}`.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::memory::Spec;
use crate::text::escape::Shown;
use crate::tier::add::run::Added;
use crate::tier::add::{AddError, Placement, Similar};
use crate::write::{Applied, Recovered};

const SCHEMA: &str = "ccmem.add/1";

/// `text` with every secret the audit's `secret-in-memory` finds replaced by a mark: an entry
/// written with `--allow-secret` still never has its secret echoed (terminals and CI logs keep
/// what they print), as no audit view prints one.
fn masked(text: &str) -> Cow<'_, str> {
    let found = crate::rules::secrets(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (range, _) in found {
        if range.start < at {
            continue;
        }
        out.push_str(&text[at..range.start]);
        out.push_str("[secret not shown]");
        at = range.end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

#[derive(Serialize)]
struct FileView<'a> {
    name: &'a str,
    created: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    link_to: Option<&'a str>,
}

#[derive(Serialize)]
struct AddedView<'a> {
    folder: String,
    new_folder: bool,
    recovered: Option<&'a Recovered>,
    pending: bool,
    file: &'a str,
    spec: Spec,
    placed_in: &'a str,
    placement: &'a Placement,
    line: &'a str,
    similar: Option<&'a Similar>,
    dry_run: bool,
    files: Vec<FileView<'a>>,
    written: Option<&'a Applied>,
}

/// The entry added (or planned, `dry_run`) in `folder`, as JSON.
pub fn json(folder: &Path, a: &Added, dry_run: bool) -> String {
    let plan = &a.plan;
    let line = masked(&plan.line);
    let view = AddedView {
        folder: folder.display().to_string(),
        new_folder: a.new_folder,
        recovered: a.recovered.as_ref(),
        pending: a.pending.is_some(),
        file: &plan.files[0].name,
        spec: plan.spec,
        placed_in: plan.placed_in(),
        placement: &plan.placement,
        line: &line,
        similar: plan.similar.as_ref(),
        dry_run,
        files: (plan.files.iter().zip(&a.link_to))
            .map(|(f, to)| FileView {
                name: &f.name,
                created: f.old.is_none(),
                link_to: to.as_deref(),
            })
            .collect(),
        written: a.written.as_ref(),
    };
    super::json::document(SCHEMA, &view)
}

/// The entry added (or planned, `dry_run`) in `folder`, for a person; a dry run shows each
/// file as it would be written. `named`: the folder was named on the command line (the undo
/// command names it too).
pub fn human(folder: &Path, a: &Added, dry_run: bool, named: bool) -> String {
    let mut out = String::new();
    let _ = write_human(&mut out, folder, a, dry_run, named);
    out
}

fn write_human(
    out: &mut String,
    folder: &Path,
    a: &Added,
    dry_run: bool,
    named: bool,
) -> std::fmt::Result {
    let plan = &a.plan;
    if let Some(r) = &a.recovered {
        writeln!(out, "{}", super::writes::recovered_line(r))?;
    }
    if let Some(pending) = &a.pending {
        writeln!(out, "{}", super::writes::pending_note(pending.as_ref()))?;
    }
    let verb = if dry_run { "would create" } else { "created" };
    if a.new_folder {
        writeln!(
            out,
            "{verb} the memory folder {} (the client creates it on its first write too)",
            Shown(&folder.to_string_lossy())
        )?;
    }
    writeln!(
        out,
        "{verb} {} ({} write spec); index line in {}:",
        Shown(&plan.files[0].name),
        plan.spec,
        Shown(plan.placed_in())
    )?;
    writeln!(out, "  {}", Shown(&masked(&plan.line)))?;
    if let Placement::Hub {
        hub,
        pointer_added: true,
    } = &plan.placement
    {
        writeln!(out, "MEMORY.md now links {}.", Shown(hub))?;
    }
    if let Some(s) = &plan.similar {
        writeln!(
            out,
            "closest existing memory: {} (similarity {:.2})",
            Shown(&s.file),
            s.similarity
        )?;
    }
    if !dry_run {
        return writeln!(
            out,
            "Undo with `{}`.",
            super::writes::undo_command(folder, named)
        );
    }
    for (f, to) in plan.files.iter().zip(&a.link_to) {
        match to {
            Some(to) => writeln!(
                out,
                "\n--- {} -> {} (a symbolic link: {} is written, the link is kept)\n{}",
                Shown(&f.name),
                Shown(to),
                Shown(to),
                masked(&f.new)
            )?,
            None => writeln!(out, "\n--- {}\n{}", Shown(&f.name), masked(&f.new))?,
        }
    }
    writeln!(out, "Dry run: nothing written.")
}

/// What refused the addition, and how to go on.
struct Refusal<'a> {
    kind: &'static str,
    similar: Option<&'a Similar>,
    fix: String,
}

fn refusal<'a>(folder: &Path, why: &'a AddError) -> Refusal<'a> {
    match why {
        AddError::Duplicate { of, .. } => Refusal {
            kind: "near-duplicate",
            similar: Some(of),
            fix: format!("update {} instead, or run again with --force", of.file),
        },
        AddError::Secret { refusal } => Refusal {
            kind: "secret",
            similar: None,
            fix: format!(
                "keep the secret in a secret manager and take it out of the {} (say where it \
                 lives instead), or run again with --allow-secret",
                if refusal.line.is_some() {
                    "description, --why, --how-to-apply or body"
                } else {
                    "title or description"
                }
            ),
        },
        AddError::Exists(r) => Refusal {
            kind: "exists",
            similar: None,
            fix: format!("edit {} instead, or pick another --topic", r.file),
        },
        AddError::Dark {
            tier_makes_room: false,
            ..
        } => Refusal {
            kind: "index-past-cap",
            similar: None,
            fix: "move MEMORY.md's plain rule lines to CLAUDE.md, then add it again".to_owned(),
        },
        _ => Refusal {
            kind: "index-past-cap",
            similar: None,
            fix: format!(
                "ccmem tier {} --write",
                shell_words::quote(&folder.to_string_lossy())
            ),
        },
    }
}

#[derive(Serialize)]
struct RefusedView<'a> {
    folder: String,
    file: &'a str,
    refused: &'static str,
    message: String,
    similar: Option<&'a Similar>,
    fix: String,
    written: Option<()>,
}

/// A finding that stopped the addition of `file` (exit 1), as JSON.
pub fn refused_json(folder: &Path, file: &str, why: &AddError) -> String {
    let r = refusal(folder, why);
    let view = RefusedView {
        folder: folder.display().to_string(),
        file,
        refused: r.kind,
        message: why.to_string(),
        similar: r.similar,
        fix: r.fix,
        written: None,
    };
    super::json::document(SCHEMA, &view)
}

/// A finding that stopped the addition (exit 1), for a person: what, and the fix.
pub fn refused_human(folder: &Path, why: &AddError) -> String {
    let r = refusal(folder, why);
    let first = match why {
        AddError::Duplicate { .. } | AddError::Exists(_) | AddError::Secret { .. } => {
            format!("ccmem add: {}", Shown(&why.to_string()))
        }
        _ => format!(
            "ccmem add: {}: {}",
            Shown(&folder.to_string_lossy()),
            Shown(&why.to_string())
        ),
    };
    format!("{first}\n  fix: {}\n", Shown(&r.fix))
}
