//! Test helpers: a library written to a temporary folder, loaded and audited.

use jiff::Timestamp;

use super::run::{Audit, audit};
use crate::config::Config;
use crate::memory::library::Library;

/// A temporary library.
pub(super) struct Fixture {
    pub dir: tempfile::TempDir,
    /// Used instead of any `ccmem.toml` when set.
    pub config: Option<Config>,
    pub now: Timestamp,
    /// The project the library is about (`Library::project`).
    pub project: Option<std::path::PathBuf>,
}

/// Frontmatter of a clean entry, with `extra` lines appended.
pub(super) fn fm(kind: &str, extra: &str) -> String {
    format!("---\nname: n\ndescription: d\ntype: {kind}\nmodified: 2026-11-01\n{extra}---\n")
}

impl Fixture {
    /// Writes `files` (relative path, text).
    pub(super) fn new(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Fixture {
            dir,
            config: None,
            now: "2026-11-29T00:00:00Z".parse().unwrap(),
            project: None,
        }
    }

    /// Sets the file time of `names` to 2023-11-14, long before [`Fixture::now`].
    pub(super) fn age(&self, names: &[&str]) {
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        for name in names {
            let file = std::fs::File::options()
                .append(true)
                .open(self.dir.path().join(name))
                .unwrap();
            file.set_modified(old).unwrap();
        }
    }

    /// The audit settings to change (starting from the defaults).
    pub(super) fn config(&mut self) -> &mut Config {
        self.config.get_or_insert_with(Config::default)
    }

    /// The library as the audit loads it (with [`Fixture::config`] when set, else its
    /// `ccmem.toml`).
    pub(super) fn library(&self) -> Library {
        let config =
            (self.config.clone()).unwrap_or_else(|| Config::find(self.dir.path(), None).unwrap());
        let mut lib = Library::load_configured(self.dir.path(), config, None).unwrap();
        lib.project.clone_from(&self.project);
        lib
    }

    /// Audits with every rule of the library's spec.
    pub(super) fn audit(&self) -> Audit {
        audit(self.library(), self.now).unwrap()
    }

    /// `(path, line)` of every finding of `rule`.
    pub(super) fn found(&self, rule: &str) -> Vec<(String, usize)> {
        self.audit()
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == rule)
            .map(|d| (d.path, d.line))
            .collect()
    }

    /// Paths with at least one finding of `rule`.
    pub(super) fn paths(&self, rule: &str) -> Vec<String> {
        let mut p: Vec<String> = self.found(rule).into_iter().map(|(p, _)| p).collect();
        p.dedup();
        p
    }

    /// Messages of `rule`.
    pub(super) fn messages(&self, rule: &str) -> Vec<String> {
        self.audit()
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == rule)
            .map(|d| d.message)
            .collect()
    }
}
