//! What one load learns about the file system, asked once.
//!
//! The client `lstat`s the same rule directory up to three times, every instruction file twice,
//! and looks for `.git` from four places; within one load it takes the file system as stable,
//! so the answers are kept here and forgotten by [`reset`] at the start of every load (a
//! process that loads more than once, such as the tests or a sweep, never sees a stale answer).

use std::cell::RefCell;
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

/// An `lstat` answer: the metadata, or the error's kind and OS code (`io::Error` is not `Clone`).
type LstatAnswer = Result<Metadata, (io::ErrorKind, Option<i32>)>;

/// Paths are keyed by their bytes: hashing a `Path` walks its components, which cost more
/// than the memo saved (every path here is built the same way, so bytes compare as paths do).
/// The maps hash with foldhash: SipHash's resistance to chosen keys buys nothing for paths the
/// loader builds itself, and hashing was a tenth of a load's instructions.
#[derive(Default)]
struct Memo {
    /// `lstat` answers: the metadata, or the error's kind and OS code.
    lstat: foldhash::HashMap<Vec<u8>, LstatAnswer>,
    /// Real paths of directories.
    real_dirs: foldhash::HashMap<Vec<u8>, PathBuf>,
    /// `(git root, main checkout root)` of a start directory.
    git: foldhash::HashMap<PathBuf, Option<(PathBuf, PathBuf)>>,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// Forgets everything: called at the start of every load. The path maps start with room for
/// a load of a deep project (growing them rehashed every key several times).
pub fn reset() {
    MEMO.with(|m| {
        *m.borrow_mut() = Memo {
            lstat: foldhash::HashMap::with_capacity_and_hasher(256, Default::default()),
            real_dirs: foldhash::HashMap::with_capacity_and_hasher(64, Default::default()),
            git: foldhash::HashMap::default(),
        }
    });
}

/// `lstat(path)`, asked once per load.
pub fn lstat(path: &Path) -> io::Result<Metadata> {
    let key = path.as_os_str().as_encoded_bytes();
    if let Some(hit) = MEMO.with(|m| m.borrow().lstat.get(key).cloned()) {
        return hit.map_err(rebuild);
    }
    let answer = path.symlink_metadata();
    let kept = match &answer {
        Ok(meta) => Ok(meta.clone()),
        Err(e) => Err((e.kind(), e.raw_os_error())),
    };
    MEMO.with(|m| m.borrow_mut().lstat.insert(key.to_vec(), kept));
    answer
}

fn rebuild((kind, code): (io::ErrorKind, Option<i32>)) -> io::Error {
    code.map_or_else(|| io::Error::from(kind), io::Error::from_raw_os_error)
}

/// The real path of a directory: `realpath(parent) + name` when `dir` is not a symlink, so a
/// walk costs one `lstat` per directory instead of a `readlink` per component of every path.
pub fn real_dir(dir: &Path) -> io::Result<PathBuf> {
    let key = dir.as_os_str().as_encoded_bytes();
    if let Some(real) = MEMO.with(|m| m.borrow().real_dirs.get(key).cloned()) {
        return Ok(real);
    }
    let real = match (dir.parent(), dir.file_name()) {
        (Some(parent), Some(name))
            if !parent.as_os_str().is_empty() && !lstat(dir)?.file_type().is_symlink() =>
        {
            real_dir(parent)?.join(name)
        }
        _ => std::fs::canonicalize(dir)?,
    };
    MEMO.with(|m| m.borrow_mut().real_dirs.insert(key.to_vec(), real.clone()));
    Ok(real)
}

/// `(git root, main checkout root)` of `start` (see [`super::git`]), found once per load.
pub fn git_roots(start: &Path) -> Option<(PathBuf, PathBuf)> {
    if let Some(hit) = MEMO.with(|m| m.borrow().git.get(start).cloned()) {
        return hit;
    }
    let roots = super::git::git_root(start).map(|root| {
        let main = super::git::canonical_root(&root);
        (root, main)
    });
    MEMO.with(|m| {
        m.borrow_mut()
            .git
            .insert(start.to_path_buf(), roots.clone())
    });
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_kept_until_reset() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("f");
        reset();
        assert_eq!(
            lstat(&f).unwrap_err().kind(),
            io::ErrorKind::NotFound,
            "nothing there yet"
        );
        std::fs::write(&f, "x").unwrap();
        assert!(
            lstat(&f).is_err(),
            "within one load the first answer stands"
        );
        reset();
        assert!(lstat(&f).unwrap().is_file());
    }

    #[test]
    fn error_codes_survive_the_memo() {
        let t = tempfile::tempdir().unwrap();
        let a = t.path().join("a");
        std::os::unix::fs::symlink(&a, &a).unwrap();
        let inside = a.join("x");
        reset();
        let first = lstat(&inside).unwrap_err().raw_os_error();
        let again = lstat(&inside).unwrap_err().raw_os_error();
        assert_eq!(first, Some(libc::ELOOP));
        assert_eq!(again, first);
    }

    #[test]
    fn git_roots_are_found_once() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        std::fs::create_dir_all(repo.join("sub")).unwrap();
        reset();
        assert_eq!(git_roots(&repo.join("sub")), None);
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(git_roots(&repo.join("sub")), None, "kept within a load");
        reset();
        assert_eq!(git_roots(&repo.join("sub")), Some((repo.clone(), repo)));
    }
}
