//! The ancestor walk (directories the startup block reads) and the scan below the start
//! directory for files that only load lazily.
//!
//! Ancestors: the start directory and every parent up to but excluding `/`, outermost first.
//! A directory listed in `CLAUDE_CODE_AUTOMOUNT_ROOTS`, or an autofs map root, is skipped whole. In a git worktree
//! nested inside its main checkout, directories inside the main checkout but outside the
//! worktree get no project files (CLAUDE.local.md still loads).

use std::collections::VecDeque;
use std::path::Path;

use super::paths::{self, dirname, is_inside_casefold, join, normalize};
use crate::env::ClientEnv;
use crate::load::{Lazy, LazyWhy, SkipWhy, Skipped};

/// One directory of the ancestor walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkDir {
    /// The directory.
    pub dir: String,
    /// Whether its project files (CLAUDE.md, .claude/CLAUDE.md, rules) count.
    pub project: bool,
}

/// The ancestor directories of the start directory, outermost first, with the directories the
/// walk skipped.
pub fn ancestors(env: &ClientEnv) -> (Vec<WalkDir>, Vec<Skipped>) {
    let cwd = paths::to_string(&env.cwd);
    let automount: Vec<String> = env
        .var("CLAUDE_CODE_AUTOMOUNT_ROOTS")
        .unwrap_or("")
        .split(':')
        .filter(|s| s.starts_with('/'))
        .map(normalize)
        .collect();
    let worktree = nested_worktree(&env.cwd);
    let mut dirs = Vec::new();
    let mut skipped = Vec::new();
    let mut d = cwd.clone();
    while d != "/" && !d.is_empty() {
        if automount.contains(&d) || is_autofs(&d) {
            skipped.push(Skipped {
                path: d.clone(),
                kind: None,
                from: None,
                why: SkipWhy::AutomountRoot,
            });
        } else {
            let outer = worktree.as_ref().is_some_and(|(wt, main)| {
                is_inside_casefold(&d, main) && !is_inside_casefold(&d, wt)
            });
            if outer {
                for name in ["CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules"] {
                    let p = join(&d, name);
                    if crate::load::memo::lstat(Path::new(&p)).is_ok() {
                        skipped.push(Skipped {
                            path: p,
                            kind: Some(crate::load::Kind::Project),
                            from: None,
                            why: SkipWhy::OuterWorktree,
                        });
                    }
                }
            }
            dirs.push(WalkDir {
                dir: d.clone(),
                project: !outer,
            });
        }
        d = dirname(&d);
    }
    dirs.reverse();
    skipped.reverse();
    (dirs, skipped)
}

/// Linux `AUTOFS_SUPER_MAGIC`: the file system type of an automounter map root.
const AUTOFS_SUPER_MAGIC: i64 = 0x0187;

/// Whether `dir` is an autofs map root (the client skips those without touching them further).
/// Like the client (`ooe`), only a top-level directory (`/net`, `/home`) is asked: one `statfs`
/// per walk, and an autofs mount deeper down is walked as usual.
fn is_autofs(dir: &str) -> bool {
    if !top_level(dir) {
        return false;
    }
    let Ok(c) = std::ffi::CString::new(dir) else {
        return false;
    };
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `c` is NUL-terminated and `buf` is large enough for one `statfs`.
    let ok = unsafe { libc::statfs(c.as_ptr(), buf.as_mut_ptr()) } == 0;
    // SAFETY: initialized by the successful call above. (`f_type`'s width varies by target.)
    #[allow(clippy::unnecessary_cast)]
    let magic = ok && unsafe { buf.assume_init() }.f_type as i64 == AUTOFS_SUPER_MAGIC;
    magic
}

/// A directory right below `/`: the only kind the client asks about autofs.
fn top_level(dir: &str) -> bool {
    dir != "/" && dirname(dir) == "/"
}

/// `(worktree root, main checkout root)` when the start directory is in a linked worktree that
/// lies inside its main checkout.
fn nested_worktree(cwd: &Path) -> Option<(String, String)> {
    let (wt, main) = crate::load::memo::git_roots(cwd)?;
    let (wt, main) = (paths::to_string(&wt), paths::to_string(&main));
    (wt != main && is_inside_casefold(&wt, &main)).then_some((wt, main))
}

/// Directories never descended into by the lazy scan.
const SKIP_DIRS: &[&str] = &[".git", "node_modules", "target"];

/// At most this many directories are visited by the lazy scan.
pub const MAX_SCAN_DIRS: usize = 10_000;

/// Instruction files below the start directory (CLAUDE.md, .claude/CLAUDE.md,
/// CLAUDE.local.md, .claude/rules/**/*.md), which the client attaches only when a file in or
/// under their folder is read. Breadth-first, symlinked directories not followed, `.git`,
/// `node_modules` and `target` skipped; returns whether the scan stopped at
/// [`MAX_SCAN_DIRS`].
pub fn lazy_below(cwd: &str, out: &mut Vec<Lazy>) -> bool {
    let mut queue = VecDeque::from([cwd.to_owned()]);
    let mut visited = 0usize;
    while let Some(dir) = queue.pop_front() {
        visited += 1;
        if visited > MAX_SCAN_DIRS {
            return true;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut has = [false; 3];
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            match name.as_ref() {
                "CLAUDE.md" => has[0] = true,
                "CLAUDE.local.md" => has[1] = true,
                ".claude" => has[2] = true,
                n if is_dir && !SKIP_DIRS.contains(&n) => queue.push_back(join(&dir, n)),
                _ => {}
            }
        }
        if dir == cwd {
            continue;
        }
        let mut found = |p: String| {
            if Path::new(&p).is_file() {
                out.push(Lazy {
                    path: p,
                    why: LazyWhy::Subdirectory,
                });
            }
        };
        if has[0] {
            found(join(&dir, "CLAUDE.md"));
        }
        if has[2] {
            found(join(&dir, ".claude/CLAUDE.md"));
        }
        if has[1] {
            found(join(&dir, "CLAUDE.local.md"));
        }
        if has[2] {
            rule_files(&join(&dir, ".claude/rules"), 0, out);
        }
    }
    false
}

fn rule_files(dir: &str, depth: usize, out: &mut Vec<Lazy>) {
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let p = join(dir, &name);
        match e.file_type() {
            Ok(t) if t.is_dir() => rule_files(&p, depth + 1, out),
            Ok(_) if name.ends_with(".md") => out.push(Lazy {
                path: p,
                why: LazyWhy::Subdirectory,
            }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    fn env(cwd: &str, vars: &[(&str, &str)]) -> ClientEnv {
        let vars: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ClientEnv::new(PathBuf::from(cwd), vars, Default::default())
    }

    #[test]
    fn ancestors_are_outermost_first_and_exclude_root() {
        let (dirs, _) = ancestors(&env("/nonexistent-x/a/b", &[]));
        let names: Vec<&str> = dirs.iter().map(|d| d.dir.as_str()).collect();
        assert_eq!(
            names,
            ["/nonexistent-x", "/nonexistent-x/a", "/nonexistent-x/a/b"]
        );
    }

    #[test]
    fn automount_roots_are_skipped() {
        let e = env(
            "/nonexistent-x/a/b",
            &[("CLAUDE_CODE_AUTOMOUNT_ROOTS", "rel:/nonexistent-x/a/")],
        );
        let (dirs, skipped) = ancestors(&e);
        assert_eq!(dirs.len(), 2);
        assert_eq!(skipped[0].path, "/nonexistent-x/a");
    }

    #[test]
    fn ordinary_folders_are_not_autofs_roots() {
        assert!(!is_autofs("/"));
        assert!(!is_autofs("/nonexistent-x"));
    }

    #[test]
    fn only_top_level_folders_are_asked_about_autofs() {
        assert!(top_level("/net"));
        assert!(!top_level("/"));
        assert!(!top_level("/net/host"));
        assert!(!top_level("/home/u/project"));
    }

    #[test]
    fn lazy_scan_finds_subdirectory_files_and_skips_heavy_dirs() {
        let t = tempfile::tempdir().unwrap();
        let root = paths::to_string(&t.path().canonicalize().unwrap());
        for d in ["a/b/.claude/rules/x", "node_modules/m", ".git"] {
            std::fs::create_dir_all(join(&root, d)).unwrap();
        }
        for f in [
            "CLAUDE.md",
            "a/b/CLAUDE.local.md",
            "a/b/.claude/rules/x/r.md",
            "node_modules/m/CLAUDE.md",
        ] {
            std::fs::write(join(&root, f), "x").unwrap();
        }
        let mut lazy = Vec::new();
        assert!(!lazy_below(&root, &mut lazy));
        let found: Vec<String> = lazy
            .iter()
            .map(|l| l.path[root.len()..].to_owned())
            .collect();
        assert_eq!(found, ["/a/b/CLAUDE.local.md", "/a/b/.claude/rules/x/r.md"]);
    }
}
