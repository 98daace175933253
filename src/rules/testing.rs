//! Test helpers: a library written to a temporary folder and audited.

use jiff::Timestamp;

use super::config::Config;
use super::run::{Audit, Options, audit};

/// A temporary library.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub config: Config,
    pub now: Timestamp,
}

/// Frontmatter of a clean entry, with `extra` lines appended.
pub fn fm(kind: &str, extra: &str) -> String {
    format!("---\nname: n\ndescription: d\ntype: {kind}\nmodified: 2026-11-01\n{extra}---\n")
}

impl Fixture {
    /// Writes `files` (relative path, text).
    pub fn new(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Fixture {
            dir,
            config: Config::default(),
            now: "2026-11-29T00:00:00Z".parse().unwrap(),
        }
    }

    /// Audits with every rule.
    pub fn audit(&self) -> Audit {
        let opts = Options {
            config: self.config.clone(),
            now: self.now,
        };
        audit(self.dir.path(), &opts).unwrap()
    }

    /// `(path, line)` of every finding of `rule`.
    pub fn found(&self, rule: &str) -> Vec<(String, usize)> {
        self.audit()
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == rule)
            .map(|d| (d.path, d.line))
            .collect()
    }

    /// Paths with at least one finding of `rule`.
    pub fn paths(&self, rule: &str) -> Vec<String> {
        let mut p: Vec<String> = self.found(rule).into_iter().map(|(p, _)| p).collect();
        p.dedup();
        p
    }

    /// Messages of `rule`.
    pub fn messages(&self, rule: &str) -> Vec<String> {
        self.audit()
            .diagnostics
            .into_iter()
            .filter(|d| d.rule == rule)
            .map(|d| d.message)
            .collect()
    }
}
