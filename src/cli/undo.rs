//! `ccmem undo`: reverse the last `tier --write` or `add`, byte for byte. Undoing twice is one
//! undo: the second run says so and changes nothing; `--redo` applies the undone operation again.
//!
//! JSON (`--json`): `{schema, folder, recovered, undone: {action: "reversed", op, files, merged}
//! | {action: "nothing", op, why}}`.

use std::io::Write;
use std::path::PathBuf;

use super::ClientArgs;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::write::{self, Undone};

/// Restore the memory folder to its state before the last ccmem write, byte for byte.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The memory folder (default: the auto-memory folder of the current project).
    #[arg(value_name = "MEMORY_DIR")]
    dir: Option<PathBuf>,
    /// Apply again the operation the last `undo` reversed.
    #[arg(long)]
    redo: bool,
    #[command(flatten)]
    client: ClientArgs,
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let folder = super::tier::memory_dir(args.dir, &args.client, process)?;
    let lock = write::lock(&folder)?;
    let recovered = lock.recover()?;
    let undone = if args.redo {
        lock.redo()?
    } else {
        lock.undo()?
    };
    drop(lock);
    let mut out = super::output::stdout_plain();
    if super::output::json() {
        let v = serde_json::json!({
            "schema": "ccmem.undo/1",
            "folder": folder.display().to_string(),
            "recovered": recovered,
            "undone": undone,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        if let Some(r) = &recovered {
            writeln!(out, "{}", super::tier::recovered_line(r))?;
        }
        match &undone {
            Undone::Reversed(a) => {
                let verb = if args.redo { "redid" } else { "undid" };
                let what = a.op.strip_prefix("undo of ").unwrap_or(&a.op);
                writeln!(
                    out,
                    "{}: {verb} `{what}` ({} files restored)",
                    folder.display(),
                    a.files.len()
                )?;
                for f in &a.files {
                    writeln!(out, "  {f}")?;
                }
                for m in &a.merged {
                    writeln!(
                        out,
                        "  kept {} line(s) another writer added to {} since",
                        m.lines, m.file
                    )?;
                }
            }
            Undone::Nothing { why, .. } => writeln!(out, "{}: {why}", folder.display())?,
        }
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
