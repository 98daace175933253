//! The ancestor walk (directories the startup block reads) and the scan below the start
//! directory for files that only load lazily.
//!
//! Ancestors: the start directory and every parent up to but excluding its root, outermost
//! first (`BQr`: `for (d = cwd; d !== parse(d).root; d = dirname(d))`, so `/CLAUDE.md` and, on
//! Windows, `C:\CLAUDE.md` never load). A directory listed in `CLAUDE_CODE_AUTOMOUNT_ROOTS`
//! (split on the platform's `path.delimiter`, `;` on Windows), or an autofs map root (asked
//! on Linux and WSL only), is skipped whole. In a git worktree nested inside its main
//! checkout, directories inside the main checkout but outside the worktree get no project
//! files (CLAUDE.local.md still loads).

use std::collections::VecDeque;
use std::path::Path;

use super::paths;
use crate::constants::{
    CLAUDE_DIR, CLAUDE_DIR_CLAUDE_MD, CLAUDE_DIR_RULES, CLAUDE_LOCAL_MD, CLAUDE_MD,
};
use crate::env::ClientEnv;
use crate::load::{Lazy, LazyWhy, SkipWhy, Skipped};
use crate::platform::Platform;
use crate::text::path as node_path;

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
    let plat = env.platform;
    let cwd = paths::to_string(&env.cwd);
    let automount = automount_roots(env);
    let worktree = nested_worktree(plat, &env.cwd);
    let mut dirs = Vec::new();
    let mut skipped = Vec::new();
    let mut d = cwd.clone();
    while !d.is_empty() && d != node_path::root(plat, &d) {
        if automount.contains(&d) || (plat.checks_autofs() && is_autofs(&d)) {
            skipped.push(Skipped {
                path: d.clone(),
                kind: None,
                from: None,
                why: SkipWhy::AutomountRoot,
            });
        } else {
            let outer = worktree.as_ref().is_some_and(|(wt, main)| {
                paths::inside(plat, &d, main) && !paths::inside(plat, &d, wt)
            });
            if outer {
                for name in [CLAUDE_MD, CLAUDE_DIR_CLAUDE_MD, CLAUDE_DIR_RULES] {
                    let p = paths::join(plat, &d, name);
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
        let up = paths::dirname(plat, &d);
        if up == d {
            break; // a relative or drive-relative start has no root to stop at
        }
        d = up;
    }
    dirs.reverse();
    skipped.reverse();
    (dirs, skipped)
}

/// `CLAUDE_CODE_AUTOMOUNT_ROOTS` as the client reads it (`e5`): split on `path.delimiter`,
/// each absolute entry normalized (compared with the walked folder as a string).
pub fn automount_roots(env: &ClientEnv) -> Vec<String> {
    let plat = env.platform;
    env.var("CLAUDE_CODE_AUTOMOUNT_ROOTS")
        .unwrap_or("")
        .split(plat.delimiter())
        .filter(|s| node_path::is_absolute(plat, s))
        .map(|s| paths::normalize(plat, s))
        .collect()
}

/// Whether `dir` is an autofs map root (the client skips those without touching them further).
/// Like the client (`ooe`), only a top-level directory (`/net`, `/home`) is asked: one `statfs`
/// per walk, and an autofs mount deeper down is walked as usual.
fn is_autofs(dir: &str) -> bool {
    if !top_level(dir) {
        return false;
    }
    crate::sys::is_autofs(Path::new(dir))
}

/// A directory right below `/`: the only kind the client asks about autofs.
fn top_level(dir: &str) -> bool {
    dir != "/" && paths::dirname(Platform::Linux, dir) == "/"
}

/// `(worktree root, main checkout root)` when the start directory is in a linked worktree that
/// lies inside its main checkout.
fn nested_worktree(plat: Platform, cwd: &Path) -> Option<(String, String)> {
    let (wt, main) = crate::load::memo::git_roots(cwd)?;
    let (wt, main) = (paths::to_string(&wt), paths::to_string(&main));
    (wt != main && paths::inside(plat, &wt, &main)).then_some((wt, main))
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
pub fn lazy_below(plat: Platform, cwd: &str, out: &mut Vec<Lazy>) -> bool {
    let join = |a: &str, b: &str| paths::join(plat, a, b);
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
                CLAUDE_MD => has[0] = true,
                CLAUDE_LOCAL_MD => has[1] = true,
                CLAUDE_DIR => has[2] = true,
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
            found(join(&dir, CLAUDE_MD));
        }
        if has[2] {
            found(join(&dir, CLAUDE_DIR_CLAUDE_MD));
        }
        if has[1] {
            found(join(&dir, CLAUDE_LOCAL_MD));
        }
        if has[2] {
            rule_files(plat, &join(&dir, CLAUDE_DIR_RULES), 0, out);
        }
    }
    false
}

fn rule_files(plat: Platform, dir: &str, depth: usize, out: &mut Vec<Lazy>) {
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let p = paths::join(plat, dir, &name);
        match e.file_type() {
            Ok(t) if t.is_dir() => rule_files(plat, &p, depth + 1, out),
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
        // The posix models' `:` list (Windows splits on `;`: the test below).
        let e = env(
            "/nonexistent-x/a/b",
            &[
                ("CLAUDE_CODE_AUTOMOUNT_ROOTS", "rel:/nonexistent-x/a/"),
                (crate::env::PLATFORM_VAR, "linux"),
            ],
        );
        let (dirs, skipped) = ancestors(&e);
        assert_eq!(dirs.len(), 2);
        assert_eq!(skipped[0].path, "/nonexistent-x/a");
    }

    #[test]
    fn the_walk_stops_before_each_platforms_root() {
        let on = |platform: &str, cwd: &str, vars: &[(&str, &str)]| {
            let mut vars = vars.to_vec();
            vars.push(("CCMEM_PLATFORM", platform));
            let (dirs, skipped) = ancestors(&env(cwd, &vars));
            let dirs: Vec<String> = dirs.into_iter().map(|d| d.dir).collect();
            (
                dirs,
                skipped.into_iter().map(|s| s.path).collect::<Vec<_>>(),
            )
        };
        // `C:\` and `\\srv\share\` are roots, never walked (`BQr`).
        let (dirs, _) = on("windows", r"C:\nonexistent-x\a", &[]);
        assert_eq!(dirs, [r"C:\nonexistent-x", r"C:\nonexistent-x\a"]);
        let (dirs, _) = on("windows", r"\\srv\share\p", &[]);
        assert_eq!(dirs, [r"\\srv\share\p"]);
        // `;` separates automount roots on Windows, where `C:/x` is one entry, not two.
        let roots = r"C:/nonexistent-x/a;\rel";
        let (dirs, skipped) = on(
            "windows",
            r"C:\nonexistent-x\a\b",
            &[("CLAUDE_CODE_AUTOMOUNT_ROOTS", roots)],
        );
        assert_eq!(dirs, [r"C:\nonexistent-x", r"C:\nonexistent-x\a\b"]);
        assert_eq!(skipped, [r"C:\nonexistent-x\a"]);
        for posix in ["linux", "macos", "wsl"] {
            let (dirs, skipped) = on(
                posix,
                "/nonexistent-x/a/b",
                &[("CLAUDE_CODE_AUTOMOUNT_ROOTS", "/x;/nonexistent-x/a")],
            );
            assert_eq!(dirs.len(), 3, "{posix}: `;` is no separator there");
            assert!(skipped.is_empty());
        }
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
        // The host's model on the host's files (Windows: `C:\…`, without `\\?\`).
        let t = tempfile::tempdir().unwrap();
        let real = paths::to_string(&t.path().canonicalize().unwrap());
        let root = crate::text::path::strip_verbatim(&real).into_owned();
        let platform = Platform::compiled();
        let at = |rel: &str| Path::new(&root).join(rel);
        for d in ["a/b/.claude/rules/x", "node_modules/m", ".git"] {
            std::fs::create_dir_all(at(d)).unwrap();
        }
        for f in [
            "CLAUDE.md",
            "a/b/CLAUDE.local.md",
            "a/b/.claude/rules/x/r.md",
            "node_modules/m/CLAUDE.md",
        ] {
            std::fs::write(at(f), "x").unwrap();
        }
        let mut lazy = Vec::new();
        assert!(!lazy_below(platform, &root, &mut lazy));
        let found: Vec<String> = lazy
            .iter()
            .map(|l| l.path[root.len()..].replace(platform.sep(), "/"))
            .collect();
        assert_eq!(found, ["/a/b/CLAUDE.local.md", "/a/b/.claude/rules/x/r.md"]);
    }
}
