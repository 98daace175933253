//! The sentences every writing command (`tier --write`, `add`, `undo`, `hook install`) says
//! about an interrupted earlier write: what recovery did before it ran, and what a dry run
//! left pending; and the command that takes a write back.

use std::path::Path;

use crate::memory::pending::Pending;
use crate::write::Recovered;

/// One sentence for what recovery did before a command ran.
pub fn recovered_line(r: &Recovered) -> String {
    match r {
        Recovered::RolledForward { op } => {
            format!("finished an interrupted `{op}` first (all its files were ready)")
        }
        Recovered::RolledBack { op, foreign } if foreign.is_empty() => {
            format!("restored the files of an interrupted `{op}` first")
        }
        Recovered::RolledBack { op, foreign } => format!(
            "restored the files of an interrupted `{op}` first ({} changed by another writer \
             since, left as they are)",
            foreign.join(", ")
        ),
        Recovered::TempsRemoved { files } => format!(
            "removed {} temp file(s) an interrupted ccmem left: {}",
            files.len(),
            files.join(", ")
        ),
    }
}

/// What a dry run says of an interrupted write it leaves as it is: its journal's operation
/// (`pending`), or, with no journal, the temp files it left.
pub fn pending_note(pending: Option<&Pending>) -> String {
    let what = match pending {
        Some(p) => p.message(),
        None => "temp files of an interrupted ccmem write are here; the next ccmem write here \
                 removes them"
            .to_owned(),
    };
    format!(
        "note: an interrupted ccmem write is pending here, and this dry run left it as it is: {what}"
    )
}

/// The command that takes back a write to `folder`: `ccmem undo`, naming the folder when it was
/// named on the command line (`named`), since `undo` alone goes to the current project's
/// auto-memory folder.
pub fn undo_command(folder: &Path, named: bool) -> String {
    if named {
        format!(
            "ccmem undo {}",
            shell_words::quote(&folder.to_string_lossy())
        )
    } else {
        "ccmem undo".to_owned()
    }
}
