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
use std::rc::Rc;

/// An `lstat` answer: the metadata, or the error's kind and OS code (`io::Error` is not `Clone`).
type LstatAnswer = Result<Metadata, (io::ErrorKind, Option<i32>)>;

/// Paths are keyed by their bytes: hashing a `Path` walks its components, which cost more
/// than the memo saved (every path here is built the same way, so bytes compare as paths do).
/// The maps hash with foldhash: SipHash's resistance to chosen keys buys nothing for paths the
/// loader builds itself.
///
/// The `lstat` answers sit in a list and the map holds their places: a `Metadata` is large,
/// and a map of them sized for a deep project would be mostly empty slots of that size.
#[derive(Default)]
struct Memo {
    /// Where each path's `lstat` answer is in [`Memo::answers`].
    lstat: foldhash::HashMap<Vec<u8>, u32>,
    /// `lstat` answers: the metadata, or the error's kind and OS code, in the order asked.
    answers: Vec<LstatAnswer>,
    /// Real paths of directories (shared: a hit is a reference count, not a copy).
    real_dirs: foldhash::HashMap<Vec<u8>, Rc<str>>,
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
            answers: Vec::with_capacity(256),
            real_dirs: foldhash::HashMap::with_capacity_and_hasher(64, Default::default()),
            git: foldhash::HashMap::default(),
        }
    });
}

/// `lstat(path)`, asked once per load.
pub fn lstat(path: &Path) -> io::Result<Metadata> {
    let key = path.as_os_str().as_encoded_bytes();
    let hit = MEMO.with(|m| {
        let m = m.borrow();
        m.lstat.get(key).map(|&at| m.answers[at as usize].clone())
    });
    if let Some(hit) = hit {
        return hit.map_err(rebuild);
    }
    let answer = path.symlink_metadata();
    let kept = match &answer {
        Ok(meta) => Ok(meta.clone()),
        Err(e) => Err((e.kind(), e.raw_os_error())),
    };
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let at = u32::try_from(m.answers.len()).expect("fewer than 2^32 paths in one load");
        m.answers.push(kept);
        m.lstat.insert(key.to_vec(), at);
    });
    answer
}

fn rebuild((kind, code): (io::ErrorKind, Option<i32>)) -> io::Error {
    code.map_or_else(|| io::Error::from(kind), io::Error::from_raw_os_error)
}

/// The real path of a directory (lossily decoded, as every path of a load): `realpath(parent)
/// + name` when `dir` is not a symlink, so a walk costs one `lstat` per directory instead of a
/// `readlink` per component of every path.
pub fn real_dir(dir: &Path) -> io::Result<Rc<str>> {
    let key = dir.as_os_str().as_encoded_bytes();
    if let Some(real) = MEMO.with(|m| m.borrow().real_dirs.get(key).cloned()) {
        return Ok(real);
    }
    let real: Rc<str> = match (dir.parent(), dir.file_name()) {
        (Some(parent), Some(name))
            if !parent.as_os_str().is_empty() && !lstat(dir)?.file_type().is_symlink() =>
        {
            join(&real_dir(parent)?, &name.to_string_lossy()).into()
        }
        _ => std::fs::canonicalize(dir)?.to_string_lossy().into(),
    };
    MEMO.with(|m| {
        m.borrow_mut()
            .real_dirs
            .insert(key.to_vec(), Rc::clone(&real))
    });
    Ok(real)
}

/// `dir + "/" + name` (no second `/` after the root), allocated once.
pub fn join(dir: &str, name: &str) -> String {
    let mut out = String::with_capacity(dir.len() + 1 + name.len());
    out.push_str(dir);
    if !dir.ends_with('/') {
        out.push('/');
    }
    out.push_str(name);
    out
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

    // Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
    // Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
    #[cfg(unix)]
    #[test]
    fn error_codes_survive_the_memo() {
        let t = tempfile::tempdir().unwrap();
        let a = t.path().join("a");
        std::os::unix::fs::symlink(&a, &a).unwrap();
        let inside = a.join("x");
        reset();
        let (first, again) = (lstat(&inside).unwrap_err(), lstat(&inside).unwrap_err());
        assert_eq!(
            crate::sys::os_error(&first),
            Some(crate::sys::OsError::Loop)
        );
        assert_eq!(again.raw_os_error(), first.raw_os_error());
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
