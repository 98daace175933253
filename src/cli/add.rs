//! `ccmem add`: write one memory `<type>_<topic>.md` in the library's write spec and its index
//! line where the client will load it (see [`crate::tier::add`]). A memory folder that does not
//! exist yet (a project's first memory) is created, as the client creates it on its first
//! write; a dry run only says it would be.
//!
//! Exit status: 0 written (or, with `--dry-run`, planned); 1 refused as a finding, nothing
//! written: a near-duplicate exists, or no placement would load (MEMORY.md past the client's
//! cap); 2 a usage or I/O error (unknown type, a topic the library's spec rejects, the file
//! exists, an unreadable MEMORY.md…).
//!
//! JSON (`--json`): `{folder, new_folder, recovered, pending, file, spec, placed_in,
//! placement, line, similar: {file, similarity} | null, dry_run, files: [{name, created}],
//! written}`; refused (exit 1): `{folder, file, refused: "near-duplicate" | "index-past-cap",
//! message, similar, fix, written: null}` (both `ccmem.add/1`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::ClientArgs;
use crate::constants::SESSION_ID_ENV;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::tier::add::{AddError, Placement, Request, plan_add};
use crate::tier::budget::Target;
use crate::tier::{check_readable, check_writes};
use crate::write;

/// Add one memory entry with frontmatter, indexed where the budget allows.
///
/// Exit status: 0 written (or planned), 1 refused with nothing written (a near-duplicate, or
/// an index past the client's cap), 2 usage or I/O error.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The memory folder (default: the auto-memory folder of the current project).
    #[arg(value_name = "MEMORY_DIR")]
    dir: Option<PathBuf>,
    /// Entry type: user, feedback, project or reference.
    #[arg(long = "type", value_name = "T")]
    kind: String,
    /// Topic slug: the file is `<type>_<topic>.md`.
    #[arg(long, value_name = "X")]
    topic: String,
    /// One-line description (used in the index line and the frontmatter).
    #[arg(long, value_name = "D")]
    description: String,
    /// The index line's title (default: from the topic).
    #[arg(long, value_name = "T")]
    title: Option<String>,
    /// Why (required for feedback, and for project in the client's write spec, unless the body
    /// has a `**Why:**` line).
    #[arg(long, value_name = "W")]
    why: Option<String>,
    /// How to apply (the client's template asks for it in feedback and project memories).
    #[arg(long, value_name = "H")]
    how_to_apply: Option<String>,
    /// Group (hub) used when MEMORY.md is full (default: the type).
    #[arg(long, value_name = "G")]
    group: Option<String>,
    /// Read the body from this file.
    #[arg(long, value_name = "F")]
    body_file: Option<PathBuf>,
    /// Create even when a near-duplicate exists.
    #[arg(long)]
    force: bool,
    /// Show what would be written, write nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    client: ClientArgs,
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let folder = match args.dir.clone() {
        Some(dir) if is_missing(&dir) => {
            let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(p) = parent.filter(|p| !p.is_dir()) {
                anyhow::bail!(
                    "{}: no such memory folder, nor its parent {}: check the path (add creates \
                     the memory folder itself, not the folders above it)",
                    dir.display(),
                    p.display()
                );
            }
            dir
        }
        arg => super::tier::memory_dir(arg, &args.client, process)?,
    };
    // The project's first memory: the client creates its folder on its first write, so does add.
    let new_folder = is_missing(&folder);
    let body = match &args.body_file {
        Some(p) => {
            let bytes = crate::fsread::read_capped(p, 1 << 20)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            Some(String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8", p.display()))?)
        }
        None => None,
    };
    let config = super::config::load(&folder, None)?;
    let (lines, utf16) = config.target();
    let target = Target { lines, utf16 };
    let req = Request {
        kind: args.kind,
        topic: args.topic,
        title: args.title,
        description: args.description,
        why: args.why,
        how: args.how_to_apply,
        group: args.group,
        body,
        force: args.force,
        session: process.var(SESSION_ID_ENV).map(str::to_owned),
    };
    // A dry run takes no lock and finishes no interrupted write: it writes nothing at all. A
    // new folder is created only once the plan stands (a refusal creates nothing).
    let lock = if args.dry_run || new_folder {
        None
    } else {
        Some(write::lock(&folder)?)
    };
    let recovered = match &lock {
        Some(l) => l.recover()?,
        None => None,
    };
    let pending = lock.is_none() && !new_folder && write::needs_recovery(&folder);
    let lib = if new_folder {
        crate::memory::Library::from_texts(&folder, config.clone(), Vec::<(String, String)>::new())
    } else {
        super::tier::load_library(&folder, &config, process)?
    };
    check_readable(&lib, true)?;
    let now = super::tier::now(process)?;
    let plan = match plan_add(&lib, &req, target, now) {
        Ok(plan) => plan,
        Err(AddError::Refused(r)) => return Err(r.into()),
        Err(finding) => {
            drop(lock);
            let file = format!("{}_{}.md", req.kind, req.topic);
            return refuse(&folder, &file, &finding);
        }
    };
    check_writes(&lib, &plan.files)?;
    let lock = match lock {
        None if new_folder && !args.dry_run => {
            write::create_folder(&folder)?;
            Some(write::lock(&folder)?)
        }
        lock => lock,
    };
    let written = match &lock {
        Some(lock) => {
            let op = format!("add {}", plan.files[0].name);
            Some(lock.apply(&op, &super::tier::changes_of(&plan.files))?)
        }
        None => None,
    };
    drop(lock);
    let mut out = super::output::stdout_plain();
    if super::output::json() {
        let files: Vec<_> = plan
            .files
            .iter()
            .map(|f| serde_json::json!({"name": f.name, "created": f.old.is_none()}))
            .collect();
        let v = serde_json::json!({
            "folder": folder.display().to_string(),
            "new_folder": new_folder,
            "recovered": recovered,
            "pending": pending,
            "file": plan.files[0].name,
            "spec": plan.spec,
            "placed_in": plan.placed_in(),
            "placement": plan.placement,
            "line": plan.line,
            "similar": plan.similar,
            "dry_run": args.dry_run,
            "files": files,
            "written": written,
        });
        let v = super::output::with_schema("ccmem.add/1", v);
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        if let Some(r) = &recovered {
            writeln!(out, "{}", super::tier::recovered_line(r))?;
        }
        if pending {
            writeln!(
                out,
                "note: an interrupted ccmem write is pending here; this dry run left it as it \
                 is (`ccmem undo` or the next write finishes it first)"
            )?;
        }
        let verb = if args.dry_run {
            "would create"
        } else {
            "created"
        };
        if new_folder {
            writeln!(
                out,
                "{verb} the memory folder {} (the client creates it on its first write too)",
                folder.display()
            )?;
        }
        writeln!(
            out,
            "{verb} {} ({} write spec); index line in {}:",
            plan.files[0].name,
            plan.spec,
            plan.placed_in()
        )?;
        writeln!(out, "  {}", plan.line)?;
        if let Placement::Hub {
            hub,
            pointer_added: true,
        } = &plan.placement
        {
            writeln!(out, "MEMORY.md now links {hub}.")?;
        }
        if let Some(s) = &plan.similar {
            writeln!(
                out,
                "closest existing memory: {} (similarity {:.2})",
                s.file, s.similarity
            )?;
        }
        if args.dry_run {
            for f in &plan.files {
                writeln!(out, "\n--- {}\n{}", f.name, f.new)?;
            }
            writeln!(out, "Dry run: nothing written.")?;
        } else {
            writeln!(out, "Undo with `ccmem undo`.")?;
        }
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}

/// Whether nothing is at `path` (not even a dangling link).
fn is_missing(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

/// A finding that stops the addition (a near-duplicate, or nothing would load): says so and
/// how to go on (exit 1), writes nothing.
fn refuse(folder: &Path, file: &str, why: &AddError) -> anyhow::Result<ExitStatus> {
    let (kind, similar, fix) = match why {
        AddError::Duplicate { of, .. } => (
            "near-duplicate",
            Some(of),
            format!("update {} instead, or run again with --force", of.file),
        ),
        AddError::Dark {
            tier_makes_room: false,
            ..
        } => (
            "index-past-cap",
            None,
            "move MEMORY.md's plain rule lines to CLAUDE.md, then add it again".to_owned(),
        ),
        _ => (
            "index-past-cap",
            None,
            format!("ccmem tier {} --write", folder.display()),
        ),
    };
    let mut out = super::output::stdout_plain();
    if super::output::json() {
        let v = serde_json::json!({
            "folder": folder.display().to_string(),
            "file": file,
            "refused": kind,
            "message": why.to_string(),
            "similar": similar,
            "fix": fix,
            "written": null,
        });
        let v = super::output::with_schema("ccmem.add/1", v);
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        match why {
            AddError::Duplicate { .. } => writeln!(out, "ccmem add: {why}")?,
            _ => writeln!(out, "ccmem add: {}: {why}", folder.display())?,
        }
        writeln!(out, "  fix: {fix}")?;
    }
    out.flush()?;
    Ok(ExitStatus::Findings)
}
