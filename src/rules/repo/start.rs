//! What `check` reports for one start directory: the receipt's view of the repository it was
//! started in ([`crate::receipt::Traps`]). The whole repository is checked, as `check` checks
//! it (rules such as `agents-md-never-loads` ask every start directory), with the given one
//! among the start directories; then each finding is kept when it bites a session started
//! there.

use std::path::Path;

use super::{Options, check};
use crate::receipt::{Trap, Traps};
use crate::rules::Diagnostic;

/// The findings `check` reports for a session started in `start`, a directory inside the
/// repository at `root` (both real paths), and how many it reports elsewhere. `command` is
/// the `ccmem check` that shows them all.
pub fn traps(root: &Path, start: &Path, opts: &Options, command: String) -> Traps {
    let rel = start
        .strip_prefix(root)
        .map(|r| {
            r.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default();
    let opts = Options {
        given: Some(rel.clone()),
        ..opts.clone()
    };
    let report = check(root, &opts);
    let here = report.sessions.iter().find(|s| s.start.dir == rel);
    let bites = |f: &Diagnostic| {
        if !f.start_dirs.is_empty() {
            let shown = if rel.is_empty() { "." } else { rel.as_str() };
            return f.start_dirs.iter().any(|d| d == shown);
        }
        if f.is_absolute() {
            // A file outside the repository: it bites when this session reaches it.
            return here
                .is_some_and(|s| s.entry(&f.path).is_some() || s.skip_for(&f.path).is_some());
        }
        related(owner(&f.path), &rel)
    };
    let (findings, elsewhere): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        report.findings.iter().partition(|f| bites(f));
    Traps {
        root: root.to_string_lossy().into_owned(),
        start: if rel.is_empty() { ".".to_owned() } else { rel },
        findings: findings
            .into_iter()
            .map(|f| Trap {
                rule: f.rule,
                severity: f.severity,
                path: f.path.clone(),
                line: f.line,
                message: f.message.clone(),
                fix: f.fix().to_owned(),
            })
            .collect(),
        elsewhere: elsewhere.len(),
        left_out: report.walk.start_directories_left_out,
        command,
    }
}

/// The directory a repository file belongs to (relative to the root): the one holding it, or
/// the one holding its `.claude` folder.
fn owner(path: &str) -> &str {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut end: usize = 0;
    for (k, part) in dir.split('/').enumerate() {
        if part == crate::constants::CLAUDE_DIR {
            return &dir[..end.saturating_sub(usize::from(k > 0))];
        }
        end += part.len() + 1;
    }
    dir
}

/// Whether a file of directory `dir` reaches a session started in `start`: its directory is
/// an ancestor of the start (loaded at start) or below it (attached when the model reads
/// there).
fn related(dir: &str, start: &str) -> bool {
    let under = |a: &str, b: &str| a.is_empty() || b == a || b.starts_with(&format!("{a}/"));
    under(dir, start) || under(start, dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_belongs_to_the_folder_holding_it_or_its_claude_folder() {
        let cases = [
            ("CLAUDE.md", ""),
            (".claude/rules/ts.md", ""),
            (".claude/rules/deep/x.md", ""),
            ("sub/claude.md", "sub"),
            ("a/b/.claude/rules/x.md", "a/b"),
            ("a/b/.claude/CLAUDE.md", "a/b"),
            ("a/b/AGENTS.md", "a/b"),
        ];
        for (path, want) in cases {
            assert_eq!(owner(path), want, "{path}");
        }
    }

    #[test]
    fn files_above_and_below_the_start_bite_there_siblings_do_not() {
        assert!(related("", "apps/web"));
        assert!(related("apps", "apps/web"));
        assert!(related("apps/web", "apps/web"));
        assert!(related("apps/web/src", "apps/web"));
        assert!(related("apps/web", ""));
        assert!(!related("apps/api", "apps/web"));
        assert!(!related("apps/webx", "apps/web"));
        assert!(!related("apps/web", "apps/webx"));
    }
}
