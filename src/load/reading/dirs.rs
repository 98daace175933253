//! Which folders a read visits (`iVt`), and whether a read gets attachments at all (`g_`).

use std::path::{Path, PathBuf};

use crate::env::ClientEnv;
use crate::load::git;
use crate::load::instructions::paths::fold_private_as;

/// `g_`: the file, and its real path when it resolves, must lie inside a working directory
/// (the start directory or an `--add-dir` folder); otherwise nothing is attached at all. The
/// test is `od` with `caseFold: false` and without `skipPrivateAlias` (chunk-757mw3zq; `g_`'s
/// extra folders, which fold on macOS only, are not passed on this path), so on every platform
/// `/private/tmp/…` and `/private/var/…` are first read as `/tmp/…` and `/var/…` (`YZi`, exact
/// case): a read of `/private/tmp/p/x.md` from `/tmp/p`, as macOS spells it, gets attachments
/// (`tests/oracle/reading-private/read-private-tmp`, captured with `/private/tmp` linked to
/// `/tmp`).
pub fn within_working_dirs(env: &ClientEnv, file: &Path) -> bool {
    let fold = |p: &Path| match p.to_str() {
        Some(s) => PathBuf::from(fold_private_as(s, false).into_owned()),
        None => p.to_path_buf(),
    };
    let mut roots = vec![env.cwd.clone()];
    for dir in &env.flags.add_dirs {
        let dir = git::normalize(&env.cwd.join(dir));
        roots.extend(std::fs::canonicalize(&dir).ok());
        roots.push(dir);
    }
    let mut forms = vec![file.to_path_buf()];
    forms.extend(std::fs::canonicalize(file).ok());
    forms
        .iter()
        .all(|f| roots.iter().any(|r| fold(f).starts_with(fold(r))))
}

/// Folders strictly between the start directory and `file` (absolute, normalized), outermost
/// first. A file outside the start directory is tried under its folder's real path; automount
/// roots are skipped.
pub fn nested(env: &ClientEnv, file: &Path) -> Vec<PathBuf> {
    let cwd = env.cwd.as_path();
    let mut start = file.parent().unwrap_or(file).to_path_buf();
    if !start.starts_with(cwd)
        && let Ok(real) = std::fs::canonicalize(&start)
        && real.starts_with(cwd)
    {
        start = real;
    }
    let automount = automount_roots(env);
    let mut nested: Vec<PathBuf> = start
        .ancestors()
        .take_while(|d| *d != cwd && d.parent().is_some())
        .filter(|d| d.starts_with(cwd) && !automount.iter().any(|a| a == d))
        .map(Path::to_path_buf)
        .collect();
    nested.reverse();
    nested
}

/// The start directory and its ancestors (not `/`), outermost first, without automount roots
/// and without folders of a main checkout that holds the start directory's nested worktree.
pub fn cwd_level(env: &ClientEnv) -> Vec<PathBuf> {
    let cwd = env.cwd.as_path();
    let automount = automount_roots(env);
    let outer = outer_checkout(cwd);
    let mut dirs: Vec<PathBuf> = cwd
        .ancestors()
        .filter(|d| d.parent().is_some())
        .filter(|d| !automount.iter().any(|a| a == d))
        .filter(|d| {
            !outer
                .as_ref()
                .is_some_and(|(w, m)| d.starts_with(m) && !d.starts_with(w))
        })
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}

/// `CLAUDE_CODE_AUTOMOUNT_ROOTS`: absolute entries split on `path.delimiter` (`;` on
/// Windows), resolved.
fn automount_roots(env: &ClientEnv) -> Vec<PathBuf> {
    let plat = env.platform;
    env.var("CLAUDE_CODE_AUTOMOUNT_ROOTS")
        .unwrap_or("")
        .split(plat.delimiter())
        .filter(|p| crate::text::path::is_absolute(plat, p))
        .map(|p| git::normalize(Path::new(p)))
        .collect()
}

/// `(worktree root, main checkout root)` when the working directory is in a git worktree
/// nested inside its main checkout (folders of the main checkout above it get no project files).
fn outer_checkout(cwd: &Path) -> Option<(PathBuf, PathBuf)> {
    let (worktree, main) = crate::load::memo::git_roots(cwd)?;
    (main != worktree && worktree.starts_with(&main)).then_some((worktree, main))
}

#[cfg(test)]
mod private_tests {
    use super::*;
    use std::collections::BTreeMap;

    /// `g_` on every platform model: `/private/tmp` and `/private/var/` fold (`YZi` with
    /// `caseFold: false`, so only their exact spelling), nothing else does.
    #[test]
    fn within_working_dirs_folds_private_as_g_does() {
        for platform in ["linux", "macos", "wsl"] {
            let vars: BTreeMap<String, String> = [("CCMEM_PLATFORM", platform), ("HOME", "/h")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect();
            let env = ClientEnv::new(PathBuf::from("/tmp/ccm-none/p"), vars, Default::default());
            let within = |f: &str| within_working_dirs(&env, Path::new(f));
            assert!(within("/tmp/ccm-none/p/sub/x.md"), "{platform}");
            assert!(within("/private/tmp/ccm-none/p/sub/x.md"), "{platform}");
            assert!(!within("/private/TMP/ccm-none/p/sub/x.md"), "{platform}");
            assert!(!within("/private/tmpx/ccm-none/p/x.md"), "{platform}");
            assert!(!within("/tmp/ccm-none/q/x.md"), "{platform}");
        }
        let vars: BTreeMap<String, String> = [("CCMEM_PLATFORM", "macos"), ("HOME", "/h")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let env = ClientEnv::new(
            PathBuf::from("/private/var/ccm-none/p"),
            vars,
            Default::default(),
        );
        assert!(within_working_dirs(&env, Path::new("/var/ccm-none/p/x.md")));
    }
}
