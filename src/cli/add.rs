//! `ccmem add`: write a typed entry `<type>_<topic>.md` and its index line where the budget
//! allows, refusing near-duplicates.
//!
//! JSON (`--json`): `{folder, file, placed_in, line, similar: [file, score] | null, dry_run,
//! files: [{name, created, diff}], written}`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use super::ClientArgs;
use crate::constants::INDEX_FILE;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::memory::Config;
use crate::tier::add::{Request, plan_add};
use crate::tier::budget::Target;
use crate::tier::check_readable;
use crate::write;

/// Add one memory entry with frontmatter, indexed where the budget allows.
#[derive(Debug, clap::Args)]
pub struct Args {
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
    /// Why (required for feedback unless the body has a `**Why:**` line).
    #[arg(long, value_name = "W")]
    why: Option<String>,
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
pub fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let folder = super::tier::memory_dir(args.dir.clone(), &args.client, process)?;
    let body = match &args.body_file {
        Some(p) => {
            let bytes = crate::fsread::read_capped(p, 1 << 20)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            Some(String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8", p.display()))?)
        }
        None => None,
    };
    let config = Config::find(&folder, None)?;
    let (lines, utf16) = config.0.target();
    let target = Target { lines, utf16 };
    let req = Request {
        kind: args.kind,
        topic: args.topic,
        description: args.description,
        why: args.why,
        group: args.group,
        body,
        force: args.force,
    };
    let lock = write::lock(&folder)?;
    let recovered = lock.recover()?;
    let lib = super::tier::load_library(&folder, &config, process)?;
    let index_exists = check_readable(&lib, true)?;
    // `CCMEM_NOW` pins the clock (as for `audit`), so runs can be compared byte for byte.
    let now = match process.var("CCMEM_NOW") {
        Some(t) => t
            .parse::<jiff::Timestamp>()
            .map_err(|e| anyhow::anyhow!("CCMEM_NOW: {e}"))?,
        None => jiff::Timestamp::now(),
    };
    let modified = now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    let mut plan = plan_add(&lib, &req, target, &modified)?;
    if !index_exists {
        for f in &mut plan.files {
            if f.name == INDEX_FILE {
                f.old = None;
            }
        }
    }
    let written = if args.dry_run {
        None
    } else {
        let op = format!("add {}", plan.files[0].name);
        Some(lock.apply(&op, &super::tier::changes_of(&plan.files))?)
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
            "recovered": recovered,
            "file": plan.files[0].name,
            "placed_in": plan.placed_in,
            "line": plan.line,
            "similar": plan.similar,
            "dry_run": args.dry_run,
            "files": files,
            "written": written,
        });
        let v = super::output::with_schema("ccmem.add/1", v);
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        let verb = if args.dry_run {
            "would create"
        } else {
            "created"
        };
        writeln!(
            out,
            "{verb} {}; index line in {}:",
            plan.files[0].name, plan.placed_in
        )?;
        writeln!(out, "  {}", plan.line)?;
        if let Some((f, s)) = &plan.similar {
            writeln!(out, "closest existing entry: {f} (similarity {s:.2})")?;
        }
        if args.dry_run {
            for f in &plan.files {
                writeln!(out, "\n--- {}\n{}", f.name, f.new)?;
            }
        }
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
