//! The model of a repository, as `ccmem check` reads it (what [`crate::memory`] is to a memory
//! folder): [`walk::Repo::walk`] (one ignore-aware pass over the tree) → [`sessions::starts`]
//! (the root, every directory holding instruction files, every package root; bounded) →
//! [`sessions::load_all`] (one loader run per directory, [`crate::load::Detail::Startup`]: the
//! answers are the loader's, never a second model of the client; what each directory loses
//! against the root, with the loader's reason). The texts rules and renderers read are read
//! once (`Texts`).
//!
//! Sessions start in a clean environment by default (no user files, settings or approvals, no
//! managed policy: what a fresh clone shows a new teammate and CI); `--user-config` uses the
//! caller's own.

use std::path::{Path, PathBuf};

pub mod sessions;
pub mod size;
mod texts;
pub mod walk;

pub use sessions::{DirSession, Environment};
pub use size::SizeModel;
pub(crate) use texts::Texts;
pub use walk::Repo;

/// The repository a check runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// Its real path.
    pub real: PathBuf,
    /// How the user named it, or how to name it from the working directory (`.`, `../..`):
    /// paths are shown joined to it.
    pub given: PathBuf,
}

impl Root {
    /// `path` as given, else the git repository around `cwd`, else `cwd`; an error names a
    /// folder that does not exist, cannot be read or is no folder.
    pub fn find(path: Option<&Path>, cwd: &Path) -> Result<Root, String> {
        let (root, given) = match path {
            Some(p) => (p.to_path_buf(), p.to_path_buf()),
            None => {
                let root = crate::load::git::git_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
                let given = relative_to(&root, cwd);
                (root, given)
            }
        };
        let real = std::fs::canonicalize(&root).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{}: no such folder", root.display()),
            _ => format!("{}: {}", root.display(), crate::write::describe_io(&e)),
        })?;
        if !real.is_dir() {
            return Err(format!("{}: not a directory", root.display()));
        }
        // Windows: without the `\\?\` canonicalize adds, as the client writes its paths.
        let real = match real.to_str() {
            Some(s) if cfg!(windows) => {
                PathBuf::from(crate::text::path::strip_verbatim(s).as_ref())
            }
            _ => real,
        };
        Ok(Root { real, given })
    }
}

/// `root` as a path relative to `cwd` when it is `cwd` or one of its ancestors (`.`, `..`).
fn relative_to(root: &Path, cwd: &Path) -> PathBuf {
    match cwd.strip_prefix(root) {
        Ok(rest) if rest.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rest) => rest
            .components()
            .map(|_| "..")
            .collect::<Vec<_>>()
            .join("/")
            .into(),
        Err(_) => root.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_named_from_the_working_directory() {
        let name = |root: &str, cwd: &str| relative_to(Path::new(root), Path::new(cwd));
        assert_eq!(name("/r", "/r"), Path::new("."));
        assert_eq!(name("/r", "/r/a/b"), Path::new("../.."));
        assert_eq!(name("/r", "/elsewhere"), Path::new("/r"));
    }

    #[test]
    fn a_missing_root_or_a_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let err = |p: &Path| Root::find(Some(p), dir.path()).unwrap_err();
        assert_eq!(err(&file), format!("{}: not a directory", file.display()));
        let gone = dir.path().join("gone");
        assert_eq!(err(&gone), format!("{}: no such folder", gone.display()));
        let found = Root::find(None, dir.path()).unwrap();
        assert_eq!(found.given, Path::new("."));
    }
}
