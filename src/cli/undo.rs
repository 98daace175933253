//! `ccmem undo`: reverse the last committed `tier` or `add` (undoing twice redoes).
//!
//! JSON (`--json`): `{folder, recovered, undone: {op, files}}`.

use std::io::Write;
use std::path::PathBuf;

use super::ClientArgs;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::write;

/// Restore the memory folder to its state before the last ccmem write, byte for byte.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The memory folder (default: the auto-memory folder of the current project).
    #[arg(value_name = "MEMORY_DIR")]
    dir: Option<PathBuf>,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    client: ClientArgs,
}

/// Runs the command.
pub fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let folder = super::tier::memory_dir(args.dir, &args.client, process)?;
    let lock = write::lock(&folder)?;
    let recovered = lock.recover()?;
    let undone = lock.undo()?;
    drop(lock);
    let mut out = std::io::stdout().lock();
    if args.json {
        let v = serde_json::json!({
            "folder": folder.display().to_string(),
            "recovered": recovered,
            "undone": undone,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        if let Some(r) = recovered {
            writeln!(
                out,
                "recovered an interrupted run first: {}",
                serde_json::to_string(&r)?
            )?;
        }
        writeln!(
            out,
            "{}: {} ({} files restored)",
            folder.display(),
            undone.op,
            undone.files.len()
        )?;
        for f in &undone.files {
            writeln!(out, "  {f}")?;
        }
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
