//! Finding a library's `.md` files: a walk of the folder that descends into subfolders
//! (following links to folders at most once each, so a symlink loop ends), skips hidden
//! entries, and lists every name ending in `.md` whatever it is (a FIFO or a dangling link named
//! `x.md` is listed so the audit can report it). Names are sorted for a stable output.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// How deep the walk goes below the root.
pub const MAX_DEPTH: usize = 8;

/// A folder that could not be listed (the walk goes on without it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkError {
    /// Path relative to the root (`""` for the root itself).
    pub rel: String,
    /// What went wrong.
    pub error: String,
}

/// Relative `/`-separated paths of every `*.md` below `root`, sorted, plus the folders that
/// could not be listed. Fails only when the root itself cannot be listed.
pub fn md_files(root: &Path) -> std::io::Result<(Vec<String>, Vec<WalkError>)> {
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
    files: &mut Vec<String>,
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
        // Follow links to see folders; a loop fails here or is caught by `seen`.
        let is_dir = std::fs::metadata(&path).map(|m| (m.is_dir(), m.dev(), m.ino()));
        match is_dir {
            Ok((true, dev, ino)) => {
                if depth < MAX_DEPTH && seen.insert((dev, ino)) {
                    walk(&path, &format!("{rel}/"), depth + 1, seen, files, errors);
                }
            }
            _ if name.ends_with(".md") => files.push(rel),
            _ => {}
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
        assert_eq!(files, ["MEMORY.md", "loop.md", "sub/user_a.md"]);
        assert!(errors.is_empty());
    }

    #[test]
    fn missing_root_is_an_error() {
        assert!(md_files(Path::new("/nonexistent/ccmem")).is_err());
    }
}
