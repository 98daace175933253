//! `ccmem add`: write one memory `<type>_<topic>.md` in the library's write spec and its index
//! line where the client will load it (see [`crate::tier::add`]). A memory folder that does not
//! exist yet (a project's first memory) is created, as the client creates it on its first
//! write; a dry run only says it would be.
//!
//! Exit status: 0 written (or, with `--dry-run`, planned); 1 refused as a finding, nothing
//! written: the memory's file exists, a near-duplicate exists, what it would write looks like a
//! secret (`--allow-secret` writes it anyway), or no placement would load
//! (MEMORY.md past the client's cap); 2 a usage or I/O error (unknown type, a topic the
//! library's spec rejects, an unreadable MEMORY.md…).
//!
//! The work is the library's ([`crate::tier::add::run`]); the views are `render::add`'s.

use std::path::PathBuf;

use anyhow::Context;

use super::ClientArgs;
use crate::constants::SESSION_ID_ENV;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::render;
use crate::tier::add::Request;
use crate::tier::add::run::{self, Outcome, is_missing};
use crate::tier::budget::Target;

/// Add one memory entry with frontmatter, indexed where the budget allows.
///
/// Exit status: 0 written (or planned), 1 refused with nothing written (the file exists, a
/// near-duplicate, a secret, or an index past the client's cap), 2 usage or I/O error.
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
    /// Write even what looks like a secret (an API key, a password); the audit still reports it.
    #[arg(long)]
    allow_secret: bool,
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
    let body = match &args.body_file {
        Some(p) => {
            let bytes = crate::fsread::read_capped(p, 1 << 20)
                .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
            Some(String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8", p.display()))?)
        }
        None => None,
    };
    let memory = super::tier::open(folder, &args.client, process)?;
    let folder = memory.path.as_path();
    let (lines, utf16) = memory.config.target();
    let entry = Request {
        kind: args.kind,
        topic: args.topic,
        title: args.title,
        description: args.description,
        why: args.why,
        how: args.how_to_apply,
        group: args.group,
        body,
        force: args.force,
        allow_secret: args.allow_secret,
        session: process.var(SESSION_ID_ENV).map(str::to_owned),
    };
    let opts = run::Options {
        folder: &memory,
        target: Target { lines, utf16 },
        now: super::tier::now(process)?,
        dry_run: args.dry_run,
    };
    let json = super::output::json();
    let (text, status) = match run::run(&entry, &opts)? {
        Outcome::Added(a) if json => (
            render::add::json(folder, &a, args.dry_run),
            ExitStatus::Clean,
        ),
        Outcome::Added(a) => (
            render::add::human(folder, &a, args.dry_run, args.dir.is_some()),
            ExitStatus::Clean,
        ),
        Outcome::Refused(why) if json => {
            let file = format!("{}_{}.md", entry.kind, entry.topic);
            (
                render::add::refused_json(folder, &file, &why),
                ExitStatus::Findings,
            )
        }
        Outcome::Refused(why) => (
            render::add::refused_human(folder, &why),
            ExitStatus::Findings,
        ),
    };
    super::output::print_plain(&text)?;
    Ok(status)
}
