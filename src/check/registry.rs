//! The check rules: one file per rule under `rules/`, each declared with [`declare_check!`]
//! so its `///` lines are both its rustdoc and the documentation `ccmem explain NAME` prints
//! (and SARIF's `fullDescription`): What it does / Why it matters / Example / Fix. A rule's
//! category decides its default severity (hard = error: instructions are lost or never load;
//! soft = warning).

use super::{Ctx, Finding};
use crate::config::{Config, ConfigError};
pub use crate::rules::Category;
use crate::severity::Severity;

/// A check rule.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable kebab-case name, used in every output format and in suppressions.
    pub name: &'static str,
    /// Hard or soft.
    pub category: Category,
    /// The documentation (Markdown).
    pub doc: &'static str,
    /// The check, over the whole repository.
    pub check: fn(&Ctx, &mut Vec<Finding>),
}

impl Rule {
    /// The default severity (from the category).
    pub fn severity(&self) -> Severity {
        self.category.severity()
    }

    /// The first sentence of the documentation.
    pub fn summary(&self) -> &'static str {
        self.doc
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or(self.name)
    }

    /// The documentation as plain Markdown (doc-comment indentation removed).
    pub fn doc_text(&self) -> String {
        self.doc
            .lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Declares a check rule: its `///` lines become both the rustdoc and [`Rule::doc`].
macro_rules! declare_check {
    ($(#[doc = $doc:literal])+ pub const RULE = ($name:literal, $cat:ident, $check:expr);) => {
        $(#[doc = $doc])+
        pub const RULE: $crate::check::registry::Rule = $crate::check::registry::Rule {
            name: $name,
            category: $crate::check::registry::Category::$cat,
            doc: concat!($($doc, "\n"),+),
            check: $check,
        };
    };
}
pub(crate) use declare_check;

use super::rules as r;

/// Every check rule, hard ones first within each group, in the order `docs/rules.md` lists them.
pub const RULES: &[Rule] = &[
    r::import_outside_start_dir::RULE,
    r::linked_rule_outside_start_dir::RULE,
    r::agents_md_lost_below::RULE,
    r::agents_md_hidden_by_local::RULE,
    r::agents_md_never_loads::RULE,
    r::nested_agents_md::RULE,
    r::wrong_case_name::RULE,
    r::misplaced_instruction_file::RULE,
    r::instruction_file_unreadable::RULE,
    r::foreign_scope_key::RULE,
    r::paths_brace_over_budget::RULE,
    r::invalid_paths_pattern::RULE,
    r::paths_match_nothing::RULE,
    r::rules_folder_linked_outside::RULE,
    r::import_target_missing::RULE,
    r::import_cut_at_space::RULE,
    r::import_depth_exceeded::RULE,
    r::import_cycle::RULE,
    r::import_in_code::RULE,
    r::exclude_pattern_relative::RULE,
    r::exclude_matches_nothing::RULE,
    r::settings_ignored::RULE,
    r::file_over_size_warning::RULE,
    r::total_over_size_warning::RULE,
];

/// The rule with this name.
pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// Checks the rules `[check]` names (`disable`, `per-file-ignores`) against the registry: a
/// name that is no rule is an error at its line.
pub fn check_config(config: &Config) -> Result<(), ConfigError> {
    let known = |n: &str| find(n).is_some();
    config.check_rule_names("`check.disable`", &config.check.disable, known)?;
    let ignores = config.check.per_file_ignores.values().flatten();
    config.check_rule_names("`check.per-file-ignores`", ignores, |n| {
        n == "*" || known(n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_documented_and_distinct_from_audit() {
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
            assert!(
                crate::rules::find(r.name).is_none(),
                "{} is also an audit rule",
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
    fn category_decides_severity() {
        for r in RULES {
            let expected = match r.category {
                Category::Hard => Severity::Error,
                Category::Soft => Severity::Warning,
            };
            assert_eq!(r.severity(), expected, "{}", r.name);
        }
    }
}
