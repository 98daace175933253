//! Git roots as the client finds them (no git binary, no validation of `.git` contents).

use std::path::{Path, PathBuf};

/// The innermost directory at or above `start` holding a `.git` entry that is a directory, a
/// regular file, or a symlink to one. An empty `.git/` folder counts.
pub fn git_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| std::fs::metadata(dir.join(".git")).is_ok_and(|m| m.is_dir() || m.is_file()))
        .map(Path::to_path_buf)
}

/// The main repository root shared by all linked worktrees of `root` (a git root): when
/// `root/.git` is a file `gitdir: X`, `X/commondir` exists, `X` lies in `<common>/worktrees`,
/// `X/gitdir` points back to `root/.git`, and `<common>` is named `.git`, the answer is
/// `dirname(<common>)`; otherwise `root` itself (submodules, separate git dirs, plain repos).
pub fn canonical_root(root: &Path) -> PathBuf {
    main_checkout(root).unwrap_or_else(|| root.to_path_buf())
}

/// A git pointer file (`.git`, `commondir`, `gitdir`: one short line each), read only when it
/// is a regular file of at most 64 KiB: a repository can make any of them a FIFO or a device.
fn small_file(path: &Path) -> Option<String> {
    let bytes = crate::fsread::read_capped(path, 64 * 1024).ok()?;
    String::from_utf8(bytes).ok()
}

fn main_checkout(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    if !std::fs::metadata(&dot_git).ok()?.is_file() {
        return None;
    }
    let text = small_file(&dot_git)?;
    let gitdir = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let gitdir = root.join(gitdir);
    let commondir = small_file(&gitdir.join("commondir"))?;
    let common = normalize(&gitdir.join(commondir.trim()));
    if normalize(gitdir.parent()?) != common.join("worktrees") {
        return None;
    }
    let back = small_file(&gitdir.join("gitdir"))?;
    let back = normalize(&gitdir.join(back.trim()));
    if back != normalize(&dot_git) {
        return None;
    }
    if common.file_name()? != ".git" {
        return None;
    }
    common.parent().map(Path::to_path_buf)
}

/// Lexical normalization (`.` and `..` collapsed), as node's `path.resolve` does.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Makes `wt` a linked worktree of the repository at `main`, as `git worktree add` leaves one:
/// `wt/.git` names the admin folder `main/.git/worktrees/<wt's name>`, whose `commondir` leads
/// to `main/.git` and whose `gitdir` points back. Returns the admin folder.
#[cfg(test)]
pub(crate) fn linked_worktree(main: &Path, wt: &Path) -> PathBuf {
    use std::fs;
    let admin = main
        .join(".git/worktrees")
        .join(wt.file_name().expect("a named folder"));
    fs::create_dir_all(&admin).unwrap();
    fs::create_dir_all(wt).unwrap();
    fs::write(wt.join(".git"), format!("gitdir: {}\n", admin.display())).unwrap();
    fs::write(admin.join("commondir"), "../..\n").unwrap();
    fs::write(
        admin.join("gitdir"),
        format!("{}\n", wt.join(".git").display()),
    )
    .unwrap();
    admin
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn innermost_dot_git_wins_and_empty_folder_counts() {
        let t = tempfile::tempdir().unwrap();
        let inner = t.path().join("repo/inner/deep");
        fs::create_dir_all(&inner).unwrap();
        fs::create_dir_all(t.path().join("repo/.git")).unwrap();
        assert_eq!(git_root(&inner).unwrap(), t.path().join("repo"));
        fs::write(
            t.path().join("repo/inner/.git"),
            "gitdir: ../.git/modules/inner\n",
        )
        .unwrap();
        assert_eq!(git_root(&inner).unwrap(), t.path().join("repo/inner"));
        assert_eq!(
            canonical_root(&t.path().join("repo/inner")),
            t.path().join("repo/inner")
        );
    }

    #[test]
    fn linked_worktree_maps_to_main_checkout() {
        let t = tempfile::tempdir().unwrap();
        let main = t.path().join("main");
        let wt = t.path().join("wt");
        let admin = linked_worktree(&main, &wt);
        assert_eq!(canonical_root(&wt), main);
        fs::write(admin.join("gitdir"), "/elsewhere/.git\n").unwrap();
        assert_eq!(
            canonical_root(&wt),
            wt,
            "a worktree that does not point back is its own root"
        );
    }
}
