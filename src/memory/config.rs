//! `ccmem.toml`: the one reader of a library's settings, for every command (`audit`, `tier`,
//! `add`).
//!
//! Found the way ruff and typos find theirs: `ccmem.toml` (or `.ccmem.toml`) in the memory
//! folder, else in the nearest folder above it, up to the root; the first file found is used
//! whole (no merging). `--config FILE` replaces the search. Every key is kebab-case; a
//! snake_case spelling or an unknown key is an error that names the file, the line and the key
//! meant, so a typo never silently keeps a default.
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
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::spec::SpecChoice;
use crate::constants;

/// The names looked for in each folder, in order.
pub const FILE_NAMES: [&str; 2] = ["ccmem.toml", ".ccmem.toml"];
/// Largest `ccmem.toml` read.
const MAX_BYTES: u64 = 1 << 20;

/// Everything `ccmem.toml` says.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// The write spec (detected unless set).
    pub spec: SpecChoice,
    /// `[audit]`.
    pub audit: AuditConfig,
    /// `[tier]`.
    pub tier: TierConfig,
}

/// `[audit]`: thresholds (defaults are the write specs' and [`crate::constants`]').
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct AuditConfig {
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
    /// index-over-target-line: lines (and tier's default target).
    pub target_lines: usize,
    /// index-over-target-line: UTF-16 units (and tier's default target).
    pub target_utf16: usize,
    /// long-index-line: UTF-16 units.
    pub max_index_line_utf16: usize,
    /// near-duplicate (and `add`): estimated similarity at or above which two memories are
    /// near-duplicates.
    pub near_duplicate_similarity: f64,
    /// Files larger than this are reported as unreadable, not read.
    pub max_file_bytes: u64,
    /// Rules not to run (checked against the rule registry by the audit).
    pub disable: Vec<String>,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            max_file_lines: 100,
            max_h2_sections: 5,
            max_group_entries: 15,
            stale_days: 120,
            safety_lines: constants::SAFETY_LINES,
            safety_utf16: constants::SAFETY_UTF16,
            target_lines: constants::TARGET_LINES,
            target_utf16: constants::TARGET_UTF16,
            max_index_line_utf16: constants::INDEX_LINE_LONG_UTF16,
            near_duplicate_similarity: NEAR_DUPLICATE_SIMILARITY,
            max_file_bytes: constants::MAX_FILE_BYTES,
            disable: Vec::new(),
        }
    }
}

/// The default near-duplicate threshold, shared by the audit and `add`.
pub const NEAR_DUPLICATE_SIMILARITY: f64 = 0.8;

impl AuditConfig {
    /// Whether a rule runs.
    pub fn enabled(&self, rule: &str) -> bool {
        !self.disable.iter().any(|d| d == rule)
    }
}

/// `[tier]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct TierConfig {
    /// Files whose index lines are crowns (kept at the top of MEMORY.md).
    pub pins: Vec<String>,
    /// Target line count of MEMORY.md (default: `[audit] target-lines`).
    pub target_lines: Option<usize>,
    /// Target size of MEMORY.md in UTF-16 units (default: `[audit] target-utf16`).
    pub target_utf16: Option<usize>,
}

impl Config {
    /// The target `tier` and `add` keep MEMORY.md within: `[tier]`, else `[audit]`.
    pub fn target(&self) -> (usize, usize) {
        (
            self.tier.target_lines.unwrap_or(self.audit.target_lines),
            self.tier.target_utf16.unwrap_or(self.audit.target_utf16),
        )
    }
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

/// Old or snake_case spellings, with the key meant.
const RENAMED: [(&str, &str); 2] = [
    ("max-index-line-chars", "max-index-line-utf16"),
    ("max_index_line_chars", "max-index-line-utf16"),
];

impl Config {
    /// Parses the text of a `ccmem.toml` found at `path` (named in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let at = |span: Option<std::ops::Range<usize>>, why: String| ConfigError {
            path: path.to_path_buf(),
            line: span.map(|s| crate::text::line_of(text, s.start)),
            why,
        };
        let doc: toml::de::DeTable = toml::de::DeTable::parse(text)
            .map_err(|e| at(e.span(), e.message().to_owned()))?
            .into_inner();
        check_keys(&doc, "", &at)?;
        toml::from_str::<Config>(text).map_err(|e| at(e.span(), e.message().to_owned()))
    }

    /// The configuration for the library in `folder`: `explicit` when given, else the nearest
    /// `ccmem.toml` / `.ccmem.toml` in `folder` or above it, else the defaults. Returns the
    /// file used, if any.
    pub fn find(
        folder: &Path,
        explicit: Option<&Path>,
    ) -> Result<(Config, Option<PathBuf>), ConfigError> {
        let path = match explicit {
            Some(p) => p.to_path_buf(),
            None => match discover(folder) {
                Some(p) => p,
                None => return Ok((Config::default(), None)),
            },
        };
        let bytes = crate::fsread::read_capped(&path, MAX_BYTES).map_err(|e| ConfigError {
            path: path.clone(),
            line: None,
            why: format!("cannot be read: {e}"),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| ConfigError {
            path: path.clone(),
            line: None,
            why: format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        })?;
        let config = Config::parse(&text, &path)?;
        Ok((config, Some(path)))
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

fn check_keys(
    table: &toml::de::DeTable,
    prefix: &str,
    at: &dyn Fn(Option<std::ops::Range<usize>>, String) -> ConfigError,
) -> Result<(), ConfigError> {
    for (key, value) in table {
        let name = key.get_ref().as_ref();
        let full = format!("{prefix}{name}");
        if let Some((_, meant)) = RENAMED.iter().find(|(old, _)| *old == name) {
            return Err(at(
                Some(key.span()),
                format!("`{full}` is now `{meant}` (UTF-16 units, as the client counts)"),
            ));
        }
        if name.contains('_') {
            return Err(at(
                Some(key.span()),
                format!(
                    "`{full}`: keys are kebab-case; write `{}`",
                    name.replace('_', "-")
                ),
            ));
        }
        if let toml::de::DeValue::Table(inner) = value.get_ref() {
            check_keys(inner, &format!("{full}."), at)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("/m/ccmem.toml"))
    }

    #[test]
    fn defaults_and_both_tables_in_one_file() {
        assert_eq!(parse("").unwrap(), Config::default());
        let c = parse(
            "spec = \"client\"\n[audit]\nstale-days = 30\ndisable = [\"near-duplicate\"]\n\n[tier]\npins = [\"a.md\"]\ntarget-lines = 50\n",
        )
        .unwrap();
        assert_eq!(c.spec, SpecChoice::Client);
        assert_eq!(c.audit.stale_days, 30);
        assert_eq!(c.audit.max_file_lines, 100);
        assert!(!c.audit.enabled("near-duplicate"));
        assert!(c.audit.enabled("broken-link"));
        assert_eq!(c.tier.pins, ["a.md"]);
        assert_eq!(c.target(), (50, constants::TARGET_UTF16));
        let c = parse("[audit]\ntarget-lines = 90\n").unwrap();
        assert_eq!(c.target().0, 90, "tier's target defaults to the audit's");
    }

    #[test]
    fn typos_snake_case_and_old_names_are_errors_with_their_line() {
        let err = parse("[audit]\nstale-day = 30\n").unwrap_err();
        assert_eq!(
            (err.line, err.path.as_path()),
            (Some(2), Path::new("/m/ccmem.toml"))
        );
        assert!(err.why.contains("stale-day"), "{err}");
        let err = parse("[tier]\n\ntarget_lines = 50\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "/m/ccmem.toml:3: `tier.target_lines`: keys are kebab-case; write `target-lines`"
        );
        let err = parse("[audit]\nmax-index-line-chars = 150\n").unwrap_err();
        assert!(err.why.contains("max-index-line-utf16"), "{err}");
        assert!(parse("[audit\n").is_err());
        assert!(parse("spec = \"mine\"\n").is_err());
    }

    #[test]
    fn found_in_the_folder_then_upwards_or_explicit() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("proj/memory");
        std::fs::create_dir_all(&lib).unwrap();
        assert_eq!(Config::find(&lib, None).unwrap().1, None);
        std::fs::write(
            dir.path().join(".ccmem.toml"),
            "[audit]\nmax-file-lines = 9\n",
        )
        .unwrap();
        let (c, used) = Config::find(&lib, None).unwrap();
        assert_eq!(c.audit.max_file_lines, 9);
        assert_eq!(used.unwrap(), dir.path().join(".ccmem.toml"));
        std::fs::write(lib.join("ccmem.toml"), "[audit]\nmax-file-lines = 7\n").unwrap();
        let (c, used) = Config::find(&lib, None).unwrap();
        assert_eq!(
            (c.audit.max_file_lines, used.unwrap()),
            (7, lib.join("ccmem.toml"))
        );
        let err = Config::find(&lib, Some(&dir.path().join("nope.toml"))).unwrap_err();
        assert!(err.to_string().contains("nope.toml"), "{err}");
    }
}
