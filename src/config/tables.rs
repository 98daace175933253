//! The tables of `ccmem.toml`, typed: `spec`, `[audit]`, `[tier]`, `[check]`. Every key is
//! optional; the defaults are the write specs' and [`crate::constants`]'.

use std::collections::BTreeMap;
use std::ops::Range;

use globset::GlobMatcher;
use serde::Deserialize;

use crate::constants;

/// `spec = …`: the write spec a library is audited against and `add` writes in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpecChoice {
    /// Detected from the files.
    #[default]
    Auto,
    /// Always the client's.
    Client,
    /// Always claude-memory-manager's.
    #[serde(rename = "claude-memory-manager")]
    Manager,
}

/// A rule named in `ccmem.toml` (in `disable` or `per-file-ignores`), with where it is written
/// so that a name no rule has is reported at its line.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "toml::Spanned<String>")]
pub struct RuleName {
    /// The name as written.
    pub name: String,
    /// Byte range in the file (empty when not read from a file).
    pub span: Range<usize>,
}

impl From<toml::Spanned<String>> for RuleName {
    fn from(s: toml::Spanned<String>) -> Self {
        let span = s.span();
        RuleName {
            name: s.into_inner(),
            span,
        }
    }
}

impl From<&str> for RuleName {
    fn from(name: &str) -> Self {
        RuleName {
            name: name.to_owned(),
            span: 0..0,
        }
    }
}

fn names(list: &[RuleName], rule: &str) -> bool {
    list.iter().any(|r| r.name == rule)
}

/// `[audit]`: thresholds of the audit's rules.
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
    /// Rules not to run (checked against the audit's registry).
    pub disable: Vec<RuleName>,
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
        !names(&self.disable, rule)
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

/// `[check]`: what `ccmem check` runs and how it sizes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct CheckConfig {
    /// Rules not to run (checked against the check's registry).
    pub disable: Vec<RuleName>,
    /// Context window for the size warnings (tokens).
    pub context_window: Option<u64>,
    /// Characters per token for the size warnings.
    pub chars_per_token: Option<u32>,
    /// Start directories checked at most.
    pub max_dirs: Option<usize>,
    /// Glob (relative to the repository root) → rule names, `"*"` for all.
    pub per_file_ignores: BTreeMap<String, Vec<RuleName>>,
    /// `per_file_ignores`' globs, compiled when the file is parsed.
    #[serde(skip)]
    pub(super) compiled: Vec<(GlobMatcher, Vec<String>)>,
}

impl CheckConfig {
    /// The characters per token a size model may assume.
    pub const CHARS_PER_TOKEN: std::ops::RangeInclusive<u32> = 1..=8;

    /// Whether a rule runs.
    pub fn enabled(&self, rule: &str) -> bool {
        !names(&self.disable, rule)
    }

    /// Whether `per-file-ignores` silences `rule` on `rel` (a path relative to the root).
    pub fn ignored(&self, rel: &str, rule: &str) -> bool {
        self.compiled
            .iter()
            .any(|(g, rules)| g.is_match(rel) && rules.iter().any(|r| r == rule || r == "*"))
    }
}
