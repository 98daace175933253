//! The one walk of a memory folder: every `.md` file below it, descending into subfolders
//! (following links to folders at most once each, so a symlink loop ends), skipping hidden
//! entries (`.git`, ccmem's own `.ccmem/`), and listing every name ending in `.md` whatever it
//! is (a FIFO or a dangling link named `x.md` is listed so the audit can report it). The memory
//! library (`memory::library`) takes the entries in batches as they are found and sorts what it
//! read; [`md_files`] (tests) sorts the names.

use std::collections::HashSet;
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
    /// The directory entry says a regular file (its type from the listing, no `stat`): not a
    /// FIFO, device or socket, unless one was swapped in since.
    pub regular: bool,
}

/// Every `*.md` below `root`, sorted by relative path, plus the folders that could not be
/// listed. Fails only when the root itself cannot be listed. (The memory library reads while
/// it walks, with [`md_files_batched`].)
#[cfg(test)]
pub(crate) fn md_files(root: &Path) -> std::io::Result<(Vec<MdEntry>, Vec<WalkError>)> {
    let mut files = Vec::new();
    let errors = md_files_batched(root, usize::MAX, &mut |batch| files.extend(batch))?;
    // Relative paths are unique: no stable sort needed.
    files.sort_unstable();
    Ok((files, errors))
}

/// [`md_files`] handed over `batch` entries at a time, in the order the folders list them
/// (not sorted), as the walk finds them: the memory library reads one batch while the walk
/// lists the next. Returns the folders that could not be listed.
pub(crate) fn md_files_batched(
    root: &Path,
    batch: usize,
    on_batch: &mut dyn FnMut(Vec<MdEntry>),
) -> std::io::Result<Vec<WalkError>> {
    let meta = std::fs::metadata(root)?;
    // Which folders were entered, so a link back up is not followed twice (where the platform
    // says no identity, Windows, the depth limit alone ends a loop).
    let mut seen: HashSet<(u64, u64)> = crate::sys::file_id(&meta).into_iter().collect();
    let mut sink = Sink {
        batch,
        files: Vec::new(),
        on_batch,
    };
    let mut errors = Vec::new();
    std::fs::read_dir(root)?;
    walk(root, "", 0, &mut seen, &mut sink, &mut errors);
    if !sink.files.is_empty() {
        (sink.on_batch)(std::mem::take(&mut sink.files));
    }
    Ok(errors)
}

/// Where the walk puts what it finds.
struct Sink<'a> {
    batch: usize,
    files: Vec<MdEntry>,
    on_batch: &'a mut dyn FnMut(Vec<MdEntry>),
}

impl Sink<'_> {
    fn push(&mut self, entry: MdEntry) {
        self.files.push(entry);
        if self.files.len() >= self.batch {
            (self.on_batch)(std::mem::take(&mut self.files));
        }
    }
}

fn walk(
    dir: &Path,
    prefix: &str,
    depth: usize,
    seen: &mut HashSet<(u64, u64)>,
    files: &mut Sink<'_>,
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
        // One allocation per plain file: its name, which is its relative path at the top.
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        // The directory entry's type costs no `stat`; only links are followed (to see
        // folders; a loop fails here or is caught by `seen`).
        let kind = entry.file_type();
        let may_be_dir = kind.as_ref().map_or(true, |k| k.is_dir() || k.is_symlink());
        let path = may_be_dir.then(|| entry.path());
        let dir = path.as_ref().and_then(|path| {
            std::fs::metadata(path)
                .ok()
                .filter(|m| m.is_dir())
                .map(|m| crate::sys::file_id(&m))
        });
        match (dir, path) {
            (Some(id), Some(path)) if depth < MAX_DEPTH && id.is_none_or(|id| seen.insert(id)) => {
                walk(
                    &path,
                    &format!("{prefix}{name}/"),
                    depth + 1,
                    seen,
                    files,
                    errors,
                );
            }
            (Some(_), _) => {}
            (None, _) if name.ends_with(".md") => files.push(MdEntry {
                rel: if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}{name}")
                },
                symlink: kind.as_ref().is_ok_and(|k| k.is_symlink()),
                regular: kind.as_ref().is_ok_and(|k| k.is_file()),
            }),
            (None, _) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
    // Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
    #[cfg(unix)]
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
    fn batches_hold_every_entry_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        for i in 0..7 {
            std::fs::write(root.join(format!("f{i}.md")), "x").unwrap();
            std::fs::write(root.join(format!("sub/g{i}.md")), "x").unwrap();
        }
        let mut batches = Vec::new();
        let errors = md_files_batched(root, 3, &mut |b| batches.push(b)).unwrap();
        assert!(errors.is_empty());
        assert!(
            batches.iter().all(|b| (1..=3).contains(&b.len())),
            "{batches:?}"
        );
        let mut got: Vec<MdEntry> = batches.into_iter().flatten().collect();
        got.sort_unstable();
        assert_eq!(got, md_files(root).unwrap().0);
        assert_eq!(got.len(), 14);
    }

    #[test]
    fn missing_root_is_an_error() {
        assert!(md_files(Path::new("/nonexistent/ccmem")).is_err());
    }
}
