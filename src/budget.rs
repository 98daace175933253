//! `budget`: every MEMORY.md under a path measured the client's way, against its limits.
//!
//! What the widely copied `memory_budget.py` tries to do, done the client's way: the count is
//! taken after frontmatter and block-comment stripping and trimming, in lines and UTF-16 units,
//! and the cut is the client's own (lines first, then size at the last newline).
//!
//! JSON schema (`schema: "ccmem.budget/1"`): `indexes[]` with `path` and the measured `index`
//! (`state` plus, when loaded, `file_bytes`, `file_lines`, `lines`, `utf16`, `bytes`, `cut`),
//! `over` (bool) and `first_dark` (`line`, `text`) when cut; `summary` {`indexes`, `over`}.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::constants::{INDEX_FILE, MEMORY_DIR};
use crate::load::automem::{DarkLine, IndexState, measure_index};

/// The schema name of the JSON output.
pub(crate) const SCHEMA: &str = "ccmem.budget/1";

/// One measured index.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The MEMORY.md path.
    pub path: String,
    /// What the client would do with it.
    pub index: IndexState,
    /// Whether something of it never reaches the model.
    pub over: bool,
    /// The first line that goes dark.
    pub first_dark: Option<DarkLine>,
    /// An interrupted ccmem write in the index's folder (its files are half-written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<crate::memory::Pending>,
}

/// The whole sweep.
#[derive(Debug, Clone, Serialize)]
pub struct Budget {
    /// Schema name.
    pub schema: &'static str,
    /// One row per index, in path order.
    pub indexes: Vec<Row>,
    /// Counts.
    pub summary: Summary,
}

/// Counts over the sweep.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Indexes measured.
    pub indexes: usize,
    /// Indexes with dark content.
    pub over: usize,
}

/// The MEMORY.md files a path stands for: the file itself; a memory folder's index (a
/// subagent's memory folder included); for an `agent-memory` or `agent-memory-local` folder,
/// every agent's index in it; or, for a project folder or a `projects/` folder, every
/// `*/memory/MEMORY.md` below it (one level).
pub(crate) fn find_indexes(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    if path
        .file_name()
        .is_some_and(|n| n == "agent-memory" || n == "agent-memory-local")
    {
        let mut out: Vec<PathBuf> = std::fs::read_dir(path)?
            .flatten()
            .map(|e| e.path().join(INDEX_FILE))
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect();
        out.sort();
        return Ok(out);
    }
    for candidate in [
        path.join(INDEX_FILE),
        path.join(MEMORY_DIR).join(INDEX_FILE),
    ] {
        if std::fs::symlink_metadata(&candidate).is_ok() {
            return Ok(vec![candidate]);
        }
    }
    let base = if path.join(crate::constants::PROJECTS_DIR).is_dir() {
        path.join(crate::constants::PROJECTS_DIR)
    } else {
        path.to_path_buf()
    };
    let mut out: Vec<PathBuf> = std::fs::read_dir(&base)?
        .flatten()
        .map(|e| e.path().join("memory/MEMORY.md"))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .collect();
    out.sort();
    Ok(out)
}

/// Measures one index: a subagent's (in `…/agent-memory*/NAME/`) as its system prompt loads
/// it, any other as the main session loads MEMORY.md.
pub(crate) fn row(path: &Path) -> Row {
    let index = if path
        .parent()
        .is_some_and(crate::load::agent::memory::is_folder)
    {
        crate::load::agent::memory::measure_index(path)
    } else {
        measure_index(path)
    };
    let (over, first_dark) = match &index {
        IndexState::Loaded(m) | IndexState::FromEnv(m) => (
            m.cut.is_some(),
            m.cut.as_ref().and_then(|c| c.dark.first().cloned()),
        ),
        IndexState::TooLarge { .. } => (true, None),
        _ => (false, None),
    };
    let pending = path.parent().and_then(crate::memory::pending::pending);
    Row {
        path: path.to_string_lossy().into_owned(),
        index,
        over,
        first_dark,
        pending,
    }
}

/// Measures every index, calling `tick` after each (for a progress bar).
pub(crate) fn sweep(paths: &[PathBuf], mut tick: impl FnMut()) -> Budget {
    let indexes: Vec<Row> = paths
        .iter()
        .map(|p| {
            let r = row(p);
            tick();
            r
        })
        .collect();
    let over = indexes.iter().filter(|r| r.over).count();
    Budget {
        schema: SCHEMA,
        summary: Summary {
            indexes: indexes.len(),
            over,
        },
        indexes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn finds_file_folder_and_projects_sweep() {
        let t = tempfile::tempdir().unwrap();
        let projects = t.path().join("projects");
        for (name, lines) in [("a", 10), ("b", 201)] {
            let mem = projects.join(name).join("memory");
            fs::create_dir_all(&mem).unwrap();
            fs::write(mem.join("MEMORY.md"), "- x\n".repeat(lines)).unwrap();
        }
        fs::create_dir_all(projects.join("c")).unwrap();
        let all = find_indexes(t.path()).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(
            find_indexes(&projects.join("a")).unwrap(),
            [projects.join("a/memory/MEMORY.md")]
        );
        let b = sweep(&all, || {});
        assert_eq!((b.summary.indexes, b.summary.over), (2, 1));
        let dark = b.indexes[1].first_dark.as_ref().unwrap();
        assert_eq!(dark.line, 201);
        assert!(find_indexes(&t.path().join("nope")).is_err());
    }
}
