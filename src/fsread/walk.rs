//! The one walk of a memory folder: every `.md` file below it, descending into subfolders
//! (following links to folders at most once each, so a symlink loop ends), skipping hidden
//! entries (`.git`, ccmem's own `.ccmem/`), and listing every name ending in `.md` whatever it
//! is (a FIFO or a dangling link named `x.md` is listed so the audit can report it). Names are
//! sorted for a stable output. The memory library (`memory::library`) and the loader's list of
//! topic files (`load::automem::topics`) both use it.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// How deep the walk goes below the root.
pub(super) const MAX_DEPTH: usize = 8;

/// A folder that could not be listed (the walk goes on without it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkError {
    /// Path relative to the root (`""` for the root itself).
    pub rel: String,
    /// What went wrong.
    pub error: String,
}

/// One `.md` entry of the walk.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct MdEntry {
    /// Path relative to the root, `/`-separated.
    pub rel: String,
    /// The directory entry is a symbolic link (its target is read through it).
    pub symlink: bool,
}

/// Every `*.md` below `root`, sorted by relative path, plus the folders that could not be
/// listed. Fails only when the root itself cannot be listed.
pub(crate) fn md_files(root: &Path) -> std::io::Result<(Vec<MdEntry>, Vec<WalkError>)> {
    let meta = std::fs::metadata(root)?;
    let mut seen = HashSet::from([(meta.dev(), meta.ino())]);
    let mut files = Vec::new();
    let mut errors = Vec::new();
    std::fs::read_dir(root)?;
    walk(root, "", 0, &mut seen, &mut files, &mut errors);
    files.sort();
    Ok((files, errors))
}

fn walk(
    dir: &Path,
    prefix: &str,
    depth: usize,
    seen: &mut HashSet<(u64, u64)>,
    files: &mut Vec<MdEntry>,
    errors: &mut Vec<WalkError>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(WalkError {
                rel: prefix.trim_end_matches('/').to_owned(),
                error: e.to_string(),
            });
            return;
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') {
            continue;
        }
        let rel = format!("{prefix}{name}");
        let path = entry.path();
        // The directory entry's type costs no `stat`; only links are followed (to see
        // folders; a loop fails here or is caught by `seen`).
        let kind = entry.file_type();
        let may_be_dir = kind.as_ref().map_or(true, |k| k.is_dir() || k.is_symlink());
        let dir = if may_be_dir {
            std::fs::metadata(&path)
                .ok()
                .filter(|m| m.is_dir())
                .map(|m| (m.dev(), m.ino()))
        } else {
            None
        };
        match dir {
            Some(id) if depth < MAX_DEPTH && seen.insert(id) => {
                walk(&path, &format!("{rel}/"), depth + 1, seen, files, errors);
            }
            Some(_) => {}
            None if name.ends_with(".md") => files.push(MdEntry {
                rel,
                symlink: kind.as_ref().is_ok_and(|k| k.is_symlink()),
            }),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_md_files_and_survives_loops() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("MEMORY.md"), "x").unwrap();
        std::fs::write(root.join("notes.txt"), "x").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/user_a.md"), "x").unwrap();
        std::os::unix::fs::symlink(root, root.join("sub/back")).unwrap();
        std::os::unix::fs::symlink("loop.md", root.join("loop.md")).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/x.md"), "x").unwrap();
        let (files, errors) = md_files(root).unwrap();
        let rels: Vec<(&str, bool)> = files.iter().map(|f| (f.rel.as_str(), f.symlink)).collect();
        assert_eq!(
            rels,
            [
                ("MEMORY.md", false),
                ("loop.md", true),
                ("sub/user_a.md", false)
            ]
        );
        assert!(errors.is_empty());
    }

    #[test]
    fn missing_root_is_an_error() {
        assert!(md_files(Path::new("/nonexistent/ccmem")).is_err());
    }
}
