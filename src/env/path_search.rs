//! A program found on `PATH`, in its absolute entries only.

use std::path::{Path, PathBuf};

/// What a search of `PATH` for a program found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathHit {
    /// The first executable of that name in an absolute entry: an absolute path.
    pub found: Option<PathBuf>,
    /// Relative entries (`bin`, `.`, `node_modules/.bin`, an empty one) that were skipped
    /// although they hold an executable of that name here.
    pub skipped: Vec<PathBuf>,
}

/// Finds the program `name` (no `/`) on `path` the way git and Go's `exec.LookPath` do: only in
/// absolute entries. A relative entry (and an empty one, which means `.`) names a folder of
/// whatever directory the process happens to run in, often a repository just cloned, whose own
/// `bin/ccmem` or `node_modules/.bin/claude` would then run; it is skipped, and reported when it
/// holds such a program, so the caller can say why.
pub fn find_on_path(path: Option<&str>, name: &str) -> PathHit {
    let mut hit = PathHit::default();
    let entries = std::env::split_paths(path.unwrap_or(""));
    for dir in entries {
        let candidate = dir.join(name);
        if !dir.is_absolute() {
            if is_executable(&candidate) && !hit.skipped.contains(&dir) {
                hit.skipped.push(dir);
            }
            continue;
        }
        if hit.found.is_none() && is_executable(&candidate) {
            hit.found = Some(candidate);
        }
    }
    hit
}

/// A regular file someone may execute.
pub fn is_executable(p: &Path) -> bool {
    crate::sys::is_executable(p)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    // Unix only: an executable is a file with an exec bit and a `#!` line, PATH is `:`-separated.
    #[test]
    fn path_search_skips_relative_entries() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let abs = t.path().join("abs");
        std::fs::create_dir_all(&abs).unwrap();
        let exe = |p: &Path| {
            std::fs::write(p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        exe(&abs.join("tool"));
        // A relative entry that holds the program here, wherever the process runs: skipped
        // and named; the absolute entry after it wins.
        let rel = Path::new("target/ccmem-path-test-rel");
        std::fs::create_dir_all(rel).unwrap();
        exe(&rel.join("tool"));
        let path = format!("{}::.:{}", rel.display(), abs.display());
        let hit = find_on_path(Some(&path), "tool");
        assert_eq!(hit.found, Some(abs.join("tool")));
        assert_eq!(hit.skipped, vec![rel.to_path_buf()]);
        let only_relative = find_on_path(Some(&rel.display().to_string()), "tool");
        assert_eq!(only_relative.found, None);
        assert_eq!(find_on_path(None, "tool"), PathHit::default());
        std::fs::remove_dir_all(rel).unwrap();
    }
}
