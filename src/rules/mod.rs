//! The audit: one file per check, each with its user documentation as doc comments (printed by
//! `ccmem explain CODE` and used as SARIF's `fullDescription`), a stable kebab-case name, a
//! category that decides its default severity (hard = error, soft = warning), and pass/fail
//! vectors as tests in the same file.
//!
//! Each rule belongs to one or both write specs ([`crate::memory::spec`]); a library is audited
//! against the spec it follows, and `ccmem explain` says which.
//!
//! [`run::audit`] runs every enabled rule of the library's spec on a loaded
//! [`Library`] (file rules in parallel over files), drops suppressed findings
//! (`<!-- ccmem-ignore: CODE -->`, see [`suppress`]) and scores compliance over the memory
//! files.

use std::ops::Range;
use std::sync::OnceLock;

use jiff::Timestamp;
use serde::Serialize;

use crate::config::{AuditConfig, Config, ConfigError};
use crate::load::automem::IndexState;
use crate::memory::library::{Library, Reach};
use crate::memory::spec::Applies;

pub mod run;
pub mod suppress;

mod line_start;
mod prefetch;

mod bad_file_name;
mod broken_link;
mod index_over_cap;
mod index_over_safety_line;
mod index_over_target_line;
mod interrupted_write;
mod invalid_frontmatter;
mod invalid_type;
mod large_group;
mod long_index_line;
mod missing_field;
mod missing_frontmatter;
mod missing_how_to_apply;
mod missing_modified;
mod missing_why;
mod name_not_slug;
mod near_duplicate;
mod oversized_file;
mod retired_without_tombstone;
mod secret_in_memory;
mod stale_entry;
mod unreachable_file;
mod unreadable_file;

#[cfg(test)]
mod testing;

/// Hard rules find something lost or broken (the typed write spec broken, entries gone dark);
/// soft rules are signals worth a look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// An error (exit 1); a memory file with one counts against compliance.
    Hard,
    /// A warning.
    Soft,
}

impl Category {
    /// The severity a rule of this category reports at.
    pub fn severity(self) -> Severity {
        match self {
            Category::Hard => Severity::Error,
            Category::Soft => Severity::Warning,
        }
    }
}

pub use crate::severity::Severity;

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// The rule's stable name.
    pub rule: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// The file, relative to the library root (`/`-separated).
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters, when the finding is at a point in the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What is wrong, in one sentence (never the value of a secret).
    pub message: String,
    /// Byte range in the file to underline, when there is one.
    #[serde(skip)]
    pub span: Option<Range<usize>>,
    /// The source line must not be shown (it holds a secret).
    #[serde(skip)]
    pub redact: bool,
    /// A fix for this finding in particular, when it says more than the rule's
    /// ([`Rule::fix`]); read it with [`Diagnostic::fix`].
    #[serde(skip)]
    pub fix: Option<String>,
}

impl Diagnostic {
    /// The one-line fix printed beside the finding: its own, else its rule's.
    pub fn fix(&self) -> &str {
        match &self.fix {
            Some(fix) => fix,
            None => find(self.rule).map_or("", Rule::fix),
        }
    }
}

/// What a rule looks at.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// One file at a time (run in parallel over files).
    File(fn(&Ctx, usize, &mut Vec<Diagnostic>)),
    /// The whole library at once.
    Library(fn(&Ctx, &mut Vec<Diagnostic>)),
}

/// A rule of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable kebab-case name, used in every output format and in suppressions.
    pub name: &'static str,
    /// Hard or soft.
    pub category: Category,
    /// The write specs the rule belongs to.
    pub applies: Applies,
    /// The documentation (Markdown: What it does / Why it matters / Example / Fix).
    pub doc: &'static str,
    /// The check.
    pub check: Check,
}

impl Rule {
    /// The default severity (from the category).
    pub fn severity(&self) -> Severity {
        self.category.severity()
    }

    /// The one-line fix printed beside each finding of the rule: the first paragraph of the
    /// documentation's "Fix" section, on one line (so `ccmem explain` opens its Fix section
    /// with the same words).
    pub fn fix(&self) -> &'static str {
        static FIXES: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
        let fixes = FIXES.get_or_init(|| RULES.iter().map(|r| (r.name, fix_of(r.doc))).collect());
        fixes
            .iter()
            .find(|(name, _)| *name == self.name)
            .map_or("", |(_, fix)| fix.as_str())
    }

    /// The first sentence of the documentation's "What it does" section.
    pub fn summary(&self) -> &'static str {
        self.doc
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or(self.name)
    }
}

/// The first paragraph of the "Fix" section of a rule's documentation, joined on one line (a
/// trailing `:` that introduces an example dropped).
fn fix_of(doc: &str) -> String {
    let paragraph: Vec<&str> = doc
        .lines()
        .map(str::trim)
        .skip_while(|l| *l != "## Fix")
        .skip(1)
        .take_while(|l| !l.is_empty() && !l.starts_with("```") && !l.starts_with('#'))
        .collect();
    paragraph.join(" ").trim_end_matches(':').to_owned()
}

/// Declares a rule: its `///` lines become both the rustdoc and [`Rule::doc`] (one source).
macro_rules! declare_rule {
    ($(#[doc = $doc:literal])+ pub const RULE = ($name:literal, $cat:ident, $applies:ident, $check:expr);) => {
        $(#[doc = $doc])+
        pub(crate) const RULE: $crate::rules::Rule = $crate::rules::Rule {
            name: $name,
            category: $crate::rules::Category::$cat,
            applies: $crate::memory::spec::Applies::$applies,
            doc: concat!($($doc, "\n"),+),
            check: $check,
        };
    };
}
pub(crate) use declare_rule;

/// Every rule, hard ones first, in the order they are documented.
pub const RULES: &[Rule] = &[
    missing_frontmatter::RULE,
    invalid_frontmatter::RULE,
    missing_field::RULE,
    invalid_type::RULE,
    missing_why::RULE,
    bad_file_name::RULE,
    broken_link::RULE,
    unreadable_file::RULE,
    index_over_cap::RULE,
    unreachable_file::RULE,
    oversized_file::RULE,
    large_group::RULE,
    retired_without_tombstone::RULE,
    missing_modified::RULE,
    stale_entry::RULE,
    index_over_safety_line::RULE,
    index_over_target_line::RULE,
    long_index_line::RULE,
    near_duplicate::RULE,
    secret_in_memory::RULE,
    name_not_slug::RULE,
    missing_how_to_apply::RULE,
    interrupted_write::RULE,
];

/// Checks `[audit] disable` against the registry: a name that is no rule is an error at its
/// line (a typo must not leave the rule running).
pub fn check_config(config: &Config) -> Result<(), ConfigError> {
    config.check_rule_names("`audit.disable`", &config.audit.disable, |n| {
        find(n).is_some()
    })
}

/// The rule with this name.
pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// The documentation of a rule as plain text (doc-comment indentation removed).
pub fn doc_text(rule: &Rule) -> String {
    rule.doc
        .lines()
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Everything a rule may read.
pub struct Ctx<'a> {
    /// The library.
    pub lib: &'a Library,
    /// Thresholds (`lib.config.audit`).
    pub cfg: &'a AuditConfig,
    /// "Now", for staleness.
    pub now: Timestamp,
    /// MEMORY.md as the client measures it (`lib.index_state`).
    pub index_state: &'a IndexState,
    /// How MEMORY.md reaches each file (`lib.reach()`).
    pub reach: &'a [Reach],
}

impl<'a> Ctx<'a> {
    /// The context of `lib`, audited at `now`.
    pub fn new(lib: &'a Library, now: Timestamp) -> Self {
        Ctx {
            lib,
            cfg: &lib.config.audit,
            now,
            index_state: &lib.index_state,
            reach: lib.reach(),
        }
    }

    /// The spec the library is held to.
    pub fn spec(&self) -> crate::memory::Spec {
        self.lib.spec()
    }
}

impl Ctx<'_> {
    /// A finding of `rule` on file `file` at `line`.
    pub fn diag(&self, rule: &Rule, file: usize, line: usize, message: String) -> Diagnostic {
        Diagnostic {
            rule: rule.name,
            severity: rule.severity(),
            path: self.lib.files[file].rel.clone(),
            line,
            column: None,
            message,
            span: None,
            redact: false,
            fix: None,
        }
    }

    /// A finding about the library as a whole (its path is the folder itself, `""`).
    pub fn library_diag(&self, rule: &Rule, message: String) -> Diagnostic {
        Diagnostic {
            rule: rule.name,
            severity: rule.severity(),
            path: String::new(),
            line: 1,
            column: None,
            message,
            span: None,
            redact: false,
            fix: None,
        }
    }

    /// A finding underlining bytes `span` of file `file` (line and column computed).
    pub fn diag_at(
        &self,
        rule: &Rule,
        file: usize,
        span: Range<usize>,
        message: String,
    ) -> Diagnostic {
        self.diag_after(rule, file, (1, 0), span, message)
    }

    /// [`Ctx::diag_at`] for a span that starts at or after byte `from.1` of the file, which is
    /// on line `from.0` (where a link was found): only the lines between are counted, not the
    /// file from its start.
    pub fn diag_after(
        &self,
        rule: &Rule,
        file: usize,
        from: (usize, usize),
        span: Range<usize>,
        message: String,
    ) -> Diagnostic {
        let text = self.lib.files[file].text().unwrap_or("");
        let start = span.start.min(text.len());
        let (from_line, from) = if from.1 <= start { from } else { (1, 0) };
        let line_start = text[..start].rfind('\n').map_or(0, |k| k + 1);
        let column = text[line_start..start].chars().count() + 1;
        let line = from_line + crate::memory::file::line_of(&text[from..], start - from) - 1;
        Diagnostic {
            column: Some(column),
            span: Some(span),
            ..self.diag(rule, file, line, message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_documented() {
        let mut names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), RULES.len());
        for r in RULES {
            assert!(
                r.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{}",
                r.name
            );
            for section in [
                "## What it does",
                "## Why it matters",
                "## Example",
                "## Fix",
            ] {
                assert!(r.doc.contains(section), "{} lacks {section}", r.name);
            }
        }
    }

    #[test]
    fn every_rule_has_a_one_line_fix_that_opens_its_fix_section() {
        for r in RULES {
            let fix = r.fix();
            assert!(
                fix.len() >= 20 && fix.len() <= 240 && !fix.contains('\n'),
                "{}: {fix:?}",
                r.name
            );
            let section = &r.doc[r.doc.find("## Fix").unwrap()..];
            let first = fix.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
            let opening: Vec<&str> = section.split_whitespace().skip(2).take(4).collect();
            assert_eq!(first, opening.join(" "), "{}", r.name);
        }
        assert!(
            find("index-over-cap")
                .unwrap()
                .fix()
                .contains("`ccmem tier`"),
            "{}",
            find("index-over-cap").unwrap().fix()
        );
    }

    #[test]
    fn category_decides_severity() {
        for r in RULES {
            let expected = match r.category {
                Category::Hard => Severity::Error,
                Category::Soft => Severity::Warning,
            };
            assert_eq!(r.severity(), expected, "{}", r.name);
        }
    }

    #[test]
    fn issue_rule_names_are_registered_with_their_category() {
        let hard = [
            "missing-frontmatter",
            "missing-field",
            "invalid-type",
            "missing-why",
            "bad-file-name",
            "broken-link",
            "index-over-cap",
        ];
        let soft = [
            "unreachable-file",
            "oversized-file",
            "large-group",
            "retired-without-tombstone",
            "missing-modified",
            "stale-entry",
            "index-over-safety-line",
            "index-over-target-line",
            "long-index-line",
            "near-duplicate",
            "secret-in-memory",
        ];
        for n in hard {
            assert_eq!(find(n).map(|r| r.category), Some(Category::Hard), "{n}");
        }
        for n in soft {
            assert_eq!(find(n).map(|r| r.category), Some(Category::Soft), "{n}");
        }
    }
}
