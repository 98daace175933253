//! The memory library of a session's auto-memory folder: what `receipt` and the post-tool-use
//! guard read to say which topic files MEMORY.md reaches, so that they agree with `audit`
//! (`unreachable-file`) and `tier`'s proof ([`Library::reach`] is the one reachability).
//!
//! The library is the folder as the loader found it, with MEMORY.md as the client reads it at
//! that session start: the text of `CLAUDE_COWORK_MEMORY_INDEX_CONTENT` when that replaces it,
//! the index the client's backfill would write when there is none.

use std::path::{Path, PathBuf};

use super::library::{Library, LoadError, Reach};
use crate::config::Config;
use crate::constants::INDEX_FILE;
use crate::env::ClientEnv;
use crate::load::automem::{self, IndexState};

/// The auto-memory library of a session (`None` when auto memory is off or its folder cannot
/// be listed). An unusable `ccmem.toml` does not stop it: the defaults are used (the receipt
/// and the hooks do not report on configuration; `audit` does).
pub fn library(env: &ClientEnv, report: &automem::Report) -> Option<Library> {
    let root = folder(env, report)?;
    let home = Some(env.home.as_path());
    // MEMORY.md as the loader read it for this session: not read a second time.
    let load = |config: Config| match report.index_bytes.as_deref() {
        Some(index) => Library::load_with_index(&root, config, home, index),
        None => Library::load_configured(&root, config, home),
    };
    let lib = Config::find(&root, None)
        .map_err(LoadError::from)
        .and_then(load)
        .or_else(|_| load(Config::default()))
        .ok()?;
    let index = match &report.index {
        IndexState::FromEnv(_) => env
            .var("CLAUDE_COWORK_MEMORY_INDEX_CONTENT")
            .map(str::to_owned),
        IndexState::WouldGenerate { lines } => Some(automem::backfill::text(lines)),
        _ => None,
    };
    Some(match index {
        Some(text) => lib.with([(INDEX_FILE, Some(text.as_str()))]),
        None => lib,
    })
}

/// The folder of a session's auto memory on disk.
fn folder(env: &ClientEnv, report: &automem::Report) -> Option<PathBuf> {
    report.off.is_none().then_some(())?;
    Some(env.cwd.join(report.folder.as_deref()?))
}

/// Whether a reach lets the model find the file: linked from the loaded part of MEMORY.md, or
/// from a hub that part links.
pub fn reached(reach: Reach) -> bool {
    matches!(reach, Reach::Index | Reach::Direct | Reach::ViaHub(_))
}

/// The file of `lib` at absolute path `path`, if it is one: compared as given, then with both
/// sides' links resolved (a tool may name the folder through a link the client resolved).
pub fn file_at(lib: &Library, path: &Path) -> Option<usize> {
    let rel_in = |root: &Path, path: &Path| {
        let rel = path.strip_prefix(root).ok()?.to_str()?;
        lib.find(&rel.replace(std::path::MAIN_SEPARATOR, "/"))
    };
    rel_in(&lib.root, path).or_else(|| {
        let real = |p: &Path| p.canonicalize().ok();
        rel_in(&real(&lib.root)?, &real(path)?)
    })
}
