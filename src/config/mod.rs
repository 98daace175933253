//! `ccmem.toml`: the one settings file, read whole and once by every command that has settings
//! (`audit`, `tier` and `add` take `spec`, `[audit]` and `[tier]`; `check` takes `[check]`).
//!
//! Found the way ruff and typos find theirs: `ccmem.toml` (or `.ccmem.toml`) in the folder the
//! command works on (the memory folder for `audit`, `tier`, `add`; the repository root for
//! `check`), else in the nearest folder above it, up to the root; the first file found is used
//! whole (no merging). `--config FILE` replaces the search. The whole file is checked whatever
//! the command: every key is kebab-case, and a snake_case spelling, an unknown key or table, or
//! an invalid value is an error that names the file, the line and the key, so a typo never
//! silently keeps a default. Rule names are checked against the rule registry by the commands
//! ([`Config::check_rule_names`]).
//!
//! ```toml
//! spec = "auto"                 # the write spec the library is audited against and `add`
//!                               # writes in: auto (detected), client, claude-memory-manager
//!
//! [audit]
//! max-file-lines = 100          # oversized-file: more lines than this
//! max-h2-sections = 5           # oversized-file: at least this many `## ` sections
//! max-group-entries = 15        # large-group: more entries than this in one index group
//! stale-days = 120              # stale-entry: untouched for at least this many days
//! safety-lines = 190            # index-over-safety-line
//! safety-utf16 = 23000
//! target-lines = 120            # index-over-target-line, and tier's default target
//! target-utf16 = 16000
//! max-index-line-utf16 = 200    # long-index-line
//! near-duplicate-similarity = 0.8   # near-duplicate, and `add`'s duplicate refusal
//! max-file-bytes = 4194304      # larger files are reported, not read
//! disable = ["near-duplicate"]  # rules not to run
//!
//! [tier]
//! pins = ["feedback_deploy.md"] # index lines kept at the top of MEMORY.md
//! target-lines = 120            # default: [audit] target-lines
//! target-utf16 = 16000          # default: [audit] target-utf16
//!
//! [check]
//! disable = ["nested-agents-md"] # rules not to run
//! context-window = 200000       # tokens, for the size warnings (flag: --context-window)
//! chars-per-token = 4           # 4 (models up to Claude 4.6) or 3 (newer)
//! max-dirs = 2000               # start directories checked at most
//!
//! [check.per-file-ignores]      # glob (relative to the root) → rules, "*" for all
//! "vendor/**" = ["*"]
//! ```

mod keys;
mod tables;

use std::path::{Path, PathBuf};

use serde::Deserialize;

pub use tables::{
    AuditConfig, CheckConfig, NEAR_DUPLICATE_SIMILARITY, RuleName, SpecChoice, TierConfig,
};

/// The names looked for in each folder, in order.
pub const FILE_NAMES: [&str; 2] = ["ccmem.toml", ".ccmem.toml"];
/// Largest `ccmem.toml` read.
const MAX_BYTES: u64 = 1 << 20;

/// Everything `ccmem.toml` says.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// The write spec (detected unless set).
    pub spec: SpecChoice,
    /// `[audit]`.
    pub audit: AuditConfig,
    /// `[tier]`.
    pub tier: TierConfig,
    /// `[check]`.
    pub check: CheckConfig,
    /// The file these settings were parsed from (none for the defaults).
    #[serde(skip)]
    pub source: Option<Source>,
}

/// A `ccmem.toml` as read, kept for errors found after parsing (rule names at their line).
#[derive(Debug, Clone)]
pub struct Source {
    /// The file.
    pub path: PathBuf,
    text: String,
}

/// A `ccmem.toml` that cannot be used, with the file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {why}", path.display(), line.map(|n| format!(":{n}")).unwrap_or_default())]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, when the error is at one.
    pub line: Option<usize>,
    /// What is wrong.
    pub why: String,
}

impl ConfigError {
    fn at(path: &Path, text: &str, span: Option<std::ops::Range<usize>>, why: String) -> Self {
        ConfigError {
            path: path.to_path_buf(),
            line: span.map(|s| crate::text::line_of(text, s.start)),
            why,
        }
    }
}

impl Config {
    /// The `ccmem.toml` these settings were read from (`None`: the defaults).
    pub fn path(&self) -> Option<&Path> {
        self.source.as_ref().map(|s| s.path.as_path())
    }

    /// Parses the text of a `ccmem.toml` found at `path` (named in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let at = |span, why| ConfigError::at(path, text, span, why);
        let doc = toml::de::DeTable::parse(text)
            .map_err(|e| at(e.span(), e.message().to_owned()))?
            .into_inner();
        keys::check_names(&doc, &at)?;
        let mut config =
            toml::from_str::<Config>(text).map_err(|e| at(e.span(), e.message().to_owned()))?;
        keys::check_values(&mut config, &doc, &at)?;
        config.source = Some(Source {
            path: path.to_path_buf(),
            text: text.to_owned(),
        });
        Ok(config)
    }

    /// The configuration for `folder`: `explicit` when given, else the nearest `ccmem.toml` /
    /// `.ccmem.toml` in `folder` or above it, else the defaults ([`Config::path`] is the file used, if any).
    pub fn find(folder: &Path, explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => match discover(folder) {
                Some(p) => p,
                None => return Ok(Config::default()),
            },
        };
        let fail = |why| ConfigError {
            path: path.clone(),
            line: None,
            why,
        };
        let bytes = crate::fsread::read_capped(&path, MAX_BYTES)
            .map_err(|e| fail(format!("cannot be read: {e}")))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            fail(format!(
                "not valid UTF-8 (byte {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        Config::parse(&text, &path)
    }

    /// The target `tier` and `add` keep MEMORY.md within: `[tier]`, else `[audit]`.
    pub fn target(&self) -> (usize, usize) {
        (
            self.tier.target_lines.unwrap_or(self.audit.target_lines),
            self.tier.target_utf16.unwrap_or(self.audit.target_utf16),
        )
    }

    /// Fails at the first of `names` that `known` does not know, naming the file, the line
    /// and `list` (e.g. `` `audit.disable` ``), so that a typo never leaves a rule running.
    pub fn check_rule_names<'a>(
        &self,
        list: &str,
        names: impl IntoIterator<Item = &'a RuleName>,
        known: impl Fn(&str) -> bool,
    ) -> Result<(), ConfigError> {
        let Some(bad) = names.into_iter().find(|r| !known(&r.name)) else {
            return Ok(());
        };
        let why = format!("{list} names an unknown rule `{}`", bad.name);
        Err(match &self.source {
            Some(s) => ConfigError::at(&s.path, &s.text, Some(bad.span.clone()), why),
            None => ConfigError {
                path: PathBuf::from(FILE_NAMES[0]),
                line: None,
                why,
            },
        })
    }
}

/// The nearest `ccmem.toml` / `.ccmem.toml` in `folder` or a folder above it (the folder made
/// absolute first, without resolving links, as ruff does).
pub fn discover(folder: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
    start
        .ancestors()
        .find_map(|dir| FILE_NAMES.iter().map(|n| dir.join(n)).find(|p| p.is_file()))
}

#[cfg(test)]
mod tests;
