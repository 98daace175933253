//! Test helpers: a repository written to a temporary folder and checked in a clean
//! environment.

use std::path::PathBuf;

use super::{Environment, Options, Report, SizeModel, check};

/// A temporary repository.
pub(super) struct Fixture {
    /// Kept for its lifetime: the folder is removed when the fixture drops.
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Fixture {
    /// Writes `files` (relative path, text).
    pub(super) fn new(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        // The real path as the client has it (Windows: without the `\\?\` canonicalize adds).
        let real = dir.path().canonicalize().unwrap();
        let root =
            PathBuf::from(crate::text::path::strip_verbatim(&real.to_string_lossy()).as_ref());
        for (name, text) in files {
            let p = root.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Fixture { _dir: dir, root }
    }

    /// Makes `at` a symlink to `target` (as written). Unix only: on Windows links need a
    /// privilege, and wine 8, which runs the Windows tests here, makes none.
    #[cfg(unix)]
    pub(super) fn link(&self, target: &str, at: &str) {
        let p = self.root.join(at);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, p).unwrap();
    }

    /// Checks the whole fixture.
    pub(super) fn check(&self) -> Report {
        self.check_at("")
    }

    /// Checks the repository at `sub` of the fixture.
    pub(super) fn check_at(&self, sub: &str) -> Report {
        let home = tempfile::tempdir().unwrap();
        let opts = Options {
            config: Default::default(),
            size: SizeModel::default(),
            max_dirs: super::DEFAULT_MAX_DIRS,
            // The host's model: the fixture is on the host's file system.
            env: Environment::Clean(
                home.path().to_path_buf(),
                crate::platform::Platform::compiled(),
            ),
            flags: Default::default(),
            given: None,
        };
        check(&self.root.join(sub), &opts)
    }

    /// `(path, line)` of every finding of `rule`, in report order.
    pub(super) fn found(&self, rule: &str) -> Vec<(String, usize)> {
        self.check()
            .findings
            .into_iter()
            .filter(|d| d.rule == rule)
            .map(|d| (d.path, d.line))
            .collect()
    }

    /// The fixes of `rule`'s findings.
    pub(super) fn fixes(&self, rule: &str) -> Vec<String> {
        self.check()
            .findings
            .into_iter()
            .filter(|d| d.rule == rule)
            .map(|d| d.fix().to_owned())
            .collect()
    }

    /// The messages of `rule`'s findings.
    pub(super) fn messages(&self, rule: &str) -> Vec<String> {
        self.check()
            .findings
            .into_iter()
            .filter(|d| d.rule == rule)
            .map(|d| d.message)
            .collect()
    }
}
