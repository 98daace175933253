//! Audit thresholds, from `ccmem.toml` (in the memory folder, or given with `--config`).
//!
//! ```toml
//! [audit]
//! max-file-lines = 100          # oversized-file: more lines than this
//! max-h2-sections = 5           # oversized-file: at least this many `## ` sections
//! max-group-entries = 15        # large-group: more entries than this in one index group
//! stale-days = 120              # stale-entry: untouched for at least this many days
//! safety-lines = 190            # index-over-safety-line
//! safety-utf16 = 23000
//! target-lines = 120            # index-over-target-line
//! target-utf16 = 16000
//! max-index-line-chars = 200    # long-index-line
//! near-duplicate-similarity = 0.8
//! max-file-bytes = 4194304      # larger files are reported, not read
//! disable = ["near-duplicate"]  # rules not to run
//! ```
//!
//! Unknown keys are an error (a typo must not silently keep a default).

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::Deserialize;

use crate::constants;

/// The name looked for in the memory folder.
pub const FILE_NAME: &str = "ccmem.toml";

/// Thresholds (defaults are the typed write spec's).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// oversized-file: more lines than this.
    pub max_file_lines: usize,
    /// oversized-file: at least this many H2 sections.
    pub max_h2_sections: usize,
    /// large-group: more entries than this in one MEMORY.md group.
    pub max_group_entries: usize,
    /// stale-entry: untouched for at least this many days.
    pub stale_days: i64,
    /// index-over-safety-line: lines.
    pub safety_lines: usize,
    /// index-over-safety-line: UTF-16 units.
    pub safety_utf16: usize,
    /// index-over-target-line: lines.
    pub target_lines: usize,
    /// index-over-target-line: UTF-16 units.
    pub target_utf16: usize,
    /// long-index-line: characters.
    pub max_index_line_chars: usize,
    /// near-duplicate: estimated similarity at or above which a pair is reported.
    pub near_duplicate_similarity: f64,
    /// Files larger than this are reported as unreadable, not read.
    pub max_file_bytes: u64,
    /// Rules not to run.
    pub disable: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_file_lines: 100,
            max_h2_sections: 5,
            max_group_entries: 15,
            stale_days: 120,
            safety_lines: constants::SAFETY_LINES,
            safety_utf16: constants::SAFETY_UTF16,
            target_lines: constants::TARGET_LINES,
            target_utf16: constants::TARGET_UTF16,
            max_index_line_chars: constants::INDEX_LINE_LONG_UTF16,
            near_duplicate_similarity: 0.8,
            max_file_bytes: constants::MAX_FILE_BYTES,
            disable: Vec::new(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    audit: Config,
}

impl Config {
    /// Parses the text of a `ccmem.toml`.
    pub fn parse(text: &str) -> anyhow::Result<Config> {
        let file: File = toml::from_str(text)?;
        for name in &file.audit.disable {
            if super::find(name).is_none() {
                anyhow::bail!("`disable` names an unknown rule `{name}`");
            }
        }
        Ok(file.audit)
    }

    /// The configuration for a library: `explicit` when given, else `ccmem.toml` in `folder`
    /// when it exists, else the defaults. Returns the file used, if any.
    pub fn find(
        folder: &Path,
        explicit: Option<&Path>,
    ) -> anyhow::Result<(Config, Option<PathBuf>)> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => {
                let p = folder.join(FILE_NAME);
                if !p.is_file() {
                    return Ok((Config::default(), None));
                }
                p
            }
        };
        let bytes = crate::fsread::read_capped(&path, 1 << 20)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| anyhow::anyhow!("{}: not valid UTF-8", path.display()))?;
        let config = Config::parse(&text).with_context(|| format!("{}", path.display()))?;
        Ok((config, Some(path)))
    }

    /// Whether a rule runs.
    pub fn enabled(&self, rule: &str) -> bool {
        !self.disable.iter().any(|d| d == rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        assert_eq!(Config::parse("").unwrap(), Config::default());
        let c =
            Config::parse("[audit]\nstale-days = 30\ndisable = [\"near-duplicate\"]\n").unwrap();
        assert_eq!(c.stale_days, 30);
        assert_eq!(c.max_file_lines, 100);
        assert!(!c.enabled("near-duplicate"));
        assert!(c.enabled("broken-link"));
    }

    #[test]
    fn typos_are_errors() {
        assert!(Config::parse("[audit]\nstale-day = 30\n").is_err());
        assert!(Config::parse("[audit]\ndisable = [\"no-such-rule\"]\n").is_err());
        assert!(Config::parse("[audit\n").is_err());
    }

    #[test]
    fn found_in_folder_or_explicit() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Config::find(dir.path(), None).unwrap().1, None);
        std::fs::write(dir.path().join(FILE_NAME), "[audit]\nmax-file-lines = 7\n").unwrap();
        let (c, used) = Config::find(dir.path(), None).unwrap();
        assert_eq!((c.max_file_lines, used.is_some()), (7, true));
        let err = Config::find(dir.path(), Some(&dir.path().join("nope.toml"))).unwrap_err();
        assert!(err.to_string().contains("nope.toml"));
    }
}
